use warp_runtime::prelude::*;

struct P {
    x: f32,
}

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    let p = P { x: a };
    p.x + b
}

fn main() {}
