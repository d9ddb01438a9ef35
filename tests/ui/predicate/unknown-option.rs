use warp_runtime::prelude::*;

#[predicate(threshold = 1.0)]
fn big(x: f32) -> bool {
    x > 1.0
}

fn main() {}
