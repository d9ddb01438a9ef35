//! NaN in the README's argmax and argmin (NaN-propagating like NumPy): the combine is exactly
//! commutative and associative over random triples drawn from values with several NaNs (other
//! signs and payloads), signed zeros, infinities and ties, and it is "the larger pair in one
//! total order" (NaN above everything, then the value, then the smaller index). Reductions over
//! random NaN positions give NumPy's answer (the first NaN's index) on the CPU backend.

use rand::Rng;
use warp_runtime::prelude::*;
use warp_tests::ops::{argmax_f32, argmin_f64};
use warp_tests::{rng, seed};

/// Values with many ties: NaNs of both signs and other payloads, zeros of both signs,
/// infinities, a few ordinary values.
fn value(r: &mut impl Rng) -> f32 {
    const V: [f32; 9] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
    ];
    match r.random_range(0..4) {
        0 => [
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7fc0_1234),
            f32::from_bits(0xffa0_0001),
        ][r.random_range(0..4)],
        _ => V[r.random_range(0..V.len())],
    }
}

/// The NumPy order's key: (is NaN, value (NaN: 0), -index); the larger key wins.
fn argmax_key(p: (f32, u32)) -> (bool, f32, i64) {
    (
        p.0.is_nan(),
        if p.0.is_nan() { 0.0 } else { p.0 },
        -(p.1 as i64),
    )
}

fn bits(p: (f32, u32)) -> (u32, u32) {
    (p.0.to_bits(), p.1)
}

#[test]
fn argmax_is_commutative_and_associative_exactly() {
    let s = seed();
    let mut r = rng(s);
    let op = argmax_f32;
    for _ in 0..200_000 {
        // Distinct indices (what `indexed()` makes), from a small range so ties are common.
        let mut idx = [r.random_range(0..8u32), 0, 0];
        idx[1] = (idx[0] + r.random_range(1..8)) % 16;
        idx[2] = (idx[1].max(idx[0]) + r.random_range(1..8)) % 32;
        if idx[2] == idx[0] || idx[2] == idx[1] {
            continue;
        }
        let (a, b, c) = (
            (value(&mut r), idx[0]),
            (value(&mut r), idx[1]),
            (value(&mut r), idx[2]),
        );
        let ab = op.combine(a, b);
        assert_eq!(bits(ab), bits(op.combine(b, a)), "commutative: {a:?} {b:?}");
        let left = op.combine(ab, c);
        let right = op.combine(a, op.combine(b, c));
        assert_eq!(bits(left), bits(right), "associative: {a:?} {b:?} {c:?}");
        // It returns the larger pair of the total order.
        let want = if argmax_key(b) > argmax_key(a) { b } else { a };
        assert_eq!(bits(ab), bits(want), "the larger: {a:?} {b:?}");
        // The identity is neutral.
        assert_eq!(bits(op.combine(op.identity(), a)), bits(a));
        assert_eq!(bits(op.combine(a, op.identity())), bits(a));
        // The function as written computes the same.
        assert_eq!(bits(op.call(a, b)), bits(ab));
    }
}

#[test]
fn argmin_is_commutative_and_associative_exactly() {
    let mut r = rng(seed() ^ 7);
    let op = argmin_f64;
    let b64 = |p: (f64, u64)| (p.0.to_bits(), p.1);
    for _ in 0..200_000 {
        let i = r.random_range(0..1000u64);
        let (a, b, c) = (
            (value(&mut r) as f64, i),
            (value(&mut r) as f64, i + 1 + r.random_range(0..3)),
            (value(&mut r) as f64, i + 10 + r.random_range(0..3)),
        );
        let (a, b, c) = match r.random_range(0..3) {
            0 => (a, b, c),
            1 => (c, a, b),
            _ => (b, c, a),
        };
        let ab = op.combine(a, b);
        assert_eq!(b64(ab), b64(op.combine(b, a)), "commutative: {a:?} {b:?}");
        assert_eq!(
            b64(op.combine(ab, c)),
            b64(op.combine(a, op.combine(b, c))),
            "associative: {a:?} {b:?} {c:?}"
        );
        // NaN is the smallest value: a NaN in, a NaN out.
        if a.0.is_nan() || b.0.is_nan() {
            assert!(ab.0.is_nan());
        }
    }
}

#[test]
fn reductions_give_numpys_answer_at_random_nan_positions() {
    let s = seed();
    let mut r = rng(s ^ 11);
    let dev = Device::cpu();
    for n in [1usize, 2, 31, 1000, 100_003] {
        for nans in [0usize, 1, 2, 5] {
            let mut xs: Vec<f32> = (0..n)
                .map(|_| (r.random_range(-50..50) as f32) / 4.0)
                .collect();
            for _ in 0..nans.min(n) {
                let at = r.random_range(0..n);
                xs[at] = [f32::NAN, -f32::NAN][r.random_range(0..2)];
            }
            let got = dev
                .reduce(argmax_f32, &dev.upload(&xs).unwrap().indexed())
                .unwrap();
            let want = match xs.iter().position(|x| x.is_nan()) {
                Some(i) => i,
                None => {
                    let m = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    xs.iter().position(|&x| x == m).unwrap()
                }
            };
            assert_eq!(got.1 as usize, want, "n={n} nans={nans}");
            assert_eq!(got.0.to_bits(), xs[want].to_bits(), "the element itself");
            let d: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
            let got = dev
                .reduce(argmin_f64, &dev.upload(&d).unwrap().indexed())
                .unwrap();
            let want = match d.iter().position(|x| x.is_nan()) {
                Some(i) => i,
                None => {
                    let m = d.iter().copied().fold(f64::INFINITY, f64::min);
                    d.iter().position(|&x| x == m).unwrap()
                }
            };
            assert_eq!(got.1 as usize, want, "argmin n={n} nans={nans}");
        }
    }
    let empty = dev.upload::<f32>(&[]).unwrap();
    assert_eq!(
        dev.reduce(argmax_f32, &empty.indexed()).unwrap(),
        (f32::NEG_INFINITY, u32::MAX)
    );
}
