//! Zipped arrays on the GPU against the CPU backend (itself tested against plain iterators):
//! dot products, squared distances and `allclose` of two arrays, compaction keeping one array
//! selected by a predicate over both, four arrays of mixed widths, scans and axis reductions of
//! zipped rows, and views whose alignments differ (the element-wise path) or agree (vectors).
//! Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    below, close, mixed, mul, second_above, sq_diff, sum_f32 as sum, sum_f64, sum_pairs,
};
use warp_tests::{Random, close_sum, edge_sizes, gpu, random_vec_par, rng, seed};

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

/// Every operation over `(xs[ox..ox+n], ys[oy..oy+n])` on the GPU equals the CPU backend.
fn check_pair(gpu: &Device, cpu: &Device, xs: &[f32], ys: &[f32], ox: usize, oy: usize, n: usize) {
    let tag = format!("n={n} ox={ox} oy={oy}");
    let (gx, gy) = (gpu.upload(xs).unwrap(), gpu.upload(ys).unwrap());
    let (cx, cy) = (cpu.upload(xs).unwrap(), cpu.upload(ys).unwrap());
    let (gx, gy) = (gx.slice(ox..ox + n).unwrap(), gy.slice(oy..oy + n).unwrap());
    let (cx, cy) = (cx.slice(ox..ox + n).unwrap(), cy.slice(oy..oy + n).unwrap());
    let (g, c) = ((&gx, &gy), (&cx, &cy));
    let abs: f64 = xs[ox..ox + n]
        .iter()
        .zip(&ys[oy..oy + n])
        .map(|(x, y)| (x * y).abs() as f64)
        .sum();
    let (dg, dc) = (
        gpu.map_reduce(mul, sum, &g).unwrap(),
        cpu.map_reduce(mul, sum, &c).unwrap(),
    );
    assert!(
        close_sum(dg as f64, dc as f64, abs, 1e-5),
        "dot {tag}: {dg} vs {dc}"
    );
    assert_eq!(
        gpu.reduce(sum, &g.map(mul)).unwrap().to_bits(),
        dg.to_bits(),
        "reduce over map == map_reduce {tag}"
    );
    let (sg, sc) = (
        gpu.map_reduce(sq_diff, sum, &g).unwrap(),
        cpu.map_reduce(sq_diff, sum, &c).unwrap(),
    );
    assert!(
        close_sum(sg as f64, sc as f64, sc.abs() as f64, 1e-5),
        "sq {tag}"
    );
    let p = close.with(1e-5, 1e-8);
    assert_eq!(
        gpu.count(p, &g).unwrap(),
        cpu.count(p, &c).unwrap(),
        "count {tag}"
    );
    assert_eq!(
        gpu.any(p, &g).unwrap(),
        cpu.any(p, &c).unwrap(),
        "any {tag}"
    );
    assert_eq!(
        gpu.all(p, &g).unwrap(),
        cpu.all(p, &c).unwrap(),
        "all {tag}"
    );
    assert_eq!(
        gpu.find_first(p, &g).unwrap(),
        cpu.find_first(p, &c).unwrap(),
        "find_first {tag}"
    );
    let t = second_above.with(0.25);
    assert_eq!(
        gpu.mask(t, &g).unwrap().download().unwrap(),
        cpu.mask(t, &c).unwrap().download().unwrap(),
        "mask {tag}"
    );
    assert_eq!(
        bits(&gpu.filter(t, &g.keep::<0>()).unwrap().download().unwrap()),
        bits(&cpu.filter(t, &c.keep::<0>()).unwrap().download().unwrap()),
        "filter keep 0 {tag}"
    );
    let (gk, gr) = gpu.partition(t, &g.keep::<1>()).unwrap();
    let (ck, cr) = cpu.partition(t, &c.keep::<1>()).unwrap();
    assert_eq!(
        bits(&gk.download().unwrap()),
        bits(&ck.download().unwrap()),
        "partition {tag}"
    );
    assert_eq!(
        bits(&gr.download().unwrap()),
        bits(&cr.download().unwrap()),
        "partition {tag}"
    );
    assert_eq!(
        bits(&gpu.map(mul, &g).unwrap().download().unwrap()),
        bits(&cpu.map(mul, &c).unwrap().download().unwrap()),
        "map {tag}"
    );
    let scan_g = gpu.scan(sum, &g.map(mul)).unwrap().download().unwrap();
    let scan_c = cpu.scan(sum, &c.map(mul)).unwrap().download().unwrap();
    assert_eq!(scan_g.len(), scan_c.len());
    if let (Some(a), Some(b)) = (scan_g.last(), scan_c.last()) {
        assert!(close_sum(*a as f64, *b as f64, abs, 1e-4), "scan {tag}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn pairs_match_the_cpu_at_edge_sizes_and_alignments() {
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
        // Aligned together, offset together (a head), and offset differently (element-wise).
        for (ox, oy) in [(0, 0), (4, 4), (1, 1), (1, 0), (3, 6)] {
            check_pair(&gpu, &cpu, &xs, &ys, ox, oy, n);
        }
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
    DeviceSlice<'_, f64>,
    DeviceSlice<'_, f32>,
    DeviceSlice<'_, u16>,
    DeviceSlice<'_, bool>,
) {
    (
        d.0.slice(off..off + n).unwrap(),
        d.1.slice(0..n).unwrap(),
        d.2.slice(off..off + n).unwrap(),
        d.3.slice(2..2 + n).unwrap(),
    )
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn mixed_widths_and_tuples_of_zipped_rows() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(8).into_iter().chain([3 << 20]) {
        let f = f64::random_vec(&mut r, n + 2, false);
        let g = f32::random_vec(&mut r, n + 2, false);
        let h = u16::random_vec(&mut r, n + 2, true);
        let k = bool::random_vec(&mut r, n + 2, false);
        for off in [0usize, 1] {
            let tag = format!("n={n} off={off}");
            let up = |d: &Device| {
                (
                    d.upload(&f).unwrap(),
                    d.upload(&g).unwrap(),
                    d.upload(&h).unwrap(),
                    d.upload(&k).unwrap(),
                )
            };
            let (gd, cd) = (up(&gpu), up(&cpu));
            let (gv, cv) = (views(&gd, off, n), views(&cd, off, n));
            let a = gpu
                .map_reduce(mixed, sum_f64, &(&gv.0, &gv.1, &gv.2, &gv.3))
                .unwrap();
            let b = cpu
                .map_reduce(mixed, sum_f64, &(&cv.0, &cv.1, &cv.2, &cv.3))
                .unwrap();
            let abs: f64 = (0..n)
                .map(|i| mixed.call(f[off + i], g[i], h[off + i], k[2 + i]).abs())
                .sum();
            assert!(close_sum(a, b, abs, 1e-12), "mixed {tag}: {a} vs {b}");
        }
        let ints = i32::random_vec(&mut r, n, true);
        let small = u8::random_vec(&mut r, n, true);
        let (gi, gs) = (gpu.upload(&ints).unwrap(), gpu.upload(&small).unwrap());
        let (ci, cs) = (cpu.upload(&ints).unwrap(), cpu.upload(&small).unwrap());
        assert_eq!(
            gpu.count(below, &(&gi, &gs)).unwrap(),
            cpu.count(below, &(&ci, &cs)).unwrap(),
            "below n={n}"
        );
        // Zipped rows as tuple values: reduce, scan, rows, columns, segments (exact: i32).
        let (gz, cz) = ((&gi, &gi), (&ci, &ci));
        assert_eq!(
            gpu.reduce(sum_pairs, &gz).unwrap(),
            cpu.reduce(sum_pairs, &cz).unwrap(),
            "reduce pairs n={n}"
        );
        assert_eq!(
            gpu.scan(sum_pairs, &gz).unwrap().download().unwrap(),
            cpu.scan(sum_pairs, &cz).unwrap().download().unwrap(),
            "scan pairs n={n}"
        );
        for cols in [1usize, 7, 64, 1000] {
            if n % cols != 0 {
                continue;
            }
            assert_eq!(
                gpu.reduce_rows(sum_pairs, &gz, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                cpu.reduce_rows(sum_pairs, &cz, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                "rows n={n} cols={cols}"
            );
            assert_eq!(
                gpu.reduce_cols(sum_pairs, &gz, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                cpu.reduce_cols(sum_pairs, &cz, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                "cols n={n} cols={cols}"
            );
        }
        let offs: Vec<u64> = vec![0, (n / 3) as u64, (n / 3) as u64, n as u64];
        let (go, co) = (gpu.upload(&offs).unwrap(), cpu.upload(&offs).unwrap());
        assert_eq!(
            gpu.reduce_segments(sum_pairs, &gz, &go)
                .unwrap()
                .download()
                .unwrap(),
            cpu.reduce_segments(sum_pairs, &cz, &co)
                .unwrap()
                .download()
                .unwrap(),
            "segments n={n}"
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
