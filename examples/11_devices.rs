//! Several devices as one: an array cut into shards, one a rank of a `DeviceGroup` (every GPU
//! of the machine; two streams of one GPU when there is one GPU; two CPU devices without a
//! GPU), its reductions, predicates, scans, compaction, histogram and top-k, each checked
//! against plain Rust; and an input scanned in chunks on one device (`scan_from`). Built with
//! `--features nccl` and NCCL loadable, it also runs a world of one NCCL rank.
//!
//!     cargo run --release --example 11_devices

use warp_runtime::prelude::*;
use warp_runtime::{DeviceGroup, ShardedVec};

#[reduce(identity = 0)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[predicate]
fn multiple_of(x: i64, k: i64) -> bool {
    x % k == 0
}

/// The bin of a value in `0..1000`: its hundreds.
#[map]
fn hundreds(x: i64) -> u32 {
    (x / 100) as u32
}

/// The ranks: every GPU, else two streams of the one GPU, else two CPU devices.
fn ranks() -> warp_runtime::Result<Vec<Device>> {
    let mut gpus = Vec::new();
    while let Ok(d) = Device::cuda(gpus.len()) {
        gpus.push(d);
    }
    Ok(match gpus.len() {
        0 => vec![Device::cpu(), Device::cpu()],
        1 => vec![gpus[0].clone(), gpus[0].fork()?],
        _ => gpus,
    })
}

fn main() -> warp_runtime::Result<()> {
    let group = DeviceGroup::new(ranks()?)?;
    for (k, dev) in group.devices().iter().enumerate() {
        println!("rank {k}: {}", dev.describe());
    }
    let n = 3_000_017usize;
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let data: Vec<i64> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 1000) as i64
        })
        .collect();
    let xs: ShardedVec<i64> = group.upload(&data)?; // shards as even as they go
    let lens: Vec<usize> = xs.shards().iter().map(|s| s.len()).collect();
    println!("  {n} values in shards of {lens:?}");

    // Reductions and predicates: each rank's result, folded in rank order on the host.
    let total = group.reduce(add, &xs)?;
    assert_eq!(total, data.iter().sum::<i64>());
    let everywhere = group.all_reduce(add, &xs)?; // the same value left on every rank's device
    for scalar in &everywhere {
        assert_eq!(scalar.get()?, total);
    }
    let by7 = multiple_of.with(7);
    let count = group.count(by7, &xs)?;
    assert_eq!(count as usize, data.iter().filter(|&&x| x % 7 == 0).count());
    let first = group.find_first(multiple_of.with(997), &xs)?;
    assert_eq!(first, data.iter().position(|&x| x % 997 == 0));
    println!("  sum {total}, {count} multiples of 7, the first multiple of 997 at {first:?}");

    // The scan of the whole array: each rank continues from the ranks before it.
    let running = group.scan(add, &xs)?.download()?;
    let mut acc = 0i64;
    for (i, &x) in data.iter().enumerate() {
        acc += x;
        assert_eq!(running[i], acc, "scan at {i}");
    }
    println!("  running sum ends at {}", running[n - 1]);

    // Compaction (each rank keeps its own), a histogram, the top 5 with their positions.
    let kept = group.filter(by7, &xs)?;
    let want: Vec<i64> = data.iter().copied().filter(|x| x % 7 == 0).collect();
    assert_eq!(kept.download()?, want);
    let h: Vec<u64> = group.histogram(hundreds, &xs, 10)?;
    for (b, &c) in h.iter().enumerate() {
        assert_eq!(
            c as usize,
            data.iter().filter(|&&x| x / 100 == b as i64).count()
        );
    }
    let (best, at) = group.top_k(&xs, 5)?;
    let mut order: Vec<(i64, usize)> = data.iter().copied().zip(0..).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (j, (&v, &p)) in best.iter().zip(&at).enumerate() {
        assert_eq!((v, p as usize), order[j]);
    }
    println!("  histogram by hundreds {h:?}; top 5 {best:?} at {at:?}");

    // One device, an input too long for one call: scanned in chunks, each from the last.
    let dev = group.devices()[0].clone();
    let whole = dev.upload(&data)?;
    let mut carry = 0i64;
    let mut chunks = Vec::new();
    for start in (0..n).step_by(1 << 20) {
        let chunk = whole.slice(start..(start + (1 << 20)).min(n))?;
        let part = dev.scan_from(add, &chunk, carry)?.download()?;
        carry = *part.last().expect("a chunk is not empty");
        chunks.extend(part);
    }
    assert_eq!(chunks, running);
    println!("  scanned in chunks of 2^20 from each chunk's carry: the same running sum");

    nccl_world_of_one(&dev, &data)?;
    println!("all checks passed");
    Ok(())
}

/// A world of one NCCL rank (feature `nccl`, NCCL loadable as `libnccl.so`, a GPU): the rank's
/// reduction, count and scan across ranks are its own.
#[cfg(feature = "nccl")]
fn nccl_world_of_one(dev: &Device, data: &[i64]) -> warp_runtime::Result<()> {
    use warp_runtime::{Rank, nccl_available, nccl_id};
    if !dev.is_gpu() || !nccl_available() {
        println!("  NCCL rank: skipped (needs a GPU and libnccl.so on LD_LIBRARY_PATH)");
        return Ok(());
    }
    let me = Rank::connect(0, 0, 1, nccl_id()?)?;
    let xs = me.device().upload(data)?;
    assert_eq!(me.reduce_all(add, &xs)?, data.iter().sum::<i64>());
    let mut out = me.device().upload(&vec![0i64; data.len()])?;
    me.scan_all_into(add, &xs, &mut out)?;
    assert_eq!(out.download()?, me.device().scan(add, &xs)?.download()?);
    println!(
        "  NCCL rank {} of {}: reduce_all and scan_all_into agree",
        me.rank(),
        me.world_size()
    );
    Ok(())
}

#[cfg(not(feature = "nccl"))]
fn nccl_world_of_one(_: &Device, _: &[i64]) -> warp_runtime::Result<()> {
    println!("  NCCL rank: not built (cargo run --example 11_devices --features nccl)");
    Ok(())
}
