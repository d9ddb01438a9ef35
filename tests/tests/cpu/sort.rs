//! The CPU backend's sorts against plain Rust (`slice::sort_by` with `cmp` / `total_cmp`):
//! every key type, both orders, stability, pairs, argsort, the `_into` forms and the errors.

use warp_runtime::prelude::*;
use warp_runtime::{Ordered, half};
use warp_tests::ops::{add_i64, groups, low_byte, magnitude};
use warp_tests::sorts::check_sorts;
use warp_tests::{Bits, Random, TotalOrder, assert_bits, edge_sizes, random_vec_par, seed};

/// The edge sizes (the million-odd one only for `f32`, which the GPU tests take further).
fn every_size<T: Ordered + TotalOrder + Bits + Random + Send + Sync>(what: &str) {
    let dev = Device::cpu();
    for n in edge_sizes(std::mem::size_of::<T>()) {
        if n > 100_000 && what != "f32" {
            continue;
        }
        let xs: Vec<T> = random_vec_par(seed() ^ n as u64, n, true);
        check_sorts(&dev, &xs, 0, what);
    }
}

#[test]
fn cpu_sorts_match_plain_rust_for_every_key_type() {
    every_size::<f32>("f32");
    every_size::<f64>("f64");
    every_size::<half::f16>("f16");
    every_size::<half::bf16>("bf16");
    every_size::<i8>("i8");
    every_size::<i16>("i16");
    every_size::<i32>("i32");
    every_size::<i64>("i64");
    every_size::<u8>("u8");
    every_size::<u16>("u16");
    every_size::<u32>("u32");
    every_size::<u64>("u64");
    every_size::<bool>("bool");
}

#[test]
fn floats_sort_in_total_cmp_order() {
    let dev = Device::cpu();
    let nan = f32::NAN;
    let xs = [
        1.0f32,
        -nan,
        -0.0,
        nan,
        0.0,
        f32::NEG_INFINITY,
        -1.0,
        f32::INFINITY,
    ];
    let got = dev
        .sort(&dev.upload(&xs).unwrap(), SortOrder::Ascending)
        .unwrap();
    let want = [
        -nan,
        f32::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        1.0,
        f32::INFINITY,
        nan,
    ];
    assert_bits(&got.download().unwrap(), &want, "total_cmp order");
    // Descending is the reverse here (no two keys have the same bits).
    let got = dev
        .sort(&dev.upload(&xs).unwrap(), SortOrder::Descending)
        .unwrap();
    let rev: Vec<f32> = want.iter().rev().copied().collect();
    assert_bits(&got.download().unwrap(), &rev, "descending");
}

#[test]
fn descending_keeps_equal_keys_in_input_order() {
    let dev = Device::cpu();
    let keys = dev.upload(&[1u8, 2, 1, 2]).unwrap();
    let idx = dev.argsort(&keys, SortOrder::Descending).unwrap();
    assert_eq!(idx.download().unwrap(), [1, 3, 0, 2]);
}

#[test]
fn sort_errors_and_outputs() {
    let dev = Device::cpu();
    let keys = dev.upload(&[3i32, 1, 2]).unwrap();
    // Output lengths.
    let mut short = dev.upload(&[0i32; 2]).unwrap();
    assert!(matches!(
        dev.sort_into(&keys, &mut short, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    let mut out = dev.upload(&[0i32; 3]).unwrap();
    dev.sort_into(&keys, &mut out, SortOrder::Ascending)
        .unwrap();
    assert_eq!(out.download().unwrap(), [1, 2, 3]);
    // Values of another length.
    let vals = dev.upload(&[1u8, 2]).unwrap();
    assert!(matches!(
        dev.sort_pairs(&keys, &vals, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    // Positions that do not fit the index type.
    let many = dev.upload(&vec![0u16; 300]).unwrap();
    let mut small = dev.upload(&[0u8; 300]).unwrap();
    assert!(matches!(
        dev.argsort_into(&many, &mut small, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    let mut wide = dev.upload(&[0u64; 300]).unwrap();
    dev.argsort_into(&many, &mut wide, SortOrder::Ascending)
        .unwrap();
    assert_eq!(wide.download().unwrap(), (0..300u64).collect::<Vec<_>>());
    let mut i16s = dev.upload(&[0i16; 3]).unwrap();
    dev.argsort_into(&keys, &mut i16s, SortOrder::Descending)
        .unwrap();
    assert_eq!(i16s.download().unwrap(), [0, 2, 1]);
    // Empty input, and a view.
    let empty = dev.upload::<f64>(&[]).unwrap();
    assert!(dev.sort(&empty, SortOrder::Ascending).unwrap().is_empty());
    assert!(
        dev.argsort(&empty, SortOrder::Ascending)
            .unwrap()
            .is_empty()
    );
    let view = keys.slice(1..).unwrap();
    assert_eq!(
        dev.sort(&view, SortOrder::Descending)
            .unwrap()
            .download()
            .unwrap(),
        [2, 1]
    );
}

#[test]
fn sort_by_key_is_slice_sort_by_key() {
    let dev = Device::cpu();
    let xs: Vec<f32> = random_vec_par(seed(), 5000, true);
    let got = dev
        .sort_by_key(magnitude, &dev.upload(&xs).unwrap(), SortOrder::Ascending)
        .unwrap();
    let mut want = xs.clone();
    want.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    assert_bits(&got.download().unwrap(), &want, "by magnitude");
    let us: Vec<u64> = random_vec_par(seed() ^ 1, 5000, false);
    let got = dev
        .sort_by_key(low_byte, &dev.upload(&us).unwrap(), SortOrder::Descending)
        .unwrap();
    let mut want = us.clone();
    want.sort_by_key(|&x| std::cmp::Reverse(x as u8));
    assert_eq!(got.download().unwrap(), want, "by the low byte, descending");
}

/// `unique_counts` and `group_reduce` of unsorted keys against a `BTreeMap`.
#[test]
fn distinct_keys_and_groups_match_a_map() {
    let dev = Device::cpu();
    let keys: Vec<i32> = random_vec_par::<u32>(seed(), 20_000, false)
        .into_iter()
        .map(|k| (k % 300) as i32 - 150)
        .collect();
    let vals: Vec<i64> = random_vec_par(seed() ^ 5, 20_000, false);
    let want = groups(&keys, &vals);
    let (dk, dv) = (dev.upload(&keys).unwrap(), dev.upload(&vals).unwrap());
    let Runs { keys: uk, counts } = dev.unique_counts(&dk).unwrap();
    assert_eq!(
        uk.download().unwrap(),
        want.keys().copied().collect::<Vec<_>>()
    );
    assert_eq!(
        counts.download().unwrap(),
        want.values().map(|e| e.0).collect::<Vec<_>>()
    );
    let ByKey { keys: gk, values } = dev.group_reduce(add_i64, &dk, &dv).unwrap();
    assert_eq!(
        gk.download().unwrap(),
        want.keys().copied().collect::<Vec<_>>()
    );
    assert_eq!(
        values.download().unwrap(),
        want.values().map(|e| e.1).collect::<Vec<_>>()
    );
    let short = dev.upload(&vals[..10]).unwrap();
    assert!(matches!(
        dev.group_reduce(add_i64, &dk, &short),
        Err(Error::Shape(_))
    ));
}

/// Rows of one to a few hundred columns, every key type group, and the rows' shape errors.
#[test]
fn cpu_sort_rows_match_plain_rust() {
    let dev = Device::cpu();
    for (rows, cols) in [(1, 1), (5, 1), (3, 7), (40, 32), (7, 300), (1, 5000)] {
        let xs: Vec<f32> = random_vec_par(seed() ^ cols as u64, rows * cols, true);
        warp_tests::sorts::check_sort_rows(&dev, &xs, cols, "f32");
        let xs: Vec<i64> = random_vec_par(seed() ^ rows as u64, rows * cols, true);
        warp_tests::sorts::check_sort_rows(&dev, &xs, cols, "i64");
        let xs: Vec<u8> = random_vec_par(seed() ^ 7, rows * cols, true);
        warp_tests::sorts::check_sort_rows(&dev, &xs, cols, "u8");
    }
    let xs = dev.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    assert!(matches!(
        dev.sort_rows(&xs, 2, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        dev.argsort_rows(&xs, 0, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    let mut short = dev.upload(&[0u32; 2]).unwrap();
    assert!(matches!(
        dev.argsort_rows_into(&xs, 3, &mut short, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    let empty = dev.upload::<f32>(&[]).unwrap();
    assert!(
        dev.sort_rows(&empty, 4, SortOrder::Ascending)
            .unwrap()
            .is_empty()
    );
}

/// Segments of every length class (empty ones among them) and the offsets' errors.
#[test]
fn cpu_sort_segments_match_plain_rust() {
    use warp_tests::sorts::{check_sort_segments, random_offsets};
    let dev = Device::cpu();
    for (n, lengths) in [
        (0, &[0usize, 1][..]),
        (1, &[0, 1]),
        (100, &[0, 1, 2, 5]),
        (3000, &[0, 7, 100, 700]),
        (20_000, &[1, 2000, 5000]),
    ] {
        let offsets = random_offsets(seed() ^ n as u64, n, lengths);
        let xs: Vec<f32> = random_vec_par(seed() ^ 3, n, true);
        check_sort_segments(&dev, &xs, &offsets, "f32");
        let xs: Vec<i16> = random_vec_par(seed() ^ 5, n, true);
        check_sort_segments(&dev, &xs, &offsets, "i16");
    }
    let xs = dev.upload(&[3u32, 1, 2]).unwrap();
    for bad in [&[][..], &[0, 2][..], &[1, 3], &[0, 2, 1, 3], &[0, 4]] {
        let o = dev.upload(bad).unwrap();
        assert!(
            matches!(
                dev.sort_segments(&xs, &o, SortOrder::Ascending),
                Err(Error::Shape(_))
            ),
            "{bad:?}"
        );
        assert!(matches!(
            dev.argsort_segments(&xs, &o, SortOrder::Ascending),
            Err(Error::Shape(_))
        ));
    }
    let o = dev.upload(&[0u64, 3]).unwrap();
    let mut short = dev.upload(&[0u32; 2]).unwrap();
    assert!(matches!(
        dev.argsort_segments_into(&xs, &o, &mut short, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
}

/// Sorts by a comparator: magnitudes (ties of `x` and `-x`), residues with a bound modulus
/// (many ties), a descending order, few distinct keys; sizes around the run lengths; a
/// one-input predicate refused; an order that is not a strict weak order still gives a
/// permutation.
#[test]
fn cpu_sort_by_matches_slice_sort_by() {
    use warp_tests::ops::{greater_i64, low_byte_below, nearer_zero, residue_below};
    use warp_tests::sorts::check_sort_by;
    let dev = Device::cpu();
    for n in [0usize, 1, 2, 31, 32, 33, 100, 1000, 4097] {
        let xs: Vec<f32> = random_vec_par::<f32>(seed() ^ n as u64, n, false)
            .into_iter()
            .map(|x| (x * 8.0).round())
            .collect();
        check_sort_by(&dev, &xs, nearer_zero, "f32 by magnitude");
        let xs: Vec<u32> = random_vec_par(seed() ^ 1, n, false);
        check_sort_by(&dev, &xs, residue_below.with(7), "u32 mod 7");
        let xs: Vec<i64> = random_vec_par(seed() ^ 2, n, true);
        check_sort_by(&dev, &xs, greater_i64, "i64 descending");
        let xs: Vec<u16> = random_vec_par(seed() ^ 3, n, true);
        check_sort_by(&dev, &xs, low_byte_below, "u16 low byte");
    }
    let xs = dev.upload(&[3u32, 1, 2]).unwrap();
    let mut short = dev.upload(&[0u32; 2]).unwrap();
    assert!(matches!(
        dev.argsort_by_into(residue_below.with(2), &xs, &mut short),
        Err(Error::Shape(_))
    ));
    let nan = dev
        .upload(&[1.0f32, f32::NAN, -3.0, 0.5, f32::NAN])
        .unwrap();
    let mut p = dev
        .argsort_by(nearer_zero, &nan)
        .unwrap()
        .download()
        .unwrap();
    p.sort_unstable();
    assert_eq!(p, [0, 1, 2, 3, 4]);
}

/// Sorts whole tuples and structs by a comparator of two of them: points by radius (ties
/// keep their order), tuples with padding by a bound modulus of one field, mixed-size structs
/// descending; an output of the wrong length refused.
#[test]
fn cpu_sort_by_sorts_tuples_and_structs() {
    use warp_tests::ops::{mixed_greater, nearer_origin, tag_below};
    use warp_tests::sorts::{check_sort_values_by, sort_values};
    let dev = Device::cpu();
    for n in [0usize, 1, 2, 31, 33, 1000, 4097] {
        let (points, tuples, mixed) = sort_values(seed() ^ n as u64, n);
        check_sort_values_by(&dev, &points, nearer_origin, "points by radius");
        check_sort_values_by(&dev, &tuples, tag_below.with(5), "tuples by tag mod 5");
        check_sort_values_by(&dev, &mixed, mixed_greater, "mixed descending");
        let wide = warp_tests::sorts::wide_values(seed() ^ n as u64, n);
        check_sort_values_by(&dev, &wide, warp_tests::ops::wide_below, "64-byte values");
    }
    let (points, ..) = sort_values(seed(), 3);
    let ps = dev.upload_values(&points).unwrap();
    let mut short = dev.upload_values(&points[..2]).unwrap();
    assert!(matches!(
        dev.sort_by_into(nearer_origin, &ps, &mut short),
        Err(Error::Shape(_))
    ));
}

/// Binary searches by a comparator against `partition_point`: arrays of scalars with and
/// without a bound argument, structs in a `DeviceTuples`; no keys, one, many; a wrong output
/// length refused.
#[test]
fn cpu_search_by_is_partition_point() {
    let dev = Device::cpu();
    for n in [0usize, 1, 2, 33, 1000] {
        warp_tests::sorts::check_searches_by(&dev, n, seed() ^ n as u64);
    }
    let keys = dev.upload(&[1u32, 2, 3]).unwrap();
    let mut short = dev.upload(&[0u32; 2]).unwrap();
    assert!(matches!(
        dev.lower_bound_by_into(
            warp_tests::ops::residue_below.with(5),
            &keys,
            &keys,
            &mut short
        ),
        Err(Error::Shape(_))
    ));
}
