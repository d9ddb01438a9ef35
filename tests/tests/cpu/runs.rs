//! unique, run-length encode and reduce-by-key on the CPU backend against plain loops
//! (`Vec::dedup`, hand-written run loops): edge sizes, empty input, all-equal and all-distinct
//! keys, runs of many lengths, NaN and signed-zero keys, predicates of two keys with bound
//! arguments, non-commutative operators, the `_into` forms and their errors.

use warp_runtime::prelude::*;
use warp_runtime::{Equal, half::f16};
use warp_tests::ops::sum_f32;
use warp_tests::runs::{
    check_against_loops, check_value_errors, check_value_inputs, counts_of, rbk_ref, rle_ref,
    run_keys,
};
use warp_tests::{edge_sizes, rng, seed};

/// The later value: associative, not commutative (i32::MIN is "none").
#[reduce(identity = i32::MIN)]
fn last(a: i32, b: i32) -> i32 {
    if b == i32::MIN { a } else { b }
}
#[predicate(inputs = 2)]
fn near(a: i32, b: i32, d: i32) -> bool {
    (a as i64 - b as i64).abs() <= d as i64
}

fn check_i32(dev: &Device, keys: &[i32], tag: &str) {
    let vals: Vec<i64> = (0..keys.len() as i64).map(|i| i * 7 - 3).collect();
    let (d, dv) = (dev.upload(keys).unwrap(), dev.upload(&vals).unwrap());
    check_against_loops(dev, &d, &dv, keys, &vals, tag);
}

#[test]
fn runs_match_plain_loops() {
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(4) {
        for mean in [1usize, 2, 4, 64, 5000] {
            let keys = run_keys(&mut r, n, mean);
            check_i32(&cpu, &keys, &format!("n={n} mean={mean} seed={s}"));
        }
        check_i32(&cpu, &vec![42; n], &format!("all equal n={n}"));
        check_i32(
            &cpu,
            &(0..n as i32).collect::<Vec<_>>(),
            &format!("all distinct n={n}"),
        );
    }
}

#[test]
fn values_of_every_input_kind() {
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(4) {
        for mean in [1usize, 3, 64] {
            let keys = run_keys(&mut r, n, mean);
            check_value_inputs(&cpu, &keys, &format!("n={n} mean={mean} seed={s}"));
        }
    }
    check_value_errors(&cpu);
}

#[test]
fn empty_input_has_no_runs() {
    let cpu = Device::cpu();
    let e = cpu.upload::<i32>(&[]).unwrap();
    let ev = cpu.upload::<f32>(&[]).unwrap();
    assert_eq!(cpu.unique(&e).unwrap().len(), 0);
    let runs = cpu.run_length_encode(&e).unwrap();
    assert_eq!((runs.keys.len(), runs.counts.len()), (0, 0));
    let by = cpu.reduce_by_key(sum_f32, &e, &ev).unwrap();
    assert_eq!((by.keys.len(), by.values.len()), (0, 0));
    let mut out = cpu.upload::<i32>(&[]).unwrap();
    assert_eq!(
        cpu.unique_into(Equal, &e, &mut out).unwrap().get().unwrap(),
        0
    );
}

#[test]
fn nan_keys_are_each_a_run_and_signed_zeros_one() {
    let cpu = Device::cpu();
    let xs = [f32::NAN, f32::NAN, 1.0, 1.0, -0.0, 0.0, f32::NAN, 2.0];
    let d = cpu.upload(&xs).unwrap();
    let got: Vec<u32> = cpu
        .unique(&d)
        .unwrap()
        .download()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    let mut want = xs.to_vec();
    want.dedup(); // NaN != NaN: Vec::dedup keeps every NaN
    let want: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
    assert_eq!(got, want);
    let runs = cpu.run_length_encode(&d).unwrap();
    assert_eq!(runs.counts.download().unwrap(), [1, 1, 2, 2, 1, 1]);
    assert_eq!(
        runs.keys.download().unwrap()[3].to_bits(),
        (-0.0f32).to_bits()
    );
    let hs = cpu.upload(&[f16::NAN, f16::NAN, f16::ONE]).unwrap();
    assert_eq!(cpu.unique(&hs).unwrap().len(), 3);
}

#[test]
fn predicates_of_two_keys_and_bound_arguments() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    for n in [0usize, 1, 100, 10_000] {
        let keys = run_keys(&mut r, n, 3);
        let d = cpu.upload(&keys).unwrap();
        for dist in [0i32, 500, 100_000] {
            let same = |a: i32, b: i32| (a as i64 - b as i64).abs() <= dist as i64;
            let (rk, rc) = rle_ref(&keys, same);
            assert_eq!(
                cpu.unique_by(near.with(dist), &d)
                    .unwrap()
                    .download()
                    .unwrap(),
                rk
            );
            let runs = cpu.run_length_encode_by(near.with(dist), &d).unwrap();
            assert_eq!(runs.keys.download().unwrap(), rk);
            let c = counts_of(&runs);
            assert_eq!(c, rc);
            let vals: Vec<i32> = (0..n as i32).collect();
            let dv = cpu.upload(&vals).unwrap();
            let (bk, bv) = rbk_ref(&keys, &vals, same, i32::MIN, |a, b| {
                if b == i32::MIN { a } else { b }
            });
            let by = cpu
                .reduce_by_key_by(near.with(dist), last, &d, &dv)
                .unwrap();
            assert_eq!(by.keys.download().unwrap(), bk);
            assert_eq!(by.values.download().unwrap(), bv, "last value of each run");
        }
    }
}

#[test]
fn into_forms_leave_the_count_and_check_their_outputs() {
    let cpu = Device::cpu();
    let keys = cpu.upload(&[1, 1, 2, 3, 3, 3]).unwrap();
    let vals = cpu.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let (mut k, mut c) = (
        cpu.upload(&[0; 6]).unwrap(),
        cpu.upload(&[0u64; 6]).unwrap(),
    );
    let runs = cpu
        .run_length_encode_into(Equal, &keys, &mut k, &mut c)
        .unwrap();
    assert_eq!(runs.get().unwrap(), 3);
    assert_eq!(c.download().unwrap()[..3], [2, 1, 3]);
    let mut v = cpu.upload(&[0.0f32; 6]).unwrap();
    let runs = cpu
        .reduce_by_key_into(Equal, sum_f32, &keys, &vals, &mut k, &mut v)
        .unwrap();
    assert_eq!(runs.get().unwrap(), 3);
    assert_eq!(v.download().unwrap()[..3], [3.0, 3.0, 15.0]);
    let mut short = cpu.upload(&[0; 5]).unwrap();
    assert!(matches!(
        cpu.unique_into(Equal, &keys, &mut short),
        Err(Error::Shape(_))
    ));
    let five = cpu.upload(&[0.0f32; 5]).unwrap();
    assert!(matches!(
        cpu.reduce_by_key(sum_f32, &keys, &five),
        Err(Error::Shape(_))
    ));
    let bools = cpu.upload(&[true, true, false, true]).unwrap();
    assert_eq!(
        cpu.unique(&bools).unwrap().download().unwrap(),
        [true, false, true]
    );
}

/// A predicate of one tuple is not a predicate of two keys: refused, on every backend.
#[predicate]
fn pair_equal(p: (i32, i32)) -> bool {
    p.0 == p.1
}

#[test]
fn a_predicate_of_one_tuple_is_refused() {
    let cpu = Device::cpu();
    let keys = cpu.upload(&[1, 1, 2]).unwrap();
    assert!(matches!(
        cpu.unique_by(pair_equal, &keys),
        Err(Error::Unsupported(_))
    ));
}
