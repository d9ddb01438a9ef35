//! Histograms whose weights a `#[reduce]` operator combines (`histogram_reduce`), against a
//! plain fold per bin: one check for both backends.

use rand::{Rng, SeedableRng, rngs::StdRng};
use warp_runtime::prelude::*;

use crate::ops::{add_i64, key_bin_u32, max_i64, min_f32, sum_f32, xor_u32};

/// `n` random keys in `0..bins + 3` (the last three dropped) with `i64`, `f32` and `u32`
/// weights: the per-bin maximum, minimum (with NaN weights), exclusive or and wrapping sum
/// (exact in any order), and an `f32` sum (exact too: the weights are multiples of 1/8),
/// through `histogram_reduce` and `histogram_reduce_into` (which overwrites).
pub fn check_histogram_reduce(dev: &Device, n: usize, bins: usize, seed: u64) {
    let tag = format!("n={n} bins={bins} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let keys: Vec<u32> = (0..n)
        .map(|_| rng.random_range(0..bins as u32 + 3))
        .collect();
    let wi: Vec<i64> = (0..n).map(|_| rng.random()).collect();
    let wf: Vec<f32> = (0..n)
        .map(|k| {
            if k % 101 == 7 {
                f32::NAN
            } else {
                rng.random_range(-1000i32..1000) as f32 / 8.0
            }
        })
        .collect();
    let wu: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let fold = |init, f: &dyn Fn(usize, &mut Vec<_>)| {
        let mut out = vec![init; bins];
        (0..n).for_each(|i| f(i, &mut out));
        out
    };
    let dk = dev.upload(&keys).unwrap();
    let (di, df, du) = (
        dev.upload(&wi).unwrap(),
        dev.upload(&wf).unwrap(),
        dev.upload(&wu).unwrap(),
    );
    let want_max = fold(i64::MIN, &|i, o: &mut Vec<i64>| {
        if let Some(b) = o.get_mut(keys[i] as usize) {
            *b = (*b).max(wi[i]);
        }
    });
    let got = dev
        .histogram_reduce(max_i64, key_bin_u32, &dk, &di, bins)
        .unwrap();
    assert_eq!(got.download().unwrap(), want_max, "max {tag}");
    let want_sum = fold(0i64, &|i, o: &mut Vec<i64>| {
        if let Some(b) = o.get_mut(keys[i] as usize) {
            *b = b.wrapping_add(wi[i]);
        }
    });
    let mut into = dev.upload(&vec![5i64; bins]).unwrap();
    dev.histogram_reduce_into(add_i64, key_bin_u32, &dk, &di, &mut into)
        .unwrap();
    assert_eq!(into.download().unwrap(), want_sum, "sum i64 {tag}");
    let mut want_min = vec![f32::INFINITY; bins];
    for i in 0..n {
        if let Some(b) = want_min.get_mut(keys[i] as usize) {
            *b = b.min(wf[i]);
        }
    }
    let got = dev
        .histogram_reduce(min_f32, key_bin_u32, &dk, &df, bins)
        .unwrap();
    let got = got.download().unwrap();
    for b in 0..bins {
        assert_eq!(
            got[b].to_bits(),
            want_min[b].to_bits(),
            "min f32 bin {b} {tag}"
        );
    }
    let mut want_xor = vec![0u32; bins];
    for i in 0..n {
        if let Some(b) = want_xor.get_mut(keys[i] as usize) {
            *b ^= wu[i];
        }
    }
    let got = dev
        .histogram_reduce(xor_u32, key_bin_u32, &dk, &du, bins)
        .unwrap();
    assert_eq!(got.download().unwrap(), want_xor, "xor {tag}");
    let clean: Vec<f32> = wf
        .iter()
        .map(|&w| if w.is_nan() { 0.0 } else { w })
        .collect();
    let dc = dev.upload(&clean).unwrap();
    let got = dev
        .histogram_reduce(sum_f32, key_bin_u32, &dk, &dc, bins)
        .unwrap();
    let got = got.download().unwrap();
    // Weights are multiples of 1/8 below 125 in size and a bin here gets at most a few
    // thousand (its partial sums stay below 2^21): every sum is exact in f32, whatever the
    // order, so one wrong weight shows.
    let mut exact = vec![0f64; bins];
    for i in 0..n {
        if (keys[i] as usize) < bins {
            exact[keys[i] as usize] += clean[i] as f64;
        }
    }
    for b in 0..bins {
        assert_eq!(got[b] as f64, exact[b], "sum f32 bin {b} {tag}");
    }
    let short = dev.upload(&vec![0i64; n + 1]).unwrap();
    assert!(
        matches!(
            dev.histogram_reduce(max_i64, key_bin_u32, &dk, &short, bins),
            Err(Error::Shape(_))
        ),
        "weights of another length {tag}"
    );
}

/// `scatter_reduce_into` of `n` random `i64` values and `f32` values into `len` places through
/// random `u32` and `u64` indices (repeats, any order), against a plain loop: a wrapping sum
/// and a maximum (exact in any order), an `f32` minimum; places no index names keep their
/// contents; an index at `len` is an error found before anything is written; values and
/// indices of different lengths are an error.
pub fn check_scatter_reduce(dev: &Device, n: usize, len: usize, seed: u64) {
    use crate::ops::{add_i64, max_i64, min_f32};
    let tag = format!("n={n} len={len} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let idx: Vec<u32> = (0..n).map(|_| rng.random_range(0..len as u32)).collect();
    let vals: Vec<i64> = (0..n).map(|_| rng.random()).collect();
    let fv: Vec<f32> = (0..n)
        .map(|_| rng.random_range(-1000i32..1000) as f32)
        .collect();
    let start: Vec<i64> = (0..len as i64).map(|k| k * 3 - 7).collect();
    let (di, dv, df) = (
        dev.upload(&idx).unwrap(),
        dev.upload(&vals).unwrap(),
        dev.upload(&fv).unwrap(),
    );
    let di64 = dev
        .upload(&idx.iter().map(|&i| i as u64).collect::<Vec<_>>())
        .unwrap();
    let mut want = start.clone();
    for (&i, &v) in idx.iter().zip(&vals) {
        want[i as usize] = want[i as usize].wrapping_add(v);
    }
    let mut out = dev.upload(&start).unwrap();
    dev.scatter_reduce_into(add_i64, &dv, &di, &mut out)
        .unwrap();
    assert_eq!(out.download().unwrap(), want, "sum {tag}");
    let mut want_max = start.clone();
    for (&i, &v) in idx.iter().zip(&vals) {
        want_max[i as usize] = want_max[i as usize].max(v);
    }
    let mut out = dev.upload(&start).unwrap();
    dev.scatter_reduce_into(max_i64, &dv, &di64, &mut out)
        .unwrap();
    assert_eq!(out.download().unwrap(), want_max, "max u64 indices {tag}");
    let fstart: Vec<f32> = (0..len).map(|k| k as f32).collect();
    let mut want_min = fstart.clone();
    for (&i, &v) in idx.iter().zip(&fv) {
        want_min[i as usize] = want_min[i as usize].min(v);
    }
    let mut out = dev.upload(&fstart).unwrap();
    dev.scatter_reduce_into(min_f32, &df, &di, &mut out)
        .unwrap();
    assert_eq!(out.download().unwrap(), want_min, "min f32 {tag}");
    // An index at `len`: nothing written.
    if n > 0 {
        let mut bad = idx.clone();
        let p = n / 2;
        bad[p] = len as u32;
        let db = dev.upload(&bad).unwrap();
        let mut out = dev.upload(&start).unwrap();
        match dev.scatter_reduce_into(add_i64, &dv, &db, &mut out) {
            Err(Error::IndexOutOfRange {
                position,
                index,
                len: l,
            }) => {
                assert_eq!((position, index, l), (p, len as u64, len), "fault {tag}");
            }
            other => panic!("an index past the end {tag}: {other:?}"),
        }
        assert_eq!(out.download().unwrap(), start, "nothing written {tag}");
    }
    let short = dev.upload(&vec![0u32; n + 1]).unwrap();
    let mut out = dev.upload(&start).unwrap();
    assert!(
        matches!(
            dev.scatter_reduce_into(add_i64, &dv, &short, &mut out),
            Err(Error::Shape(_))
        ),
        "lengths {tag}"
    );
}
