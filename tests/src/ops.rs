//! Operators shared by the GPU tests, the CPU tests and the benchmark (one definition each;
//! the macros keep the function's visibility, so they are used from here).

use warp_runtime::prelude::*;

/// f32 sum.
#[reduce(identity = 0.0)]
pub fn sum_f32(a: f32, b: f32) -> f32 {
    a + b
}

/// f32 sum written through a `let`, so that it is not recognised as a plain sum
/// (`OpFragment::f32_sum`): its scans take the fixed tree of tile prefixes, not exact tile sums.
#[reduce(identity = 0.0)]
#[allow(clippy::let_and_return)]
pub fn sum_f32_tree(a: f32, b: f32) -> f32 {
    let s = a + b;
    s
}

/// Wrapping i32 sum.
#[reduce(identity = 0)]
pub fn sum_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// f32 maximum (NaN ignored, as `f32::max`).
#[reduce(identity = f32::NEG_INFINITY)]
pub fn max_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}

/// Argmax over `(value, index)` pairs, NaN-propagating like NumPy (the README's): NaN is the
/// largest value; ties, NaNs too, go to the smaller index.
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
pub fn argmax_f32(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    // NumPy's argmax: NaN is the largest value; ties (NaNs too) go to the smallest index.
    let b_wins = if a.0.is_nan() || b.0.is_nan() {
        b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
    } else {
        b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
    };
    if b_wins { b } else { a }
}

/// Argmin over `(value, index)` pairs with a 64-bit index, NaN-propagating like NumPy's
/// `argmin`: NaN counts as the smallest value; ties, NaNs too, go to the smaller index.
#[reduce(identity = (f64::INFINITY, u64::MAX))]
pub fn argmin_f64(a: (f64, u64), b: (f64, u64)) -> (f64, u64) {
    let b_wins = if a.0.is_nan() || b.0.is_nan() {
        b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
    } else {
        b.0 < a.0 || (b.0 == a.0 && b.1 < a.1)
    };
    if b_wins { b } else { a }
}

/// `x > 0`.
#[predicate]
pub fn positive(x: f32) -> bool {
    x > 0.0
}

/// `x > t`, the threshold bound at call time.
#[predicate]
pub fn above(x: f32, t: f32) -> bool {
    x > t
}

/// `x * x`.
#[map]
pub fn square(x: f32) -> f32 {
    x * x
}

/// `x` widened to u64 and shifted left by a bound amount.
#[map]
pub fn widen(x: u8, shift: u32) -> u64 {
    (x as u64) << shift
}

/// `x * y`: the map of a dot product over two zipped arrays.
#[map(inputs = 2)]
pub fn mul(x: f32, y: f32) -> f32 {
    x * y
}

/// `(x - y)^2`: the map of a squared distance.
#[map(inputs = 2)]
pub fn sq_diff(x: f32, y: f32) -> f32 {
    let d = x - y;
    d * d
}

/// `|x - y| <= atol + rtol * |y|`, NumPy's `isclose` (NaN is never close; equal infinities
/// are).
#[predicate(inputs = 2)]
pub fn close(x: f32, y: f32, rtol: f32, atol: f32) -> bool {
    x == y || (x - y).abs() <= atol + rtol * y.abs()
}

/// `y > t` over zipped `(x, y)`: selects `x` where `y` is above the threshold.
#[predicate(inputs = 2)]
pub fn second_above(x: f32, y: f32, t: f32) -> bool {
    let _ = x;
    y > t
}

/// A mixed-width row: `a + b * c` with `flag` choosing the sign.
#[map(inputs = 4)]
pub fn mixed(a: f64, b: f32, c: u16, flag: bool) -> f64 {
    let v = a + (b as f64) * (c as f64);
    if flag { -v } else { v }
}

/// f64 sum.
#[reduce(identity = 0.0)]
pub fn sum_f64(a: f64, b: f64) -> f64 {
    a + b
}

/// `x < y` over zipped `(i32, u8)` rows.
#[predicate(inputs = 2)]
pub fn below(x: i32, y: u8) -> bool {
    x < y as i32
}

/// Sums of pairs: reduces zipped `(i32, i32)` rows as tuples.
#[reduce(identity = (0, 0))]
pub fn sum_pairs(a: (i32, i32), b: (i32, i32)) -> (i32, i32) {
    (a.0.wrapping_add(b.0), a.1.wrapping_add(b.1))
}

/// An f16 widened to f32 (what a sum over f16 activations accumulates).
#[map]
pub fn widen_f16(x: f16) -> f32 {
    x.to_f32()
}

/// A bf16 widened to f32.
#[map]
pub fn widen_bf16(x: bf16) -> f32 {
    x.to_f32()
}

/// The maximum of f16 values (`half`'s `max`: NaN ignored).
#[reduce(identity = f16::NEG_INFINITY)]
pub fn max_f16(a: f16, b: f16) -> f16 {
    a.max(b)
}

/// An f16 sum in f16 (each addition rounded to f16, as `half` adds).
#[reduce(identity = f16::ZERO)]
pub fn sum_f16(a: f16, b: f16) -> f16 {
    a + b
}

/// `x > t` on bf16 values.
#[predicate]
pub fn bf16_above(x: bf16, t: bf16) -> bool {
    x > t
}

/// f32 rounded to bf16 and f16, and the f16 error of the bf16 rounding.
#[map]
pub fn round_both(x: f32) -> (bf16, f16, f32) {
    let b = bf16::from_f32(x);
    let h = f16::from_f32(x);
    (b, h, h.to_f32() - b.to_f32())
}

/// One element as a Welford state `(count, mean, m2)`.
#[map]
pub fn welford_one(x: f32) -> (u32, f64, f64) {
    (1, x as f64, 0.0)
}

/// Chan et al.'s parallel merge of two Welford states `(count, mean, m2)`: the mean and the
/// sum of squared deviations of the union, in one pass (no catastrophic cancellation).
#[reduce(identity = (0, 0.0, 0.0))]
pub fn welford(a: (u32, f64, f64), b: (u32, f64, f64)) -> (u32, f64, f64) {
    let n = a.0.wrapping_add(b.0);
    if n == 0 {
        a
    } else {
        let (na, nb) = (a.0 as f64, b.0 as f64);
        let r = 1.0 / n as f64;
        let delta = b.1 - a.1;
        (
            n,
            a.1 + delta * (nb * r),
            a.2 + b.2 + delta * delta * (na * nb * r),
        )
    }
}

/// One element as an f32 Welford state `(count, mean, m2)` (the count in f32: exact up to
/// 2^24 per partial, beyond that within a relative 6e-8, which the variance does not see).
#[map]
pub fn welford32_one(x: f32) -> (f32, f32, f32) {
    (1.0, x, 0.0)
}

/// [`welford`] in f32: all the arithmetic of the per-element merge in f32.
#[reduce(identity = (0.0, 0.0, 0.0))]
pub fn welford32(a: (f32, f32, f32), b: (f32, f32, f32)) -> (f32, f32, f32) {
    let n = a.0 + b.0;
    if n == 0.0 {
        a
    } else {
        let r = 1.0 / n;
        let delta = b.1 - a.1;
        (
            n,
            a.1 + delta * (b.0 * r),
            a.2 + b.2 + delta * delta * (a.0 * b.0 * r),
        )
    }
}

/// Welford's state as a struct: how many, their mean, the sum of squared deviations.
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Moments {
    /// How many values.
    pub count: f32,
    /// Their mean.
    pub mean: f32,
    /// The sum of their squared deviations from the mean.
    pub m2: f32,
}

/// One element as [`Moments`].
#[map]
pub fn moments_one(x: f32) -> Moments {
    Moments {
        count: 1.0,
        mean: x,
        m2: 0.0,
    }
}

/// The parallel Welford merge of two [`Moments`].
#[reduce(identity = Moments { count: 0.0, mean: 0.0, m2: 0.0 })]
pub fn moments(a: Moments, b: Moments) -> Moments {
    let n = a.count + b.count;
    if n == 0.0 {
        a
    } else {
        let delta = b.mean - a.mean;
        let r = 1.0 / n;
        Moments {
            count: n,
            mean: a.mean + delta * (b.count * r),
            m2: a.m2 + b.m2 + delta * delta * (a.count * b.count * r),
        }
    }
}

/// Mixed field sizes (C pads after `flag` and `tag`), a half among them.
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Mixed {
    /// A flag.
    pub flag: bool,
    /// A double.
    pub value: f64,
    /// A short.
    pub tag: u16,
    /// A half.
    pub h: f16,
    /// A word.
    pub n: u32,
}

/// An f32 spread over the fields of [`Mixed`].
#[map]
pub fn mixed_of(x: f32) -> Mixed {
    Mixed {
        flag: x > 0.0,
        value: x as f64 * 2.0,
        tag: (x.abs() * 1000.0) as u16,
        h: f16::from_f32(x),
        n: x.to_bits() >> 9,
    }
}

/// Struct values tested by a predicate: a [`Mixed`] that is flagged with a large tag.
#[predicate]
pub fn flagged(m: Mixed, t: u16) -> bool {
    m.flag && m.tag > t
}

/// `x < t`, the threshold bound at call time (the three-way partition's predicates).
#[predicate]
pub fn less(x: f32, t: f32) -> bool {
    x < t
}

/// The byte itself: a histogram's bin (256 bins).
#[map]
pub fn byte_bin(x: u8) -> u32 {
    x as u32
}

/// `x % m` as a signed bin (`m > 0`): negative for negative `x`, so dropped.
#[map]
pub fn rem_bin(x: i32, m: i32) -> i32 {
    x % m
}

/// The bin of a pair of bytes among 65,536: `x * 256 + y`.
#[map(inputs = 2)]
pub fn pair_bin(x: u8, y: u8) -> u64 {
    (x as u64) * 256 + y as u64
}

/// `floor(x * k)` as an i64 bin (negative for negative `x`: dropped; NaN gives 0, as Rust's
/// saturating cast).
#[map]
pub fn scaled_bin(x: f32, k: f32) -> i64 {
    (x * k).floor() as i64
}

/// `x * k` shifted right by `s` as a u16 bin (wrapping multiply): many bins of u32 values.
#[map]
pub fn hashed_bin(x: u32, k: u32, s: u32) -> u16 {
    (x.wrapping_mul(k) >> s) as u16
}

/// Wrapping i64 sum (reduce-by-key's values in the runs tests).
#[reduce(identity = 0)]
pub fn add_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// A value scaled by `scale`, with a count of one: the input of [`sum_count`] (a mean per key).
#[map]
pub fn scaled_one(x: f32, scale: f32) -> (f32, u32) {
    (x * scale, 1)
}

/// Sums and counts (wrapping).
#[reduce(identity = (0.0, 0))]
pub fn sum_count(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    (a.0 + b.0, a.1.wrapping_add(b.1))
}

/// The smallest and the largest value seen (8 bytes: reduce-by-key's largest value).
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Span {
    /// The smallest.
    pub lo: f32,
    /// The largest.
    pub hi: f32,
}

/// One element as a [`Span`].
#[map]
pub fn span_one(x: f32) -> Span {
    Span { lo: x, hi: x }
}

/// Two [`Span`]s merged (`min` / `max`: NaN is skipped when the other side is a number).
#[reduce(identity = Span { lo: f32::INFINITY, hi: f32::NEG_INFINITY })]
pub fn span(a: Span, b: Span) -> Span {
    Span {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
    }
}

/// `x - 2y`: not symmetric, so swapped columns (`y - 2x`) or a duplicated one (`-x`, `-y`)
/// change the results.
#[map(inputs = 2)]
pub fn x_minus_2y(x: f32, y: f32) -> f32 {
    x - 2.0 * y
}

/// `a + 3b - 5c + 7d`: four arrays with distinct weights (any permutation of the arrays, or
/// one read twice, changes the result).
#[map(inputs = 4)]
pub fn weighted4(a: f32, b: f32, c: f32, d: f32) -> f32 {
    a + 3.0 * b - 5.0 * c + 7.0 * d
}

/// Zipped `(i32, i32)` rows: a wrapping sum of the first column and the xor of the second, so
/// that swapped or duplicated columns give other results.
#[reduce(identity = (0, 0))]
pub fn add_xor(a: (i32, i32), b: (i32, i32)) -> (i32, i32) {
    (a.0.wrapping_add(b.0), a.1 ^ b.1)
}

/// [`weighted4`] over four zipped views, mapped and summed, bit for bit against `want` (each
/// row's exact value; small integers, so the sum is exact too).
pub fn check_weighted4<A, B, C, D>(dev: &Device, z: &(&A, &B, &C, &D), want: &[i64], what: &str)
where
    for<'a> (&'a A, &'a B, &'a C, &'a D): warp_runtime::AsSlice<(f32, f32, f32, f32)>,
{
    crate::assert_bits(
        &[dev.map_reduce(weighted4, sum_f32, z).unwrap()],
        &[want.iter().sum::<i64>() as f32],
        &format!("weighted sum of four {what}"),
    );
    crate::assert_bits(
        &dev.map(weighted4, z).unwrap().download().unwrap(),
        &want.iter().map(|&e| e as f32).collect::<Vec<_>>(),
        &format!("weighted map of four {what}"),
    );
}

/// `sum_f32` in the cooperative-groups style (`cg::reduce`): the same bits as the intrinsics.
#[reduce(identity = 0.0, style = "cooperative_groups")]
pub fn cg_sum_f32(a: f32, b: f32) -> f32 {
    a + b
}

/// `sum_i32` in the cooperative-groups style.
#[reduce(identity = 0, style = "cooperative_groups")]
pub fn cg_sum_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// `max_f32` in the cooperative-groups style.
#[reduce(identity = f32::NEG_INFINITY, style = "cooperative_groups")]
pub fn cg_max_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}

/// `argmax_f32` (NaN-propagating, ties to the smallest index) in the cooperative-groups style.
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX), style = "cooperative_groups")]
pub fn cg_argmax_f32(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    let b_wins = if a.0.is_nan() || b.0.is_nan() {
        b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
    } else {
        b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
    };
    if b_wins { b } else { a }
}

/// The sort key of `sort_by_key`'s tests: the magnitude.
#[map]
pub fn magnitude(x: f32) -> f32 {
    x.abs()
}

/// The sort key of `sort_by_key`'s tests: the low byte.
#[map]
pub fn low_byte(x: u64) -> u8 {
    x as u8
}

/// Each distinct key of `keys` with its count and the wrapping sum of its `vals`, by plain
/// Rust (a `BTreeMap`, so keys ascending): what `unique_counts` and `group_reduce` are tested
/// against.
pub fn groups(keys: &[i32], vals: &[i64]) -> std::collections::BTreeMap<i32, (u32, i64)> {
    let mut want = std::collections::BTreeMap::new();
    for (&k, &v) in keys.iter().zip(vals) {
        let e: &mut (u32, i64) = want.entry(k).or_insert((0, 0));
        e.0 += 1;
        e.1 = e.1.wrapping_add(v);
    }
    want
}

/// Whether `a` is nearer zero than `b` (a sort by magnitude: `-1.0` and `1.0` tie).
#[predicate(inputs = 2)]
pub fn nearer_zero(a: f32, b: f32) -> bool {
    a.abs() < b.abs()
}

/// Whether `a`'s residue mod `m` is below `b`'s (a bound argument; many ties).
#[predicate(inputs = 2)]
pub fn residue_below(a: u32, b: u32, m: u32) -> bool {
    a % m < b % m
}

/// Whether `a` is greater than `b` (a descending order).
#[predicate(inputs = 2)]
pub fn greater_i64(a: i64, b: i64) -> bool {
    a > b
}

/// A point of the plane (8 bytes: a struct a comparator sorts whole).
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Point {
    /// Abscissa.
    pub x: f32,
    /// Ordinate.
    pub y: f32,
}

/// Whether `a` is nearer the origin than `b` (points at one radius tie).
#[predicate(inputs = 2)]
pub fn nearer_origin(a: Point, b: Point) -> bool {
    a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y
}

/// Whether `a.0 % m` is below `b.0 % m`: a tuple of 24 C bytes (padding after each of its
/// first and last fields), many ties, a bound argument.
#[predicate(inputs = 2)]
pub fn tag_below(a: (u16, f64, u8), b: (u16, f64, u8), m: u16) -> bool {
    a.0 % m < b.0 % m
}

/// Whether `a`'s value is greater than `b`'s, of [`Mixed`] structs (24 C bytes, a descending
/// order).
#[predicate(inputs = 2)]
pub fn mixed_greater(a: Mixed, b: Mixed) -> bool {
    a.value > b.value
}

/// Whether `a`'s low byte is below `b`'s (few distinct sort keys over `u16`).
#[predicate(inputs = 2)]
pub fn low_byte_below(a: u16, b: u16) -> bool {
    (a & 0xff) < (b & 0xff)
}

/// Wrapping sum of `u64`s.
#[reduce(identity = 0)]
pub fn add_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

/// Wrapping sum of `u32`s.
#[reduce(identity = 0)]
pub fn add_u32(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

/// 1 when the point of the unit square hashed from index `i` (a 64-bit mix, 24 bits a
/// coordinate) lies inside the quarter disc, else 0: a Monte-Carlo estimate of pi / 4 over a
/// generated range.
#[map]
pub fn pi_hit(i: u64) -> u32 {
    let mut h = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 31;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 29;
    let x = (h >> 40) as f32 * (1.0 / 16_777_216.0);
    let y = ((h >> 16) & 0xff_ffff) as f32 * (1.0 / 16_777_216.0);
    if x * x + y * y < 1.0 { 1 } else { 0 }
}

/// The Gauss integrand at the midpoint of step `i` of width `h`: `exp(-x^2)` at
/// `x = (i + 0.5) h`, times `h` (its summed midpoint rule integrates it).
#[map]
pub fn gauss_step(i: u64, h: f64) -> f64 {
    let x = (i as f64 + 0.5) * h;
    (-(x * x)).exp() * h
}

/// The low 32 bits of an index, as a value of a `u32` reduction.
#[map]
pub fn low_word(i: u64) -> u32 {
    i as u32
}

/// Whether `i` is a multiple of `m` (`m > 0`).
#[predicate]
pub fn multiple_of(i: u64, m: u64) -> bool {
    i % m < 1
}

/// The low byte of an index, as a bin of 256.
#[map]
pub fn index_byte(i: u64) -> u32 {
    (i & 255) as u32
}

/// Whether `x` is a multiple of `m` (`m > 0`), for `u32` values.
#[predicate]
pub fn u32_multiple_of(x: u32, m: u32) -> bool {
    x % m < 1
}

/// `x + k`, wrapping.
#[map]
pub fn add_k(x: u64, k: u64) -> u64 {
    x.wrapping_add(k)
}

/// The low word of `x` times `k`, wrapping.
#[map]
pub fn scale_low(x: u64, k: u32) -> u32 {
    (x as u32).wrapping_mul(k)
}

/// Byte `s / 8` of `x` (`s` a multiple of 8 below 32), as a bin.
#[map]
pub fn u32_byte(x: u32, s: u32) -> u32 {
    (x >> s) & 255
}

/// The largest of two `i64`.
#[reduce(identity = i64::MIN)]
pub fn max_i64(a: i64, b: i64) -> i64 {
    a.max(b)
}

/// The smaller of two `f32` (`f32::min`: a NaN loses to a number).
#[reduce(identity = f32::INFINITY)]
pub fn min_f32(a: f32, b: f32) -> f32 {
    a.min(b)
}

/// Bitwise exclusive or.
#[reduce(identity = 0)]
pub fn xor_u32(a: u32, b: u32) -> u32 {
    a ^ b
}

/// The key itself as the bin.
#[map]
pub fn key_bin_u32(k: u32) -> u32 {
    k
}

/// A `u32` as an `f64` (a second map after `low_word`).
#[map]
pub fn u32_to_f64(x: u32) -> f64 {
    x as f64
}

/// The widest value a comparator sorts whole: eight `f64`s, 64 bytes (a thread of the merge
/// sort holds one).
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Wide {
    /// First field (half of the order).
    pub a: f64,
    /// Payload.
    pub b: f64,
    /// Payload.
    pub c: f64,
    /// Payload.
    pub d: f64,
    /// Payload.
    pub e: f64,
    /// Payload.
    pub f: f64,
    /// Payload.
    pub g: f64,
    /// Last field (the other half of the order).
    pub h: f64,
}

/// Whether `a.a + a.h` is below `b.a + b.h`, of [`Wide`] values (many ties).
#[predicate(inputs = 2)]
pub fn wide_below(a: Wide, b: Wide) -> bool {
    a.a + a.h < b.a + b.h
}

/// An index zipped with an element: the index times the element (wrapping).
#[map(inputs = 2)]
pub fn index_times(i: u64, x: u32) -> u64 {
    i.wrapping_mul(x as u64)
}

/// An element zipped with a `u32` index after it: their sum (wrapping).
#[map(inputs = 2)]
pub fn plus_index(x: u32, i: u32) -> u32 {
    x.wrapping_add(i)
}

/// Three columns, the index in the middle: `x + i * y` (wrapping).
#[map(inputs = 3)]
pub fn x_plus_i_y(x: u32, i: u64, y: u32) -> u64 {
    (x as u64).wrapping_add(i.wrapping_mul(y as u64))
}

/// Two indices around an element: `i ^ (j * x)` (wrapping).
#[map(inputs = 3)]
pub fn two_indices(i: u64, x: u32, j: u64) -> u64 {
    i ^ j.wrapping_mul(x as u64)
}

/// Whether the index is a multiple of `m` (`m > 0`) and the element beside it odd.
#[predicate(inputs = 2)]
pub fn index_multiple_odd(i: u64, x: u32, m: u64) -> bool {
    i % m < 1 && x & 1 == 1
}

/// Sums of `(index, element)` rows, both wrapping.
#[reduce(identity = (0, 0))]
pub fn add_index_rows(a: (u64, u32), b: (u64, u32)) -> (u64, u32) {
    (a.0.wrapping_add(b.0), a.1.wrapping_add(b.1))
}

/// The bin of an `(index, element)` row: the low byte of their xor.
#[map(inputs = 2)]
pub fn index_elem_bin(i: u64, x: u32) -> u32 {
    ((i ^ x as u64) & 255) as u32
}
