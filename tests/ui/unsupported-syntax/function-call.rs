use warp_runtime::prelude::*;

fn helper(x: f32) -> f32 {
    x * 2.0
}

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    helper(a) + b
}

fn main() {}
