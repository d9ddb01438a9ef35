//! f16 and bf16 on the CPU backend against plain Rust with the `half` crate: upload and
//! download, maps to f32 summed (exact inputs bit for bit, random ones within a tolerance),
//! reductions and scans in half precision element by element, compaction, transpose, zipped
//! half and f32 arrays, and the rounding of `from_f32`.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    bf16_above, max_f16, round_both, sum_f16, sum_f32 as sum, widen_bf16, widen_f16,
};
use warp_tests::{
    Random, SameValue, assert_bits, assert_close_sum_of, assert_elements, edge_sizes, exact_sum,
    exact_vec, rng, seed,
};

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
        // Sums through f32 of random halves (specials included), within a tolerance.
        let h64: Vec<f64> = h.iter().map(|x| x.to_f64()).collect();
        let b64: Vec<f64> = b.iter().map(|x| x.to_f64()).collect();
        assert_close_sum_of(
            cpu.map_reduce(widen_f16, sum, &dh).unwrap(),
            &h64,
            &format!("f16 sum n={n}"),
        );
        assert_close_sum_of(
            cpu.map_reduce(widen_bf16, sum, &db).unwrap(),
            &b64,
            &format!("bf16 sum n={n}"),
        );
        let want = h.iter().fold(f16::NEG_INFINITY, |a, &x| a.max(x));
        assert!(cpu.reduce(max_f16, &dh).unwrap().same(&want), "max n={n}");
        // A scan in f16: each addition rounded, in order.
        let mut acc = f16::ZERO;
        let want: Vec<f16> = h
            .iter()
            .map(|&x| {
                acc += x;
                acc
            })
            .collect();
        let got = cpu.scan(sum_f16, &dh).unwrap().download().unwrap();
        assert_elements(&got, &want, &format!("scan n={n}"));
        let t = bf16::from_f32(0.25);
        let kept: Vec<bf16> = b.iter().copied().filter(|&x| x > t).collect();
        let got = cpu
            .filter(bf16_above.with(t), &db)
            .unwrap()
            .download()
            .unwrap();
        assert_bits(&got, &kept, &format!("filter n={n}"));
        let w: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let dw = cpu.upload(&w).unwrap();
        let want: Vec<f32> = h.iter().zip(&w).map(|(x, w)| x.to_f32() * w).collect();
        let got = cpu.map(scale, &(&dh, &dw)).unwrap().download().unwrap();
        assert_elements(&got, &want, &format!("zipped f16 x f32 n={n}"));
    }
}

/// Sums through f32 of exact halves (small integers: every partial sum is an integer far below
/// 2^24) equal the exact sum bit for bit, as do those of zipped f16 and f32 arrays mapped by
/// `scale`; the GPU tests compare with these sums.
#[test]
fn half_sums_of_exact_inputs_are_exact() {
    let cpu = Device::cpu();
    let s = seed();
    for n in edge_sizes(2).into_iter().chain([1 << 22]) {
        let h: Vec<f16> = exact_vec(s ^ 0x16 ^ n as u64, n);
        let b: Vec<bf16> = exact_vec(s ^ 0xbf ^ n as u64, n);
        let w: Vec<f32> = exact_vec(s ^ 0x32 ^ n as u64, n);
        let (dh, db, dw) = (
            cpu.upload(&h).unwrap(),
            cpu.upload(&b).unwrap(),
            cpu.upload(&w).unwrap(),
        );
        assert_bits(
            &[cpu.map_reduce(widen_f16, sum, &dh).unwrap()],
            &[exact_sum(&h) as f32],
            &format!("f16 sum n={n}"),
        );
        assert_bits(
            &[cpu.map_reduce(widen_bf16, sum, &db).unwrap()],
            &[exact_sum(&b) as f32],
            &format!("bf16 sum n={n}"),
        );
        let dot: i64 = h
            .iter()
            .zip(&w)
            .map(|(x, y)| x.to_f32() as i64 * *y as i64)
            .sum();
        assert_bits(
            &[cpu.map_reduce(scale, sum, &(&dh, &dw)).unwrap()],
            &[dot as f32],
            &format!("f16 x f32 sum n={n}"),
        );
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
