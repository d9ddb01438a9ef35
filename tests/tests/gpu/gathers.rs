//! Gathers on the GPU against plain Rust (the same checks as the CPU backend's): every
//! operation a gather feeds, index counts from one past a tile, past the vector and grid
//! boundaries, to 2^22, sorted and random; indices out of range found by the kernels.

use warp_tests::gathers::{check_bad_indices, check_gathers};
use warp_tests::ops::add_u64;
use warp_tests::{edge_sizes, gpu};

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_gathers_are_the_elements_named() {
    let g = gpu();
    for n in edge_sizes(8)
        .into_iter()
        .chain([(1usize << 20) + 3, 1 << 22])
    {
        check_gathers(&g, (n / 3).max(1), n, false, n as u64);
        check_gathers(&g, n + 17, n, true, n as u64 + 1);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_indices_out_of_range_are_errors() {
    let g = gpu();
    check_bad_indices(&g, 100, 1000, &[999]);
    check_bad_indices(&g, 100, 1000, &[700, 3, 998]);
    check_bad_indices(&g, 5000, 1 << 20, &[(1 << 20) - 1, 1 << 19, 77_777]);
    check_bad_indices(&g, 0, 8, &[0]);
    let xs = g.upload(&[1u64, 2]).unwrap();
    let none = g.upload::<u32>(&[]).unwrap();
    assert_eq!(g.reduce(add_u64, &xs.gather(&none)).unwrap(), 0);
}

/// `collect` of every kind of input on the GPU: edge sizes and a grid's worth.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_collect_writes_every_input_out() {
    let g = gpu();
    for (k, n) in edge_sizes(4)
        .into_iter()
        .chain([(1usize << 22) + 3])
        .enumerate()
    {
        warp_tests::collect::check_collect(&g, n, k as u64);
    }
}

/// Strided views (`step_by`) on the GPU: every operation, steps of 1 (dense), 2, 3, 32, 4096
/// and past the array, from offsets, lengths from one past a tile to 2^22 elements read.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_strided_views_are_every_step_th_element() {
    let g = gpu();
    for (k, (len, offset, step)) in [
        (0usize, 0usize, 1usize),
        (1, 0, 1),
        (1, 1, 3),
        (4099, 0, 1),
        (4099, 5, 2),
        (100_003, 1, 3),
        (1 << 20, 3, 32),
        ((1 << 22) * 3 + 2, 2, 3),
        (1 << 24, 0, 4096),
        (100, 7, 1000),
    ]
    .into_iter()
    .enumerate()
    {
        warp_tests::strides::check_strided(&g, len, offset, step, k as u64);
    }
}

/// Reductions of scattered gathers of arrays several times the L2 cache, whose indices are
/// first partitioned by the array's windows (one radix pass, seen in the launches): exact
/// integer sums against plain Rust through `u32` and `u64` indices, `f32` sums the same bits
/// on every run and from `reduce_into`, within rounding of an `f64` sum; indices in order
/// (read as they are, no partition); indices out of range named at their smallest position in
/// the caller's order.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scattered_gathers_of_large_arrays_reduce_exactly() {
    use warp_runtime::prelude::*;
    use warp_tests::events::Capture;
    use warp_tests::ops::sum_f32;
    let _big = warp_tests::big_lock();
    let g = gpu();
    let seed = warp_tests::seed();
    // 2^26 u64 (512 MiB) and 2^27 f32: more than four L2 caches of any GPU with up to 128 MiB.
    let values = 1usize << 26;
    let n = (1usize << 22) + 5;
    let xs_host: Vec<u64> = warp_tests::random_vec_par(seed, values, false);
    let idx_host: Vec<u32> = warp_tests::random_vec_par::<u32>(seed ^ 1, n, false)
        .into_iter()
        .map(|i| i % values as u32)
        .collect();
    let want = idx_host
        .iter()
        .fold(0u64, |s, &i| s.wrapping_add(xs_host[i as usize]));
    let xs = g.upload(&xs_host).unwrap();
    let idx = g.upload(&idx_host).unwrap();
    let partitions = |events: &[warp_tests::events::Captured]| {
        events
            .iter()
            .filter(|e| e.get("kernel") == Some("wd_k_sort_pass"))
            .count()
    };
    let (got, events) = Capture::run(|| g.reduce(add_u64, &xs.gather(&idx)).unwrap());
    assert_eq!(got, want, "u32 indices, seed {seed}");
    assert!(
        partitions(&events) >= 1,
        "the scattered gather was partitioned"
    );
    let idx64 = g
        .upload(&idx_host.iter().map(|&i| i as u64).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(
        g.reduce(add_u64, &xs.gather(&idx64)).unwrap(),
        want,
        "u64 indices"
    );
    let mut out = g.upload(&[0u64]).unwrap();
    g.reduce_into(add_u64, &xs.gather(&idx), &mut out).unwrap();
    assert_eq!(out.download().unwrap(), [want], "reduce_into");

    // Indices in order: read as they are.
    let mut sorted_host = idx_host.clone();
    sorted_host.sort_unstable();
    let sorted = g.upload(&sorted_host).unwrap();
    let (got, events) = Capture::run(|| g.reduce(add_u64, &xs.gather(&sorted)).unwrap());
    assert_eq!(got, want, "indices in order");
    assert_eq!(
        partitions(&events),
        0,
        "indices in order are not partitioned"
    );

    // f32: the same bits on every run and from reduce_into, close to the f64 sum.
    let fs_host: Vec<f32> = warp_tests::random_vec_par(seed ^ 2, 2 * values, false);
    let fidx_host: Vec<u32> = warp_tests::random_vec_par::<u32>(seed ^ 3, n, false)
        .into_iter()
        .map(|i| i % (2 * values) as u32)
        .collect();
    let fs = g.upload(&fs_host).unwrap();
    let fidx = g.upload(&fidx_host).unwrap();
    let a = g.reduce(sum_f32, &fs.gather(&fidx)).unwrap();
    let b = g.reduce(sum_f32, &fs.gather(&fidx)).unwrap();
    let mut into = g.upload(&[0f32]).unwrap();
    g.reduce_into(sum_f32, &fs.gather(&fidx), &mut into)
        .unwrap();
    assert_eq!(a.to_bits(), b.to_bits(), "f32 runs");
    assert_eq!(
        a.to_bits(),
        into.download().unwrap()[0].to_bits(),
        "f32 reduce_into"
    );
    let terms: Vec<f64> = fidx_host
        .iter()
        .map(|&i| fs_host[i as usize] as f64)
        .collect();
    warp_tests::assert_close_sum_of(a, &terms, "f32 scattered gather");

    // Out of range: the smallest bad position of the caller's order.
    let mut bad_host = idx_host.clone();
    bad_host[3_000_001] = values as u32 + 7;
    bad_host[123_457] = u32::MAX;
    let bad = g.upload(&bad_host).unwrap();
    for e in [
        g.reduce(add_u64, &xs.gather(&bad)).unwrap_err(),
        g.reduce_into(add_u64, &xs.gather(&bad), &mut out)
            .unwrap_err(),
    ] {
        match e {
            Error::IndexOutOfRange {
                position,
                index,
                len,
            } => assert_eq!((position, index, len), (123_457, u32::MAX as u64, values)),
            other => panic!("{other:?}"),
        }
    }
}
