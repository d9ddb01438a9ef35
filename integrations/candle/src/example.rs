//! warp-dsl on candle tensors, without copies: a candle CUDA tensor of random `f32` is read by
//! warp-dsl through a view of candle's own `CudaSlice` at the layout's offsets, on candle's
//! stream, and reduced (sum, max, argmax), counted, filtered, top-k'd and histogrammed; the
//! results come back as candle tensors built on warp-dsl's output memory (the sum also into
//! memory candle allocated). The same on a narrowed tensor (a start offset of an odd number of
//! elements, so not 16-byte aligned), and a `CustomOp1` wrapping a warp-dsl row reduction on
//! 2-D tensors (contiguous, narrowed, and a transposed one, which it refuses). Every result is
//! checked against plain Rust on a host copy; a mismatch exits with status 1.
//!
//!     warp-candle example [--cpu] [--n N]
//!
//! `--cpu` runs it on candle's CPU device and warp-dsl's CPU backend (`scripts/candle.sh cpu`);
//! `--n N` sets the length (default 2^26 + 12,345 on a GPU, 2^20 on the CPU).

use std::cmp::Ordering;

use candle_core::{D, DType, Device as Candle, Tensor};
use warp_candle::ops::{above, argmax, max, sum};
use warp_candle::{
    F32Input, Visit, WarpRowReduce, indices_tensor, read_f32, reduce_into_tensor, tensor_from_warp,
};
use warp_runtime::prelude::*;

/// The data: uniform in [LO, HI), so that the sum is large and does not cancel.
const LO: f32 = -1.0;
const HI: f32 = 3.0;
/// The threshold of the count and the filter.
const T: f32 = 2.5;
/// The top-k's k.
const K: usize = 64;
/// The histogram's bins, over [LO, HI).
const BINS: usize = 64;

use crate::Res;

/// What warp-dsl computed on one tensor: candle tensors, and the scalars the waiting forms
/// return to the host.
struct Results {
    sum: f32,
    /// The sum again, written into a 1-element array candle allocated (0-dimensional tensor).
    sum_tensor: Tensor,
    max: f32,
    argmax: (f32, u32),
    count: u64,
    filtered: Tensor,
    top_values: Tensor,
    top_indices: Tensor,
    histogram: Tensor,
}

/// The warp-dsl calls, on any input (candle's CUDA memory, or the CPU path's upload).
struct Ops<'a> {
    candle: &'a Candle,
}

impl Visit for Ops<'_> {
    type Out = candle_core::Result<Results>;
    fn visit<X: F32Input>(self, dev: &Device, xs: &X) -> Self::Out {
        let w = warp_candle::wrap;
        let sum_tensor = reduce_into_tensor(sum, dev, xs, self.candle)?;
        let total = dev.reduce(sum, xs).map_err(w)?;
        let max_v = dev.reduce(max, xs).map_err(w)?;
        let argmax_v = dev.reduce(argmax, &xs.pairs()).map_err(w)?;
        let count = dev.count(above.with(T), xs).map_err(w)?;
        let filtered = dev.filter(above.with(T), xs).map_err(w)?;
        let kept = filtered.len();
        let TopK { values, indices } = dev.top_k(xs, K).map_err(w)?;
        let histogram: DeviceVec<u32> = dev.histogram_even(xs, LO, HI, BINS).map_err(w)?;
        Ok(Results {
            sum: total,
            sum_tensor,
            max: max_v,
            argmax: argmax_v,
            count,
            filtered: tensor_from_warp(filtered, kept, self.candle)?,
            top_values: tensor_from_warp(values, K, self.candle)?,
            top_indices: indices_tensor(indices, self.candle)?,
            histogram: tensor_from_warp(histogram, BINS, self.candle)?,
        })
    }
}

/// Counts checks and failures, printing each.
struct Checks {
    run: usize,
    failed: usize,
    /// The tolerance of float sums, relative to the sum of magnitudes: 1e-5 on a GPU (tree
    /// sums), 1e-4 on the CPU path (whose row reduction adds a long row in sequence).
    tol: f64,
}

impl Checks {
    /// Whether a float sum is within rounding of the exact one (`abs`: the sum of magnitudes).
    fn close(&self, got: f64, want: f64, abs: f64) -> bool {
        (got - want).abs() <= self.tol * abs + 1e-6
    }

    fn check(&mut self, what: &str, ok: bool, detail: impl std::fmt::Display) {
        self.run += 1;
        if !ok {
            self.failed += 1;
        }
        println!("  {} {what}: {detail}", if ok { "ok  " } else { "FAIL" });
    }
}

/// The order of top-k: larger first, the smaller index among equals.
fn best_first(a: &(f32, usize), b: &(f32, usize)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The even histogram of warp-dsl's documentation, computed in f64.
fn host_histogram(xs: &[f32]) -> Vec<u32> {
    let (lower, upper) = (LO as f64, HI as f64);
    let scale = BINS as f64 / (upper - lower);
    let mut h = vec![0u32; BINS];
    for &x in xs {
        let x = x as f64;
        if x >= lower && x < upper {
            h[(((x - lower) * scale).floor() as usize).min(BINS - 1)] += 1;
        }
    }
    h
}

/// Runs the warp-dsl operations on `t` (whose elements are `host`) and checks every result
/// against plain Rust on `host`, and the sum, max and argmax against candle's own.
fn check_tensor(c: &mut Checks, label: &str, t: &Tensor, host: &[f32]) -> Res<()> {
    let n = host.len();
    println!(
        "{label}: {n} f32, shape {:?}, start offset {} in its storage",
        t.dims(),
        t.layout().start_offset()
    );
    let r = read_f32(t, Ops { candle: t.device() })??;

    let want_sum: f64 = host.iter().map(|&x| x as f64).sum();
    let abs: f64 = host.iter().map(|&x| (x as f64).abs()).sum();
    let ok = c.close(r.sum as f64, want_sum, abs);
    c.check("sum (reduce)", ok, format!("{} vs {want_sum:.3}", r.sum));
    let on_device = r.sum_tensor.to_scalar::<f32>()?;
    // `reduce_into` gives the bits of `reduce`.
    let ok = r.sum_tensor.dims().is_empty() && on_device.to_bits() == r.sum.to_bits();
    c.check(
        "sum written into candle's memory (0-d tensor)",
        ok,
        on_device,
    );
    let candle_sum = t.sum_all()?.to_scalar::<f32>()?;
    let ok = c.close(candle_sum as f64, want_sum, abs);
    c.check("candle's sum_all agrees", ok, candle_sum);

    let want_max = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let first = host.iter().position(|&x| x == want_max).unwrap_or(0);
    c.check("max", r.max == want_max, r.max);
    c.check(
        "argmax (first index of the max)",
        r.argmax == (want_max, first as u32),
        format!("{:?} vs ({want_max}, {first})", r.argmax),
    );
    let flat = t.flatten_all()?;
    let candle_max = flat.max(0)?.to_scalar::<f32>()?;
    let candle_arg = flat.argmax(0)?.to_scalar::<u32>()? as usize;
    c.check(
        "candle's max and argmax agree (its index holds the max)",
        candle_max == want_max && host[candle_arg] == want_max,
        format!("{candle_max} at {candle_arg}"),
    );

    let want: Vec<f32> = host.iter().copied().filter(|&x| x > T).collect();
    c.check("count x > 2.5", r.count == want.len() as u64, r.count);
    let got = r.filtered.to_vec1::<f32>()?;
    c.check(
        "filter x > 2.5 (a candle tensor, input order)",
        r.filtered.dtype() == DType::F32 && got == want,
        format!("{} values", got.len()),
    );

    let mut pairs: Vec<(f32, usize)> = host.iter().copied().zip(0..).collect();
    pairs.select_nth_unstable_by(K - 1, best_first);
    pairs.truncate(K);
    pairs.sort_by(best_first);
    let values = r.top_values.to_vec1::<f32>()?;
    let indices = r.top_indices.to_vec1::<i64>()?;
    let ok = values
        .iter()
        .zip(&indices)
        .map(|(&v, &i)| (v, i as usize))
        .eq(pairs.iter().copied());
    c.check(
        "top_k (F32 values, I64 indices)",
        ok,
        format!("top 3 {:?} at {:?}", &values[..3], &indices[..3]),
    );

    let h = r.histogram.to_vec1::<u32>()?;
    c.check(
        "histogram_even over [-1, 3), 64 bins (U32)",
        h == host_histogram(host),
        format!("{} counted", h.iter().map(|&x| x as u64).sum::<u64>()),
    );
    Ok(())
}

/// The `CustomOp1` on a 2-D tensor: row sums against plain Rust and candle's own `sum`.
fn check_row_op(c: &mut Checks, label: &str, m: &Tensor) -> Res<()> {
    let (rows, cols) = m.dims2()?;
    let op = WarpRowReduce::new("warp_row_sum", sum);
    let got = m.apply_op1_no_bwd(&op)?;
    let host = m.to_vec2::<f32>()?;
    let sums = got.to_vec1::<f32>()?;
    let candle = m.sum(D::Minus1)?.to_vec1::<f32>()?;
    let ok = got.dims() == [rows]
        && host.iter().zip(&sums).zip(&candle).all(|((row, &s), &cs)| {
            let want: f64 = row.iter().map(|&x| x as f64).sum();
            let abs: f64 = row.iter().map(|&x| (x as f64).abs()).sum();
            c.close(s as f64, want, abs) && c.close(cs as f64, want, abs)
        });
    c.check(
        &format!(
            "CustomOp1 warp_row_sum on {label} {rows}x{cols} (offset {})",
            m.layout().start_offset()
        ),
        ok,
        format!("row 0: {} (candle's sum: {})", sums[0], candle[0]),
    );
    Ok(())
}

pub fn main(args: &[String]) -> Res<()> {
    let cpu = args.iter().any(|a| a == "--cpu");
    let n: usize = match args.iter().position(|a| a == "--n") {
        Some(i) => args.get(i + 1).ok_or("--n N")?.parse()?,
        None if cpu => 1 << 20,
        None => (1 << 26) + 12_345,
    };
    if n < 10_000 {
        return Err("--n: at least 10000 (the narrowed tensor drops 5000 elements)".into());
    }
    let candle = if cpu {
        Candle::Cpu
    } else {
        Candle::new_cuda(0)?
    };
    let dev = warp_candle::warp_device(&candle)?;
    println!(
        "candle on {:?}; warp-dsl on {}",
        candle.location(),
        dev.describe()
    );
    let tol = if cpu { 1e-4 } else { 1e-5 };
    let mut c = Checks {
        run: 0,
        failed: 0,
        tol,
    };

    // Random data made by candle on its device (cuRAND on a GPU), never zeros.
    let x = Tensor::rand(LO, HI, n, &candle)?;
    let host = x.to_vec1::<f32>()?;
    check_tensor(&mut c, "the whole tensor", &x, &host)?;

    // A narrowed tensor: the same storage, a start offset of 1,001 elements (4,004 bytes, not
    // 16-byte aligned), which the view honours.
    let (start, len) = (1_001, n - 5_000);
    let part = x.narrow(0, start, len)?;
    check_tensor(
        &mut c,
        "a narrowed tensor",
        &part,
        &host[start..start + len],
    )?;

    // A 2-D tensor whose rows are narrowed (a contiguous layout at an offset of 3 rows).
    let (rows, cols) = (4_096, 1_000);
    let m = Tensor::rand(LO, HI, (rows, cols), &candle)?;
    check_row_op(&mut c, "a matrix", &m)?;
    check_row_op(&mut c, "its rows 3..4093", &m.narrow(0, 3, rows - 6)?)?;
    // A transposed (non-contiguous) tensor is refused, not misread.
    let refused = m
        .t()?
        .apply_op1_no_bwd(&WarpRowReduce::new("warp_row_sum", sum));
    c.check(
        "CustomOp1 refuses a transposed tensor",
        refused.is_err(),
        refused
            .err()
            .map(|e| e.to_string().lines().next().unwrap_or("").to_string())
            .unwrap_or_default(),
    );
    let scalar = x.apply_op1_no_bwd(&WarpRowReduce::new("warp_row_sum", sum))?;
    let want_sum: f64 = host.iter().map(|&x| x as f64).sum();
    let abs: f64 = host.iter().map(|&x| (x as f64).abs()).sum();
    let s = scalar.to_scalar::<f32>()?;
    let ok = scalar.dims().is_empty() && c.close(s as f64, want_sum, abs);
    c.check("CustomOp1 on the 1-D tensor gives a 0-d tensor", ok, s);

    candle.synchronize()?;
    println!("{} checks, {} failed", c.run, c.failed);
    let reports = dev.load_reports();
    if !reports.is_empty() {
        let seconds: f64 = reports.iter().map(|(_, r)| r.seconds).sum();
        println!(
            "warp-dsl: {} modules loaded in {seconds:.2} s",
            reports.len()
        );
    }
    if c.failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}
