//! Inputs beyond arrays: a generated range (alone and zipped with an array), a gather and its
//! scatter back, a compaction's count as the next operations' length (no host read), a
//! strided column,
//! and reductions and running sums along the middle axis of a (B, N, D) array, on the GPU when
//! there is one (each checked against plain Rust), else on the CPU backend.
//!
//!     cargo run --release --example 10_inputs

use warp_runtime::prelude::*;

#[reduce(identity = 0.0)]
fn sum(a: f64, b: f64) -> f64 {
    a + b
}

#[reduce(identity = 0)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// The midpoint rule's step `i` of the integral of `exp(-x^2)` over `[0, 1)` in steps of `h`.
#[map]
fn gauss(i: u64, h: f64) -> f64 {
    let x = (i as f64 + 0.5) * h;
    (-(x * x)).exp() * h
}

#[map]
fn widen(x: i32) -> i64 {
    x as i64
}

/// An element weighted by its position: `i * x`.
#[map(inputs = 2)]
fn weighted(i: u64, x: i32) -> i64 {
    i as i64 * x as i64
}

/// Whether an element is negative.
#[predicate]
fn negative(x: i32) -> bool {
    x < 0
}

/// Whether an element is below `-t`.
#[predicate]
fn below_minus(x: i32, t: i32) -> bool {
    x < -t
}

/// Whether a row's position is even and its element negative.
#[predicate(inputs = 2)]
fn even_and_negative(i: u64, x: i32) -> bool {
    i & 1 == 0 && x < 0
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    println!("on {}:", dev.describe());

    // A generated range: nothing stored, nothing read.
    let steps = 1u64 << 24;
    let integral = dev.reduce(
        sum,
        &dev.range(0..steps).map(gauss.with(1.0 / steps as f64)),
    )?;
    let exact = 0.746_824_132_812_427_f64; // sqrt(pi) / 2 * erf(1)
    println!("  integral of exp(-x^2) over [0, 1) = {integral:.12} (exact {exact:.12})");
    assert!((integral - exact).abs() < 1e-9);

    // A gather (an embedding lookup) written out, summed in place, and scattered back.
    let (b, n, d) = (8usize, 512usize, 64usize);
    let mut s = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let table: Vec<i32> = (0..b * n * d)
        .map(|_| (next() % 2001) as i32 - 1000)
        .collect();
    let xs = dev.upload(&table)?;
    let idx_host: Vec<u32> = (0..10_000)
        .map(|_| (next() % table.len() as u64) as u32)
        .collect();
    let idx = dev.upload(&idx_host)?;
    let picked = dev.collect(&xs.gather(&idx))?.download()?;
    let want: Vec<i32> = idx_host.iter().map(|&i| table[i as usize]).collect();
    assert_eq!(picked, want);
    let total = dev.reduce(add, &xs.gather(&idx).map(widen))?;
    assert_eq!(total, want.iter().map(|&v| v as i64).sum::<i64>());
    println!("  gather of {} elements: sum {total}", idx_host.len());

    let mut back = dev.upload(&vec![0i32; table.len()])?;
    dev.scatter_into(&dev.upload(&want)?, &idx, &mut back)?;
    let back = back.download()?;
    assert!(
        idx_host
            .iter()
            .all(|&i| back[i as usize] == table[i as usize])
    );
    let bad = dev.upload(&[0u32, table.len() as u32])?;
    match dev.collect(&xs.gather(&bad)) {
        Err(Error::IndexOutOfRange {
            position,
            index,
            len,
        }) => {
            println!("  an index past the end: {position} names {index} of {len}")
        }
        other => panic!("expected IndexOutOfRange, got {other:?}"),
    }

    // A range zipped with an array: the kernels make each position where they read the
    // element (a first moment, and the elements at even positions that are negative).
    let at = dev.range(0..table.len() as u64);
    let moment = dev.reduce(add, &(&at, &xs).map(weighted))?;
    let want_moment: i64 = table
        .iter()
        .enumerate()
        .map(|(i, &x)| i as i64 * x as i64)
        .sum();
    assert_eq!(moment, want_moment);
    let picked = dev.filter(even_and_negative, &(&at, &xs).keep::<1>())?;
    let want_picked: Vec<i32> = table
        .iter()
        .step_by(2)
        .copied()
        .filter(|&x| x < 0)
        .collect();
    assert_eq!(picked.download()?, want_picked);
    println!(
        "  sum of i * x[i] over {} elements: {moment}; {} negative at even i",
        table.len(),
        want_picked.len()
    );
    // A compaction's count left on the device as the length of the next operations: the
    // negative elements kept, then summed and counted again without a host read between.
    let mut kept = dev.upload(&vec![0i32; table.len()])?;
    let count = dev.filter_into(negative, &xs, &mut kept)?;
    let neg_sum = dev.reduce_on_device(add, &kept.map(widen).take(&count))?;
    let below = dev.count_on_device(below_minus.with(500), &kept.take(&count))?;
    let want_neg: Vec<i64> = table
        .iter()
        .filter(|&&x| x < 0)
        .map(|&x| x as i64)
        .collect();
    assert_eq!(count.get()?, want_neg.len() as u64);
    assert_eq!(neg_sum.get()?, want_neg.iter().sum::<i64>());
    assert_eq!(
        below.get()?,
        want_neg.iter().filter(|&&x| x < -500).count() as u64
    );
    println!(
        "  {} negative elements, summed on the device: {}; {} below -500",
        count.get()?,
        neg_sum.get()?,
        below.get()?
    );

    // A strided view: column 3 of the (B * N, D) matrix, every D-th element from element 3.
    let column = xs.slice(3..)?;
    let col_sum = dev.reduce(add, &column.step_by(d)?.map(widen))?;
    let want: i64 = table.iter().skip(3).step_by(d).map(|&v| v as i64).sum();
    assert_eq!(col_sum, want);
    println!("  column 3 of {} rows: sum {col_sum}", b * n);

    // The middle axis of a (B, N, D) array: a sum per (b, d), and running sums along N.
    let shape = [b, n, d];
    let per_bd = dev
        .reduce_axis(add, &xs.map(widen), &shape, 1)?
        .download()?;
    let runs = dev.scan_axis(add, &xs.map(widen), &shape, 1)?.download()?;
    for (p, &got) in per_bd.iter().enumerate() {
        let (bi, di) = (p / d, p % d);
        let line = (0..n).map(|k| table[bi * n * d + k * d + di] as i64);
        assert_eq!(got, line.clone().sum::<i64>());
        // The running sum's last element along N is the line's sum.
        assert_eq!(runs[bi * n * d + (n - 1) * d + di], got);
    }
    println!(
        "  (B, N, D) = {shape:?}: sums along N, first {:?}; running sums match",
        &per_bd[..3]
    );
    Ok(())
}
