//! f16 and bf16 on the GPU against plain Rust with the `half` crate and the CPU backend:
//! rounding of every conversion; sums through f32 of exact inputs (small integers) bit for bit
//! at the edge sizes, 2^22 and 2^24, and of random values within a tolerance (the CPU
//! backend's sums checked against plain Rust the same way); reductions, scans and compaction
//! of 2-byte elements element by element; transpose and axis reductions; zipped half and f32
//! arrays (mapped and summed); edge sizes and misaligned views. Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{bf16_above, max_f16, round_both, sum_f32 as sum, widen_bf16, widen_f16};
use warp_tests::{
    Random, SameValue, assert_bits, assert_close_sum_of, assert_elements, edge_sizes, exact_sum,
    exact_vec, gpu, random_vec_par, rng, seed,
};

#[map(inputs = 2)]
fn scale(x: f16, w: f32) -> f32 {
    x.to_f32() * w
}

#[map]
fn from_bits_both(u: u16) -> (f32, f64, f32, f64, u16, u16) {
    let h = f16::from_bits(u);
    let b = bf16::from_bits(u);
    (
        h.to_f32(),
        h.to_f64(),
        b.to_f32(),
        b.to_f64(),
        (-h).to_bits(),
        (h + h).to_bits(),
    )
}

#[map]
fn bf16_of_f64(x: f64) -> bf16 {
    bf16::from_f64(x)
}

#[reduce(identity = bf16::NEG_INFINITY)]
fn max_bf16(a: bf16, b: bf16) -> bf16 {
    a.max(b)
}

/// Which backend, for failure messages.
fn name(dev: &Device) -> &'static str {
    if dev.is_gpu() { "gpu" } else { "cpu" }
}

/// The running maxima of `xs` with `max_f16`'s rule (`half`'s `max`: NaN ignored, ties keep the
/// earlier value), from negative infinity.
fn running_max<T: Copy>(xs: &[T], identity: T, max: impl Fn(T, T) -> T) -> Vec<T> {
    xs.iter()
        .scan(identity, |m, &x| {
            *m = max(*m, x);
            Some(*m)
        })
        .collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_conversion_rounds_as_the_half_crate() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    // Every f16/bf16 bit pattern, widened both ways, negated and doubled.
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let g = gpu.map(from_bits_both, &gpu.upload(&all).unwrap()).unwrap();
    let c = cpu.map(from_bits_both, &cpu.upload(&all).unwrap()).unwrap();
    let (g, c) = (g.download().unwrap(), c.download().unwrap());
    for (i, (a, b)) in g.iter().zip(&c).enumerate() {
        // Widening keeps NaN payloads (bits compared), arithmetic NaNs are NaNs.
        assert_eq!(a.0.to_bits(), b.0.to_bits(), "f16 {i:#06x} to_f32");
        assert_eq!(a.1.to_bits(), b.1.to_bits(), "f16 {i:#06x} to_f64");
        assert_eq!(a.2.to_bits(), b.2.to_bits(), "bf16 {i:#06x} to_f32");
        assert_eq!(a.3.to_bits(), b.3.to_bits(), "bf16 {i:#06x} to_f64");
        assert_eq!(a.4, b.4, "f16 {i:#06x} neg");
        let nan = f16::from_bits(b.5).is_nan();
        assert!(
            a.5 == b.5 || (nan && f16::from_bits(a.5).is_nan()),
            "f16 {i:#06x} add"
        );
    }
    // f32 -> f16/bf16 on 2^24 f32 bit patterns spread over the whole range, plus the edges.
    let n = 1 << 24;
    let mut xs: Vec<f32> = (0..n as u32)
        .map(|i| f32::from_bits(i.wrapping_mul(0x9E37_79B9).rotate_left(7)))
        .collect();
    xs.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        65504.0,
        65520.0,
        65519.99,
        6e-8,
        -3e-8,
        f32::MIN_POSITIVE,
    ]);
    let g = gpu
        .map(round_both, &gpu.upload(&xs).unwrap())
        .unwrap()
        .download()
        .unwrap();
    for (x, (b, h, _)) in xs.iter().zip(&g) {
        assert_eq!(
            b.to_bits(),
            bf16::from_f32(*x).to_bits(),
            "bf16::from_f32({x:e}) [{:#x}]",
            x.to_bits()
        );
        assert_eq!(
            h.to_bits(),
            f16::from_f32(*x).to_bits(),
            "f16::from_f32({x:e}) [{:#x}]",
            x.to_bits()
        );
    }
    let ds: Vec<f64> = (0..n as u64)
        .map(|i| f64::from_bits(i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect();
    let g = gpu
        .map(bf16_of_f64, &gpu.upload(&ds).unwrap())
        .unwrap()
        .download()
        .unwrap();
    for (x, b) in ds.iter().zip(&g) {
        assert_eq!(
            b.to_bits(),
            bf16::from_f64(*x).to_bits(),
            "bf16::from_f64({x:e})"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn half_arrays_match_the_cpu() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(2).into_iter().chain([1 << 22]) {
        let h = f16::random_vec(&mut r, n + 3, true);
        let b = bf16::random_vec(&mut r, n + 3, true);
        let w = f32::random_vec(&mut r, n + 3, false);
        let up = |d: &Device| {
            (
                d.upload(&h).unwrap(),
                d.upload(&b).unwrap(),
                d.upload(&w).unwrap(),
            )
        };
        let (gd, cd) = (up(&gpu), up(&cpu));
        for off in [0usize, 1, 3] {
            let tag = format!("n={n} off={off}");
            let (hs, bs, ws) = (&h[off..off + n], &b[off..off + n], &w[..n]);
            let t = bf16::from_f32(0.25);
            let kept: Vec<bf16> = bs.iter().copied().filter(|&x| x > t).collect();
            let scaled: Vec<f32> = hs.iter().zip(ws).map(|(x, w)| x.to_f32() * w).collect();
            let h64: Vec<f64> = hs.iter().map(|x| x.to_f64()).collect();
            let b64: Vec<f64> = bs.iter().map(|x| x.to_f64()).collect();
            for (dev, d) in [(&gpu, &gd), (&cpu, &cd)] {
                let tag = format!("{} {tag}", name(dev));
                let v = (
                    d.0.slice(off..off + n).unwrap(),
                    d.1.slice(off..off + n).unwrap(),
                    d.2.slice(0..n).unwrap(),
                );
                // Sums of random halves (specials included) through f32, within a tolerance.
                assert_close_sum_of(
                    dev.map_reduce(widen_f16, sum, &v.0).unwrap(),
                    &h64,
                    &format!("f16 sum {tag}"),
                );
                assert_close_sum_of(
                    dev.map_reduce(widen_bf16, sum, &v.1).unwrap(),
                    &b64,
                    &format!("bf16 sum {tag}"),
                );
                assert!(
                    dev.reduce(max_f16, &v.0)
                        .unwrap()
                        .same(&hs.iter().copied().fold(f16::NEG_INFINITY, |a, x| a.max(x))),
                    "max f16 {tag}"
                );
                assert!(
                    dev.reduce(max_bf16, &v.1)
                        .unwrap()
                        .same(&bs.iter().copied().fold(bf16::NEG_INFINITY, |a, x| a.max(x))),
                    "max bf16 {tag}"
                );
                assert_elements(
                    &dev.scan(max_f16, &v.0).unwrap().download().unwrap(),
                    &running_max(hs, f16::NEG_INFINITY, |a, x| a.max(x)),
                    &format!("scan max {tag}"),
                );
                // Compaction moves elements: their bits, NaN payloads included.
                assert_bits(
                    &dev.filter(bf16_above.with(t), &v.1)
                        .unwrap()
                        .download()
                        .unwrap(),
                    &kept,
                    &format!("filter {tag}"),
                );
                assert_eq!(
                    dev.count(bf16_above.with(t), &v.1).unwrap(),
                    kept.len() as u64,
                    "count {tag}"
                );
                assert_elements(
                    &dev.map(scale, &(&v.0, &v.2)).unwrap().download().unwrap(),
                    &scaled,
                    &format!("zipped f16 x f32 {tag}"),
                );
            }
        }
    }
}

/// Sums through f32 of exact halves (small integers: every partial sum is an integer far below
/// 2^24, the same bits in any order) on the GPU and the CPU backend equal the exact sum bit for
/// bit, at the edge sizes, 2^22 and 2^24, from misaligned starts; so do the sums of zipped f16
/// and f32 arrays mapped by `scale` (products of small integers).
#[test]
#[ignore = "needs a CUDA GPU"]
fn half_sums_of_exact_inputs_are_exact() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    for n in edge_sizes(2).into_iter().chain([1 << 22, (1 << 24) + 1]) {
        let h: Vec<f16> = exact_vec(s ^ 0x16 ^ n as u64, n + 3);
        let b: Vec<bf16> = exact_vec(s ^ 0xbf ^ n as u64, n + 3);
        let w: Vec<f32> = exact_vec(s ^ 0x32 ^ n as u64, n + 3);
        for dev in [&gpu, &cpu] {
            let (dh, db, dw) = (
                dev.upload(&h).unwrap(),
                dev.upload(&b).unwrap(),
                dev.upload(&w).unwrap(),
            );
            for off in [0usize, 1, 3] {
                let tag = format!("{} n={n} off={off}", name(dev));
                let (vh, vb) = (
                    dh.slice(off..off + n).unwrap(),
                    db.slice(off..off + n).unwrap(),
                );
                assert_bits(
                    &[dev.map_reduce(widen_f16, sum, &vh).unwrap()],
                    &[exact_sum(&h[off..off + n]) as f32],
                    &format!("f16 sum {tag}"),
                );
                assert_bits(
                    &[dev.map_reduce(widen_bf16, sum, &vb).unwrap()],
                    &[exact_sum(&b[off..off + n]) as f32],
                    &format!("bf16 sum {tag}"),
                );
                let dot: i64 = h[off..off + n]
                    .iter()
                    .zip(&w[..n])
                    .map(|(x, y)| x.to_f32() as i64 * *y as i64)
                    .sum();
                assert_bits(
                    &[dev
                        .map_reduce(scale, sum, &(&vh, &dw.slice(0..n).unwrap()))
                        .unwrap()],
                    &[dot as f32],
                    &format!("f16 x f32 sum {tag}"),
                );
            }
        }
    }
}

/// f16 matrices: the transpose bit for bit (NaN payloads included) and the maximum of each row
/// and each column against plain Rust, on the GPU and the CPU backend.
#[test]
#[ignore = "needs a CUDA GPU"]
fn half_matrices_transpose_and_reduce_along_axes() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    for (rows, cols) in [(1usize, 1usize), (33, 65), (1000, 3), (257, 4096)] {
        let m: Vec<f16> = random_vec_par(seed() ^ rows as u64, rows * cols, true);
        let transposed: Vec<f16> = (0..cols * rows)
            .map(|i| m[(i % rows) * cols + i / rows])
            .collect();
        let max = |it: &mut dyn Iterator<Item = &f16>| it.fold(f16::NEG_INFINITY, |a, &x| a.max(x));
        let by_row: Vec<f16> = m.chunks(cols).map(|r| max(&mut r.iter())).collect();
        let by_col: Vec<f16> = (0..cols)
            .map(|c| max(&mut m.iter().skip(c).step_by(cols)))
            .collect();
        for dev in [&gpu, &cpu] {
            let tag = format!("{} {rows}x{cols}", name(dev));
            let d = dev.upload(&m).unwrap();
            assert_bits(
                &dev.transpose(&d, cols).unwrap().download().unwrap(),
                &transposed,
                &format!("transpose {tag}"),
            );
            assert_elements(
                &dev.reduce_rows(max_f16, &d, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &by_row,
                &format!("rows {tag}"),
            );
            assert_elements(
                &dev.reduce_cols(max_f16, &d, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &by_col,
                &format!("cols {tag}"),
            );
        }
    }
}
