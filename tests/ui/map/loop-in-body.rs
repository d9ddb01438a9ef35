use warp_runtime::prelude::*;

#[map]
fn cube(x: f32) -> f32 {
    let mut p = 1.0;
    for _ in 0..3 {
        p *= x;
    }
    p
}

fn main() {}
