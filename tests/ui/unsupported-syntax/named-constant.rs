use warp_runtime::prelude::*;

const SCALE: f32 = 2.0;

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b * SCALE
}

fn main() {}
