use warp_runtime::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Plain {
    a: f32,
}

#[map]
fn make(x: f32) -> Plain {
    Plain { a: x }
}

fn main() {}
