//! Zipped arrays (`(&xs, &ys)`) on the CPU backend against plain iterator code over the
//! individual arrays: maps and predicates of several distinct arrays in every operation family
//! (asymmetric ones, so that swapped or duplicated columns fail), sums of exact inputs bit for
//! bit and of random floats within a tolerance, scans and axis reductions of zipped rows element
//! by element, compaction keeping one array, and the errors of arrays that cannot be zipped.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    add_xor, below, check_weighted4, close, mixed, mul, second_above, sq_diff, sum_f32 as sum,
    sum_f64, sum_pairs, x_minus_2y,
};
use warp_tests::{
    Random, assert_bits, assert_elements, close_sum, edge_sizes, exact_sum, exact_vec, rng, seed,
};

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
        // A distinct array with the same elements: all close unless a NaN is there.
        let dx2 = cpu.upload(&xs).unwrap();
        assert_eq!(
            cpu.all(p, &(&dx, &dx2)).unwrap(),
            !xs.iter().any(|x| x.is_nan()),
            "all close to a copy n={n}"
        );
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
        let lins = cpu.map(x_minus_2y, &z).unwrap().download().unwrap();
        let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| x - 2.0 * y).collect();
        assert_eq!(bits(&lins), bits(&want), "x - 2y n={n}");
    }
}

/// Exact inputs (small integers, every partial sum exact in f32 in any order): sums, maps and
/// scans of two and four distinct zipped arrays equal plain integer arithmetic bit for bit.
#[test]
fn zipped_sums_of_exact_inputs_are_exact() {
    let cpu = Device::cpu();
    let s = seed();
    for n in edge_sizes(4).into_iter().chain([1 << 22]) {
        let w: Vec<Vec<f32>> = (0..4u64)
            .map(|j| exact_vec(s ^ 0x60 ^ j ^ ((n as u64) << 8), n))
            .collect();
        let ints: Vec<Vec<i64>> = w
            .iter()
            .map(|v| v.iter().map(|&e| e as i64).collect())
            .collect();
        let d: Vec<DeviceVec<f32>> = w.iter().map(|v| cpu.upload(v).unwrap()).collect();
        let z = (&d[0], &d[1]);
        let (x, y) = (&ints[0], &ints[1]);
        let dot: i64 = x.iter().zip(y).map(|(a, b)| a * b).sum();
        assert_bits(
            &[cpu.map_reduce(mul, sum, &z).unwrap()],
            &[dot as f32],
            &format!("dot n={n}"),
        );
        let lins: Vec<i64> = x.iter().zip(y).map(|(a, b)| a - 2 * b).collect();
        assert_bits(
            &[cpu.map_reduce(x_minus_2y, sum, &z).unwrap()],
            &[lins.iter().sum::<i64>() as f32],
            &format!("x - 2y n={n}"),
        );
        let running: Vec<f32> = lins
            .iter()
            .scan(0i64, |acc, &t| {
                *acc += t;
                Some(*acc as f32)
            })
            .collect();
        assert_bits(
            &cpu.scan(sum, &z.map(x_minus_2y))
                .unwrap()
                .download()
                .unwrap(),
            &running,
            &format!("scan of x - 2y n={n}"),
        );
        // Squared distances of parities (0 or 1): a sum of at most n ones.
        let par: Vec<Vec<f32>> = w[..2]
            .iter()
            .map(|v| v.iter().map(|&e| (e as i64 & 1) as f32).collect())
            .collect();
        let (p0, p1) = (cpu.upload(&par[0]).unwrap(), cpu.upload(&par[1]).unwrap());
        let want: i64 = x
            .iter()
            .zip(y)
            .map(|(a, b)| ((a & 1) - (b & 1)).pow(2))
            .sum();
        assert_bits(
            &[cpu.map_reduce(sq_diff, sum, &(&p0, &p1)).unwrap()],
            &[want as f32],
            &format!("squared distance n={n}"),
        );
        let four: Vec<i64> = (0..n)
            .map(|i| ints[0][i] + 3 * ints[1][i] - 5 * ints[2][i] + 7 * ints[3][i])
            .collect();
        let z4 = (&d[0], &d[1], &d[2], &d[3]);
        check_weighted4(&cpu, &z4, &four, &format!("n={n}"));
        assert_bits(
            &[cpu.reduce(sum, &d[0]).unwrap()],
            &[exact_sum(&w[0]) as f32],
            &format!("sum n={n}"),
        );
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Plain folds of zipped `(i32, i32)` rows with `plain` from `(0, 0)`: the whole, the running
/// values, each row and each column of a `cols`-wide matrix, each segment of `offs`.
#[allow(clippy::type_complexity)]
fn tuple_refs(
    rows: &[(i32, i32)],
    plain: impl Fn((i32, i32), (i32, i32)) -> (i32, i32),
    cols: usize,
    offs: &[u64],
) -> (
    (i32, i32),
    Vec<(i32, i32)>,
    Vec<(i32, i32)>,
    Vec<(i32, i32)>,
    Vec<(i32, i32)>,
) {
    let fold = |r: &mut dyn Iterator<Item = &(i32, i32)>| r.fold((0, 0), |s, &v| plain(s, v));
    let scan = rows
        .iter()
        .scan((0, 0), |s, &v| {
            *s = plain(*s, v);
            Some(*s)
        })
        .collect();
    let by_row = rows.chunks(cols).map(|r| fold(&mut r.iter())).collect();
    let by_col = (0..cols)
        .map(|c| fold(&mut rows.iter().skip(c).step_by(cols)))
        .collect();
    let segs = offs
        .windows(2)
        .map(|w| fold(&mut rows[w[0] as usize..w[1] as usize].iter()))
        .collect();
    (fold(&mut rows.iter()), scan, by_row, by_col, segs)
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
    let pairs: Vec<(i32, i32)> = a.iter().copied().zip(b.iter().copied()).collect();
    let offs = [0u64, 10, 10, 500, (rows * cols) as u64];
    let doffs = cpu.upload(&offs).unwrap();
    // Zipped rows reduced as tuples, scanned, and along the axes, with a symmetric operator
    // and one whose components combine differently.
    macro_rules! check {
        ($op:ident, $plain:expr) => {{
            let what = stringify!($op);
            let (whole, scan, by_row, by_col, segs) = tuple_refs(&pairs, $plain, cols, &offs);
            assert_eq!(cpu.reduce($op, &z).unwrap(), whole, "{what}");
            assert_elements(
                &cpu.scan($op, &z).unwrap().download().unwrap(),
                &scan,
                &format!("{what} scan"),
            );
            assert_elements(
                &cpu.reduce_rows($op, &z, cols).unwrap().download().unwrap(),
                &by_row,
                &format!("{what} rows"),
            );
            assert_elements(
                &cpu.reduce_cols($op, &z, cols).unwrap().download().unwrap(),
                &by_col,
                &format!("{what} cols"),
            );
            assert_elements(
                &cpu.reduce_segments($op, &z, &doffs)
                    .unwrap()
                    .download()
                    .unwrap(),
                &segs,
                &format!("{what} segments"),
            );
        }};
    }
    check!(sum_pairs, |s: (i32, i32), v: (i32, i32)| (
        s.0.wrapping_add(v.0),
        s.1.wrapping_add(v.1)
    ));
    check!(add_xor, |s: (i32, i32), v: (i32, i32)| (
        s.0.wrapping_add(v.0),
        s.1 ^ v.1
    ));
    // A four-array map of mixed widths (exact in f64: integers), and a predicate over (i32, u8).
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
    let z4 = (&ds.0, &ds.1, &ds.2, &ds.3);
    // Each value is a multiple of 1/4 below 2^24 in magnitude: every sum of them is exact.
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let v = f[i] + g[i] as f64 * h[i] as f64;
            if k[i] { -v } else { v }
        })
        .collect();
    assert_bits(
        &cpu.map(mixed, &z4).unwrap().download().unwrap(),
        &want,
        "mixed map",
    );
    assert_bits(
        &[cpu.map_reduce(mixed, sum_f64, &z4).unwrap()],
        &[want.iter().sum::<f64>()],
        "mixed sum",
    );
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
