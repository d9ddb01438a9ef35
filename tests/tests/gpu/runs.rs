//! unique, run-length encode and reduce-by-key on the GPU against the CPU backend and plain
//! loops (`Vec::dedup`, hand-written run loops): edge sizes, empty input, all-equal and
//! all-distinct keys, runs shorter than a warp's row up to runs crossing many block tiles
//! (4096 elements each; a window of the look-back is 32 of them), misaligned views (the
//! scalar-load path), keys of 1 to 8 bytes, NaN keys, predicates of two keys, a
//! non-commutative operator, the `_into` forms, and reduce-by-key of every kind of value input
//! (indexed, mapped to tuples and structs, zipped). Every run's key and value is compared; f32
//! sums by key of exact inputs (small integers) bit for bit against exact sums, up to one run
//! of 2^24 elements, and of random floats within a tolerance and deterministic. Needs a CUDA
//! GPU.

use warp_runtime::prelude::*;
use warp_runtime::{DeviceView, Equal};
use warp_tests::ops::{add_i64, sum_f32};
use warp_tests::runs::{
    check_against_loops, check_value_errors, check_value_inputs, counts_of, rbk_ref, rle_ref,
    run_keys,
};
use warp_tests::{Random, assert_bits, edge_sizes, exact_vec, gpu, rng, seed};

/// The later value: associative, not commutative (i32::MIN is "none").
#[reduce(identity = i32::MIN)]
fn last(a: i32, b: i32) -> i32 {
    if b == i32::MIN { a } else { b }
}
#[reduce(identity = 0)]
fn add_u32(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}
#[predicate(inputs = 2)]
fn near(a: i32, b: i32, d: i32) -> bool {
    (a as i64 - b as i64).abs() <= d as i64
}

/// Sizes crossing warp tiles (512), block tiles (4096) and look-back windows (32 block tiles).
fn sizes() -> Vec<usize> {
    let mut s = edge_sizes(4);
    s.extend([
        511,
        512,
        513,
        4095,
        4096,
        4097,
        8191,
        8193,
        32 * 4096 + 1,
        70 * 4096 + 5,
    ]);
    s.push((1 << 24) + 3);
    s
}

/// Every operation over i32 keys (and i64 / i32 values) equals the plain loops and the CPU.
fn check(gpu: &Device, keys: &[i32], tag: &str) {
    let cpu = Device::cpu();
    let n = keys.len();
    let vals: Vec<i64> = (0..n as i64).map(|i| i * 7 - 3).collect();
    let lasts: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(31)).collect();
    let (gk, gv, gl) = (
        gpu.upload(keys).unwrap(),
        gpu.upload(&vals).unwrap(),
        gpu.upload(&lasts).unwrap(),
    );
    let (ck, cv) = (cpu.upload(keys).unwrap(), cpu.upload(&vals).unwrap());
    for off in [0usize, 3] {
        if off > n {
            continue;
        }
        let m = n - off;
        let tag = format!("{tag} off={off}");
        let ks: DeviceView<'_, i32> = gk.slice(off..).unwrap();
        let k = &keys[off..];
        let vs = gv.slice(off..).unwrap();
        check_against_loops(gpu, &ks, &vs, k, &vals[off..], &tag);
        let (rk, rc) = rle_ref(k, |a, b| a == b);
        let (bk, bv) = rbk_ref(k, &vals[off..], |a, b| a == b, 0i64, i64::wrapping_add);
        let ls = gl.slice(off..).unwrap();
        let (_, lv) = rbk_ref(
            k,
            &lasts[off..],
            |a, b| a == b,
            i32::MIN,
            |a, b| if b == i32::MIN { a } else { b },
        );
        let by = gpu.reduce_by_key(last, &ks, &ls).unwrap();
        assert_eq!(by.keys.download().unwrap(), rk, "rbk last keys {tag}");
        assert_eq!(by.values.download().unwrap(), lv, "rbk last {tag}");
        // u64 counts through the _into form; the count stays on the device.
        let (mut ok, mut oc) = (gpu.new_vec::<i32>(m), gpu.new_vec::<u64>(m));
        let count = gpu
            .run_length_encode_into(Equal, &ks, &mut ok, &mut oc)
            .unwrap();
        assert_eq!(
            count.get().unwrap() as usize,
            rc.len(),
            "rle_into count {tag}"
        );
        assert_eq!(
            ok.download().unwrap()[..rk.len()],
            rk[..],
            "rle_into keys {tag}"
        );
        assert_eq!(
            oc.download().unwrap()[..rc.len()],
            rc[..],
            "rle_into counts {tag}"
        );
        if off == 0 {
            let c = cpu.reduce_by_key(add_i64, &ck, &cv).unwrap();
            assert_eq!(c.keys.download().unwrap(), bk, "cpu rbk keys {tag}");
            assert_eq!(c.values.download().unwrap(), bv, "cpu rbk {tag}");
        }
    }
}

trait NewVec {
    fn new_vec<T: warp_runtime::Element>(&self, n: usize) -> DeviceVec<T>;
}
impl NewVec for Device {
    fn new_vec<T: warp_runtime::Element>(&self, n: usize) -> DeviceVec<T> {
        self.upload(&vec![T::default(); n]).unwrap()
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn runs_match_plain_loops_and_the_cpu() {
    let g = gpu();
    let s = seed();
    let mut r = rng(s);
    for n in sizes() {
        for mean in [1usize, 3, 4, 33, 64, 600, 5000, 200_000] {
            let keys = run_keys(&mut r, n, mean);
            check(&g, &keys, &format!("n={n} mean={mean}"));
        }
        check(&g, &vec![-5; n], &format!("all equal n={n}"));
        check(
            &g,
            &(0..n as i32).collect::<Vec<_>>(),
            &format!("all distinct n={n}"),
        );
    }
}

/// Reduce-by-key of every kind of value input (see `check_value_inputs`) over keys in runs of
/// several mean lengths, at every size; and what reduce-by-key refuses.
#[test]
#[ignore = "needs a CUDA GPU"]
fn values_of_every_input_kind() {
    let gpu = gpu();
    let s = seed();
    let mut r = rng(s);
    for n in sizes() {
        for mean in [1usize, 3, 64, 5000] {
            let keys = run_keys(&mut r, n, mean);
            check_value_inputs(&gpu, &keys, &format!("n={n} mean={mean}"));
        }
    }
    check_value_errors(&gpu);
}

/// A single run over 2^26 elements (16384 block tiles: the look-back's value waits on
/// inclusive prefixes window after window) and runs of exactly one block tile.
#[test]
#[ignore = "needs a CUDA GPU"]
fn long_runs_cross_many_tiles() {
    let g = gpu();
    let n = 1 << 26;
    check(&g, &vec![7; n], "one run of 2^26");
    let keys: Vec<i32> = (0..n).map(|i| (i / 4096) as i32).collect();
    check(&g, &keys, "runs of one block tile");
    let keys: Vec<i32> = (0..n).map(|i| ((i + 2048) / 4096) as i32).collect();
    check(&g, &keys, "runs of one block tile, shifted by half");
}

/// Keys of 1, 2 and 8 bytes, bool and f16 keys; f32 keys with NaN (each its own run), -0.0
/// and 0.0 (one run), infinities.
#[test]
#[ignore = "needs a CUDA GPU"]
fn keys_of_every_width_and_nan() {
    let (g, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in sizes() {
        let base = run_keys(&mut r, n, 5);
        let u8s: Vec<u8> = base.iter().map(|&k| (k as u8) & 3).collect();
        let i16s: Vec<i16> = base.iter().map(|&k| k as i16).collect();
        let u64s: Vec<u64> = base.iter().map(|&k| (k as u64) << 33).collect();
        let bools: Vec<bool> = base.iter().map(|&k| k & 1 == 0).collect();
        macro_rules! same_as_cpu {
            ($xs:expr, $what:expr) => {{
                let xs = $xs;
                let (gd, cd) = (g.upload(&xs).unwrap(), cpu.upload(&xs).unwrap());
                let mut want = xs.clone();
                want.dedup();
                assert_eq!(
                    g.unique(&gd).unwrap().download().unwrap(),
                    want,
                    "{} n={n}",
                    $what
                );
                let (gr, cr) = (
                    g.run_length_encode(&gd).unwrap(),
                    cpu.run_length_encode(&cd).unwrap(),
                );
                assert_eq!(
                    gr.keys.download().unwrap(),
                    cr.keys.download().unwrap(),
                    "{} n={n}",
                    $what
                );
                assert_eq!(
                    gr.counts.download().unwrap(),
                    cr.counts.download().unwrap(),
                    "{} n={n}",
                    $what
                );
                let (rk, rc) = rle_ref(&xs, |a, b| a == b);
                assert_eq!(gr.keys.download().unwrap(), rk, "{} rle keys n={n}", $what);
                assert_eq!(counts_of(&gr), rc, "{} rle counts n={n}", $what);
                let idx: Vec<u32> = (0..xs.len() as u32).collect();
                let (bk, bv) = rbk_ref(&xs, &idx, |a, b| a == b, 0u32, u32::wrapping_add);
                let (gv, cv) = (g.upload(&idx).unwrap(), cpu.upload(&idx).unwrap());
                for by in [
                    g.reduce_by_key(add_u32, &gd, &gv).unwrap(),
                    cpu.reduce_by_key(add_u32, &cd, &cv).unwrap(),
                ] {
                    assert_eq!(by.keys.download().unwrap(), bk, "{} rbk keys n={n}", $what);
                    assert_eq!(by.values.download().unwrap(), bv, "{} rbk n={n}", $what);
                }
            }};
        }
        same_as_cpu!(u8s, "u8");
        same_as_cpu!(i16s, "i16");
        same_as_cpu!(u64s, "u64");
        same_as_cpu!(bools, "bool");
        let halves: Vec<f16> = base
            .iter()
            .map(|&k| f16::from_f32((k % 7) as f32))
            .collect();
        same_as_cpu!(halves, "f16");
        // Floats with specials, in runs: NaN runs split into single elements.
        let mut fs = f32::random_vec(&mut r, n.div_ceil(4), true);
        fs.iter_mut().step_by(5).for_each(|x| *x = f32::NAN);
        let fs: Vec<f32> = fs
            .iter()
            .flat_map(|&x| [x, x, if x == 0.0 { -x } else { x }, x])
            .take(n)
            .collect();
        let gd = g.upload(&fs).unwrap();
        let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut want = fs.clone();
        want.dedup();
        assert_eq!(
            bits(g.unique(&gd).unwrap().download().unwrap()),
            bits(want),
            "f32 NaN n={n}"
        );
        let (rk, rc) = rle_ref(&fs, |a, b| a == b);
        let runs = g.run_length_encode(&gd).unwrap();
        assert_eq!(
            bits(runs.keys.download().unwrap()),
            bits(rk),
            "f32 NaN keys n={n}"
        );
        assert_eq!(counts_of(&runs), rc, "f32 NaN counts n={n}");
    }
}

/// Predicates of two keys with bound arguments: unique_by, run_length_encode_by and
/// reduce_by_key_by equal the plain loops.
#[test]
#[ignore = "needs a CUDA GPU"]
fn predicates_of_two_keys() {
    let g = gpu();
    let s = seed();
    let mut r = rng(s);
    for n in sizes() {
        let keys = run_keys(&mut r, n, 3);
        let d = g.upload(&keys).unwrap();
        let vals: Vec<i32> = (0..n as i32).collect();
        let dv = g.upload(&vals).unwrap();
        for dist in [0i32, 500, 100_000] {
            let same = |a: i32, b: i32| (a as i64 - b as i64).abs() <= dist as i64;
            let (rk, rc) = rle_ref(&keys, same);
            assert_eq!(
                g.unique_by(near.with(dist), &d)
                    .unwrap()
                    .download()
                    .unwrap(),
                rk,
                "n={n} d={dist}"
            );
            let runs = g.run_length_encode_by(near.with(dist), &d).unwrap();
            assert_eq!(runs.keys.download().unwrap(), rk, "rle keys n={n} d={dist}");
            assert_eq!(counts_of(&runs), rc, "rle counts n={n} d={dist}");
            let (bk, bv) = rbk_ref(&keys, &vals, same, i32::MIN, |a, b| {
                if b == i32::MIN { a } else { b }
            });
            let by = g.reduce_by_key_by(near.with(dist), last, &d, &dv).unwrap();
            assert_eq!(by.keys.download().unwrap(), bk, "n={n} d={dist}");
            assert_eq!(by.values.download().unwrap(), bv, "n={n} d={dist}");
        }
    }
}

/// f32 sums by key. Exact inputs (small integers with random signs: every partial sum of a run
/// is an integer far below 2^24 whatever its length, the same bits in any order): each run's
/// key and sum equal the plain loop's (the sum computed in i64) bit for bit, at every size from
/// empty to 2^24 + 3, runs from single elements to one run of everything, aligned and from a
/// misaligned start. Random floats: each run's key equals the loop's and its sum is within
/// `1e-5` of the sum of its `|x|` from the f64 sum, and the same bits on every run (the
/// look-back folds in tile order).
#[test]
#[ignore = "needs a CUDA GPU"]
fn float_sums_are_exact_where_they_can_be_and_deterministic() {
    let g = gpu();
    let s = seed();
    let mut r = rng(s);
    let eq = |a: i32, b: i32| a == b;
    for n in sizes() {
        for mean in [1usize, 4, 600, 100_000, 1 << 24] {
            let keys = run_keys(&mut r, n + 3, mean);
            let xs: Vec<f32> = exact_vec(s ^ 0x7b ^ n as u64 ^ ((mean as u64) << 32), n + 3);
            let (dk, dx) = (g.upload(&keys).unwrap(), g.upload(&xs).unwrap());
            for off in [0usize, 3] {
                let tag = format!("exact n={n} mean={mean} off={off}");
                let ints: Vec<i64> = xs[off..off + n].iter().map(|&x| x as i64).collect();
                let (wk, wv) = rbk_ref(&keys[off..off + n], &ints, eq, 0, |a, b| a + b);
                let wv: Vec<f32> = wv.iter().map(|&v| v as f32).collect();
                let by = g
                    .reduce_by_key(
                        sum_f32,
                        &dk.slice(off..off + n).unwrap(),
                        &dx.slice(off..off + n).unwrap(),
                    )
                    .unwrap();
                assert_eq!(by.keys.download().unwrap(), wk, "keys {tag}");
                assert_bits(&by.values.download().unwrap(), &wv, &format!("sums {tag}"));
            }
        }
    }
    for (n, mean) in [(1 << 22, 4usize), (1 << 22, 100_000), (1 << 24, 1 << 24)] {
        let keys = run_keys(&mut r, n, mean);
        let dk = g.upload(&keys).unwrap();
        let xs = f32::random_vec(&mut r, n, false);
        let dx = g.upload(&xs).unwrap();
        let by = g.reduce_by_key(sum_f32, &dk, &dx).unwrap();
        let (wk, f64s) = rbk_ref(
            &keys,
            &xs.iter().map(|&x| x as f64).collect::<Vec<_>>(),
            eq,
            0.0,
            |a, b| a + b,
        );
        assert_eq!(by.keys.download().unwrap(), wk, "keys n={n} mean={mean}");
        let first = by.values.download().unwrap();
        for _ in 0..3 {
            let again = g
                .reduce_by_key(sum_f32, &dk, &dx)
                .unwrap()
                .values
                .download()
                .unwrap();
            assert_bits(
                &again,
                &first,
                &format!("n={n} mean={mean}: not deterministic"),
            );
        }
        let (_, abs) = rbk_ref(
            &keys,
            &xs.iter().map(|&x| x.abs() as f64).collect::<Vec<_>>(),
            eq,
            0.0,
            |a, b| a + b,
        );
        assert_eq!(first.len(), f64s.len(), "runs n={n} mean={mean}");
        for (i, ((&got, &want), &a)) in first.iter().zip(&f64s).zip(&abs).enumerate() {
            assert!(
                warp_tests::close_sum(got as f64, want, a, 1e-5),
                "run {i} n={n} mean={mean}: {got} vs {want}"
            );
        }
    }
}

/// Empty input launches nothing; the _into forms leave the count on the device and reject
/// short outputs.
#[test]
#[ignore = "needs a CUDA GPU"]
fn empty_input_and_into_forms() {
    let g = gpu();
    let e = g.upload::<i32>(&[]).unwrap();
    assert_eq!(g.unique(&e).unwrap().len(), 0);
    assert_eq!(g.run_length_encode(&e).unwrap().counts.len(), 0);
    let ev = g.upload::<f32>(&[]).unwrap();
    assert_eq!(g.reduce_by_key(sum_f32, &e, &ev).unwrap().values.len(), 0);
    let keys = g.upload(&[1, 1, 2]).unwrap();
    let mut out = g.upload(&[0; 3]).unwrap();
    let count = g.unique_into(Equal, &keys, &mut out).unwrap();
    assert_eq!(count.get().unwrap(), 2);
    assert_eq!(out.download().unwrap()[..2], [1, 2]);
    let mut short = g.upload(&[0; 2]).unwrap();
    assert!(matches!(
        g.unique_into(Equal, &keys, &mut short),
        Err(Error::Shape(_))
    ));
}

/// With tiles numbered from the queue in the order blocks start (`set_tile_queue(true)`),
/// the results are the same.
#[test]
#[ignore = "needs a CUDA GPU"]
fn tile_queue_gives_the_same_runs() {
    let g = gpu();
    let s = seed();
    let mut r = rng(s);
    g.set_tile_queue(true);
    for mean in [4usize, 64, 100_000] {
        let keys = run_keys(&mut r, (1 << 22) + 17, mean);
        check(&g, &keys, &format!("queue mean={mean}"));
    }
    g.set_tile_queue(false);
}
