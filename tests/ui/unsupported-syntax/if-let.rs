use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn pick(a: u32, b: u32) -> u32 {
    if let 0 = a { b } else { a }
}

fn main() {}
