//! Generated ranges (`Device::range`) as inputs of reductions, scans and axis reductions,
//! against plain Rust over the same indices: one check for both backends.

use warp_runtime::prelude::*;

use crate::scans::running;

use crate::ops::{
    add_index_rows, add_u32, add_u64, gauss_step, index_byte, index_elem_bin, index_multiple_odd,
    index_times, low_word, multiple_of, pi_hit, plus_index, sum_f64, two_indices, x_plus_i_y,
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
    let (inclusive, exclusive) = running(&idx, &[0, n], 0u64, u64::wrapping_add);
    let got = dev.scan(add_u64, &r).unwrap().download().unwrap();
    assert_eq!(got, inclusive, "scan {tag}");
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

/// Every operation a zip of a generated range with arrays feeds on `dev`, over `n` rows, the
/// range from `start` (`u64`) or `start32` (`u32`), against plain Rust over the same indices
/// and random `u32` elements: reductions of a map and of the rows as tuples, a map of the
/// map, a masked map, scans, rows, columns and segments, the predicates, compaction keeping
/// either column, `partition`, `mask`, a histogram and `collect`; the range second, in the
/// middle of three columns, two ranges zipped, and beside a view that starts at an odd
/// element; a range of another length an `Error::Shape`, and `reduce_by_key` refusing it.
pub fn check_zipped_ranges(dev: &Device, n: usize, start: u64, start32: u32, seed: u64) {
    use rand::{Rng, SeedableRng};
    let tag = format!("n={n} start={start} start32={start32} seed={seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let host: Vec<u32> = (0..n + 1).map(|_| rng.random()).collect();
    let host2: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let (all, ys) = (dev.upload(&host).unwrap(), dev.upload(&host2).unwrap());
    // The elements start at 1 of the uploaded array: a view whose vectors are not aligned
    // with the range's rows when n is odd; the whole array's first n elements otherwise.
    let (skip, xs) = match n % 2 {
        1 => (1, all.slice(1..n + 1).unwrap()),
        _ => (0, all.slice(0..n).unwrap()),
    };
    let x = &host[skip..skip + n];
    let idx: Vec<u64> = (0..n as u64).map(|i| start.wrapping_add(i)).collect();
    let r = dev.range(start..start + n as u64);
    let z = (&r, &xs);
    let prods: Vec<u64> = idx
        .iter()
        .zip(x)
        .map(|(&i, &x)| i.wrapping_mul(x as u64))
        .collect();
    let sum = |v: &[u64]| v.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    // Reductions: of the map, of the rows as tuples, on the device, a map of the map, masked.
    let mapped = z.map(index_times);
    assert_eq!(
        dev.reduce(add_u64, &mapped).unwrap(),
        sum(&prods),
        "reduce {tag}"
    );
    let rows = (sum(&idx), x.iter().fold(0u32, |a, &b| a.wrapping_add(b)));
    assert_eq!(dev.reduce(add_index_rows, &z).unwrap(), rows, "rows {tag}");
    let on = dev.reduce_on_device(add_u64, &mapped).unwrap();
    assert_eq!(on.get().unwrap(), sum(&prods), "reduce_on_device {tag}");
    let low = prods.iter().fold(0u32, |a, &p| a.wrapping_add(p as u32));
    assert_eq!(
        dev.reduce(add_u32, &mapped.map(low_word)).unwrap(),
        low,
        "map of a map {tag}"
    );
    let sevens: Vec<u64> = prods.iter().copied().filter(|p| p % 7 == 0).collect();
    assert_eq!(
        dev.reduce(add_u64, &mapped.filter(multiple_of.with(7)))
            .unwrap(),
        sum(&sevens),
        "masked {tag}"
    );
    // Scans, rows, columns and segments of the map.
    let (inclusive, _) = running(&prods, &[0, n], 0u64, u64::wrapping_add);
    let got = dev.scan(add_u64, &mapped).unwrap().download().unwrap();
    assert_eq!(got, inclusive, "scan {tag}");
    for cols in [1usize, 3, 33, 1000] {
        if n == 0 || !n.is_multiple_of(cols) {
            continue;
        }
        let want: Vec<u64> = prods.chunks(cols).map(sum).collect();
        let got = dev.reduce_rows(add_u64, &mapped, cols).unwrap();
        assert_eq!(
            got.download().unwrap(),
            want,
            "reduce_rows cols={cols} {tag}"
        );
        let mut want = vec![0u64; cols];
        for (k, &p) in prods.iter().enumerate() {
            want[k % cols] = want[k % cols].wrapping_add(p);
        }
        let got = dev.reduce_cols(add_u64, &mapped, cols).unwrap();
        assert_eq!(
            got.download().unwrap(),
            want,
            "reduce_cols cols={cols} {tag}"
        );
    }
    let offsets: Vec<u64> = vec![0, (n / 3) as u64, (n / 2) as u64, n as u64];
    let offs = dev.upload(&offsets).unwrap();
    let want: Vec<u64> = offsets
        .windows(2)
        .map(|w| sum(&prods[w[0] as usize..w[1] as usize]))
        .collect();
    let got = dev.reduce_segments(add_u64, &mapped, &offs).unwrap();
    assert_eq!(got.download().unwrap(), want, "reduce_segments {tag}");
    // Predicates and compaction of the rows, keeping either column.
    let p = index_multiple_odd.with(3);
    let ok = |k: usize| idx[k].is_multiple_of(3) && x[k] & 1 == 1;
    let at: Vec<u32> = (0..n as u32).filter(|&k| ok(k as usize)).collect();
    assert_eq!(dev.count(p, &z).unwrap(), at.len() as u64, "count {tag}");
    assert_eq!(dev.any(p, &z).unwrap(), !at.is_empty(), "any {tag}");
    assert_eq!(dev.all(p, &z).unwrap(), at.len() == n, "all {tag}");
    assert_eq!(
        dev.find_first(p, &z).unwrap(),
        at.first().map(|&k| k as usize),
        "find_first {tag}"
    );
    let kept_x: Vec<u32> = at.iter().map(|&k| x[k as usize]).collect();
    let kept_i: Vec<u64> = at.iter().map(|&k| idx[k as usize]).collect();
    let got = dev.filter(p, &z.keep::<1>()).unwrap().download().unwrap();
    assert_eq!(got, kept_x, "filter keep 1 {tag}");
    let got = dev.filter(p, &z.keep::<0>()).unwrap().download().unwrap();
    assert_eq!(got, kept_i, "filter keep 0 (the generated column) {tag}");
    let got = dev.argwhere(p, &z).unwrap().download().unwrap();
    assert_eq!(got, at, "argwhere {tag}");
    let (yes, no) = dev.partition(p, &z.keep::<1>()).unwrap();
    let rejected: Vec<u32> = (0..n).filter(|&k| !ok(k)).map(|k| x[k]).collect();
    assert_eq!(yes.download().unwrap(), kept_x, "partition kept {tag}");
    assert_eq!(no.download().unwrap(), rejected, "partition rejected {tag}");
    let mask = dev.mask(p, &z).unwrap().download().unwrap();
    for k in 0..n {
        assert_eq!(mask[k / 32] >> (k % 32) & 1 == 1, ok(k), "mask {k} {tag}");
    }
    // A histogram of the rows and the mapped rows written out.
    let mut bins = vec![0u32; 256];
    for (&i, &x) in idx.iter().zip(x) {
        bins[((i ^ x as u64) & 255) as usize] += 1;
    }
    let got = dev.histogram::<u32, _, _>(index_elem_bin, &z, 256).unwrap();
    assert_eq!(got.download().unwrap(), bins, "histogram {tag}");
    let got = dev.collect(&mapped).unwrap().download().unwrap();
    assert_eq!(got, prods, "collect {tag}");
    // The range second (u32), in the middle of three columns, and two ranges.
    let end32 = start32.saturating_add(n as u32);
    let r32 = dev.range(start32..end32);
    if r32.len() == n {
        let want = (0..n).fold(0u32, |a, k| {
            a.wrapping_add(x[k].wrapping_add(start32.wrapping_add(k as u32)))
        });
        let got = dev.reduce(add_u32, &(&xs, &r32).map(plus_index)).unwrap();
        assert_eq!(got, want, "range second {tag}");
    }
    let want = (0..n).fold(0u64, |a, k| {
        a.wrapping_add((x[k] as u64).wrapping_add(idx[k].wrapping_mul(host2[k] as u64)))
    });
    let got = dev
        .reduce(add_u64, &(&xs, &r, &ys).map(x_plus_i_y))
        .unwrap();
    assert_eq!(got, want, "range in the middle {tag}");
    let r2 = dev.range(7u64..7 + n as u64);
    let want = (0..n).fold(0u64, |a, k| {
        a.wrapping_add(idx[k] ^ (7 + k as u64).wrapping_mul(x[k] as u64))
    });
    let got = dev
        .reduce(add_u64, &(&r, &xs, &r2).map(two_indices))
        .unwrap();
    assert_eq!(got, want, "two ranges {tag}");
    // Stored indices of other values zipped the same way: a module of their own (the key
    // holds the columns' kinds), reading the array where the range's start was.
    let stored: Vec<u64> = (0..n as u64).map(|k| k.wrapping_mul(0x9e37_79b9)).collect();
    let us = dev.upload(&stored).unwrap();
    let want = (0..n).fold(0u64, |a, k| {
        a.wrapping_add(stored[k].wrapping_mul(x[k] as u64))
    });
    let got = dev.reduce(add_u64, &(&us, &xs).map(index_times)).unwrap();
    assert_eq!(got, want, "stored indices after a range {tag}");
    assert_eq!(
        dev.reduce(add_u64, &mapped).unwrap(),
        sum(&prods),
        "a range after stored indices {tag}"
    );
    // A range of another length, and reduce_by_key's values.
    let long = dev.range(start..start + n as u64 + 1);
    assert!(
        matches!(
            dev.reduce(add_u64, &(&long, &xs).map(index_times)),
            Err(Error::Shape(_))
        ),
        "longer range {tag}"
    );
    let keys = dev.upload(&vec![1u32; n]).unwrap();
    assert!(
        matches!(
            dev.reduce_by_key(add_u64, &keys, &mapped),
            Err(Error::Unsupported(_))
        ),
        "reduce_by_key {tag}"
    );
}
