//! Histograms on the CPU backend against plain iterator code: bins given by maps (unsigned,
//! signed with negatives dropped, zipped arrays, 1 and 65,536 bins), every counter type with
//! wrapping, even bins over float and integer ranges (NaN, infinities and the bounds), the
//! `_into` form overwriting, and the errors.

use warp_runtime::prelude::*;
use warp_runtime::{Error, HISTOGRAM_MAX_BINS, Result};
use warp_tests::ops::{byte_bin, pair_bin, rem_bin, square};
use warp_tests::{Random, edge_sizes, rng, seed};

/// Counts of the bins `bin` gives, by iterators.
fn counts<T: Copy>(xs: &[T], bin: impl Fn(T) -> Option<usize>, bins: usize) -> Vec<u64> {
    let mut c = vec![0u64; bins];
    xs.iter().filter_map(|&x| bin(x)).for_each(|b| c[b] += 1);
    c
}

/// `histogram_even`'s float formula, written out.
fn even_f64(x: f64, lo: f64, hi: f64, bins: usize) -> Option<usize> {
    if !(x >= lo && x < hi) {
        return None;
    }
    let b = ((x - lo) * (bins as f64 / (hi - lo))) as i64;
    Some((b as usize).min(bins - 1))
}

#[test]
fn bins_from_maps_match_iterators() {
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(1) {
        let xs = u8::random_vec(&mut r, n, true);
        let d = cpu.upload(&xs).unwrap();
        let want = counts(&xs, |x| Some(x as usize), 256);
        let h: DeviceVec<u64> = cpu.histogram(byte_bin, &d, 256).unwrap();
        assert_eq!(h.download().unwrap(), want, "n={n}");
        // Fewer bins: the bytes at or above them are dropped.
        let h: DeviceVec<u32> = cpu.histogram(byte_bin, &d, 100).unwrap();
        let want: Vec<u32> = want[..100].iter().map(|&c| c as u32).collect();
        assert_eq!(h.download().unwrap(), want, "n={n}");
        // One bin.
        let h: DeviceVec<i64> = cpu.histogram(byte_bin, &d, 1).unwrap();
        let zeros = xs.iter().filter(|&&x| x == 0).count() as i64;
        assert_eq!(h.download().unwrap(), [zeros]);
    }
    for n in edge_sizes(4) {
        let xs = i32::random_vec(&mut r, n, true);
        let d = cpu.upload(&xs).unwrap();
        let h: DeviceVec<u32> = cpu.histogram(rem_bin.with(7), &d, 7).unwrap();
        let want = counts(&xs, |x| usize::try_from(x % 7).ok(), 7);
        let want: Vec<u32> = want.iter().map(|&c| c as u32).collect();
        assert_eq!(h.download().unwrap(), want, "n={n}");
    }
}

#[test]
fn zipped_arrays_fill_65536_bins() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let n = 300_001;
    let (xs, ys) = (
        u8::random_vec(&mut r, n, true),
        u8::random_vec(&mut r, n, true),
    );
    let (dx, dy) = (cpu.upload(&xs).unwrap(), cpu.upload(&ys).unwrap());
    let h: DeviceVec<u32> = cpu
        .histogram(pair_bin, &(&dx, &dy), HISTOGRAM_MAX_BINS)
        .unwrap();
    let mut want = vec![0u32; HISTOGRAM_MAX_BINS];
    for (&x, &y) in xs.iter().zip(&ys) {
        want[x as usize * 256 + y as usize] += 1;
    }
    assert_eq!(h.download().unwrap(), want);
}

#[test]
fn counters_wrap_as_their_type() {
    let cpu = Device::cpu();
    let xs = cpu.upload(&vec![3u8; 70_000]).unwrap();
    let h: DeviceVec<u8> = cpu.histogram(byte_bin, &xs, 4).unwrap();
    assert_eq!(h.download().unwrap(), [0, 0, 0, (70_000 % 256) as u8]);
    let h: DeviceVec<u16> = cpu.histogram(byte_bin, &xs, 4).unwrap();
    assert_eq!(h.download().unwrap(), [0, 0, 0, (70_000 % 65_536) as u16]);
    let h: DeviceVec<i16> = cpu.histogram(byte_bin, &xs, 4).unwrap();
    assert_eq!(h.download().unwrap(), [0, 0, 0, 70_000u32 as i16]);
    let h: DeviceVec<i8> = cpu.histogram(byte_bin, &xs, 4).unwrap();
    assert_eq!(h.download().unwrap(), [0, 0, 0, 70_000u32 as i8]);
}

#[test]
fn even_bins_over_floats() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    for n in edge_sizes(4) {
        let mut xs = f32::random_vec(&mut r, n, true);
        if n > 4 {
            xs[..4].copy_from_slice(&[-1.0, 1.0, f32::NAN, 0.999_999_9]);
        }
        let d = cpu.upload(&xs).unwrap();
        for (lo, hi, bins) in [(-1.0f32, 1.0f32, 256usize), (-0.5, 0.75, 7), (0.0, 1e-3, 1)] {
            let h: DeviceVec<u32> = cpu.histogram_even(&d, lo, hi, bins).unwrap();
            let want = counts(
                &xs,
                |x| even_f64(x as f64, lo as f64, hi as f64, bins),
                bins,
            );
            let want: Vec<u32> = want.iter().map(|&c| c as u32).collect();
            assert_eq!(h.download().unwrap(), want, "n={n} [{lo}, {hi}) {bins}");
        }
    }
    // The bounds: lower is in the first bin, upper in none; NaN and infinities in none.
    let d = cpu
        .upload(&[
            0.0f64,
            4.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            3.999,
        ])
        .unwrap();
    let h: DeviceVec<u64> = cpu.histogram_even(&d, 0.0, 4.0, 4).unwrap();
    assert_eq!(h.download().unwrap(), [1, 0, 0, 1]);
    // A mapped view: its results are binned.
    let d = cpu.upload(&[-0.9f32, 0.5, 0.1]).unwrap();
    let h: DeviceVec<u32> = cpu.histogram_even(&d.map(square), 0.0, 1.0, 2).unwrap();
    assert_eq!(h.download().unwrap(), [2, 1]);
}

#[test]
fn even_bins_over_integers() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let xs = u8::random_vec(&mut r, 100_003, true);
    let d = cpu.upload(&xs).unwrap();
    let h: DeviceVec<u32> = cpu.histogram_even(&d, 0, 255, 255).unwrap();
    let want = counts(&xs, |x| (x < 255).then_some(x as usize), 255);
    assert_eq!(
        h.download().unwrap(),
        want.iter().map(|&c| c as u32).collect::<Vec<_>>()
    );
    let h: DeviceVec<u32> = cpu.histogram_even(&d, 0, 256, 256).unwrap();
    let want = counts(&xs, |x| Some(x as usize), 256);
    assert_eq!(
        h.download().unwrap(),
        want.iter().map(|&c| c as u32).collect::<Vec<_>>()
    );
    let h: DeviceVec<u32> = cpu.histogram_even(&d, 3, 250, 7).unwrap();
    let want = counts(
        &xs,
        |x| (3..250).contains(&x).then(|| (x as usize - 3) * 7 / 247),
        7,
    );
    assert_eq!(
        h.download().unwrap(),
        want.iter().map(|&c| c as u32).collect::<Vec<_>>()
    );
    let ys = i32::random_vec(&mut r, 100_003, true);
    let d = cpu.upload(&ys).unwrap();
    let h: DeviceVec<u64> = cpu
        .histogram_even(&d, i32::MIN as i64, i32::MAX as i64, 65_536)
        .unwrap();
    let want = counts(
        &ys,
        |y| {
            (y < i32::MAX)
                .then(|| ((y as i64 - i32::MIN as i64) * 65_536 / (u32::MAX as i64)) as usize)
        },
        65_536,
    );
    assert_eq!(h.download().unwrap(), want);
}

#[test]
fn empty_inputs_and_into_overwrite() {
    let cpu = Device::cpu();
    let empty = cpu.upload::<u8>(&[]).unwrap();
    let h: DeviceVec<u32> = cpu.histogram(byte_bin, &empty, 5).unwrap();
    assert_eq!(h.download().unwrap(), [0; 5]);
    let xs = cpu.upload(&[1u8, 1, 4]).unwrap();
    let mut out = cpu.upload(&[7u64; 5]).unwrap();
    cpu.histogram_into(byte_bin, &xs, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), [0, 2, 0, 0, 1]);
    cpu.histogram_into(byte_bin, &empty, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), [0; 5]);
    // A view.
    cpu.histogram_into(byte_bin, &xs.slice(1..).unwrap(), &mut out)
        .unwrap();
    assert_eq!(out.download().unwrap(), [0, 1, 0, 0, 1]);
}

#[test]
fn bad_bins_and_ranges_are_errors() {
    let cpu = Device::cpu();
    let xs = cpu.upload(&[1u8]).unwrap();
    for bins in [0, HISTOGRAM_MAX_BINS + 1] {
        let r: Result<DeviceVec<u32>> = cpu.histogram(byte_bin, &xs, bins);
        assert!(matches!(r, Err(Error::Shape(_))), "{bins}: {r:?}");
    }
    let mut none = cpu.upload::<u32>(&[]).unwrap();
    assert!(matches!(
        cpu.histogram_into(byte_bin, &xs, &mut none),
        Err(Error::Shape(_))
    ));
    let f = cpu.upload(&[1.0f32]).unwrap();
    for (lo, hi) in [
        (1.0f32, 1.0f32),
        (2.0, 1.0),
        (f32::NAN, 1.0),
        (0.0, f32::INFINITY),
    ] {
        let r: Result<DeviceVec<u32>> = cpu.histogram_even(&f, lo, hi, 4);
        assert!(matches!(r, Err(Error::Shape(_))), "[{lo}, {hi}): {r:?}");
    }
    // f64 bounds whose width overflows would put every value in bin 0.
    let wide = cpu.upload(&[-1e308f64, 0.0, 1e308]).unwrap();
    let r: Result<DeviceVec<u32>> = cpu.histogram_even(&wide, -f64::MAX, f64::MAX, 4);
    assert!(matches!(r, Err(Error::Shape(_))), "{r:?}");
    let h: DeviceVec<u32> = cpu.histogram_even(&wide, -1e308, 0.7e308, 4).unwrap();
    assert_eq!(h.download().unwrap(), [1, 0, 1, 0]); // the widest range still bins
    for (lo, hi) in [(5i64, 5i64), (0, 1 << 41), (-(1 << 41), 0)] {
        let r: Result<DeviceVec<u32>> = cpu.histogram_even(&xs, lo, hi, 4);
        assert!(matches!(r, Err(Error::Shape(_))), "[{lo}, {hi}): {r:?}");
    }
    // The widest integer range allowed: bins stay exact.
    let r: DeviceVec<u32> = cpu
        .histogram_even(&xs, -(1 << 40), 1 << 40, 65_536)
        .unwrap();
    let want = ((1i64 + (1 << 40)) * 65_536 / (1 << 41)) as usize;
    assert_eq!(r.download().unwrap()[want], 1);
}

#[test]
fn weighted_histograms_match_iterators() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    for n in edge_sizes(3) {
        let xs = i32::random_vec(&mut r, n, false);
        let wi: Vec<i64> = (0..n as i64).map(|i| i * 31 % 97 - 48).collect();
        let wf: Vec<f64> = wi.iter().map(|&w| w as f64 * 0.25).collect();
        let d = cpu.upload(&xs).unwrap();
        let mut want_i = vec![0i64; 13];
        let mut want_f = vec![0f64; 13];
        for (i, &x) in xs.iter().enumerate() {
            let b = x % 13; // negative (dropped) for most negative x, 0 for multiples of 13
            if b >= 0 {
                want_i[b as usize] += wi[i];
                want_f[b as usize] += wf[i];
            }
        }
        let h = cpu.histogram_weighted(rem_bin.with(13), &d, &cpu.upload(&wi).unwrap(), 13);
        assert_eq!(h.unwrap().download().unwrap(), want_i, "n={n}");
        let h = cpu.histogram_weighted(rem_bin.with(13), &d, &cpu.upload(&wf).unwrap(), 13);
        assert_eq!(h.unwrap().download().unwrap(), want_f, "n={n}");
    }
    // Wrapping integer sums; a NaN weight makes its bin NaN.
    let keys = cpu.upload(&[0u8, 0, 1, 1]).unwrap();
    let wu = cpu.upload(&[u64::MAX, 2, 1, 1]).unwrap();
    let h = cpu.histogram_weighted(byte_bin, &keys, &wu, 2).unwrap();
    assert_eq!(h.download().unwrap(), [1, 2]);
    let wn = cpu.upload(&[1.0f32, f32::NAN, 2.0, 3.0]).unwrap();
    let h = cpu
        .histogram_weighted(byte_bin, &keys, &wn, 3)
        .unwrap()
        .download()
        .unwrap();
    assert!(h[0].is_nan() && h[1] == 5.0 && h[2] == 0.0);
    // Zipped arrays into 65,536 bins.
    let (a, b) = (
        cpu.upload(&[255u8, 1, 255]).unwrap(),
        cpu.upload(&[255u8, 2, 255]).unwrap(),
    );
    let w = cpu.upload(&[1.5f32, 2.0, 0.25]).unwrap();
    let h = cpu
        .histogram_weighted(pair_bin, &(&a, &b), &w, HISTOGRAM_MAX_BINS)
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(
        (h[258], h[65_535], h.iter().sum::<f32>()),
        (2.0, 1.75, 3.75)
    );
    // Empty input: zeros, `_into` overwriting; errors.
    let empty = cpu.upload::<u8>(&[]).unwrap();
    let ew = cpu.upload::<i32>(&[]).unwrap();
    let mut out = cpu.upload(&[5i32; 4]).unwrap();
    cpu.histogram_weighted_into(byte_bin, &empty, &ew, &mut out)
        .unwrap();
    assert_eq!(out.download().unwrap(), [0; 4]);
    let short = cpu.upload(&[1i32, 2, 3]).unwrap();
    assert!(matches!(
        cpu.histogram_weighted(byte_bin, &keys, &short, 2),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        cpu.histogram_weighted(byte_bin, &keys, &wn, 0),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        cpu.histogram_weighted(byte_bin, &keys, &wn, HISTOGRAM_MAX_BINS + 1),
        Err(Error::Shape(_))
    ));
}

/// Weights combined per bin by `#[reduce]` operators against a plain fold per bin.
#[test]
fn weights_combined_by_an_operator() {
    let dev = Device::cpu();
    for (k, (n, bins)) in [(0usize, 4usize), (1, 1), (1000, 7), (5000, 300)]
        .into_iter()
        .enumerate()
    {
        warp_tests::hist_reduce::check_histogram_reduce(&dev, n, bins, k as u64);
        warp_tests::hist_reduce::check_scatter_reduce(&dev, n, bins, k as u64);
    }
}

/// Values written to the places indices name, against a plain loop.
#[test]
fn scatters_match_plain_rust() {
    let dev = Device::cpu();
    for (k, (n, len)) in [
        (0usize, 4usize),
        (1, 1),
        (3, 3),
        (1000, 1000),
        (5000, 70_000),
    ]
    .into_iter()
    .enumerate()
    {
        warp_tests::scatter::check_scatter(&dev, n, len, k as u64);
    }
}
