use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: i32, b: i32) -> i64 {
    (a + b) as i64
}

fn main() {}
