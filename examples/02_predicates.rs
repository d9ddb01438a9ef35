//! Predicates and maps: votes, counting, compaction and fused maps, on the GPU when there is
//! one (checked against the CPU backend), else on the CPU backend.
//!
//!     cargo run --release --example 02_predicates

use warp_runtime::prelude::*;

/// A threshold bound at call time: `above.with(t)`. NaN is never above (every comparison
/// with NaN is false): `count` skips it, `filter` drops it, `partition` puts it in the second part.
#[predicate]
fn above(x: f32, t: f32) -> bool {
    x > t
}

/// Squares, fused into whatever reads them (NaN squared is NaN).
#[map]
fn square(x: f32) -> f32 {
    x * x
}

/// Sum of floats (a NaN gives NaN).
#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 5_000_000usize;
    let mut s = 0x2545f4914f6cdd1du64;
    let xs: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        })
        .collect();
    let d = dev.upload(&xs)?;
    let positive = above.with(0.0);
    let count = dev.count(positive, &d)?;
    let first_big = dev.find_first(above.with(0.999), &d)?;
    let all_small = dev.all(above.with(-1.5), &d)?;
    let kept = dev.filter(positive, &d)?;
    let at = dev.argwhere(above.with(0.999), &d)?;
    let (yes, no) = dev.partition(positive, &d)?;
    let mask = dev.mask(positive, &d)?;
    let ssq = dev.map_reduce(square, sum, &d)?;
    let big_squares = dev.count(above.with(0.25), &d.map(square))?;
    println!("on {}: n = {n}", dev.describe());
    println!("  count(x > 0)            = {count}");
    println!("  find_first(x > 0.999)   = {first_big:?}");
    println!("  all(x > -1.5)           = {all_small}");
    println!("  filter(x > 0)           = {} values", kept.len());
    println!("  argwhere(x > 0.999)     = {} positions", at.len());
    println!("  partition(x > 0)        = {} + {}", yes.len(), no.len());
    println!("  mask(x > 0)             = {} words", mask.len());
    println!("  sum of squares (fused)  = {ssq}");
    println!("  count(x * x > 0.25)     = {big_squares}");

    // The CPU backend is the reference.
    let ok = count == xs.iter().filter(|&&x| x > 0.0).count() as u64
        && first_big == xs.iter().position(|&x| x > 0.999)
        && all_small
        && kept.download()? == xs.iter().copied().filter(|&x| x > 0.0).collect::<Vec<_>>()
        && at.download()?
            == (0..n as u32)
                .filter(|&i| xs[i as usize] > 0.999)
                .collect::<Vec<_>>()
        && yes.len() + no.len() == n
        && big_squares == xs.iter().filter(|&&x| x * x > 0.25).count() as u64;
    let exact: f64 = xs.iter().map(|&x| (x * x) as f64).sum();
    let ok = ok && ((ssq as f64) - exact).abs() <= 1e-5 * exact;
    println!(
        "  check against plain Rust: {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
