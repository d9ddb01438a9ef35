//! Chains of inputs against plain Rust, one check for both backends: masked inputs
//! (`xs.filter(p)`) of reductions, scans and axis reductions, where a rejected value is the
//! identity, and maps of maps (`xs.map(f).map(g)`) of arrays, ranges and gathers.

use rand::{Rng, SeedableRng, rngs::StdRng};
use warp_runtime::prelude::*;

use crate::ops::{add_u32, add_u64, low_word, multiple_of};

/// Every reduce-input operation over `n` random `u64` masked by `multiple_of(3)`, over an
/// array, a map of it, a generated range and a gather, against plain Rust: `reduce`,
/// `reduce_on_device`, scans, rows, columns, `reduce_axis`, segments; `reduce_by_key` refuses
/// a masked input.
pub fn check_masked(dev: &Device, n: usize, seed: u64) {
    let tag = format!("n={n} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let xs_host: Vec<u64> = (0..n).map(|_| rng.random_range(0..1000)).collect();
    let xs = dev.upload(&xs_host).unwrap();
    let m = multiple_of.with(3);
    let kept = |v: u64| if v.is_multiple_of(3) { v } else { 0 };
    let masked: Vec<u64> = xs_host.iter().map(|&v| kept(v)).collect();
    let total = masked.iter().sum::<u64>();
    assert_eq!(
        dev.reduce(add_u64, &xs.filter(m)).unwrap(),
        total,
        "sum {tag}"
    );
    let on = dev.reduce_on_device(add_u64, &xs.filter(m)).unwrap();
    assert_eq!(on.get().unwrap(), total, "reduce_on_device {tag}");
    // A map then a mask: low words of the kept values (the mask tests the map's value).
    let low: Vec<u32> = xs_host.iter().map(|&v| v as u32).collect();
    let by_low = crate::ops::u32_multiple_of.with(3);
    assert_eq!(
        dev.reduce(add_u32, &xs.map(low_word).filter(by_low))
            .unwrap(),
        low.iter()
            .filter(|v| v.is_multiple_of(3))
            .fold(0u32, |a, &b| a.wrapping_add(b)),
        "map then mask {tag}"
    );
    // Scans: a rejected value adds nothing.
    let mut acc = 0u64;
    let inclusive: Vec<u64> = masked
        .iter()
        .map(|&v| {
            acc += v;
            acc
        })
        .collect();
    assert_eq!(
        dev.scan(add_u64, &xs.filter(m))
            .unwrap()
            .download()
            .unwrap(),
        inclusive,
        "scan {tag}"
    );
    // Rows, columns, an axis, segments.
    for cols in [1usize, 7, 256] {
        if n == 0 || !n.is_multiple_of(cols) {
            continue;
        }
        let rows: Vec<u64> = masked.chunks(cols).map(|c| c.iter().sum()).collect();
        let got = dev.reduce_rows(add_u64, &xs.filter(m), cols).unwrap();
        assert_eq!(got.download().unwrap(), rows, "rows {cols} {tag}");
        let mut colsum = vec![0u64; cols];
        for (k, &v) in masked.iter().enumerate() {
            colsum[k % cols] += v;
        }
        let got = dev.reduce_cols(add_u64, &xs.filter(m), cols).unwrap();
        assert_eq!(got.download().unwrap(), colsum, "cols {cols} {tag}");
        let shape = [n / cols, cols];
        let got = dev.reduce_axis(add_u64, &xs.filter(m), &shape, 0).unwrap();
        assert_eq!(got.download().unwrap(), colsum, "axis {cols} {tag}");
    }
    let offsets = dev.upload(&[0u64, (n / 2) as u64, n as u64]).unwrap();
    let got = dev
        .reduce_segments(add_u64, &xs.filter(m), &offsets)
        .unwrap();
    let want = vec![
        masked[..n / 2].iter().sum::<u64>(),
        masked[n / 2..].iter().sum::<u64>(),
    ];
    assert_eq!(got.download().unwrap(), want, "segments {tag}");
    // A range and a gather, masked.
    let r = dev.range(0..n as u64);
    assert_eq!(
        dev.reduce(add_u64, &r.filter(m)).unwrap(),
        (0..n as u64).map(kept).sum::<u64>(),
        "range {tag}"
    );
    let idx: Vec<u32> = (0..n as u32).rev().collect();
    let di = dev.upload(&idx).unwrap();
    assert_eq!(
        dev.reduce(add_u64, &xs.gather(&di).filter(m)).unwrap(),
        total,
        "gather {tag}"
    );
    // reduce_by_key reads its values beside the keys: a masked input is refused.
    let keys = dev.upload(&vec![1u32; n]).unwrap();
    assert!(
        matches!(
            dev.reduce_by_key(add_u64, &keys, &xs.filter(m)),
            Err(Error::Unsupported(_))
        ),
        "reduce_by_key {tag}"
    );
}

/// Maps of maps (`xs.map(f).map(g)`, each with a bound argument, then a predicate or a bin map
/// with its own) of an array, a range and a gather, as inputs of reductions, scans, rows,
/// predicates, compaction, histograms and a masked reduction, against plain Rust.
pub fn check_chains(dev: &Device, n: usize, seed: u64) {
    use crate::ops::{add_k, scale_low, u32_byte, u32_multiple_of};
    let tag = format!("n={n} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let xs_host: Vec<u64> = (0..n).map(|_| rng.random()).collect();
    let xs = dev.upload(&xs_host).unwrap();
    let f = |v: u64| (v.wrapping_add(5) as u32).wrapping_mul(7);
    let vals: Vec<u32> = xs_host.iter().map(|&v| f(v)).collect();
    let c = xs.map(add_k.with(5)).map(scale_low.with(7));
    let sum = |v: &[u32]| v.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    assert_eq!(dev.reduce(add_u32, &c).unwrap(), sum(&vals), "reduce {tag}");
    let mut acc = 0u32;
    let scan: Vec<u32> = vals
        .iter()
        .map(|&v| {
            acc = acc.wrapping_add(v);
            acc
        })
        .collect();
    assert_eq!(
        dev.scan(add_u32, &c).unwrap().download().unwrap(),
        scan,
        "scan {tag}"
    );
    if n.is_multiple_of(7) && n > 0 {
        let rows: Vec<u32> = vals.chunks(7).map(sum).collect();
        let got = dev.reduce_rows(add_u32, &c, 7).unwrap();
        assert_eq!(got.download().unwrap(), rows, "rows {tag}");
    }
    let p = u32_multiple_of.with(3);
    let kept: Vec<u32> = vals.iter().copied().filter(|v| v % 3 == 0).collect();
    assert_eq!(dev.count(p, &c).unwrap(), kept.len() as u64, "count {tag}");
    assert_eq!(
        dev.filter(p, &c).unwrap().download().unwrap(),
        kept,
        "filter {tag}"
    );
    let mut bins = vec![0u32; 256];
    for &v in &vals {
        bins[((v >> 8) & 255) as usize] += 1;
    }
    let got = dev
        .histogram::<u32, _, _>(u32_byte.with(8), &c, 256)
        .unwrap();
    assert_eq!(got.download().unwrap(), bins, "histogram {tag}");
    assert_eq!(
        dev.reduce(add_u32, &c.filter(p)).unwrap(),
        sum(&kept),
        "masked chain {tag}"
    );
    // A range's and a gather's maps, mapped again.
    let r = dev.range(0..n as u64);
    let want = (0..n as u64).fold(0u32, |a, i| a.wrapping_add(f(i)));
    assert_eq!(
        dev.reduce(add_u32, &r.map(add_k.with(5)).map(scale_low.with(7)))
            .unwrap(),
        want,
        "range chain {tag}"
    );
    let idx: Vec<u32> = (0..n as u32).rev().collect();
    let di = dev.upload(&idx).unwrap();
    let g = xs.gather(&di).map(add_k.with(5)).map(scale_low.with(7));
    assert_eq!(
        dev.reduce(add_u32, &g).unwrap(),
        sum(&vals),
        "gather chain {tag}"
    );
    assert_eq!(
        dev.count(p, &g).unwrap(),
        kept.len() as u64,
        "gather chain count {tag}"
    );
}
