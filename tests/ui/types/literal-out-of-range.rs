use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: u8, b: u8) -> u8 {
    a.wrapping_add(b).wrapping_add(300)
}

fn main() {}
