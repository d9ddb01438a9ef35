//! The values real programs have: two arrays at once (a dot product, `allclose`, the elements
//! of one array selected by a test on both), a bf16 sum accumulated in f32, and a one-pass
//! Welford mean and variance. On the GPU when there is one, else on the CPU backend; checked
//! against plain Rust.
//!
//!     cargo run --release --example 05_values

use warp_runtime::prelude::*;

/// The map of a dot product: one element of each of two zipped arrays (a NaN in either makes
/// the product, and so the dot product, NaN).
#[map(inputs = 2)]
fn mul(x: f32, y: f32) -> f32 {
    x * y
}

/// Sum of floats (a NaN gives NaN).
#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

/// NumPy's `isclose`: `|x - y| <= atol + rtol * |y|` (NaN is never close).
#[predicate(inputs = 2)]
fn close(x: f32, y: f32, rtol: f32, atol: f32) -> bool {
    x == y || (x - y).abs() <= atol + rtol * y.abs()
}

/// `b > t` over zipped `(a, b)`: with `.keep::<0>()`, the elements of `a` where `b > t` (a
/// NaN `b` is never above, so its `a` is dropped; a NaN `a` is kept when its `b` is above).
#[predicate(inputs = 2)]
fn where_above(a: f32, b: f32, t: f32) -> bool {
    let _ = a;
    b > t
}

/// A bf16 activation widened to f32, exactly (a NaN stays NaN).
#[map]
fn widen(x: bf16) -> f32 {
    x.to_f32()
}

/// One element as a Welford state `(count, mean, m2)`: a NaN element makes the mean and
/// `m2` of every set holding it NaN (the count stays exact).
#[map]
fn one(x: f32) -> (u32, f64, f64) {
    (1, x as f64, 0.0)
}

/// The parallel Welford merge (Chan et al.): count, mean and the sum of squared deviations
/// of the union of two sets.
#[reduce(identity = (0, 0.0, 0.0))]
fn welford(a: (u32, f64, f64), b: (u32, f64, f64)) -> (u32, f64, f64) {
    let n = a.0 + b.0;
    if n == 0 {
        a
    } else {
        let (na, nb) = (a.0 as f64, b.0 as f64);
        let delta = b.1 - a.1;
        let r = 1.0 / n as f64;
        (
            n,
            a.1 + delta * (nb * r),
            a.2 + b.2 + delta * delta * (na * nb * r),
        )
    }
}

/// The same Welford state with named fields, all in f32 (as fast as a plain f32 sum on a GPU).
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
struct Moments {
    count: f32,
    mean: f32,
    m2: f32,
}

/// One element as `Moments` (NaN: as `one`, the mean and m2 of any set holding it are NaN).
#[map]
fn moments_of(x: f32) -> Moments {
    Moments {
        count: 1.0,
        mean: x,
        m2: 0.0,
    }
}

#[reduce(identity = Moments { count: 0.0, mean: 0.0, m2: 0.0 })]
fn merge(a: Moments, b: Moments) -> Moments {
    let n = a.count + b.count;
    if n == 0.0 {
        a
    } else {
        let delta = b.mean - a.mean;
        let r = 1.0 / n;
        Moments {
            count: n,
            mean: a.mean + delta * (b.count * r),
            m2: a.m2 + b.m2 + delta * delta * (a.count * b.count * r),
        }
    }
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 4_000_000usize;
    let mut s = 0x9e3779b97f4a7c15u64;
    let mut rand = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let xs: Vec<f32> = (0..n).map(|_| rand()).collect();
    let ys: Vec<f32> = (0..n).map(|_| rand()).collect();
    let (dx, dy) = (dev.upload(&xs)?, dev.upload(&ys)?);

    let dot = dev.map_reduce(mul, sum, &(&dx, &dy))?; // one kernel, each array read once
    let same = dev.all(close.with(1e-5, 1e-8), &(&dx, &dev.copy(&dx.as_slice())?))?;
    let differ = dev.all(close.with(1e-5, 1e-8), &(&dx, &dy))?; // stops at the first mismatch
    let picked = dev.filter(where_above.with(0.5), &(&dx, &dy).keep::<0>())?;
    let acts: Vec<bf16> = xs.iter().map(|&x| bf16::from_f32(x)).collect();
    let bsum = dev.map_reduce(widen, sum, &dev.upload(&acts)?)?;
    let (count, mean, m2) = dev.reduce(welford, &dx.map(one))?;
    let var = m2 / count as f64;
    let m = dev.reduce(merge, &dx.map(moments_of))?;
    println!("on {}: n = {n}", dev.describe());
    println!("  dot(x, y)                  = {dot}");
    println!("  allclose(x, copy of x)     = {same}");
    println!("  allclose(x, y)             = {differ}");
    println!("  x where y > 0.5            = {} values", picked.len());
    println!("  sum of bf16(x), f32 accum. = {bsum}");
    println!("  Welford: mean {mean:.9}, variance {var:.12} over {count} values");
    println!(
        "  Welford, f32 struct: mean {:.7}, variance {:.7} over {} values",
        m.mean,
        m.m2 / m.count,
        m.count
    );

    // Plain Rust (f64 where it matters) is the reference.
    let dot64: f64 = xs.iter().zip(&ys).map(|(&a, &b)| a as f64 * b as f64).sum();
    let b64: f64 = acts.iter().map(|x| x.to_f64()).sum();
    let m64: f64 = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    let v64: f64 = xs.iter().map(|&x| (x as f64 - m64).powi(2)).sum::<f64>() / n as f64;
    let want: Vec<f32> = xs
        .iter()
        .zip(&ys)
        .filter(|&(_, &y)| y > 0.5)
        .map(|(&x, _)| x)
        .collect();
    let ok = (dot as f64 - dot64).abs() <= 1e-5 * n as f64
        && same
        && !differ
        && picked.download()? == want
        && (bsum as f64 - b64).abs() <= 1e-5 * n as f64
        && count as usize == n
        && (mean - m64).abs() <= 1e-12
        && (var - v64).abs() <= 1e-9 * v64
        && m.count == n as f32
        && (m.mean as f64 - m64).abs() <= 1e-5
        && ((m.m2 / m.count) as f64 - v64).abs() <= 1e-4 * v64;
    println!(
        "  check against plain Rust: {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
