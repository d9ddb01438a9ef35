use warp_runtime::prelude::*;

// A comparator takes two values of one tuple type; two different tuples are not one.
#[predicate(inputs = 2)]
fn before(a: (f32, u32), b: (f32, f32)) -> bool {
    a.0 < b.0
}

fn main() {}
