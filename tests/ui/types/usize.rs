use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: usize, b: usize) -> usize {
    a + b
}

fn main() {}
