//! Generated ranges on the GPU against plain Rust (the same checks as the CPU backend's):
//! every operation a range feeds, sizes from one index past a tile, past the vector and grid
//! boundaries, to 2^24; starts at 0, odd, above 2^32 and near the top of `u32`.

use warp_tests::ranges::{check_ranges, check_zipped_ranges};
use warp_tests::{edge_sizes, gpu};

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_ranges_are_their_indices() {
    let g = gpu();
    for n in edge_sizes(8)
        .into_iter()
        .chain([(1usize << 20) + 3, 1 << 24])
    {
        check_ranges(&g, n, 0, 0);
        check_ranges(&g, n, (1 << 40) + 7, u32::MAX - (n as u32).min(1 << 20) - 3);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_zipped_ranges_are_their_indices_beside_the_arrays() {
    let g = gpu();
    for (k, n) in edge_sizes(8)
        .into_iter()
        .chain([(1usize << 20) + 3, 1 << 22])
        .enumerate()
    {
        check_zipped_ranges(&g, n, 0, 0, k as u64);
        let start32 = u32::MAX - (n as u32).min(1 << 20) - 3;
        check_zipped_ranges(&g, n, (1 << 40) + 7, start32, 1000 + k as u64);
    }
}
