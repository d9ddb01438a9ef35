//! Histograms: bins given by a `#[map]` (here, the byte itself and a bound bucket width),
//! sums of weights per bin (the latency each byte's requests waited, in integer microseconds)
//! and evenly spaced bins over a range (CUB's `HistogramEven`), on the GPU when there is one
//! (checked against plain Rust), else on the CPU backend.
//!
//!     cargo run --release --example 08_histogram

use warp_runtime::prelude::*;

/// The byte itself: 256 bins.
#[map]
fn byte(x: u8) -> u32 {
    x as u32
}

/// Buckets of `width` milliseconds; negative latencies give negative bins, which are dropped.
#[map]
fn bucket(ms: f32, width: f32) -> i32 {
    (ms / width).floor() as i32
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 5_000_000usize;
    let mut s = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let bytes: Vec<u8> = (0..n).map(|_| (next() >> 56) as u8).collect();
    let latency: Vec<f32> = (0..n)
        .map(|_| ((next() >> 40) as f32 / (1u64 << 24) as f32).powi(3) * 100.0 - 1.0)
        .collect();
    let (db, dl) = (dev.upload(&bytes)?, dev.upload(&latency)?);

    // 256 bins by a map, 64-bit counters.
    let h: DeviceVec<u64> = dev.histogram(byte, &db, 256)?;
    let h = h.download()?;
    // Ten 10 ms buckets of [0, 100); below 0 (negative bins) and from 100 on (bin >= 10) dropped.
    let buckets: DeviceVec<u32> = dev.histogram(bucket.with(10.0), &dl, 10)?;
    let buckets = buckets.download()?;
    // The same with even bins over [0, 100), into the caller's counters.
    let mut even = dev.upload(&[0u32; 10])?;
    dev.histogram_even_into(&dl, 0.0, 100.0, &mut even)?;
    let even = even.download()?;
    // Each byte's total latency in whole microseconds (exact: integer weights).
    let micros: Vec<u64> = latency
        .iter()
        .map(|&ms| (ms.max(0.0) * 1000.0) as u64)
        .collect();
    let waited = dev.histogram_weighted(byte, &db, &dev.upload(&micros)?, 256)?;
    let waited = waited.download()?;

    println!("on {}: n = {n}", dev.describe());
    println!("  bytes: bin 0 = {}, bin 255 = {}", h[0], h[255]);
    println!("  latency buckets of 10 ms: {buckets:?}");
    println!("  even bins over [0, 100):  {even:?}");
    println!("  microseconds waited by byte 0: {}", waited[0]);

    let mut want = vec![0u64; 256];
    bytes.iter().for_each(|&b| want[b as usize] += 1);
    let mut want_buckets = vec![0u32; 10];
    for &ms in &latency {
        if let Ok(b @ 0..10) = usize::try_from((ms / 10.0).floor() as i32) {
            want_buckets[b] += 1;
        }
    }
    let mut want_waited = vec![0u64; 256];
    for (&b, &us) in bytes.iter().zip(&micros) {
        want_waited[b as usize] += us;
    }
    let ok = h == want
        && buckets == want_buckets
        && waited == want_waited
        && even.iter().sum::<u32>() <= n as u32;
    println!("  matches plain Rust: {ok}");
    assert!(ok);
    Ok(())
}
