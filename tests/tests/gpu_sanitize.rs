//! Every kernel family (reduce, predicates with their early exit, compaction, mask, map, row,
//! column and segment reductions, transpose, histogram (counted and weighted), runs, top-k,
//! sorts, binary search, argwhere, three-way partition, generated ranges (alone and zipped),
//! device-resident lengths, gathers, N-d axes, plain, segmented, continued from an initial
//! value and deterministic float scans: exact tile sums and the tree) on moderate inputs, GPU
//! against the CPU backend: the targets of `compute-sanitizer --tool memcheck` and `--tool
//! racecheck` (scripts/gpu-tests.sh), small enough to run under the tools in seconds, large
//! enough to take every path (several blocks and tiles, the look-back, the match and
//! global-memory histogram paths, misaligned views). Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    argmax_f32, byte_bin, hashed_bin, less, positive, square, sum_f32, sum_f32_tree, sum_i32,
};
use warp_tests::runs::{check_value_inputs, run_keys};
use warp_tests::{assert_bits, exact_vec, gpu, random_vec_par, rng, seed};

#[test]
#[ignore = "needs a CUDA GPU"]
fn histograms_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = (1 << 18) + 5;
    let bytes: Vec<u8> = random_vec_par(s, n, false);
    // One value (the match path where bins have few columns), and spread values.
    let same = vec![7u8; n];
    for xs in [&bytes, &same] {
        let (gx, cx) = (g.upload(xs).unwrap(), c.upload(xs).unwrap());
        for off in [0usize, 3] {
            let (gs, cs) = (gx.slice(off..).unwrap(), cx.slice(off..).unwrap());
            for bins in [1usize, 256] {
                let a: DeviceVec<u32> = g.histogram(byte_bin, &gs, bins).unwrap();
                let b: DeviceVec<u32> = c.histogram(byte_bin, &cs, bins).unwrap();
                assert_eq!(a.download().unwrap(), b.download().unwrap(), "bytes {bins}");
            }
            let a: DeviceVec<u8> = g.histogram(byte_bin, &gs, 256).unwrap();
            let b: DeviceVec<u8> = c.histogram(byte_bin, &cs, 256).unwrap();
            assert_eq!(a.download().unwrap(), b.download().unwrap(), "u8 counters");
        }
    }
    // Many bins: single-column shared bins (4,096: the match path) and global memory (65,536).
    let words: Vec<u32> = random_vec_par(s ^ 1, n, false);
    let (gw, cw) = (g.upload(&words).unwrap(), c.upload(&words).unwrap());
    for (bins, shift) in [(4096usize, 20u32), (65_536, 16)] {
        let bin = hashed_bin.with(0x9e37_79b1, shift);
        let a: DeviceVec<u64> = g.histogram(bin, &gw, bins).unwrap();
        let b: DeviceVec<u64> = c.histogram(bin, &cw, bins).unwrap();
        assert_eq!(a.download().unwrap(), b.download().unwrap(), "{bins} bins");
    }
    let xs: Vec<f32> = random_vec_par(s ^ 2, n, true);
    let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
    let a: DeviceVec<u32> = g.histogram_even(&gx, -1.0, 1.0, 256).unwrap();
    let b: DeviceVec<u32> = c.histogram_even(&cx, -1.0, 1.0, 256).unwrap();
    assert_eq!(a.download().unwrap(), b.download().unwrap(), "even f32");
    // Weighted: shared bins of 4- and 8-byte weights, and global ones; a misaligned view.
    let wi: Vec<i64> = (0..n as i64).map(|i| i % 77 - 30).collect();
    let (gi, ci) = (g.upload(&wi).unwrap(), c.upload(&wi).unwrap());
    let wu: Vec<u32> = words.iter().map(|&w| w >> 8).collect();
    let (gu, cu) = (g.upload(&wu).unwrap(), c.upload(&wu).unwrap());
    for (bins, shift) in [(256usize, 24u32), (4096, 20), (65_536, 16)] {
        let bin = hashed_bin.with(0x9e37_79b1, shift);
        let a = g.histogram_weighted(bin, &gw, &gi, bins).unwrap();
        let b = c.histogram_weighted(bin, &cw, &ci, bins).unwrap();
        assert_eq!(
            a.download().unwrap(),
            b.download().unwrap(),
            "i64 weights {bins}"
        );
        let (gv, cv) = (gw.slice(3..).unwrap(), cw.slice(3..).unwrap());
        let a = g
            .histogram_weighted(bin, &gv, &gu.slice(3..).unwrap(), bins)
            .unwrap();
        let b = c
            .histogram_weighted(bin, &cv, &cu.slice(3..).unwrap(), bins)
            .unwrap();
        assert_eq!(
            a.download().unwrap(),
            b.download().unwrap(),
            "u32 weights {bins}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn searches_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    // 2^23 keys (32 MB: many queries are sorted first) and 2^16 queries, random and in order.
    let mut keys: Vec<f32> = random_vec_par(seed(), 1 << 23, true);
    keys.sort_by(f32::total_cmp);
    let (gk, ck) = (g.upload(&keys).unwrap(), c.upload(&keys).unwrap());
    let mut qs: Vec<f32> = random_vec_par(seed() ^ 1, 1 << 16, true);
    for round in 0..2 {
        let (gq, cq) = (g.upload(&qs).unwrap(), c.upload(&qs).unwrap());
        let order = SortOrder::Ascending;
        let a = g.lower_bound(&gk, &gq, order).unwrap();
        let b = c.lower_bound(&ck, &cq, order).unwrap();
        assert_eq!(
            a.download().unwrap(),
            b.download().unwrap(),
            "round {round}"
        );
        let a = g.upper_bound(&gk, &gq.slice(1..).unwrap(), order).unwrap();
        let b = c.upper_bound(&ck, &cq.slice(1..).unwrap(), order).unwrap();
        assert_eq!(
            a.download().unwrap(),
            b.download().unwrap(),
            "round {round}"
        );
        qs.sort_by(f32::total_cmp);
    }
    // Queries in order dense in the array (searched by tiles: 2^19 queries into 2^23 keys, an
    // array of at least 32 MB), the keys a view whose first key is not aligned to 16 bytes
    // (the tiles' vector loads).
    let mut keys: Vec<f32> = random_vec_par(seed() ^ 3, (1 << 23) + 8, true);
    keys.sort_by(f32::total_cmp);
    let (gk, ck) = (g.upload(&keys).unwrap(), c.upload(&keys).unwrap());
    let qs: Vec<f32> = {
        let mut q = random_vec_par(seed() ^ 2, 1 << 19, true);
        q.sort_by(f32::total_cmp);
        q
    };
    let (gq, cq) = (g.upload(&qs).unwrap(), c.upload(&qs).unwrap());
    for off in [0usize, 1, 3] {
        let (gks, cks) = (gk.slice(off..).unwrap(), ck.slice(off..).unwrap());
        let order = SortOrder::Ascending;
        let a = g.lower_bound(&gks, &gq, order).unwrap();
        let b = c.lower_bound(&cks, &cq, order).unwrap();
        assert_eq!(a.download().unwrap(), b.download().unwrap(), "off {off}");
        let a = g.upper_bound(&gks, &gq, order).unwrap();
        let b = c.upper_bound(&cks, &cq, order).unwrap();
        assert_eq!(a.download().unwrap(), b.download().unwrap(), "off {off}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn runs_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = (1 << 18) + 9;
    for mean in [1usize, 4, 5000] {
        let keys = run_keys(&mut rng(s ^ mean as u64), n, mean);
        let vals: Vec<f32> = exact_vec(s ^ 7, n);
        let (gk, ck) = (g.upload(&keys).unwrap(), c.upload(&keys).unwrap());
        let (gv, cv) = (g.upload(&vals).unwrap(), c.upload(&vals).unwrap());
        for off in [0usize, 1] {
            let (gks, cks) = (gk.slice(off..).unwrap(), ck.slice(off..).unwrap());
            let (gvs, cvs) = (gv.slice(off..).unwrap(), cv.slice(off..).unwrap());
            let tag = format!("mean {mean} off {off}");
            let (a, b) = (g.unique(&gks).unwrap(), c.unique(&cks).unwrap());
            assert_eq!(a.download().unwrap(), b.download().unwrap(), "unique {tag}");
            let (a, b) = (
                g.run_length_encode(&gks).unwrap(),
                c.run_length_encode(&cks).unwrap(),
            );
            assert_eq!(
                a.keys.download().unwrap(),
                b.keys.download().unwrap(),
                "rle {tag}"
            );
            assert_eq!(
                a.counts.download().unwrap(),
                b.counts.download().unwrap(),
                "rle {tag}"
            );
            let (a, b) = (
                g.reduce_by_key(sum_f32, &gks, &gvs).unwrap(),
                c.reduce_by_key(sum_f32, &cks, &cvs).unwrap(),
            );
            assert_eq!(
                a.keys.download().unwrap(),
                b.keys.download().unwrap(),
                "rbk {tag}"
            );
            // Exact sums (small integers): the CPU's bits.
            assert_bits(
                &a.values.download().unwrap(),
                &b.values.download().unwrap(),
                &format!("rbk {tag}"),
            );
        }
    }
    // Reduce-by-key of every kind of value input (indexed, mapped to tuples and structs,
    // zipped): each a module of its own.
    for mean in [3usize, 5000] {
        let keys = run_keys(&mut rng(s ^ 11 ^ mean as u64), (1 << 16) + 9, mean);
        check_value_inputs(&g, &keys, &format!("values, mean {mean}"));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn top_k_matches_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = (1 << 18) + 3;
    let xs: Vec<f32> = random_vec_par(s, n, true);
    let ys: Vec<i64> = random_vec_par(s ^ 1, n, false);
    let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
    let (gy, cy) = (g.upload(&ys).unwrap(), c.upload(&ys).unwrap());
    for k in [1usize, 100, 1024] {
        let (a, b) = (g.top_k(&gx, k).unwrap(), c.top_k(&cx, k).unwrap());
        assert_eq!(
            a.indices.download().unwrap(),
            b.indices.download().unwrap(),
            "top {k}"
        );
        let (a, b) = (g.bottom_k(&gy, k).unwrap(), c.bottom_k(&cy, k).unwrap());
        assert_eq!(
            a.indices.download().unwrap(),
            b.indices.download().unwrap(),
            "bottom {k}"
        );
        assert_eq!(
            a.values.download().unwrap(),
            b.values.download().unwrap(),
            "bottom {k}"
        );
    }
    // The smallest f32 input the sample level reads (catalogue::topk_sample).
    use warp_kernels::catalogue::{TOPK_KEEP, TOPK_SAMPLE_SHARE, topk_items, topk_sample};
    let n = TOPK_KEEP * TOPK_SAMPLE_SHARE * 32 * topk_items(4);
    assert!(topk_sample(n, 4).is_some() && topk_sample(n - 1, 4).is_none());
    let xs: Vec<f32> = random_vec_par(s ^ 2, n, true);
    let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
    for k in [1usize, 1000] {
        let (a, b) = (g.top_k(&gx, k).unwrap(), c.top_k(&cx, k).unwrap());
        assert_eq!(
            a.indices.download().unwrap(),
            b.indices.download().unwrap(),
            "top {k} of {n}, sampled"
        );
    }
    // The top-k of each row: random rows, and rows of equal keys (the columns' radix select);
    // rows of 3,000 by the radix select, rows of 9,001 read once (wd_k_topk_rows_stream: at
    // least TOPK_ROW_STREAM_MIN_COLS columns, and rows enough that they are not split).
    for (rows, cols) in [(40usize, 3000usize), (300, 9001)] {
        let xs: Vec<f32> = random_vec_par(s ^ 3, rows * cols, true);
        let ys = vec![3i64; rows * cols];
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        let (gy, cy) = (g.upload(&ys).unwrap(), c.upload(&ys).unwrap());
        for k in [1usize, 50, 1024] {
            let (a, b) = (
                g.top_k_rows(&gx, cols, k).unwrap(),
                c.top_k_rows(&cx, cols, k).unwrap(),
            );
            assert_eq!(
                a.columns.download().unwrap(),
                b.columns.download().unwrap(),
                "rows of {cols}: top {k}"
            );
            let (a, b) = (
                g.bottom_k_rows(&gy, cols, k).unwrap(),
                c.bottom_k_rows(&cy, cols, k).unwrap(),
            );
            assert_eq!(
                a.columns.download().unwrap(),
                b.columns.download().unwrap(),
                "rows of {cols}: bottom {k}"
            );
            assert_eq!(
                a.values.download().unwrap(),
                b.values.download().unwrap(),
                "rows of {cols}: bottom {k}"
            );
        }
    }
    // Along the middle axis (the batched transposes there and back), with k of a radix select
    // and of the whole line.
    let zs: Vec<f32> = random_vec_par(s ^ 4, 6 * 300 * 70, true);
    for (axis, k) in [(1usize, 50usize), (0, 6)] {
        warp_tests::sorts::check_top_k_axis(&g, &zs, &[6, 300, 70], axis, k, "f32");
    }
}

/// Sorts of several tiles (the look-back), with a skipped pass (keys equal in their high
/// byte), pairs and argsort, and a misaligned view; rows, segments, and the sort by a
/// comparator.
#[test]
#[ignore = "needs a CUDA GPU"]
fn sorts_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = 5 * 4096 + 77;
    let xs: Vec<f32> = random_vec_par(s, n, true);
    let ys: Vec<u32> = random_vec_par::<u32>(s ^ 1, n, false)
        .into_iter()
        .map(|y| y & 0x00FF_FFFF)
        .collect();
    let vs: Vec<u64> = random_vec_par(s ^ 2, n, false);
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        let (gv, cv) = (g.upload(&vs).unwrap(), c.upload(&vs).unwrap());
        let a = g
            .sort(&gx.slice(1..).unwrap(), order)
            .unwrap()
            .download()
            .unwrap();
        let b = c
            .sort(&cx.slice(1..).unwrap(), order)
            .unwrap()
            .download()
            .unwrap();
        assert_bits(&a, &b, "sort f32");
        let (gk, gw) = g.sort_pairs(&gx, &gv, order).unwrap();
        let (ck, cw) = c.sort_pairs(&cx, &cv, order).unwrap();
        assert_bits(
            &gk.download().unwrap(),
            &ck.download().unwrap(),
            "pairs' keys",
        );
        assert_eq!(
            gw.download().unwrap(),
            cw.download().unwrap(),
            "pairs' values"
        );
        let (gy, cy) = (g.upload(&ys).unwrap(), c.upload(&ys).unwrap());
        // 4-byte keys with 4-byte values (and the argsorts below): the passes stage the values
        // (`cp.async`); `f32` keys loaded as raw bits.
        let ids: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let (gi, ci) = (g.upload(&ids).unwrap(), c.upload(&ids).unwrap());
        let (gk, gw) = g.sort_pairs(&gy, &gi, order).unwrap();
        let (ck, cw) = c.sort_pairs(&cy, &ci, order).unwrap();
        assert_eq!(
            gk.download().unwrap(),
            ck.download().unwrap(),
            "pairs' u32 keys"
        );
        assert_eq!(
            gw.download().unwrap(),
            cw.download().unwrap(),
            "pairs' u32 values"
        );
        assert_eq!(
            g.argsort(&gy, order).unwrap().download().unwrap(),
            c.argsort(&cy, order).unwrap().download().unwrap(),
            "argsort u32"
        );
        let (gk, gw) = g.sort_pairs(&gx, &gi, order).unwrap();
        let (ck, cw) = c.sort_pairs(&cx, &ci, order).unwrap();
        assert_bits(
            &gk.download().unwrap(),
            &ck.download().unwrap(),
            "pairs' f32 keys",
        );
        assert_eq!(
            gw.download().unwrap(),
            cw.download().unwrap(),
            "pairs' f32 keys' u32 values"
        );
        assert_eq!(
            g.argsort(&gx.slice(1..).unwrap(), order)
                .unwrap()
                .download()
                .unwrap(),
            c.argsort(&cx.slice(1..).unwrap(), order)
                .unwrap()
                .download()
                .unwrap(),
            "argsort f32"
        );
        // Keys whose top byte is one of three values: that pass is crowded (ranked by
        // __match_any_sync), the others not.
        let crowded: Vec<u32> = ys.iter().map(|&y| y | ((y % 3) << 24)).collect();
        let (gz, cz) = (g.upload(&crowded).unwrap(), c.upload(&crowded).unwrap());
        assert_eq!(
            g.sort(&gz, order).unwrap().download().unwrap(),
            c.sort(&cz, order).unwrap().download().unwrap(),
            "sort u32, crowded top byte"
        );
        // Rows: a thread a row (the networks in registers), many a block (the row pass), one a
        // block, and rows for the device-wide sort.
        for cols in [7, 32, 33, 3000, 4096, 4097] {
            let m = n / cols * cols;
            let (gr, cr) = (g.upload(&xs[..m]).unwrap(), c.upload(&xs[..m]).unwrap());
            assert_bits(
                &g.sort_rows(&gr, cols, order).unwrap().download().unwrap(),
                &c.sort_rows(&cr, cols, order).unwrap().download().unwrap(),
                "sort_rows",
            );
            assert_eq!(
                g.argsort_rows(&gr, cols, order)
                    .unwrap()
                    .download()
                    .unwrap(),
                c.argsort_rows(&cr, cols, order)
                    .unwrap()
                    .download()
                    .unwrap(),
                "argsort_rows"
            );
        }
        // Segments: short ones many to a block (empty ones among them), medium and long ones.
        let offsets = warp_tests::sorts::random_offsets(s, n, &[0, 1, 30, 900, 2000, 5000]);
        let (go, co) = (g.upload(&offsets).unwrap(), c.upload(&offsets).unwrap());
        assert_bits(
            &g.sort_segments(&gx, &go, order)
                .unwrap()
                .download()
                .unwrap(),
            &c.sort_segments(&cx, &co, order)
                .unwrap()
                .download()
                .unwrap(),
            "sort_segments",
        );
        assert_eq!(
            g.argsort_segments(&gx, &go, order)
                .unwrap()
                .download()
                .unwrap(),
            c.argsort_segments(&cx, &co, order)
                .unwrap()
                .download()
                .unwrap(),
            "argsort_segments"
        );
    }
    // By a comparator: the block sort, a two-way pass and a four-way pass (five tiles: pivots,
    // a group of three runs); keys without NaNs, for which the comparator is a strict weak order (one stable result).
    let finite: Vec<f32> = random_vec_par(s ^ 3, n, false);
    let (gx, cx) = (g.upload(&finite).unwrap(), c.upload(&finite).unwrap());
    let by = warp_tests::ops::nearer_zero;
    assert_bits(
        &g.sort_by(by, &gx).unwrap().download().unwrap(),
        &c.sort_by(by, &cx).unwrap().download().unwrap(),
        "sort_by",
    );
    assert_eq!(
        g.argsort_by(by, &gx).unwrap().download().unwrap(),
        c.argsort_by(by, &cx).unwrap().download().unwrap(),
        "argsort_by"
    );
    // A four-way pass whose last group holds 5 keys (13 tiles: runs of a tile, groups of four):
    // a warp's window loads must not read past the array's end.
    let tile = warp_kernels::family::merge::merge_tile(4);
    let short: Vec<f32> = random_vec_par(s ^ 6, 12 * tile + 5, false);
    let (gx, cx) = (g.upload(&short).unwrap(), c.upload(&short).unwrap());
    assert_bits(
        &g.sort_by(by, &gx).unwrap().download().unwrap(),
        &c.sort_by(by, &cx).unwrap().download().unwrap(),
        "sort_by, a short last group",
    );
    // Binary searches by the comparator (a thread per query), against partition_point.
    warp_tests::sorts::check_searches_by(&g, 5000, s ^ 5);
    // Whole structs (24 bytes, padded: three to a thread) by a comparator of two of them.
    let (_, _, mixed) = warp_tests::sorts::sort_values(s ^ 4, 5000);
    let (gm, cm) = (
        g.upload_values(&mixed).unwrap(),
        c.upload_values(&mixed).unwrap(),
    );
    let by = warp_tests::ops::mixed_greater;
    assert!(
        g.sort_by(by, &gm).unwrap().download().unwrap()
            == c.sort_by(by, &cm).unwrap().download().unwrap(),
        "sort_by of structs"
    );
}

/// Generated ranges through the reduce, scan and axis modules (the stage makes the indices).
#[test]
#[ignore = "needs a CUDA GPU"]
fn ranges_match_plain_rust() {
    warp_tests::ranges::check_ranges(&gpu(), (1 << 16) + 3, (1 << 40) + 1, u32::MAX - 70_000);
}

/// Zips of ranges with arrays through every module that takes elements (the stage makes one
/// column and reads the others), and device-resident lengths (the kernels stop at a count
/// they read; compaction's look-back over the whole length).
#[test]
#[ignore = "needs a CUDA GPU"]
fn zipped_ranges_and_device_lengths_match_plain_rust() {
    let g = gpu();
    warp_tests::ranges::check_zipped_ranges(&g, (1 << 16) + 3, (1 << 40) + 1, u32::MAX - 70_000, 5);
    warp_tests::taken::check_taken(&g, (1 << 16) + 5, 6);
}

/// Gathers through the reduce, scan, axis, predicate and histogram modules, and indices out of
/// range (each read nothing and raise the fault word).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gathers_match_plain_rust() {
    let g = gpu();
    warp_tests::gathers::check_gathers(&g, 5000, (1 << 16) + 3, false, 1);
    warp_tests::gathers::check_bad_indices(&g, 100, 4096, &[4000, 17]);
}

/// `collect` of ranges, gathers (an index out of range included), strided views and zips.
#[test]
#[ignore = "needs a CUDA GPU"]
fn collect_matches_plain_rust() {
    warp_tests::collect::check_collect(&gpu(), 70_001, 3);
}

/// Strided views through the reduce, scan, axis, predicate and histogram modules: nothing read
/// past the array.
#[test]
#[ignore = "needs a CUDA GPU"]
fn strided_views_match_plain_rust() {
    warp_tests::strides::check_strided(&gpu(), (1 << 16) * 3 + 2, 1, 3, 2);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn partition3_and_scans_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = (1 << 18) + 17;
    let xs: Vec<f32> = random_vec_par(s, n, false);
    let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
    let (a, b, d) = g.partition3(less.with(-0.3), less.with(0.3), &gx).unwrap();
    let (x, y, z) = c.partition3(less.with(-0.3), less.with(0.3), &cx).unwrap();
    assert_eq!(a.download().unwrap(), x.download().unwrap(), "first part");
    assert_eq!(b.download().unwrap(), y.download().unwrap(), "second part");
    assert_eq!(d.download().unwrap(), z.download().unwrap(), "rest");
    // Small integers in floats: every partial sum exact, so GPU and CPU agree bit for bit.
    let ints: Vec<f32> = xs.iter().map(|x| (x * 8.0).round()).collect();
    let is: Vec<i32> = ints.iter().map(|&x| x as i32).collect();
    let (gi, ci) = (g.upload(&ints).unwrap(), c.upload(&ints).unwrap());
    let (gj, cj) = (g.upload(&is).unwrap(), c.upload(&is).unwrap());
    let same = |a: DeviceVec<f32>, b: DeviceVec<f32>, what: &str| {
        assert_eq!(a.download().unwrap(), b.download().unwrap(), "{what}");
    };
    same(
        g.scan(sum_f32, &gi).unwrap(),
        c.scan(sum_f32, &ci).unwrap(),
        "scan",
    );
    same(
        g.exclusive_scan(sum_f32, &gi).unwrap(),
        c.exclusive_scan(sum_f32, &ci).unwrap(),
        "exclusive scan",
    );
    // The fixed tree (sum_f32 takes exact tile sums).
    same(
        g.scan(sum_f32_tree, &gi).unwrap(),
        c.scan(sum_f32_tree, &ci).unwrap(),
        "tree scan",
    );
    // Continued from an initial value (read from the operation's scratch).
    same(
        g.scan_from(sum_f32, &gi, -12.0).unwrap(),
        c.scan_from(sum_f32, &ci, -12.0).unwrap(),
        "scan from",
    );
    same(
        g.exclusive_scan_from(sum_f32_tree, &gi, 3.0).unwrap(),
        c.exclusive_scan_from(sum_f32_tree, &ci, 3.0).unwrap(),
        "exclusive tree scan from",
    );
    for cols in [32usize, 4096] {
        let m = n / cols * cols;
        let (gs, cs) = (gi.slice(..m).unwrap(), ci.slice(..m).unwrap());
        same(
            g.scan_rows(sum_f32, &gs, cols).unwrap(),
            c.scan_rows(sum_f32, &cs, cols).unwrap(),
            "scan rows",
        );
    }
    let mut offsets = vec![0u64];
    let lens: Vec<u64> = random_vec_par(s ^ 3, 2000, false);
    for l in lens {
        let next = (offsets.last().unwrap() + l % 300).min(n as u64);
        offsets.push(next);
    }
    offsets.push(n as u64);
    let (go, co) = (g.upload(&offsets).unwrap(), c.upload(&offsets).unwrap());
    assert_eq!(
        g.scan_segments(sum_i32, &gj, &go)
            .unwrap()
            .download()
            .unwrap(),
        c.scan_segments(sum_i32, &cj, &co)
            .unwrap()
            .download()
            .unwrap(),
        "scan segments"
    );
    assert_eq!(
        g.exclusive_scan_segments(sum_i32, &gj, &go)
            .unwrap()
            .download()
            .unwrap(),
        c.exclusive_scan_segments(sum_i32, &cj, &co)
            .unwrap()
            .download()
            .unwrap(),
        "exclusive scan segments"
    );
}

/// Small integers as floats: every sum exact, so GPU and CPU agree bit for bit.
fn small_ints(seed: u64, n: usize) -> Vec<f32> {
    random_vec_par::<f32>(seed, n, false)
        .into_iter()
        .map(|x| (x * 8.0).round())
        .collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn reductions_predicates_maps_and_axes_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = (1 << 18) + 5;
    let xs = small_ints(s, n);
    let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
    for off in [0usize, 3] {
        let (gs, cs) = (gx.slice(off..).unwrap(), cx.slice(off..).unwrap());
        let tag = format!("offset {off}");
        assert_eq!(
            g.reduce(sum_f32, &gs).unwrap().to_bits(),
            c.reduce(sum_f32, &cs).unwrap().to_bits(),
            "reduce {tag}"
        );
        assert_eq!(
            g.reduce(argmax_f32, &gs.indexed()).unwrap(),
            c.reduce(argmax_f32, &cs.indexed()).unwrap(),
            "argmax {tag}"
        );
        assert_eq!(
            g.map_reduce(square, sum_f32, &gs).unwrap().to_bits(),
            c.map_reduce(square, sum_f32, &cs).unwrap().to_bits(),
            "map_reduce {tag}"
        );
        assert_eq!(
            g.count(positive, &gs).unwrap(),
            c.count(positive, &cs).unwrap(),
            "count {tag}"
        );
        for t in [-100.0f32, 3.5, 100.0] {
            // Early exit: a match at once, late, or never.
            let p = less.with(t);
            assert_eq!(
                g.any(p, &gs).unwrap(),
                c.any(p, &cs).unwrap(),
                "any {t} {tag}"
            );
            assert_eq!(
                g.all(p, &gs).unwrap(),
                c.all(p, &cs).unwrap(),
                "all {t} {tag}"
            );
            assert_eq!(
                g.find_first(p, &gs).unwrap(),
                c.find_first(p, &cs).unwrap(),
                "find_first {t} {tag}"
            );
        }
        assert_eq!(
            g.mask(positive, &gs).unwrap().download().unwrap(),
            c.mask(positive, &cs).unwrap().download().unwrap(),
            "mask {tag}"
        );
        assert_eq!(
            g.filter(positive, &gs).unwrap().download().unwrap(),
            c.filter(positive, &cs).unwrap().download().unwrap(),
            "filter {tag}"
        );
        assert_eq!(
            g.argwhere(positive, &gs).unwrap().download().unwrap(),
            c.argwhere(positive, &cs).unwrap().download().unwrap(),
            "argwhere {tag}"
        );
        let (a, b) = g.partition(positive, &gs).unwrap();
        let (x, y) = c.partition(positive, &cs).unwrap();
        assert_eq!(
            a.download().unwrap(),
            x.download().unwrap(),
            "partition {tag}"
        );
        assert_eq!(
            b.download().unwrap(),
            y.download().unwrap(),
            "partition {tag}"
        );
        assert_eq!(
            g.map(square, &gs).unwrap().download().unwrap(),
            c.map(square, &cs).unwrap().download().unwrap(),
            "map {tag}"
        );
    }
    // Rows: sub-warp groups, a warp, a block, and several blocks per row.
    for cols in [7usize, 32, 256, 4096, 65_536] {
        let m = n / cols * cols;
        let (gs, cs) = (gx.slice(..m).unwrap(), cx.slice(..m).unwrap());
        assert_eq!(
            g.reduce_rows(sum_f32, &gs, cols)
                .unwrap()
                .download()
                .unwrap(),
            c.reduce_rows(sum_f32, &cs, cols)
                .unwrap()
                .download()
                .unwrap(),
            "rows of {cols}"
        );
    }
    // Columns: narrow, a tile, past a tile, wide (at offset 1: the padded tile), and wide
    // aligned ones (the vector column reduction).
    for (off, cols) in [
        (1, 3usize),
        (1, 32),
        (1, 257),
        (1, 4096),
        (0, 4096),
        (0, 65_536),
    ] {
        let m = (n - off) / cols * cols;
        let (gs, cs) = (
            gx.slice(off..m + off).unwrap(),
            cx.slice(off..m + off).unwrap(),
        );
        assert_eq!(
            g.reduce_cols(sum_f32, &gs, cols)
                .unwrap()
                .download()
                .unwrap(),
            c.reduce_cols(sum_f32, &cs, cols)
                .unwrap()
                .download()
                .unwrap(),
            "columns of {cols} at {off}"
        );
    }
    // Segments: empty, short and long ones.
    let mut offsets = vec![0u64];
    for (i, l) in random_vec_par::<u64>(s ^ 5, 400, false)
        .into_iter()
        .enumerate()
    {
        let len = if i % 50 == 7 { l % 40_000 } else { l % 200 };
        offsets.push((offsets.last().unwrap() + len).min(n as u64));
    }
    let (go, co) = (g.upload(&offsets).unwrap(), c.upload(&offsets).unwrap());
    assert_eq!(
        g.reduce_segments(sum_f32, &gx, &go)
            .unwrap()
            .download()
            .unwrap(),
        c.reduce_segments(sum_f32, &cx, &co)
            .unwrap()
            .download()
            .unwrap(),
        "segments"
    );
    // Transpose: the bits, for 4-, 1- and 8-byte elements, square and ragged shapes.
    for cols in [33usize, 1024] {
        let m = n / cols * cols;
        let (gs, cs) = (gx.slice(..m).unwrap(), cx.slice(..m).unwrap());
        let (a, b) = (
            g.transpose(&gs, cols).unwrap(),
            c.transpose(&cs, cols).unwrap(),
        );
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(
            bits(a.download().unwrap()),
            bits(b.download().unwrap()),
            "transpose {cols}"
        );
    }
    let bytes: Vec<u8> = random_vec_par(s ^ 6, 1000 * 77, false);
    let wide: Vec<f64> = random_vec_par(s ^ 7, 300 * 129, true);
    assert_eq!(
        g.transpose(&g.upload(&bytes).unwrap(), 77)
            .unwrap()
            .download()
            .unwrap(),
        c.transpose(&c.upload(&bytes).unwrap(), 77)
            .unwrap()
            .download()
            .unwrap(),
        "transpose u8"
    );
    let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
    assert_eq!(
        bits(
            g.transpose(&g.upload(&wide).unwrap(), 129)
                .unwrap()
                .download()
                .unwrap()
        ),
        bits(
            c.transpose(&c.upload(&wide).unwrap(), 129)
                .unwrap()
                .download()
                .unwrap()
        ),
        "transpose f64"
    );
}

/// `reduce_axis` along the middle axis: the column kernels over batches (the vector one and the
/// padded tile), with partials.
#[test]
#[ignore = "needs a CUDA GPU"]
fn reduce_axis_matches_plain_rust() {
    let g = gpu();
    warp_tests::axes::check_reduce_axis(&g, &[8, 300, 512], 1);
    warp_tests::axes::check_reduce_axis(&g, &[5, 200, 33], 2);
    warp_tests::axes::check_scan_axis(&g, &[5, 200, 33], 3);
}

/// Masked inputs and maps of maps through the reduce, axis, predicate and histogram modules.
#[test]
#[ignore = "needs a CUDA GPU"]
fn masked_inputs_match_plain_rust() {
    warp_tests::masked::check_masked(&gpu(), 1792 * 37, 3);
    warp_tests::masked::check_chains(&gpu(), 1792 * 37, 4);
}

/// Weights combined per bin by `#[reduce]` operators and scatters by them (CAS loops in shared
/// and global memory).
#[test]
#[ignore = "needs a CUDA GPU"]
fn histogram_reduce_matches_plain_rust() {
    let g = gpu();
    warp_tests::hist_reduce::check_histogram_reduce(&g, 50_000, 300, 1);
    warp_tests::hist_reduce::check_histogram_reduce(&g, 50_000, 20_000, 2);
    warp_tests::hist_reduce::check_scatter_reduce(&g, 50_000, 300, 3);
    warp_tests::hist_reduce::check_scatter_reduce(&g, 50_000, 100_000, 4);
}

/// Plain scatters (`wd_k_scatter`), repeats included.
#[test]
#[ignore = "needs a CUDA GPU"]
fn scatter_matches_plain_rust() {
    warp_tests::scatter::check_scatter(&gpu(), 50_000, 70_001, 5);
}
