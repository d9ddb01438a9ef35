//! `reduce_axis` along every axis of N-d row-major shapes, against plain Rust over the same
//! elements: one check for both backends.

use rand::{Rng, SeedableRng, rngs::StdRng};
use warp_runtime::prelude::*;

use crate::ops::{add_u32, argmax_f32, sum_f32};

/// The lines along `axis` of `shape`: for each result place (row-major over the other axes),
/// the flat positions of its elements in order.
pub fn lines(shape: &[usize], axis: usize) -> Vec<Vec<usize>> {
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    (0..outer * inner)
        .map(|p| {
            let (o, i) = (p / inner.max(1), p % inner.max(1));
            (0..n).map(|k| o * n * inner + k * inner + i).collect()
        })
        .collect()
}

/// `reduce_axis` (and `reduce_axis_into`) of random `u32`
/// (wrapping sums: exact), `f32` (sums within a relative 1e-5 of the absolute sum) and
/// `indexed()` `f32` (argmax: the value and the flat position, NaN the largest, ties to the
/// smallest position) along every axis of `shape`, against plain Rust.
pub fn check_reduce_axis(dev: &Device, shape: &[usize], seed: u64) {
    let len: usize = shape.iter().product();
    let mut rng = StdRng::seed_from_u64(seed);
    let us: Vec<u32> = (0..len).map(|_| rng.random()).collect();
    let fs: Vec<f32> = (0..len)
        .map(|k| {
            if k % 97 == 5 {
                f32::NAN
            } else {
                (rng.random_range(-8i32..8)) as f32 * 0.5
            }
        })
        .collect();
    let (du, df) = (dev.upload(&us).unwrap(), dev.upload(&fs).unwrap());
    for axis in 0..shape.len() {
        let tag = format!("shape {shape:?} axis {axis}");
        let lines = lines(shape, axis);
        let want: Vec<u32> = lines
            .iter()
            .map(|l| l.iter().fold(0u32, |a, &p| a.wrapping_add(us[p])))
            .collect();
        let got = dev.reduce_axis(add_u32, &du, shape, axis).unwrap();
        assert_eq!(got.download().unwrap(), want, "u32 {tag}");
        // Into the caller's array; one of the wrong length is refused.
        let mut out = dev.upload(&vec![7u32; want.len()]).unwrap();
        dev.reduce_axis_into(add_u32, &du, shape, axis, &mut out)
            .unwrap();
        assert_eq!(out.download().unwrap(), want, "into {tag}");
        let mut short = dev.upload(&vec![0u32; want.len() + 1]).unwrap();
        assert!(
            matches!(
                dev.reduce_axis_into(add_u32, &du, shape, axis, &mut short),
                Err(Error::Shape(_))
            ),
            "wrong output length {tag}"
        );
        let got = dev.reduce_axis(sum_f32, &df, shape, axis).unwrap();
        let got = got.download().unwrap();
        for (k, l) in lines.iter().enumerate() {
            let exact: f64 = l.iter().map(|&p| fs[p] as f64).sum();
            let mass: f64 = l.iter().map(|&p| (fs[p] as f64).abs()).sum();
            let g = got[k] as f64;
            let ok = if exact.is_nan() {
                g.is_nan()
            } else {
                (g - exact).abs() <= 1e-5 * mass
            };
            assert!(ok, "f32 {tag} place {k}: {g} against {exact}");
        }
        let got = dev.reduce_axis(argmax_f32, &df.indexed(), shape, axis);
        let got = got.unwrap().download().unwrap();
        for (k, l) in lines.iter().enumerate() {
            let want = l
                .iter()
                .map(|&p| (fs[p], p as u32))
                .fold((f32::NEG_INFINITY, u32::MAX), |a, b| argmax_f32.call(a, b));
            assert_eq!(
                (got[k].0.to_bits(), got[k].1),
                (want.0.to_bits(), want.1),
                "argmax {tag} place {k}"
            );
        }
    }
}

/// `scan_axis`, `exclusive_scan_axis` and their `_into` forms of random `u32` (wrapping sums),
/// `f32` (sums of halves in [-8, 8), exact in any order at these sizes, NaN sticking) and
/// `indexed()` `f32` (running argmax) along every axis of `shape`, against a running fold of
/// each line in plain Rust.
pub fn check_scan_axis(dev: &Device, shape: &[usize], seed: u64) {
    let len: usize = shape.iter().product();
    let mut rng = StdRng::seed_from_u64(seed);
    let us: Vec<u32> = (0..len).map(|_| rng.random()).collect();
    let fs: Vec<f32> = (0..len)
        .map(|k| {
            if k % 211 == 9 {
                f32::NAN
            } else {
                (rng.random_range(-16i32..16)) as f32 * 0.5
            }
        })
        .collect();
    let (du, df) = (dev.upload(&us).unwrap(), dev.upload(&fs).unwrap());
    // The running fold of every line, written at its elements' places.
    fn running<V: Copy>(
        lines: &[Vec<usize>],
        len: usize,
        zero: V,
        f: impl Fn(V, usize) -> V,
        exclusive: bool,
    ) -> Vec<V> {
        let mut out = vec![zero; len];
        for l in lines {
            let mut acc = zero;
            for &p in l {
                let next = f(acc, p);
                out[p] = if exclusive { acc } else { next };
                acc = next;
            }
        }
        out
    }
    for axis in 0..shape.len() {
        let tag = format!("shape {shape:?} axis {axis}");
        let lines = lines(shape, axis);
        for exclusive in [false, true] {
            let tag = format!("{tag} exclusive {exclusive}");
            let want = running(&lines, len, 0u32, |a, p| a.wrapping_add(us[p]), exclusive);
            let got = if exclusive {
                dev.exclusive_scan_axis(add_u32, &du, shape, axis)
            } else {
                dev.scan_axis(add_u32, &du, shape, axis)
            };
            assert_eq!(got.unwrap().download().unwrap(), want, "u32 {tag}");
            let mut out = dev.upload(&vec![7u32; len]).unwrap();
            if exclusive {
                dev.exclusive_scan_axis_into(add_u32, &du, shape, axis, &mut out)
            } else {
                dev.scan_axis_into(add_u32, &du, shape, axis, &mut out)
            }
            .unwrap();
            assert_eq!(out.download().unwrap(), want, "into {tag}");
            let want = running(&lines, len, 0f32, |a, p| a + fs[p], exclusive);
            let got = if exclusive {
                dev.exclusive_scan_axis(sum_f32, &df, shape, axis)
            } else {
                dev.scan_axis(sum_f32, &df, shape, axis)
            };
            let got = got.unwrap().download().unwrap();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    g == w || (g.is_nan() && w.is_nan()),
                    "f32 {tag} at {k}: {g} against {w}"
                );
            }
            let want = running(
                &lines,
                len,
                (f32::NEG_INFINITY, u32::MAX),
                |a, p| argmax_f32.call(a, (fs[p], p as u32)),
                exclusive,
            );
            let got = if exclusive {
                dev.exclusive_scan_axis(argmax_f32, &df.indexed(), shape, axis)
            } else {
                dev.scan_axis(argmax_f32, &df.indexed(), shape, axis)
            };
            let got = got.unwrap().download().unwrap();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    (g.0.to_bits(), g.1),
                    (w.0.to_bits(), w.1),
                    "argmax {tag} at {k}"
                );
            }
        }
        let mut short = dev.upload(&vec![0u32; len + 1]).unwrap();
        assert!(
            matches!(
                dev.scan_axis_into(add_u32, &du, shape, axis, &mut short),
                Err(Error::Shape(_))
            ),
            "wrong output length {tag}"
        );
    }
}
