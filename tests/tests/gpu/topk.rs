//! GPU top-k and bottom-k against the CPU backend and plain Rust (a sort of (value, index)
//! pairs): every element type, edge sizes around the warp, the block step and the level
//! fan-in, sorted, all-equal and NaN-heavy inputs, k = 1 to 1,024, misaligned views, the
//! errors, and 2^28 f32. Needs a CUDA GPU.

use warp_runtime::Ordered;
use warp_runtime::prelude::*;
use warp_tests::{Bits, Random, assert_bits, edge_sizes, gpu, random_vec_par, rng, seed, sorted_k};

const KS: [usize; 7] = [1, 2, 31, 100, 1000, 1023, 1024];

/// The GPU's `top_k` or `bottom_k` of `xs[off..]` equals the CPU backend's and [`sorted_k`],
/// for each `k` of `ks` (at most the view's length); the references are computed once, for
/// the largest `k` (a smaller `k`'s answer is a prefix of a larger one's).
fn check_ks<T: Ordered + PartialOrd + Bits>(
    gpu: &Device,
    cpu: &Device,
    xs: &[T],
    off: usize,
    ks: &[usize],
    largest: bool,
    what: &str,
) {
    let n = xs.len() - off;
    let ks: Vec<usize> = ks.iter().copied().filter(|&k| k <= n).collect();
    let Some(&most) = ks.iter().max() else { return };
    let run = |dev: &Device, k: usize| -> (Vec<T>, Vec<u64>) {
        let arr = dev.upload(xs).unwrap();
        let view = arr.slice(off..).unwrap();
        let TopK { values, indices } = if largest {
            dev.top_k(&view, k).unwrap()
        } else {
            dev.bottom_k(&view, k).unwrap()
        };
        (values.download().unwrap(), indices.download().unwrap())
    };
    let want = sorted_k(&xs[off..], most, largest);
    let (cv, ci) = run(cpu, most);
    let want_idx: Vec<u64> = want.iter().map(|w| w.1).collect();
    assert_eq!(
        ci, want_idx,
        "the CPU backend vs plain Rust: {what} n={n} k={most}"
    );
    let arr = gpu.upload(xs).unwrap();
    let view = arr.slice(off..).unwrap();
    for &k in &ks {
        let tag = format!("{what} n={n} off={off} k={k} largest={largest}");
        let TopK { values, indices } = if largest {
            gpu.top_k(&view, k).unwrap()
        } else {
            gpu.bottom_k(&view, k).unwrap()
        };
        let (gv, gi) = (values.download().unwrap(), indices.download().unwrap());
        assert_eq!(
            gi,
            want_idx[..k],
            "indices vs plain Rust and the CPU backend: {tag}"
        );
        // The values are the input's own elements, bit for bit (-0.0 and NaN payloads kept).
        let own: Vec<T> = gi.iter().map(|&i| xs[off + i as usize]).collect();
        assert_bits(
            &gv,
            &own,
            &format!("values vs the elements at the indices: {tag}"),
        );
        assert_bits(
            &cv[..k],
            &own,
            &format!("CPU values vs the elements: {tag}"),
        );
    }
}

/// [`check_ks`] for one `k`.
fn check<T: Ordered + PartialOrd + Bits>(
    gpu: &Device,
    cpu: &Device,
    xs: &[T],
    off: usize,
    k: usize,
    largest: bool,
    what: &str,
) {
    check_ks(gpu, cpu, xs, off, &[k], largest, what);
}

fn sizes(elem: usize) -> Vec<usize> {
    // Around the warp, the block step (2,048 elements; 1,024 for 8-byte ones), a few steps
    // per block, one step for each of many blocks (several levels), and many steps per block.
    let step = if elem == 8 { 1024 } else { 2048 };
    let mut s = edge_sizes(elem);
    s.extend([
        step - 1,
        step,
        step + 1,
        3 * step + 5,
        1 << 20,
        (1 << 22) + 3,
    ]);
    s.retain(|&n| n > 0);
    s
}

fn every_case<T: Ordered + Random + PartialOrd + Bits + Send>(
    gpu: &Device,
    cpu: &Device,
    s: u64,
    what: &str,
) {
    let elem = std::mem::size_of::<T>();
    for n in sizes(elem) {
        let xs: Vec<T> = random_vec_par(s ^ n as u64, n, true);
        for largest in [true, false] {
            check_ks(gpu, cpu, &xs, 0, &KS, largest, what);
            if n > 1 {
                check_ks(gpu, cpu, &xs, 1, &[1, 1000], largest, what);
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_topk_floats_match_the_cpu() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    every_case::<f32>(&g, &c, s, "f32");
    every_case::<f64>(&g, &c, s, "f64");
    every_case::<f16>(&g, &c, s, "f16");
    every_case::<bf16>(&g, &c, s, "bf16");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_topk_integers_match_the_cpu() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    every_case::<i8>(&g, &c, s, "i8");
    every_case::<i16>(&g, &c, s, "i16");
    every_case::<i32>(&g, &c, s, "i32");
    every_case::<i64>(&g, &c, s, "i64");
    every_case::<u8>(&g, &c, s, "u8");
    every_case::<u16>(&g, &c, s, "u16");
    every_case::<u32>(&g, &c, s, "u32");
    every_case::<u64>(&g, &c, s, "u64");
    every_case::<bool>(&g, &c, s, "bool");
}

/// Sorted, all-equal, few-valued and NaN-heavy inputs: many ties and a threshold that keeps
/// rising (ascending input refines often), exact all the same.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_topk_adversarial_inputs() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    // (2^24 + 5 is read by the sample level first.)
    for n in [5000usize, (1 << 20) + 7, 1 << 23, (1 << 24) + 5] {
        let up: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let down: Vec<f32> = up.iter().rev().copied().collect();
        let equal = vec![1.5f32; n];
        let few: Vec<f32> = f32::random_vec(&mut r, n, false)
            .into_iter()
            .map(|x| (x * 2.0).round())
            .collect();
        let nans: Vec<f32> = f32::random_vec(&mut r, n, false)
            .into_iter()
            .enumerate()
            .map(|(i, x)| if i % 3 == 0 { f32::NAN } else { x })
            .collect();
        let all_nan = vec![f32::NAN; n];
        let zeros: Vec<f32> = (0..n)
            .map(|i| if i % 2 == 0 { 0.0 } else { -0.0 })
            .collect();
        for (what, xs) in [
            ("ascending", &up),
            ("descending", &down),
            ("all equal", &equal),
            ("few values", &few),
            ("a third NaN", &nans),
            ("all NaN", &all_nan),
            ("signed zeros", &zeros),
        ] {
            check_ks(&g, &c, xs, 0, &[1, 100, 1000, 1024], true, what);
            check_ks(&g, &c, xs, 0, &[1, 100, 1000, 1024], false, what);
        }
        let ints: Vec<u32> = (0..n as u32).collect();
        let same = vec![u64::MAX; n];
        for largest in [true, false] {
            check_ks(&g, &c, &ints, 0, &[1, 1024], largest, "ascending u32");
            check_ks(&g, &c, &same, 0, &[1, 1024], largest, "all u64::MAX");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_topk_k_equal_to_n_and_errors() {
    let (g, c) = (gpu(), Device::cpu());
    let mut r = rng(seed());
    for n in [1usize, 2, 33, 1000, 1024] {
        let xs = i64::random_vec(&mut r, n, true);
        check(&g, &c, &xs, 0, n, true, "k = n");
        check(&g, &c, &xs, 0, n, false, "k = n");
    }
    let empty = g.upload::<f32>(&[]).unwrap();
    let none = g.top_k(&empty, 0).unwrap();
    assert!(none.values.is_empty() && none.indices.is_empty());
    assert!(matches!(
        g.top_k(&empty, 1),
        Err(Error::KExceedsLength { k: 1, len: 0 })
    ));
    let xs = g.upload(&vec![3u8; 5000]).unwrap();
    assert!(matches!(g.top_k(&xs, 1025), Err(Error::Unsupported(_))));
    assert!(matches!(
        g.bottom_k(&xs.slice(..10).unwrap(), 11),
        Err(Error::KExceedsLength { k: 11, len: 10 })
    ));
    assert_eq!(g.top_k(&xs, 0).unwrap().values.len(), 0);
    // `k` above 1,024 is reported before `k` above the length, on both backends.
    let cx = c.upload(&[3u8; 10]).unwrap();
    for (dev, v) in [(&g, xs.slice(..10).unwrap()), (&c, cx.slice(..).unwrap())] {
        for k in [1025usize, 5000] {
            assert!(
                matches!(dev.top_k(&v, k), Err(Error::Unsupported(_))),
                "top {k} of 10"
            );
            assert!(
                matches!(dev.bottom_k(&v, k), Err(Error::Unsupported(_))),
                "bottom {k} of 10"
            );
        }
        let none = v.slice(..0).unwrap();
        assert!(
            matches!(dev.top_k(&none, 1025), Err(Error::Unsupported(_))),
            "1025 of 0"
        );
    }
}

/// The benchmark's size: 2^28 f32 (1 GiB), k = 100 and 1,000, against plain Rust.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_topk_2_pow_28_f32() {
    let g = gpu();
    let s = seed();
    let n = 1usize << 28;
    let xs: Vec<f32> = random_vec_par(s, n, true);
    let arr = g.upload(&xs).unwrap();
    for k in [100usize, 1000] {
        for largest in [true, false] {
            let TopK { values, indices } = if largest {
                g.top_k(&arr, k).unwrap()
            } else {
                g.bottom_k(&arr, k).unwrap()
            };
            let want = sorted_k(&xs, k, largest);
            let want_idx: Vec<u64> = want.iter().map(|w| w.1).collect();
            assert_eq!(
                indices.download().unwrap(),
                want_idx,
                "k={k} largest={largest}"
            );
            let own: Vec<f32> = want_idx.iter().map(|&i| xs[i as usize]).collect();
            assert_bits(
                &values.download().unwrap(),
                &own,
                &format!("values k={k} largest={largest}"),
            );
        }
    }
}

/// The top-k along every axis of 3-d shapes against plain Rust: axes of size 1, long and
/// short lines, k from 0 to 1,024, NaNs and signed zeros, all-equal keys.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_top_k_axis_match_plain_rust() {
    use warp_tests::sorts::check_top_k_axis;
    let g = gpu();
    let cases: [([usize; 3], usize, usize); 9] = [
        ([4, 5, 3], 0, 2),
        ([4, 5, 3], 1, 5),
        ([4, 5, 3], 2, 0),
        ([1, 7, 1], 1, 7),
        ([3, 1, 6], 1, 1),
        ([8, 2000, 33], 1, 50),
        ([5000, 3, 70], 0, 1024),
        ([2, 300, 129], 0, 2),
        ([16, 1024, 64], 1, 1024),
    ];
    for (shape, axis, k) in cases {
        let len: usize = shape.iter().product();
        let s = seed() ^ (len * 7 + axis) as u64;
        let mut xs: Vec<f32> = random_vec_par(s, len, true);
        check_top_k_axis(&g, &xs, &shape, axis, k, "f32");
        for (i, x) in xs.iter_mut().enumerate().step_by(5) {
            *x = [f32::NAN, -0.0, 0.0, 1.0, -f32::NAN][i % 5];
        }
        check_top_k_axis(&g, &xs, &shape, axis, k, "f32 special");
        let xs: Vec<i16> = random_vec_par(s, len, true);
        check_top_k_axis(&g, &xs, &shape, axis, k, "i16");
        let xs = vec![3u64; len];
        check_top_k_axis(&g, &xs, &shape, axis, k, "u64 all equal");
    }
}

/// The top-k of each row against plain Rust: row lengths from 1 to vocabulary size, k from 1
/// to 1,024 (and equal to the row), every key width, rows of all-equal keys (ties decided by
/// the columns' radix select), NaNs, signed zeros, sorted and reversed rows; rows read once
/// (`wd_k_topk_rows_stream`: pieces of at least `TOPK_ROW_STREAM_MIN_COLS` columns) whole
/// (70,000 columns, k = 1,000) and in pieces that start misaligned (16 rows of 400,000).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_top_k_rows_match_plain_rust() {
    use warp_tests::sorts::check_top_k_rows;
    let g = gpu();
    let shapes = [
        (1, 1, 1),
        (5, 7, 3),
        (100, 32, 32),
        (33, 1000, 50),
        (7, 5000, 1024),
        (3, 70_000, 1000),
        (4, 128_256, 50),
        (16, 400_000, 50),
        (300, 257, 1),
    ];
    for (rows, cols, k) in shapes {
        let s = seed() ^ (rows * 31 + cols) as u64;
        let mut xs: Vec<f32> = random_vec_par(s, rows * cols, true);
        check_top_k_rows(&g, &xs, cols, k, "f32");
        for (i, x) in xs.iter_mut().enumerate().step_by(5) {
            *x = [f32::NAN, -0.0, 0.0, 1.0, -f32::NAN][i % 5];
        }
        check_top_k_rows(&g, &xs, cols, k, "f32 special");
        let xs: Vec<f64> = random_vec_par(s, rows * cols, true);
        check_top_k_rows(&g, &xs, cols, k, "f64");
        let xs: Vec<i8> = random_vec_par(s, rows * cols, true);
        check_top_k_rows(&g, &xs, cols, k, "i8");
        let xs: Vec<f16> = random_vec_par(s, rows * cols, true);
        check_top_k_rows(&g, &xs, cols, k, "f16");
        let xs = vec![7u64; rows * cols];
        check_top_k_rows(&g, &xs, cols, k, "u64 all equal");
        let xs: Vec<u32> = (0..rows * cols).map(|i| (i % cols) as u32).collect();
        check_top_k_rows(&g, &xs, cols, k, "u32 sorted rows");
        let xs: Vec<i32> = (0..rows * cols).map(|i| -((i % cols) as i32)).collect();
        check_top_k_rows(&g, &xs, cols, k, "i32 reversed rows");
    }
}
