//! Predicates and maps on the CPU backend against plain iterator code.

use warp_runtime::prelude::*;
use warp_tests::ops::{above, positive, square, sum_f32 as sum};
use warp_tests::{Random, edge_sizes, rng, seed};

#[predicate]
fn odd(x: i32) -> bool {
    x & 1 == 1
}

#[map]
fn scaled(x: i32, k: i32) -> i64 {
    x as i64 * k as i64
}

#[reduce(identity = 0)]
fn sum_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[test]
fn predicates_match_iterators() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    for n in edge_sizes(4) {
        let xs = f32::random_vec(&mut r, n, true);
        let d = cpu.upload(&xs).unwrap();
        let want = xs.iter().filter(|&&x| x > 0.0).count() as u64;
        assert_eq!(cpu.count(positive, &d).unwrap(), want);
        assert_eq!(cpu.any(positive, &d).unwrap(), want > 0);
        assert_eq!(cpu.all(positive, &d).unwrap(), want == n as u64);
        assert_eq!(
            cpu.find_first(positive, &d).unwrap(),
            xs.iter().position(|&x| x > 0.0)
        );
        let kept: Vec<f32> = xs.iter().copied().filter(|&x| x > 0.0).collect();
        assert_eq!(cpu.filter(positive, &d).unwrap().download().unwrap(), kept);
        let (k, rej) = cpu.partition(positive, &d).unwrap();
        assert_eq!(k.download().unwrap(), kept);
        let rest: Vec<u32> = xs
            .iter()
            .filter(|&&x| !positive.call(x)) // NaN is not positive: rejected
            .map(|x| x.to_bits())
            .collect();
        assert_eq!(
            rej.download()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            rest
        );
        let at: Vec<u32> = (0..n as u32).filter(|&i| xs[i as usize] > 0.0).collect();
        assert_eq!(cpu.argwhere(positive, &d).unwrap().download().unwrap(), at);
        let mut at64 = cpu.upload(&vec![0i64; n]).unwrap();
        let count = cpu
            .argwhere_into(positive, &d, &mut at64)
            .unwrap()
            .get()
            .unwrap();
        let at64: Vec<u32> = at64.download().unwrap()[..count as usize]
            .iter()
            .map(|&i| i as u32)
            .collect();
        assert_eq!(at64, at);
        let mask = cpu.mask(positive, &d).unwrap().download().unwrap();
        assert_eq!(mask.len(), n.div_ceil(32));
        for (i, x) in xs.iter().enumerate() {
            assert_eq!(mask[i / 32] >> (i % 32) & 1 == 1, *x > 0.0);
        }
        assert_eq!(
            cpu.count(above.with(0.5), &d).unwrap(),
            xs.iter().filter(|&&x| x > 0.5).count() as u64
        );
    }
}

#[test]
fn maps_fuse_into_reductions_and_predicates() {
    let cpu = Device::cpu();
    let xs: Vec<f32> = (0..1000).map(|i| i as f32 / 100.0 - 5.0).collect();
    let d = cpu.upload(&xs).unwrap();
    let ssq = cpu.map_reduce(square, sum, &d).unwrap();
    let want: f32 = xs.iter().map(|x| x * x).sum();
    assert!((ssq - want).abs() <= 1e-3 * want);
    assert_eq!(cpu.reduce(sum, &d.map(square)).unwrap(), ssq);
    assert_eq!(
        cpu.count(above.with(4.0), &d.map(square)).unwrap(),
        xs.iter().filter(|&&x| x * x > 4.0).count() as u64
    );
    let is: Vec<i32> = (0..100).collect();
    let di = cpu.upload(&is).unwrap();
    assert_eq!(
        cpu.reduce(sum_i64, &di.map(scaled.with(3))).unwrap(),
        3 * 4950
    );
    assert_eq!(cpu.count(odd, &di).unwrap(), 50);
    assert_eq!(scaled.with(2).apply(21), 42);
    assert!(above.with(1.0).test(2.0));
}

#[predicate]
fn below(x: f32, t: f32) -> bool {
    x < t
}

#[test]
fn three_way_partition_matches_iterators() {
    let cpu = Device::cpu();
    let mut r = rng(seed());
    for n in edge_sizes(4) {
        let xs = f32::random_vec(&mut r, n, true);
        let d = cpu.upload(&xs).unwrap();
        let (a, b, c) = cpu
            .partition3(below.with(-0.3), below.with(0.3), &d)
            .unwrap();
        let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let want = |k: u8| {
            xs.iter()
                .copied()
                .filter(|&x| {
                    (if x < -0.3 {
                        0
                    } else if x < 0.3 {
                        1
                    } else {
                        2
                    }) == k
                })
                .collect::<Vec<f32>>()
        };
        assert_eq!(bits(a.download().unwrap()), bits(want(0)), "n={n}");
        assert_eq!(bits(b.download().unwrap()), bits(want(1)), "n={n}");
        assert_eq!(bits(c.download().unwrap()), bits(want(2)), "n={n}");
    }
}

#[test]
fn eight_bound_words_read_and_nine_refused() {
    warp_tests::bound::check_bound_limits(&Device::cpu(), seed());
}

#[test]
fn argwhere_positions_of_views_maps_and_their_errors() {
    let cpu = Device::cpu();
    let xs: Vec<i32> = (0..300).map(|i| (i * 7919) % 101 - 50).collect();
    let d = cpu.upload(&xs).unwrap();
    // A view's positions count from its start; a map's values are tested.
    let view = d.slice(10..).unwrap();
    let want: Vec<u32> = (0..290u32)
        .filter(|&i| xs[10 + i as usize] & 1 == 1)
        .collect();
    assert_eq!(cpu.argwhere(odd, &view).unwrap().download().unwrap(), want);
    #[predicate]
    fn big(x: i64) -> bool {
        x > 100
    }
    let want: Vec<u32> = (0..300u32)
        .filter(|&i| xs[i as usize] as i64 * 3 > 100)
        .collect();
    let got = cpu.argwhere(big, &d.map(scaled.with(3))).unwrap();
    assert_eq!(got.download().unwrap(), want);
    // Empty input: no positions; none kept: none.
    let empty = cpu.upload::<i32>(&[]).unwrap();
    assert!(cpu.argwhere(odd, &empty).unwrap().is_empty());
    assert!(
        cpu.argwhere(odd, &cpu.upload(&[2i32, 4]).unwrap())
            .unwrap()
            .is_empty()
    );
    // Positions above the index type's largest value, and an output too short.
    let mut small = cpu.upload(&vec![0i8; 300]).unwrap();
    assert!(matches!(
        cpu.argwhere_into(odd, &d, &mut small),
        Err(Error::Shape(_))
    ));
    let mut exact = cpu.upload(&vec![0u8; 256]).unwrap();
    let at_most = cpu.upload(&xs[..256]).unwrap();
    assert!(cpu.argwhere_into(odd, &at_most, &mut exact).is_ok());
    let mut short = cpu.upload(&vec![0u32; 299]).unwrap();
    assert!(matches!(
        cpu.argwhere_into(odd, &d, &mut short),
        Err(Error::Shape(_))
    ));
}

/// Masked inputs (`xs.filter(p)`) of reductions, scans and axis reductions against plain Rust.
#[test]
fn masked_inputs_count_rejected_values_as_the_identity() {
    let dev = Device::cpu();
    for (k, n) in [0usize, 1, 7, 1792, 4099].into_iter().enumerate() {
        warp_tests::masked::check_masked(&dev, n, k as u64);
        warp_tests::masked::check_chains(&dev, n, k as u64);
    }
}
