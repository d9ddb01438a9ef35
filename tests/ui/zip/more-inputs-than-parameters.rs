use warp_runtime::prelude::*;

#[predicate(inputs = 3)]
fn close(x: f32, y: f32) -> bool {
    x == y
}

fn main() {}
