use warp_runtime::prelude::*;

#[reduce(identity = ((0.0, 0.0), 0))]
fn sum(a: ((f32, f32), u32), b: ((f32, f32), u32)) -> ((f32, f32), u32) {
    a
}

fn main() {}
