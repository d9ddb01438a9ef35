//! Gathers on the CPU backend against plain Rust: empty indices, one, sizes around the
//! kernels' tiles, sorted and random indices; indices out of range.

use warp_runtime::prelude::*;
use warp_tests::gathers::{check_bad_indices, check_gathers};
use warp_tests::ops::add_u64;

#[test]
fn gathers_are_the_elements_named() {
    let dev = Device::cpu();
    for (values, n) in [
        (0usize, 0usize),
        (1, 1),
        (5, 31),
        (1000, 4099),
        (4099, 1000),
    ] {
        check_gathers(&dev, values, n, false, n as u64);
        check_gathers(&dev, values, n, true, n as u64 + 1);
    }
}

#[test]
fn indices_out_of_range_are_errors() -> warp_runtime::Result<()> {
    let dev = Device::cpu();
    check_bad_indices(&dev, 100, 1000, &[999]);
    check_bad_indices(&dev, 100, 1000, &[700, 3, 998]);
    check_bad_indices(&dev, 0, 8, &[0]);
    // Nothing is read past an empty gather: no error.
    let xs = dev.upload(&[1u64, 2])?;
    let none = dev.upload::<u32>(&[])?;
    assert_eq!(dev.reduce(add_u64, &xs.gather(&none))?, 0);
    Ok(())
}

/// `collect` of every kind of input on the CPU backend.
#[test]
fn collect_writes_every_input_out() {
    let dev = Device::cpu();
    for (k, n) in [0usize, 1, 31, 4099].into_iter().enumerate() {
        warp_tests::collect::check_collect(&dev, n, k as u64);
    }
}

/// Strided views (`step_by`) on the CPU backend: empty, one element, steps of 1, 2, 3, 32 and
/// larger than the array, from offsets.
#[test]
fn strided_views_are_every_step_th_element() {
    let dev = Device::cpu();
    for (k, (len, offset, step)) in [
        (0usize, 0usize, 1usize),
        (1, 0, 1),
        (1, 1, 3),
        (10, 1, 3),
        (4099, 0, 1),
        (4099, 5, 2),
        (12_000, 3, 32),
        (100, 7, 1000),
    ]
    .into_iter()
    .enumerate()
    {
        warp_tests::strides::check_strided(&dev, len, offset, step, k as u64);
    }
}
