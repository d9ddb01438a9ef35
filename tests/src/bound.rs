//! The bound-parameter limit on both backends: eight words in one kernel, every word read
//! (a device-resident value in the last), and a composition of more refused as
//! `Error::Unsupported` before anything is launched.

use warp_runtime::prelude::*;

use crate::events::Capture;
use crate::{Random, rng};

/// `x` plus each bound parameter weighted by its position: a word read from the wrong slot,
/// or not at all, changes the result.
#[map]
#[allow(clippy::too_many_arguments)]
pub fn weigh8(x: i64, a: i64, b: i64, c: i64, d: i64, e: i64, f: i64, g: i64, h: i64) -> i64 {
    x + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h
}

/// Whether `x` is odd (no bound parameter).
#[predicate]
pub fn odd_i64(x: i64) -> bool {
    x & 1 == 1
}

/// Whether `x` is above `t` (one bound parameter).
#[predicate]
pub fn over_i64(x: i64, t: i64) -> bool {
    x > t
}

/// Whether neighbouring keys are within `d` (one bound parameter).
#[predicate(inputs = 2)]
pub fn within_i64(a: i64, b: i64, d: i64) -> bool {
    (a - b).abs() <= d
}

/// `x` modulo `m` as a bin (one bound parameter).
#[map]
pub fn bin_mod(x: i64, m: i64) -> i64 {
    x % m
}

/// A wrapping `i64` sum.
#[reduce(identity = 0)]
pub fn add_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// The larger `i64`.
#[reduce(identity = i64::MIN)]
pub fn max_i64(a: i64, b: i64) -> i64 {
    a.max(b)
}

/// What `weigh8.with(1, 2, ..., 8)` adds: 1 + 2*2 + 3*3 + ... + 8*8.
pub const WEIGHT: i64 = 204;

/// Asserts that `f` fails with `Error::Unsupported` naming the count, and launches nothing.
fn refused<R: std::fmt::Debug>(
    what: &str,
    count: usize,
    f: impl FnOnce() -> warp_runtime::Result<R>,
) {
    let (r, events) = Capture::run(f);
    match r {
        Err(Error::Unsupported(m)) => assert!(
            m.contains(&format!("{count} bound parameters")),
            "{what}: {m}"
        ),
        other => panic!("{what}: expected Error::Unsupported, got {other:?}"),
    }
    let launches: Vec<_> = events.iter().filter(|e| e.message() == "launch").collect();
    assert!(launches.is_empty(), "{what}: launched {launches:?}");
}

/// Eight bound words are all read, one of them device-resident; nine or ten in a composition
/// are refused. `seed` makes the input.
pub fn check_bound_limits(dev: &Device, seed: u64) {
    let mut r = rng(seed);
    for n in [0usize, 1, 33, 5000] {
        let xs: Vec<i64> = i64::random_vec(&mut r, n, false)
            .into_iter()
            .map(|x| x >> 8)
            .collect();
        let want: Vec<i64> = xs.iter().map(|x| x + WEIGHT).collect();
        let g = dev.upload(&xs).unwrap();
        let w = weigh8.with(1, 2, 3, 4, 5, 6, 7, 8);
        assert_eq!(
            dev.map(w, &g).unwrap().download().unwrap(),
            want,
            "map n={n}"
        );
        // The last word from a result left on the device (an indirect argument).
        let h = dev
            .reduce_on_device(max_i64, &dev.upload(&[8i64, -3]).unwrap())
            .unwrap();
        let wd = weigh8.with(1, 2, 3, 4, 5, 6, 7, &h);
        assert_eq!(
            dev.map(wd.clone(), &g).unwrap().download().unwrap(),
            want,
            "map with a device-resident word n={n}"
        );
        let total = want.iter().fold(0i64, |a, &b| a.wrapping_add(b));
        assert_eq!(
            dev.reduce(add_i64, &g.map(w)).unwrap(),
            total,
            "reduce n={n}"
        );
        assert_eq!(
            dev.reduce(add_i64, &g.map(wd.clone())).unwrap(),
            total,
            "reduce, device-resident word n={n}"
        );
        // Eight in a composition: the map's eight and a predicate without parameters.
        let odd = want.iter().filter(|&&x| x & 1 == 1).count() as u64;
        assert_eq!(dev.count(odd_i64, &g.map(w)).unwrap(), odd, "count n={n}");
        let kept: Vec<i64> = want.iter().copied().filter(|x| x & 1 == 1).collect();
        assert_eq!(
            dev.filter(odd_i64, &g.map(wd.clone()))
                .unwrap()
                .download()
                .unwrap(),
            kept,
            "filter n={n}"
        );

        // Nine: the map's eight and the predicate's one.
        let nine = over_i64.with(0);
        refused("count", 9, || dev.count(nine, &g.map(w)));
        refused("any", 9, || dev.any(nine, &g.map(w)));
        refused("all", 9, || dev.all(nine, &g.map(w)));
        refused("find_first", 9, || dev.find_first(nine, &g.map(w)));
        refused("mask", 9, || dev.mask(nine, &g.map(w)));
        refused("filter", 9, || dev.filter(nine, &g.map(wd)));
        refused("partition", 9, || dev.partition(nine, &g.map(w)));
        refused("partition3", 9, || dev.partition3(nine, odd_i64, &g.map(w)));
        refused("partition3", 10, || dev.partition3(nine, nine, &g.map(w)));
        // Reduce-by-key: the values' map and the key comparison share the kernel.
        let keys: Vec<i64> = xs.iter().map(|x| x >> 50).collect();
        let k = dev.upload(&keys).unwrap();
        let by = dev.reduce_by_key(add_i64, &k, &g.map(w)).unwrap();
        let (mut run_keys, mut run_sums) = (Vec::new(), Vec::<i64>::new());
        for (i, (&key, &v)) in keys.iter().zip(&want).enumerate() {
            if i > 0 && keys[i - 1] == key {
                let last = run_sums.last_mut().unwrap();
                *last = last.wrapping_add(v);
            } else {
                run_keys.push(key);
                run_sums.push(v);
            }
        }
        assert_eq!(
            by.keys.download().unwrap(),
            run_keys,
            "reduce_by_key keys n={n}"
        );
        assert_eq!(
            by.values.download().unwrap(),
            run_sums,
            "reduce_by_key values n={n}"
        );
        refused("reduce_by_key_by", 9, || {
            dev.reduce_by_key_by(within_i64.with(1), add_i64, &k, &g.map(w))
        });
        refused("histogram", 9, || {
            dev.histogram::<u32, _, _>(bin_mod.with(7), &g.map(w), 7)
        });
    }
}
