use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: i32, b: i64) -> i32 {
    a + b as i32
}

fn main() {}
