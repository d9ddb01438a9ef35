//! Keys with runs of chosen lengths, and the plain-loop references of unique, run-length
//! encode and reduce-by-key that the runs tests and benchmarks compare with.

use rand::Rng;
use rand::rngs::SmallRng;
use warp_runtime::prelude::*;
use warp_runtime::{Array, Element, ReduceInput, Runs};

use crate::assert_bits;
use crate::ops::{
    Span, add_i64, argmax_f32, argmin_f64, moments, moments_one, scaled_one, span, span_one,
    sum_count, sum_pairs,
};

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
    V: ReduceInput<add_i64>,
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

/// The value columns of the reduce-by-key value tests, `n` each: floats with ties (small
/// integers, so that sums are exact in any order) and a NaN now and then, the same with each
/// NaN made 0, and wrapping integers.
pub fn value_columns(n: usize) -> (Vec<f32>, Vec<f32>, Vec<i32>) {
    let xs: Vec<f32> = (0..n)
        .map(|i| {
            if i % 97 == 13 {
                f32::NAN
            } else {
                ((i * 37) % 11) as f32 - 5.0
            }
        })
        .collect();
    let finite = xs
        .iter()
        .map(|x| if x.is_nan() { 0.0 } else { *x })
        .collect();
    let ys = (0..n as i32).map(|i| i.wrapping_mul(7) - 9).collect();
    (xs, finite, ys)
}

/// Reduce-by-key of every kind of value input over the keys `keys` on `dev` equals the hand
/// loop: `(value, index)` pairs (argmax per run, ties and NaN included), a map with a bound
/// argument to a tuple (sums and counts), zipped arrays as a tuple operator's value, a map to
/// a struct, and a predicate of two keys with a bound argument beside the map's. Values are
/// small integers (or NaN) so that float sums are exact in any order. `tag` names the case.
pub fn check_value_inputs(dev: &Device, keys: &[i32], tag: &str) {
    let (xs, finite, ys) = value_columns(keys.len());
    let (dk, dx, dy) = (
        dev.upload(keys).unwrap(),
        dev.upload(&xs).unwrap(),
        dev.upload(&ys).unwrap(),
    );
    let eq = |a: i32, b: i32| a == b;
    // argmax of (value, index) pairs.
    let pairs: Vec<(f32, u32)> = xs.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect();
    let (wk, wv) = rbk_ref(keys, &pairs, eq, (f32::NEG_INFINITY, u32::MAX), |a, b| {
        argmax_f32.call(a, b)
    });
    let by = dev.reduce_by_key(argmax_f32, &dk, &dx.indexed()).unwrap();
    assert_eq!(by.keys.download().unwrap(), wk, "argmax keys {tag}");
    let got = by.values.download().unwrap();
    assert_eq!(got.len(), wv.len(), "argmax runs {tag}");
    for (r, (g, w)) in got.iter().zip(&wv).enumerate() {
        assert!(
            g.1 == w.1 && g.0.to_bits() == w.0.to_bits(),
            "argmax run {r}: {g:?} != {w:?} {tag}"
        );
    }
    // A map with a bound argument to (sum, count), over the finite values.
    let df = dev.upload(&finite).unwrap();
    let scaled: Vec<(f32, u32)> = finite.iter().map(|&x| (x * 2.0, 1)).collect();
    let (wk, wv) = rbk_ref(keys, &scaled, eq, (0.0, 0), |a, b| sum_count.call(a, b));
    let by = dev
        .reduce_by_key(sum_count, &dk, &df.map(scaled_one.with(2.0)))
        .unwrap();
    assert_eq!(by.keys.download().unwrap(), wk, "sum and count keys {tag}");
    assert_bits(
        &by.values.download().unwrap(),
        &wv,
        &format!("sum and count {tag}"),
    );
    // The same with a predicate of two keys with its own bound argument.
    let near = |a: i32, b: i32| (a as i64 - b as i64).abs() <= 1;
    let (nk, nv) = rbk_ref(keys, &scaled, near, (0.0, 0), |a, b| sum_count.call(a, b));
    let by = dev
        .reduce_by_key_by(
            near_keys.with(1),
            sum_count,
            &dk,
            &df.map(scaled_one.with(2.0)),
        )
        .unwrap();
    assert_eq!(by.keys.download().unwrap(), nk, "near keys {tag}");
    assert_bits(
        &by.values.download().unwrap(),
        &nv,
        &format!("near sum and count {tag}"),
    );
    // Zipped arrays (the keys and another column) as a tuple operator's value: wrapping sums
    // of each column, written out over the two arrays.
    let zipped: Vec<(i32, i32)> = keys.iter().zip(&ys).map(|(&k, &y)| (k, y)).collect();
    let (wk, wv) = rbk_ref(keys, &zipped, eq, (0, 0), |a, b| {
        (a.0.wrapping_add(b.0), a.1.wrapping_add(b.1))
    });
    let by = dev.reduce_by_key(sum_pairs, &dk, &(&dk, &dy)).unwrap();
    assert_eq!(by.keys.download().unwrap(), wk, "zipped keys {tag}");
    assert_eq!(by.values.download().unwrap(), wv, "zipped {tag}");
    // A map to a struct.
    let spans: Vec<Span> = finite.iter().map(|&x| Span { lo: x, hi: x }).collect();
    let ident = Span {
        lo: f32::INFINITY,
        hi: f32::NEG_INFINITY,
    };
    let (wk, wv) = rbk_ref(keys, &spans, eq, ident, |a, b| span.call(a, b));
    let by = dev.reduce_by_key(span, &dk, &df.map(span_one)).unwrap();
    assert_eq!(by.keys.download().unwrap(), wk, "struct keys {tag}");
    assert_eq!(by.values.download().unwrap(), wv, "struct {tag}");
}

/// Neighbouring keys within `d` of each other (the predicate of [`check_value_inputs`]).
#[predicate(inputs = 2)]
pub fn near_keys(a: i32, b: i32, d: i32) -> bool {
    (a as i64 - b as i64).abs() <= d as i64
}

/// What reduce-by-key refuses, on any device: values over 8 bytes (a 12-byte struct, a
/// 16-byte pair), values and keys of different lengths, an index type too narrow.
pub fn check_value_errors(dev: &Device) {
    let keys = dev.upload(&[1, 1, 2]).unwrap();
    let xs = dev.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let ds = dev.upload(&[1.0f64, 2.0, 3.0]).unwrap();
    let short = dev.upload(&[1.0f32]).unwrap();
    let big = dev.reduce_by_key(moments, &keys, &xs.map(moments_one));
    assert!(
        matches!(big, Err(Error::Unsupported(ref m)) if m.contains("at most 8 bytes")),
        "{big:?}"
    );
    let wide = dev.reduce_by_key(argmin_f64, &keys, &ds.indexed());
    assert!(matches!(wide, Err(Error::Unsupported(_))), "{wide:?}");
    let shape = dev.reduce_by_key(argmax_f32, &keys, &short.indexed());
    assert!(
        matches!(shape, Err(Error::Shape(ref m)) if m.contains("keys hold 3 elements and the values 1")),
        "{shape:?}"
    );
    let many = dev.upload(&vec![0i32; 300]).unwrap();
    let many_x = dev.upload(&vec![0.0f32; 300]).unwrap();
    let narrow = dev.reduce_by_key(argmax_u8, &many, &many_x.indexed());
    assert!(
        matches!(narrow, Err(Error::Shape(ref m)) if m.contains("u8")),
        "{narrow:?}"
    );
}

/// Argmax with a `u8` index (too narrow for more than 256 elements).
#[reduce(identity = (f32::NEG_INFINITY, u8::MAX))]
pub fn argmax_u8(a: (f32, u8), b: (f32, u8)) -> (f32, u8) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}
