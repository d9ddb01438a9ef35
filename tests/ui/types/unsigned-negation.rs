use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn diff(a: u32, b: u32) -> u32 {
    a + -b
}

fn main() {}
