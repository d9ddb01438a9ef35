//! Top-k and bottom-k on the CPU backend against plain Rust (a sort of (value, index) pairs):
//! every element type, special values, ties, views, k = 0, 1, 1,024 and the errors.

use warp_runtime::Ordered;
use warp_runtime::prelude::*;
use warp_tests::{Random, rng, same_value, seed, sorted_k};

/// `top_k` or `bottom_k` of `xs` on `dev` equals [`sorted_k`].
fn check<T: Ordered + Random + PartialOrd>(
    dev: &Device,
    xs: &[T],
    k: usize,
    largest: bool,
    what: &str,
) {
    let arr = dev.upload(xs).unwrap();
    let TopK { values, indices } = if largest {
        dev.top_k(&arr, k).unwrap()
    } else {
        dev.bottom_k(&arr, k).unwrap()
    };
    let (values, indices) = (values.download().unwrap(), indices.download().unwrap());
    let want = sorted_k(xs, k, largest);
    let want_idx: Vec<u64> = want.iter().map(|w| w.1).collect();
    assert_eq!(
        indices,
        want_idx,
        "{what} n={} k={k} largest={largest}",
        xs.len()
    );
    for (v, w) in values.iter().zip(&want) {
        assert!(same_value(v, &w.0), "{what}: value {v:?} vs {:?}", w.0);
    }
}

fn every_k<T: Ordered + Random + PartialOrd>(dev: &Device, xs: &[T], what: &str) {
    for k in [0usize, 1, 2, 7, 100, 1000, 1024] {
        if k <= xs.len() {
            check(dev, xs, k, true, what);
            check(dev, xs, k, false, what);
        }
    }
}

fn random_types(dev: &Device, s: u64, n: usize) {
    let mut r = rng(s);
    every_k(dev, &i8::random_vec(&mut r, n, true), "i8");
    every_k(dev, &i16::random_vec(&mut r, n, true), "i16");
    every_k(dev, &i32::random_vec(&mut r, n, true), "i32");
    every_k(dev, &i64::random_vec(&mut r, n, true), "i64");
    every_k(dev, &u8::random_vec(&mut r, n, true), "u8");
    every_k(dev, &u16::random_vec(&mut r, n, true), "u16");
    every_k(dev, &u32::random_vec(&mut r, n, true), "u32");
    every_k(dev, &u64::random_vec(&mut r, n, true), "u64");
    every_k(dev, &f32::random_vec(&mut r, n, true), "f32");
    every_k(dev, &f64::random_vec(&mut r, n, true), "f64");
    every_k(dev, &f16::random_vec(&mut r, n, true), "f16");
    every_k(dev, &bf16::random_vec(&mut r, n, true), "bf16");
    every_k(dev, &bool::random_vec(&mut r, n, true), "bool");
}

#[test]
fn every_type_matches_plain_rust() {
    let s = seed();
    let dev = Device::cpu();
    for n in [1usize, 2, 33, 1024, 1025, 5000] {
        random_types(&dev, s ^ n as u64, n);
    }
}

#[test]
fn ties_go_to_the_smallest_index() {
    let dev = Device::cpu();
    let xs = dev.upload(&vec![5u16; 3000]).unwrap();
    for k in [1usize, 100, 1024] {
        let want: Vec<u64> = (0..k as u64).collect();
        assert_eq!(dev.top_k(&xs, k).unwrap().indices.download().unwrap(), want);
        assert_eq!(
            dev.bottom_k(&xs, k).unwrap().indices.download().unwrap(),
            want
        );
    }
    // -0.0 equals 0.0: in index order.
    let zs = dev.upload(&[0.0f32, -0.0, 0.0, -1.0]).unwrap();
    let top = dev.top_k(&zs, 3).unwrap();
    assert_eq!(top.indices.download().unwrap(), [0, 1, 2]);
    assert_eq!(
        top.values.download().unwrap()[1].to_bits(),
        (-0.0f32).to_bits(),
        "values are the input's own"
    );
}

#[test]
fn nan_is_above_infinity() {
    let dev = Device::cpu();
    let xs = [
        1.0f64,
        f64::NAN,
        f64::INFINITY,
        -f64::NAN,
        f64::NEG_INFINITY,
    ];
    let arr = dev.upload(&xs).unwrap();
    assert_eq!(
        dev.top_k(&arr, 3).unwrap().indices.download().unwrap(),
        [1, 3, 2]
    );
    assert_eq!(
        dev.bottom_k(&arr, 5).unwrap().indices.download().unwrap(),
        [4, 0, 2, 1, 3]
    );
    let nans = dev.upload(&[f32::NAN; 40]).unwrap();
    let low = dev.bottom_k(&nans, 4).unwrap();
    assert_eq!(low.indices.download().unwrap(), [0, 1, 2, 3]);
    assert!(low.values.download().unwrap().iter().all(|v| v.is_nan()));
}

#[test]
fn views_index_from_their_start() {
    let dev = Device::cpu();
    let xs = dev.upload(&[9i32, 1, 8, 2, 7]).unwrap();
    let view = xs.slice(1..).unwrap();
    let top = dev.top_k(&view, 2).unwrap();
    assert_eq!(top.values.download().unwrap(), [8, 7]);
    assert_eq!(top.indices.download().unwrap(), [1, 3]);
}

#[test]
fn sizes_and_k_are_checked() {
    let dev = Device::cpu();
    let empty = dev.upload::<f32>(&[]).unwrap();
    let none = dev.top_k(&empty, 0).unwrap();
    assert!(none.values.is_empty() && none.indices.is_empty());
    assert!(matches!(
        dev.top_k(&empty, 1),
        Err(Error::KExceedsLength { k: 1, len: 0 })
    ));
    let xs = dev.upload(&vec![1u8; 2000]).unwrap();
    assert!(matches!(
        dev.bottom_k(&xs, 1025),
        Err(Error::Unsupported(_))
    ));
    let short = dev.upload(&[1u8, 2, 3]).unwrap();
    assert!(matches!(
        dev.top_k(&short, 4),
        Err(Error::KExceedsLength { k: 4, len: 3 })
    ));
    assert_eq!(
        dev.top_k(&short, 3).unwrap().values.download().unwrap(),
        [3, 2, 1]
    );
}

/// Inputs of several CPU chunks (each keeps its best k, then the bests merge): the same k
/// as a sort, with ties spread across chunks (u8) and distinct values (i64, f32 with NaN).
#[test]
fn chunked_inputs_merge_to_the_sorted_k() {
    let s = seed();
    let dev = Device::cpu();
    let n = 3 * (1 << 16) + 17; // the CPU backend's tasks take chunks of 2^16 elements
    let mut r = rng(s);
    let bytes = u8::random_vec(&mut r, n, true);
    let wide = i64::random_vec(&mut r, n, true);
    let floats = f32::random_vec(&mut r, n, true);
    for k in [1usize, 1000, 1024] {
        for largest in [true, false] {
            check(&dev, &bytes, k, largest, "u8 chunks");
            check(&dev, &wide, k, largest, "i64 chunks");
            check(&dev, &floats, k, largest, "f32 chunks");
        }
    }
}

/// The top-k of each row: every k class, ties, NaN, and the errors in their order.
#[test]
fn cpu_top_k_rows_match_plain_rust() {
    let dev = Device::cpu();
    for (rows, cols, k) in [
        (1, 1, 1),
        (3, 7, 0),
        (3, 7, 7),
        (20, 100, 5),
        (4, 3000, 1024),
    ] {
        let xs: Vec<f32> = warp_tests::random_vec_par(seed() ^ cols as u64, rows * cols, true);
        warp_tests::sorts::check_top_k_rows(&dev, &xs, cols, k, "f32");
        let xs: Vec<u8> = warp_tests::random_vec_par(seed(), rows * cols, true);
        warp_tests::sorts::check_top_k_rows(&dev, &xs, cols, k, "u8");
    }
    let x = dev.upload(&[1.0f32; 6]).unwrap();
    assert!(matches!(dev.top_k_rows(&x, 4, 1), Err(Error::Shape(_))));
    assert!(matches!(dev.top_k_rows(&x, 0, 1), Err(Error::Shape(_))));
    assert!(matches!(
        dev.top_k_rows(&x, 3, 1025),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        dev.bottom_k_rows(&x, 3, 4),
        Err(Error::KExceedsLength { k: 4, len: 3 })
    ));
    let r = dev.top_k_rows(&x, 2, 0).unwrap();
    assert!(r.values.is_empty() && r.columns.is_empty());
}

/// The top-k along every axis of 3-d shapes (axes of size 1 included), k from 0 to the axis,
/// ties and NaNs, and the errors: the shape's first, then the rows'.
#[test]
fn cpu_top_k_axis_match_plain_rust() {
    use warp_tests::sorts::check_top_k_axis;
    let dev = Device::cpu();
    for shape in [[4usize, 5, 3], [1, 7, 1], [3, 1, 6], [2, 300, 65]] {
        let len: usize = shape.iter().product();
        let mut xs: Vec<f32> = warp_tests::random_vec_par(seed() ^ len as u64, len, true);
        for (i, x) in xs.iter_mut().enumerate().step_by(7) {
            *x = [f32::NAN, -0.0, 0.0, 1.0][i % 4];
        }
        let bytes: Vec<u8> = warp_tests::random_vec_par(seed(), len, true);
        for axis in 0..3 {
            for k in [0, 1, shape[axis]] {
                check_top_k_axis(&dev, &xs, &shape, axis, k, "f32");
                check_top_k_axis(&dev, &bytes, &shape, axis, k, "u8");
            }
        }
    }
    let x = dev.upload(&[1.0f32; 6]).unwrap();
    assert!(matches!(
        dev.top_k_axis(&x, &[2, 3], 2, 1),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        dev.top_k_axis(&x, &[2, 2], 0, 1),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        dev.top_k_axis(&x, &[2, 3], 0, 1025),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        dev.bottom_k_axis(&x, &[2, 3], 0, 3),
        Err(Error::KExceedsLength { k: 3, len: 2 })
    ));
    let empty = dev.upload::<f32>(&[]).unwrap();
    let r = dev.top_k_axis(&empty, &[2, 0, 3], 1, 0).unwrap();
    assert!(r.values.is_empty() && r.columns.is_empty());
    assert!(matches!(
        dev.top_k_axis(&empty, &[2, 0, 3], 1, 1),
        Err(Error::KExceedsLength { k: 1, len: 0 })
    ));
}
