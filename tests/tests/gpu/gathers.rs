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
