//! Segmented scans (rows and CSR segments, inclusive and exclusive) and scans continued from an
//! initial value on the CPU backend against plain iterators, with a non-commutative operator,
//! and their errors for bad shapes and offsets (the GPU tests compare the GPU against this
//! backend).

use warp_runtime::prelude::*;
use warp_tests::scans::{rows_bounds, running};
use warp_tests::{Random, rng, seed};

#[reduce(identity = 0)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
/// Composition of affine maps x -> a x + b, first then second: not commutative.
#[reduce(identity = (1, 0))]
fn affine(f: (i64, i64), g: (i64, i64)) -> (i64, i64) {
    (
        f.0.wrapping_mul(g.0),
        g.0.wrapping_mul(f.1).wrapping_add(g.1),
    )
}

#[test]
fn row_scans_are_running_folds_of_each_row() {
    let dev = Device::cpu();
    let mut r = rng(seed());
    for cols in [1usize, 2, 31, 32, 33, 4096, 5000] {
        for rows in [0usize, 1, 3] {
            let n = rows * cols;
            let xs = i64::random_vec(&mut r, n, true);
            let d = dev.upload(&xs).unwrap();
            let (incl, excl) = running(&xs, &rows_bounds(n, cols), 0, i64::wrapping_add);
            assert_eq!(
                dev.scan_rows(add, &d, cols).unwrap().download().unwrap(),
                incl
            );
            assert_eq!(
                dev.exclusive_scan_rows(add, &d, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                excl
            );
            let mut out = dev.upload(&vec![7i64; n]).unwrap();
            dev.scan_rows_into(add, &d, cols, &mut out).unwrap();
            assert_eq!(out.download().unwrap(), incl);
            dev.exclusive_scan_rows_into(add, &d, cols, &mut out)
                .unwrap();
            assert_eq!(out.download().unwrap(), excl);
        }
    }
}

#[test]
fn segment_scans_are_running_folds_of_each_segment() {
    let dev = Device::cpu();
    let mut r = rng(seed());
    let xs = i64::random_vec(&mut r, 100, true);
    let d = dev.upload(&xs).unwrap();
    for bounds in [
        vec![0usize, 100],                  // one segment
        vec![0, 0, 0, 100, 100],            // empty ones around it
        vec![0, 1, 2, 40, 40, 41, 99, 100], // ragged
        (0..=100).collect::<Vec<_>>(),      // segments of one
    ] {
        let offsets: Vec<u64> = bounds.iter().map(|&b| b as u64).collect();
        let o = dev.upload(&offsets).unwrap();
        let (incl, excl) = running(&xs, &bounds, 0, i64::wrapping_add);
        assert_eq!(
            dev.scan_segments(add, &d, &o).unwrap().download().unwrap(),
            incl
        );
        assert_eq!(
            dev.exclusive_scan_segments(add, &d, &o)
                .unwrap()
                .download()
                .unwrap(),
            excl
        );
        let mut out = dev.upload(&[0i64; 100]).unwrap();
        dev.scan_segments_into(add, &d, &o, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), incl);
        dev.exclusive_scan_segments_into(add, &d, &o, &mut out)
            .unwrap();
        assert_eq!(out.download().unwrap(), excl);
    }
    // Empty input: offsets all zero.
    let empty = dev.upload::<i64>(&[]).unwrap();
    for offsets in [vec![0u64], vec![0, 0, 0]] {
        let o = dev.upload(&offsets).unwrap();
        assert!(
            dev.scan_segments(add, &empty, &o)
                .unwrap()
                .download()
                .unwrap()
                .is_empty()
        );
    }
}

#[test]
fn segmented_scans_combine_in_element_order() {
    let dev = Device::cpu();
    let mut r = rng(seed());
    let n = 5 * 33;
    let (a, b) = (
        i64::random_vec(&mut r, n, true),
        i64::random_vec(&mut r, n, true),
    );
    let fs: Vec<(i64, i64)> = a.iter().copied().zip(b.iter().copied()).collect();
    let (da, db) = (dev.upload(&a).unwrap(), dev.upload(&b).unwrap());
    let d = (&da, &db);
    let f = |f: (i64, i64), g: (i64, i64)| {
        (
            f.0.wrapping_mul(g.0),
            g.0.wrapping_mul(f.1).wrapping_add(g.1),
        )
    };
    let (incl, excl) = running(&fs, &rows_bounds(n, 33), (1, 0), f);
    assert_eq!(
        dev.scan_rows(affine, &d, 33).unwrap().download().unwrap(),
        incl
    );
    assert_eq!(
        dev.exclusive_scan_rows(affine, &d, 33)
            .unwrap()
            .download()
            .unwrap(),
        excl
    );
    let bounds = [0usize, 7, 7, 100, n];
    let o = dev.upload(&bounds.map(|b| b as u64)).unwrap();
    let (incl, _) = running(&fs, &bounds, (1, 0), f);
    assert_eq!(
        dev.scan_segments(affine, &d, &o)
            .unwrap()
            .download()
            .unwrap(),
        incl
    );
}

#[test]
fn bad_shapes_and_offsets_are_errors() {
    let dev = Device::cpu();
    let d = dev.upload(&[1i64, 2, 3, 4, 5]).unwrap();
    assert!(matches!(dev.scan_rows(add, &d, 0), Err(Error::Shape(_))));
    assert!(matches!(dev.scan_rows(add, &d, 2), Err(Error::Shape(_))));
    assert!(matches!(
        dev.exclusive_scan_rows(add, &d, 3),
        Err(Error::Shape(_))
    ));
    for offsets in [
        vec![],              // no entry
        vec![0u64, 3, 2, 5], // decreasing
        vec![1, 5],          // not from 0
        vec![0, 4],          // not up to the length
        vec![0, 6],          // past it
        vec![0],             // no segment for 5 elements
    ] {
        let o = dev.upload(&offsets).unwrap();
        assert!(
            matches!(dev.scan_segments(add, &d, &o), Err(Error::Shape(_))),
            "{offsets:?}"
        );
        assert!(matches!(
            dev.exclusive_scan_segments(add, &d, &o),
            Err(Error::Shape(_))
        ));
    }
    let mut short = dev.upload(&[0i64; 4]).unwrap();
    assert!(dev.scan_rows_into(add, &d, 5, &mut short).is_err());
    let o = dev.upload(&[0u64, 5]).unwrap();
    assert!(dev.scan_segments_into(add, &d, &o, &mut short).is_err());
}

#[test]
fn scans_from_an_initial_value_continue_the_scan() {
    let dev = Device::cpu();
    let mut r = rng(seed());
    for n in [0usize, 1, 2, 100, 4099] {
        let xs = i64::random_vec(&mut r, n, true);
        let d = dev.upload(&xs).unwrap();
        let init = i64::random_vec(&mut r, 1, true)[0];
        let (incl, excl) = running(&xs, &[0, n], init, i64::wrapping_add);
        assert_eq!(
            dev.scan_from(add, &d, init).unwrap().download().unwrap(),
            incl
        );
        assert_eq!(
            dev.exclusive_scan_from(add, &d, init)
                .unwrap()
                .download()
                .unwrap(),
            excl
        );
        let mut out = dev.upload(&vec![7i64; n]).unwrap();
        dev.scan_from_into(add, &d, init, &mut out).unwrap();
        assert_eq!(out.download().unwrap(), incl);
        dev.exclusive_scan_from_into(add, &d, init, &mut out)
            .unwrap();
        assert_eq!(out.download().unwrap(), excl);
        // An input scanned in two chunks, the second from the first's last value, is the
        // input scanned whole.
        let cut = n / 3;
        let whole = dev.scan(add, &d).unwrap().download().unwrap();
        let head = dev.scan(add, &d.slice(..cut).unwrap()).unwrap();
        let carry = head.download().unwrap().last().copied().unwrap_or(0);
        let tail = dev.scan_from(add, &d.slice(cut..).unwrap(), carry).unwrap();
        assert_eq!(tail.download().unwrap(), whole[cut..]);
        // A non-commutative operator: init first, then the elements in order.
        let fs: Vec<(i64, i64)> = (0..n)
            .map(|_| {
                let v = i64::random_vec(&mut r, 2, true);
                (v[0] % 7, v[1])
            })
            .collect();
        let f0 = (3i64, -5i64);
        let compose = |f: (i64, i64), g: (i64, i64)| {
            (
                f.0.wrapping_mul(g.0),
                g.0.wrapping_mul(f.1).wrapping_add(g.1),
            )
        };
        let (incl, excl) = running(&fs, &[0, n], f0, compose);
        let cols = (
            dev.upload(&fs.iter().map(|f| f.0).collect::<Vec<_>>())
                .unwrap(),
            dev.upload(&fs.iter().map(|f| f.1).collect::<Vec<_>>())
                .unwrap(),
        );
        let zipped = (&cols.0, &cols.1);
        let got = dev.scan_from(affine, &zipped, f0).unwrap();
        assert_eq!(got.download().unwrap(), incl, "affine n={n}");
        let got = dev.exclusive_scan_from(affine, &zipped, f0).unwrap();
        assert_eq!(got.download().unwrap(), excl, "exclusive affine n={n}");
    }
}
