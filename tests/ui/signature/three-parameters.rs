use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: u32, b: u32, c: u32) -> u32 {
    a + b + c
}

fn main() {}
