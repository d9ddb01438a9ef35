//! Device groups (`DeviceGroup`, `ShardedVec`) against plain Rust over the whole array
//! (reductions, predicates, scans, compaction, histograms, top-k), and a group's float
//! reduction and scan against the rank-order fold of each shard's own: one check for groups of
//! CPU devices and of GPUs.

use rand::{Rng, SeedableRng};
use warp_runtime::prelude::*;
use warp_runtime::{DeviceGroup, ShardedVec};

use crate::ops::{above, add_u32, max_f32, sum_f32, u32_byte, u32_multiple_of, xor_u32};

/// Every operation of `group` over arrays of `n` random `u32` and `f32` (NaN included), cut
/// evenly by `upload` and unevenly (empty shards among them) by `shards`, against plain Rust;
/// `f32` sums against the rank-order fold of the shards' own sums, bit for bit; and the
/// shapes it refuses.
pub fn check_group(group: &DeviceGroup, n: usize, seed: u64) {
    let tag = format!("ranks={} n={n} seed={seed}", group.ranks());
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let ints: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let floats: Vec<f32> = (0..n)
        .map(|k| match k % 97 {
            13 => f32::NAN,
            _ => rng.random_range(-1000.0f32..1000.0),
        })
        .collect();
    // Even shards, then uneven ones: all in the last rank, and the first and last empty.
    let even = group.upload(&ints).unwrap();
    let lens = shard_lens(group.ranks(), n, &mut rng);
    let uneven = from_lens(group, &ints, &lens);
    let last = from_lens(group, &ints, &last_only(group.ranks(), n));
    for (xs, how) in [(&even, "even"), (&uneven, "uneven"), (&last, "last")] {
        let what = format!("{how} {tag}");
        assert_eq!(xs.len(), n, "len {what}");
        assert_eq!(xs.download().unwrap(), ints, "download {what}");
        let sum = ints.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        assert_eq!(group.reduce(add_u32, xs).unwrap(), sum, "reduce {what}");
        let everywhere = group.all_reduce(add_u32, xs).unwrap();
        assert_eq!(everywhere.len(), group.ranks(), "all_reduce {what}");
        for s in &everywhere {
            assert_eq!(s.get().unwrap(), sum, "all_reduce {what}");
        }
        let x = ints.iter().fold(0u32, |a, &b| a ^ b);
        assert_eq!(group.reduce(xor_u32, xs).unwrap(), x, "xor {what}");
        let by5 = u32_multiple_of.with(5);
        let hits: Vec<usize> = (0..n).filter(|&k| ints[k].is_multiple_of(5)).collect();
        assert_eq!(
            group.count(by5, xs).unwrap(),
            hits.len() as u64,
            "count {what}"
        );
        assert_eq!(group.any(by5, xs).unwrap(), !hits.is_empty(), "any {what}");
        assert_eq!(group.all(by5, xs).unwrap(), hits.len() == n, "all {what}");
        assert!(
            group.all(u32_multiple_of.with(1), xs).unwrap(),
            "all of 1 {what}"
        );
        assert_eq!(
            group.find_first(by5, xs).unwrap(),
            hits.first().copied(),
            "find_first {what}"
        );
        // Compaction: each rank keeps its own shard's hits; the shards in order are the hits.
        let kept = group.filter(by5, xs).unwrap();
        let want: Vec<u32> = hits.iter().map(|&k| ints[k]).collect();
        assert_eq!(kept.download().unwrap(), want, "filter {what}");
        for (k, (shard, kept)) in xs.shards().iter().zip(kept.shards()).enumerate() {
            let mine = shard
                .download()
                .unwrap()
                .iter()
                .filter(|&&v| v % 5 == 0)
                .count();
            assert_eq!(kept.len(), mine, "filter rank {k} {what}");
        }
        // Histogram of the low byte in 200 bins (bytes 200 and above dropped).
        let mut bins = vec![0u32; 200];
        for &v in &ints {
            if let Some(b) = bins.get_mut((v & 255) as usize) {
                *b += 1;
            }
        }
        let h: Vec<u32> = group.histogram(u32_byte.with(0), xs, 200).unwrap();
        assert_eq!(h, bins, "histogram {what}");
        // Scans: each rank continues from the ranks before it (exact: plain Rust's).
        let (incl, excl) = crate::scans::running(&ints, &[0, n], 0u32, u32::wrapping_add);
        let got = group.scan(add_u32, xs).unwrap();
        assert_eq!(got.download().unwrap(), incl, "scan {what}");
        for (k, (got, shard)) in got.shards().iter().zip(xs.shards()).enumerate() {
            assert_eq!(got.len(), shard.len(), "scan shard {k} {what}");
        }
        let got = group.exclusive_scan(add_u32, xs).unwrap();
        assert_eq!(got.download().unwrap(), excl, "exclusive scan {what}");
        // The smallest k with their positions (ties to the smaller position).
        for k in [0, 1, 7] {
            if k > n {
                assert!(
                    matches!(group.bottom_k(xs, k), Err(Error::KExceedsLength { .. })),
                    "bottom_k past the length {what}"
                );
                continue;
            }
            let mut order: Vec<(u32, u64)> =
                ints.iter().zip(0u64..).map(|(&v, i)| (v, i)).collect();
            order.sort_unstable();
            order.truncate(k);
            let (values, at) = group.bottom_k(xs, k).unwrap();
            let got: Vec<(u32, u64)> = values.into_iter().zip(at).collect();
            assert_eq!(got, order, "bottom_k {k} {what}");
        }
    }
    // The largest f32 (NaN above every number, ties to the smaller position), with repeated
    // values so that ties cross ranks.
    let repeats: Vec<f32> = floats
        .iter()
        .map(|&v| if v.is_nan() { v } else { (v / 100.0).round() })
        .collect();
    for lens in [even_lens(group.ranks(), n), last_only(group.ranks(), n)] {
        let xs = from_lens(group, &repeats, &lens);
        for k in [1, 5, 40] {
            if k > n {
                continue;
            }
            let want = crate::checks::top_k(&repeats, k);
            let (values, at) = group.top_k(&xs, k).unwrap();
            let got: Vec<(u32, u64)> = values.iter().map(|v| v.to_bits()).zip(at).collect();
            let want: Vec<(u32, u64)> = want.iter().map(|&(v, i)| (v.to_bits(), i)).collect();
            assert_eq!(got, want, "top_k {k} {lens:?} {tag}");
        }
    }
    if n < 2000 {
        assert!(
            matches!(group.top_k(&even, 1025), Err(Error::Unsupported(_))),
            "top_k of more than 1024 {tag}"
        );
    }
    // f32: the maximum (NaN ignored, as f32::max does) exactly, and the sum as the left fold
    // of each shard's own sum, in rank order.
    for lens in [even_lens(group.ranks(), n), lens] {
        let xs = from_lens(group, &floats, &lens);
        let max = floats.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let got = group.reduce(max_f32, &xs).unwrap();
        assert_eq!(got.to_bits(), max.to_bits(), "max {lens:?} {tag}");
        let sums: Vec<f32> = group
            .devices()
            .iter()
            .zip(xs.shards())
            .map(|(dev, shard)| dev.reduce(sum_f32, shard).unwrap())
            .collect();
        let fold = sums[1..].iter().fold(sums[0], |a, &b| a + b);
        let got = group.reduce(sum_f32, &xs).unwrap();
        assert_eq!(got.to_bits(), fold.to_bits(), "sum {lens:?} {tag}");
        // The scan: shard k's values are P + (the shard's own scan), P the left fold of the
        // shards' sums before it (rank 0: its own scan), NaN for NaN.
        for exclusive in [false, true] {
            let got = match exclusive {
                true => group.exclusive_scan(sum_f32, &xs),
                false => group.scan(sum_f32, &xs),
            };
            let got = got.unwrap();
            let mut before: Option<f32> = None;
            for (k, ((dev, shard), got)) in group
                .devices()
                .iter()
                .zip(xs.shards())
                .zip(got.shards())
                .enumerate()
            {
                let own = match exclusive {
                    true => dev.exclusive_scan(sum_f32, shard),
                    false => dev.scan(sum_f32, shard),
                };
                let own = own.unwrap().download().unwrap();
                let want: Vec<f32> = match before {
                    None => own,
                    Some(p) => own.iter().map(|&s| p + s).collect(),
                };
                let got = got.download().unwrap();
                let same = got.len() == want.len()
                    && got
                        .iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
                assert!(
                    same,
                    "scan f32 rank {k} exclusive={exclusive} {lens:?} {tag}"
                );
                before = Some(before.map_or(sums[k], |p| p + sums[k]));
            }
        }
        let t = above.with(500.0);
        let want = floats.iter().filter(|&&v| v > 500.0).count() as u64;
        assert_eq!(
            group.count(t, &xs).unwrap(),
            want,
            "count f32 {lens:?} {tag}"
        );
    }
    // One shard a rank.
    let one: Vec<DeviceVec<u32>> = vec![group.devices()[0].upload(&ints).unwrap()];
    if group.ranks() != 1 {
        assert!(
            matches!(group.shards(one), Err(Error::Shape(_))),
            "shards {tag}"
        );
    }
}

/// `n` elements in shards as even as they go.
fn even_lens(ranks: usize, n: usize) -> Vec<usize> {
    (0..ranks)
        .map(|k| n / ranks + usize::from(k < n % ranks))
        .collect()
}

/// `n` elements in random shards, the first and the last empty when there are three ranks
/// or more.
fn shard_lens(ranks: usize, n: usize, rng: &mut impl Rng) -> Vec<usize> {
    let inner = if ranks >= 3 { 1..ranks - 1 } else { 0..ranks };
    let mut cuts: Vec<usize> = (inner.start..inner.end.saturating_sub(1))
        .map(|_| rng.random_range(0..=n))
        .collect();
    cuts.push(0);
    cuts.push(n);
    cuts.sort_unstable();
    let mut lens = vec![0; ranks];
    for (k, w) in inner.zip(cuts.windows(2)) {
        lens[k] = w[1] - w[0];
    }
    lens
}

/// Every element in the last shard.
fn last_only(ranks: usize, n: usize) -> Vec<usize> {
    let mut lens = vec![0; ranks];
    lens[ranks - 1] = n;
    lens
}

/// `data` in shards of `lens`, each on its rank's device.
fn from_lens<T: warp_runtime::Element>(
    group: &DeviceGroup,
    data: &[T],
    lens: &[usize],
) -> ShardedVec<T> {
    assert_eq!(lens.iter().sum::<usize>(), data.len());
    let mut at = 0;
    let shards = group
        .devices()
        .iter()
        .zip(lens)
        .map(|(dev, &len)| {
            at += len;
            dev.upload(&data[at - len..at]).unwrap()
        })
        .collect();
    group.shards(shards).unwrap()
}
