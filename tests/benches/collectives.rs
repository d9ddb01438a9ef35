//! One timed call of each collective (issue 13: histograms, runs, top-k, three-way partition,
//! the deterministic float scan, row scans) on the bench's data, for a profiler to attach to:
//!
//!     ncu --kernel-name regex:wd_k_ .gpu/bin/bench--warp-tests--collectives --bench
//!     WARP_BENCH_N=67108864 (default)
//!
//! Each operation runs once to compile and warm up, then once timed with CUDA events; the
//! figures are single runs (the reduce bench has the medians and the peers).

use warp_runtime::Equal;
use warp_runtime::prelude::*;
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
    time("hist_f32_256", f4, &mut || {
        dev.histogram_even_into(&dx, -1.0, 1.0, &mut h)
    });
    time("rle_i32_runs4", f4, &mut || {
        dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc)
            .map(drop)
    });
    time("unique_i32_runs4", f4, &mut || {
        dev.unique_into(Equal, &dk, &mut ok).map(drop)
    });
    time("rbk_i32_f32_runs4", 2.0 * f4, &mut || {
        dev.reduce_by_key_into(Equal, sum_f32, &dk, &dx, &mut ok, &mut ov)
            .map(drop)
    });
    time("topk_f32_100", f4, &mut || dev.top_k(&dx, 100).map(drop));
    time("topk_f32_1000", f4, &mut || dev.top_k(&dx, 1000).map(drop));
    time("partition3_f32", 2.0 * f4, &mut || {
        dev.partition3(less.with(-1.0 / 3.0), less.with(1.0 / 3.0), &dx)
            .map(drop)
    });
    time("scan_f32", 2.0 * f4, &mut || {
        dev.scan_into(sum_f32, &dx, &mut of)
    });
    time("scan_rows_f32_32", 2.0 * f4, &mut || {
        dev.scan_rows_into(sum_f32, &dx, 32, &mut of)
    });
}
