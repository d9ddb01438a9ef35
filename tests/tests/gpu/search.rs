//! Binary search on the GPU against `slice::partition_point`: every sample-stretch edge
//! (arrays of up to 2,048 keys are all sample; 2,049 and more are searched in stretches),
//! queries random, present, sorted and special, both orders, every key size.

use warp_runtime::prelude::*;
use warp_tests::sorts::check_search;
use warp_tests::{gpu, random_vec_par, seed};

fn sorted<T: warp_runtime::Ordered>(mut xs: Vec<T>, order: SortOrder) -> Vec<T> {
    xs.sort_by_key(|&x| T::sort_key(x));
    if order == SortOrder::Descending {
        xs.reverse();
    }
    xs
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_bounds_match_partition_point() {
    let g = gpu();
    let sizes = [
        1usize,
        2,
        3,
        2047,
        2048,
        2049,
        4095,
        4096,
        4097,
        100_000,
        (1 << 22) + 5,
    ];
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        for n in sizes {
            let s = seed() ^ n as u64;
            let xs = sorted(random_vec_par::<f32>(s, n, true), order);
            let mut qs: Vec<f32> = random_vec_par(s ^ 9, 5000, true);
            qs.extend(xs.iter().step_by(n / 3000 + 1).copied());
            qs.extend([
                f32::NAN,
                -f32::NAN,
                -0.0,
                0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
            ]);
            check_search(&g, &xs, &qs, order, "f32");
            let mut sorted_qs = qs.clone();
            sorted_qs.sort_by(f32::total_cmp);
            check_search(&g, &xs, &sorted_qs, order, "f32 sorted queries");
            let ys = sorted(
                random_vec_par::<u64>(s ^ 1, n, false)
                    .into_iter()
                    .map(|y| y % 1000)
                    .collect(),
                order,
            );
            let qy: Vec<u64> = (0..1100).collect();
            check_search(&g, &ys, &qy, order, "u64 duplicates");
            let zs = sorted(random_vec_par::<i8>(s ^ 2, n, true), order);
            let qz: Vec<i8> = (i8::MIN..=i8::MAX).collect();
            check_search(&g, &zs, &qz, order, "i8");
        }
    }
    // 2^20 random queries into 2^24 keys.
    let xs = sorted(
        random_vec_par::<u32>(seed(), 1 << 24, false),
        SortOrder::Ascending,
    );
    let qs: Vec<u32> = random_vec_par(seed() ^ 5, 1 << 20, false);
    check_search(&g, &xs, &qs, SortOrder::Ascending, "u32 2^24");
    // Queries already in the array's order are searched in place (the sort runs no pass): in
    // order with duplicates, in order but for their last two, in the other order; both orders.
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        let xs = sorted(random_vec_par::<u32>(seed() ^ 7, 1 << 24, false), order);
        let mut qs = sorted(random_vec_par::<u32>(seed() ^ 8, 1 << 20, false), order);
        qs[1000] = qs[999];
        check_search(&g, &xs, &qs, order, "u32 2^24, queries in order");
        let last = qs.len() - 1;
        qs.swap(last - 1, last);
        check_search(&g, &xs, &qs, order, "u32 2^24, the last two swapped");
        qs.reverse();
        check_search(&g, &xs, &qs, order, "u32 2^24, queries reversed");
        // In order, in two clusters at the array's ends: the tile between them spans the
        // array (searched in global memory), the others a few keys (in shared memory).
        let (lo, hi) = (xs[0].min(xs[xs.len() - 1]), xs[0].max(xs[xs.len() - 1]));
        let mut qs: Vec<u32> = (0..1u32 << 20)
            .map(|i| {
                if i < 1 << 19 {
                    lo.saturating_add(i % 7)
                } else {
                    hi.saturating_sub(i % 7)
                }
            })
            .collect();
        qs = sorted(qs, order);
        check_search(&g, &xs, &qs, order, "u32 2^24, queries in two clusters");
    }
    // Other key sizes, queries in order dense in the array (searched by tiles): 2^20 `f64`
    // queries into 2^22 keys, 2^20 `u16` into 2^24 with duplicates among both.
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        let n = 1 << 22;
        let xs = sorted(random_vec_par::<f64>(seed() ^ 11, n, true), order);
        let qs = sorted(random_vec_par::<f64>(seed() ^ 12, n / 4, true), order);
        check_search(&g, &xs, &qs, order, "f64 2^22, queries in order");
        let n = 1 << 24;
        let ys = sorted(
            random_vec_par::<u16>(seed() ^ 13, n, false)
                .into_iter()
                .map(|y| y % 5000)
                .collect(),
            order,
        );
        let qy = sorted(
            random_vec_par::<u16>(seed() ^ 14, n / 16, false)
                .into_iter()
                .map(|y| y % 5100)
                .collect(),
            order,
        );
        check_search(&g, &ys, &qy, order, "u16 2^24 duplicates, queries in order");
    }
    // An empty array: every answer 0.
    let e = g.upload::<f32>(&[]).unwrap();
    let q = g.upload(&[1.0f32, 2.0]).unwrap();
    let got = g.upper_bound(&e, &q, SortOrder::Ascending).unwrap();
    assert_eq!(got.download().unwrap(), [0, 0]);
}
