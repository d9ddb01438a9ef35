//! GPU scans against the CPU backend and plain iterators: segmented scans of rows (widths 1 to
//! 65536 + 3) and of CSR segments (empty ones, one segment, ragged, segments longer than a
//! tile), inclusive and exclusive, exact operators bit for bit, a non-commutative float
//! operator (the order), float sums the same bits run after run in both tile orders and equal
//! to the CPU's fold where every partial sum is exact (exact tile sums and the tree), scans
//! continued from an initial value, tile prefixes of float sums correctly rounded (infinities
//! and NaN too), and bad offsets. Needs a CUDA GPU.

use warp_kernels::catalogue::{BLOCK_TILE, scan_span};
use warp_runtime::prelude::*;
use warp_tests::ops::{sum_f32, sum_f32_tree, sum_i32};
use warp_tests::scans::{one_term_a_tile, rows_bounds, running};
use warp_tests::{Random, SameValue, assert_bits, gpu, random_vec_par, rng, seed};

#[reduce(identity = 0)]
fn add_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
/// The last value that is not NaN: not commutative, and a float (so its scans take the tree).
#[reduce(identity = f32::NAN)]
fn last_f32(a: f32, b: f32) -> f32 {
    if b.is_nan() { a } else { b }
}

fn same<T: SameValue + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| !got[i].same(&want[i])) {
        panic!(
            "{what}: first difference at {i}: GPU {:?}, want {:?}",
            got[i], want[i]
        );
    }
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Small integers as f32: every partial sum is exact, so any grouping gives the CPU's bits.
fn small_ints(seed: u64, n: usize) -> Vec<f32> {
    let ks: Vec<i8> = random_vec_par(seed, n, false);
    ks.iter().map(|&k| (k % 9) as f32).collect()
}

/// Random values with NaNs (a third of them) for `last_f32`.
fn with_nans(seed: u64, n: usize) -> Vec<f32> {
    let mut r = rng(seed);
    let keep = bool::random_vec(&mut r, n, false);
    let xs: Vec<f32> = random_vec_par(seed, n, false);
    xs.iter()
        .zip(&keep)
        .map(|(&x, &k)| if k { f32::NAN } else { x })
        .collect()
}

const COLS: [usize; 16] = [
    1, 2, 3, 31, 32, 33, 511, 512, 513, 4095, 4096, 4097, 5000, 8192, 10_000, 65_539,
];

#[test]
#[ignore = "needs a CUDA GPU"]
fn row_scans_match_the_cpu_and_iterators() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    let mut r = rng(seed);
    for cols in COLS {
        for rows in [1usize, 2, 7, (1 << 20) / cols + 1] {
            let n = rows * cols;
            let what = format!("{rows}x{cols}");
            let bounds = rows_bounds(n, cols);
            // Exact: i32 (the packed status) and i64 (the split one), against iterators.
            let xs = i32::random_vec(&mut r, n, true);
            let gx = g.upload(&xs).unwrap();
            let (incl, excl) = running(&xs, &bounds, 0, i32::wrapping_add);
            same(
                &g.scan_rows(sum_i32, &gx, cols).unwrap().download().unwrap(),
                &incl,
                &format!("scan_rows i32 {what}"),
            );
            same(
                &g.exclusive_scan_rows(sum_i32, &gx, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &excl,
                &format!("exclusive_scan_rows i32 {what}"),
            );
            // At an odd offset (no vector loads), into the caller's array.
            if rows > 1 {
                let m = (rows - 1) * cols;
                let gs = gx.slice(1..1 + m).unwrap();
                let (incl, _) = running(&xs[1..1 + m], &rows_bounds(m, cols), 0, i32::wrapping_add);
                let mut out = g.upload(&vec![0i32; m]).unwrap();
                g.scan_rows_into(sum_i32, &gs, cols, &mut out).unwrap();
                same(
                    &out.download().unwrap(),
                    &incl,
                    &format!("scan_rows_into i32 {what} off 1"),
                );
            }
            let ys = i64::random_vec(&mut r, n, true);
            let (incl, _) = running(&ys, &bounds, 0, i64::wrapping_add);
            same(
                &g.scan_rows(add_i64, &g.upload(&ys).unwrap(), cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &incl,
                &format!("scan_rows i64 {what}"),
            );
            // Floats: exact partial sums equal the CPU's fold bit for bit.
            let fs = small_ints(seed ^ n as u64, n);
            let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
            same(
                &g.scan_rows(sum_f32, &gf, cols).unwrap().download().unwrap(),
                &c.scan_rows(sum_f32, &cf, cols).unwrap().download().unwrap(),
                &format!("scan_rows f32 {what}"),
            );
            same(
                &g.exclusive_scan_rows(sum_f32, &gf, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &c.exclusive_scan_rows(sum_f32, &cf, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &format!("exclusive_scan_rows f32 {what}"),
            );
            // The order: the last non-NaN value of the row so far.
            let ls = with_nans(seed ^ 7 ^ n as u64, n);
            let (incl, excl) = running(
                &ls,
                &bounds,
                f32::NAN,
                |a, b| if b.is_nan() { a } else { b },
            );
            let gl = g.upload(&ls).unwrap();
            same(
                &g.scan_rows(last_f32, &gl, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &incl,
                &format!("scan_rows last {what}"),
            );
            same(
                &g.exclusive_scan_rows(last_f32, &gl, cols)
                    .unwrap()
                    .download()
                    .unwrap(),
                &excl,
                &format!("exclusive_scan_rows last {what}"),
            );
        }
    }
    // Empty input.
    let e = g.upload::<f32>(&[]).unwrap();
    assert_eq!(g.scan_rows(sum_f32, &e, 32).unwrap().len(), 0);
    assert!(matches!(
        g.scan_rows(sum_f32, &g.upload(&[1.0f32; 5]).unwrap(), 2),
        Err(Error::Shape(_))
    ));
    assert!(matches!(g.scan_rows(sum_f32, &e, 0), Err(Error::Shape(_))));
}

/// CSR offsets of `n` elements: segment lengths drawn up to `max_len`, every fifth empty.
fn ragged(seed: u64, n: usize, max_len: usize) -> Vec<u64> {
    let mut r = rng(seed);
    let lens = u32::random_vec(&mut r, n + 1, false);
    let mut offsets = vec![0u64];
    let mut at = 0usize;
    for (i, l) in lens.iter().enumerate() {
        if at == n {
            break;
        }
        let len = if i % 5 == 4 {
            0
        } else {
            (*l as usize % max_len + 1).min(n - at)
        };
        at += len;
        offsets.push(at as u64);
    }
    if at < n {
        offsets.push(n as u64);
    }
    offsets
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn segment_scans_match_the_cpu_and_iterators() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    let mut r = rng(seed);
    for n in [
        1usize,
        31,
        32,
        33,
        4095,
        4096,
        4097,
        5000,
        (1 << 20) + 7,
        (1 << 22) + 3,
    ] {
        let mut cases = vec![
            ("one segment", vec![0u64, n as u64]),
            ("empty ones around one", vec![0, 0, 0, n as u64, n as u64]),
        ];
        for max_len in [1usize, 4, 40, 5000, 100_000] {
            cases.push(("ragged", ragged(seed ^ (n * max_len) as u64, n, max_len)));
        }
        for (name, offsets) in cases {
            let what = format!("{name} n={n} segments={}", offsets.len() - 1);
            let bounds: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
            let (go, co) = (g.upload(&offsets).unwrap(), c.upload(&offsets).unwrap());
            let xs = i32::random_vec(&mut r, n, true);
            let gx = g.upload(&xs).unwrap();
            let (incl, excl) = running(&xs, &bounds, 0, i32::wrapping_add);
            same(
                &g.scan_segments(sum_i32, &gx, &go)
                    .unwrap()
                    .download()
                    .unwrap(),
                &incl,
                &format!("scan_segments i32 {what}"),
            );
            same(
                &g.exclusive_scan_segments(sum_i32, &gx, &go)
                    .unwrap()
                    .download()
                    .unwrap(),
                &excl,
                &format!("exclusive_scan_segments i32 {what}"),
            );
            let ys = i64::random_vec(&mut r, n, true);
            let (incl, _) = running(&ys, &bounds, 0, i64::wrapping_add);
            same(
                &g.scan_segments(add_i64, &g.upload(&ys).unwrap(), &go)
                    .unwrap()
                    .download()
                    .unwrap(),
                &incl,
                &format!("scan_segments i64 {what}"),
            );
            let fs = small_ints(seed ^ n as u64, n);
            let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
            same(
                &g.scan_segments(sum_f32, &gf, &go)
                    .unwrap()
                    .download()
                    .unwrap(),
                &c.scan_segments(sum_f32, &cf, &co)
                    .unwrap()
                    .download()
                    .unwrap(),
                &format!("scan_segments f32 {what}"),
            );
            let mut out = g.upload(&vec![1.0f32; n]).unwrap();
            g.exclusive_scan_segments_into(sum_f32, &gf, &go, &mut out)
                .unwrap();
            same(
                &out.download().unwrap(),
                &c.exclusive_scan_segments(sum_f32, &cf, &co)
                    .unwrap()
                    .download()
                    .unwrap(),
                &format!("exclusive_scan_segments_into f32 {what}"),
            );
            let ls = with_nans(seed ^ 11 ^ n as u64, n);
            let (incl, _) = running(
                &ls,
                &bounds,
                f32::NAN,
                |a, b| if b.is_nan() { a } else { b },
            );
            same(
                &g.scan_segments(last_f32, &g.upload(&ls).unwrap(), &go)
                    .unwrap()
                    .download()
                    .unwrap(),
                &incl,
                &format!("scan_segments last {what}"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn bad_offsets_and_empty_inputs() {
    let g = gpu();
    let xs = g.upload(&[1i32, 2, 3, 4, 5]).unwrap();
    for offsets in [
        vec![],
        vec![0u64, 3, 2, 5],
        vec![1, 5],
        vec![0, 4],
        vec![0, 6],
        vec![0],
    ] {
        let o = g.upload(&offsets).unwrap();
        assert!(
            matches!(g.scan_segments(sum_i32, &xs, &o), Err(Error::Shape(_))),
            "{offsets:?}"
        );
        assert!(matches!(
            g.exclusive_scan_segments(sum_f32, &g.upload(&[1.0f32; 5]).unwrap(), &o),
            Err(Error::Shape(_))
        ));
    }
    // Many offsets, one bad far from the start: found by the block that checks it.
    let n = 1 << 20;
    let mut offsets: Vec<u64> = (0..=n as u64).step_by(3).chain([n as u64]).collect();
    let k = offsets.len() - 100;
    offsets[k] = offsets[k - 1] - 1;
    let big = g.upload(&vec![1i32; n]).unwrap();
    assert!(matches!(
        g.scan_segments(sum_i32, &big, &g.upload(&offsets).unwrap()),
        Err(Error::Shape(_))
    ));
    let empty = g.upload::<i32>(&[]).unwrap();
    for (offsets, ok) in [
        (vec![0u64], true),
        (vec![0, 0, 0], true),
        (vec![0, 1], false),
    ] {
        let r = g.scan_segments(sum_i32, &empty, &g.upload(&offsets).unwrap());
        assert_eq!(r.is_ok(), ok, "{offsets:?}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn float_scans_have_the_same_bits_every_run() {
    let g = gpu();
    let seed = seed();
    println!("seed {seed}");
    let n = (1 << 24) + 11;
    let xs: Vec<f32> = random_vec_par(seed, n, false);
    let gx = g.upload(&xs).unwrap();
    let offsets = ragged(seed, n, 100_000);
    let go = g.upload(&offsets).unwrap();
    let runs = |g: &Device| {
        (
            bits(&g.scan(sum_f32, &gx).unwrap().download().unwrap()),
            bits(&g.exclusive_scan(sum_f32, &gx).unwrap().download().unwrap()),
            bits(&g.scan(sum_f32_tree, &gx).unwrap().download().unwrap()),
            bits(
                &g.scan_rows(sum_f32, &gx.slice(..n - 11).unwrap(), 1 << 16)
                    .unwrap()
                    .download()
                    .unwrap(),
            ),
            bits(
                &g.scan_rows(sum_f32, &gx.slice(..n - 11).unwrap(), 32)
                    .unwrap()
                    .download()
                    .unwrap(),
            ),
            bits(
                &g.scan_segments(sum_f32, &gx, &go)
                    .unwrap()
                    .download()
                    .unwrap(),
            ),
        )
    };
    let first = runs(&g);
    // Several runs, and the other tile order (tiles numbered in block start order).
    for queue in [false, true, false, true] {
        g.set_tile_queue(queue);
        for _ in 0..2 {
            assert!(
                runs(&g) == first,
                "a float scan changed bits (tile queue {queue})"
            );
        }
    }
    g.set_tile_queue(false);
    // And close to the f64 running sum.
    let (mut acc, mut abs) = (0f64, 0f64);
    let scanned: Vec<f32> = first.0.iter().map(|&b| f32::from_bits(b)).collect();
    for (i, (&x, &s)) in xs.iter().zip(&scanned).enumerate() {
        acc += x as f64;
        abs += x.abs() as f64;
        assert!(
            (s as f64 - acc).abs() <= 1e-5 * abs + 1e-3,
            "f32 scan at {i}: {s} vs {acc}"
        );
    }
    // Exact partial sums: the CPU's fold, bit for bit, at sizes around the tree's levels
    // (exact tile sums and the tree).
    let c = Device::cpu();
    let tile = BLOCK_TILE * scan_span(&[4], 4);
    for tiles in [1usize, 2, 3, 7, 8, 9, 255, 256, 257, 4097] {
        let m = tiles * tile - 5;
        let fs = small_ints(seed ^ m as u64, m);
        let want = c.scan(sum_f32, &c.upload(&fs).unwrap()).unwrap();
        let want = want.download().unwrap();
        let gf = g.upload(&fs).unwrap();
        same(
            &g.scan(sum_f32, &gf).unwrap().download().unwrap(),
            &want,
            &format!("scan f32 of small integers, {m} elements"),
        );
        same(
            &g.scan(sum_f32_tree, &gf).unwrap().download().unwrap(),
            &want,
            &format!("tree scan f32 of small integers, {m} elements"),
        );
        let ls = with_nans(seed ^ 3 ^ m as u64, m);
        let gl = g.upload(&ls).unwrap();
        let (incl, excl) = running(
            &ls,
            &[0, m],
            f32::NAN,
            |a, b| if b.is_nan() { a } else { b },
        );
        same(
            &g.scan(last_f32, &gl).unwrap().download().unwrap(),
            &incl,
            &format!("scan last {m}"),
        );
        same(
            &g.exclusive_scan(last_f32, &gl).unwrap().download().unwrap(),
            &excl,
            &format!("exclusive scan last {m}"),
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn float_sum_prefixes_are_correctly_rounded() {
    // One term a tile: a tile's first output is its prefix, the correctly rounded sum of the
    // terms before it, whichever way the look-back grouped them; a sequential fold of the
    // tiles' aggregates, or the tree, rounds differently somewhere.
    let g = gpu();
    let seed = seed();
    println!("seed {seed}");
    let (tiles, tile) = (6000, BLOCK_TILE * scan_span(&[4], 4));
    let (mut xs, mut want) = one_term_a_tile(seed, tiles, tile);
    let gx = g.upload(&xs).unwrap();
    let at_tiles = |v: &[f32]| -> Vec<f32> { (0..tiles).map(|t| v[t * tile]).collect() };
    for queue in [false, true] {
        g.set_tile_queue(queue);
        for _ in 0..3 {
            let incl = at_tiles(&g.scan(sum_f32, &gx).unwrap().download().unwrap());
            let excl = at_tiles(&g.exclusive_scan(sum_f32, &gx).unwrap().download().unwrap());
            same(&incl, &want, &format!("prefixes (tile queue {queue})"));
            same(
                &excl,
                &want,
                &format!("exclusive prefixes (tile queue {queue})"),
            );
        }
    }
    g.set_tile_queue(false);
    let tree = at_tiles(&g.scan(sum_f32_tree, &gx).unwrap().download().unwrap());
    assert!(
        bits(&tree) != bits(&want),
        "the tree's prefixes round as exact sums do: the data tells nothing"
    );
    // Infinities and NaN: +inf from tile 2000 on, NaN once -inf joins it (tile 4000).
    xs[2000 * tile - 1] = f32::INFINITY;
    xs[4000 * tile - 1] = f32::NEG_INFINITY;
    for w in &mut want[2000..4000] {
        *w = f32::INFINITY;
    }
    for w in &mut want[4000..] {
        *w = f32::NAN;
    }
    let got = at_tiles(
        &g.scan(sum_f32, &g.upload(&xs).unwrap())
            .unwrap()
            .download()
            .unwrap(),
    );
    same(&got, &want, "prefixes with infinities");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tuples_wide_floats_and_maps_in_segmented_scans() {
    use warp_tests::ops::{argmax_f32, sum_f64, widen};
    #[reduce(identity = 0)]
    fn add_u64(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    let mut r = rng(seed);
    for (n, cols) in [(33 * 1000, 33), (5000 * 40, 5000), ((1 << 20) + 7, 1)] {
        let offsets = ragged(seed ^ n as u64, n, 3000);
        let (go, co) = (g.upload(&offsets).unwrap(), c.upload(&offsets).unwrap());
        let what = format!("n={n} cols={cols}");
        // (f32, u32) argmax pairs: 8-byte values, the split status, through the tree.
        let fs = f32::random_vec(&mut r, n, true);
        let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
        same(
            &g.scan_rows(argmax_f32, &gf.indexed(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &c.scan_rows(argmax_f32, &cf.indexed(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &format!("scan_rows argmax {what}"),
        );
        same(
            &g.exclusive_scan_segments(argmax_f32, &gf.indexed(), &go)
                .unwrap()
                .download()
                .unwrap(),
            &c.exclusive_scan_segments(argmax_f32, &cf.indexed(), &co)
                .unwrap()
                .download()
                .unwrap(),
            &format!("exclusive_scan_segments argmax {what}"),
        );
        // f64 sums of small integers (exact): the CPU's bits.
        let ds: Vec<f64> = small_ints(seed ^ 5, n).iter().map(|&x| x as f64).collect();
        let (gd, cd) = (g.upload(&ds).unwrap(), c.upload(&ds).unwrap());
        same(
            &g.scan_rows(sum_f64, &gd, cols).unwrap().download().unwrap(),
            &c.scan_rows(sum_f64, &cd, cols).unwrap().download().unwrap(),
            &format!("scan_rows f64 {what}"),
        );
        same(
            &g.scan_segments(sum_f64, &gd, &go)
                .unwrap()
                .download()
                .unwrap(),
            &c.scan_segments(sum_f64, &cd, &co)
                .unwrap()
                .download()
                .unwrap(),
            &format!("scan_segments f64 {what}"),
        );
        // A map fused into the scan (u8 elements, u64 values).
        let bs = u8::random_vec(&mut r, n, true);
        let (gb, cb) = (g.upload(&bs).unwrap(), c.upload(&bs).unwrap());
        same(
            &g.scan_rows(add_u64, &gb.map(widen.with(8)), cols)
                .unwrap()
                .download()
                .unwrap(),
            &c.scan_rows(add_u64, &cb.map(widen.with(8)), cols)
                .unwrap()
                .download()
                .unwrap(),
            &format!("scan_rows of a map {what}"),
        );
        same(
            &g.scan_segments(add_u64, &gb.map(widen.with(8)), &go)
                .unwrap()
                .download()
                .unwrap(),
            &c.scan_segments(add_u64, &cb.map(widen.with(8)), &co)
                .unwrap()
                .download()
                .unwrap(),
            &format!("scan_segments of a map {what}"),
        );
    }
}

/// An f32 sum from `-0.0`: its scans take the exact tile sums too.
#[reduce(identity = -0.0)]
fn sum_from_neg_zero(a: f32, b: f32) -> f32 {
    a + b
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn exact_sum_scans_keep_signed_zeros() {
    // IEEE addition: -0.0 + -0.0 is -0.0, anything else that sums to zero is +0.0. Folded from
    // the identity, a running sum is -0.0 only while the identity and every element so far
    // are -0.0: the scans must give those bits across tiles (the exact tile sums' flag) as
    // plain Rust does, the CPU backend too.
    let (g, c) = (gpu(), Device::cpu());
    let tile = BLOCK_TILE * scan_span(&[4], 4);
    let n = 3 * tile + 17;
    let all_neg = vec![-0.0f32; n];
    let mut plus_in_tile_2 = all_neg.clone();
    plus_in_tile_2[2 * tile + 5] = 0.0;
    let mut cancelling = all_neg.clone();
    cancelling[tile + 3] = 1.5;
    cancelling[tile + 4] = -1.5;
    for (what, xs) in [
        ("all -0.0", &all_neg),
        ("+0.0 in tile 2", &plus_in_tile_2),
        ("1.5 - 1.5 in tile 1", &cancelling),
    ] {
        let (gx, cx) = (g.upload(xs).unwrap(), c.upload(xs).unwrap());
        let check =
            |id: f32, got_g: Vec<f32>, got_c: Vec<f32>, excl_g: Vec<f32>, excl_c: Vec<f32>| {
                let (incl, excl) = running(xs, &[0, n], id, |a, b| a + b);
                let tag = format!("{what}, identity {id:?}");
                assert_bits(&got_g, &incl, &format!("scan {tag}"));
                assert_bits(&got_c, &incl, &format!("CPU scan {tag}"));
                assert_bits(&excl_g, &excl, &format!("exclusive scan {tag}"));
                assert_bits(&excl_c, &excl, &format!("CPU exclusive scan {tag}"));
            };
        check(
            0.0,
            g.scan(sum_f32, &gx).unwrap().download().unwrap(),
            c.scan(sum_f32, &cx).unwrap().download().unwrap(),
            g.exclusive_scan(sum_f32, &gx).unwrap().download().unwrap(),
            c.exclusive_scan(sum_f32, &cx).unwrap().download().unwrap(),
        );
        check(
            -0.0,
            g.scan(sum_from_neg_zero, &gx).unwrap().download().unwrap(),
            c.scan(sum_from_neg_zero, &cx).unwrap().download().unwrap(),
            g.exclusive_scan(sum_from_neg_zero, &gx)
                .unwrap()
                .download()
                .unwrap(),
            c.exclusive_scan(sum_from_neg_zero, &cx)
                .unwrap()
                .download()
                .unwrap(),
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn scans_from_an_initial_value_match_the_cpu() {
    // op(init, each output) in every prefix mode: exact i64 sums, f32 sums of small integers
    // (exact tile sums and the tree: the CPU's bits), the non-commutative `last_f32` (init
    // first), -0.0 as the initial value of an exclusive sum, and an input scanned in two chunks.
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    let tile = BLOCK_TILE * scan_span(&[4], 4);
    let mut r = rng(seed);
    for n in [
        1usize,
        37,
        tile - 1,
        tile,
        tile + 1,
        5 * tile + 77,
        (1 << 22) + 3,
    ] {
        let what = format!("n={n}");
        let xs = i64::random_vec(&mut r, n, true);
        let init = i64::random_vec(&mut r, 1, true)[0];
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        let (incl, excl) = running(&xs, &[0, n], init, i64::wrapping_add);
        same(
            &g.scan_from(add_i64, &gx, init).unwrap().download().unwrap(),
            &incl,
            &what,
        );
        same(
            &g.exclusive_scan_from(add_i64, &gx, init)
                .unwrap()
                .download()
                .unwrap(),
            &excl,
            &what,
        );
        let mut out = g.upload(&vec![0i64; n]).unwrap();
        g.scan_from_into(add_i64, &gx, init, &mut out).unwrap();
        same(&out.download().unwrap(), &incl, &what);
        // Chunks: the second continues from the first's last value.
        let cut = n / 3;
        let head = g.scan(add_i64, &gx.slice(..cut).unwrap()).unwrap();
        let carry = head.download().unwrap().last().copied().unwrap_or(0);
        let tail = g
            .scan_from(add_i64, &gx.slice(cut..).unwrap(), carry)
            .unwrap();
        let whole = c.scan(add_i64, &cx).unwrap().download().unwrap();
        same(
            &tail.download().unwrap(),
            &whole[cut..],
            &format!("chunks {what}"),
        );
        // f32: the CPU's bits where partial sums are exact, in the exact-sum and tree modes.
        let fs = small_ints(seed ^ n as u64, n);
        let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
        for init in [-37.0f32, -0.0] {
            for (tree, exclusive) in [(false, false), (false, true), (true, false), (true, true)] {
                let run = |d: &Device, xs: &DeviceVec<f32>| {
                    let got = match (tree, exclusive) {
                        (false, false) => d.scan_from(sum_f32, xs, init),
                        (false, true) => d.exclusive_scan_from(sum_f32, xs, init),
                        (true, false) => d.scan_from(sum_f32_tree, xs, init),
                        (true, true) => d.exclusive_scan_from(sum_f32_tree, xs, init),
                    };
                    bits(&got.unwrap().download().unwrap())
                };
                let what = format!("f32 init={init} tree={tree} exclusive={exclusive} {what}");
                assert_eq!(run(&g, &gf), run(&c, &cf), "{what}");
            }
        }
        // Not commutative: the initial value comes first.
        let ls = with_nans(seed ^ 5 ^ n as u64, n);
        let gl = g.upload(&ls).unwrap();
        let (incl, excl) = running(&ls, &[0, n], 2.5f32, |a, b| if b.is_nan() { a } else { b });
        same(
            &g.scan_from(last_f32, &gl, 2.5).unwrap().download().unwrap(),
            &incl,
            &what,
        );
        same(
            &g.exclusive_scan_from(last_f32, &gl, 2.5)
                .unwrap()
                .download()
                .unwrap(),
            &excl,
            &what,
        );
    }
}
