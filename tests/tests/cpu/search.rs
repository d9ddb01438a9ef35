//! Binary search on the CPU backend: `lower_bound` / `upper_bound` against
//! `slice::partition_point`, both orders, special floats, duplicates, edge sizes, errors.

use warp_runtime::prelude::*;
use warp_tests::sorts::check_search;
use warp_tests::{random_vec_par, seed};

fn sorted<T: warp_runtime::Ordered>(mut xs: Vec<T>, order: SortOrder) -> Vec<T> {
    xs.sort_by_key(|&x| T::sort_key(x));
    if order == SortOrder::Descending {
        xs.reverse();
    }
    xs
}

/// Random sorted arrays with duplicates and special values, queries drawn from the array and
/// beside it; both orders; empty arrays and no queries.
#[test]
fn cpu_bounds_match_partition_point() {
    let dev = Device::cpu();
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        for n in [0usize, 1, 2, 5, 100, 3000] {
            let xs = sorted(random_vec_par::<f32>(seed() ^ n as u64, n, true), order);
            let mut qs: Vec<f32> = random_vec_par(seed() ^ 9, 200, true);
            qs.extend(xs.iter().step_by(3).copied());
            qs.extend([f32::NAN, -f32::NAN, -0.0, 0.0, f32::INFINITY]);
            check_search(&dev, &xs, &qs, order, "f32");
            let ys: Vec<i16> = random_vec_par::<i16>(seed() ^ 4, n, false)
                .into_iter()
                .map(|y| y % 7)
                .collect();
            let ys = sorted(ys, order);
            check_search(&dev, &ys, &[-8i16, -3, 0, 3, 6, 7], order, "i16 few values");
        }
    }
    let s = dev.upload(&[1u8, 2, 3]).unwrap();
    let none = dev.upload::<u8>(&[]).unwrap();
    assert!(
        dev.lower_bound(&s, &none, SortOrder::Ascending)
            .unwrap()
            .is_empty()
    );
    let q = dev.upload(&[2u8, 9]).unwrap();
    let mut short = dev.upload(&[0u32; 1]).unwrap();
    assert!(matches!(
        dev.upper_bound_into(&s, &q, &mut short, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    // Unsorted keys: some place in 0..=n for each query, never an error.
    let u = dev.upload(&[5u8, 1, 9, 0]).unwrap();
    let got = dev.lower_bound(&u, &q, SortOrder::Ascending).unwrap();
    assert!(got.download().unwrap().iter().all(|&p| p <= 4));
}
