//! Keys with runs of chosen lengths, and the plain-loop references of unique, run-length
//! encode and reduce-by-key that the runs tests and benchmarks compare with.

use rand::Rng;
use rand::rngs::SmallRng;
use warp_runtime::{Array, Device, Element, Runs};

use crate::ops::add_i64;

/// `n` i32 keys in runs whose lengths are uniform in `1..=2 * mean - 1` (mean `mean`; exactly 1
/// for `mean == 1`), each run's key different from the one before (so the runs are exactly
/// these).
pub fn run_keys(rng: &mut SmallRng, n: usize, mean: usize) -> Vec<i32> {
    let mut out = Vec::with_capacity(n);
    let mut key: i32 = rng.random();
    while out.len() < n {
        let len = if mean <= 1 {
            1
        } else {
            rng.random_range(1..=2 * mean - 1)
        };
        for _ in 0..len.min(n - out.len()) {
            out.push(key);
        }
        key = key.wrapping_add(rng.random_range(1..1000));
    }
    out
}

/// Where runs start under `same(previous, next)`: a hand loop.
pub fn heads_ref<K: Copy>(keys: &[K], same: impl Fn(K, K) -> bool) -> Vec<usize> {
    let mut heads = Vec::new();
    for i in 0..keys.len() {
        if i == 0 || !same(keys[i - 1], keys[i]) {
            heads.push(i);
        }
    }
    heads
}

/// Run-length encoding by a hand loop: (keys, lengths).
pub fn rle_ref<K: Copy>(keys: &[K], same: impl Fn(K, K) -> bool) -> (Vec<K>, Vec<u64>) {
    let mut ks = Vec::new();
    let mut counts: Vec<u64> = Vec::new();
    for (i, &k) in keys.iter().enumerate() {
        if i == 0 || !same(keys[i - 1], k) {
            ks.push(k);
            counts.push(1);
        } else if let Some(c) = counts.last_mut() {
            *c += 1;
        }
    }
    (ks, counts)
}

/// Reduce-by-key by a hand loop: each run's values folded from `identity` in order.
pub fn rbk_ref<K: Copy, V: Copy>(
    keys: &[K],
    values: &[V],
    same: impl Fn(K, K) -> bool,
    identity: V,
    combine: impl Fn(V, V) -> V,
) -> (Vec<K>, Vec<V>) {
    let mut ks = Vec::new();
    let mut vs: Vec<V> = Vec::new();
    for (i, (&k, &v)) in keys.iter().zip(values).enumerate() {
        if i == 0 || !same(keys[i - 1], k) {
            ks.push(k);
            vs.push(combine(identity, v));
        } else if let Some(last) = vs.last_mut() {
            *last = combine(*last, v);
        }
    }
    (ks, vs)
}

/// `unique`, `run_length_encode` and `reduce_by_key` (wrapping sums of `vals`) of the keys `d`
/// holds (`keys` on the host; `dv` holds `vals`) equal `Vec::dedup` and the hand loops; `tag`
/// names the case in a failure.
pub fn check_against_loops<K, V>(dev: &Device, d: &K, dv: &V, keys: &[i32], vals: &[i64], tag: &str)
where
    K: Array<Elem = i32>,
    V: Array<Elem = i64>,
{
    let mut want = keys.to_vec();
    want.dedup();
    assert_eq!(
        dev.unique(d).unwrap().download().unwrap(),
        want,
        "unique {tag}"
    );
    let (rk, rc) = rle_ref(keys, |a, b| a == b);
    let runs = dev.run_length_encode(d).unwrap();
    assert_eq!(runs.keys.download().unwrap(), rk, "rle keys {tag}");
    assert_eq!(counts_of(&runs), rc, "rle counts {tag}");
    let (bk, bv) = rbk_ref(keys, vals, |a, b| a == b, 0i64, i64::wrapping_add);
    let by = dev.reduce_by_key(add_i64, d, dv).unwrap();
    assert_eq!(by.keys.download().unwrap(), bk, "rbk keys {tag}");
    assert_eq!(by.values.download().unwrap(), bv, "rbk values {tag}");
}

/// The run lengths of `runs`, downloaded, as u64.
pub fn counts_of<K: Element>(runs: &Runs<K>) -> Vec<u64> {
    runs.counts
        .download()
        .unwrap()
        .into_iter()
        .map(u64::from)
        .collect()
}
