use warp_runtime::prelude::*;

#[predicate]
fn positive(x: f32) -> f32 {
    x
}

fn main() {}
