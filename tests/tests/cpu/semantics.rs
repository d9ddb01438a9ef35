//! The CPU backend and the kept Rust function: the reference the GPU tests compare against.
//! Checked here against a plain sequential fold, on random inputs and the edge sizes.

use warp_runtime::prelude::*;
use warp_tests::{Random, SameValue, edge_sizes, rng, seed};

#[reduce(identity = 0)]
fn sum_u32(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

#[reduce(identity = i64::MIN)]
fn max_i64(a: i64, b: i64) -> i64 {
    a.max(b)
}

#[reduce(identity = f64::INFINITY)]
fn min_f64(a: f64, b: f64) -> f64 {
    a.min(b)
}

#[reduce(identity = (f32::NEG_INFINITY, u64::MAX))]
fn argmax(a: (f32, u64), b: (f32, u64)) -> (f32, u64) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

/// `let` destructuring of tuple parameters and statement `if`s work in the kept function.
#[reduce(identity = (0, 0))]
fn count_and_sum((n1, s1): (u32, i64), (n2, s2): (u32, i64)) -> (u32, i64) {
    let mut n = n1;
    n += n2;
    (n, s1.wrapping_add(s2))
}

#[test]
fn the_function_stays_callable() {
    assert_eq!(sum_u32.call(u32::MAX, 2), 1);
    assert_eq!(argmax.call((1.0, 5), (1.0, 3)), (1.0, 3));
    assert_eq!(count_and_sum.call((1, 10), (2, -3)), (3, 7));
    assert_eq!(max_i64.identity(), i64::MIN);
    assert!(sum_u32.cuda_source().contains("extern \"C\" __global__"));
    let meta = <sum_u32 as ReduceOp>::META;
    assert_eq!(meta.fragment.name, "sum_u32");
    assert_eq!(meta.fragment.value, "wd_u32");
    assert!(meta.source.contains("\nwd_k_reduce(wd_in in"));
    assert!(meta.source.contains("typedef wd_u32 elem_t;"));
    let meta = <argmax as ReduceOp>::META;
    assert!(
        meta.source.contains("typedef wd_f32 elem_t;"),
        "over f32 elements"
    );
    assert!(
        meta.source.contains("t.f1 = (wd_u64)i;"),
        "made into (value, index) pairs"
    );
}

#[test]
fn cpu_backend_matches_a_sequential_fold() {
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    let mut sizes = edge_sizes(4);
    sizes.push(3 * warp_runtime::impl_::CPU_CHUNK + 5);
    for n in sizes {
        let xs = u32::random_vec(&mut r, n, true);
        let want = xs.iter().fold(0u32, |a, &b| a.wrapping_add(b));
        let d = cpu.upload(&xs).unwrap();
        assert_eq!(cpu.reduce(sum_u32, &d).unwrap(), want, "seed {s} n {n}");
        if n > 3 {
            let want = xs[3..].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            assert_eq!(cpu.reduce(sum_u32, &d.slice(3..).unwrap()).unwrap(), want);
        }
        let ys = i64::random_vec(&mut r, n, true);
        let want = ys.iter().copied().fold(i64::MIN, i64::max);
        assert_eq!(
            cpu.reduce(max_i64, &cpu.upload(&ys).unwrap()).unwrap(),
            want
        );
        let fs = f64::random_vec(&mut r, n, true);
        let want = fs.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(
            cpu.reduce(min_f64, &cpu.upload(&fs).unwrap())
                .unwrap()
                .same(&want)
        );
        let gs: Vec<f32> = f32::random_vec(&mut r, n, false)
            .iter()
            .map(|x| (x * 3.0).round())
            .collect();
        let d = cpu.upload(&gs).unwrap();
        let got = cpu.reduce(argmax, &d.indexed()).unwrap();
        let want = gs
            .iter()
            .enumerate()
            .fold((f32::NEG_INFINITY, u64::MAX), |a, (i, &x)| {
                argmax.call(a, (x, i as u64))
            });
        assert_eq!(got, want);
        if n > 0 {
            assert_eq!(gs[got.1 as usize], got.0);
            assert!(
                gs[..got.1 as usize].iter().all(|&x| x < got.0),
                "smallest index wins"
            );
        }
    }
}

#[test]
fn empty_input_gives_the_identity() {
    let cpu = Device::cpu();
    let e: Vec<f64> = vec![];
    assert_eq!(
        cpu.reduce(min_f64, &cpu.upload(&e).unwrap()).unwrap(),
        f64::INFINITY
    );
    let e: Vec<f32> = vec![];
    assert_eq!(
        cpu.reduce(argmax, &cpu.upload(&e).unwrap().indexed())
            .unwrap(),
        (f32::NEG_INFINITY, u64::MAX)
    );
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let cpu = Device::cpu();
    let xs = cpu.upload(&[1u32, 2, 3]).unwrap();
    assert!(matches!(xs.slice(2..5), Err(Error::Shape(_))));
    #[allow(clippy::reversed_empty_ranges)] // on purpose: a reversed range is an error
    let reversed = xs.slice(3..2);
    assert!(matches!(reversed, Err(Error::Shape(_))));
    assert_eq!(xs.slice(3..).unwrap().len(), 0);
    let other = Device::cpu(); // CPU-backend devices share host memory
    assert_eq!(other.reduce(sum_u32, &xs).unwrap(), 6);
    #[reduce(identity = (0, u8::MAX))]
    fn argmax_u8(a: (u32, u8), b: (u32, u8)) -> (u32, u8) {
        if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
            b
        } else {
            a
        }
    }
    let big = cpu.upload(&vec![7u32; 257]).unwrap();
    assert!(matches!(
        cpu.reduce(argmax_u8, &big.indexed()),
        Err(Error::Shape(_))
    ));
    assert_eq!(
        cpu.reduce(argmax_u8, &big.slice(1..).unwrap().indexed())
            .unwrap(),
        (7, 0)
    );
}

#[test]
fn auto_without_a_gpu_falls_back_to_the_cpu() {
    // On a machine with a GPU this picks the GPU; either way it must not fail or panic.
    let dev = Device::auto().expect("auto never fails");
    let xs = dev.upload(&[1u32, 2, 3]).unwrap();
    assert_eq!(dev.reduce(sum_u32, &xs).unwrap(), 6);
    assert_eq!(xs.download().unwrap(), vec![1, 2, 3]);
    assert_eq!(
        dev.copy(&xs.slice(1..).unwrap())
            .unwrap()
            .download()
            .unwrap(),
        vec![2, 3]
    );
}
