use warp_runtime::prelude::*;

#[predicate]
fn inside(x: f32, range: (f32, f32)) -> bool {
    x >= range.0 && x <= range.1
}

fn main() {}
