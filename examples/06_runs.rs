//! Runs of equal keys: unique, run-length encode and reduce-by-key (sums per run, the largest
//! value of each run and where it is, the mean of each run, and the runs of a predicate of two
//! keys), on the GPU when there is one (checked against the CPU backend and plain loops), else
//! on the CPU backend.
//!
//!     cargo run --release --example 06_runs

use warp_runtime::Equal;
use warp_runtime::prelude::*;

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

/// Argmax over `(value, index)` pairs: NaN-propagating like NumPy, ties to the smaller index.
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    let b_wins = if a.0.is_nan() || b.0.is_nan() {
        b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
    } else {
        b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
    };
    if b_wins { b } else { a }
}

/// A value with a count of one, for [`sum_count`].
#[map]
fn with_one(x: f32) -> (f32, u32) {
    (x, 1)
}

/// Sums and counts: a run's mean is their quotient.
#[reduce(identity = (0.0, 0))]
fn sum_count(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    (a.0 + b.0, a.1 + b.1)
}

/// Neighbours at most `d` apart are one run.
#[predicate(inputs = 2)]
fn near(a: i32, b: i32, d: i32) -> bool {
    (a as i64 - b as i64).abs() <= d as i64
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let cpu = Device::cpu();
    // Sorted-ish keys in runs of 1 to 7 (mean 4), values 0..8 (sums are exact in f32).
    let n = 5_000_000usize;
    let mut s = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut keys = Vec::with_capacity(n);
    let mut key = 0i32;
    while keys.len() < n {
        let len = (1 + next() % 7) as usize;
        keys.extend(std::iter::repeat_n(key, len.min(n - keys.len())));
        key += 1 + (next() % 3) as i32;
    }
    let vals: Vec<f32> = (0..n).map(|i| (i % 8) as f32).collect();
    let (dk, dv) = (dev.upload(&keys)?, dev.upload(&vals)?);

    let uniq = dev.unique(&dk)?;
    let mut want = keys.clone();
    want.dedup();
    assert_eq!(uniq.download()?, want);

    let runs = dev.run_length_encode(&dk)?;
    let counts = runs.counts.download()?;
    assert_eq!(counts.iter().map(|&c| c as usize).sum::<usize>(), n);

    let by = dev.reduce_by_key(sum, &dk, &dv)?;
    let on_cpu = cpu.reduce_by_key(sum, &cpu.upload(&keys)?, &cpu.upload(&vals)?)?;
    assert_eq!(by.values.download()?, on_cpu.values.download()?);

    // Each run's largest value and its index in the input, from (value, index) pairs.
    let best = dev
        .reduce_by_key(argmax, &dk, &dv.indexed())?
        .values
        .download()?;
    let mut at = 0usize;
    for (&len, &(v, i)) in counts.iter().zip(&best) {
        let run = &vals[at..at + len as usize];
        let top = run.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let first = at + run.iter().position(|&x| x == top).unwrap();
        assert_eq!((v, i as usize), (top, first));
        at += len as usize;
    }

    // Each run's mean, from its sum and count (tuples come back as DeviceTuples).
    let sc = dev
        .reduce_by_key(sum_count, &dk, &dv.map(with_one))?
        .values
        .download()?;
    assert!(sc.iter().zip(&counts).all(|(&(_, c), &len)| c == len));
    let means: Vec<f32> = sc.iter().map(|&(s, c)| s / c as f32).collect();

    // Keys within 2 of their neighbour are one run; the count stays on the device.
    let mut out = dev.upload(&vec![0i32; n])?;
    let count = dev.unique_into(near.with(2), &dk, &mut out)?;
    let close_runs = count.get()?;

    // Each NaN key is a run of its own (NaN != NaN), as in Vec::dedup.
    let fs = dev.upload(&[f32::NAN, f32::NAN, 1.0, 1.0])?;
    assert_eq!(dev.unique(&fs)?.len(), 3);
    let mut k = dev.upload(&[0.0f32; 4])?;
    let mut c = dev.upload(&[0u64; 4])?;
    assert_eq!(
        dev.run_length_encode_into(Equal, &fs, &mut k, &mut c)?
            .get()?,
        3
    );

    println!(
        "{n} keys on {}: {} runs (mean length {:.2}), first run sums {:?}, means {:?}, largest {:?}, {close_runs} runs of neighbours within 2",
        dev.describe(),
        uniq.len(),
        n as f64 / uniq.len() as f64,
        &by.values.download()?[..4],
        &means[..4],
        &best[..4]
    );
    Ok(())
}
