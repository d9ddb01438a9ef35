use warp_runtime::prelude::*;

#[reduce(identity = (f32::NEG_INFINITY, 0, 0))]
fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    if b.0 > a.0 { b } else { a }
}

fn main() {}
