use warp_runtime::prelude::*;

#[map(inputs = 2)]
fn dot2(x: (f32, f32), y: f32) -> f32 {
    x.0 * y + x.1
}

fn main() {}
