//! One timed call of each collective (issue 13: histograms, runs, top-k, three-way partition,
//! the deterministic float scan, row scans) on the bench's data, for a profiler to attach to:
//!
//!     ncu --kernel-name regex:wd_k_ .gpu/bin/bench--warp-tests--collectives --bench
//!     WARP_BENCH_N=67108864 (default)
//!
//! Each operation runs once to compile and warm up, then once timed with CUDA events; the
//! figures are single runs (the reduce bench has the medians and the peers).
//!
//! Checks: after its timed run, each operation's result is checked against plain Rust on the
//! host: exactly (histograms, runs' keys and lengths, unique keys, top-k indices and values,
//! the three parts of the partition), the float sums (reduce-by-key values, scans) within
//! `fold_tol` of the exact sums. A wrong result is printed with the expected and the got, and
//! the bench exits with status 1 at the end.

use std::fmt::Debug;

use rayon::prelude::*;
use warp_runtime::Equal;
use warp_runtime::prelude::*;
use warp_tests::ops::{byte_bin, less, sum_f32};
use warp_tests::runs::run_keys;
use warp_tests::{Bits, rng};

/// The allowed error of an f32 fold of `len` terms whose magnitudes sum to `abs`: `γ_d abs`,
/// `d = min(len, 4096)` roundings per term at most, `u = 2^-24` (the reduce bench's
/// `check::fold_tol`, which says why 4096). The references are exact: the data are multiples
/// of 2^-23 below 1 in magnitude, whose sums are exact in f64.
fn fold_tol(abs: f64, len: usize) -> f64 {
    let d = len.min(4096) as f64 / 16_777_216.0;
    d / (1.0 - d) * abs
}

/// What is wrong with `got` against `want` bit for bit: the first differing element and how
/// many differ (`None`: nothing).
fn bitwise<T: Bits + Debug + Sync>(got: &[T], want: &[T]) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!("{} elements, expected {}", got.len(), want.len()));
    }
    let differs = |i: &usize| got[*i].bits() != want[*i].bits();
    let i = (0..got.len()).into_par_iter().find_first(differs)?;
    let count = (0..got.len()).into_par_iter().filter(differs).count();
    Some(format!(
        "element {i}: expected {:?}, got {:?} ({count} of {} differ)",
        want[i],
        got[i],
        got.len()
    ))
}

/// What is wrong with `got` as the inclusive f32 sum scan of each row of `cols` elements of
/// `xs` (`cols = xs.len()`: one scan of all), every element within [`fold_tol`] of the exact
/// prefix.
fn scan_wrong(got: &[f32], xs: &[f32], cols: usize) -> Option<String> {
    if got.len() != xs.len() {
        return Some(format!("{} elements, expected {}", got.len(), xs.len()));
    }
    let wrong: Vec<(usize, String)> = xs
        .par_chunks(cols)
        .zip(got.par_chunks(cols))
        .enumerate()
        .filter_map(|(r, (x, g))| {
            let (mut s, mut a) = (0.0f64, 0.0f64);
            let mut bad = None;
            let mut count = 0;
            for (k, (&x, &g)) in x.iter().zip(g).enumerate() {
                s += x as f64;
                a += (x as f64).abs();
                let tol = fold_tol(a, k + 1);
                if (g as f64 - s).abs() > tol || g.is_nan() {
                    count += 1;
                    bad.get_or_insert_with(|| {
                        format!(
                            "element {}: expected {s} within {tol:.3e}, got {g}",
                            r * cols + k
                        )
                    });
                }
            }
            bad.map(|b| (count, b))
        })
        .collect();
    let count: usize = wrong.iter().map(|w| w.0).sum();
    wrong
        .into_iter()
        .next()
        .map(|(_, b)| format!("{b} ({count} of {} wrong)", xs.len()))
}

/// The `k` largest of `xs` with their indices, largest first, ties to the smaller index (no
/// NaN here): the `k` best of each chunk (`warp_tests::sorted_k`), then the best of those.
fn top_k_ref(xs: &[f32], k: usize) -> (Vec<f32>, Vec<u64>) {
    const CHUNK: usize = 1 << 20;
    let mut cands: Vec<(f32, u64)> = xs
        .par_chunks(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            warp_tests::sorted_k(chunk, k, true)
                .into_iter()
                .map(move |(v, i)| (v, i + (c * CHUNK) as u64))
        })
        .collect();
    cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    cands.truncate(k);
    cands.into_iter().unzip()
}

fn main() {
    let n: usize = std::env::var("WARP_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 26);
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("no GPU ({e}); nothing to run");
            return;
        }
    };
    dev.set_profiling(true);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let xs: Vec<f32> = (0..n)
        .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
        .collect();
    let bytes: Vec<u8> = (0..n).map(|_| (next() >> 56) as u8).collect();
    // Runs of mean length 4 (lengths uniform in [1, 7]), as the runs tests make them.
    let keys = run_keys(&mut rng(0x5eed), n, 4);
    let (dx, db, dk) = (
        dev.upload(&xs).unwrap(),
        dev.upload(&bytes).unwrap(),
        dev.upload(&keys).unwrap(),
    );
    let mut h = dev.upload(&[0u32; 256]).unwrap();
    let mut ok = dev.upload(&vec![0i32; n]).unwrap();
    let mut oc = dev.upload(&vec![0u32; n]).unwrap();
    let mut ov = dev.upload(&vec![0f32; n]).unwrap();
    let mut of = dev.upload(&vec![0f32; n]).unwrap();
    let f4 = (4 * n) as f64;
    // Plain Rust's runs of the keys: where each starts.
    let starts: Vec<usize> = (0..n)
        .into_par_iter()
        .filter(|&i| i == 0 || keys[i] != keys[i - 1])
        .collect();
    let run_end = |r: usize| starts.get(r + 1).copied().unwrap_or(n);
    let run_keys_ref: Vec<i32> = starts.iter().map(|&s| keys[s]).collect();
    let run_lens: Vec<u32> = (0..starts.len())
        .map(|r| (run_end(r) - starts[r]) as u32)
        .collect();
    let mut fails: Vec<String> = Vec::new();
    let mut check = |op: &str, wrong: Option<String>| match wrong {
        None => println!("check {op}: ok"),
        Some(w) => {
            println!("check {op}: FAIL: {w}");
            fails.push(format!("{op}: {w}"));
        }
    };
    // The first `count` values of an output.
    fn head<T: warp_runtime::Element>(v: &DeviceVec<T>, count: u64) -> Vec<T> {
        let count = (count as usize).min(v.len());
        v.slice(..count).unwrap().download().unwrap()
    }
    let time = |name: &str, bytes: f64, run: &mut dyn FnMut() -> warp_runtime::Result<()>| {
        run().unwrap();
        dev.synchronize().unwrap();
        run().unwrap();
        dev.synchronize().unwrap();
        let ms = dev.last_kernel_ms().map_or(f64::NAN, f64::from);
        println!("{name}: {ms:.4} ms, {:.0} GB/s", bytes / (ms * 1e-3) / 1e9);
    };
    time("hist_u8_256", n as f64, &mut || {
        dev.histogram_into(byte_bin, &db, &mut h)
    });
    let mut want = vec![0u32; 256];
    bytes.iter().for_each(|&b| want[b as usize] += 1);
    check("hist_u8_256", bitwise(&h.download().unwrap(), &want));
    time("hist_f32_256", f4, &mut || {
        dev.histogram_even_into(&dx, -1.0, 1.0, &mut h)
    });
    let mut want = vec![0u32; 256];
    // Bin floor((x + 1) * 128) (exact in f64), the last bin for the largest values.
    xs.iter()
        .for_each(|&x| want[(((x as f64 + 1.0) * 128.0) as usize).min(255)] += 1);
    check("hist_f32_256", bitwise(&h.download().unwrap(), &want));
    time("rle_i32_runs4", f4, &mut || {
        dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc)
            .map(drop)
    });
    let runs = dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc);
    let runs = runs.unwrap().get().unwrap();
    check(
        "rle_i32_runs4 keys",
        bitwise(&head(&ok, runs), &run_keys_ref),
    );
    check("rle_i32_runs4 counts", bitwise(&head(&oc, runs), &run_lens));
    time("unique_i32_runs4", f4, &mut || {
        dev.unique_into(Equal, &dk, &mut ok).map(drop)
    });
    let runs = dev.unique_into(Equal, &dk, &mut ok).unwrap().get().unwrap();
    check(
        "unique_i32_runs4 keys",
        bitwise(&head(&ok, runs), &run_keys_ref),
    );
    time("rbk_i32_f32_runs4", 2.0 * f4, &mut || {
        dev.reduce_by_key_into(Equal, sum_f32, &dk, &dx, &mut ok, &mut ov)
            .map(drop)
    });
    let runs = dev.reduce_by_key_into(Equal, sum_f32, &dk, &dx, &mut ok, &mut ov);
    let runs = runs.unwrap().get().unwrap();
    check(
        "rbk_i32_f32_runs4 keys",
        bitwise(&head(&ok, runs), &run_keys_ref),
    );
    // Each run's sum of its (at most 7) values, within the bound of a fold of that many.
    let sums = head(&ov, runs);
    let wrong = if sums.len() != starts.len() {
        Some(format!("{} runs, expected {}", sums.len(), starts.len()))
    } else {
        (0..starts.len()).into_par_iter().find_map_first(|r| {
            let run = &xs[starts[r]..run_end(r)];
            let want: f64 = run.iter().map(|&x| x as f64).sum();
            let abs: f64 = run.iter().map(|&x| (x as f64).abs()).sum();
            let tol = fold_tol(abs, run.len());
            ((sums[r] as f64 - want).abs() > tol || sums[r].is_nan())
                .then(|| format!("run {r}: expected {want} within {tol:.3e}, got {}", sums[r]))
        })
    };
    check("rbk_i32_f32_runs4 values", wrong);
    for k in [100, 1000] {
        let op = format!("topk_f32_{k}");
        time(&op, f4, &mut || dev.top_k(&dx, k).map(drop));
        let TopK { values, indices } = dev.top_k(&dx, k).unwrap();
        let (want_v, want_i) = top_k_ref(&xs, k);
        check(
            &format!("{op} indices"),
            bitwise(&indices.download().unwrap(), &want_i),
        );
        check(
            &format!("{op} values"),
            bitwise(&values.download().unwrap(), &want_v),
        );
    }
    time("partition3_f32", 2.0 * f4, &mut || {
        dev.partition3(less.with(-1.0 / 3.0), less.with(1.0 / 3.0), &dx)
            .map(drop)
    });
    let (lo, hi) = (less.with(-1.0 / 3.0), less.with(1.0 / 3.0));
    let (a, b, c) = dev.partition3(lo, hi, &dx).unwrap();
    // Each part in input order: x < -1/3, else x < 1/3, else the rest.
    let part_of = |x: f32| {
        if x < -1.0f32 / 3.0 {
            0
        } else if x < 1.0f32 / 3.0 {
            1
        } else {
            2
        }
    };
    for (k, part) in [a, b, c].iter().enumerate() {
        let want: Vec<f32> = xs
            .par_iter()
            .copied()
            .filter(|&x| part_of(x) == k)
            .collect();
        check(
            &format!("partition3_f32 part {k}"),
            bitwise(&part.download().unwrap(), &want),
        );
    }
    time("scan_f32", 2.0 * f4, &mut || {
        dev.scan_into(sum_f32, &dx, &mut of)
    });
    check(
        "scan_f32",
        scan_wrong(&of.download().unwrap(), &xs, n.max(1)),
    );
    time("scan_rows_f32_32", 2.0 * f4, &mut || {
        dev.scan_rows_into(sum_f32, &dx, 32, &mut of)
    });
    check(
        "scan_rows_f32_32",
        scan_wrong(&of.download().unwrap(), &xs, 32),
    );
    if !fails.is_empty() {
        println!();
        for f in &fails {
            println!("FAILED {f}");
        }
        eprintln!(
            "collectives bench: {} check(s) failed (see the FAILED lines)",
            fails.len()
        );
        std::process::exit(1);
    }
}
