//! Scans and axis reductions: running sums (of the whole array, of each row, of each CSR
//! segment), row and column sums, CSR segments, a row-wise argmax and a transpose, on the GPU when there is one (checked against plain Rust), else on
//! the CPU backend.
//!
//!     cargo run --release --example 03_axis
//!
//! `--padding` also runs the column reduce and the transpose through unpadded `[32][32]` tiles
//! (the kernels `ncu` compares with the padded ones; see docs/benchmarks/2026-11-30.md).

use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Sum of floats (a NaN gives NaN, from its position on in a scan).
#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

/// Index of the largest value, NaN-propagating like NumPy's `argmax` (NaN is the largest;
/// ties, NaNs too, go to the smallest index).
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    // NumPy's argmax: NaN is the largest value; ties (NaNs too) go to the smallest index.
    let b_wins = if a.0.is_nan() || b.0.is_nan() {
        b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
    } else {
        b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
    };
    if b_wins { b } else { a }
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let (rows, cols) = (2048usize, 1000usize);
    let n = rows * cols;
    let mut s = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let xs: Vec<f32> = (0..n)
        .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
        .collect();
    let ks: Vec<i64> = (0..n).map(|_| (next() % 1000) as i64 - 500).collect();
    let m = dev.upload(&xs)?;
    let k = dev.upload(&ks)?;

    let running = dev.scan(add, &k)?.download()?;
    let before = dev.exclusive_scan(add, &k)?.download()?;
    let row_sums = dev.reduce_rows(sum, &m, cols)?.download()?;
    let col_sums = dev.reduce_cols(sum, &m, cols)?.download()?;
    let row_best = dev.reduce_rows(argmax, &m.indexed(), cols)?.download()?;
    let offsets: Vec<u64> = (0..=rows as u64).map(|r| r * r % (n as u64 + 1)).collect();
    let mut sorted = offsets.clone();
    sorted.sort_unstable();
    let seg_sums = dev
        .reduce_segments(add, &k, &dev.upload(&sorted)?)?
        .download()?;
    // Segmented scans: each row's running sum (the same bits every run), and each segment's
    // exclusive running sum (the offsets of a segmented scan cover the input: 0 to n).
    let row_runs = dev.scan_rows(sum, &m, cols)?.download()?;
    let again = dev.scan_rows(sum, &m, cols)?.download()?;
    let mut cover = sorted.clone();
    cover.push(n as u64);
    let seg_before = dev
        .exclusive_scan_segments(add, &k, &dev.upload(&cover)?)?
        .download()?;
    let t = dev.transpose(&m, cols)?.download()?;
    if std::env::args().any(|a| a == "--padding") {
        dev.reduce_cols_unpadded(sum, &m, cols)?;
        dev.transpose_unpadded(&m, cols)?;
    }
    println!("on {}: a {rows} x {cols} matrix", dev.describe());
    println!("  scan: last running sum      = {}", running[n - 1]);
    println!(
        "  row 0 sum, argmax           = {}, {:?}",
        row_sums[0], row_best[0]
    );
    println!("  column 0 sum                = {}", col_sums[0]);
    println!("  segments                    = {}", seg_sums.len());
    println!("  row 0 running sum, last     = {}", row_runs[cols - 1]);

    // Plain Rust is the reference (float sums within rounding: the GPU adds in a tree).
    let mut ok = true;
    let mut acc = 0i64;
    for i in 0..n {
        ok &= before[i] == acc;
        acc = acc.wrapping_add(ks[i]);
        ok &= running[i] == acc;
    }
    for r in 0..rows {
        let row = &xs[r * cols..(r + 1) * cols];
        let want: f64 = row.iter().map(|&x| x as f64).sum();
        ok &= (row_sums[r] as f64 - want).abs() < 1e-3;
        let (mut bv, mut bi) = (f32::NEG_INFINITY, u32::MAX);
        for (c, &x) in row.iter().enumerate() {
            (bv, bi) = argmax.call((bv, bi), (x, (r * cols + c) as u32));
        }
        ok &= row_best[r] == (bv, bi);
    }
    for c in 0..cols {
        let want: f64 = (0..rows).map(|r| xs[r * cols + c] as f64).sum();
        ok &= (col_sums[c] as f64 - want).abs() < 1e-3;
    }
    ok &= row_runs
        .iter()
        .zip(&again)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    for r in 0..rows {
        let mut run = 0f64;
        for c in 0..cols {
            run += xs[r * cols + c] as f64;
            ok &= (row_runs[r * cols + c] as f64 - run).abs() < 1e-3;
        }
    }
    for w in cover.windows(2) {
        let mut run = 0i64;
        for i in w[0] as usize..w[1] as usize {
            ok &= seg_before[i] == run;
            run = run.wrapping_add(ks[i]);
        }
    }
    for (s, w) in sorted.windows(2).enumerate() {
        ok &= seg_sums[s] == ks[w[0] as usize..w[1] as usize].iter().sum::<i64>();
    }
    for r in 0..rows {
        for c in 0..cols {
            ok &= t[c * rows + r] == xs[r * cols + c];
        }
    }
    println!(
        "  check against plain Rust: {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
