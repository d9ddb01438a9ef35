use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: u32, b: u32) -> u32 {
    let c = 'x';
    a + b
}

fn main() {}
