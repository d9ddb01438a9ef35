//! Device groups of CPU devices (one to four ranks) against plain Rust: the shards' upload,
//! download, reductions and predicates, even, uneven and empty shards.

use warp_runtime::DeviceGroup;
use warp_runtime::prelude::*;
use warp_tests::group::check_group;

#[test]
fn a_group_of_cpu_devices_is_one_array() {
    for ranks in 1..=4 {
        let group = DeviceGroup::new(vec![Device::cpu(); ranks]).unwrap();
        for (k, n) in [0usize, 1, 5, 1000, 4099].into_iter().enumerate() {
            check_group(&group, n, (ranks * 10 + k) as u64);
        }
    }
    assert!(matches!(DeviceGroup::new(vec![]), Err(Error::Shape(_))));
}
