//! Keys with runs of chosen lengths, and the plain-loop references of unique, run-length
//! encode and reduce-by-key that the runs tests and benchmarks compare with.

use rand::Rng;
use rand::rngs::SmallRng;

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
