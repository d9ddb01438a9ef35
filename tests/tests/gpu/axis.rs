//! GPU scans and axis reductions against the CPU backend: scans at the edge sizes (and one
//! above 2^31 elements), rows and columns of shapes 1xN, Nx1 and widths 1 to 33, 1000 and
//! 65536, ragged CSR segments with empty ones, argmax tuples, maps, misaligned starts, and
//! transpose. Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{
    argmax_f32 as argmax, argmin_f64, sum_f32, sum_f64, sum_i32 as add_i32, widen,
};
use warp_tests::{Random, SameValue, assert_bits, edge_sizes, gpu, random_vec_par, rng, seed};

#[reduce(identity = 0)]
fn add_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
#[reduce(identity = 0)]
fn add_u8(a: u8, b: u8) -> u8 {
    a.wrapping_add(b)
}
#[reduce(identity = 0)]
fn add_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}
#[reduce(identity = i16::MIN)]
fn max_i16(a: i16, b: i16) -> i16 {
    a.max(b)
}

fn same<T: SameValue + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| !got[i].same(&want[i])) {
        panic!(
            "{what}: first difference at {i}: GPU {:?}, CPU {:?}",
            got[i], want[i]
        );
    }
}

/// Scan sizes: the edge sizes plus the block tile (4096 elements) -1/+0/+1 and two tiles.
fn scan_sizes(elem: usize) -> Vec<usize> {
    let mut s = edge_sizes(elem);
    s.extend([4095, 4096, 4097, 8191, 8193, 3 * 4096 + 5]);
    s
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn scans_match_the_cpu_at_edge_sizes() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    let mut r = rng(seed);
    for n in scan_sizes(4) {
        let xs = i32::random_vec(&mut r, n, true);
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        for off in [0, 1, 3] {
            if off > n {
                continue;
            }
            let (gs, cs) = (gx.slice(off..).unwrap(), cx.slice(off..).unwrap());
            let what = format!("i32 n={n} off={off}");
            same(
                &g.scan(add_i32, &gs).unwrap().download().unwrap(),
                &c.scan(add_i32, &cs).unwrap().download().unwrap(),
                &format!("scan {what}"),
            );
            same(
                &g.exclusive_scan(add_i32, &gs).unwrap().download().unwrap(),
                &c.exclusive_scan(add_i32, &cs).unwrap().download().unwrap(),
                &format!("exclusive_scan {what}"),
            );
        }
        // Values of 8 bytes (the split look-back status) and narrow ones.
        let ys = i64::random_vec(&mut r, n, true);
        same(
            &g.scan(add_i64, &g.upload(&ys).unwrap())
                .unwrap()
                .download()
                .unwrap(),
            &c.scan(add_i64, &c.upload(&ys).unwrap())
                .unwrap()
                .download()
                .unwrap(),
            &format!("scan i64 n={n}"),
        );
        let hs = i16::random_vec(&mut r, n, true);
        same(
            &g.scan(max_i16, &g.upload(&hs).unwrap())
                .unwrap()
                .download()
                .unwrap(),
            &c.scan(max_i16, &c.upload(&hs).unwrap())
                .unwrap()
                .download()
                .unwrap(),
            &format!("running max i16 n={n}"),
        );
        // Argmax tuples over (value, index) pairs: the running argmax.
        let fs = f32::random_vec(&mut r, n, true);
        let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
        same(
            &g.scan(argmax, &gf.indexed()).unwrap().download().unwrap(),
            &c.scan(argmax, &cf.indexed()).unwrap().download().unwrap(),
            &format!("running argmax n={n}"),
        );
        // A map fused into the scan.
        let bs = u8::random_vec(&mut r, n, true);
        let (gb, cb) = (g.upload(&bs).unwrap(), c.upload(&bs).unwrap());
        same(
            &g.exclusive_scan(add_u64, &gb.map(widen.with(8)))
                .unwrap()
                .download()
                .unwrap(),
            &c.exclusive_scan(add_u64, &cb.map(widen.with(8)))
                .unwrap()
                .download()
                .unwrap(),
            &format!("exclusive scan of a map n={n}"),
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn both_tile_orders_give_the_same_scans_and_filters() {
    let g = gpu();
    let seed = seed();
    println!("seed {seed}");
    for n in [1usize, 4097, (1 << 22) + 3] {
        let xs: Vec<i32> = random_vec_par(seed, n, true);
        let gx = g.upload(&xs).unwrap();
        let by_block = g.scan(add_i32, &gx).unwrap().download().unwrap();
        let f32s: Vec<f32> = random_vec_par(seed ^ 7, n, true);
        let gf = g.upload(&f32s).unwrap();
        let float_by_block = g.scan(sum_f32, &gf).unwrap().download().unwrap();
        g.set_tile_queue(true);
        let queued = g.scan(add_i32, &gx).unwrap().download().unwrap();
        let float_queued = g.scan(sum_f32, &gf).unwrap().download().unwrap();
        g.set_tile_queue(false);
        let mut acc = 0i32;
        let want: Vec<i32> = xs
            .iter()
            .map(|&x| {
                acc = acc.wrapping_add(x);
                acc
            })
            .collect();
        same(&by_block, &want, &format!("scan n={n}"));
        same(&queued, &want, &format!("queued scan n={n}"));
        assert!(
            float_queued
                .iter()
                .zip(&float_by_block)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "float scans differ between tile orders (n={n})"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn float_scans_are_deterministic_and_close() {
    let g = gpu();
    let seed = seed();
    println!("seed {seed}");
    let xs: Vec<f32> = random_vec_par(seed, (1 << 24) + 11, false);
    let gx = g.upload(&xs).unwrap();
    let a = g.scan(sum_f32, &gx).unwrap().download().unwrap();
    let b = g.scan(sum_f32, &gx).unwrap().download().unwrap();
    assert!(
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
        "scan is not deterministic"
    );
    let mut acc = 0f64;
    let mut abs = 0f64;
    for (i, (&x, &s)) in xs.iter().zip(&a).enumerate() {
        acc += x as f64;
        abs += x.abs() as f64;
        assert!(
            (s as f64 - acc).abs() <= 1e-5 * abs + 1e-3,
            "f32 scan at {i}: {s} vs {acc}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn scan_above_2_pow_31_elements() {
    let _big = warp_tests::big_lock();
    let g = gpu();
    let seed = seed();
    println!("seed {seed}");
    let n = (1usize << 31) + 12345;
    let xs: Vec<u8> = random_vec_par(seed, n, true);
    let gx = g.upload(&xs).unwrap();
    let out = g.scan(add_u8, &gx.slice(1..).unwrap()).unwrap();
    assert_eq!(out.len(), n - 1);
    let got = out.download().unwrap();
    let mut acc = 0u8;
    for (i, (&x, &s)) in xs[1..].iter().zip(&got).enumerate() {
        acc = acc.wrapping_add(x);
        assert_eq!(s, acc, "u8 scan at {i}");
    }
}

/// Rows, columns and the unpadded columns of an `rows x cols` i32 matrix (at offset `off` of
/// its array), exact against the CPU; and argmax over the same shape.
fn check_matrix(g: &Device, c: &Device, rows: usize, cols: usize, off: usize, seed: u64) {
    let n = rows * cols;
    let xs: Vec<i32> = random_vec_par(seed, n + off, true);
    let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
    let (gm, cm) = (gx.slice(off..).unwrap(), cx.slice(off..).unwrap());
    let what = format!("{rows}x{cols} off={off}");
    let want_rows = c
        .reduce_rows(add_i32, &cm, cols)
        .unwrap()
        .download()
        .unwrap();
    same(
        &g.reduce_rows(add_i32, &gm, cols)
            .unwrap()
            .download()
            .unwrap(),
        &want_rows,
        &format!("reduce_rows {what}"),
    );
    let want_cols = c
        .reduce_cols(add_i32, &cm, cols)
        .unwrap()
        .download()
        .unwrap();
    same(
        &g.reduce_cols(add_i32, &gm, cols)
            .unwrap()
            .download()
            .unwrap(),
        &want_cols,
        &format!("reduce_cols {what}"),
    );
    same(
        &g.reduce_cols_unpadded(add_i32, &gm, cols)
            .unwrap()
            .download()
            .unwrap(),
        &want_cols,
        &format!("reduce_cols_unpadded {what}"),
    );
    let fs: Vec<f32> = random_vec_par(seed ^ 1, n, true);
    let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
    same(
        &g.reduce_rows(argmax, &gf.indexed(), cols)
            .unwrap()
            .download()
            .unwrap(),
        &c.reduce_rows(argmax, &cf.indexed(), cols)
            .unwrap()
            .download()
            .unwrap(),
        &format!("row argmax {what}"),
    );
    same(
        &g.reduce_cols(argmax, &gf.indexed(), cols)
            .unwrap()
            .download()
            .unwrap(),
        &c.reduce_cols(argmax, &cf.indexed(), cols)
            .unwrap()
            .download()
            .unwrap(),
        &format!("column argmax {what}"),
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn rows_and_columns_match_the_cpu() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    for cols in 1..=33 {
        for rows in [1, 7, 1000] {
            for off in [0, 1] {
                check_matrix(&g, &c, rows, cols, off, seed ^ (cols * 131 + rows) as u64);
            }
        }
    }
    for (rows, cols) in [
        (300, 1000),
        (5, 65536),
        (600, 65536),
        (1, 10_000_000),
        (3, 3_000_001),
        (1_000_000, 1),
        (2_000_003, 2),
        (1, 1),
        (0, 5),
    ] {
        for off in [0, 1] {
            check_matrix(&g, &c, rows, cols, off, seed ^ (rows * 7 + cols) as u64);
        }
    }
}

#[map]
fn small_f64(x: u8) -> f64 {
    (x % 16) as f64 - 7.0
}

/// Wide aligned matrices (the vector column reduction: a thread per 16 bytes of columns, rows
/// split over blocks whose last one folds the partials) of every element width: u8 (16
/// columns a thread), i16, i32, f64 (2) and a zip, exact against the CPU; the split and
/// unsplit grids, partial column blocks.
#[test]
#[ignore = "needs a CUDA GPU"]
fn wide_columns_of_every_element_width() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    for (rows, cols) in [
        (3, 4096),
        (257, 4112),
        (1000, 8192),
        (40, 65536),
        (7000, 4096),
    ] {
        let n = rows * cols;
        // The GPU's column reduction of an input against the CPU's, the same operator.
        macro_rules! same_cols {
            ($op:expr, $gpu:expr, $cpu:expr, $what:literal) => {
                same(
                    &g.reduce_cols($op, $gpu, cols).unwrap().download().unwrap(),
                    &c.reduce_cols($op, $cpu, cols).unwrap().download().unwrap(),
                    &format!(concat!($what, " {}x{}"), rows, cols),
                )
            };
        }
        let bs: Vec<u8> = random_vec_par(seed ^ 1, n, false);
        let (gb, cb) = (g.upload(&bs).unwrap(), c.upload(&bs).unwrap());
        same_cols!(
            add_u64,
            &gb.map(widen.with(0)),
            &cb.map(widen.with(0)),
            "u8 columns"
        );
        same_cols!(add_u8, &gb, &cb, "u8 wrapping columns");
        // Small integers as f64: exact in any order.
        same_cols!(
            sum_f64,
            &gb.map(small_f64),
            &cb.map(small_f64),
            "f64 columns"
        );
        let hs: Vec<i16> = random_vec_par(seed ^ 2, n, true);
        let (gh, ch) = (g.upload(&hs).unwrap(), c.upload(&hs).unwrap());
        same_cols!(max_i16, &gh, &ch, "i16 max columns");
        let is: Vec<i32> = random_vec_par(seed ^ 3, n, true);
        let (gi, ci) = (g.upload(&is).unwrap(), c.upload(&is).unwrap());
        same_cols!(add_i32, &gi, &ci, "i32 columns");
        // (value, index) pairs: the first index of each column's maximum.
        let fs: Vec<f32> = random_vec_par(seed ^ 4, n, true);
        let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
        same_cols!(argmax, &gf.indexed(), &cf.indexed(), "column argmax");
        // Two arrays of different widths zipped (16 bytes of the wider one a thread).
        let (gz, cz) = ((&gi, &gb), (&ci, &cb));
        same_cols!(
            below_count,
            &gz.map(below_flag),
            &cz.map(below_flag),
            "zipped columns"
        );
    }
}

#[map(inputs = 2)]
fn below_flag(x: i32, y: u8) -> u32 {
    (x < y as i32) as u32
}

#[reduce(identity = 0)]
fn below_count(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_argmin_rows_and_columns() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    for (rows, cols) in [(33, 17), (1000, 1000), (2, 100_000)] {
        let xs: Vec<f64> = random_vec_par(seed, rows * cols, true);
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        same(
            &g.reduce_rows(argmin_f64, &gx.indexed(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &c.reduce_rows(argmin_f64, &cx.indexed(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &format!("f64 row argmin {rows}x{cols}"),
        );
        same(
            &g.reduce_cols(argmin_f64, &gx.indexed(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &c.reduce_cols(argmin_f64, &cx.indexed(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &format!("f64 column argmin {rows}x{cols}"),
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn ragged_segments_with_empty_ones() {
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    println!("seed {seed}");
    let mut r = rng(seed);
    // Segments over warp_kernels::catalogue::SEG_LONG (8192) elements go to the whole grid in
    // chunks of SEG_CHUNK (32768): random lengths around both, and fixed layouts at the edges.
    let random = [
        (1usize, 0u64),
        (1, 5),
        (100, 3),
        (10_000, 70),
        (300, 5000),
        (200, 100_000),
    ];
    let fixed: [&[u64]; 4] = [
        &[30_000_000],
        &[0, 0, 8192, 8193, 32768, 32769, 0, 65536, 65537, 1, 0],
        &[8193; 40],
        &[5, 9_000_000, 0, 3, 2_000_000, 8192, 0],
    ];
    let layouts = random
        .iter()
        .map(|&(nseg, max_len)| {
            let lens = u64::random_vec(&mut r, nseg, false);
            // Every fifth segment empty; the rest 0..=max_len long.
            let lens: Vec<u64> = lens
                .iter()
                .enumerate()
                .map(|(i, l)| if i % 5 == 0 { 0 } else { l % (max_len + 1) })
                .collect();
            (lens, format!("nseg={nseg} max_len={max_len}"))
        })
        .chain(
            fixed
                .iter()
                .map(|f| (f.to_vec(), format!("lengths {:?}", &f[..f.len().min(4)]))),
        )
        .collect::<Vec<_>>();
    for (lens, what) in layouts {
        let nseg = lens.len();
        let mut offsets = vec![0u64];
        for len in &lens {
            offsets.push(offsets.last().unwrap() + len);
        }
        let n = *offsets.last().unwrap() as usize + 3;
        let xs = i64::random_vec(&mut r, n, true);
        let (go, co) = (g.upload(&offsets).unwrap(), c.upload(&offsets).unwrap());
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        same(
            &g.reduce_segments(add_i64, &gx, &go)
                .unwrap()
                .download()
                .unwrap(),
            &c.reduce_segments(add_i64, &cx, &co)
                .unwrap()
                .download()
                .unwrap(),
            &format!("segments {what}"),
        );
        let fs = f32::random_vec(&mut r, n, true);
        let (gf, cf) = (g.upload(&fs).unwrap(), c.upload(&fs).unwrap());
        same(
            &g.reduce_segments(argmax, &gf.indexed(), &go)
                .unwrap()
                .download()
                .unwrap(),
            &c.reduce_segments(argmax, &cf.indexed(), &co)
                .unwrap()
                .download()
                .unwrap(),
            &format!("segment argmax {what} ({nseg} segments)"),
        );
    }
    // Bad offsets are an error, not a wrong answer (also when they make long segments overlap).
    let xs = g.upload(&vec![1i64; 20_000]).unwrap();
    for bad in [
        vec![0u64, 2, 1],
        vec![0u64, 20_001],
        vec![0u64, 20_000, 0, 20_000, 0, 20_000],
        vec![20_001u64], // no segment (no kernel), the offset still checked as on the CPU
    ] {
        let o = g.upload(&bad).unwrap();
        assert!(matches!(
            g.reduce_segments(add_i64, &xs, &o),
            Err(Error::Shape(_))
        ));
    }
    let none = g.reduce_segments(add_i64, &xs, &g.upload(&[20_000u64]).unwrap());
    assert!(none.unwrap().is_empty());
}

/// The transpose of a row-major `rows x cols` matrix, by plain Rust.
fn transposed<T: Copy>(m: &[T], cols: usize) -> Vec<T> {
    let rows = m.len().checked_div(cols).unwrap_or(0);
    (0..m.len())
        .map(|i| m[(i % rows) * cols + i / rows])
        .collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn transposes_match_the_cpu() {
    // Bit for bit against plain Rust (NaNs of every sign and payload, -0.0 and subnormals
    // among the values), and the CPU backend likewise.
    let (g, c) = (gpu(), Device::cpu());
    let seed = seed();
    for (rows, cols) in [
        (1, 1),
        (1, 1000),
        (1000, 1),
        (33, 65),
        (32, 32),
        (31, 33),
        (1000, 1000),
        (3, 1_000_003),
        (2_000_001, 3),
        (0, 4),
    ] {
        let n = rows * cols;
        let xs: Vec<f32> = random_vec_par(seed, n + 1, true);
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        for off in [0, 1] {
            let (gm, cm) = (
                gx.slice(off..off + n).unwrap(),
                cx.slice(off..off + n).unwrap(),
            );
            let what = format!("{rows}x{cols} off={off}");
            let want = transposed(&xs[off..off + n], cols);
            assert_bits(
                &c.transpose(&cm, cols).unwrap().download().unwrap(),
                &want,
                &format!("CPU transpose {what}"),
            );
            assert_bits(
                &g.transpose(&gm, cols).unwrap().download().unwrap(),
                &want,
                &format!("transpose {what}"),
            );
            assert_bits(
                &g.transpose_unpadded(&gm, cols).unwrap().download().unwrap(),
                &want,
                &format!("unpadded transpose {what}"),
            );
        }
        let bs: Vec<u8> = random_vec_par(seed, n, true);
        assert_bits(
            &g.transpose(&g.upload(&bs).unwrap(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &transposed(&bs, cols),
            &format!("u8 transpose {rows}x{cols}"),
        );
        let ds: Vec<f64> = random_vec_par(seed, n, true);
        assert_bits(
            &g.transpose(&g.upload(&ds).unwrap(), cols)
                .unwrap()
                .download()
                .unwrap(),
            &transposed(&ds, cols),
            &format!("f64 transpose {rows}x{cols}"),
        );
    }
}

/// `reduce_axis` on the GPU along every axis: shapes whose middle axis takes the vector
/// column kernel over batches (inner a multiple of 4, at least 4096 columns in all), the
/// padded tile (inner 33, 1000), axes of length 1 and 0, a 4-d shape, and views.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_reduce_axis_matches_plain_rust() {
    let g = gpu();
    for (k, shape) in [
        vec![2usize, 3, 4],
        vec![16, 300, 256],
        vec![64, 33, 64],
        vec![5, 1000, 33],
        vec![3, 40, 1000],
        vec![1, 5, 4096],
        vec![4096, 3, 1],
        vec![3, 0, 2],
        vec![2, 3, 4, 5],
        vec![7, 2, 9, 16],
    ]
    .iter()
    .enumerate()
    {
        warp_tests::axes::check_reduce_axis(&g, shape, k as u64);
        warp_tests::axes::check_scan_axis(&g, shape, k as u64);
    }
}
