//! Device-resident lengths (`input.take(&count)`) on the CPU backend against plain Rust:
//! empty, one element, sizes around the kernels' tiles.

use warp_runtime::prelude::*;
use warp_tests::taken::check_taken;

#[test]
fn a_device_length_is_the_length_of_the_next_operation() {
    let dev = Device::cpu();
    for (k, n) in [0usize, 1, 2, 31, 1000, 4099].into_iter().enumerate() {
        check_taken(&dev, n, 7 + k as u64);
    }
}
