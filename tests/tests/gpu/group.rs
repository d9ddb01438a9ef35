//! Device groups on the GPU against plain Rust (the same checks as the CPU backend's): every
//! GPU of the machine a rank, and two streams of one GPU as two ranks; a shard in the CPU
//! backend's memory refused.

use warp_runtime::DeviceGroup;
use warp_runtime::prelude::*;
use warp_tests::gpu;
use warp_tests::group::check_group;

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_a_group_of_devices_is_one_array() {
    let g = gpu();
    let mut devices = vec![g.clone()];
    for k in 1.. {
        match Device::cuda(k) {
            Ok(d) => devices.push(d),
            Err(_) => break,
        }
    }
    let streams = DeviceGroup::new(vec![g.clone(), g.fork().unwrap()]).unwrap();
    for group in [DeviceGroup::new(devices).unwrap(), streams] {
        for (k, n) in [0usize, 1, 5, 4099, (1 << 20) + 7].into_iter().enumerate() {
            check_group(&group, n, 100 + k as u64);
        }
    }
    let group = DeviceGroup::new(vec![g.clone(), g.fork().unwrap()]).unwrap();
    let cpu = Device::cpu();
    let shards = vec![g.upload(&[1u32, 2]).unwrap(), cpu.upload(&[3u32]).unwrap()];
    assert!(matches!(group.shards(shards), Err(Error::DeviceMismatch)));
}
