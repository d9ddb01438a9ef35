//! GPU histograms against plain Rust iterators and the CPU backend: bytes at the edge sizes
//! and 2^28, misaligned views, skewed inputs (one value, three values, sorted runs: the
//! `__match_any_sync` path where bins have few columns or are global), 1 bin to 65,536 (the replicated, single-copy and global-memory
//! paths and their boundaries), zipped arrays, signed bins with negatives dropped, every
//! counter width (the narrowed 1- and 2-byte counters, wrapping), even bins over floats and
//! integers with NaN and infinities, empty inputs, `_into` overwriting the caller's memory,
//! and inputs above 2^31 and 2^32 elements (64-bit counts above 2^32). Needs a CUDA GPU.

use rayon::prelude::*;
use warp_runtime::cudarc::driver::CudaSlice;
use warp_runtime::prelude::*;
use warp_runtime::{Counter, Error, HISTOGRAM_MAX_BINS};
use warp_tests::ops::{byte_bin, hashed_bin, pair_bin, rem_bin, scaled_bin, square};
use warp_tests::{Random, edge_sizes, gpu, random_vec_par, rng, seed};

/// Counts of the bins `bin` gives, by iterators (in parallel, for the large inputs).
fn counts<T: Copy + Sync>(
    xs: &[T],
    bin: impl Fn(T) -> Option<usize> + Sync,
    bins: usize,
) -> Vec<u64> {
    xs.par_chunks(1 << 20)
        .map(|c| {
            let mut h = vec![0u64; bins];
            c.iter().filter_map(|&x| bin(x)).for_each(|b| h[b] += 1);
            h
        })
        .reduce(
            || vec![0u64; bins],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// `want` wrapped to counter type `C`.
fn wrapped<C: Counter>(want: &[u64]) -> Vec<C> {
    want.iter().map(|&c| C::wrap(c)).collect()
}

/// The histogram of `xs` by `byte_bin` on the GPU, in counters of type `C`, equals `want`.
fn check_bytes<C: Counter + std::fmt::Debug>(
    g: &Device,
    xs: &DeviceView<'_, u8>,
    bins: usize,
    want: &[u64],
    what: &str,
) {
    let h: DeviceVec<C> = g.histogram(byte_bin, xs, bins).unwrap();
    assert_eq!(
        h.download().unwrap(),
        wrapped::<C>(want),
        "{what} ({})",
        std::any::type_name::<C>()
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn bytes_match_iterators() {
    let g = gpu();
    let s = seed();
    let mut sizes = edge_sizes(1);
    sizes.push(1 << 28);
    for n in sizes {
        let xs: Vec<u8> = random_vec_par(s ^ n as u64, n + 3, true);
        let d = g.upload(&xs).unwrap();
        for off in [0usize, 1, 3] {
            let view = d.slice(off..off + n).unwrap();
            let part = &xs[off..off + n];
            let what = format!("n={n} off={off}");
            let want = counts(part, |x| Some(x as usize), 256);
            check_bytes::<u32>(&g, &view, 256, &want, &what);
            check_bytes::<u64>(&g, &view, 256, &want, &what);
            check_bytes::<i32>(&g, &view, 256, &want, &what);
            check_bytes::<u16>(&g, &view, 256, &want, &what);
            check_bytes::<u8>(&g, &view, 256, &want, &what);
            // Fewer bins: the larger bytes are dropped; one bin counts the zeros.
            check_bytes::<u32>(&g, &view, 100, &want[..100], &what);
            check_bytes::<i64>(&g, &view, 1, &want[..1], &what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn skewed_inputs_match_iterators() {
    let g = gpu();
    let n = (1usize << 22) + 77;
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("one value", vec![42u8; n]),
        ("three values", (0..n).map(|i| (i % 3) as u8 * 80).collect()),
        ("sorted runs", (0..n).map(|i| (i * 256 / n) as u8).collect()),
        ("runs of 7", (0..n).map(|i| (i / 7 % 256) as u8).collect()),
        (
            "two halves",
            (0..n).map(|i| if i % 64 < 32 { 1 } else { 200 }).collect(),
        ),
    ];
    for (what, xs) in inputs {
        let d = g.upload(&xs).unwrap();
        let want = counts(&xs, |x| Some(x as usize), 256);
        let all = d.slice(..).unwrap();
        check_bytes::<u32>(&g, &all, 256, &want, what);
        check_bytes::<u64>(&g, &all, 256, &want, what);
        check_bytes::<u8>(&g, &all, 256, &want, what);
        let want4: Vec<u64> = want[..4].to_vec();
        check_bytes::<u32>(&g, &all, 4, &want4, what);
        // Bins of few columns (shared) and global ones: crowded tiles take __match_any_sync.
        for bins in [1000usize, 4096, 65_536] {
            let mut wide = want.clone();
            wide.resize(bins, 0);
            check_bytes::<u32>(&g, &all, bins, &wide, what);
            check_bytes::<u64>(&g, &all, bins, &wide, what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn many_bins_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    // 263 / 264: the last with 32 columns, the first with 16; 8192: one shared copy; 12287:
    // the most bins in shared memory (with the row of dropped values); 12288 and 65536: global.
    for bins in [
        1usize, 3, 256, 263, 264, 512, 2048, 2049, 8192, 12_287, 12_288, 40_000, 65_536,
    ] {
        for n in [1usize, 1000, (1 << 20) + 7, 1 << 24] {
            let xs = u32::random_vec(&mut r, n, true);
            let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
            let bin = hashed_bin.with(0x9e37_79b1, 16);
            let want: DeviceVec<u64> = c.histogram(bin, &cx, bins).unwrap();
            let want = want.download().unwrap();
            let it = counts(
                &xs,
                |x| Some((x.wrapping_mul(0x9e37_79b1) >> 16) as u16 as usize).filter(|&b| b < bins),
                bins,
            );
            assert_eq!(want, it, "CPU backend vs iterators, bins={bins} n={n}");
            let h: DeviceVec<u64> = g.histogram(bin, &gx, bins).unwrap();
            assert_eq!(h.download().unwrap(), want, "bins={bins} n={n}");
            let h: DeviceVec<u32> = g.histogram(bin, &gx, bins).unwrap();
            assert_eq!(
                h.download().unwrap(),
                wrapped::<u32>(&want),
                "bins={bins} n={n}"
            );
            let h: DeviceVec<u16> = g.histogram(bin, &gx, bins).unwrap();
            assert_eq!(
                h.download().unwrap(),
                wrapped::<u16>(&want),
                "bins={bins} n={n}"
            );
            // Skewed into the same bins: every value in bin 0 or 1.
            let skew: Vec<u32> = xs.iter().map(|&x| x & 1).collect();
            let gs = g.upload(&skew).unwrap();
            let h: DeviceVec<u32> = g.histogram(hashed_bin.with(1, 0), &gs, bins).unwrap();
            let want = counts(&skew, |x| Some(x as usize).filter(|&b| b < bins), bins);
            assert_eq!(
                h.download().unwrap(),
                wrapped::<u32>(&want),
                "skewed bins={bins} n={n}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn zipped_and_signed_bins_match_iterators() {
    let g = gpu();
    let s = seed();
    for n in edge_sizes(1) {
        let xs: Vec<u8> = random_vec_par(s, n, true);
        let ys: Vec<u8> = random_vec_par(s ^ 1, n, true);
        let (gx, gy) = (g.upload(&xs).unwrap(), g.upload(&ys).unwrap());
        let h: DeviceVec<u32> = g
            .histogram(pair_bin, &(&gx, &gy), HISTOGRAM_MAX_BINS)
            .unwrap();
        let mut want = vec![0u32; HISTOGRAM_MAX_BINS];
        for (&x, &y) in xs.iter().zip(&ys) {
            want[x as usize * 256 + y as usize] += 1;
        }
        assert_eq!(h.download().unwrap(), want, "zipped n={n}");
    }
    for n in edge_sizes(4) {
        let xs: Vec<i32> = random_vec_par(s ^ 2, n, true);
        let gx = g.upload(&xs).unwrap();
        for bins in [7usize, 5] {
            let h: DeviceVec<i64> = g.histogram(rem_bin.with(7), &gx, bins).unwrap();
            let want = counts(
                &xs,
                |x| usize::try_from(x % 7).ok().filter(|&b| b < bins),
                bins,
            );
            assert_eq!(
                h.download().unwrap(),
                wrapped::<i64>(&want),
                "rem 7 n={n} bins={bins}"
            );
        }
        // f32 bins with a bound scale: negative, NaN (saturating to 0) and huge values.
        let fs: Vec<f32> = random_vec_par(s ^ 3, n, true);
        let gf = g.upload(&fs).unwrap();
        let h: DeviceVec<u32> = g.histogram(scaled_bin.with(100.0), &gf, 100).unwrap();
        let want = counts(
            &fs,
            |x| {
                usize::try_from((x * 100.0).floor() as i64)
                    .ok()
                    .filter(|&b| b < 100)
            },
            100,
        );
        assert_eq!(h.download().unwrap(), wrapped::<u32>(&want), "scaled n={n}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn even_bins_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let mut sizes = edge_sizes(4);
    sizes.push(1 << 26);
    for n in sizes {
        let xs: Vec<f32> = random_vec_par(s ^ n as u64, n, true);
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        for (lo, hi, bins) in [
            (-1.0f32, 1.0f32, 256usize),
            (-0.3, 0.7, 1000),
            (0.0, 1.0, 1),
            (-1.0, 1.0, 65_536),
        ] {
            let want: DeviceVec<u64> = c.histogram_even(&cx, lo, hi, bins).unwrap();
            let got: DeviceVec<u64> = g.histogram_even(&gx, lo, hi, bins).unwrap();
            assert_eq!(
                got.download().unwrap(),
                want.download().unwrap(),
                "f32 n={n} [{lo}, {hi}) {bins}"
            );
        }
        let want: DeviceVec<u32> = c.histogram_even(&cx.map(square), 0.0, 0.5, 10).unwrap();
        let got: DeviceVec<u32> = g.histogram_even(&gx.map(square), 0.0, 0.5, 10).unwrap();
        assert_eq!(
            got.download().unwrap(),
            want.download().unwrap(),
            "square n={n}"
        );
        let ds: Vec<f64> = xs.iter().map(|&x| x as f64 * 3.0).collect();
        let (gd, cd) = (g.upload(&ds).unwrap(), c.upload(&ds).unwrap());
        let want: DeviceVec<u32> = c.histogram_even(&cd, -2.5, 2.5, 333).unwrap();
        let got: DeviceVec<u32> = g.histogram_even(&gd, -2.5, 2.5, 333).unwrap();
        assert_eq!(
            got.download().unwrap(),
            want.download().unwrap(),
            "f64 n={n}"
        );
    }
    for n in edge_sizes(1) {
        let xs: Vec<u8> = random_vec_par(s ^ 5, n, true);
        let gx = g.upload(&xs).unwrap();
        let h: DeviceVec<u32> = g.histogram_even(&gx, 0, 255, 255).unwrap();
        let want = counts(&xs, |x| (x < 255).then_some(x as usize), 255);
        assert_eq!(h.download().unwrap(), wrapped::<u32>(&want), "u8 n={n}");
        let h: DeviceVec<u32> = g.histogram_even(&gx, 0, 256, 256).unwrap();
        let want = counts(&xs, |x| Some(x as usize), 256);
        assert_eq!(
            h.download().unwrap(),
            wrapped::<u32>(&want),
            "u8 [0, 256) n={n}"
        );
        let h: DeviceVec<u32> = g.histogram_even(&gx, -(1 << 40), 1 << 40, 65_536).unwrap();
        let want = counts(
            &xs,
            |x| Some(((x as i64 + (1 << 40)) * 65_536 / (1 << 41)) as usize),
            65_536,
        );
        assert_eq!(
            h.download().unwrap(),
            wrapped::<u32>(&want),
            "u8 widest range n={n}"
        );
        let h: DeviceVec<u32> = g.histogram_even(&gx, 3, 250, 7).unwrap();
        let want = counts(
            &xs,
            |x| (3..250).contains(&x).then(|| (x as usize - 3) * 7 / 247),
            7,
        );
        assert_eq!(
            h.download().unwrap(),
            wrapped::<u32>(&want),
            "u8 [3, 250) n={n}"
        );
        let is: Vec<i16> = random_vec_par(s ^ 6, n, true);
        let gi = g.upload(&is).unwrap();
        let h: DeviceVec<u64> = g.histogram_even(&gi, -1000, 30_000, 4099).unwrap();
        let want = counts(
            &is,
            |x| {
                (-1000..30_000)
                    .contains(&x)
                    .then(|| ((x as i64 + 1000) * 4099 / 31_000) as usize)
            },
            4099,
        );
        assert_eq!(h.download().unwrap(), want, "i16 n={n}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn empty_inputs_and_into_overwrite() {
    let g = gpu();
    let empty = g.upload::<u8>(&[]).unwrap();
    let h: DeviceVec<u32> = g.histogram(byte_bin, &empty, 5).unwrap();
    assert_eq!(h.download().unwrap(), [0; 5]);
    let h: DeviceVec<u8> = g.histogram(byte_bin, &empty, 5).unwrap();
    assert_eq!(h.download().unwrap(), [0; 5]);
    let xs: Vec<u8> = (0..100_000u32).map(|i| (i % 5) as u8).collect();
    let d = g.upload(&xs).unwrap();
    let mut out = g.upload(&[7u64; 5]).unwrap();
    for _ in 0..2 {
        g.histogram_into(byte_bin, &d, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), [20_000; 5]);
    }
    g.histogram_into(byte_bin, &empty, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), [0; 5]);
    let mut narrow = g.upload(&[9u16; 3]).unwrap();
    g.histogram_into(byte_bin, &d, &mut narrow).unwrap();
    assert_eq!(narrow.download().unwrap(), [20_000; 3]);
    // The caller's cudarc memory, overwritten.
    let stream = g.cuda_stream().unwrap();
    let mut raw: CudaSlice<u32> = stream.clone_htod(&[1u32, 2, 3, 4, 5]).unwrap();
    g.histogram_into(byte_bin, &d, &mut raw).unwrap();
    assert_eq!(stream.clone_dtoh(&raw).unwrap(), [20_000; 5]);
    // A loop of `_into` allocates nothing once warm.
    let before = g.allocations();
    for _ in 0..3 {
        g.histogram_into(byte_bin, &d, &mut out).unwrap();
        g.histogram_into(byte_bin, &d, &mut narrow).unwrap();
    }
    assert_eq!(g.allocations(), before);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn counters_wrap_as_their_type() {
    let g = gpu();
    let d = g.upload(&vec![3u8; 70_000]).unwrap();
    let want = [0u64, 0, 0, 70_000];
    let all = d.slice(..).unwrap();
    check_bytes::<u8>(&g, &all, 4, &want, "u8");
    check_bytes::<i8>(&g, &all, 4, &want, "i8");
    check_bytes::<u16>(&g, &all, 4, &want, "u16");
    check_bytes::<i16>(&g, &all, 4, &want, "i16");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn inputs_above_2_31_and_2_32_elements() {
    let _big = warp_tests::big_lock();
    let g = gpu();
    let n = (1usize << 31) + 1000;
    let xs: Vec<u8> = (0..n)
        .into_par_iter()
        .map(|i| {
            (i as u64)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(17) as u8
        })
        .collect();
    let d = g.upload(&xs).unwrap();
    let want = counts(&xs, |x| Some(x as usize), 256);
    let all = d.slice(..).unwrap();
    check_bytes::<u64>(&g, &all, 256, &want, "2^31 + 1000");
    check_bytes::<u32>(&g, &all, 256, &want, "2^31 + 1000");
    let tail = d.slice(n - 1500..).unwrap();
    check_bytes::<u32>(
        &g,
        &tail,
        256,
        &counts(&xs[n - 1500..], |x| Some(x as usize), 256),
        "the last 1500",
    );
    let h: DeviceVec<u64> = g.histogram_even(&d, 0, 255, 3).unwrap();
    let want3 = counts(&xs, |x| (x < 255).then(|| x as usize * 3 / 255), 3);
    assert_eq!(h.download().unwrap(), want3, "even bins");
    drop((d, xs));
    // One bin counted past 2^32: exact in 64-bit counters, wrapped in 32-bit ones.
    let n = (1usize << 32) + 1000;
    let d = g.upload(&vec![0u8; n]).unwrap();
    let all = d.slice(..).unwrap();
    check_bytes::<u64>(&g, &all, 2, &[n as u64, 0], "2^32 + 1000 zeros");
    check_bytes::<u32>(&g, &all, 2, &[n as u64, 0], "2^32 + 1000 zeros");
}

/// Sums of the weights of the bins `bin` gives, by iterators, added with `add`.
fn sums<T: Copy, W: Copy>(
    xs: &[T],
    ws: &[W],
    bin: impl Fn(T) -> Option<usize>,
    bins: usize,
    zero: W,
    add: impl Fn(W, W) -> W,
) -> Vec<W> {
    let mut h = vec![zero; bins];
    for (&x, &w) in xs.iter().zip(ws) {
        if let Some(b) = bin(x) {
            h[b] = add(h[b], w);
        }
    }
    h
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn weighted_histograms_match_iterators() {
    let g = gpu();
    let mut r = rng(seed());
    // Shared bins of 4-byte weights: 32 columns to 263 bins, one column to 12,287; of 8-byte
    // weights one column to 6,143; past those, global memory.
    for bins in [1usize, 3, 256, 264, 2048, 6143, 6144, 12_288, 65_536] {
        for n in [1usize, 1000, (1 << 20) + 7, 1 << 22] {
            let xs = u32::random_vec(&mut r, n + 3, false);
            let bin = hashed_bin.with(0x9e37_79b1, 16);
            let of = |x: u32| {
                Some((x.wrapping_mul(0x9e37_79b1) >> 16) as u16 as usize).filter(|&b| b < bins)
            };
            let gx = g.upload(&xs).unwrap();
            let tag = format!("bins={bins} n={n}");
            // Exact weights: i64 and u32 (wrapping) integers, and small integers as floats
            // (every partial sum exact, so any order gives the same bits).
            let wi: Vec<i64> = (0..n + 3)
                .map(|i| (i as i64 * 7919) % 2001 - 1000)
                .collect();
            let wu: Vec<u32> = (0..n + 3).map(|i| u32::MAX - (i as u32 % 5)).collect();
            let wf: Vec<f32> = wi.iter().map(|&w| (w % 4) as f32).collect();
            let wd: Vec<f64> = wi.iter().map(|&w| w as f64 * 0.5).collect();
            let (gi, gu) = (g.upload(&wi).unwrap(), g.upload(&wu).unwrap());
            let (gf, gd) = (g.upload(&wf).unwrap(), g.upload(&wd).unwrap());
            for off in [0usize, 1, 3] {
                let xv = gx.slice(off..off + n).unwrap();
                let (x, t) = (&xs[off..off + n], format!("{tag} off={off}"));
                let h = g
                    .histogram_weighted(bin, &xv, &gi.slice(off..off + n).unwrap(), bins)
                    .unwrap();
                let want = sums(x, &wi[off..off + n], of, bins, 0i64, i64::wrapping_add);
                assert!(h.download().unwrap() == want, "i64 {t}");
                let h = g
                    .histogram_weighted(bin, &xv, &gu.slice(off..off + n).unwrap(), bins)
                    .unwrap();
                let want = sums(x, &wu[off..off + n], of, bins, 0u32, u32::wrapping_add);
                assert!(h.download().unwrap() == want, "u32 {t}");
                let h = g
                    .histogram_weighted(bin, &xv, &gf.slice(off..off + n).unwrap(), bins)
                    .unwrap();
                let want = sums(x, &wf[off..off + n], of, bins, 0f32, |a, b| a + b);
                assert!(h.download().unwrap() == want, "f32 {t}");
                let h = g
                    .histogram_weighted(bin, &xv, &gd.slice(off..off + n).unwrap(), bins)
                    .unwrap();
                let want = sums(x, &wd[off..off + n], of, bins, 0f64, |a, b| a + b);
                assert!(h.download().unwrap() == want, "f64 {t}");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn weighted_histograms_of_maps_zips_and_random_floats() {
    let (g, c) = (gpu(), Device::cpu());
    let mut r = rng(seed());
    let n = (1usize << 24) + 5;
    // Random float weights: within a sum's rounding of the f64 sums (any order).
    let xs = u8::random_vec(&mut r, n, false);
    let ws: Vec<f32> = f32::random_vec(&mut r, n, false);
    let (gx, gw) = (g.upload(&xs).unwrap(), g.upload(&ws).unwrap());
    let h = g.histogram_weighted(byte_bin, &gx, &gw, 256).unwrap();
    let h = h.download().unwrap();
    let mut exact = vec![0f64; 256];
    let mut mass = vec![0f64; 256];
    for (&x, &w) in xs.iter().zip(&ws) {
        exact[x as usize] += w as f64;
        mass[x as usize] += (w as f64).abs();
    }
    for b in 0..256 {
        let tol = mass[b] * 1e-6 + 1e-30;
        assert!(
            (h[b] as f64 - exact[b]).abs() <= tol,
            "bin {b}: {} vs {}",
            h[b],
            exact[b]
        );
    }
    // A NaN weight makes its bin NaN; an infinite one its bin infinite.
    let mut special = vec![1.0f32; 4096];
    special[17] = f32::NAN;
    special[18] = f32::INFINITY;
    let keys: Vec<u8> = (0..4096)
        .map(|i| {
            if i == 17 {
                5
            } else if i == 18 {
                6
            } else {
                0
            }
        })
        .collect();
    let h = g
        .histogram_weighted(
            byte_bin,
            &g.upload(&keys).unwrap(),
            &g.upload(&special).unwrap(),
            8,
        )
        .unwrap()
        .download()
        .unwrap();
    assert!(
        h[5].is_nan() && h[6] == f32::INFINITY && h[0] == 4094.0,
        "{h:?}"
    );
    // A map of zipped arrays, against the CPU backend (integer weights: exact).
    let ys = u8::random_vec(&mut r, n, false);
    let gy = g.upload(&ys).unwrap();
    let wi: Vec<i32> = (0..n as i32).map(|i| i % 1000 - 500).collect();
    let (cx, cy, cw) = (
        c.upload(&xs).unwrap(),
        c.upload(&ys).unwrap(),
        c.upload(&wi).unwrap(),
    );
    let gwi = g.upload(&wi).unwrap();
    let want = c
        .histogram_weighted(pair_bin, &(&cx, &cy), &cw, HISTOGRAM_MAX_BINS)
        .unwrap()
        .download()
        .unwrap();
    let got = g
        .histogram_weighted(pair_bin, &(&gx, &gy), &gwi, HISTOGRAM_MAX_BINS)
        .unwrap()
        .download()
        .unwrap();
    assert!(got == want, "zipped bytes into 65,536 bins");
    let want = c
        .histogram_weighted(rem_bin.with(7), &cw.map(square_i32), &cw, 7)
        .unwrap()
        .download()
        .unwrap();
    let got = g
        .histogram_weighted(rem_bin.with(7), &gwi.map(square_i32), &gwi, 7)
        .unwrap();
    assert_eq!(got.download().unwrap(), want, "a map's bins");
    // `_into` overwrites; a length mismatch is an error.
    let mut out = g.upload(&[99i32; 7]).unwrap();
    g.histogram_weighted_into(rem_bin.with(7), &gwi.map(square_i32), &gwi, &mut out)
        .unwrap();
    assert_eq!(out.download().unwrap(), want);
    let short = gwi.slice(1..).unwrap();
    assert!(matches!(
        g.histogram_weighted(rem_bin.with(7), &gwi, &short, 7),
        Err(Error::Shape(_))
    ));
}

/// `x * x` wrapping, as a bin of `rem_bin`.
#[map]
fn square_i32(x: i32) -> i32 {
    x.wrapping_mul(x)
}

/// Weights combined per bin by `#[reduce]` operators against a plain fold per bin: bins in
/// shared memory (few, with many columns; many, with one) and in global memory (65,536 of 8
/// bytes), inputs to 2^22.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_weights_combined_by_an_operator() {
    let g = warp_tests::gpu();
    for (k, (n, bins)) in [
        (1usize, 1usize),
        (1000, 7),
        (100_003, 256),
        (1 << 22, 3000),
        (1 << 20, 65536),
    ]
    .into_iter()
    .enumerate()
    {
        warp_tests::hist_reduce::check_histogram_reduce(&g, n, bins, k as u64);
        warp_tests::hist_reduce::check_scatter_reduce(&g, n, bins, k as u64);
    }
}

/// Values written to the places indices name, against a plain loop: edge sizes, a grid's worth
/// and more.
#[test]
#[ignore = "needs a CUDA GPU"]
fn scatters_match_plain_rust() {
    let g = gpu();
    for (k, (n, len)) in [
        (0usize, 4usize),
        (1, 1),
        (3, 3),
        (1000, 1000),
        (100_003, 100_003),
        (1 << 22, 1 << 23),
    ]
    .into_iter()
    .enumerate()
    {
        warp_tests::scatter::check_scatter(&g, n, len, k as u64);
    }
}
