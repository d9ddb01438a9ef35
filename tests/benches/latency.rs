//! Host-visible latency of one call with its result on the host, against CUB timed the same
//! way (benches/peers/latency_peers.cu), start-up costs in fresh processes, and the cost of a
//! device made per call from a stream.
//!
//!     cargo bench -p warp-tests --bench latency        (on a GPU machine)
//!     WARP_LAT_REPS=301                                 (default)
//!
//! Timing: host clock (`Instant`) around each call, 20 warm-up calls, median of REPS calls;
//! fresh random data uniform in [-1, 1) (for `any`, all-negative data, so that no element
//! satisfies the predicate and every element is read, as CUB's TransformReduce does).
//!
//! Checks: `count`, `any` and the filter's count are asserted in every timed call, as before;
//! once per size, outside the timing, the sum is checked against the exact sum (within
//! `warp_tests::checks::fold_tol`) and the filter's kept elements against plain Rust, in order. A wrong result, or
//! a `CHECK cub ... FAIL` line of the CUB peer, is printed with what was expected and what came,
//! and the bench exits with status 1 at the end.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

use warp_runtime::prelude::*;
use warp_tests::checks::{self as check, Checks, Sums};
use warp_tests::ops::{positive, sum_f32};

const SIZES: [usize; 5] = [1, 1000, 100_000, 1_000_000, 16_000_000];

fn median_us(reps: usize, mut call: impl FnMut()) -> f64 {
    for _ in 0..20 {
        call();
    }
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let a = Instant::now();
            call();
            a.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

/// Fresh processes per start-up measurement (the median is reported): process start-up on the
/// GPU machine varies by several milliseconds now and then.
const STARTS: usize = 9;

/// Start-up measurements, each in a fresh process (see `main`).
fn child(mode: &str) {
    let t0 = Instant::now();
    match mode {
        "context" => {
            let ctx = warp_runtime::cudarc::driver::CudaContext::new(0).expect("a GPU");
            let _stream = ctx.new_stream().expect("a stream");
            println!("CHILD {:.3}", t0.elapsed().as_secs_f64() * 1e3);
        }
        "auto" => {
            let dev = Device::auto().expect("a device");
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            assert!(dev.is_gpu(), "Device::auto() fell back to the CPU");
            println!("CHILD {ms:.3}");
        }
        "auto_after_context" => {
            // What Device::auto() adds to cudarc's context in the same process (it retains
            // the same primary context): paired, so free of the process-to-process spread.
            let ctx = warp_runtime::cudarc::driver::CudaContext::new(0).expect("a GPU");
            let _stream = ctx.new_stream().expect("a stream");
            let t1 = Instant::now();
            let dev = Device::auto().expect("a device");
            let ms = t1.elapsed().as_secs_f64() * 1e3;
            assert!(dev.is_gpu(), "Device::auto() fell back to the CPU");
            println!("CHILD {ms:.3}");
        }
        "cold" => {
            let dev = Device::cuda(0).expect("a GPU");
            let xs = dev.upload(&[1.0f32; 1000]).expect("upload");
            let t1 = Instant::now();
            let s = dev.reduce(sum_f32, &xs).expect("reduce");
            let ms = t1.elapsed().as_secs_f64() * 1e3;
            assert_eq!(s, 1000.0);
            println!("CHILD {ms:.3}");
        }
        _ => unreachable!(),
    }
}

fn run_child(mode: &str, cache: &std::path::Path) -> Option<f64> {
    let out = Command::new(std::env::current_exe().ok()?)
        .args(["--child", mode])
        .env("WARP_CACHE_DIR", cache)
        .env("WARP_QUIET", "1")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("CHILD "))
        .and_then(|v| v.trim().parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1]);
        return;
    }
    let reps: usize = std::env::var("WARP_LAT_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(301);
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("no GPU ({e}); nothing to benchmark");
            return;
        }
    };
    println!("device: {}", dev.describe());

    // ---- start-up, fresh processes: context alone, Device::auto(), cold first reduce ----
    let cache = std::env::temp_dir().join(format!("warp-lat-cache-{}", std::process::id()));
    let mut starts: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for _ in 0..STARTS {
        let _ = std::fs::remove_dir_all(&cache);
        for mode in ["context", "auto", "auto_after_context", "cold"] {
            if let Some(ms) = run_child(mode, &cache) {
                starts.entry(mode).or_default().push(ms);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    let med = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let ctx = med(starts.get("context").map_or(&[][..], |v| v));
    let auto = med(starts.get("auto").map_or(&[][..], |v| v));
    let cold = med(starts.get("cold").map_or(&[][..], |v| v));
    let added = med(starts.get("auto_after_context").map_or(&[][..], |v| v));
    println!("\nstart-up, median of {STARTS} fresh processes:");
    println!("| measure | ms | target |");
    println!("|---|---|---|");
    println!("| cudarc context + stream | {ctx:.1} | - |");
    println!(
        "| Device::auto() | {auto:.1} ({:+.1} beyond the context, a difference of two medians) | - |",
        auto - ctx
    );
    println!("| Device::auto() after cudarc's context, same process | {added:.2} | +5 ms |");
    println!("| first reduce, empty cache (after Device::cuda) | {cold:.1} | 60 ms |");

    // ---- latency ----
    let mut next = {
        let mut s = 0x5eed_1234_u64 ^ std::process::id() as u64;
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    };
    let nmax = SIZES[SIZES.len() - 1];
    let xs: Vec<f32> = (0..nmax)
        .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
        .collect();
    let neg: Vec<f32> = xs.iter().map(|x| -x.abs().max(1e-3)).collect();
    let mut ours: BTreeMap<(&str, usize), f64> = BTreeMap::new();
    // Wrong results (checked outside the timing), with the expected and the got.
    let mut checks = Checks::default();
    // A warm-up of every operation before any is timed (the first size timed should not pay
    // for the process's first calls; latency_peers.cu does the same).
    {
        let dx = dev.upload(&xs[..1000]).unwrap();
        let mut out = dev.upload(&vec![0f32; 1000]).unwrap();
        for _ in 0..500 {
            dev.reduce(sum_f32, &dx).unwrap();
            dev.count(positive, &dx).unwrap();
            dev.any(positive, &dx).unwrap();
            dev.filter_into(positive, &dx, &mut out)
                .unwrap()
                .get()
                .unwrap();
        }
    }
    // ---- a device per call on one stream (a candle `CustomOp` makes one per call) ----
    {
        let stream = dev.cuda_stream().expect("a GPU device has a stream");
        let dx = dev.upload(&xs[..1000]).unwrap();
        let want = dev.reduce(sum_f32, &dx).unwrap();
        let make = median_us(reps, || {
            std::hint::black_box(Device::from_stream(stream.clone()).unwrap());
        });
        let call = median_us(reps, || {
            let d = Device::from_stream(stream.clone()).unwrap();
            assert_eq!(
                d.reduce(sum_f32, &dx).unwrap(),
                want,
                "from_stream + reduce"
            );
        });
        println!("\na device per call on one stream, median of {reps}:");
        println!("| measure | us | target |");
        println!("|---|---|---|");
        println!("| Device::from_stream (a second device of the context) | {make:.1} | 50 us |");
        println!("| from_stream + reduce of 1000 f32, result on the host | {call:.1} | - |");
    }
    for &n in &SIZES {
        let dx = dev.upload(&xs[..n]).unwrap();
        let dn = dev.upload(&neg[..n]).unwrap();
        let expect: u64 = xs[..n].iter().filter(|x| **x > 0.0).count() as u64;
        ours.insert(
            ("reduce", n),
            median_us(reps, || {
                std::hint::black_box(dev.reduce(sum_f32, &dx).unwrap());
            }),
        );
        let got = dev.reduce(sum_f32, &dx).unwrap() as f64;
        let want = check::sum_abs_seq(&xs[..n]);
        checks.sum(&format!("reduce n={n}"), Sums::Fold(0), want, n, got);
        ours.insert(
            ("count", n),
            median_us(reps, || {
                assert_eq!(dev.count(positive, &dx).unwrap(), expect, "count n={n}");
            }),
        );
        ours.insert(
            ("any", n),
            median_us(reps, || {
                assert!(
                    !dev.any(positive, &dn).unwrap(),
                    "any n={n}: expected false (no element > 0), got true"
                );
            }),
        );
        let mut out = dev.upload(&vec![0f32; n]).unwrap();
        ours.insert(
            ("filter", n),
            median_us(reps, || {
                let kept = dev.filter_into(positive, &dx, &mut out).unwrap();
                assert_eq!(kept.get().unwrap(), expect, "filter count n={n}");
            }),
        );
        // The kept elements of the last timed call, in order, bit for bit.
        let kept = out.slice(..expect as usize).unwrap().download().unwrap();
        let want: Vec<f32> = xs[..n].iter().copied().filter(|&x| x > 0.0).collect();
        checks.elements(
            &format!("filter n={n}"),
            want.len(),
            check::bitwise(&kept, &want),
        );
    }

    // ---- CUB, timed the same way ----
    let mut cub: BTreeMap<(String, usize), f64> = BTreeMap::new();
    let sizes = SIZES.map(|n| n.to_string()).join(",");
    if let Some(bin) = warp_tests::peers::build_cuda("latency_peers", dev.arch().unwrap_or(90), &[])
    {
        let out = warp_tests::peers::stdout(Command::new(&bin).args([
            "--sizes",
            &sizes,
            "--reps",
            &reps.to_string(),
        ]));
        for line in out.lines() {
            if line.starts_with("CHECK") {
                println!("peer: {line}");
                if line.split_whitespace().nth(3) == Some("FAIL") {
                    checks.fail("peer", line.to_string());
                }
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            if let (5, "LAT", Ok(n), Ok(us)) = (
                f.len(),
                f.first().copied().unwrap_or(""),
                f.get(3).map_or(Ok(0), |v| v.parse::<usize>()),
                f.get(4).map_or(Ok(0.0), |v| v.parse::<f64>()),
            ) {
                cub.insert((f[2].to_string(), n), us);
            }
        }
    }

    println!("\nlatency, host clock, median of {reps} calls, result on the host (us)");
    println!("| op | n | warp-dsl | CUB | ratio | target |");
    println!("|---|---|---|---|---|---|");
    for op in ["reduce", "count", "any", "filter"] {
        for &n in &SIZES {
            let o = ours[&(op, n)];
            let c = cub.get(&(op.to_string(), n)).copied();
            let target = if op == "filter" { "1.0x" } else { "0.85x" };
            println!(
                "| {op} | {n} | {o:.1} | {} | {} | {target} |",
                c.map_or("-".into(), |c| format!("{c:.1}")),
                c.map_or("-".into(), |c| format!("{:.3}x", o / c)),
            );
        }
    }
    checks.finish();
}
