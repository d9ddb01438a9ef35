use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn neg(a: i32) -> i32 {
    -a
}

fn main() {}
