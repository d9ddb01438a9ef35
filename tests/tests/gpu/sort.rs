//! GPU sorts against plain Rust (`slice::sort_by` with `cmp` / `total_cmp`): every key type,
//! both orders, sizes around the warp, a pass's tiles (`SortShape::tile`) and many tiles,
//! misaligned views,
//! sorted, reversed, all-equal and few-valued keys, keys that differ in one byte only (the
//! other passes skipped), NaN and signed zeros, pairs with values of 1 to 8 bytes, argsort into
//! `u32` and `u64`, 2^28 `f32` keys, and more than 2^31 keys. Needs a CUDA GPU.

use warp_kernels::Scalar;
use warp_kernels::family::merge::merge_tile;
use warp_kernels::family::sort::{SortMoves, SortShape};
use warp_runtime::prelude::*;
use warp_runtime::{Element, Ordered};
use warp_tests::edge_ops::{add_i32, add_u8};
use warp_tests::events::Capture;
use warp_tests::ops::{add_i64, groups, low_byte, magnitude};
use warp_tests::sorts::check_sorts;
use warp_tests::{
    Bits, Random, TotalOrder, assert_bits, big_lock, edge_sizes, gpu, random_vec_par, rng, seed,
    sorted_positions,
};

/// Edge sizes, sizes around a pass's tile of keys alone, of keys with 4-byte values (staged
/// or not: pairs, argsort) and with 8-byte ones (`SortShape::tile`, on an sm_80+ GPU), three
/// tiles and a few, and many tiles.
fn sizes(key: Scalar) -> Vec<usize> {
    let mut s = edge_sizes(key.size());
    for moves in [
        SortMoves::Keys,
        SortMoves::Pairs(4),
        SortMoves::Positions(4),
        SortMoves::Pairs(8),
    ] {
        let t = SortShape::new(key, moves, true).tile();
        s.extend([t - 1, t, t + 1, 3 * t + 5]);
    }
    s.extend([300_000, (1 << 22) + 3]);
    s.sort_unstable();
    s.dedup();
    s
}

fn every_case<T: Ordered + TotalOrder + Random + Bits + Send + Sync>(dev: &Device, what: &str) {
    for n in sizes(T::SCALAR) {
        let xs: Vec<T> = random_vec_par(seed() ^ n as u64, n, true);
        check_sorts(dev, &xs, 0, what);
        if n > 1 && n < 100_000 {
            check_sorts(dev, &xs, 1, what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sorts_floats_match_plain_rust() {
    let g = gpu();
    every_case::<f32>(&g, "f32");
    every_case::<f64>(&g, "f64");
    every_case::<f16>(&g, "f16");
    every_case::<bf16>(&g, "bf16");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sorts_integers_match_plain_rust() {
    let g = gpu();
    every_case::<i8>(&g, "i8");
    every_case::<i16>(&g, "i16");
    every_case::<i32>(&g, "i32");
    every_case::<i64>(&g, "i64");
    every_case::<u8>(&g, "u8");
    every_case::<u16>(&g, "u16");
    every_case::<u32>(&g, "u32");
    every_case::<u64>(&g, "u64");
    every_case::<bool>(&g, "bool");
}

/// Inputs whose passes are skipped or lopsided: sorted, reversed, all equal (every pass but
/// the last skipped), few values, keys that differ in one byte only, NaN of both signs and
/// signed zeros.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sorts_adversarial_inputs() {
    let g = gpu();
    let mut r = rng(seed());
    for n in [5000usize, (1 << 20) + 7] {
        let up: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let down: Vec<f32> = up.iter().rev().copied().collect();
        let few: Vec<f32> = f32::random_vec(&mut r, n, false)
            .into_iter()
            .map(|x| (x * 2.0).round())
            .collect();
        let specials = [
            f32::NAN,
            -f32::NAN,
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let odd: Vec<f32> = f32::random_vec(&mut r, n, false)
            .into_iter()
            .enumerate()
            .map(|(i, x)| if i % 3 == 0 { specials[i % 6] } else { x })
            .collect();
        let payloads: Vec<f32> = (0..n)
            .map(|i| {
                f32::from_bits(
                    0x7FC0_0000
                        | ((i as u32).wrapping_mul(2_654_435_761) >> 10)
                        | ((i as u32 & 1) << 31),
                )
            })
            .collect();
        for (what, xs) in [
            ("ascending", &up),
            ("descending", &down),
            ("all equal", &vec![1.5f32; n]),
            ("few values", &few),
            ("specials", &odd),
            ("NaN payloads", &payloads),
        ] {
            check_sorts(&g, xs, 0, what);
        }
        let high: Vec<u32> = (0..n as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) << 24)
            .collect();
        let low: Vec<u32> = (0..n as u32)
            .map(|i| 0xABCD_EF00 | (i.wrapping_mul(2_654_435_761) >> 24))
            .collect();
        let mid: Vec<u64> = (0..n as u64)
            .map(|i| 0x1122_3344_0055_6677 | ((i * 31 % 251) << 24))
            .collect();
        check_sorts(&g, &high, 0, "u32 differing in the high byte");
        check_sorts(&g, &low, 0, "u32 differing in the low byte");
        check_sorts(&g, &mid, 0, "u64 differing in byte 3");
        check_sorts(&g, &vec![u64::MAX; n], 0, "all u64::MAX");
        check_sorts(&g, &vec![i64::MIN; n], 0, "all i64::MIN");
    }
}

/// Outputs of the wrong length, and the caller's cudarc memory as the output.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_outputs_and_errors() {
    let g = gpu();
    let keys = g.upload(&[5u16, 1, 4, 1]).unwrap();
    let mut short = g.upload(&[0u16; 3]).unwrap();
    assert!(matches!(
        g.sort_into(&keys, &mut short, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    let vals = g.upload(&[1.0f32; 5]).unwrap();
    assert!(matches!(
        g.sort_pairs(&keys, &vals, SortOrder::Ascending),
        Err(Error::Shape(_))
    ));
    let stream = g.cuda_stream().unwrap();
    let mut out = stream.alloc_zeros::<u16>(4).unwrap();
    g.sort_into(&keys, &mut out, SortOrder::Descending).unwrap();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), [5, 4, 1, 1]);
    let mut idx = stream.alloc_zeros::<i32>(4).unwrap();
    g.argsort_into(&keys, &mut idx, SortOrder::Ascending)
        .unwrap();
    assert_eq!(stream.clone_dtoh(&idx).unwrap(), [1, 3, 2, 0]);
    let cpu_out = Device::cpu().upload(&[0u16; 4]).unwrap();
    let mut cpu_out = cpu_out;
    assert!(matches!(
        g.sort_into(&keys, &mut cpu_out, SortOrder::Ascending),
        Err(Error::DeviceMismatch)
    ));
}

/// `sort_by_key` with a `#[map]` to the key, against `slice::sort_by_key`. No NaNs among the
/// floats: the GPU's `abs` may leave a NaN another payload than Rust's (docs/fidelity.md), and
/// the sort orders NaN keys by their bits.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_by_key_matches_plain_rust() {
    let g = gpu();
    for n in [1usize, 4097, (1 << 20) + 7] {
        let mut xs: Vec<f32> = random_vec_par(seed() ^ n as u64, n, false);
        let specials = [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-40,
            -1e-40,
            2.0,
            -2.0,
        ];
        for (x, s) in xs.iter_mut().step_by(3).zip(specials.iter().cycle()) {
            *x = *s;
        }
        let got = g
            .sort_by_key(magnitude, &g.upload(&xs).unwrap(), SortOrder::Ascending)
            .unwrap();
        let mut want = xs.clone();
        want.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
        assert_bits(
            &got.download().unwrap(),
            &want,
            &format!("by magnitude, n={n}"),
        );
        let us: Vec<u64> = random_vec_par(seed() ^ 7 ^ n as u64, n, false);
        let got = g
            .sort_by_key(low_byte, &g.upload(&us).unwrap(), SortOrder::Descending)
            .unwrap();
        let mut want = us.clone();
        want.sort_by_key(|&x| std::cmp::Reverse(x as u8));
        assert_eq!(
            got.download().unwrap(),
            want,
            "by the low byte, descending, n={n}"
        );
    }
}

/// `unique_counts` and `group_reduce` of unsorted keys against a `BTreeMap`, for few and
/// many distinct keys.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_distinct_keys_and_groups_match_a_map() {
    let g = gpu();
    let n = (1 << 22) + 3;
    for distinct in [7u32, 1 << 20] {
        let keys: Vec<i32> = random_vec_par::<u32>(seed() ^ distinct as u64, n, false)
            .into_iter()
            .map(|k| (k % distinct) as i32 - 3)
            .collect();
        let vals: Vec<i64> = random_vec_par(seed() ^ 5, n, false);
        let want = groups(&keys, &vals);
        let (dk, dv) = (g.upload(&keys).unwrap(), g.upload(&vals).unwrap());
        let Runs { keys: uk, counts } = g.unique_counts(&dk).unwrap();
        let want_keys: Vec<i32> = want.keys().copied().collect();
        assert_eq!(uk.download().unwrap(), want_keys, "unique keys, {distinct}");
        let want_counts: Vec<u32> = want.values().map(|e| e.0).collect();
        assert_eq!(
            counts.download().unwrap(),
            want_counts,
            "counts, {distinct}"
        );
        let ByKey { keys: gk, values } = g.group_reduce(add_i64, &dk, &dv).unwrap();
        assert_eq!(gk.download().unwrap(), want_keys, "group keys, {distinct}");
        let want_sums: Vec<i64> = want.values().map(|e| e.1).collect();
        assert_eq!(
            values.download().unwrap(),
            want_sums,
            "group sums, {distinct}"
        );
    }
}

/// `group_reduce` on the GPU and on the CPU backend: the same keys and the same sums, bit for
/// bit; `table`: whether the GPU took the table (its write kernel launched) or sorted.
fn same_groups<K, Op>(what: &str, op: Op, keys: &[K], vals: &[Op::Value], table: bool)
where
    K: Ordered + std::fmt::Debug + PartialEq,
    Op: ReduceOp,
    Op::Value: Element + std::fmt::Debug + PartialEq,
{
    let (g, c) = (gpu(), Device::cpu());
    let (dk, dv) = (g.upload(keys).unwrap(), g.upload(vals).unwrap());
    let (got, events) = Capture::run(|| g.group_reduce(op, &dk, &dv).unwrap());
    let by_table = events
        .iter()
        .any(|e| e.message() == "launch" && e.get("kernel") == Some("wd_k_group_write"));
    assert_eq!(by_table, table, "{what}: by a table");
    let want = c
        .group_reduce(op, &c.upload(keys).unwrap(), &c.upload(vals).unwrap())
        .unwrap();
    assert_eq!(
        got.keys.download().unwrap(),
        want.keys.download().unwrap(),
        "{what}: keys"
    );
    assert_eq!(
        got.values.download().unwrap(),
        want.values.download().unwrap(),
        "{what}: sums"
    );
}

/// The group-by by a table (integer keys of a narrow range, wrapping sums of small integers)
/// gives the sort's groups: keys of 1, 2, 4 and 8 bytes, negative ones, sums that wrap, a range
/// of exactly the table's limit and one just past it (sorted instead), one pair, one key.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_group_sums_by_a_table_match_the_cpu() {
    let s = seed();
    let n = (1 << 20) + 3;
    let r: Vec<u32> = random_vec_par(s, n, false);
    let vs: Vec<i32> = random_vec_par(s ^ 1, n, false);
    let ks: Vec<i32> = r.iter().map(|&k| (k % 300_000) as i32 - 150_000).collect();
    same_groups("i32 keys around 0, i32 sums", add_i32, &ks, &vs, true);
    let ks: Vec<u8> = r.iter().map(|&k| k as u8).collect();
    let v8: Vec<u8> = vs.iter().map(|&v| v as u8).collect();
    same_groups("u8 keys, u8 sums", add_u8, &ks, &v8, true);
    let ks: Vec<u16> = r.iter().map(|&k| (k % 5000) as u16 * 13).collect();
    same_groups("u16 keys, every 13th", add_i32, &ks, &vs, true);
    for span in [1u64 << 22, (1 << 22) + 1] {
        let lo = -(1i64 << 40);
        let mut ks: Vec<i64> = r.iter().map(|&k| lo + (k as u64 % span) as i64).collect();
        ks[0] = lo;
        ks[1] = lo + span as i64 - 1;
        let table = span <= 1 << 22;
        same_groups(
            &format!("i64 keys spanning {span}"),
            add_i32,
            &ks,
            &vs,
            table,
        );
    }
    same_groups("one pair", add_i32, &[-7i32], &[5], true);
    same_groups(
        "one key",
        add_u8,
        &vec![9u64; 1000],
        &vec![200u8; 1000],
        true,
    );
}

/// 2^28 random `f32` keys (sort and argsort), as the bench sorts them.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_2_pow_28_f32() {
    let _big = big_lock();
    let g = gpu();
    let n = 1usize << 28;
    let xs: Vec<f32> = random_vec_par(seed() ^ 28, n, true);
    let keys = g.upload(&xs).unwrap();
    let want = sorted_positions(&xs, false);
    let got = g
        .argsort(&keys, SortOrder::Ascending)
        .unwrap()
        .download()
        .unwrap();
    assert!(
        got.iter().zip(&want).all(|(&a, &b)| a as usize == b),
        "argsort of 2^28 f32"
    );
    let sorted = g
        .sort(&keys, SortOrder::Ascending)
        .unwrap()
        .download()
        .unwrap();
    assert!(
        sorted
            .iter()
            .zip(&want)
            .all(|(a, &b)| a.to_bits() == xs[b].to_bits()),
        "sort of 2^28 f32"
    );
}

/// More than 2^31 keys (`u8`, one pass; and `u16`, two): in order, each value as often as in
/// the input.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_above_2_pow_31_keys() {
    let _big = big_lock();
    let g = gpu();
    let n = (1usize << 31) + 4099;
    fn counted<T: Element + Ordered + Random + Send + Copy>(
        g: &Device,
        n: usize,
        order: SortOrder,
    ) {
        let xs: Vec<T> = random_vec_par(seed() ^ 31, n, false);
        let buckets = 1usize << (8 * std::mem::size_of::<T>());
        let mut count = vec![0u64; buckets];
        for &x in &xs {
            count[x.sort_key() as usize] += 1;
        }
        let got = g
            .sort(&g.upload(&xs).unwrap(), order)
            .unwrap()
            .download()
            .unwrap();
        drop(xs);
        assert_eq!(got.len(), n);
        let mut seen = vec![0u64; buckets];
        let mut last = None;
        for &x in &got {
            let k = x.sort_key();
            if let Some(l) = last {
                assert!(
                    if order == SortOrder::Ascending {
                        l <= k
                    } else {
                        l >= k
                    },
                    "order of {n} keys of {}",
                    T::NAME
                );
            }
            last = Some(k);
            seen[k as usize] += 1;
        }
        assert_eq!(seen, count, "counts of {n} keys of {}", T::NAME);
    }
    counted::<u8>(&g, n, SortOrder::Ascending);
    counted::<i16>(&g, n, SortOrder::Descending);
}

/// Rows of every length class: a block's many short rows (1 to 255 a block), rows a block each
/// (more than half the block's tile up to the tile: 3,072 / 4,096 / 6,144 keys; the sorted
/// keys alone by their order words: a bitonic network, a merge sort for 8-byte keys), and
/// rows one longer (sorted by the device-wide sort, a row at a time); both orders, NaNs and
/// repeated keys, every key size.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_rows_match_plain_rust() {
    let g = gpu();
    let shapes = [
        (1, 1),
        (1000, 1),
        (777, 2),
        (300, 3),
        (20_000, 5),
        (4000, 16),
        (5000, 24),
        (3000, 31),
        (999, 32),
        (257, 33),
        (100, 255),
        (64, 256),
        (9, 1000),
        (4, 1537),
        (3, 2049),
        (3, 2500),
        (5, 3072),
        (3, 3073),
        (4, 4096),
        (3, 4097),
        (2, 6144),
        (2, 6145),
        (2, 20_000),
    ];
    for (rows, cols) in shapes {
        let s = seed() ^ (rows * 131 + cols) as u64;
        let mut xs: Vec<f32> = random_vec_par(s, rows * cols, true);
        for (i, x) in xs.iter_mut().enumerate().step_by(7) {
            *x = [f32::NAN, -f32::NAN, -0.0, 0.0, 1.0][i % 5];
        }
        warp_tests::sorts::check_sort_rows(&g, &xs, cols, "f32");
        let xs: Vec<u8> = random_vec_par(s, rows * cols, true);
        warp_tests::sorts::check_sort_rows(&g, &xs, cols, "u8");
        let xs: Vec<i16> = random_vec_par(s, rows * cols, true);
        warp_tests::sorts::check_sort_rows(&g, &xs, cols, "i16");
        let xs: Vec<f64> = random_vec_par(s, rows * cols, true);
        warp_tests::sorts::check_sort_rows(&g, &xs, cols, "f64");
        let xs: Vec<u64> = (0..rows * cols).map(|i| (i % 3) as u64 * 7).collect();
        warp_tests::sorts::check_sort_rows(&g, &xs, cols, "u64 few values");
    }
    // 2^24 keys in rows of 32, 256 and 4096: many blocks, each row checked.
    for cols in [32, 256, 4096] {
        let xs: Vec<f32> = random_vec_par(seed() ^ cols as u64, 1 << 24, true);
        warp_tests::sorts::check_sort_rows(&g, &xs, cols, "f32 2^24");
    }
}

/// CSR segments of every length class: many short ones to a block (empty ones among them),
/// medium ones a block each, long ones by the device-wide sort, mixed in one array; both
/// orders, NaNs and repeated keys, every key size; the offsets' errors.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_segments_match_plain_rust() {
    use warp_tests::sorts::{check_sort_segments, random_offsets};
    let g = gpu();
    let cases: [(usize, &[usize]); 9] = [
        (1, &[1]),
        (1000, &[0, 1]),
        (5000, &[0, 0, 0, 1, 2, 3]),
        (30_000, &[0, 5, 31, 32, 33, 200]),
        (50_000, &[700, 768, 769, 1024, 1025]),
        (60_000, &[2304, 3000, 3072, 3073, 4096, 4097]),
        (100_000, &[0, 1, 17, 1500, 6000, 9000]),
        (40_000, &[40_000]),
        (1 << 22, &[1, 10, 100, 1000, 3000, 5000, 20_000]),
    ];
    for (n, lengths) in cases {
        let s = seed() ^ (n * 131 + lengths.len()) as u64;
        let offsets = random_offsets(s, n, lengths);
        let mut xs: Vec<f32> = random_vec_par(s, n, true);
        for (i, x) in xs.iter_mut().enumerate().step_by(7) {
            *x = [f32::NAN, -f32::NAN, -0.0, 0.0, 1.0][i % 5];
        }
        check_sort_segments(&g, &xs, &offsets, "f32");
        let xs: Vec<u8> = random_vec_par(s, n, true);
        check_sort_segments(&g, &xs, &offsets, "u8");
        let xs: Vec<i16> = random_vec_par(s, n, true);
        check_sort_segments(&g, &xs, &offsets, "i16");
        let xs: Vec<f64> = random_vec_par(s, n, true);
        check_sort_segments(&g, &xs, &offsets, "f64");
        let xs: Vec<u64> = (0..n).map(|i| (i % 3) as u64 * 7).collect();
        check_sort_segments(&g, &xs, &offsets, "u64 few values");
    }
    // Thousands of empty segments at one place, then one key.
    let mut offsets = vec![0u64; 5000];
    offsets.push(1);
    check_sort_segments(&g, &[7u32], &offsets, "empties");
    let xs = g.upload(&[3u32, 1, 2]).unwrap();
    for bad in [&[][..], &[0, 2][..], &[1, 3], &[0, 2, 1, 3], &[0, 4], &[0]] {
        let o = g.upload(bad).unwrap();
        assert!(
            matches!(
                g.sort_segments(&xs, &o, SortOrder::Ascending),
                Err(Error::Shape(_))
            ),
            "{bad:?}"
        );
    }
}

/// Sorts whole tuples and structs by a comparator of two of them against `slice::sort_by`:
/// points (8 bytes), padded tuples and mixed structs (24 bytes) and the widest values (64
/// bytes) at tile edges (`merge_tile`), passes of every parity, ties, a bound argument, 2^20
/// values.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_by_sorts_tuples_and_structs() {
    use warp_tests::ops::{mixed_greater, nearer_origin, tag_below};
    use warp_tests::sorts::{check_sort_values_by, sort_values};
    let g = gpu();
    let (t8, t24) = (merge_tile(8), merge_tile(24));
    for n in [
        1usize,
        2,
        255,
        256,
        257,
        t24 - 1,
        t24,
        t24 + 1,
        t8 - 1,
        t8,
        t8 + 1,
        2 * t8 + 1,
        4 * t8,
        5000,
        100_000,
        1 << 20,
    ] {
        let (points, tuples, mixed) = sort_values(seed() ^ n as u64, n);
        check_sort_values_by(&g, &points, nearer_origin, "points by radius");
        check_sort_values_by(&g, &tuples, tag_below.with(5), "tuples by tag mod 5");
        check_sort_values_by(&g, &mixed, mixed_greater, "mixed descending");
        let wide = warp_tests::sorts::wide_values(seed() ^ n as u64, n);
        check_sort_values_by(&g, &wide, warp_tests::ops::wide_below, "64-byte values");
    }
}

/// Binary searches by a comparator against `partition_point`: scalars with and without a bound
/// argument, structs; from one key to 2^20, queries more and fewer than the keys.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_search_by_is_partition_point() {
    let g = gpu();
    for n in [1usize, 2, 255, 256, 257, 5000, 100_000, 1 << 20] {
        warp_tests::sorts::check_searches_by(&g, n, seed() ^ n as u64);
    }
}

/// Sorts by a comparator against `slice::sort_by`: a thread's keys and the tiles' edges
/// (`merge_tile` of 2-, 4- and 8-byte keys), passes of every parity, ties in every form, a bound
/// argument, 2^24 keys; a one-input predicate refused.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_sort_by_matches_slice_sort_by() {
    use warp_tests::ops::{greater_i64, low_byte_below, nearer_zero, residue_below};
    use warp_tests::sorts::check_sort_by;
    let g = gpu();
    let (t4, t8) = (merge_tile(4), merge_tile(8));
    let sizes = [
        1usize,
        2,
        8,
        9,
        10,
        17,
        18,
        255,
        256,
        257,
        t8 - 1,
        t8,
        t8 + 1,
        t4 - 1,
        t4,
        t4 + 1,
        2 * t4,
        4 * t4 + 1,
        8 * t4 + 3,
        100_000,
        1 << 20,
    ];
    for n in sizes {
        let s = seed() ^ n as u64;
        let xs: Vec<f32> = random_vec_par::<f32>(s, n, false)
            .into_iter()
            .map(|x| (x * 1000.0).round())
            .collect();
        check_sort_by(&g, &xs, nearer_zero, "f32 by magnitude");
        let xs: Vec<u32> = random_vec_par(s ^ 1, n, false);
        check_sort_by(&g, &xs, residue_below.with(7), "u32 mod 7");
        let xs: Vec<i64> = random_vec_par(s ^ 2, n, true);
        check_sort_by(&g, &xs, greater_i64, "i64 descending");
        let xs: Vec<u16> = random_vec_par(s ^ 3, n, true);
        check_sort_by(&g, &xs, low_byte_below, "u16 low byte");
    }
    let xs: Vec<f32> = random_vec_par(seed(), 1 << 24, false);
    check_sort_by(&g, &xs, nearer_zero, "f32 2^24");
    let xs: Vec<u32> = (0..1u32 << 22).rev().collect();
    check_sort_by(&g, &xs, residue_below.with(1 << 30), "u32 reversed");
    // Sorted already (each four-way merge takes its runs one after another), and a sawtooth
    // (runs of 3,000 ascending keys: the merged runs interleave unevenly).
    let xs: Vec<u32> = (0..1u32 << 22).collect();
    check_sort_by(&g, &xs, residue_below.with(1 << 30), "u32 sorted");
    let xs: Vec<u32> = (0..1u32 << 22).map(|i| i % 3000).collect();
    check_sort_by(&g, &xs, residue_below.with(1 << 30), "u32 sawtooth");
}
