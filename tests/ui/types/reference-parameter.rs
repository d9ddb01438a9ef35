use warp_runtime::prelude::*;

#[reduce(identity = 0.0)]
fn sum(a: &f32, b: &f32) -> f32 {
    *a + *b
}

fn main() {}
