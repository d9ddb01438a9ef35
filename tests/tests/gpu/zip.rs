//! Zipped arrays on the GPU against plain Rust over the individual arrays (and against the CPU
//! backend): dot products, squared distances and the asymmetric `x - 2y` of two distinct
//! arrays, summed and scanned bit for bit on exact inputs (small integers) at the edge sizes,
//! 2^22 and 2^24, and within a tolerance on random floats with special values; `allclose`,
//! counts, masks and compaction keeping either array selected by a predicate over both; four
//! distinct f32 arrays with distinct weights and four arrays of mixed widths, summed exactly;
//! tuple operators over zipped rows whose components combine differently, reduced, scanned and
//! along the axes; views whose alignments differ (the element-wise path) or agree (vectors).
//! Distinct arrays and asymmetric operators make swapped or duplicated columns fail.
//! Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    add_xor, below, check_weighted4, close, mixed, mul, second_above, sq_diff, sum_f32 as sum,
    sum_f64, sum_pairs, x_minus_2y,
};
use warp_tests::{
    Random, assert_bits, assert_elements, close_sum, edge_sizes, exact_vec, gpu, random_vec_par,
    rng, seed,
};

/// `(x - y)^2` in f64: squared distances of any small integers, summed exactly in f64.
#[map(inputs = 2)]
fn sq_diff_f64(x: f32, y: f32) -> f64 {
    let d = x as f64 - y as f64;
    d * d
}

/// Which backend, for failure messages.
fn name(dev: &Device) -> &'static str {
    if dev.is_gpu() { "gpu" } else { "cpu" }
}

/// The bits of each value, every NaN as the canonical one (a NaN the GPU computes, such as
/// `0 * inf`, has other payload bits than the CPU's: docs/fidelity.md).
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| {
            if x.is_nan() {
                f32::NAN.to_bits()
            } else {
                x.to_bits()
            }
        })
        .collect()
}

/// The words of `mask` for these predicate results (bit `i % 32` of word `i / 32`).
fn mask_of(hits: &[bool]) -> Vec<u32> {
    let mut words = vec![0u32; hits.len().div_ceil(32)];
    for (i, _) in hits.iter().enumerate().filter(|(_, h)| **h) {
        words[i / 32] |= 1 << (i % 32);
    }
    words
}

/// The running sums of integer terms as f32 (exact: every prefix is far below 2^24).
fn prefixes(terms: &[i64]) -> Vec<f32> {
    terms
        .iter()
        .scan(0i64, |s, &t| {
            *s += t;
            Some(*s as f32)
        })
        .collect()
}

/// Asserts that each `got[i]` is within `rel * sum(|terms[..=i]|)` of `sum(terms[..=i])`
/// computed in f64 (NaN and infinities as [`close_sum`] treats them): a float scan of random
/// terms, element by element.
fn assert_close_prefixes(got: &[f32], terms: &[f32], rel: f64, what: &str) {
    assert_eq!(got.len(), terms.len(), "{what}: lengths");
    let (mut s, mut a) = (0.0f64, 0.0f64);
    for (i, (&g, &t)) in got.iter().zip(terms).enumerate() {
        s += t as f64;
        a += (t as f64).abs();
        assert!(
            close_sum(g as f64, s, a, rel),
            "{what}: element {i} is {g}, expected {s} within {rel} of {a}"
        );
    }
}

/// Random floats with special values over `(xs[ox..ox+n], ys[oy..oy+n])`: every operation on
/// the GPU and the CPU backend equals plain Rust over the two slices (sums and scans within a
/// tolerance, computed elements and compaction bit for bit).
fn check_pair(gpu: &Device, cpu: &Device, xs: &[f32], ys: &[f32], ox: usize, oy: usize, n: usize) {
    let tag = format!("n={n} ox={ox} oy={oy}");
    let (x, y) = (&xs[ox..ox + n], &ys[oy..oy + n]);
    let (gx, gy) = (gpu.upload(xs).unwrap(), gpu.upload(ys).unwrap());
    let (cx, cy) = (cpu.upload(xs).unwrap(), cpu.upload(ys).unwrap());
    let (gx, gy) = (gx.slice(ox..ox + n).unwrap(), gy.slice(oy..oy + n).unwrap());
    let (cx, cy) = (cx.slice(ox..ox + n).unwrap(), cy.slice(oy..oy + n).unwrap());
    let (g, c) = ((&gx, &gy), (&cx, &cy));
    // Plain Rust: each term in f32 (as the map computes it), summed in f64.
    let prods: Vec<f32> = x.iter().zip(y).map(|(a, b)| a * b).collect();
    let lins: Vec<f32> = x.iter().zip(y).map(|(a, b)| a - 2.0 * b).collect();
    let sqs: Vec<f32> = x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).collect();
    for (what, terms, got_g, got_c) in [
        (
            "dot",
            &prods,
            gpu.map_reduce(mul, sum, &g).unwrap(),
            cpu.map_reduce(mul, sum, &c).unwrap(),
        ),
        (
            "x - 2y",
            &lins,
            gpu.map_reduce(x_minus_2y, sum, &g).unwrap(),
            cpu.map_reduce(x_minus_2y, sum, &c).unwrap(),
        ),
        (
            "squared distance",
            &sqs,
            gpu.map_reduce(sq_diff, sum, &g).unwrap(),
            cpu.map_reduce(sq_diff, sum, &c).unwrap(),
        ),
    ] {
        let want: f64 = terms.iter().map(|&t| t as f64).sum();
        let abs: f64 = terms.iter().map(|&t| (t as f64).abs()).sum();
        assert!(
            close_sum(got_g as f64, want, abs, 1e-5),
            "{what} {tag}: gpu {got_g}, plain {want}"
        );
        assert!(
            close_sum(got_c as f64, want, abs, 1e-5),
            "{what} {tag}: cpu {got_c}, plain {want}"
        );
    }
    assert_eq!(
        gpu.reduce(sum, &g.map(mul)).unwrap().to_bits(),
        gpu.map_reduce(mul, sum, &g).unwrap().to_bits(),
        "reduce over map == map_reduce {tag}"
    );
    // Computed elements, bit for bit (NaNs as one).
    for (dev, z) in [(gpu, &g), (cpu, &c)] {
        let d = name(dev);
        assert_eq!(
            bits(&dev.map(mul, z).unwrap().download().unwrap()),
            bits(&prods),
            "{d} map x*y {tag}"
        );
        assert_eq!(
            bits(&dev.map(x_minus_2y, z).unwrap().download().unwrap()),
            bits(&lins),
            "{d} map x - 2y {tag}"
        );
        assert_close_prefixes(
            &dev.scan(sum, &z.map(mul)).unwrap().download().unwrap(),
            &prods,
            1e-4,
            &format!("{d} scan of x*y {tag}"),
        );
    }
    // Predicates over both arrays: NumPy's isclose (x against y, asymmetric in rtol * |y|)
    // and `y > t` selecting either array's elements.
    let (rtol, atol) = (1e-5f32, 1e-8f32);
    let close_hits: Vec<bool> = x
        .iter()
        .zip(y)
        .map(|(&a, &b)| a == b || (a - b).abs() <= atol + rtol * b.abs())
        .collect();
    let above_hits: Vec<bool> = y.iter().map(|&b| b > 0.25).collect();
    let pick = |v: &[f32], hit: bool, hits: &[bool]| -> Vec<f32> {
        v.iter()
            .zip(hits)
            .filter(|&(_, &h)| h == hit)
            .map(|(&e, _)| e)
            .collect()
    };
    let count = close_hits.iter().filter(|&&h| h).count() as u64;
    let p = close.with(rtol, atol);
    let t = second_above.with(0.25);
    for (dev, z) in [(gpu, &g), (cpu, &c)] {
        let d = name(dev);
        assert_eq!(dev.count(p, z).unwrap(), count, "{d} count {tag}");
        assert_eq!(dev.any(p, z).unwrap(), count > 0, "{d} any {tag}");
        assert_eq!(dev.all(p, z).unwrap(), count == n as u64, "{d} all {tag}");
        assert_eq!(
            dev.find_first(p, z).unwrap(),
            close_hits.iter().position(|&h| h),
            "{d} find_first {tag}"
        );
        assert_eq!(
            dev.mask(p, z).unwrap().download().unwrap(),
            mask_of(&close_hits),
            "{d} mask of close {tag}"
        );
        assert_eq!(
            dev.mask(t, z).unwrap().download().unwrap(),
            mask_of(&above_hits),
            "{d} mask of y > t {tag}"
        );
        // Compaction moves elements: their bits, NaN payloads included.
        assert_bits(
            &dev.filter(t, &z.keep::<0>()).unwrap().download().unwrap(),
            &pick(x, true, &above_hits),
            &format!("{d} filter keeping x {tag}"),
        );
        for (keep, v, which) in [(0, x, "x"), (1, y, "y")] {
            let (kept, rest) = if keep == 0 {
                dev.partition(t, &z.keep::<0>()).unwrap()
            } else {
                dev.partition(t, &z.keep::<1>()).unwrap()
            };
            assert_bits(
                &kept.download().unwrap(),
                &pick(v, true, &above_hits),
                &format!("{d} partition keeping {which}, kept {tag}"),
            );
            assert_bits(
                &rest.download().unwrap(),
                &pick(v, false, &above_hits),
                &format!("{d} partition keeping {which}, rest {tag}"),
            );
        }
    }
}

/// Exact inputs (small integers) over `(xs[ox..ox+n], ys[oy..oy+n])`: dot product, `x - 2y`
/// and squared distances summed, mapped and scanned on the GPU and the CPU backend equal
/// plain Rust's integer arithmetic bit for bit. The squared distances of the f32 sum take the
/// parities (0 or 1) of the two arrays, so that their sum stays at most `n <= 2^24`; those of
/// the f64 sum take the values themselves.
fn check_pair_exact(
    gpu: &Device,
    cpu: &Device,
    xs: &[f32],
    ys: &[f32],
    ox: usize,
    oy: usize,
    n: usize,
) {
    assert!(
        n <= 1 << 24,
        "squared distances of parities must stay exact"
    );
    let tag = format!("exact n={n} ox={ox} oy={oy}");
    let parity = |v: &[f32]| -> Vec<f32> { v.iter().map(|&e| (e as i64 & 1) as f32).collect() };
    let (px, py) = (parity(xs), parity(ys));
    let xi: Vec<i64> = xs[ox..ox + n].iter().map(|&e| e as i64).collect();
    let yi: Vec<i64> = ys[oy..oy + n].iter().map(|&e| e as i64).collect();
    let prods: Vec<i64> = xi.iter().zip(&yi).map(|(a, b)| a * b).collect();
    let lins: Vec<i64> = xi.iter().zip(&yi).map(|(a, b)| a - 2 * b).collect();
    let sq_bits: i64 = xi
        .iter()
        .zip(&yi)
        .map(|(a, b)| ((a & 1) - (b & 1)).pow(2))
        .sum();
    let sq_vals: i64 = xi.iter().zip(&yi).map(|(a, b)| (a - b).pow(2)).sum();
    let as_f32 = |v: &[i64]| v.iter().map(|&e| e as f32).collect::<Vec<_>>();
    for dev in [gpu, cpu] {
        let d = name(dev);
        let (dx, dy) = (dev.upload(xs).unwrap(), dev.upload(ys).unwrap());
        let (dpx, dpy) = (dev.upload(&px).unwrap(), dev.upload(&py).unwrap());
        let (vx, vy) = (dx.slice(ox..ox + n).unwrap(), dy.slice(oy..oy + n).unwrap());
        let (vpx, vpy) = (
            dpx.slice(ox..ox + n).unwrap(),
            dpy.slice(oy..oy + n).unwrap(),
        );
        let z = (&vx, &vy);
        let sum_of = |v: &[i64]| v.iter().sum::<i64>() as f32;
        assert_bits(
            &[dev.map_reduce(mul, sum, &z).unwrap()],
            &[sum_of(&prods)],
            &format!("{d} dot {tag}"),
        );
        assert_bits(
            &[dev.reduce(sum, &z.map(mul)).unwrap()],
            &[sum_of(&prods)],
            &format!("{d} reduce over the map {tag}"),
        );
        assert_bits(
            &[dev.map_reduce(x_minus_2y, sum, &z).unwrap()],
            &[sum_of(&lins)],
            &format!("{d} sum of x - 2y {tag}"),
        );
        assert_bits(
            &[dev.map_reduce(sq_diff, sum, &(&vpx, &vpy)).unwrap()],
            &[sq_bits as f32],
            &format!("{d} squared distance of parities {tag}"),
        );
        assert_bits(
            &[dev.map_reduce(sq_diff_f64, sum_f64, &z).unwrap()],
            &[sq_vals as f64],
            &format!("{d} squared distance in f64 {tag}"),
        );
        assert_bits(
            &dev.map(x_minus_2y, &z).unwrap().download().unwrap(),
            &as_f32(&lins),
            &format!("{d} map x - 2y {tag}"),
        );
        assert_bits(
            &dev.scan(sum, &z.map(x_minus_2y))
                .unwrap()
                .download()
                .unwrap(),
            &prefixes(&lins),
            &format!("{d} scan of x - 2y {tag}"),
        );
        assert_bits(
            &dev.scan(sum, &z.map(mul)).unwrap().download().unwrap(),
            &prefixes(&prods),
            &format!("{d} scan of x*y {tag}"),
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn pairs_match_plain_rust_at_edge_sizes_and_alignments() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(4).into_iter().chain([1 << 22]) {
        let xs = f32::random_vec(&mut r, n + 8, true);
        let mut ys = f32::random_vec(&mut r, n + 8, true);
        // Some equal pairs, so that `close` holds somewhere and nowhere else by chance.
        for i in (0..n + 8).step_by(3) {
            ys[i] = xs[i];
        }
        let ex: Vec<f32> = exact_vec(s ^ 0x21 ^ n as u64, n + 8);
        let ey: Vec<f32> = exact_vec(s ^ 0x22 ^ n as u64, n + 8);
        // Aligned together, offset together (a head), and offset differently (element-wise).
        for (ox, oy) in [(0, 0), (4, 4), (1, 1), (1, 0), (3, 6)] {
            check_pair(&gpu, &cpu, &xs, &ys, ox, oy, n);
            check_pair_exact(&gpu, &cpu, &ex, &ey, ox, oy, n);
        }
    }
}

/// Exact sums and scans of two zipped arrays of 2^24 elements (many tiles: one lost, doubled or
/// swapped tile changes them), aligned and not.
#[test]
#[ignore = "needs a CUDA GPU"]
fn exact_pairs_at_2_pow_24() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let n = 1 << 24;
    let xs: Vec<f32> = exact_vec(seed() ^ 0x23, n + 8);
    let ys: Vec<f32> = exact_vec(seed() ^ 0x24, n + 8);
    for (ox, oy) in [(0, 0), (8, 8), (1, 6)] {
        check_pair_exact(&gpu, &cpu, &xs, &ys, ox, oy, n);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn equal_arrays_are_all_close_and_first_mismatch_is_found() {
    let gpu = gpu();
    let n = 1 << 24;
    let xs: Vec<f32> = random_vec_par(seed(), n, false);
    let a = gpu.upload(&xs).unwrap();
    let mut ys = xs.clone();
    let b = gpu.upload(&ys).unwrap();
    assert!(gpu.all(close.with(0.0, 0.0), &(&a, &b)).unwrap());
    ys[n - 3] += 1.0;
    let b = gpu.upload(&ys).unwrap();
    assert!(!gpu.all(close.with(1e-7, 0.0), &(&a, &b)).unwrap());
    #[predicate(inputs = 2)]
    fn differ(x: f32, y: f32) -> bool {
        x != y
    }
    assert_eq!(gpu.find_first(differ, &(&a, &b)).unwrap(), Some(n - 3));
}

type Four = (
    DeviceVec<f64>,
    DeviceVec<f32>,
    DeviceVec<u16>,
    DeviceVec<bool>,
);

/// Views of the four arrays with different starts (each array's alignment differs).
fn views(
    d: &Four,
    off: usize,
    n: usize,
) -> (
    DeviceView<'_, f64>,
    DeviceView<'_, f32>,
    DeviceView<'_, u16>,
    DeviceView<'_, bool>,
) {
    (
        d.0.slice(off..off + n).unwrap(),
        d.1.slice(0..n).unwrap(),
        d.2.slice(off..off + n).unwrap(),
        d.3.slice(2..2 + n).unwrap(),
    )
}

/// A tuple operator over the zipped rows `(a[i], b[i])` of two distinct i32 arrays, on the GPU
/// and the CPU backend, equals plain folds over the two arrays with `plain` (the operator
/// written out): the reduction, the inclusive scan element by element, row and column
/// reductions of the matrices whose widths divide the length, and segment reductions (an
/// empty segment among them).
fn check_tuple_op<Op: ReduceOp<Value = (i32, i32)>>(
    devs: [&Device; 2],
    op: Op,
    plain: impl Fn((i32, i32), (i32, i32)) -> (i32, i32),
    a: &[i32],
    b: &[i32],
    what: &str,
) {
    let n = a.len();
    let rows: Vec<(i32, i32)> = a.iter().copied().zip(b.iter().copied()).collect();
    let fold = |r: &mut dyn Iterator<Item = (i32, i32)>| r.fold((0, 0), &plain);
    let scan: Vec<(i32, i32)> = rows
        .iter()
        .scan((0, 0), |s, &v| {
            *s = plain(*s, v);
            Some(*s)
        })
        .collect();
    let offs: Vec<u64> = vec![0, (n / 3) as u64, (n / 3) as u64, n as u64];
    for dev in devs {
        let tag = format!("{what} {} n={n}", name(dev));
        let (da, db) = (dev.upload(a).unwrap(), dev.upload(b).unwrap());
        let z = (&da, &db);
        assert_eq!(
            dev.reduce(op, &z).unwrap(),
            fold(&mut rows.iter().copied()),
            "reduce {tag}"
        );
        assert_elements(
            &dev.scan(op, &z).unwrap().download().unwrap(),
            &scan,
            &format!("scan {tag}"),
        );
        for cols in [1usize, 7, 64, 1000] {
            if !n.is_multiple_of(cols) {
                continue;
            }
            let by_row: Vec<(i32, i32)> = rows
                .chunks(cols)
                .map(|r| fold(&mut r.iter().copied()))
                .collect();
            let by_col: Vec<(i32, i32)> = (0..cols)
                .map(|c| fold(&mut rows.iter().copied().skip(c).step_by(cols)))
                .collect();
            assert_elements(
                &dev.reduce_rows(op, &z, cols).unwrap().download().unwrap(),
                &by_row,
                &format!("rows {tag} cols={cols}"),
            );
            assert_elements(
                &dev.reduce_cols(op, &z, cols).unwrap().download().unwrap(),
                &by_col,
                &format!("cols {tag} cols={cols}"),
            );
        }
        let by_seg: Vec<(i32, i32)> = offs
            .windows(2)
            .map(|w| fold(&mut rows[w[0] as usize..w[1] as usize].iter().copied()))
            .collect();
        let o = dev.upload(&offs).unwrap();
        assert_elements(
            &dev.reduce_segments(op, &z, &o).unwrap().download().unwrap(),
            &by_seg,
            &format!("segments {tag}"),
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn mixed_widths_and_tuples_of_zipped_rows() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(8).into_iter().chain([3 << 20]) {
        // Four arrays of mixed widths: `a + b * c`, negated where `flag`. `a` odd and `b` even
        // (small integers), so each value is an odd integer (never a signed zero) and every
        // sum of them is exact in f64.
        let f: Vec<f64> = exact_vec::<f64>(s ^ 0x41 ^ n as u64, n + 2)
            .into_iter()
            .map(|x| 2.0 * x - x.signum())
            .collect();
        let g: Vec<f32> = exact_vec::<f32>(s ^ 0x42 ^ n as u64, n + 2)
            .into_iter()
            .map(|x| 2.0 * x)
            .collect();
        let h = u16::random_vec(&mut r, n + 2, true);
        let k = bool::random_vec(&mut r, n + 2, false);
        let up = |d: &Device| {
            (
                d.upload(&f).unwrap(),
                d.upload(&g).unwrap(),
                d.upload(&h).unwrap(),
                d.upload(&k).unwrap(),
            )
        };
        let (gd, cd) = (up(&gpu), up(&cpu));
        for off in [0usize, 1] {
            let tag = format!("n={n} off={off}");
            let want: Vec<i64> = (0..n)
                .map(|i| {
                    let v = f[off + i] as i64 + g[i] as i64 * h[off + i] as i64;
                    if k[2 + i] { -v } else { v }
                })
                .collect();
            let total = want.iter().sum::<i64>() as f64;
            let want: Vec<f64> = want.iter().map(|&v| v as f64).collect();
            for (dev, d) in [(&gpu, &gd), (&cpu, &cd)] {
                let v = views(d, off, n);
                let z = (&v.0, &v.1, &v.2, &v.3);
                let which = name(dev);
                assert_bits(
                    &[dev.map_reduce(mixed, sum_f64, &z).unwrap()],
                    &[total],
                    &format!("{which} mixed sum {tag}"),
                );
                assert_bits(
                    &dev.map(mixed, &z).unwrap().download().unwrap(),
                    &want,
                    &format!("{which} mixed map {tag}"),
                );
            }
        }
        // Four distinct f32 arrays with distinct weights, from one start (16-byte loads of
        // each) and from four different starts (the element-wise path).
        let w: Vec<Vec<f32>> = (0..4u64)
            .map(|j| exact_vec(s ^ 0x50 ^ j ^ ((n as u64) << 8), n + 3))
            .collect();
        for starts in [[0usize; 4], [0, 1, 2, 3]] {
            let tag = format!("n={n} starts={starts:?}");
            let want: Vec<i64> = (0..n)
                .map(|i| {
                    let e = |j: usize| w[j][starts[j] + i] as i64;
                    e(0) + 3 * e(1) - 5 * e(2) + 7 * e(3)
                })
                .collect();
            for dev in [&gpu, &cpu] {
                let which = name(dev);
                let d: Vec<DeviceVec<f32>> = w.iter().map(|v| dev.upload(v).unwrap()).collect();
                let v: Vec<DeviceView<'_, f32>> = (0..4)
                    .map(|j| d[j].slice(starts[j]..starts[j] + n).unwrap())
                    .collect();
                let z = (&v[0], &v[1], &v[2], &v[3]);
                check_weighted4(dev, &z, &want, &format!("{which} {tag}"));
            }
        }
        // A predicate over (i32, u8) rows.
        let ints = i32::random_vec(&mut r, n, true);
        let small = u8::random_vec(&mut r, n, true);
        let want = ints
            .iter()
            .zip(&small)
            .filter(|&(&x, &y)| x < y as i32)
            .count() as u64;
        for dev in [&gpu, &cpu] {
            let (di, ds) = (dev.upload(&ints).unwrap(), dev.upload(&small).unwrap());
            assert_eq!(dev.count(below, &(&di, &ds)).unwrap(), want, "below n={n}");
        }
        // Zipped rows of two distinct arrays as tuple values: reduce, scan, rows, columns,
        // segments (exact: i32), a symmetric operator and one whose components differ.
        let others = i32::random_vec(&mut r, n, true);
        check_tuple_op(
            [&gpu, &cpu],
            sum_pairs,
            |a, b| (a.0.wrapping_add(b.0), a.1.wrapping_add(b.1)),
            &ints,
            &others,
            "sum pairs",
        );
        check_tuple_op(
            [&gpu, &cpu],
            add_xor,
            |a, b| (a.0.wrapping_add(b.0), a.1 ^ b.1),
            &ints,
            &others,
            "add and xor",
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn mismatched_lengths_are_shape_errors_on_the_gpu() {
    let gpu = gpu();
    let xs = gpu.upload(&[1.0f32; 100]).unwrap();
    let ys = gpu.upload(&[1.0f32; 99]).unwrap();
    assert!(matches!(
        gpu.map_reduce(mul, sum, &(&xs, &ys)),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        gpu.filter(second_above.with(0.0), &(&xs, &ys).keep::<1>()),
        Err(Error::Shape(_))
    ));
    // Arrays of the CPU backend and of a GPU do not zip.
    let c = Device::cpu().upload(&[1.0f32; 100]).unwrap();
    assert!(matches!(
        gpu.map_reduce(mul, sum, &(&xs, &c)),
        Err(Error::DeviceMismatch)
    ));
}
