//! f16 and bf16 on the GPU against the CPU backend (itself tested against the `half` crate):
//! rounding of every conversion, sums through f32, reductions, scans and compaction of 2-byte
//! elements, transpose, zipped half and f32 arrays, edge sizes and misaligned views. Needs a
//! CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{bf16_above, max_f16, round_both, sum_f32 as sum, widen_bf16, widen_f16};
use warp_tests::{Random, SameValue, close_sum, edge_sizes, gpu, random_vec_par, rng, seed};

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

fn same<T: SameValue + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(x.same(y), "{what}: element {i}: {x:?} vs {y:?}");
    }
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
            let gv = (
                gd.0.slice(off..off + n).unwrap(),
                gd.1.slice(off..off + n).unwrap(),
                gd.2.slice(0..n).unwrap(),
            );
            let cv = (
                cd.0.slice(off..off + n).unwrap(),
                cd.1.slice(off..off + n).unwrap(),
                cd.2.slice(0..n).unwrap(),
            );
            let abs: f64 = h[off..off + n].iter().map(|x| x.to_f64().abs()).sum();
            let (a, c) = (
                gpu.map_reduce(widen_f16, sum, &gv.0).unwrap(),
                cpu.map_reduce(widen_f16, sum, &cv.0).unwrap(),
            );
            assert!(
                close_sum(a as f64, c as f64, abs, 1e-5),
                "f16 sum {tag}: {a} vs {c}"
            );
            let abs: f64 = b[off..off + n].iter().map(|x| x.to_f64().abs()).sum();
            let (a, c) = (
                gpu.map_reduce(widen_bf16, sum, &gv.1).unwrap(),
                cpu.map_reduce(widen_bf16, sum, &cv.1).unwrap(),
            );
            assert!(
                close_sum(a as f64, c as f64, abs, 1e-5),
                "bf16 sum {tag}: {a} vs {c}"
            );
            assert!(
                gpu.reduce(max_f16, &gv.0)
                    .unwrap()
                    .same(&cpu.reduce(max_f16, &cv.0).unwrap()),
                "max {tag}"
            );
            assert!(
                gpu.reduce(max_bf16, &gv.1)
                    .unwrap()
                    .same(&cpu.reduce(max_bf16, &cv.1).unwrap()),
                "max bf16 {tag}"
            );
            same(
                &gpu.scan(max_f16, &gv.0).unwrap().download().unwrap(),
                &cpu.scan(max_f16, &cv.0).unwrap().download().unwrap(),
                &format!("scan max {tag}"),
            );
            let t = bf16::from_f32(0.25);
            same(
                &gpu.filter(bf16_above.with(t), &gv.1)
                    .unwrap()
                    .download()
                    .unwrap(),
                &cpu.filter(bf16_above.with(t), &cv.1)
                    .unwrap()
                    .download()
                    .unwrap(),
                &format!("filter {tag}"),
            );
            assert_eq!(
                gpu.count(bf16_above.with(t), &gv.1).unwrap(),
                cpu.count(bf16_above.with(t), &cv.1).unwrap()
            );
            same(
                &gpu.map(scale, &(&gv.0, &gv.2)).unwrap().download().unwrap(),
                &cpu.map(scale, &(&cv.0, &cv.2)).unwrap().download().unwrap(),
                &format!("zipped f16 x f32 {tag}"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn half_matrices_transpose_and_reduce_along_axes() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    for (rows, cols) in [(1usize, 1usize), (33, 65), (1000, 3), (257, 4096)] {
        let m: Vec<f16> = random_vec_par(seed() ^ rows as u64, rows * cols, true);
        let (g, c) = (gpu.upload(&m).unwrap(), cpu.upload(&m).unwrap());
        same(
            &gpu.transpose(&g, cols).unwrap().download().unwrap(),
            &cpu.transpose(&c, cols).unwrap().download().unwrap(),
            &format!("transpose {rows}x{cols}"),
        );
        same(
            &gpu.reduce_rows(max_f16, &g, cols)
                .unwrap()
                .download()
                .unwrap(),
            &cpu.reduce_rows(max_f16, &c, cols)
                .unwrap()
                .download()
                .unwrap(),
            &format!("rows {rows}x{cols}"),
        );
        same(
            &gpu.reduce_cols(max_f16, &g, cols)
                .unwrap()
                .download()
                .unwrap(),
            &cpu.reduce_cols(max_f16, &c, cols)
                .unwrap()
                .download()
                .unwrap(),
            &format!("cols {rows}x{cols}"),
        );
    }
}
