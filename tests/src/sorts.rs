//! The sorts' checks on any device: every sorting operation of a view, and of the rows of a
//! matrix or of CSR segments, against plain Rust ([`sorted_positions`]: `slice::sort_by` with `cmp` /
//! `total_cmp`), the sorts by a comparator against `slice::sort_by`; and the top-k of each row ([`sorted_k`] of each row).

use warp_runtime::prelude::*;
use warp_runtime::{ArrayOf, DeviceValue, Element, Ordered, Predicate};

use crate::ops::{Mixed, Point};
use crate::{Bits, TotalOrder, assert_bits, same_value, sorted_k, sorted_positions};

/// Both orders.
pub const ORDERS: [SortOrder; 2] = [SortOrder::Ascending, SortOrder::Descending];

/// `sort`, `argsort` (u32 and u64), `sort_pairs` (values: `u64`, `u32` and `u8` tags) of
/// `xs[off..]` (a view of an uploaded `xs`) on `dev` against [`sorted_positions`].
pub fn check_sorts<T>(dev: &Device, xs: &[T], off: usize, what: &str)
where
    T: Ordered + TotalOrder + Bits + Send + Sync,
{
    let all = dev.upload(xs).unwrap();
    let keys = all.slice(off..).unwrap();
    let xs = &xs[off..];
    let n = xs.len();
    let tags: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
        .collect();
    let small: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
    let (tags_d, small_d) = (dev.upload(&tags).unwrap(), dev.upload(&small).unwrap());
    let words: Vec<u32> = tags.iter().map(|&t| (t >> 17) as u32).collect();
    let words_d = dev.upload(&words).unwrap();
    for order in ORDERS {
        let tag = format!("{what} n={n} off={off} {order:?}");
        let want = sorted_positions(xs, order == SortOrder::Descending);
        let want_keys: Vec<T> = want.iter().map(|&i| xs[i]).collect();
        let got = dev.sort(&keys, order).unwrap().download().unwrap();
        assert_bits(&got, &want_keys, &format!("sort: {tag}"));
        let idx = dev.argsort(&keys, order).unwrap().download().unwrap();
        let want_idx: Vec<u32> = want.iter().map(|&i| i as u32).collect();
        assert_eq!(idx, want_idx, "argsort: {tag}");
        let mut wide = dev.upload(&vec![u64::MAX; n]).unwrap();
        dev.argsort_into(&keys, &mut wide, order).unwrap();
        let want_wide: Vec<u64> = want.iter().map(|&i| i as u64).collect();
        assert_eq!(
            wide.download().unwrap(),
            want_wide,
            "argsort into u64: {tag}"
        );
        // u64, u8 and u32 values (the u32 values, with 4-byte keys, staged in shared memory on
        // an H100 or H200).
        check_pairs(dev, &keys, &tags, &tags_d, &want, &want_keys, order, &tag);
        check_pairs(dev, &keys, &small, &small_d, &want, &want_keys, order, &tag);
        check_pairs(dev, &keys, &words, &words_d, &want, &want_keys, order, &tag);
        // Zipped values: rows of (u8, u64) (padded: the u64 field at offset 8) and of four
        // arrays, the keys too.
        let (k, rows) = dev.sort_pairs(&keys, &(&small_d, &tags_d), order).unwrap();
        assert_bits(
            &k.download().unwrap(),
            &want_keys,
            &format!("zipped pairs' keys: {tag}"),
        );
        let want_rows: Vec<(u8, u64)> = want.iter().map(|&i| (small[i], tags[i])).collect();
        assert!(
            rows.download().unwrap() == want_rows,
            "pairs' (u8, u64) rows: {tag}"
        );
        let halves: Vec<u16> = tags.iter().map(|&t| (t >> 7) as u16).collect();
        let halves_d = dev.upload(&halves).unwrap();
        let four = (&halves_d, &small_d, &tags_d, &halves_d);
        let want4: Vec<(u16, u8, u64, u16)> = want
            .iter()
            .map(|&i| (halves[i], small[i], tags[i], halves[i]))
            .collect();
        let (_, rows4) = dev.sort_pairs(&keys, &four, order).unwrap();
        assert!(
            rows4.download().unwrap() == want4,
            "pairs' four-array rows: {tag}"
        );
        // `_into` over outputs filled with other values, every one of which it must overwrite.
        let mut k4 = dev.upload(&vec![T::default(); n]).unwrap();
        let mut rows4 = dev
            .upload_values(&vec![(u16::MAX, u8::MAX, u64::MAX, u16::MAX); n])
            .unwrap();
        dev.sort_pairs_into(&keys, &four, &mut k4, &mut rows4, order)
            .unwrap();
        assert!(
            rows4.download().unwrap() == want4,
            "pairs_into four-array rows: {tag}"
        );
        assert_bits(
            &k4.download().unwrap(),
            &want_keys,
            &format!("zipped pairs_into keys: {tag}"),
        );
    }
}

/// `sort_pairs` of `keys` with the values `vals` (`host` on the host) in `order`, against the
/// keys' plain order `want` (positions; `want_keys`: the keys at them).
#[allow(clippy::too_many_arguments)]
fn check_pairs<T, V>(
    dev: &Device,
    keys: &DeviceView<'_, T>,
    host: &[V],
    vals: &DeviceVec<V>,
    want: &[usize],
    want_keys: &[T],
    order: SortOrder,
    tag: &str,
) where
    T: Ordered + Bits,
    V: Element + warp_runtime::SortValue<Array = DeviceVec<V>> + PartialEq + std::fmt::Debug,
{
    let value = std::any::type_name::<V>();
    let (k, v) = dev.sort_pairs(keys, vals, order).unwrap();
    assert_bits(
        &k.download().unwrap(),
        want_keys,
        &format!("pairs' keys, {value} values: {tag}"),
    );
    let want_vals: Vec<V> = want.iter().map(|&i| host[i]).collect();
    assert_eq!(
        v.download().unwrap(),
        want_vals,
        "pairs' {value} values: {tag}"
    );
}

/// `sort_rows` and `argsort_rows` (and their `_into` forms) of the row-major `xs` (`cols`
/// columns) on `dev`, both orders, against [`sorted_positions`] of each row.
pub fn check_sort_rows<T>(dev: &Device, xs: &[T], cols: usize, what: &str)
where
    T: Ordered + TotalOrder + Bits + Send + Sync,
{
    use rayon::prelude::*;
    let keys = dev.upload(xs).unwrap();
    for order in ORDERS {
        let tag = format!("{what} {} rows of {cols} {order:?}", xs.len() / cols);
        let want: Vec<u32> = xs
            .par_chunks(cols)
            .flat_map_iter(|row| {
                sorted_positions(row, order == SortOrder::Descending)
                    .into_iter()
                    .map(|c| c as u32)
            })
            .collect();
        let want_keys: Vec<T> = want
            .iter()
            .enumerate()
            .map(|(i, &c)| xs[i / cols * cols + c as usize])
            .collect();
        let got = dev
            .sort_rows(&keys, cols, order)
            .unwrap()
            .download()
            .unwrap();
        assert_bits(&got, &want_keys, &format!("sort_rows: {tag}"));
        let idx = dev.argsort_rows(&keys, cols, order).unwrap();
        assert_eq!(idx.download().unwrap(), want, "argsort_rows: {tag}");
        let mut out = dev.upload(xs).unwrap();
        dev.sort_rows_into(&keys, cols, &mut out, order).unwrap();
        assert_bits(
            &out.download().unwrap(),
            &want_keys,
            &format!("sort_rows_into: {tag}"),
        );
        let mut out = dev.upload(&vec![u32::MAX; xs.len()]).unwrap();
        dev.argsort_rows_into(&keys, cols, &mut out, order).unwrap();
        assert_eq!(out.download().unwrap(), want, "argsort_rows_into: {tag}");
        let src: Vec<usize> = (0..xs.len())
            .map(|i| i / cols * cols + want[i] as usize)
            .collect();
        check_group_pairs::<T, u64>(dev, &src, &want_keys, &tag, |tags| {
            dev.sort_pairs_rows(&keys, tags, cols, order).unwrap()
        });
        check_group_pairs::<T, u8>(dev, &src, &want_keys, &tag, |tags| {
            let mut k = dev.upload(xs).unwrap();
            let mut v = dev.upload(&vec![0u8; xs.len()]).unwrap();
            dev.sort_pairs_rows_into(&keys, tags, cols, &mut k, &mut v, order)
                .unwrap();
            (k, v)
        });
    }
}

/// `sort_segments` and `argsort_segments` (and their `_into` forms) of `xs` cut by the CSR
/// `offsets` (from 0 to `xs.len()`) on `dev`, both orders, against [`sorted_positions`] of
/// each segment.
pub fn check_sort_segments<T>(dev: &Device, xs: &[T], offsets: &[u64], what: &str)
where
    T: Ordered + TotalOrder + Bits + Send + Sync,
{
    let keys = dev.upload(xs).unwrap();
    let offs = dev.upload(offsets).unwrap();
    for order in ORDERS {
        let tag = format!(
            "{what} {} keys in {} segments {order:?}",
            xs.len(),
            offsets.len() - 1
        );
        let mut want = Vec::with_capacity(xs.len());
        let mut want_keys = Vec::with_capacity(xs.len());
        for w in offsets.windows(2) {
            let seg = &xs[w[0] as usize..w[1] as usize];
            for c in sorted_positions(seg, order == SortOrder::Descending) {
                want.push(c as u32);
                want_keys.push(seg[c]);
            }
        }
        let got = dev.sort_segments(&keys, &offs, order).unwrap();
        assert_bits(
            &got.download().unwrap(),
            &want_keys,
            &format!("sort_segments: {tag}"),
        );
        let idx = dev.argsort_segments(&keys, &offs, order).unwrap();
        assert_eq!(idx.download().unwrap(), want, "argsort_segments: {tag}");
        let mut out = dev.upload(xs).unwrap();
        dev.sort_segments_into(&keys, &offs, &mut out, order)
            .unwrap();
        assert_bits(
            &out.download().unwrap(),
            &want_keys,
            &format!("sort_segments_into: {tag}"),
        );
        let mut out = dev.upload(&vec![u32::MAX; xs.len()]).unwrap();
        dev.argsort_segments_into(&keys, &offs, &mut out, order)
            .unwrap();
        assert_eq!(
            out.download().unwrap(),
            want,
            "argsort_segments_into: {tag}"
        );
        let mut src = Vec::with_capacity(xs.len());
        for w in offsets.windows(2) {
            src.extend((w[0]..w[1]).map(|i| w[0] as usize + want[i as usize] as usize));
        }
        check_group_pairs::<T, u64>(dev, &src, &want_keys, &tag, |tags| {
            dev.sort_pairs_segments(&keys, tags, &offs, order).unwrap()
        });
        check_group_pairs::<T, u8>(dev, &src, &want_keys, &tag, |tags| {
            let mut k = dev.upload(xs).unwrap();
            let mut v = dev.upload(&vec![0u8; xs.len()]).unwrap();
            dev.sort_pairs_segments_into(&keys, tags, &offs, &mut k, &mut v, order)
                .unwrap();
            (k, v)
        });
    }
}

/// `sort_by` and `argsort_by` (and their `_into` forms) of `xs` by `less` on `dev` against
/// `slice::sort_by` (stable) with the order `less` gives.
pub fn check_sort_by<K, L>(dev: &Device, xs: &[K], less: L, what: &str)
where
    K: Element + Bits + Send + Sync,
    L: Predicate<Input = (K, K)>,
    (K, K): DeviceValue,
{
    let keys = dev.upload(xs).unwrap();
    let (want_keys, want_pos) = stable_order(xs, &less);
    let tag = format!("{what} n={}", xs.len());
    let got = dev
        .sort_by(less.clone(), &keys)
        .unwrap()
        .download()
        .unwrap();
    assert_bits(&got, &want_keys, &format!("sort_by: {tag}"));
    let pos = dev.argsort_by(less.clone(), &keys).unwrap();
    assert_eq!(pos.download().unwrap(), want_pos, "argsort_by: {tag}");
    let mut out = dev.upload(xs).unwrap();
    dev.sort_by_into(less.clone(), &keys, &mut out).unwrap();
    assert_bits(
        &out.download().unwrap(),
        &want_keys,
        &format!("sort_by_into: {tag}"),
    );
    let mut out = dev.upload(&vec![u32::MAX; xs.len()]).unwrap();
    dev.argsort_by_into(less, &keys, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), want_pos, "argsort_by_into: {tag}");
}

/// A pairs' sort of groups on `dev` (`sort`, given tags as values) against the source place
/// of each output (`src`) and the sorted keys.
fn check_group_pairs<T, V>(
    dev: &Device,
    src: &[usize],
    want_keys: &[T],
    tag: &str,
    sort: impl FnOnce(&DeviceVec<V>) -> (DeviceVec<T>, DeviceVec<V>),
) where
    T: Element + Bits,
    V: Element + TagValue,
{
    let tags: Vec<V> = (0..src.len()).map(V::tag).collect();
    let (k, v) = sort(&dev.upload(&tags).unwrap());
    assert_bits(
        &k.download().unwrap(),
        want_keys,
        &format!("pairs' keys: {tag}"),
    );
    let want: Vec<V> = src.iter().map(|&i| tags[i]).collect();
    assert!(v.download().unwrap() == want, "pairs' values: {tag}");
}

/// A value made from a place, for the pairs' checks.
pub trait TagValue: Copy + PartialEq {
    /// The value of place `i`.
    fn tag(i: usize) -> Self;
}

impl TagValue for u64 {
    fn tag(i: usize) -> Self {
        (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
    }
}

impl TagValue for u8 {
    fn tag(i: usize) -> Self {
        (i * 7 + 3) as u8
    }
}

/// `lower_bound` and `upper_bound` (`u32`, and `_into` with `u64`) of `queries` in `sorted`
/// (sorted in `order`) on `dev` against `slice::partition_point` by the order words.
pub fn check_search<T>(dev: &Device, sorted: &[T], queries: &[T], order: SortOrder, what: &str)
where
    T: Ordered + Send + Sync,
{
    let desc = order == SortOrder::Descending;
    let word = |x: T| {
        let k = T::sort_key(x);
        if desc { !k } else { k }
    };
    let (lo, hi): (Vec<u32>, Vec<u32>) = queries
        .iter()
        .map(|&q| {
            let w = word(q);
            (
                sorted.partition_point(|&k| word(k) < w) as u32,
                sorted.partition_point(|&k| word(k) <= w) as u32,
            )
        })
        .unzip();
    let tag = format!("{what} n={} m={} {order:?}", sorted.len(), queries.len());
    let (s, q) = (dev.upload(sorted).unwrap(), dev.upload(queries).unwrap());
    let got = dev.lower_bound(&s, &q, order).unwrap().download().unwrap();
    assert_eq!(got, lo, "lower_bound: {tag}");
    let got = dev.upper_bound(&s, &q, order).unwrap().download().unwrap();
    assert_eq!(got, hi, "upper_bound: {tag}");
    let mut wide = dev.upload(&vec![u64::MAX; queries.len()]).unwrap();
    dev.lower_bound_into(&s, &q, &mut wide, order).unwrap();
    let want: Vec<u64> = lo.iter().map(|&x| x as u64).collect();
    assert_eq!(
        wide.download().unwrap(),
        want,
        "lower_bound_into u64: {tag}"
    );
    dev.upper_bound_into(&s, &q, &mut wide, order).unwrap();
    let want: Vec<u64> = hi.iter().map(|&x| x as u64).collect();
    assert_eq!(
        wide.download().unwrap(),
        want,
        "upper_bound_into u64: {tag}"
    );
}

/// CSR offsets of segments of random lengths drawn from `lengths` (by `seed`), covering `n`
/// keys, with empty segments among them.
pub fn random_offsets(seed: u64, n: usize, lengths: &[usize]) -> Vec<u64> {
    let mut o = vec![0u64];
    let mut at = 0usize;
    let mut h = seed | 1;
    while at < n {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        let len = lengths[(h % lengths.len() as u64) as usize].min(n - at);
        at += len;
        o.push(at as u64);
    }
    o
}

/// `top_k_rows` and `bottom_k_rows` of the row-major `xs` (`cols` columns) on `dev` against
/// [`sorted_k`] of each row: the columns exactly, the values as the same values (NaN equal to
/// NaN).
pub fn check_top_k_rows<T>(dev: &Device, xs: &[T], cols: usize, k: usize, what: &str)
where
    T: Ordered + PartialOrd + Send + Sync,
{
    use rayon::prelude::*;
    let x = dev.upload(xs).unwrap();
    for largest in [true, false] {
        let tag = format!(
            "{what} {} rows of {cols} k={k} largest={largest}",
            xs.len() / cols
        );
        let got = if largest {
            dev.top_k_rows(&x, cols, k).unwrap()
        } else {
            dev.bottom_k_rows(&x, cols, k).unwrap()
        };
        let (values, columns) = (
            got.values.download().unwrap(),
            got.columns.download().unwrap(),
        );
        let want: Vec<(T, u64)> = xs
            .par_chunks(cols)
            .flat_map_iter(|row| sorted_k(row, k, largest))
            .collect();
        let want_cols: Vec<u32> = want.iter().map(|w| w.1 as u32).collect();
        assert_eq!(columns, want_cols, "top_k_rows columns: {tag}");
        for (i, (v, w)) in values.iter().zip(&want).enumerate() {
            assert!(
                same_value(v, &w.0),
                "top_k_rows value {i}: {v:?} vs {:?}: {tag}",
                w.0
            );
        }
    }
}

/// `top_k_axis` and `bottom_k_axis` of `xs` (row-major, `shape`) along `axis` on `dev`
/// against [`sorted_k`] of each line, placed where the line's entries go in the result (the
/// shape with `shape[axis]` replaced by `k`): the positions exactly, the values as the same
/// values (NaN equal to NaN).
pub fn check_top_k_axis<T>(
    dev: &Device,
    xs: &[T],
    shape: &[usize],
    axis: usize,
    k: usize,
    what: &str,
) where
    T: Ordered + PartialOrd + Send + Sync,
{
    let x = dev.upload(xs).unwrap();
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    for largest in [true, false] {
        let tag = format!("{what} shape {shape:?} axis {axis} k={k} largest={largest}");
        let got = if largest {
            dev.top_k_axis(&x, shape, axis, k).unwrap()
        } else {
            dev.bottom_k_axis(&x, shape, axis, k).unwrap()
        };
        let (values, columns) = (
            got.values.download().unwrap(),
            got.columns.download().unwrap(),
        );
        assert_eq!(values.len(), outer * k * inner, "top_k_axis length: {tag}");
        assert_eq!(columns.len(), outer * k * inner, "top_k_axis length: {tag}");
        for o in 0..outer {
            for i in 0..inner {
                let line: Vec<T> = (0..n).map(|j| xs[(o * n + j) * inner + i]).collect();
                for (j, (v, c)) in sorted_k(&line, k, largest).into_iter().enumerate() {
                    let at = (o * k + j) * inner + i;
                    assert_eq!(
                        columns[at] as u64, c,
                        "top_k_axis position {at} (line {o}, {i}; entry {j}): {tag}"
                    );
                    assert!(
                        same_value(&values[at], &v),
                        "top_k_axis value {at}: {:?} vs {v:?}: {tag}",
                        values[at]
                    );
                }
            }
        }
    }
}

/// `sort_by` and `argsort_by` (and their `_into` forms) of the tuples or structs `xs` (a
/// [`DeviceTuples`] on `dev`) by `less` against `slice::sort_by` (stable) with the order
/// `less` gives; the `_into` outputs start as other values, so that each must be written.
pub fn check_sort_values_by<K, L>(dev: &Device, xs: &[K], less: L, what: &str)
where
    K: DeviceValue + ArrayOf<Array = DeviceTuples<K>>,
    L: Predicate<Input = (K, K)>,
{
    let keys = dev.upload_values(xs).unwrap();
    let (want_keys, want_pos) = stable_order(xs, &less);
    let tag = format!("{what} n={}", xs.len());
    let got = dev.sort_by(less.clone(), &keys).unwrap();
    assert_eq!(got.len(), xs.len(), "sort_by length: {tag}");
    same_values(
        &got.download().unwrap(),
        &want_keys,
        &format!("sort_by: {tag}"),
    );
    let pos = dev.argsort_by(less.clone(), &keys).unwrap();
    assert_eq!(pos.download().unwrap(), want_pos, "argsort_by: {tag}");
    let mut other: Vec<K> = xs.to_vec();
    other.reverse();
    let mut out = dev.upload_values(&other).unwrap();
    dev.sort_by_into(less.clone(), &keys, &mut out).unwrap();
    same_values(
        &out.download().unwrap(),
        &want_keys,
        &format!("sort_by_into: {tag}"),
    );
    let mut out = dev.upload(&vec![u32::MAX; xs.len()]).unwrap();
    dev.argsort_by_into(less, &keys, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), want_pos, "argsort_by_into: {tag}");
}

/// Panics at the first value of `got` that differs from `want` (or at differing lengths).
fn same_values<K: PartialEq + std::fmt::Debug>(got: &[K], want: &[K], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}: value {i} is {:?}, expected {:?}", got[i], want[i]);
    }
}

/// A tuple of 24 C bytes (padding after its first and last fields): what `tag_below` orders.
pub type Tagged = (u16, f64, u8);

/// Random values for the comparator sorts of whole values: points on an integer grid (many at
/// one radius), tuples of (a tag with many ties, a value, a byte) and [`Mixed`] structs with
/// values of few distinct magnitudes; `n` of each.
pub fn sort_values(seed: u64, n: usize) -> (Vec<Point>, Vec<Tagged>, Vec<Mixed>) {
    use rand::Rng;
    let mut r = crate::rng(seed);
    let points = (0..n)
        .map(|_| Point {
            x: r.random_range(-20i32..=20) as f32,
            y: r.random_range(-20i32..=20) as f32,
        })
        .collect();
    let tuples = (0..n)
        .map(|_| (r.random::<u16>(), r.random::<f64>(), r.random::<u8>()))
        .collect();
    let mixed = (0..n)
        .map(|_| Mixed {
            flag: r.random(),
            value: r.random_range(-50i32..50) as f64 * 0.25,
            tag: r.random(),
            h: f16::from_f32(r.random_range(-4.0f32..4.0)),
            n: r.random(),
        })
        .collect();
    (points, tuples, mixed)
}

/// `n` random [`Wide`](crate::ops::Wide) values from `seed`, their order fields small integers
/// (many ties), every field distinct enough to tell a moved value from another.
pub fn wide_values(seed: u64, n: usize) -> Vec<crate::ops::Wide> {
    use rand::Rng;
    let mut r = crate::rng(seed);
    (0..n)
        .map(|i| {
            let p = i as f64;
            crate::ops::Wide {
                a: r.random_range(-8i32..8) as f64,
                b: p,
                c: -p,
                d: r.random(),
                e: r.random(),
                f: r.random(),
                g: r.random(),
                h: r.random_range(-8i32..8) as f64,
            }
        })
        .collect()
}

/// `lower_bound_by` and `upper_bound_by` (and their `_into` forms) of the queries `qs` in the
/// keys `keys` (sorted by `less`), uploaded to `dev` as `sorted` and `queries`, against
/// `partition_point` with `less`.
pub fn check_search_by<K, L, S, Q>(
    dev: &Device,
    (keys, qs): (&[K], &[K]),
    less: L,
    (sorted, queries): (&S, &Q),
    what: &str,
) where
    K: DeviceValue,
    L: Predicate<Input = (K, K)>,
    S: warp_runtime::SortByInput<K>,
    Q: warp_runtime::SortByInput<K>,
{
    let tag = format!("{what} n={} m={}", keys.len(), qs.len());
    let lower: Vec<u32> = qs
        .iter()
        .map(|&q| keys.partition_point(|&k| less.test((k, q))) as u32)
        .collect();
    let upper: Vec<u32> = qs
        .iter()
        .map(|&q| keys.partition_point(|&k| !less.test((q, k))) as u32)
        .collect();
    let got = dev.lower_bound_by(less.clone(), sorted, queries).unwrap();
    same_values(
        &got.download().unwrap(),
        &lower,
        &format!("lower_bound_by: {tag}"),
    );
    let got = dev.upper_bound_by(less.clone(), sorted, queries).unwrap();
    same_values(
        &got.download().unwrap(),
        &upper,
        &format!("upper_bound_by: {tag}"),
    );
    let mut out = dev.upload(&vec![u32::MAX; qs.len()]).unwrap();
    dev.lower_bound_by_into(less.clone(), sorted, queries, &mut out)
        .unwrap();
    same_values(
        &out.download().unwrap(),
        &lower,
        &format!("lower_bound_by_into: {tag}"),
    );
    dev.upper_bound_by_into(less, sorted, queries, &mut out)
        .unwrap();
    same_values(
        &out.download().unwrap(),
        &upper,
        &format!("upper_bound_by_into: {tag}"),
    );
}

/// The comparator searches on `dev` at `n` keys: f32 by magnitude and u32 residues (bound
/// argument; many equal keys) in arrays, points by radius in a `DeviceTuples`; queries both
/// drawn from the keys and not, with more queries than keys and fewer.
pub fn check_searches_by(dev: &Device, n: usize, seed: u64) {
    use crate::ops::{nearer_origin, nearer_zero, residue_below};
    let sorted_by = |xs: &mut Vec<f32>| xs.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let mut keys: Vec<f32> = crate::random_vec_par::<f32>(seed, n, false)
        .into_iter()
        .map(|x| (x * 64.0).round())
        .collect();
    sorted_by(&mut keys);
    let qs: Vec<f32> = crate::random_vec_par::<f32>(seed ^ 1, 2 * n + 3, false)
        .into_iter()
        .map(|x| (x * 80.0).round())
        .collect();
    let (dk, dq) = (dev.upload(&keys).unwrap(), dev.upload(&qs).unwrap());
    check_search_by(
        dev,
        (&keys, &qs),
        nearer_zero,
        (&dk, &dq),
        "f32 by magnitude",
    );
    let mut keys: Vec<u32> = crate::random_vec_par(seed ^ 2, n, false);
    keys.sort_by_key(|k| k % 7);
    let qs: Vec<u32> = crate::random_vec_par(seed ^ 3, n / 3 + 1, false);
    let (dk, dq) = (dev.upload(&keys).unwrap(), dev.upload(&qs).unwrap());
    let by = residue_below.with(7);
    check_search_by(dev, (&keys, &qs), by, (&dk, &dq), "u32 mod 7");
    let (mut points, ..) = sort_values(seed ^ 4, n);
    let radius = |p: &Point| p.x * p.x + p.y * p.y;
    points.sort_by(|a, b| radius(a).total_cmp(&radius(b)));
    let (qs, ..) = sort_values(seed ^ 5, n + 7);
    let (dk, dq) = (
        dev.upload_values(&points).unwrap(),
        dev.upload_values(&qs).unwrap(),
    );
    check_search_by(
        dev,
        (&points, &qs),
        nearer_origin,
        (&dk, &dq),
        "points by radius",
    );
}

/// `xs` sorted stably by `less` (`slice::sort_by` with the order it gives), with the input
/// position of each.
fn stable_order<K: Copy, L: Predicate<Input = (K, K)>>(xs: &[K], less: &L) -> (Vec<K>, Vec<u32>) {
    use std::cmp::Ordering;
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&i, &j| {
        if less.test((xs[i], xs[j])) {
            Ordering::Less
        } else if less.test((xs[j], xs[i])) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    });
    (
        order.iter().map(|&i| xs[i]).collect(),
        order.iter().map(|&i| i as u32).collect(),
    )
}
