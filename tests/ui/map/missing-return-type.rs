use warp_runtime::prelude::*;

#[map]
fn square(x: f32) {
    let _ = x * x;
}

fn main() {}
