use warp_runtime::prelude::*;

#[reduce(identity = 0, fast = true)]
fn sum(a: i32, b: i32) -> i32 {
    a + b
}

fn main() {}
