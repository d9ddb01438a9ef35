use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum(a: u32, b: u32) -> u32 {
    let mut x = 0;
    while x < a {
        x += 1;
    }
    let v = [a, b];
    x + v[0]
}

fn main() {}
