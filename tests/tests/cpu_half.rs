//! f16 and bf16 on the CPU backend against plain Rust with the `half` crate: upload and
//! download, maps to f32 summed, reductions and scans in half precision, compaction, transpose,
//! zipped half and f32 arrays, and the rounding of `from_f32`.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    bf16_above, max_f16, round_both, sum_f16, sum_f32 as sum, widen_bf16, widen_f16,
};
use warp_tests::{Random, SameValue, edge_sizes, rng, seed};

#[map(inputs = 2)]
fn scale(x: f16, w: f32) -> f32 {
    x.to_f32() * w
}

#[test]
fn half_arrays_match_plain_rust() {
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(2) {
        let h = f16::random_vec(&mut r, n, true);
        let b = bf16::random_vec(&mut r, n, true);
        let (dh, db) = (cpu.upload(&h).unwrap(), cpu.upload(&b).unwrap());
        assert!(
            dh.download()
                .unwrap()
                .iter()
                .zip(&h)
                .all(|(x, y)| x.same(y))
        );
        let want: f32 = h.iter().map(|x| x.to_f32()).sum();
        let got = cpu.map_reduce(widen_f16, sum, &dh).unwrap();
        assert!(
            got.same(&want) || (got - want).abs() <= 1e-3 * want.abs().max(1.0),
            "n={n}"
        );
        let _ = cpu.map_reduce(widen_bf16, sum, &db).unwrap();
        let want = h.iter().fold(f16::NEG_INFINITY, |a, &x| max_f16.call(a, x));
        assert!(cpu.reduce(max_f16, &dh).unwrap().same(&want), "max n={n}");
        // A scan in f16: each addition rounded, in order.
        let mut acc = f16::ZERO;
        let want: Vec<f16> = h
            .iter()
            .map(|&x| {
                acc = sum_f16.call(acc, x);
                acc
            })
            .collect();
        let got = cpu.scan(sum_f16, &dh).unwrap().download().unwrap();
        assert!(got.iter().zip(&want).all(|(x, y)| x.same(y)), "scan n={n}");
        let t = bf16::from_f32(0.25);
        let kept: Vec<bf16> = b.iter().copied().filter(|&x| x > t).collect();
        let got = cpu
            .filter(bf16_above.with(t), &db)
            .unwrap()
            .download()
            .unwrap();
        assert_eq!(got.len(), kept.len());
        assert!(got.iter().zip(&kept).all(|(x, y)| x.same(y)));
        let w: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let dw = cpu.upload(&w).unwrap();
        let want: Vec<f32> = h.iter().zip(&w).map(|(x, w)| x.to_f32() * w).collect();
        let got = cpu.map(scale, &(&dh, &dw)).unwrap().download().unwrap();
        assert!(got.iter().zip(&want).all(|(x, y)| x.same(y)));
    }
}

#[test]
fn rounding_is_the_half_crates() {
    let cpu = Device::cpu();
    let xs: Vec<f32> = (0..100_000u32)
        .map(|i| f32::from_bits(i.wrapping_mul(2_654_435_761)))
        .collect();
    let d = cpu.upload(&xs).unwrap();
    let got = cpu.map(round_both, &d).unwrap().download().unwrap();
    for (x, (b, h, e)) in xs.iter().zip(got) {
        assert!(b.same(&bf16::from_f32(*x)));
        assert!(h.same(&f16::from_f32(*x)));
        assert!(e.same(&(f16::from_f32(*x).to_f32() - bf16::from_f32(*x).to_f32())));
    }
}

#[test]
fn half_matrices_transpose() {
    let cpu = Device::cpu();
    let (rows, cols) = (33, 65);
    let m: Vec<f16> = (0..rows * cols).map(|i| f16::from_f32(i as f32)).collect();
    let t = cpu
        .transpose(&cpu.upload(&m).unwrap(), cols)
        .unwrap()
        .download()
        .unwrap();
    for r in 0..rows {
        for c in 0..cols {
            assert_eq!(t[c * rows + r], m[r * cols + c]);
        }
    }
}
