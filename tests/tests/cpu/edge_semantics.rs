//! One semantics on both backends: the CPU backend computes the GPU's documented results
//! (README "The body language", `warp_runtime::semantics`) where Rust's operators panic:
//! overflowing `+ - *`, division and remainder by zero, `MIN / -1`, shifts by the width or
//! more, `-MIN`, `MIN.abs()`, overflowing `pow`, `clamp` with crossed or NaN bounds. These
//! tests run in the debug profile (overflow checks on), where the function as written panics.

use warp_runtime::prelude::*;
use warp_tests::edge_ops::{
    add_i32, add_u8, float_clamp, int_ops, methods, mul_i64, narrow_ops, neg_f32, pairs, shifts,
    sub_neg_u16, wide_ops,
};
use warp_tests::seed;

/// The documented integer division: 0 by zero, wrapping (`MIN / -1 == MIN`) otherwise.
macro_rules! reference {
    ($($t:ty => $div:ident, $rem:ident);*) => {$(
        fn $div(a: $t, b: $t) -> $t { if b == 0 { 0 } else { a.wrapping_div(b) } }
        fn $rem(a: $t, b: $t) -> $t { if b == 0 { 0 } else { a.wrapping_rem(b) } }
    )*};
}
reference!(i8 => div_i8, rem_i8; u8 => div_u8, rem_u8; i32 => div_i32, rem_i32; i64 => div_i64, rem_i64; u64 => div_u64, rem_u64);

#[test]
fn overflowing_reductions_wrap_in_a_debug_build() {
    let dev = Device::cpu();
    let xs = dev.upload(&[i32::MAX, 1, 5, i32::MAX]).unwrap();
    assert_eq!(
        dev.reduce(add_i32, &xs).unwrap(),
        i32::MAX.wrapping_add(6).wrapping_add(i32::MAX)
    );
    let big: Vec<u8> = (0..100_000).map(|i| (i % 251) as u8).collect();
    let want = big.iter().fold(0u8, |a, &x| a.wrapping_add(x));
    assert_eq!(
        dev.reduce(add_u8, &dev.upload(&big).unwrap()).unwrap(),
        want
    );
    let ys = dev.upload(&[i64::MAX, 3, i64::MIN, -7]).unwrap();
    let want = [i64::MAX, 3, i64::MIN, -7]
        .iter()
        .fold(1i64, |a, &x| a.wrapping_mul(x));
    assert_eq!(dev.reduce(mul_i64, &ys).unwrap(), want);
    let zs = dev.upload(&[u16::MAX, 2, 40_000]).unwrap();
    assert_eq!(
        dev.reduce(sub_neg_u16, &zs).unwrap(),
        u16::MAX.wrapping_add(40_002)
    );
    // Scans and axis reductions run the same combine.
    let run = dev.scan(add_i32, &xs).unwrap().download().unwrap();
    assert_eq!(run[1], i32::MIN);
    let rows = dev
        .reduce_rows(add_i32, &xs, 2)
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(rows, [i32::MIN, 5i32.wrapping_add(i32::MAX)]);
}

#[test]
fn the_function_as_written_keeps_rusts_semantics() {
    // `call` is the user's function itself: in a debug build it panics where Rust does.
    let r = std::panic::catch_unwind(|| add_i32.call(i32::MAX, 1));
    assert_eq!(r.is_err(), cfg!(debug_assertions));
    // The operator the backends use does not.
    assert_eq!(add_i32.combine(i32::MAX, 1), i32::MIN);
    assert_eq!(int_ops.apply((i32::MIN, -1)).0, i32::MIN);
}

#[test]
fn documented_results_at_the_edges() {
    let dev = Device::cpu();
    let map2 = |a: &[i32], b: &[i32]| {
        let (a, b) = (dev.upload(a).unwrap(), dev.upload(b).unwrap());
        dev.map(int_ops, &(&a, &b)).unwrap().download().unwrap()
    };
    let out = map2(&[7, i32::MIN, i32::MIN, -9, 0], &[0, -1, 0, 4, 0]);
    assert_eq!(out[0].0, 0, "7 / 0");
    assert_eq!(out[0].1, 0, "7 % 0");
    assert_eq!(out[1].0, i32::MIN, "MIN / -1");
    assert_eq!(out[1].1, 0, "MIN % -1");
    assert_eq!(out[1].2, i32::MIN, "-MIN");
    assert_eq!(out[1].3, i32::MIN, "MIN.abs()");
    assert_eq!((out[2].0, out[2].1), (0, 0), "MIN / 0, MIN % 0");
    assert_eq!((out[3].0, out[3].1), (-2, -1), "truncating division");
    assert_eq!(out[4], (0, 0, 0, 0, 0));

    let (a, s) = (
        dev.upload(&[1, -8, 3]).unwrap(),
        dev.upload(&[33u32, 35, 32]).unwrap(),
    );
    let sh = dev.map(shifts, &(&a, &s)).unwrap().download().unwrap();
    assert_eq!(sh[0].0, 2, "1 << 33 is 1 << 1");
    assert_eq!(sh[1].1, -1, "-8 >> 35 is -8 >> 3, arithmetic");
    assert_eq!(sh[2].0, 3, "3 << 32 is 3 << 0");
    assert_eq!(sh[0].2, 1u64 << 33, "(1 as u64) << 33 within 64 bits");
    assert_eq!(sh[1].3, -1, "(-8 as i8) >> 35 is >> 3");

    let (x, e) = (
        dev.upload(&[3u32, 10, 2]).unwrap(),
        dev.upload(&[40u32, 20, 1]).unwrap(),
    );
    let m = dev.map(methods, &(&x, &e)).unwrap().download().unwrap();
    assert_eq!(m[0].0, 3u32.wrapping_pow(40));
    assert_eq!(m[1].1, 10i16.wrapping_pow(20));
    assert_eq!(m[0].2, 40, "clamp(40, 7) with lo > hi gives lo");
    assert_eq!(m[2].2, 2, "2.clamp(1, 7)");

    let (x, lo) = (
        dev.upload(&[0.3f32, f32::NAN, 2.0]).unwrap(),
        dev.upload(&[f32::NAN, 0.0, 1.0]).unwrap(),
    );
    let c = dev
        .map(float_clamp, &(&x, &lo))
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(c[0].0, 0.3, "a NaN bound is never chosen");
    assert!(c[1].0.is_nan(), "a NaN stays NaN");
    assert_eq!(
        c[2].0, 0.5,
        "2.0.clamp(1.0, 0.5): not below lo, above hi: hi"
    );
    assert_eq!(c[0].1, 0.3f32 as f64, "0.3.clamp(0.25, NaN)");
    let n = dev
        .map(neg_f32, &dev.upload(&[0.0f32, -1.0]).unwrap())
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(n[0].0.to_bits(), (-0.0f32).to_bits());
    assert!(n[0].1.is_nan() && n[1].1 == f32::NEG_INFINITY);
}

#[test]
fn random_and_edge_pairs_match_the_rules() {
    let s = seed();
    let dev = Device::cpu();
    let edges32 = [
        0,
        1,
        -1,
        2,
        -2,
        31,
        32,
        33,
        i32::MIN,
        i32::MAX,
        i32::MIN + 1,
    ];
    let (a, b) = pairs(&edges32, s, 20_000);
    let (ga, gb) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let out = dev.map(int_ops, &(&ga, &gb)).unwrap().download().unwrap();
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let mut c = x.wrapping_mul(y).wrapping_add(x).wrapping_sub(y);
        c = div_i32(c, y);
        c = rem_i32(c, x);
        let want = (
            div_i32(x, y),
            rem_i32(x, y),
            x.wrapping_neg(),
            x.wrapping_abs(),
            c,
        );
        assert_eq!(out[i], want, "int_ops({x}, {y})");
    }
    let sh = dev
        .map(
            shifts,
            &(
                &ga,
                &dev.upload(&b.iter().map(|&v| v as u32).collect::<Vec<_>>())
                    .unwrap(),
            ),
        )
        .unwrap()
        .download()
        .unwrap();
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let y = y as u32;
        let want = (
            x.wrapping_shl(y),
            x.wrapping_shr(y),
            (x as u64).wrapping_shl(y),
            (x as i8).wrapping_shr(y),
            x.wrapping_shl(y).wrapping_shr(y),
        );
        assert_eq!(sh[i], want, "shifts({x}, {y})");
    }

    let edges8 = [0i8, 1, -1, 2, i8::MIN, i8::MAX, 7, 8, 9];
    let (a, b) = pairs(&edges8, s ^ 1, 5_000);
    let out = dev
        .map(
            narrow_ops,
            &(&dev.upload(&a).unwrap(), &dev.upload(&b).unwrap()),
        )
        .unwrap()
        .download()
        .unwrap();
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let want = (
            div_i8(x, y),
            rem_i8(x, y),
            x.wrapping_neg(),
            x.wrapping_abs(),
            div_u8(x as u8, y as u8),
        );
        assert_eq!(out[i], want, "narrow_ops({x}, {y})");
    }
    let _ = rem_u8(1, 1);

    let edges64 = [0i64, 1, -1, i64::MIN, i64::MAX, 64, 65];
    let (a, b) = pairs(&edges64, s ^ 2, 5_000);
    let out = dev
        .map(
            wide_ops,
            &(&dev.upload(&a).unwrap(), &dev.upload(&b).unwrap()),
        )
        .unwrap()
        .download()
        .unwrap();
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        let want = (
            div_i64(x, y),
            rem_i64(x, y),
            x.wrapping_abs(),
            rem_u64(x as u64, y as u64),
        );
        assert_eq!(out[i], want, "wide_ops({x}, {y})");
    }
    let _ = div_u64(1, 1);
}
