use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: i32, b: i32) -> i32 {
    let mut s = a;
    for _ in 0..3 {
        s += b;
    }
    s
}

fn main() {}
