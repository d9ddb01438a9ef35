use warp_runtime::prelude::*;

#[map(inputs = 5)]
fn five(a: f32, b: f32, c: f32, d: f32, e: f32) -> f32 {
    a + b + c + d + e
}

#[predicate(inputs = 0)]
fn none(x: f32) -> bool {
    x > 0.0
}

fn main() {}
