//! Generated ranges on the CPU backend against plain Rust: empty, one index, sizes around the
//! kernels' tiles, starts near the top of `u32`, a reversed range (empty).

use warp_runtime::prelude::*;
use warp_tests::ops::add_u64;
use warp_tests::ranges::{check_ranges, check_zipped_ranges};

#[test]
fn ranges_are_their_indices() {
    let dev = Device::cpu();
    for n in [0usize, 1, 2, 31, 1000, 4099] {
        check_ranges(&dev, n, 0, 0);
        check_ranges(&dev, n, 1 << 40, u32::MAX - 5000);
    }
    #[allow(clippy::reversed_empty_ranges)]
    let empty = dev.range(9u64..3);
    assert!(empty.is_empty());
    assert_eq!(dev.reduce(add_u64, &empty).unwrap(), 0);
}

#[test]
fn zipped_ranges_are_their_indices_beside_the_arrays() {
    let dev = Device::cpu();
    for (k, n) in [0usize, 1, 2, 31, 1000, 4099].into_iter().enumerate() {
        check_zipped_ranges(&dev, n, 0, 0, k as u64);
        check_zipped_ranges(&dev, n, 1 << 40, u32::MAX - 5000, 100 + k as u64);
    }
}
