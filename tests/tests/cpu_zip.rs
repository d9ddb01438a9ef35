//! Zipped arrays (`(&xs, &ys)`) on the CPU backend against plain iterator code: maps and
//! predicates of several inputs in every operation family, compaction keeping one array, and
//! the errors of arrays that cannot be zipped.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    below, close, mixed, mul, second_above, sq_diff, sum_f32 as sum, sum_f64, sum_pairs,
};
use warp_tests::{Random, close_sum, edge_sizes, rng, seed};

#[test]
fn zipped_maps_and_predicates_match_iterators() {
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(4) {
        let xs = f32::random_vec(&mut r, n, true);
        let ys = f32::random_vec(&mut r, n, true);
        let (dx, dy) = (cpu.upload(&xs).unwrap(), cpu.upload(&ys).unwrap());
        let z = (&dx, &dy);
        let dot = cpu.map_reduce(mul, sum, &z).unwrap();
        let want: f64 = xs.iter().zip(&ys).map(|(x, y)| (x * y) as f64).sum();
        let abs: f64 = xs.iter().zip(&ys).map(|(x, y)| (x * y).abs() as f64).sum();
        assert!(close_sum(dot as f64, want, abs, 1e-5), "dot n={n}");
        assert_eq!(
            cpu.reduce(sum, &z.map(mul)).unwrap().to_bits(),
            dot.to_bits()
        );
        let d2 = cpu.map_reduce(sq_diff, sum, &z).unwrap();
        let want: f64 = xs
            .iter()
            .zip(&ys)
            .map(|(x, y)| ((x - y) * (x - y)) as f64)
            .sum();
        assert!(close_sum(d2 as f64, want, want.abs(), 1e-5), "sq n={n}");
        let ok = |x: f32, y: f32| close.call(x, y, 1e-5, 1e-8);
        let want = xs.iter().zip(&ys).filter(|&(&x, &y)| ok(x, y)).count() as u64;
        let p = close.with(1e-5, 1e-8);
        assert_eq!(cpu.count(p, &z).unwrap(), want);
        assert_eq!(cpu.any(p, &z).unwrap(), want > 0);
        assert_eq!(cpu.all(p, &z).unwrap(), want == n as u64);
        assert!(cpu.all(p, &(&dx, &dx)).unwrap() || xs.iter().any(|x| x.is_nan()));
        assert_eq!(
            cpu.find_first(p, &z).unwrap(),
            xs.iter().zip(&ys).position(|(&x, &y)| ok(x, y))
        );
        let t = second_above.with(0.25);
        let kept: Vec<f32> = xs
            .iter()
            .zip(&ys)
            .filter(|&(_, &y)| y > 0.25)
            .map(|(&x, _)| x)
            .collect();
        let got = cpu.filter(t, &z.keep::<0>()).unwrap().download().unwrap();
        assert_eq!(bits(&got), bits(&kept), "filter keep 0 n={n}");
        let (k, rej) = cpu.partition(t, &z.keep::<1>()).unwrap();
        let (ky, ry): (Vec<f32>, Vec<f32>) = ys.iter().partition(|&&y| y > 0.25);
        assert_eq!(bits(&k.download().unwrap()), bits(&ky));
        assert_eq!(bits(&rej.download().unwrap()), bits(&ry));
        let mask = cpu.mask(t, &z).unwrap().download().unwrap();
        for (i, y) in ys.iter().enumerate() {
            assert_eq!(mask[i / 32] >> (i % 32) & 1 == 1, *y > 0.25);
        }
        let prods = cpu.map(mul, &z).unwrap().download().unwrap();
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| x * y).collect();
        assert_eq!(bits(&prods), bits(&want));
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn zipped_inputs_in_scans_and_axes() {
    let cpu = Device::cpu();
    let (rows, cols) = (37, 53);
    let a: Vec<i32> = (0..rows * cols)
        .map(|i| (i as i32 * 7919) % 1000 - 500)
        .collect();
    let b: Vec<i32> = (0..rows * cols)
        .map(|i| (i as i32 * 104729) % 777)
        .collect();
    let (da, db) = (cpu.upload(&a).unwrap(), cpu.upload(&b).unwrap());
    let z = (&da, &db);
    // Zipped rows reduced as tuples, scanned, and along the axes.
    let want = a.iter().zip(&b).fold((0i32, 0i32), |s, (&x, &y)| {
        (s.0.wrapping_add(x), s.1.wrapping_add(y))
    });
    assert_eq!(cpu.reduce(sum_pairs, &z).unwrap(), want);
    let scan = cpu.scan(sum_pairs, &z).unwrap().download().unwrap();
    assert_eq!(scan.last().copied(), Some(want));
    let by_row = cpu
        .reduce_rows(sum_pairs, &z, cols)
        .unwrap()
        .download()
        .unwrap();
    for r in 0..rows {
        let s = (0..cols).fold((0, 0), |s: (i32, i32), c| {
            (
                s.0.wrapping_add(a[r * cols + c]),
                s.1.wrapping_add(b[r * cols + c]),
            )
        });
        assert_eq!(by_row[r], s);
    }
    let by_col = cpu
        .reduce_cols(sum_pairs, &z, cols)
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(by_col.len(), cols);
    let offs = cpu
        .upload(&[0u64, 10, 10, 500, (rows * cols) as u64])
        .unwrap();
    let segs = cpu
        .reduce_segments(sum_pairs, &z, &offs)
        .unwrap()
        .download()
        .unwrap();
    assert_eq!(segs[1], (0, 0));
    // A four-array map of mixed widths, and a predicate over (i32, u8).
    let n = 1000;
    let f: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let g: Vec<f32> = (0..n).map(|i| i as f32 * -0.25).collect();
    let h: Vec<u16> = (0..n).map(|i| (i * 37 % 65536) as u16).collect();
    let k: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
    let ds = (
        cpu.upload(&f).unwrap(),
        cpu.upload(&g).unwrap(),
        cpu.upload(&h).unwrap(),
        cpu.upload(&k).unwrap(),
    );
    let got = cpu
        .map_reduce(mixed, sum_f64, &(&ds.0, &ds.1, &ds.2, &ds.3))
        .unwrap();
    let want: f64 = (0..n).map(|i| mixed.call(f[i], g[i], h[i], k[i])).sum();
    assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0));
    let small: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    let ints: Vec<i32> = (0..n as i32).map(|i| i - 500).collect();
    let (di, ds8) = (cpu.upload(&ints).unwrap(), cpu.upload(&small).unwrap());
    let want = ints
        .iter()
        .zip(&small)
        .filter(|&(&x, &y)| x < y as i32)
        .count() as u64;
    assert_eq!(cpu.count(below, &(&di, &ds8)).unwrap(), want);
}

#[test]
fn arrays_that_cannot_be_zipped_are_errors() {
    let cpu = Device::cpu();
    let xs = cpu.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let ys = cpu.upload(&[1.0f32, 2.0]).unwrap();
    let z = (&xs, &ys);
    for r in [
        cpu.count(close.with(0.0, 0.0), &z).map(|_| ()),
        cpu.map_reduce(mul, sum, &z).map(|_| ()),
        cpu.filter(second_above.with(0.0), &z.keep::<0>())
            .map(|_| ()),
        cpu.scan(sum, &z.map(mul)).map(|_| ()),
        cpu.map(mul, &z).map(|_| ()),
    ] {
        match r {
            Err(Error::Shape(m)) => assert!(m.contains("equally long"), "{m}"),
            other => panic!("expected a shape error, got {other:?}"),
        }
    }
    // Views zip too: equal lengths from different starts.
    let v = xs.slice(1..).unwrap();
    assert_eq!(cpu.map_reduce(mul, sum, &(&v, &ys)).unwrap(), 2.0 + 6.0);
}
