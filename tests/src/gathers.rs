//! Gathers (`xs.gather(&idx)`) as inputs of reductions, scans, axis reductions, predicates,
//! compaction and histograms, against plain Rust over the gathered elements, and indices out
//! of range reported by each: one check for both backends.

use rand::{Rng, SeedableRng, rngs::StdRng};
use warp_runtime::ElementInput;
use warp_runtime::prelude::*;

use crate::ops::{add_u32, add_u64, index_byte, low_word, multiple_of, sum_f32};

/// Every operation a gather feeds on `dev`: `u64` values (`values` of them, random) read
/// through `n` random `u32` and `u64` indices (repeats, any order; `sorted` ascending),
/// against plain Rust: sums (exact), `reduce_on_device`, a map, `f32` sums, scans, row, column
/// and segment sums, `count`, `any`, `all`, `find_first`, `filter`, `argwhere`, `partition`,
/// a histogram; `reduce_by_key` refuses a gather.
pub fn check_gathers(dev: &Device, values: usize, n: usize, sorted: bool, seed: u64) {
    let tag = format!("values={values} n={n} sorted={sorted} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let xs_host: Vec<u64> = (0..values).map(|_| rng.random()).collect();
    let mut idx_host: Vec<u32> = if values == 0 {
        Vec::new()
    } else {
        (0..n).map(|_| rng.random_range(0..values as u32)).collect()
    };
    if sorted {
        idx_host.sort_unstable();
    }
    let n = idx_host.len();
    let g: Vec<u64> = idx_host.iter().map(|&i| xs_host[i as usize]).collect();
    let xs = dev.upload(&xs_host).unwrap();
    let idx = dev.upload(&idx_host).unwrap();
    let idx64 = dev
        .upload(&idx_host.iter().map(|&i| i as u64).collect::<Vec<_>>())
        .unwrap();
    let gx = xs.gather(&idx);
    assert_eq!(gx.len(), n);
    let want = g.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    assert_eq!(dev.reduce(add_u64, &gx).unwrap(), want, "sum {tag}");
    assert_eq!(
        dev.reduce(add_u64, &xs.gather(&idx64)).unwrap(),
        want,
        "sum u64 indices {tag}"
    );
    // f32 values through a view: integers (`small_int_f32`), so the sum is exact in any
    // order and one wrong element changes it.
    let fs_host = small_int_f32(&xs_host);
    let fs = dev.upload(&fs_host).unwrap();
    let view = fs.slice(..).unwrap();
    let fsum: f64 = idx_host.iter().map(|&i| fs_host[i as usize] as f64).sum();
    let got = dev.reduce(sum_f32, &view.gather(&idx)).unwrap();
    assert_eq!(got as f64, fsum, "f32 sum {tag}");
    check_every_op(dev, &gx, &gx.map(low_word), &g, &tag);
}

/// `f32` integers in [-512, 512) from the top bits of `xs`: the partial sums of a few million
/// of them in any order (a random walk) stay far below 2^24, where `f32` integers are exact,
/// so their sums are exact whatever the reduction's order.
pub fn small_int_f32(xs: &[u64]) -> Vec<f32> {
    xs.iter().map(|&v| (v >> 54) as f32 - 512.0).collect()
}

/// Every operation that takes elements, over `input` whose elements are `g` (and `low`, its
/// map to the low words), against plain Rust: sums (exact), `reduce_on_device`, a map, scans,
/// row, column and segment sums, `count`, `any`, `all`, `find_first`, `filter`, `argwhere`,
/// `partition`, a histogram; `reduce_by_key` refuses it (its values are read beside the keys).
pub fn check_every_op<I, L>(dev: &Device, input: &I, low_input: &L, g: &[u64], tag: &str)
where
    I: ElementInput<Value = u64, Kept = u64> + ?Sized,
    L: ElementInput<Value = u32, Kept = u32> + ?Sized,
{
    let (gx, lw, n) = (input, low_input, g.len());
    let want = g.iter().fold(0u64, |a, &b| a.wrapping_add(b));
    assert_eq!(dev.reduce(add_u64, gx).unwrap(), want, "sum {tag}");
    let on = dev.reduce_on_device(add_u64, gx).unwrap();
    assert_eq!(on.get().unwrap(), want, "reduce_on_device {tag}");
    let low: Vec<u32> = g.iter().map(|&v| v as u32).collect();
    let want32 = low.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    assert_eq!(dev.reduce(add_u32, lw).unwrap(), want32, "mapped sum {tag}");
    // Scans.
    let mut acc = 0u64;
    let inclusive: Vec<u64> = g
        .iter()
        .map(|&v| {
            acc = acc.wrapping_add(v);
            acc
        })
        .collect();
    assert_eq!(
        dev.scan(add_u64, gx).unwrap().download().unwrap(),
        inclusive,
        "scan {tag}"
    );
    let exclusive: Vec<u64> = (0..n)
        .map(|k| if k == 0 { 0 } else { inclusive[k - 1] })
        .collect();
    assert_eq!(
        dev.exclusive_scan(add_u64, gx).unwrap().download().unwrap(),
        exclusive,
        "exclusive_scan {tag}"
    );
    // Rows and columns of the low words, where `cols` divides n.
    for cols in [1usize, 3, 32, 1000] {
        if n == 0 || !n.is_multiple_of(cols) {
            continue;
        }
        let rows: Vec<u32> = low
            .chunks(cols)
            .map(|c| c.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
            .collect();
        let got = dev.reduce_rows(add_u32, lw, cols).unwrap();
        assert_eq!(got.download().unwrap(), rows, "reduce_rows {cols} {tag}");
        let mut colsum = vec![0u32; cols];
        for (k, &v) in low.iter().enumerate() {
            colsum[k % cols] = colsum[k % cols].wrapping_add(v);
        }
        let got = dev.reduce_cols(add_u32, lw, cols).unwrap();
        assert_eq!(got.download().unwrap(), colsum, "reduce_cols {cols} {tag}");
    }
    let offsets: Vec<u64> = vec![0, (n / 3) as u64, (n / 2) as u64, n as u64];
    let offs = dev.upload(&offsets).unwrap();
    let want: Vec<u64> = offsets
        .windows(2)
        .map(|w| {
            g[w[0] as usize..w[1] as usize]
                .iter()
                .fold(0u64, |a, &b| a.wrapping_add(b))
        })
        .collect();
    let got = dev.reduce_segments(add_u64, gx, &offs).unwrap();
    assert_eq!(got.download().unwrap(), want, "reduce_segments {tag}");
    // Predicates, compaction and histograms.
    let m = 3u64;
    let kept: Vec<u64> = g.iter().copied().filter(|v| v.is_multiple_of(m)).collect();
    let rest: Vec<u64> = g.iter().copied().filter(|v| !v.is_multiple_of(m)).collect();
    let at: Vec<u32> = (0..n as u32)
        .filter(|&k| g[k as usize].is_multiple_of(m))
        .collect();
    let by = multiple_of.with(m);
    assert_eq!(dev.count(by, gx).unwrap(), kept.len() as u64, "count {tag}");
    assert_eq!(dev.any(by, gx).unwrap(), !kept.is_empty(), "any {tag}");
    // Over the map (values of another type than the elements): counted and kept.
    let low_kept: Vec<u32> = low.iter().copied().filter(|v| v % 3 == 0).collect();
    let by32 = crate::ops::u32_multiple_of.with(3);
    assert_eq!(
        dev.count(by32, lw).unwrap(),
        low_kept.len() as u64,
        "count of the map {tag}"
    );
    assert_eq!(
        dev.filter(by32, lw).unwrap().download().unwrap(),
        low_kept,
        "filter of the map {tag}"
    );
    assert!(dev.all(multiple_of.with(1), gx).unwrap(), "all {tag}");
    assert_eq!(
        dev.find_first(by, gx).unwrap(),
        at.first().map(|&k| k as usize),
        "find_first {tag}"
    );
    assert_eq!(
        dev.filter(by, gx).unwrap().download().unwrap(),
        kept,
        "filter {tag}"
    );
    assert_eq!(
        dev.argwhere(by, gx).unwrap().download().unwrap(),
        at,
        "argwhere {tag}"
    );
    let (yes, no) = dev.partition(by, gx).unwrap();
    assert_eq!(yes.download().unwrap(), kept, "partition kept {tag}");
    assert_eq!(no.download().unwrap(), rest, "partition rest {tag}");
    let mut bins = vec![0u32; 256];
    for &v in g {
        bins[(v & 255) as usize] += 1;
    }
    let got = dev.histogram::<u32, _, _>(index_byte, gx, 256).unwrap();
    assert_eq!(got.download().unwrap(), bins, "histogram {tag}");
    // reduce_by_key reads its values beside the keys: a gather is refused.
    let keys = dev.upload(&vec![1u32; n]).unwrap();
    assert!(
        matches!(
            dev.reduce_by_key(add_u64, &keys, gx),
            Err(Error::Unsupported(_))
        ),
        "reduce_by_key {tag}"
    );
}

/// Indices out of range on `dev`: `n` indices into `values` elements, bad ones (at and past
/// the end, `u32::MAX`, and a `u64` above 2^32) at `bad` positions; every operation family
/// reports an [`Error::IndexOutOfRange`] naming the smallest of them, and the device stays
/// usable (the next operation over good indices is right).
pub fn check_bad_indices(dev: &Device, values: usize, n: usize, bad: &[usize]) {
    let tag = format!("values={values} n={n} bad={bad:?}");
    let xs_host: Vec<u64> = (0..values as u64).map(|i| i * 3 + 1).collect();
    let mut idx_host: Vec<u64> = (0..n as u64)
        .map(|i| if values == 0 { 0 } else { i % values as u64 })
        .collect();
    let wrong = [values as u64, values as u64 + 1, u32::MAX as u64, 1 << 33];
    for (k, &p) in bad.iter().enumerate() {
        idx_host[p] = wrong[k % wrong.len()];
    }
    let first = *bad.iter().min().expect("a bad position");
    let xs = dev.upload(&xs_host).unwrap();
    let idx = dev.upload(&idx_host).unwrap();
    let gx = xs.gather(&idx);
    let is_bad = |e: Error, what: &str| match e {
        Error::IndexOutOfRange {
            position,
            index,
            len,
        } => {
            assert_eq!(position, first, "{what} position {tag}");
            assert_eq!(index, idx_host[first], "{what} index {tag}");
            assert_eq!(len, values, "{what} len {tag}");
        }
        other => panic!("{what} {tag}: {other:?}"),
    };
    is_bad(dev.reduce(add_u64, &gx).unwrap_err(), "reduce");
    is_bad(
        dev.reduce_on_device(add_u64, &gx).unwrap_err(),
        "reduce_on_device",
    );
    is_bad(dev.scan(add_u64, &gx).unwrap_err(), "scan");
    is_bad(dev.count(multiple_of.with(2), &gx).unwrap_err(), "count");
    is_bad(dev.any(multiple_of.with(2), &gx).unwrap_err(), "any");
    is_bad(dev.filter(multiple_of.with(2), &gx).unwrap_err(), "filter");
    is_bad(
        dev.histogram::<u32, _, _>(index_byte, &gx, 256)
            .unwrap_err(),
        "histogram",
    );
    if n.is_multiple_of(4) {
        is_bad(
            dev.reduce_rows(add_u32, &gx.map(low_word), 4).unwrap_err(),
            "reduce_rows",
        );
    }
    // u32 indices past the end, too.
    if values < u32::MAX as usize {
        let mut i32_host: Vec<u32> = idx_host.iter().map(|&i| i as u32).collect();
        i32_host[first] = values as u32;
        let idx32 = dev.upload(&i32_host).unwrap();
        match dev.reduce(add_u64, &xs.gather(&idx32)).unwrap_err() {
            Error::IndexOutOfRange {
                position, index, ..
            } => {
                assert_eq!(position, first, "u32 position {tag}");
                assert_eq!(index, values as u64, "u32 index {tag}");
            }
            other => panic!("u32 {tag}: {other:?}"),
        }
    }
    // The fault is the operation's own: the next one over good indices is right.
    if values > 0 {
        let good = dev.upload(&vec![0u32; n]).unwrap();
        assert_eq!(
            dev.reduce(add_u64, &xs.gather(&good)).unwrap(),
            (n as u64).wrapping_mul(xs_host[0]),
            "after a fault {tag}"
        );
    }
}
