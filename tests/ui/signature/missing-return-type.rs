use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: i32, b: i32) {
    let _ = a + b;
}

fn main() {}
