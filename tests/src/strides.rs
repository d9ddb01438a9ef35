//! Strided views (`xs.step_by(step)`) as inputs of every operation that takes elements,
//! against plain Rust over every `step`-th element: one check for both backends.

use rand::{Rng, SeedableRng, rngs::StdRng};
use warp_runtime::prelude::*;

use crate::gathers::check_every_op;
use crate::ops::{low_word, sum_f32, sum_f64};

/// Every operation over `xs[offset..].step_by(step)` for `len` random `u64` values (through a
/// `DeviceVec`, a view and a `CudaSlice` where `dev` is a GPU), against plain Rust
/// (`check_every_op`); an `f32` sum of integers (exact in any order); an `f64` sum
/// of a map of a map; a step of 0 is an error.
pub fn check_strided(dev: &Device, len: usize, offset: usize, step: usize, seed: u64) {
    let tag = format!("len={len} offset={offset} step={step} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let xs_host: Vec<u64> = (0..len).map(|_| rng.random()).collect();
    let xs = dev.upload(&xs_host).unwrap();
    let g: Vec<u64> = xs_host
        .get(offset..)
        .unwrap_or(&[])
        .iter()
        .step_by(step)
        .copied()
        .collect();
    let view = xs.slice(offset.min(len)..).unwrap();
    let sx = view.step_by(step).unwrap();
    assert_eq!(sx.len(), g.len(), "len {tag}");
    check_every_op(dev, &sx, &sx.map(low_word), &g, &tag);
    // From the start of a DeviceVec (the inherent method) and through the trait.
    let whole: Vec<u64> = xs_host.iter().step_by(step).copied().collect();
    let want = whole.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    assert_eq!(
        dev.reduce(crate::ops::add_u64, &xs.step_by(step).unwrap())
            .unwrap(),
        want,
        "DeviceVec {tag}"
    );
    assert_eq!(
        dev.reduce(crate::ops::add_u64, &StepBy::step_by(&view, step).unwrap())
            .unwrap(),
        g.iter().fold(0u64, |a, &b| a.wrapping_add(b)),
        "trait {tag}"
    );
    // f32 values: integers in [-512, 512), whose partial sums in any order stay far below
    // 2^24 for these lengths (a random walk), so the sum is exact and one wrong element
    // changes it.
    let fs_host = crate::gathers::small_int_f32(&xs_host);
    let fs = dev.upload(&fs_host).unwrap();
    let fsum: f64 = fs_host.iter().step_by(step).map(|&v| v as f64).sum();
    let got = dev.reduce(sum_f32, &fs.step_by(step).unwrap()).unwrap();
    assert_eq!(got as f64, fsum, "f32 sum {tag}");
    // A map of a map (low word, then to f64): exact, the values are below 2^32.
    let got = dev
        .reduce(sum_f64, &sx.map(low_word).map(crate::ops::u32_to_f64))
        .unwrap();
    let want: f64 = g.iter().map(|&v| (v as u32) as f64).sum();
    assert!(
        (got - want).abs() <= 1e-9 * want.max(1.0),
        "chained {tag}: {got} against {want}"
    );
    assert!(
        matches!(xs.step_by(0), Err(Error::Shape(_))),
        "step 0 {tag}"
    );
}
