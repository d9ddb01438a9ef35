use warp_runtime::prelude::*;

#[predicate]
fn always() -> bool {
    true
}

fn main() {}
