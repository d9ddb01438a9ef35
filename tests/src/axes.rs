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
