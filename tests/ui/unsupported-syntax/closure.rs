use warp_runtime::prelude::*;

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    let add = |x: f32, y: f32| x + y;
    add(a, b)
}

fn main() {}
