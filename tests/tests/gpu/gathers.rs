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
