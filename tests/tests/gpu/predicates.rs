//! GPU predicates and maps against the CPU backend: edge sizes, selectivities 0/1/50/99/100%,
//! NaN, first matches at 0, in the middle, at the end and nowhere, misaligned starts, fused maps
//! with bound parameters; sums of squares of exact inputs bit for bit against plain Rust (in f32
//! and in f64, up to 2^24 elements) and of random floats within a tolerance; the three-way
//! partition of zipped arrays against plain Rust. Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{above, positive, square, sum_f32 as sum, sum_f64, widen};
use warp_tests::{Random, assert_bits, edge_sizes, exact_vec, gpu, random_vec_par, rng, seed};

#[predicate]
fn is_seven(x: u8) -> bool {
    x == 7
}
#[predicate]
fn small(x: f64) -> bool {
    x.abs() < 0.5
}
#[predicate]
fn norm_above(v: (f32, f32), t: f32) -> bool {
    v.0 * v.0 + v.1 * v.1 > t
}
#[map]
fn with_double(x: f32, k: f32) -> (f32, f32) {
    (x, x * k)
}
#[reduce(identity = 0)]
fn sum_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}
/// `x * x` in f64: squares of small integers summed exactly at any size.
#[map]
fn square_f64(x: f32) -> f64 {
    let y = x as f64;
    y * y
}

/// Every predicate operation on the GPU equals the CPU backend.
fn check_all<P: Predicate<Input = f32>>(gpu: &Device, cpu: &Device, p: P, xs: &[f32], what: &str) {
    let g = gpu.upload(xs).unwrap();
    let c = cpu.upload(xs).unwrap();
    for off in [0usize, 1, 3] {
        if off > xs.len() {
            continue;
        }
        let (gs, cs) = (g.slice(off..).unwrap(), c.slice(off..).unwrap());
        let n = xs.len() - off;
        let tag = format!("{what} n={n} off={off}");
        assert_eq!(
            gpu.count(p.clone(), &gs).unwrap(),
            cpu.count(p.clone(), &cs).unwrap(),
            "count {tag}"
        );
        assert_eq!(
            gpu.any(p.clone(), &gs).unwrap(),
            cpu.any(p.clone(), &cs).unwrap(),
            "any {tag}"
        );
        assert_eq!(
            gpu.all(p.clone(), &gs).unwrap(),
            cpu.all(p.clone(), &cs).unwrap(),
            "all {tag}"
        );
        assert_eq!(
            gpu.find_first(p.clone(), &gs).unwrap(),
            cpu.find_first(p.clone(), &cs).unwrap(),
            "find_first {tag}"
        );
        assert_eq!(
            gpu.mask(p.clone(), &gs).unwrap().download().unwrap(),
            cpu.mask(p.clone(), &cs).unwrap().download().unwrap(),
            "mask {tag}"
        );
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        let gf = gpu.filter(p.clone(), &gs).unwrap();
        assert_eq!(
            bits(gf.download().unwrap()),
            bits(cpu.filter(p.clone(), &cs).unwrap().download().unwrap()),
            "filter {tag}"
        );
        let want: Vec<u32> = (0..n as u32)
            .filter(|&i| p.test(xs[off + i as usize]))
            .collect();
        let got = gpu.argwhere(p.clone(), &gs).unwrap().download().unwrap();
        assert!(got == want, "argwhere {tag}");
        assert_eq!(
            cpu.argwhere(p.clone(), &cs).unwrap().download().unwrap(),
            want
        );
        let mut wide = gpu.upload(&vec![0u64; n + 5]).unwrap();
        let count = gpu.argwhere_into(p.clone(), &gs, &mut wide).unwrap();
        let wide = wide.download().unwrap();
        let wide: Vec<u32> = wide[..count.get().unwrap() as usize]
            .iter()
            .map(|&i| i as u32)
            .collect();
        assert!(wide == want, "argwhere_into u64 {tag}");
        let (gk, gr) = gpu.partition(p.clone(), &gs).unwrap();
        let (ck, cr) = cpu.partition(p.clone(), &cs).unwrap();
        assert_eq!(
            bits(gk.download().unwrap()),
            bits(ck.download().unwrap()),
            "partition kept {tag}"
        );
        assert_eq!(
            bits(gr.download().unwrap()),
            bits(cr.download().unwrap()),
            "partition rejected {tag}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn predicates_at_edge_sizes_and_selectivities() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    let mut sizes = edge_sizes(4);
    sizes.extend([8191, 8192, 8193, 3 * 4096 + 17]);
    for n in sizes {
        let xs: Vec<f32> = f32::random_vec(&mut r, n, true)
            .iter()
            .map(|x| x.abs().min(1.0))
            .collect();
        // Selectivities 0%, 1%, 50%, 99%, 100% as thresholds on values in [0, 1].
        for t in [2.0f32, 0.99, 0.5, 0.01, -1.0] {
            check_all(&gpu, &cpu, above.with(t), &xs, &format!("above {t}"));
        }
        let with_nan: Vec<f32> = f32::random_vec(&mut r, n, true);
        check_all(
            &gpu,
            &cpu,
            positive,
            &with_nan,
            "positive with NaN and infinities",
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn first_match_positions_and_early_exit() {
    let gpu = gpu();
    let n = (1usize << 24) + 11;
    for at in [Some(0usize), Some(1), Some(n / 2), Some(n - 1), None] {
        let mut xs = vec![-1.0f32; n];
        if let Some(i) = at {
            xs[i] = 1.0;
        }
        let g = gpu.upload(&xs).unwrap();
        assert_eq!(gpu.find_first(positive, &g).unwrap(), at, "first at {at:?}");
        assert_eq!(gpu.any(positive, &g).unwrap(), at.is_some());
        assert!(!gpu.all(positive, &g).unwrap());
        assert_eq!(gpu.count(positive, &g).unwrap(), at.is_some() as u64);
        assert_eq!(
            gpu.filter(positive, &g).unwrap().download().unwrap(),
            if at.is_some() { vec![1.0] } else { vec![] }
        );
    }
    let ones = gpu.upload(&vec![1.0f32; n]).unwrap();
    assert!(gpu.all(positive, &ones).unwrap());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn other_types_and_fused_maps() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(1).into_iter().chain([(1 << 22) + 3]) {
        let bytes: Vec<u8> = u8::random_vec(&mut r, n, true)
            .iter()
            .map(|b| b % 16)
            .collect();
        let (g, c) = (gpu.upload(&bytes).unwrap(), cpu.upload(&bytes).unwrap());
        assert_eq!(
            gpu.count(is_seven, &g).unwrap(),
            cpu.count(is_seven, &c).unwrap(),
            "u8 n={n}"
        );
        assert_eq!(
            gpu.filter(is_seven, &g).unwrap().download().unwrap(),
            cpu.filter(is_seven, &c).unwrap().download().unwrap()
        );
        assert_eq!(
            gpu.find_first(is_seven, &g).unwrap(),
            cpu.find_first(is_seven, &c).unwrap()
        );
        assert_eq!(
            gpu.reduce(sum_u64, &g.map(widen.with(3))).unwrap(),
            cpu.reduce(sum_u64, &c.map(widen.with(3))).unwrap(),
            "fused widen n={n}"
        );
        let ds: Vec<f64> = f64::random_vec(&mut r, n, true);
        let (g, c) = (gpu.upload(&ds).unwrap(), cpu.upload(&ds).unwrap());
        assert_eq!(gpu.count(small, &g).unwrap(), cpu.count(small, &c).unwrap());
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(
            bits(gpu.filter(small, &g).unwrap().download().unwrap()),
            bits(cpu.filter(small, &c).unwrap().download().unwrap())
        );
        let fs: Vec<f32> = f32::random_vec(&mut r, n, false);
        let (g, c) = (gpu.upload(&fs).unwrap(), cpu.upload(&fs).unwrap());
        let got = gpu.map_reduce(square, sum, &g).unwrap();
        let want: f64 = fs.iter().map(|&x| (x * x) as f64).sum();
        assert!(
            (got as f64 - want).abs() <= 1e-5 * want.max(1e-30),
            "sum of squares n={n}: {got} vs {want}"
        );
        for t in [0.25f32, 4.0] {
            assert_eq!(
                gpu.count(above.with(t), &g.map(square)).unwrap(),
                cpu.count(above.with(t), &c.map(square)).unwrap(),
                "count(x*x > {t})"
            );
        }
        assert_eq!(
            gpu.count(norm_above.with(1.0), &g.map(with_double.with(2.0)))
                .unwrap(),
            cpu.count(norm_above.with(1.0), &c.map(with_double.with(2.0)))
                .unwrap(),
            "tuple map output into a predicate"
        );
        let sq = gpu
            .filter(positive, &g.map(square))
            .unwrap()
            .download()
            .unwrap();
        let want_sq: Vec<f32> = fs.iter().map(|x| x * x).filter(|&y| y > 0.0).collect();
        assert_eq!(sq, want_sq, "filter over a map keeps mapped values");
    }
}

/// Sums of squares of exact inputs, bit for bit against plain Rust's integer sums, on the GPU
/// and the CPU backend, at the edge sizes, 2^22 and 2^24, from misaligned starts: in f32 over
/// small integers whose squares add up to at most 2^24 (so every partial sum is exact:
/// magnitudes 1 and 2 where `4n <= 2^24`, 0 and 1 beyond), and in f64 over integers up to 8.
#[test]
#[ignore = "needs a CUDA GPU"]
fn sums_of_squares_are_exact() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    for n in edge_sizes(4).into_iter().chain([1 << 22, 1 << 24]) {
        let xs: Vec<f32> = exact_vec(s ^ 0x5e ^ n as u64, n);
        let base = if 4 * n <= 1 << 24 { 1 } else { 0 };
        let tiny: Vec<f32> = xs
            .iter()
            .map(|&x| ((x.abs() as i64 & 1) + base) as f32 * x.signum())
            .collect();
        for dev in [&gpu, &cpu] {
            let (dx, ds) = (dev.upload(&xs).unwrap(), dev.upload(&tiny).unwrap());
            for off in [0usize, 1, 3] {
                if off > n {
                    continue;
                }
                let tag = format!(
                    "{} n={n} off={off}",
                    if dev.is_gpu() { "gpu" } else { "cpu" }
                );
                let want: i64 = tiny[off..].iter().map(|&x| (x as i64).pow(2)).sum();
                assert_bits(
                    &[dev
                        .map_reduce(square, sum, &ds.slice(off..).unwrap())
                        .unwrap()],
                    &[want as f32],
                    &format!("sum of squares in f32 {tag}"),
                );
                let want: i64 = xs[off..].iter().map(|&x| (x as i64).pow(2)).sum();
                assert_bits(
                    &[dev
                        .map_reduce(square_f64, sum_f64, &dx.slice(off..).unwrap())
                        .unwrap()],
                    &[want as f64],
                    &format!("sum of squares in f64 {tag}"),
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn large_filter_at_half_selectivity() {
    let gpu = gpu();
    let n = 1usize << 28;
    let xs: Vec<f32> = random_vec_par(seed(), n, false);
    let g = gpu.upload(&xs).unwrap();
    let kept = gpu.filter(positive, &g).unwrap();
    let want: Vec<f32> = xs.iter().copied().filter(|&x| x > 0.0).collect();
    assert_eq!(kept.len(), want.len());
    assert!(kept.download().unwrap() == want, "filter 2^28 at ~50%");
    assert_eq!(gpu.count(positive, &g).unwrap(), want.len() as u64);
    let at = gpu.argwhere(positive, &g).unwrap().download().unwrap();
    let want_at: Vec<u32> = (0..n as u32).filter(|&i| xs[i as usize] > 0.0).collect();
    assert!(at == want_at, "argwhere 2^28 at ~50%");
    // Positions through a fused map of zipped arrays, from a misaligned start.
    let ys = gpu.upload(&xs[..n / 4]).unwrap();
    let (a, b) = (g.slice(1..n / 4 + 1).unwrap(), ys.as_slice());
    let zipped = gpu
        .argwhere(second_below.with(0.5), &(&a, &b))
        .unwrap()
        .download()
        .unwrap();
    let want_zip: Vec<u32> = (0..(n / 4) as u32)
        .filter(|&i| {
            let (x, y) = (xs[i as usize + 1], xs[i as usize]);
            second_below.call(x, y, 0.5)
        })
        .collect();
    assert!(zipped == want_zip, "argwhere over zipped views");
    // The other tile order: tiles from a queue in block start order.
    gpu.set_tile_queue(true);
    let (yes, no) = gpu.partition(positive, &g).unwrap();
    gpu.set_tile_queue(false);
    assert!(yes.download().unwrap() == want, "queued partition, kept");
    let rejected: Vec<f32> = xs.iter().copied().filter(|&x| x <= 0.0).collect();
    assert!(
        no.download().unwrap() == rejected,
        "queued partition, rejected"
    );
}

#[predicate]
fn below(x: f32, t: f32) -> bool {
    x < t
}

#[predicate(inputs = 2)]
fn second_below(x: f32, y: f32, t: f32) -> bool {
    let _ = x;
    y < t
}

/// Three-way partition on the GPU equals the CPU backend: edge sizes, misaligned views, parts
/// that are empty or everything, NaN (in no part but the last), zipped arrays keeping one.
#[test]
#[ignore = "needs a CUDA GPU"]
fn three_way_partition_matches_the_cpu() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for n in edge_sizes(4).into_iter().chain([1 << 24]) {
        let xs = f32::random_vec(&mut r, n + 3, true);
        let (g, c) = (gpu.upload(&xs).unwrap(), cpu.upload(&xs).unwrap());
        for off in [0usize, 3] {
            let (gs, cs) = (
                g.slice(off..off + n).unwrap(),
                c.slice(off..off + n).unwrap(),
            );
            for (t1, t2) in [(-0.3f32, 0.3f32), (-2.0, 2.0), (2.0, -2.0), (0.0, 0.0)] {
                let tag = format!("n={n} off={off} t=({t1}, {t2})");
                let (a, b, c3) = gpu.partition3(below.with(t1), below.with(t2), &gs).unwrap();
                let (x, y, z) = cpu.partition3(below.with(t1), below.with(t2), &cs).unwrap();
                assert_eq!(
                    bits(a.download().unwrap()),
                    bits(x.download().unwrap()),
                    "first {tag}"
                );
                assert_eq!(
                    bits(b.download().unwrap()),
                    bits(y.download().unwrap()),
                    "second {tag}"
                );
                assert_eq!(
                    bits(c3.download().unwrap()),
                    bits(z.download().unwrap()),
                    "rest {tag}"
                );
            }
        }
        // Zipped distinct arrays, keeping the first, parted by the second; against plain Rust.
        let ys = f32::random_vec(&mut r, n, false);
        let (gy, cy) = (gpu.upload(&ys).unwrap(), cpu.upload(&ys).unwrap());
        let mut want: [Vec<f32>; 3] = Default::default();
        for (&x, &y) in xs[..n].iter().zip(&ys) {
            let part = match y {
                y if y < -0.5 => 0,
                y if y < 0.5 => 1,
                _ => 2,
            };
            want[part].push(x);
        }
        let gz = (&g.slice(0..n).unwrap(), &gy);
        let cz = (&c.slice(0..n).unwrap(), &cy);
        let (a, b, c3) = gpu
            .partition3(
                second_below.with(-0.5),
                second_below.with(0.5),
                &gz.keep::<0>(),
            )
            .unwrap();
        let (x, y, z) = cpu
            .partition3(
                second_below.with(-0.5),
                second_below.with(0.5),
                &cz.keep::<0>(),
            )
            .unwrap();
        for (i, (g, c)) in [(a, x), (b, y), (c3, z)].into_iter().enumerate() {
            assert_bits(
                &g.download().unwrap(),
                &want[i],
                &format!("gpu zip part {i} n={n}"),
            );
            assert_bits(
                &c.download().unwrap(),
                &want[i],
                &format!("cpu zip part {i} n={n}"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn eight_bound_words_read_and_nine_refused() {
    warp_tests::bound::check_bound_limits(&gpu(), seed());
}

/// Masked inputs (`xs.filter(p)`) of reductions, scans and axis reductions against plain Rust,
/// at the edge sizes and 2^22.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_masked_inputs_count_rejected_values_as_the_identity() {
    let g = warp_tests::gpu();
    for (k, n) in warp_tests::edge_sizes(8)
        .into_iter()
        .chain([1792 * 7, 1 << 22])
        .enumerate()
    {
        warp_tests::masked::check_masked(&g, n, k as u64);
        warp_tests::masked::check_chains(&g, n, k as u64);
    }
}
