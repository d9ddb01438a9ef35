use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn pick(a: u32, b: u32) -> u32 {
    match a {
        x if x > b => x,
        _ => b,
    }
}

fn main() {}
