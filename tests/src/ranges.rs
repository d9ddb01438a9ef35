//! Generated ranges (`Device::range`) as inputs of reductions, scans and axis reductions,
//! against plain Rust over the same indices: one check for both backends.

use warp_runtime::prelude::*;

use crate::ops::{
    add_u32, add_u64, gauss_step, index_byte, low_word, multiple_of, pi_hit, sum_f64,
};

/// Every operation a range feeds on `dev`, over `n` indices from `start` (`u64`) and from
/// `start32` (`u32`), against plain Rust: sums of the indices, a Monte-Carlo count and a
/// Gauss integral of mapped indices, `reduce_on_device`, inclusive and exclusive scans, row,
/// column and segment sums, `count`, `any`, `all`, `find_first`, `filter`, `argwhere` and a
/// histogram; `reduce_by_key` refuses a range.
pub fn check_ranges(dev: &Device, n: usize, start: u64, start32: u32) {
    let tag = format!("n={n} start={start} start32={start32}");
    let idx: Vec<u64> = (0..n as u64).map(|i| start.wrapping_add(i)).collect();
    let r = dev.range(start..start + n as u64);
    assert_eq!(r.len(), n);
    let want = idx.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    assert_eq!(dev.reduce(add_u64, &r).unwrap(), want, "sum u64 {tag}");
    let on = dev.reduce_on_device(add_u64, &r).unwrap();
    assert_eq!(on.get().unwrap(), want, "reduce_on_device {tag}");
    let end32 = start32.saturating_add(n as u32);
    let r32 = dev.range(start32..end32);
    let want32 = (start32..end32).fold(0u32, |a, b| a.wrapping_add(b));
    assert_eq!(dev.reduce(add_u32, &r32).unwrap(), want32, "sum u32 {tag}");
    // A map of the indices: hits of a Monte-Carlo estimate (exact) and a midpoint-rule
    // integral (f64, summed in another order: within a relative 1e-12).
    let hits = idx.iter().map(|&i| pi_hit.call(i)).sum::<u32>();
    assert_eq!(
        dev.reduce(add_u32, &r.map(pi_hit)).unwrap(),
        hits,
        "pi hits {tag}"
    );
    let h = 1.0 / n.max(1) as f64;
    let integral: f64 = idx.iter().map(|&i| gauss_step.call(i, h)).sum();
    let got = dev.reduce(sum_f64, &r.map(gauss_step.with(h))).unwrap();
    assert!(
        (got - integral).abs() <= 1e-12 * integral.abs().max(1e-300) + 1e-300,
        "gauss {tag}: {got} against {integral}"
    );
    // Scans of the indices.
    let mut acc = 0u64;
    let inclusive: Vec<u64> = idx
        .iter()
        .map(|&i| {
            acc = acc.wrapping_add(i);
            acc
        })
        .collect();
    let got = dev.scan(add_u64, &r).unwrap().download().unwrap();
    assert_eq!(got, inclusive, "scan {tag}");
    let exclusive: Vec<u64> = (0..n)
        .map(|k| if k == 0 { 0 } else { inclusive[k - 1] })
        .collect();
    let got = dev.exclusive_scan(add_u64, &r).unwrap().download().unwrap();
    assert_eq!(got, exclusive, "exclusive_scan {tag}");
    // Rows and columns of the mapped indices (as u32), where `cols` divides n.
    let low = r.map(low_word);
    for cols in [1usize, 3, 32, 1000, 5000] {
        if n == 0 || !n.is_multiple_of(cols) {
            continue;
        }
        let rows: Vec<u32> = idx
            .chunks(cols)
            .map(|c| c.iter().fold(0u32, |a, &b| a.wrapping_add(b as u32)))
            .collect();
        let got = dev
            .reduce_rows(add_u32, &low, cols)
            .unwrap()
            .download()
            .unwrap();
        assert_eq!(got, rows, "reduce_rows cols={cols} {tag}");
        let mut colsum = vec![0u32; cols];
        for (k, &i) in idx.iter().enumerate() {
            colsum[k % cols] = colsum[k % cols].wrapping_add(i as u32);
        }
        let got = dev
            .reduce_cols(add_u32, &low, cols)
            .unwrap()
            .download()
            .unwrap();
        assert_eq!(got, colsum, "reduce_cols cols={cols} {tag}");
    }
    let offsets: Vec<u64> = vec![0, (n / 3) as u64, (n / 2) as u64, n as u64];
    let offs = dev.upload(&offsets).unwrap();
    let got = dev
        .reduce_segments(add_u64, &r, &offs)
        .unwrap()
        .download()
        .unwrap();
    let want: Vec<u64> = offsets
        .windows(2)
        .map(|w| {
            idx[w[0] as usize..w[1] as usize]
                .iter()
                .fold(0u64, |a, &b| a.wrapping_add(b))
        })
        .collect();
    assert_eq!(got, want, "reduce_segments {tag}");
    // Predicates, compaction and histograms of the indices.
    let m = 7u64;
    let kept: Vec<u64> = idx
        .iter()
        .copied()
        .filter(|i| i.is_multiple_of(m))
        .collect();
    let at: Vec<u32> = (0..n as u32)
        .filter(|&k| idx[k as usize].is_multiple_of(m))
        .collect();
    let by = multiple_of.with(m);
    assert_eq!(dev.count(by, &r).unwrap(), kept.len() as u64, "count {tag}");
    assert_eq!(dev.any(by, &r).unwrap(), !kept.is_empty(), "any {tag}");
    assert!(dev.all(multiple_of.with(1), &r).unwrap(), "all {tag}");
    assert_eq!(
        dev.find_first(by, &r).unwrap(),
        at.first().map(|&k| k as usize),
        "find_first {tag}"
    );
    assert_eq!(
        dev.filter(by, &r).unwrap().download().unwrap(),
        kept,
        "filter {tag}"
    );
    assert_eq!(
        dev.argwhere(by, &r).unwrap().download().unwrap(),
        at,
        "argwhere {tag}"
    );
    let mut bins = vec![0u32; 256];
    for &i in &idx {
        bins[(i & 255) as usize] += 1;
    }
    let got = dev.histogram::<u32, _, _>(index_byte, &r, 256).unwrap();
    assert_eq!(got.download().unwrap(), bins, "histogram {tag}");
    // reduce_by_key reads its values beside the keys: a range is refused.
    let keys = dev.upload(&vec![1u32; n]).unwrap();
    assert!(
        matches!(
            dev.reduce_by_key(add_u64, &keys, &r),
            Err(Error::Unsupported(_))
        ),
        "reduce_by_key {tag}"
    );
}
