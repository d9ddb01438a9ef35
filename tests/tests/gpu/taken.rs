//! Device-resident lengths (`input.take(&count)`) on the GPU against plain Rust (the same
//! checks as the CPU backend's): a compaction's count as the length of reductions, predicates,
//! compaction, histograms and `collect_into`, sizes from one element past the tiles and the
//! grid; a count written on another stream of the GPU; a count of the CPU backend refused.

use warp_runtime::prelude::*;
use warp_tests::ops::{add_u32, u32_multiple_of};
use warp_tests::taken::check_taken;
use warp_tests::{edge_sizes, gpu};

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_a_device_length_is_the_length_of_the_next_operation() {
    let g = gpu();
    for (k, n) in edge_sizes(8)
        .into_iter()
        .chain([(1usize << 20) + 3, 1 << 22])
        .enumerate()
    {
        check_taken(&g, n, 7 + k as u64);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_a_device_length_from_another_stream_or_backend() {
    let g = gpu();
    let other = g.fork().unwrap();
    let host: Vec<u32> = (0..(1u32 << 20) + 5).collect();
    let xs = g.upload(&host).unwrap();
    let mut kept = g.upload(&vec![0u32; host.len()]).unwrap();
    let count = g
        .filter_into(u32_multiple_of.with(5), &xs, &mut kept)
        .unwrap();
    // Read on another stream of the same GPU: it waits for the count's kernel.
    let want = host
        .iter()
        .filter(|x| x.is_multiple_of(5))
        .fold(0u32, |a, &b| a.wrapping_add(b));
    assert_eq!(other.reduce(add_u32, &kept.take(&count)).unwrap(), want);
    // A count of the CPU backend is not where the GPU's kernels can read it.
    let cpu = Device::cpu();
    let cxs = cpu.upload(&host).unwrap();
    let ccount = cpu.count_on_device(u32_multiple_of.with(5), &cxs).unwrap();
    assert!(matches!(
        g.reduce(add_u32, &kept.take(&ccount)),
        Err(Error::DeviceMismatch)
    ));
}
