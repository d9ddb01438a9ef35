//! Operators over the values where Rust's operators panic (overflow, division by zero,
//! `MIN / -1`, shifts by the width or more, `MIN.abs()`, `clamp` with crossed bounds): the CPU
//! backend must compute the GPU's documented results for them (`warp_runtime::semantics`).

use warp_runtime::prelude::*;

use crate::{Random, rng};

#[reduce(identity = 0)]
pub fn add_i32(a: i32, b: i32) -> i32 {
    a + b
}

#[reduce(identity = 0)]
pub fn add_u8(a: u8, b: u8) -> u8 {
    a + b
}

#[reduce(identity = 1)]
pub fn mul_i64(a: i64, b: i64) -> i64 {
    a * b
}

#[reduce(identity = 0)]
pub fn sub_neg_u16(a: u16, b: u16) -> u16 {
    // `a + b` written as `a - (0 - b)`: both subtractions overflow for most inputs.
    a - (0 - b)
}

/// `a / b`, `a % b`, `-a`, `a.abs()` and a compound assignment of each operator at once.
#[map(inputs = 2)]
pub fn int_ops(a: i32, b: i32) -> (i32, i32, i32, i32, i32) {
    let mut c = a;
    c *= b;
    c += a;
    c -= b;
    c /= b;
    c %= a;
    (a / b, a % b, -a, a.abs(), c)
}

#[map(inputs = 2)]
pub fn narrow_ops(a: i8, b: i8) -> (i8, i8, i8, i8, u8) {
    (a / b, a % b, -a, i8::abs(a), (a as u8) / (b as u8))
}

#[map(inputs = 2)]
pub fn wide_ops(a: i64, b: i64) -> (i64, i64, i64, u64) {
    (a / b, a % b, a.abs(), (a as u64) % (b as u64))
}

/// Shifts by any amount (of any integer type), and their compound assignments.
#[map(inputs = 2)]
pub fn shifts(a: i32, s: u32) -> (i32, i32, u64, i8, i32) {
    let mut x = a;
    x <<= s;
    x >>= s as i64;
    (a << s, a >> s, (a as u64) << (s as i64), (a as i8) >> s, x)
}

/// `pow` and `clamp` where Rust panics (overflow; `lo > hi`, NaN bounds).
#[map(inputs = 2)]
pub fn methods(a: u32, e: u32) -> (u32, i16, u32, i32) {
    (
        a.pow(e),
        (a as i16).pow(e),
        a.clamp(e, 7),
        i32::pow(a as i32, e),
    )
}

#[map(inputs = 2)]
pub fn float_clamp(x: f32, lo: f32) -> (f32, f64) {
    (x.clamp(lo, 0.5), f64::clamp(x as f64, 0.25, lo as f64))
}

#[map]
pub fn neg_f32(x: f32) -> (f32, f32) {
    (-x, x / 0.0)
}

/// Inputs with every edge in every pairing, then `n` random pairs (MIN, MAX, 0, -1 sprinkled).
pub fn pairs<T: Random + Copy>(edges: &[T], seed: u64, n: usize) -> (Vec<T>, Vec<T>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in edges {
        for &y in edges {
            a.push(x);
            b.push(y);
        }
    }
    let mut r = rng(seed);
    a.extend(T::random_vec(&mut r, n, true));
    b.extend(T::random_vec(&mut r, n, true));
    (a, b)
}
