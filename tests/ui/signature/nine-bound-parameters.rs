use warp_runtime::prelude::*;

// Eight bound parameters are the most a kernel takes: nine are refused, at the ninth.
#[map]
fn weighted(x: f32, a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32, h: f32, i: f32) -> f32 {
    x + a + b + c + d + e + f + g + h + i
}

// The element parameters of zipped arrays are not bound: two elements and nine bound ones.
#[predicate(inputs = 2)]
fn near(x: f32, y: f32, a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32, h: f32, i: u8) -> bool {
    x - y < a + b + c + d + e + f + g + h + i as f32
}

// Eight are fine.
#[map]
fn eight(x: f32, a: f32, b: f32, c: f32, d: f32, e: f32, f: f32, g: f32, h: f32) -> f32 {
    x + a + b + c + d + e + f + g + h
}

fn main() {
    let _ = eight.with(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
}
