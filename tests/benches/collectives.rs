//! One timed call of each collective (histograms, runs, top-k, three-way partition,
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
//! `warp_tests::checks::fold_tol` of the exact sums. A wrong result is printed with the expected and the got, and
//! the bench exits with status 1 at the end.

use rayon::prelude::*;
use warp_runtime::Equal;
use warp_runtime::prelude::*;
use warp_tests::checks::{self as check, Checks, Sums};
use warp_tests::ops::{byte_bin, less, sum_f32};
use warp_tests::rng;
use warp_tests::runs::run_keys;

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
    // Plain Rust's runs of the keys (the values' sums are not used: random floats).
    let runs_ref = check::runs(&keys, &xs);
    let mut checks = Checks::default();
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
    checks.elements(
        "hist_u8_256",
        256,
        check::bitwise(&h.download().unwrap(), &want),
    );
    time("hist_f32_256", f4, &mut || {
        dev.histogram_even_into(&dx, -1.0, 1.0, &mut h)
    });
    let mut want = vec![0u32; 256];
    // Bin floor((x + 1) * 128) (exact in f64), the last bin for the largest values.
    xs.iter()
        .for_each(|&x| want[(((x as f64 + 1.0) * 128.0) as usize).min(255)] += 1);
    checks.elements(
        "hist_f32_256",
        256,
        check::bitwise(&h.download().unwrap(), &want),
    );
    time("rle_i32_runs4", f4, &mut || {
        dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc)
            .map(drop)
    });
    let runs = dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc);
    let runs = runs.unwrap().get().unwrap();
    let nruns = runs_ref.keys.len();
    let keys_of = |op: &str, got: Vec<i32>, checks: &mut Checks| {
        checks.elements(op, nruns, check::bitwise(&got, &runs_ref.keys));
    };
    keys_of("rle_i32_runs4 keys", head(&ok, runs), &mut checks);
    checks.elements(
        "rle_i32_runs4 counts",
        nruns,
        check::bitwise(&head(&oc, runs), &runs_ref.counts),
    );
    time("unique_i32_runs4", f4, &mut || {
        dev.unique_into(Equal, &dk, &mut ok).map(drop)
    });
    let runs = dev.unique_into(Equal, &dk, &mut ok).unwrap().get().unwrap();
    keys_of("unique_i32_runs4 keys", head(&ok, runs), &mut checks);
    time("rbk_i32_f32_runs4", 2.0 * f4, &mut || {
        dev.reduce_by_key_into(Equal, sum_f32, &dk, &dx, &mut ok, &mut ov)
            .map(drop)
    });
    let runs = dev.reduce_by_key_into(Equal, sum_f32, &dk, &dx, &mut ok, &mut ov);
    let runs = runs.unwrap().get().unwrap();
    keys_of("rbk_i32_f32_runs4 keys", head(&ok, runs), &mut checks);
    // Each run's sum of its (at most 7) values, within the bound of a fold of that many.
    let sums = head(&ov, runs);
    let starts: Vec<usize> = runs_ref
        .counts
        .iter()
        .scan(0usize, |at, &c| {
            let s = *at;
            *at += c as usize;
            Some(s)
        })
        .collect();
    let wrong = check::lengths(sums.len(), nruns).or_else(|| {
        check::failures(nruns, |r| {
            let run = &xs[starts[r]..starts[r] + runs_ref.counts[r] as usize];
            let (want, abs) = check::sum_abs_seq(run);
            let how = Sums::Fold(0);
            (!how.holds(want, sums[r] as f64, abs, run.len()))
                .then(|| how.explain(want, sums[r] as f64, abs, run.len()))
        })
    });
    checks.elements("rbk_i32_f32_runs4 values", nruns, wrong);
    for k in [100, 1000] {
        let op = format!("topk_f32_{k}");
        time(&op, f4, &mut || dev.top_k(&dx, k).map(drop));
        let TopK { values, indices } = dev.top_k(&dx, k).unwrap();
        let (want_v, want_i): (Vec<f32>, Vec<u64>) = check::top_k(&xs, k).into_iter().unzip();
        let got_i = indices.download().unwrap();
        checks.elements(&format!("{op} indices"), k, check::bitwise(&got_i, &want_i));
        let got_v = values.download().unwrap();
        checks.elements(&format!("{op} values"), k, check::bitwise(&got_v, &want_v));
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
        checks.elements(
            &format!("partition3_f32 part {k}"),
            want.len(),
            check::bitwise(&part.download().unwrap(), &want),
        );
    }
    time("scan_f32", 2.0 * f4, &mut || {
        dev.scan_into(sum_f32, &dx, &mut of)
    });
    let got = of.download().unwrap();
    checks.elements("scan_f32", n, check::scan(&got, &xs, Sums::Fold(0)));
    time("scan_rows_f32_32", 2.0 * f4, &mut || {
        dev.scan_rows_into(sum_f32, &dx, 32, &mut of)
    });
    let got = of.download().unwrap();
    checks.elements(
        "scan_rows_f32_32",
        n,
        check::scan_rows(&got, &xs, 32, Sums::Fold(0)),
    );
    checks.finish();
}
