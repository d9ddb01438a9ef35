//! NaN on the GPU: the README's NaN-propagating argmax and argmin (and sums, scans and row
//! reductions) over inputs with NaNs at random positions give the CPU backend's bits, NumPy's
//! index (the first NaN's), and the same bits run after run. Needs a CUDA GPU.

use rand::Rng;
use warp_runtime::prelude::*;
use warp_tests::ops::{argmax_f32, argmin_f64, sum_f32};
use warp_tests::{edge_sizes, gpu, rng, seed};

/// `n` values with `nans` NaNs (of both signs and other payloads) at random positions, and many
/// ties among the rest.
fn with_nans(r: &mut impl Rng, n: usize, nans: usize) -> Vec<f32> {
    let mut xs: Vec<f32> = (0..n)
        .map(|_| (r.random_range(-40..40) as f32) / 8.0)
        .collect();
    for _ in 0..nans.min(n) {
        let at = r.random_range(0..n);
        xs[at] = [f32::NAN, -f32::NAN, f32::from_bits(0x7fc0_0abc)][r.random_range(0..3)];
    }
    xs
}

fn first_nan_or_max(xs: &[f32]) -> Option<usize> {
    match xs.iter().position(|x| x.is_nan()) {
        Some(i) => Some(i),
        None => {
            let m = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            xs.iter().position(|&x| x == m)
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn argmax_with_random_nans_matches_the_cpu_and_numpy_run_after_run() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    let mut r = rng(s);
    let mut sizes = edge_sizes(4);
    sizes.push((1 << 24) + 3);
    for n in sizes {
        for nans in [0usize, 1, 2, 7, 1000] {
            let xs = with_nans(&mut r, n, nans);
            let gx = g.upload(&xs).unwrap();
            let cx = c.upload(&xs).unwrap();
            let want = c.reduce(argmax_f32, &cx.indexed()).unwrap();
            let tag = format!("n={n} nans={nans}");
            if let Some(i) = first_nan_or_max(&xs) {
                assert_eq!(want.1 as usize, i, "cpu {tag}");
            }
            let first = g.reduce(argmax_f32, &gx.indexed()).unwrap();
            for run in 0..3 {
                let got = g.reduce(argmax_f32, &gx.indexed()).unwrap();
                assert_eq!(
                    (got.0.to_bits(), got.1),
                    (want.0.to_bits(), want.1),
                    "argmax {tag} run {run}"
                );
                assert_eq!(
                    (got.0.to_bits(), got.1),
                    (first.0.to_bits(), first.1),
                    "run to run {tag}"
                );
            }
            // Sums: NaN when any element is NaN, on both.
            let gs = g.reduce(sum_f32, &gx).unwrap();
            let cs = c.reduce(sum_f32, &cx).unwrap();
            assert_eq!(gs.is_nan(), xs.iter().any(|x| x.is_nan()), "sum {tag}");
            assert_eq!(gs.is_nan(), cs.is_nan(), "sum {tag}");
            assert_eq!(
                g.reduce(sum_f32, &gx).unwrap().to_bits(),
                gs.to_bits(),
                "sum run to run {tag}"
            );
            // argmin over the same values in f64.
            let d: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
            let gd = g.upload(&d).unwrap();
            let got = g.reduce(argmin_f64, &gd.indexed()).unwrap();
            let want = c
                .reduce(argmin_f64, &c.upload(&d).unwrap().indexed())
                .unwrap();
            assert_eq!(
                (got.0.to_bits(), got.1),
                (want.0.to_bits(), want.1),
                "argmin {tag}"
            );
            if let Some(i) = d.iter().position(|x| x.is_nan()) {
                assert_eq!(got.1 as usize, i, "argmin: the first NaN {tag}");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn scans_and_rows_with_random_nans_match_the_cpu() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    let mut r = rng(s ^ 5);
    for (rows, cols) in [
        (1usize, 1usize),
        (7, 33),
        (64, 1000),
        (1000, 64),
        (3, 100_000),
    ] {
        let xs = with_nans(&mut r, rows * cols, rows * cols / 500 + 1);
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        let tag = format!("{rows}x{cols}");
        let key = |v: Vec<(f32, u32)>| {
            v.into_iter()
                .map(|(x, i)| (x.to_bits(), i))
                .collect::<Vec<_>>()
        };
        let gr = key(g
            .reduce_rows(argmax_f32, &gx.indexed(), cols)
            .unwrap()
            .download()
            .unwrap());
        let cr = key(c
            .reduce_rows(argmax_f32, &cx.indexed(), cols)
            .unwrap()
            .download()
            .unwrap());
        assert_eq!(gr, cr, "row argmax {tag}");
        let gc = key(g
            .reduce_cols(argmax_f32, &gx.indexed(), cols)
            .unwrap()
            .download()
            .unwrap());
        let cc = key(c
            .reduce_cols(argmax_f32, &cx.indexed(), cols)
            .unwrap()
            .download()
            .unwrap());
        assert_eq!(gc, cc, "column argmax {tag}");
        let gs = key(g
            .scan(argmax_f32, &gx.indexed())
            .unwrap()
            .download()
            .unwrap());
        let cs = key(c
            .scan(argmax_f32, &cx.indexed())
            .unwrap()
            .download()
            .unwrap());
        assert_eq!(gs, cs, "running argmax {tag}");
        let again = key(g
            .scan(argmax_f32, &gx.indexed())
            .unwrap()
            .download()
            .unwrap());
        assert_eq!(gs, again, "running argmax run to run {tag}");
        let first_nan = xs.iter().position(|x| x.is_nan());
        if let Some(i) = first_nan {
            assert!(
                gs[i..].iter().all(|&(_, at)| at as usize == i),
                "from the first NaN on {tag}"
            );
        }
    }
}
