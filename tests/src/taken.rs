//! Device-resident lengths (`input.take(&count)`) against plain Rust: a compaction's count, left
//! on the device, as the length of the operations after it, one check for both backends.

use rand::{Rng, SeedableRng};
use warp_runtime::prelude::*;

use crate::ops::{add_u32, sum_f64, u32_byte, u32_multiple_of, u32_to_f64, xor_u32};
use crate::scans::running;

/// The wrapping sum of `xs`.
fn wsum(xs: &[u32]) -> u32 {
    xs.iter().fold(0u32, |a, &b| a.wrapping_add(b))
}

/// Every operation that takes a device-resident length, on `dev`, over the first `count`
/// elements of an array of `n` random `u32` (the values a `filter_into` by 3 kept, the rest of
/// the array left over from before), against plain Rust over those elements: reductions
/// (waiting, on the device, into an array, masked, of a map and of a map of a map), `count`,
/// `any`, `all`, `find_first` and their `_on_device` forms, compaction of the counted values
/// (`filter_into`, `argwhere_into`, `partition_into`, and a third operation over the second
/// count, all without a host read), `filter`, a histogram, a weighted histogram and
/// `collect_into`, `scan_into` and `exclusive_scan_into` (the places past the count left as
/// they were); a count above the length (the whole array); and the operations that refuse
/// one.
pub fn check_taken(dev: &Device, n: usize, seed: u64) {
    let tag = format!("n={n} seed={seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let host: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let xs = dev.upload(&host).unwrap();
    // Garbage past the count: the kept values are written over a random array.
    let junk: Vec<u32> = (0..n).map(|_| rng.random()).collect();
    let mut kept = dev.upload(&junk).unwrap();
    let by3 = u32_multiple_of.with(3);
    let count = dev.filter_into(by3, &xs, &mut kept).unwrap();
    let want: Vec<u32> = host
        .iter()
        .copied()
        .filter(|x| x.is_multiple_of(3))
        .collect();
    let k = want.len();
    let t = kept.take(&count);
    // Reductions.
    assert_eq!(
        dev.reduce(add_u32, &t).unwrap(),
        wsum(&want),
        "reduce {tag}"
    );
    let on = dev.reduce_on_device(xor_u32, &t).unwrap();
    let xor = want.iter().fold(0u32, |a, &b| a ^ b);
    assert_eq!(on.get().unwrap(), xor, "reduce_on_device {tag}");
    let mut one = dev.upload(&[7u32]).unwrap();
    dev.reduce_into(add_u32, &t, &mut one).unwrap();
    assert_eq!(one.download().unwrap(), [wsum(&want)], "reduce_into {tag}");
    let by2 = u32_multiple_of.with(2);
    let even: Vec<u32> = want
        .iter()
        .copied()
        .filter(|x| x.is_multiple_of(2))
        .collect();
    assert_eq!(
        dev.reduce(add_u32, &t.filter(by2)).unwrap(),
        wsum(&even),
        "masked {tag}"
    );
    let as_f64 = kept.map(u32_to_f64);
    let f: f64 = want.iter().map(|&x| x as f64).sum();
    let got = dev.reduce(sum_f64, &as_f64.take(&count)).unwrap();
    assert!(
        (got - f).abs() <= 1e-9 * f.abs().max(1.0),
        "map {tag}: {got} {f}"
    );
    // Predicates.
    let ones = want.iter().filter(|x| x.is_multiple_of(2)).count() as u64;
    assert_eq!(dev.count(by2, &t).unwrap(), ones, "count {tag}");
    let c = dev.count_on_device(by2, &t).unwrap();
    assert_eq!(c.get().unwrap(), ones, "count_on_device {tag}");
    assert_eq!(dev.any(by2, &t).unwrap(), ones > 0, "any {tag}");
    assert!(
        dev.all(by3, &t).unwrap(),
        "all kept are multiples of 3 {tag}"
    );
    assert_eq!(dev.all(by2, &t).unwrap(), ones == k as u64, "all {tag}");
    assert_eq!(
        dev.find_first(by2, &t).unwrap(),
        want.iter().position(|x| x.is_multiple_of(2)),
        "find_first {tag}"
    );
    // Compaction of the counted values, then an operation over that count: no host read
    // between the three.
    let mut second = dev.upload(&junk).unwrap();
    let count2 = dev.filter_into(by2, &t, &mut second).unwrap();
    let s2 = dev
        .reduce_on_device(add_u32, &second.take(&count2))
        .unwrap();
    assert_eq!(s2.get().unwrap(), wsum(&even), "chained {tag}");
    assert_eq!(
        count2.get().unwrap(),
        even.len() as u64,
        "second count {tag}"
    );
    let got = dev.filter(by2, &t).unwrap().download().unwrap();
    assert_eq!(got, even, "filter {tag}");
    let mut at = dev.upload(&vec![u32::MAX; n]).unwrap();
    let c = dev.argwhere_into(by2, &t, &mut at).unwrap().get().unwrap() as usize;
    let positions: Vec<u32> = (0..k as u32)
        .filter(|&i| want[i as usize].is_multiple_of(2))
        .collect();
    assert_eq!(
        &at.download().unwrap()[..c],
        &positions[..],
        "argwhere_into {tag}"
    );
    let (mut yes, mut no) = (dev.upload(&junk).unwrap(), dev.upload(&junk).unwrap());
    let c = dev
        .partition_into(by2, &t, &mut yes, &mut no)
        .unwrap()
        .get()
        .unwrap() as usize;
    let odd: Vec<u32> = want
        .iter()
        .copied()
        .filter(|x| !x.is_multiple_of(2))
        .collect();
    assert_eq!(
        &yes.download().unwrap()[..c],
        &even[..],
        "partition kept {tag}"
    );
    assert_eq!(
        &no.download().unwrap()[..k - c],
        &odd[..],
        "partition rejected {tag}"
    );
    // Histograms.
    let mut bins = vec![0u32; 256];
    let mut weighted = vec![0u32; 256];
    for (j, &x) in want.iter().enumerate() {
        bins[(x & 255) as usize] += 1;
        weighted[(x & 255) as usize] = weighted[(x & 255) as usize].wrapping_add(host[j]);
    }
    let got = dev
        .histogram::<u32, _, _>(u32_byte.with(0), &t, 256)
        .unwrap();
    assert_eq!(got.download().unwrap(), bins, "histogram {tag}");
    let got = dev
        .histogram_weighted(u32_byte.with(0), &t, &xs, 256)
        .unwrap();
    assert_eq!(
        got.download().unwrap(),
        weighted,
        "histogram_weighted {tag}"
    );
    // collect_into: the first `count` places, the others as they were.
    let mut out = dev.upload(&junk).unwrap();
    dev.collect_into(&t, &mut out).unwrap();
    let mut expect = junk.clone();
    expect[..k].copy_from_slice(&want);
    assert_eq!(out.download().unwrap(), expect, "collect_into {tag}");
    // scan_into and exclusive_scan_into: the first `count` places, the others as they were.
    let (inclusive, exclusive) = running(&want, &[0, k], 0u32, u32::wrapping_add);
    let mut out = dev.upload(&junk).unwrap();
    dev.scan_into(add_u32, &t, &mut out).unwrap();
    let mut expect = junk.clone();
    expect[..k].copy_from_slice(&inclusive);
    assert_eq!(out.download().unwrap(), expect, "scan_into {tag}");
    let mut out = dev.upload(&junk).unwrap();
    dev.exclusive_scan_into(add_u32, &t, &mut out).unwrap();
    let mut expect = junk.clone();
    expect[..k].copy_from_slice(&exclusive);
    assert_eq!(out.download().unwrap(), expect, "exclusive_scan_into {tag}");
    // The same continued from an initial value: op(init, each).
    let init = 0x9e37_79b9u32;
    let mut out = dev.upload(&junk).unwrap();
    dev.scan_from_into(add_u32, &t, init, &mut out).unwrap();
    let mut expect = junk.clone();
    for (e, v) in expect[..k].iter_mut().zip(&inclusive) {
        *e = init.wrapping_add(*v);
    }
    assert_eq!(out.download().unwrap(), expect, "scan_from_into {tag}");
    let mut out = dev.upload(&junk).unwrap();
    dev.exclusive_scan_from_into(add_u32, &t, init, &mut out)
        .unwrap();
    let mut expect = junk.clone();
    for (e, v) in expect[..k].iter_mut().zip(&exclusive) {
        *e = init.wrapping_add(*v);
    }
    assert_eq!(
        out.download().unwrap(),
        expect,
        "exclusive_scan_from_into {tag}"
    );
    // A count above the length: the whole input.
    let all = dev.count_on_device(u32_multiple_of.with(1), &xs).unwrap();
    let half = dev.upload(&host[..n / 2]).unwrap();
    assert_eq!(
        dev.reduce(add_u32, &half.take(&all)).unwrap(),
        wsum(&host[..n / 2]),
        "a count above the length {tag}"
    );
    // The operations that do not take one refuse it (an empty input may return first).
    if n == 0 {
        return;
    }
    let refused = |r: warp_runtime::Result<()>, what: &str| {
        assert!(
            matches!(r, Err(Error::Unsupported(_))),
            "{what} of a device length: {r:?} {tag}"
        );
    };
    refused(dev.scan(add_u32, &t).map(drop), "scan");
    refused(dev.scan_from(add_u32, &t, 1).map(drop), "scan_from");
    refused(dev.mask(by2, &t).map(drop), "mask");
    refused(dev.collect(&t).map(drop), "collect");
    refused(dev.partition3(by2, by3, &t).map(drop), "partition3");
    if n.is_multiple_of(2) {
        refused(dev.reduce_rows(add_u32, &t, 2).map(drop), "reduce_rows");
    }
    refused(
        dev.reduce(add_u32, &Take::take(&t, &count)).map(drop),
        "a second take",
    );
}
