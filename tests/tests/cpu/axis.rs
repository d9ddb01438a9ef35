//! Scans and axis reductions on the CPU backend against plain iterators, and their errors for
//! bad shapes and offsets (the GPU tests compare the GPU against this backend).

use warp_runtime::prelude::*;
use warp_tests::ops::{add_u32, argmax_f32 as argmax};
use warp_tests::{Random, rng, seed};

#[reduce(identity = 0)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
#[map]
fn triple(x: i32) -> i64 {
    x as i64 * 3
}

#[test]
fn scans_are_running_folds() {
    let dev = Device::cpu();
    let mut r = rng(seed());
    for n in [0usize, 1, 2, 33, 1000] {
        let xs = i64::random_vec(&mut r, n, true);
        let d = dev.upload(&xs).unwrap();
        let mut acc = 0i64;
        let (mut incl, mut excl) = (Vec::new(), Vec::new());
        for &x in &xs {
            excl.push(acc);
            acc = acc.wrapping_add(x);
            incl.push(acc);
        }
        assert_eq!(dev.scan(add, &d).unwrap().download().unwrap(), incl);
        assert_eq!(
            dev.exclusive_scan(add, &d).unwrap().download().unwrap(),
            excl
        );
    }
    let ys = dev.upload(&[1i32, -2, 5]).unwrap();
    assert_eq!(
        dev.scan(add, &ys.map(triple)).unwrap().download().unwrap(),
        vec![3, -3, 12]
    );
    let fs = dev.upload(&[1.0f32, 3.0, 2.0, 3.0, 9.0]).unwrap();
    let running = dev.scan(argmax, &fs.indexed()).unwrap();
    assert_eq!(running.len(), 5);
    assert_eq!(
        running.download().unwrap(),
        vec![(1.0, 0), (3.0, 1), (3.0, 1), (3.0, 1), (9.0, 4)]
    );
}

#[test]
fn rows_columns_segments_and_transpose() {
    let dev = Device::cpu();
    let m: Vec<i64> = (0..12).collect(); // 3 x 4
    let d = dev.upload(&m).unwrap();
    assert_eq!(
        dev.reduce_rows(add, &d, 4).unwrap().download().unwrap(),
        vec![6, 22, 38]
    );
    assert_eq!(
        dev.reduce_cols(add, &d, 4).unwrap().download().unwrap(),
        vec![12, 15, 18, 21]
    );
    assert_eq!(
        dev.transpose(&d, 4).unwrap().download().unwrap(),
        vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    );
    let offsets = dev.upload(&[0u64, 0, 5, 5, 12]).unwrap();
    assert_eq!(
        dev.reduce_segments(add, &d, &offsets)
            .unwrap()
            .download()
            .unwrap(),
        vec![0, 10, 0, 56]
    );
    let fs = dev.upload(&[1.0f32, 5.0, 2.0, 7.0, 0.0, 3.0]).unwrap();
    assert_eq!(
        dev.reduce_cols(argmax, &fs.indexed(), 3)
            .unwrap()
            .download()
            .unwrap(),
        vec![(7.0, 3), (5.0, 1), (3.0, 5)]
    );
}

#[test]
fn bad_shapes_and_offsets_are_errors() {
    let dev = Device::cpu();
    let d = dev.upload(&[1i64, 2, 3, 4, 5]).unwrap();
    assert!(matches!(dev.reduce_rows(add, &d, 2), Err(Error::Shape(_))));
    assert!(matches!(dev.reduce_cols(add, &d, 0), Err(Error::Shape(_))));
    assert!(matches!(dev.transpose(&d, 3), Err(Error::Shape(_))));
    for bad in [vec![], vec![0u64, 3, 2], vec![0u64, 6], vec![6u64]] {
        let o = dev.upload(&bad).unwrap();
        assert!(matches!(
            dev.reduce_segments(add, &d, &o),
            Err(Error::Shape(_))
        ));
    }
    // No segment: nothing to reduce, the one offset still checked (above).
    let none = dev.reduce_segments(add, &d, &dev.upload(&[5u64]).unwrap());
    assert!(none.unwrap().is_empty());
    // Column sums of an empty input are one identity per column: a column count no memory
    // holds is an error, not a crash.
    let empty = dev.upload::<i64>(&[]).unwrap();
    for cols in [1usize << 60, usize::MAX] {
        assert!(matches!(
            dev.reduce_cols(add, &empty, cols),
            Err(Error::OutOfMemory { .. })
        ));
    }
    assert_eq!(
        dev.reduce_cols(add, &empty, 3).unwrap().download().unwrap(),
        [0; 3]
    );
    // Every CPU-backend device reads the others' arrays (host memory).
    let other = Device::cpu();
    assert_eq!(
        other.scan(add, &d).unwrap().download().unwrap(),
        [1, 3, 6, 10, 15]
    );
}

/// `reduce_axis` along every axis of 1-d to 4-d shapes, axes of length 1 and 0 among them.
#[test]
fn reduce_axis_matches_plain_rust() {
    let dev = Device::cpu();
    for (k, shape) in [
        vec![7usize],
        vec![2, 3, 4],
        vec![1, 5, 7],
        vec![5, 1, 7],
        vec![3, 4, 1],
        vec![0, 3, 2],
        vec![3, 0, 2],
        vec![2, 3, 0],
        vec![2, 3, 4, 5],
        vec![3, 33, 40],
    ]
    .iter()
    .enumerate()
    {
        warp_tests::axes::check_reduce_axis(&dev, shape, k as u64);
        warp_tests::axes::check_scan_axis(&dev, shape, k as u64);
    }
}

/// Bad shapes and axes are errors.
#[test]
fn reduce_axis_checks_its_shape() {
    let dev = Device::cpu();
    let xs = dev.upload(&[1u32; 12]).unwrap();
    let e = |r: Result<DeviceVec<u32>, Error>| matches!(r, Err(Error::Shape(_)));
    assert!(e(dev.reduce_axis(add_u32, &xs, &[5, 2], 0)));
    assert!(e(dev.reduce_axis(add_u32, &xs, &[3, 4], 2)));
    assert!(e(dev.reduce_axis(add_u32, &xs, &[], 0)));
    assert!(e(dev.reduce_axis(add_u32, &xs, &[usize::MAX, 2, 2], 0)));
    assert_eq!(
        dev.reduce_axis(add_u32, &xs, &[12], 0)
            .unwrap()
            .download()
            .unwrap(),
        [12]
    );
}
