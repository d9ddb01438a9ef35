//! `collect` (the values of any element input written out) against plain Rust: one check for
//! both backends.

use rand::{Rng, SeedableRng, rngs::StdRng};
use warp_runtime::prelude::*;

use crate::ops::{add_k, low_word, scale_low};

/// `collect` and `collect_into` of `n` values from every kind of input: `u32` and `u64` ranges
/// from a start (and a map of one), a gather through random `u32` indices (and a map of a map
/// of one; an index out of range is an error), a strided view of a view, zipped arrays
/// (tuples), against plain Rust; a wrong output length is an error.
pub fn check_collect(dev: &Device, n: usize, seed: u64) {
    let tag = format!("n={n} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    // Ranges.
    let start = u32::MAX - (n as u32 / 2);
    let r = dev.range(start as u64..start as u64 + n as u64);
    let want64: Vec<u64> = (0..n as u64).map(|i| start as u64 + i).collect();
    assert_eq!(
        dev.collect(&r).unwrap().download().unwrap(),
        want64,
        "u64 range {tag}"
    );
    let r32 = dev.range(7u32..7 + n as u32);
    let want32: Vec<u32> = (7..7 + n as u32).collect();
    assert_eq!(
        dev.collect(&r32).unwrap().download().unwrap(),
        want32,
        "u32 range {tag}"
    );
    let k = 0x9e37_79b9u32;
    let mapped: Vec<u32> = want64.iter().map(|&i| (i as u32).wrapping_mul(k)).collect();
    assert_eq!(
        dev.collect(&r.map(scale_low.with(k)))
            .unwrap()
            .download()
            .unwrap(),
        mapped,
        "range map {tag}"
    );
    // A gather and a map of a map of one.
    let xs_host: Vec<u64> = (0..n + 5).map(|_| rng.random()).collect();
    let idx_host: Vec<u32> = (0..n).map(|_| rng.random_range(0..n as u32 + 5)).collect();
    let (xs, idx) = (
        dev.upload(&xs_host).unwrap(),
        dev.upload(&idx_host).unwrap(),
    );
    let g: Vec<u64> = idx_host.iter().map(|&i| xs_host[i as usize]).collect();
    assert_eq!(
        dev.collect(&xs.gather(&idx)).unwrap().download().unwrap(),
        g,
        "gather {tag}"
    );
    let gg: Vec<u32> = g.iter().map(|&v| v.wrapping_add(3) as u32).collect();
    assert_eq!(
        dev.collect(&xs.gather(&idx).map(add_k.with(3)).map(low_word))
            .unwrap()
            .download()
            .unwrap(),
        gg,
        "map of a map of a gather {tag}"
    );
    if n > 0 {
        let mut bad = idx_host.clone();
        bad[n - 1] = n as u32 + 5;
        let db = dev.upload(&bad).unwrap();
        assert!(
            matches!(
                dev.collect(&xs.gather(&db)),
                Err(Error::IndexOutOfRange { position, index, len })
                    if position == n - 1 && index == n as u64 + 5 && len == n + 5
            ),
            "gather index out of range {tag}"
        );
    }
    // A strided view of a view.
    let s: Vec<u64> = xs_host[1..].iter().step_by(3).copied().collect();
    let view = xs.slice(1..).unwrap();
    assert_eq!(
        dev.collect(&view.step_by(3).unwrap())
            .unwrap()
            .download()
            .unwrap(),
        s,
        "strided {tag}"
    );
    // Zipped arrays: their rows, as tuples.
    let ys_host: Vec<f32> = (0..n + 5).map(|_| rng.random()).collect();
    let ys = dev.upload(&ys_host).unwrap();
    let rows: Vec<(u64, f32)> = xs_host
        .iter()
        .copied()
        .zip(ys_host.iter().copied())
        .collect();
    assert_eq!(
        dev.collect(&(&xs, &ys)).unwrap().download().unwrap(),
        rows,
        "zipped {tag}"
    );
    // Into the caller's array; a wrong length is an error.
    let mut out = dev.upload(&vec![0u64; n]).unwrap();
    dev.collect_into(&r, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), want64, "collect_into {tag}");
    assert!(
        matches!(
            dev.collect_into(&dev.range(0u64..n as u64 + 1), &mut out),
            Err(Error::Shape(_))
        ),
        "wrong length {tag}"
    );
}
