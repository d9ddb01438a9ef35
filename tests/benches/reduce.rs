//! Benchmark of the reductions against CUB, PyTorch and CuPy in the same run, plus start-up
//! cost (cold: NVRTC compile; warm: disk-cache hit in a new process).
//!
//!     cargo bench -p warp-tests --bench reduce        (on a GPU machine)
//!     WARP_BENCH_N=268435456 WARP_BENCH_REPS=20       (defaults)
//!     WARP_BENCH_ONLY=main,values,topk,sort,sort_by,rows,group,search,inputs,runs,pipeline,scan  (sections to run; default all; sort includes sort_by, rows and group)
//!
//! Timing: CUDA events around each kernel, 3 warm-up runs, median of REPS; random data
//! (never zeros); the device-to-device copy bandwidth measured in the same run (`copy_into` a
//! preallocated array, as CUB's `cudaMemcpyAsync` into its own).
//!
//! Checks: every result the bench prints is checked once, outside the timed regions, against
//! plain Rust on the host (module `check`): exactly where the result is exact, within a bound
//! derived from the data for float sums, and the float sums once more over exact data
//! (`ExactData`), bit for bit; the peers' `CHECK ... FAIL` lines count too. Each check prints a
//! `check <op>: ok (...)` or `check <op>: FAIL: expected ..., got ...` line; after any failure
//! the bench lists them all at the end and exits with status 1.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

use check::{Checks, Sums};
use rayon::prelude::*;
use warp_runtime::prelude::*;
use warp_tests::ops::{
    above, argmax_f32, byte_bin, cg_argmax_f32, cg_max_f32, cg_sum_f32, cg_sum_i32, close, less,
    max_f32, moments, moments_one, mul, positive, sq_diff, square, sum_f32, sum_f32_tree, sum_i32,
    welford, welford_one, welford32, welford32_one, widen_bf16, widen_f16,
};
use warp_tests::peers;

use warp_tests::checks as check;

/// Small nonzero integers as f32 (`warp_tests::exact_vec`, seeded by `warp_tests::seed()`), as
/// many as the bench's input: the float sums (reductions, scans, rows, columns, segments) run
/// over them too, outside the timed regions, at the timed runs' lengths, so with their launch
/// shapes and fold orders; every partial sum of them is an integer far below 2^24, exact in
/// f32 in any order, so the results must match the exact sums bit for bit ([`Sums::Exact`]):
/// one lost, doubled or misplaced element shows.
struct ExactData {
    /// The values on the host.
    host: Vec<f32>,
    /// The same on the device.
    dev: DeviceVec<f32>,
}

impl ExactData {
    /// `n` values from the test seed mixed with `salt`.
    fn new(dev: &Device, n: usize, salt: u64) -> ExactData {
        let host: Vec<f32> = warp_tests::exact_vec(warp_tests::seed() ^ salt, n);
        let dev = dev.upload(&host).expect("upload of the exact data");
        ExactData { host, dev }
    }
}

/// An operation's result, or a panic naming the operation.
fn must<T>(op: &str, r: warp_runtime::Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("{op}: {e}"))
}

/// The exact moments of the bench's floats (multiples of 2^-23 below 1 in magnitude), from
/// integer sums of `x * 2^23` (i64) and its square (i128): the mean and the population
/// variance (each rounded once to f64).
fn moments_ref(xs: &[f32]) -> (f64, f64) {
    let (s1, s2) = xs
        .par_iter()
        .map(|&x| {
            let j = check::fixed(x, 23);
            (j, (j as i128) * (j as i128))
        })
        .reduce(|| (0i64, 0i128), |a, b| (a.0 + b.0, a.1 + b.1));
    let n = xs.len() as i128;
    let mean = s1 as f64 / n as f64 / (1u64 << 23) as f64;
    let var = (n * s2 - (s1 as i128) * (s1 as i128)) as f64 / (n * n) as f64 / 2f64.powi(46);
    (mean, var)
}

/// The exact `sum f(x, y)` and `sum |f(x, y)|` over pairs of the bench's floats (multiples of
/// 2^-23 below 1 in magnitude) for `f` a product or squared difference of their integer forms
/// (`x * 2^23`): exact in i128, scaled back by 2^-46 (one rounding each).
fn pair_ref(xs: &[f32], ys: &[f32], f: impl Fn(i64, i64) -> i128 + Sync + Send) -> (f64, f64) {
    let (s, a) = xs
        .par_iter()
        .zip(ys)
        .map(|(&x, &y)| {
            let v = f(check::fixed(x, 23), check::fixed(y, 23));
            (v, v.abs())
        })
        .reduce(|| (0i128, 0i128), |a, b| (a.0 + b.0, a.1 + b.1));
    let scale = 2f64.powi(-46);
    (s as f64 * scale, a as f64 * scale)
}

/// The exact sum and sum of magnitudes of `vals`, each a multiple of 2^-`shift` (so that
/// `x * 2^shift` is an integer; the sums in i64), scaled back (one rounding each).
fn fixed_sums(vals: impl ParallelIterator<Item = f32>, shift: i32) -> (f64, f64) {
    let (s, a) = vals
        .map(|x| {
            let j = check::fixed(x, shift);
            (j, j.abs())
        })
        .reduce(|| (0i64, 0i64), |a, b| (a.0 + b.0, a.1 + b.1));
    let scale = 2f64.powi(-shift);
    (s as f64 * scale, a as f64 * scale)
}

/// Checks `filter_into(positive, dx, out)` (run once more): its count and the kept elements,
/// in order, bit for bit against `want`.
fn check_filter(
    dev: &Device,
    checks: &mut Checks,
    op: &str,
    dx: &DeviceVec<f32>,
    out: &mut DeviceVec<f32>,
    want: &[f32],
) {
    let count = must(op, dev.filter_into(positive, dx, out).and_then(|c| c.get())) as usize;
    checks.exact(&format!("{op} count"), want.len(), count);
    let kept = must(
        op,
        out.slice(..count.min(out.len())).and_then(|s| s.download()),
    );
    checks.elements(op, want.len(), check::bitwise(&kept, want));
}

/// Checks the three one-pass scans the bench times (sections `scan` and `main`; once): the
/// f32 sum by exact tile sums and by the fixed tree, every element within [`check::fold_tol`]
/// of the exact prefix and, over [`ExactData`], bit for bit; the wrapping i32 sum exactly.
fn check_scans(
    dev: &Device,
    checks: &mut Checks,
    (xs, dx): (&[f32], &DeviceVec<f32>),
    (ys, dy): (&[i32], &DeviceVec<i32>),
    ex: &ExactData,
) {
    if !checks.first("scans") {
        return;
    }
    let n = xs.len();
    for (data, host, how, tag) in [
        (dx, xs, Sums::Fold(0), ""),
        (&ex.dev, &ex.host[..], Sums::Exact, " (exact data)"),
    ] {
        let op = format!("scan_f32 exact tile sums{tag}");
        let r = must(&op, dev.scan(sum_f32, data).and_then(|r| r.download()));
        checks.elements(&op, n, check::scan(&r, host, how));
        let op = format!("scan_f32 fixed tree{tag}");
        let r = must(&op, dev.scan(sum_f32_tree, data).and_then(|r| r.download()));
        checks.elements(&op, n, check::scan(&r, host, how));
    }
    let r = must("scan_i32", dev.scan(sum_i32, dy).and_then(|r| r.download()));
    checks.elements("scan_i32", n, check::scan_i32(&r, ys));
}

/// Column counts of the row and column sums.
const AXIS_COLS: [usize; 4] = [32, 256, 4096, 65536];
const ROWSUM: [&str; 4] = [
    "rowsum_f32_32",
    "rowsum_f32_256",
    "rowsum_f32_4096",
    "rowsum_f32_65536",
];
const COLSUM: [&str; 4] = [
    "colsum_f32_32",
    "colsum_f32_256",
    "colsum_f32_4096",
    "colsum_f32_65536",
];

/// The transpose's shape, as the peers choose it: (rows, cols) with cols the largest divisor
/// of n at most sqrt(n).
fn transpose_shape(n: usize) -> (usize, usize) {
    let mut c = n.isqrt().max(1);
    while !n.is_multiple_of(c) {
        c -= 1;
    }
    (n / c, c)
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// GB/s of `bytes` moved in `ms` milliseconds.
fn gbps(ms: f64, bytes: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e9
}

/// Median time (ms) of `run` over `reps` runs, each bracketed by its own pair of CUDA events
/// on the device's stream, so that everything the operation enqueues (memsets, scratch set-up,
/// every kernel) is counted; after a warm-up of at least 30 runs and 100 ms (a short warm-up
/// after another operation measures a transient: see benches/peers/cub_peers.cu). Timed
/// closures use the forms that do not wait on the host (`_on_device`, `_into`), so that runs
/// queue back to back as the peers' do.
fn time_ms(dev: &Device, reps: usize, mut run: impl FnMut() -> warp_runtime::Result<()>) -> f64 {
    use warp_runtime::cudarc::driver::sys::CUevent_flags;
    let stream = dev.cuda_stream().expect("a GPU device");
    let ctx = stream.context().clone();
    let t0 = Instant::now();
    for i in 1.. {
        run().expect("warm-up run");
        if i >= 30 && i % 8 == 0 {
            dev.synchronize().expect("synchronize");
            if t0.elapsed().as_secs_f64() >= 0.1 {
                break;
            }
        }
    }
    dev.synchronize().expect("synchronize");
    let event = || {
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .expect("a timing event")
    };
    let pairs: Vec<_> = (0..reps).map(|_| (event(), event())).collect();
    for (a, b) in &pairs {
        a.record(&stream).expect("record");
        run().expect("timed run");
        b.record(&stream).expect("record");
    }
    dev.synchronize().expect("synchronize");
    median(
        pairs
            .iter()
            .map(|(a, b)| a.elapsed_ms(b).expect("elapsed") as f64)
            .collect(),
    )
}

/// The bandwidth chart of the main table (warp-dsl, CUB, PyTorch, CuPy per operation, the copy
/// bandwidth as a line), written to `$WARP_BENCH_SVG`, else `$OUT/bandwidth.svg` when `OUT` is
/// set (the GPU machine's output folder), else `target/bandwidth.svg`.
fn write_chart(
    dev: &Device,
    ours: &BTreeMap<&str, f64>,
    peers: &BTreeMap<(String, String), f64>,
    copy: f64,
) {
    use warp_tests::chart::Row;
    // Early exits (`*_first`: a match at index 0) are not a bandwidth: left out.
    let rows: Vec<Row> = ours
        .iter()
        .filter(|(op, _)| **op != "copy" && !op.ends_with("_first"))
        .map(|(op, o)| {
            let peer_op = op.replace("find_first", "any");
            let get = |lib: &str| peers.get(&(lib.to_string(), peer_op.clone())).copied();
            Row {
                op: op.to_string(),
                gbps: vec![Some(*o), get("cub"), get("torch"), get("cupy")],
            }
        })
        .collect();
    save_chart(&dev.describe(), &rows, copy);
}

/// `--chart-from LOG`: the chart again from the main table of a saved bench log (its
/// `| op | warp-dsl GB/s | CUB | PyTorch | CuPy | ...` rows and the `copy` row).
fn chart_from(log: &str) {
    use warp_tests::chart::Row;
    let text = std::fs::read_to_string(log).expect("a bench log");
    let device = text
        .lines()
        .find_map(|l| l.strip_prefix("device: "))
        .unwrap_or("GPU")
        .to_string();
    let mut rows = Vec::new();
    let mut copy = 0.0;
    let mut in_main = false;
    for line in text.lines() {
        if line.starts_with("| op | warp-dsl GB/s | CUB | PyTorch | CuPy |") {
            in_main = true;
            continue;
        }
        if !line.starts_with('|') {
            in_main = false;
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if !in_main || cells.len() < 5 || cells[0].starts_with("---") {
            continue;
        }
        let num = |c: &str| c.parse::<f64>().ok();
        if cells[0] == "copy" {
            copy = num(cells[1]).unwrap_or(0.0);
        } else if !cells[0].ends_with("_first") {
            rows.push(Row {
                op: cells[0].to_string(),
                gbps: cells[1..5].iter().map(|c| num(c)).collect(),
            });
        }
    }
    save_chart(&device, &rows, copy);
}

/// Writes the chart (see `write_chart` for where).
fn save_chart(device: &str, rows: &[warp_tests::chart::Row], copy: f64) {
    let svg = warp_tests::chart::bandwidth_svg(
        &format!("{device}: bandwidth per operation (GB/s, higher is better)"),
        &["warp-dsl", "CUB", "PyTorch", "CuPy"],
        rows,
        copy,
    );
    let path = std::env::var_os("WARP_BENCH_SVG")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("OUT").map(|o| std::path::Path::new(&o).join("bandwidth.svg")))
        .unwrap_or_else(|| "target/bandwidth.svg".into());
    match std::fs::write(&path, svg) {
        Ok(()) => println!("chart: {}", path.display()),
        Err(e) => println!("chart: could not write {}: {e}", path.display()),
    }
}

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Median event time (ms) of `body` on `stream`, after 3 warm-ups.
fn stream_ms(
    stream: &std::sync::Arc<warp_runtime::cudarc::driver::CudaStream>,
    reps: usize,
    mut body: impl FnMut(),
) -> f64 {
    use warp_runtime::cudarc::driver::sys::CUevent_flags;
    let ctx = stream.context();
    let ev = || {
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap()
    };
    for _ in 0..3 {
        body();
    }
    let mut t = Vec::new();
    for _ in 0..reps {
        let (a, b) = (ev(), ev());
        a.record(stream).unwrap();
        body();
        b.record(stream).unwrap();
        t.push(a.elapsed_ms(&b).unwrap() as f64);
    }
    median(t)
}

/// A kernel launched with cudarc writing `n` floats, then `reduce_on_device`,
/// `count_on_device` and `scan_into` on the same stream, results left on the device: the
/// time of 100 iterations against the sum of the same kernels timed alone, and the host time
/// of enqueuing one device-resident reduce.
fn pipeline(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    use warp_tests::interop::{fill, fill_kernel};
    let Some(stream) = dev.cuda_stream() else {
        return;
    };
    let f = fill_kernel(&stream);
    // SAFETY (bench): `fill` writes every element before anything reads it, and `scan_into`
    // writes every element of `out`.
    let (mut buf, mut out) = unsafe {
        (
            stream.alloc::<f32>(n).unwrap(),
            stream.alloc::<f32>(n).unwrap(),
        )
    };
    fill(&stream, &f, &mut buf, 1);
    let fill_ms = stream_ms(&stream, reps, || fill(&stream, &f, &mut buf, 2));
    let reduce_ms = stream_ms(&stream, reps, || {
        drop(dev.reduce_on_device(sum_f32, &buf).unwrap())
    });
    let count_ms = stream_ms(&stream, reps, || {
        drop(dev.count_on_device(positive, &buf).unwrap())
    });
    let scan_ms = stream_ms(&stream, reps, || {
        dev.scan_into(sum_i32, &buf.map(to_i32), &mut out_i32(&mut out))
            .unwrap()
    });
    let alone = fill_ms + reduce_ms + count_ms + scan_ms;
    let iters = 100;
    let mut last = None;
    let piped = stream_ms(&stream, 5, || {
        for i in 0..iters {
            fill(&stream, &f, &mut buf, i as u32);
            let total = dev.reduce_on_device(sum_f32, &buf).unwrap();
            let count = dev.count_on_device(positive, &buf).unwrap();
            dev.scan_into(sum_i32, &buf.map(to_i32), &mut out_i32(&mut out))
                .unwrap();
            last = Some((total, count));
        }
    }) / iters as f64;
    let (total, count) = last.unwrap();
    let total = must("pipeline reduce_on_device", total.get());
    let count = must("pipeline count_on_device", count.get());
    // The last iteration's results against its input (the fill of seed iters - 1), read back.
    let host = stream
        .clone_dtoh(&buf)
        .expect("reading the pipeline's input");
    let op = "pipeline reduce_on_device (sum_f32)";
    checks.sum(op, Sums::Fold(0), check::sum_abs(&host), n, total as f64);
    let op = "pipeline count_on_device (x > 0)";
    checks.exact(op, check::count(&host, |x| x > 0.0), count);
    let ints: Vec<i32> = host.par_iter().map(|&x| (x * 1000.0) as i32).collect();
    let scanned: Vec<i32> = stream
        .clone_dtoh(&out)
        .expect("reading the pipeline's scan")
        .par_iter()
        .map(|x| x.to_bits() as i32)
        .collect();
    let op = "pipeline scan_into (sum_i32 of to_i32)";
    checks.elements(op, n, check::scan_i32(&scanned, &ints));
    drop((ints, scanned));
    println!(
        "pipeline (cudarc fill of {n} floats, reduce_on_device, count_on_device, scan_into; same stream): {piped:.4} ms per iteration over {iters}; the kernels alone {alone:.4} ms (fill {fill_ms:.4}, reduce {reduce_ms:.4}, count {count_ms:.4}, scan {scan_ms:.4}): {:.3}x",
        piped / alone
    );
    // Host cost of enqueuing one device-resident reduce (a small input, so the GPU keeps up).
    let small = &buf.slice(..1 << 16);
    let mut t = Vec::new();
    for i in 0..1100 {
        let t0 = Instant::now();
        let r = dev.reduce_on_device(sum_f32, small).unwrap();
        let dt = t0.elapsed().as_secs_f64() * 1e6;
        if i >= 100 {
            t.push(dt);
        }
        drop(r);
    }
    dev.synchronize().unwrap();
    let op = "enqueue reduce_on_device (sum_f32 of 2^16)";
    let got = must(
        op,
        dev.reduce_on_device(sum_f32, small).and_then(|s| s.get()),
    );
    checks.sum(
        op,
        Sums::Fold(0),
        check::sum_abs(&host[..1 << 16]),
        1 << 16,
        got as f64,
    );
    println!(
        "enqueue reduce_on_device (host clock, median of 1000 calls): {:.2} us",
        median(t)
    );
}

/// The scan's output viewed as `i32`s (the pipeline scans the floats truncated to integers).
fn out_i32(
    out: &mut warp_runtime::cudarc::driver::CudaSlice<f32>,
) -> warp_runtime::cudarc::driver::CudaViewMut<'_, i32> {
    let n = out.len();
    // SAFETY (bench): every bit pattern is an i32; the view covers the slice.
    unsafe { out.transmute_mut::<i32>(n) }.unwrap()
}

#[map]
fn to_i32(x: f32) -> i32 {
    (x * 1000.0) as i32
}

fn startup_child() {
    let t0 = Instant::now();
    let dev = Device::cuda(0).expect("GPU");
    let t_dev = t0.elapsed().as_secs_f64() * 1e3;
    let xs = dev.upload(&[1.0f32; 1024]).expect("upload");
    let t1 = Instant::now();
    let s = dev.reduce(sum_f32, &xs).expect("reduce");
    let t_first = t1.elapsed().as_secs_f64() * 1e3;
    assert_eq!(s, 1024.0, "first reduce (warm) of 1024 ones");
    let reports = dev.load_reports();
    let origin = reports
        .first()
        .map(|(_, r)| format!("{:?}", r.origin))
        .unwrap_or_default();
    // Where the first operation's time goes: finding and loading its module (the load
    // report), then a second operation of another module (its own load, but the device's
    // scratch and result slots already made), then the first again (neither).
    let load = reports.first().map_or(f64::NAN, |(_, r)| r.seconds * 1e3);
    let t2 = Instant::now();
    let c = dev.count(positive, &xs).expect("count");
    let t_second = t2.elapsed().as_secs_f64() * 1e3;
    assert_eq!(c, 1024, "count of 1024 ones");
    let load2 = dev
        .load_reports()
        .get(1)
        .map_or(f64::NAN, |(_, r)| r.seconds * 1e3);
    let t3 = Instant::now();
    let s = dev.reduce(sum_f32, &xs).expect("reduce");
    let t_again = t3.elapsed().as_secs_f64() * 1e3;
    assert_eq!(s, 1024.0, "second reduce of 1024 ones");
    println!(
        "STARTUP {t_dev:.3} {t_first:.3} {origin} load {load:.3} second-op {t_second:.3} (load {load2:.3}) again {t_again:.3}"
    );
}

fn main() {
    if std::env::args().any(|a| a == "--startup-child") {
        startup_child();
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--chart-from") {
        chart_from(args.get(i + 1).map_or("bench.log", String::as_str));
        return;
    }
    let n = env_usize("WARP_BENCH_N", 1 << 28);
    let reps = env_usize("WARP_BENCH_REPS", 20);
    let only = std::env::var("WARP_BENCH_ONLY").ok();
    let want = |section: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|s| s.trim() == section))
    };

    // ---- start-up: cold (NVRTC) and warm (disk cache, new process) ----
    let cache = std::env::temp_dir().join(format!("warp-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    // A fresh kernel cache for this run (its children are given it as WARP_CACHE_DIR).
    let settings = warp_runtime::Settings::new().cache_dir(&cache);
    let t0 = Instant::now();
    let dev = match Device::cuda_with(0, &settings) {
        Ok(d) => d,
        Err(e) => {
            println!("no GPU ({e}); nothing to benchmark");
            return;
        }
    };
    let t_dev = t0.elapsed().as_secs_f64() * 1e3;
    let small = dev.upload(&[1.0f32; 1024]).unwrap();
    let t1 = Instant::now();
    assert_eq!(
        dev.reduce(sum_f32, &small).unwrap(),
        1024.0,
        "first reduce (cold) of 1024 ones"
    );
    let t_cold = t1.elapsed().as_secs_f64() * 1e3;
    let mut checks = Checks::default();
    let exe = std::env::current_exe().unwrap();
    let mut warm = Vec::new();
    for _ in 0..3 {
        let out = Command::new(&exe)
            .arg("--startup-child")
            .env("WARP_CACHE_DIR", &cache)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // The child asserts its reduce of 1024 ones (1024.0): a failed child is a wrong result
        // (or a crash), not a missing line.
        if !out.status.success() || !text.contains("STARTUP") {
            checks.fail(
                "start-up child (reduce of 1024 ones, warm cache)",
                format!(
                    "exit {}, stderr: {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            );
        }
        if let Some(line) = text.lines().find(|l| l.starts_with("STARTUP")) {
            let f: Vec<&str> = line.split_whitespace().collect();
            warm.push((
                f[1].parse::<f64>().unwrap(),
                f[2].parse::<f64>().unwrap(),
                f[3..].join(" "),
            ));
        }
    }
    println!("device: {}", dev.describe());
    println!(
        "start-up: context creation {t_dev:.1} ms; first reduce, cold (NVRTC compile + load): {t_cold:.1} ms"
    );
    for (d, f, o) in &warm {
        println!("start-up: new process, context {d:.1} ms; first reduce, warm ({o}): {f:.2} ms");
    }
    let _ = std::fs::remove_dir_all(&cache);

    // ---- our kernels ----
    let mut next = xorshift(0x5eed ^ std::process::id() as u64 ^ t0.elapsed().as_nanos() as u64);
    let xs: Vec<f32> = (0..n)
        .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
        .collect();
    let ys: Vec<i32> = (0..n).map(|_| (next() % 2001) as i32 - 1000).collect();
    let dx = dev.upload(&xs).unwrap();
    let dy = dev.upload(&ys).unwrap();
    let ex = ExactData::new(&dev, n, 0xe0);
    println!(
        "checks: exact data from WARP_TEST_SEED={} (warp_tests::exact_vec)",
        warp_tests::seed()
    );
    let bytes = (n * 4) as f64;
    let mut ours: BTreeMap<&str, f64> = BTreeMap::new();
    // GB/s of an operation that reads the `n` 4-byte elements once.
    let read_rate =
        |run: &mut dyn FnMut() -> warp_runtime::Result<()>| gbps(time_ms(&dev, reps, run), bytes);
    // The copy into an array allocated here, outside the timed region (as the peers' copies
    // write theirs): NaN until written, so that a copy that writes nothing shows.
    let mut copy_out = dev.upload(&vec![f32::NAN; n]).unwrap();
    let copy_ms = time_ms(&dev, reps, || dev.copy_into(&dx, &mut copy_out));
    ours.insert("copy", gbps(copy_ms, 2.0 * bytes));
    checks.elements(
        "copy (copy_into)",
        n,
        check::bitwise(&must("copy", copy_out.download()), &xs),
    );
    drop(copy_out);
    ours.insert(
        "sum_f32",
        read_rate(&mut || dev.reduce_on_device(sum_f32, &dx).map(drop)),
    );
    {
        let sum = must(
            "sum_f32",
            dev.reduce_on_device(sum_f32, &dx).and_then(|s| s.get()),
        );
        checks.sum("sum_f32", Sums::Fold(0), check::sum_abs(&xs), n, sum as f64);
        let sum = must(
            "sum_f32",
            dev.reduce_on_device(sum_f32, &ex.dev).and_then(|s| s.get()),
        );
        let want = check::sum_abs(&ex.host);
        checks.sum("sum_f32 (exact data)", Sums::Exact, want, n, sum as f64);
    }
    if want("scan") {
        scans_alone(&dev, (&dx, &dy), reps, copy_ms, &mut checks);
        check_scans(&dev, &mut checks, (&xs, &dx), (&ys, &dy), &ex);
    }
    if want("main") {
        ours.insert(
            "sum_i32",
            read_rate(&mut || dev.reduce_on_device(sum_i32, &dy).map(drop)),
        );
        ours.insert(
            "max_f32",
            read_rate(&mut || dev.reduce_on_device(max_f32, &dx).map(drop)),
        );
        ours.insert(
            "argmax_f32",
            read_rate(&mut || dev.reduce_on_device(argmax_f32, &dx.indexed()).map(drop)),
        );
        let mut cg: BTreeMap<&str, f64> = BTreeMap::new();
        cg.insert(
            "sum_f32",
            read_rate(&mut || dev.reduce_on_device(cg_sum_f32, &dx).map(drop)),
        );
        cg.insert(
            "sum_i32",
            read_rate(&mut || dev.reduce_on_device(cg_sum_i32, &dy).map(drop)),
        );
        cg.insert(
            "max_f32",
            read_rate(&mut || dev.reduce_on_device(cg_max_f32, &dx).map(drop)),
        );
        cg.insert(
            "argmax_f32",
            read_rate(&mut || dev.reduce_on_device(cg_argmax_f32, &dx.indexed()).map(drop)),
        );
        // The reductions' results, in the forms timed (left on the device, then read).
        {
            let (max, argmax) = check::max_argmax(&xs);
            let sum_i = check::sum_i32(&ys);
            let (abs, exact) = (check::sum_abs(&xs), check::sum_abs(&ex.host));
            let read = |op: &str, r: warp_runtime::Result<DeviceScalar<i32>>| {
                must(op, r.and_then(|s| s.get()))
            };
            checks.exact(
                "sum_i32",
                sum_i,
                read("sum_i32", dev.reduce_on_device(sum_i32, &dy)),
            );
            let cg = read("cg sum_i32", dev.reduce_on_device(cg_sum_i32, &dy));
            checks.exact("cg sum_i32", sum_i, cg);
            let read = |op: &str, r: warp_runtime::Result<DeviceScalar<f32>>| {
                must(op, r.and_then(|s| s.get()))
            };
            checks.exact(
                "max_f32",
                max,
                read("max_f32", dev.reduce_on_device(max_f32, &dx)),
            );
            checks.exact(
                "cg max_f32",
                max,
                read("cg max", dev.reduce_on_device(cg_max_f32, &dx)),
            );
            let cg = read("cg sum_f32", dev.reduce_on_device(cg_sum_f32, &dx)) as f64;
            checks.sum("cg sum_f32", Sums::Fold(0), abs, n, cg);
            let cg = read("cg sum_f32", dev.reduce_on_device(cg_sum_f32, &ex.dev)) as f64;
            checks.sum("cg sum_f32 (exact data)", Sums::Exact, exact, n, cg);
            let read = |op: &str, r: warp_runtime::Result<DeviceScalar<(f32, u32)>>| {
                must(op, r.and_then(|s| s.get()))
            };
            let am = read(
                "argmax_f32",
                dev.reduce_on_device(argmax_f32, &dx.indexed()),
            );
            checks.exact("argmax_f32", argmax, am);
            let am = read(
                "cg argmax",
                dev.reduce_on_device(cg_argmax_f32, &dx.indexed()),
            );
            checks.exact("cg argmax_f32", argmax, am);
        }
        // ---- predicates and maps ----
        let mut pred_ms: BTreeMap<&str, f64> = BTreeMap::new();
        ours.insert(
            "sumsq_f32",
            read_rate(&mut || dev.map_reduce_on_device(square, sum_f32, &dx).map(drop)),
        );
        ours.insert(
            "count_gt0_f32",
            read_rate(&mut || dev.count_on_device(positive, &dx).map(drop)),
        );
        let kept = dev.count(positive, &dx).unwrap() as f64;
        let mut kept_out = dev.upload(&vec![0f32; n]).unwrap();
        ours.insert(
            "filter_gt0_f32",
            gbps(
                time_ms(&dev, reps, || {
                    dev.filter_into(positive, &dx, &mut kept_out).map(drop)
                }),
                bytes + kept * 4.0,
            ),
        );
        let mut first: Vec<f32> = xs.iter().map(|x| -x.abs() - 0.1).collect();
        let dnone = dev.upload(&first).unwrap();
        // Plain Rust's `any` and first index of x > 0, of each input.
        let refs = |v: &[f32]| {
            (
                v.par_iter().any(|&x| x > 0.0),
                v.par_iter().position_first(|&x| x > 0.0),
            )
        };
        let none_ref = refs(&first);
        first[0] = 1.0;
        let dfirst = dev.upload(&first).unwrap();
        let first_ref = refs(&first);
        drop(first);
        for (name, input) in [("any_gt0_first", &dfirst), ("any_gt0_none", &dnone)] {
            let ms = time_ms(&dev, reps, || dev.any_on_device(positive, input).map(drop));
            pred_ms.insert(name, ms);
            ours.insert(name, gbps(ms, bytes));
        }
        for (name, input) in [
            ("find_first_gt0_first", &dfirst),
            ("find_first_gt0_none", &dnone),
        ] {
            let ms = time_ms(&dev, reps, || {
                dev.find_first_on_device(positive, input).map(drop)
            });
            pred_ms.insert(name, ms);
            ours.insert(name, gbps(ms, bytes));
        }
        // The fixed cost under the early exit: the same calls on the first 1024 elements
        // (a grid of one block), and the launch and host path alone (an empty-ish call).
        {
            let head = dfirst.slice(..1024).unwrap();
            let any_small = time_ms(&dev, reps, || dev.any_on_device(positive, &head).map(drop));
            let ff_small = time_ms(&dev, reps, || {
                dev.find_first_on_device(positive, &head).map(drop)
            });
            let red_small = time_ms(&dev, reps, || {
                dev.reduce_on_device(sum_f32, &head).map(drop)
            });
            println!(
                "early-exit fixed cost, 1024 elements (event-timed, ms): any {any_small:.4}, find_first {ff_small:.4}, reduce_on_device {red_small:.4}"
            );
        }
        for (name, input, (any, at)) in [
            ("gt0_first", &dfirst, first_ref),
            ("gt0_none", &dnone, none_ref),
        ] {
            let op = format!("any_{name}");
            let got = must(
                &op,
                dev.any_on_device(positive, input).and_then(|s| s.get()),
            );
            checks.exact(&op, any, got);
            let op = format!("find_first_{name}");
            let got = must(
                &op,
                dev.find_first_on_device(positive, input)
                    .and_then(|s| s.get()),
            );
            checks.exact(&op, at, got);
        }
        drop((dfirst, dnone));
        // sum of squares: each square rounded once (extra 1), then the fold.
        let got = must("sumsq_f32", dev.map_reduce(square, sum_f32, &dx)) as f64;
        let want = pair_ref(&xs, &xs, |a, _| (a as i128) * (a as i128));
        checks.sum("sumsq_f32", Sums::Fold(1), want, n, got);
        let count = check::count(&xs, |x| x > 0.0);
        let got = must(
            "count",
            dev.count_on_device(positive, &dx).and_then(|s| s.get()),
        );
        checks.exact("count_gt0_f32", count, got);
        let kept_want = check::kept(&xs, |x| x > 0.0);
        check_filter(
            &dev,
            &mut checks,
            "filter_gt0_f32",
            &dx,
            &mut kept_out,
            &kept_want,
        );

        // ---- scans and axis reductions ----
        ours.insert(
            "scan_i32",
            gbps(
                time_ms(&dev, reps, || dev.scan(sum_i32, &dy).map(drop)),
                2.0 * bytes,
            ),
        );
        // The other tile order (a queue in block start order), for the record.
        dev.set_tile_queue(true);
        let queued_scan = time_ms(&dev, reps, || dev.scan(sum_i32, &dy).map(drop));
        let queued_filter = time_ms(&dev, reps, || {
            dev.filter_into(positive, &dx, &mut kept_out).map(drop)
        });
        // The queued forms' results, before the order goes back.
        let queued = must(
            "scan_i32 (tile queue)",
            dev.scan(sum_i32, &dy).and_then(|s| s.download()),
        );
        checks.elements("scan_i32 (tile queue)", n, check::scan_i32(&queued, &ys));
        drop(queued);
        let op = "filter_gt0_f32 (tile queue)";
        check_filter(&dev, &mut checks, op, &dx, &mut kept_out, &kept_want);
        drop(kept_want);
        dev.set_tile_queue(false);
        println!(
            "single-pass tile order: blockIdx.x scan_i32 {:.0} GB/s, filter {:.0} GB/s; queue scan_i32 {:.0} GB/s, filter {:.0} GB/s",
            ours["scan_i32"],
            ours["filter_gt0_f32"],
            gbps(queued_scan, 2.0 * bytes),
            gbps(queued_filter, bytes + kept * 4.0)
        );
        // Deterministic single-pass float scans (sums: exact tile sums; other operators: the
        // fixed tree of tile aggregates; rows and CSR segments as (value, head) pairs); GB/s
        // count bytes read + written.
        ours.insert(
            "scan_f32",
            gbps(
                time_ms(&dev, reps, || dev.scan(sum_f32, &dx).map(drop)),
                2.0 * bytes,
            ),
        );
        let tree = time_ms(&dev, reps, || dev.scan(sum_f32_tree, &dx).map(drop));
        println!(
            "scan_f32 by exact tile sums {:.0} GB/s; the same sum by the fixed tree (what other float operators take) {:.0} GB/s",
            ours["scan_f32"],
            gbps(tree, 2.0 * bytes)
        );
        for (name, cols) in [("scan_rows_f32_32", 32), ("scan_rows_f32_4096", 4096)] {
            let m = dx.slice(..n / cols * cols).unwrap();
            let ms = time_ms(&dev, reps, || dev.scan_rows(sum_f32, &m, cols).map(drop));
            ours.insert(name, gbps(ms, 2.0 * (n / cols * cols * 4) as f64));
            let len = n / cols * cols;
            let r = must(
                name,
                dev.scan_rows(sum_f32, &m, cols).and_then(|r| r.download()),
            );
            let fail = check::scan_rows(&r, &xs[..len], cols, Sums::Fold(0));
            checks.elements(name, len, fail);
            let m = ex.dev.slice(..len).unwrap();
            let r = must(
                name,
                dev.scan_rows(sum_f32, &m, cols).and_then(|r| r.download()),
            );
            let fail = check::scan_rows(&r, &ex.host[..len], cols, Sums::Exact);
            checks.elements(&format!("{name} (exact data)"), len, fail);
        }
        // CSR segments of 1 to 2047 elements (about 1000 on average).
        let mut offsets = vec![0u64];
        let mut at = 0u64;
        while at < n as u64 {
            at = (at + 1 + (at.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 53)).min(n as u64);
            offsets.push(at);
        }
        let doffs = dev.upload(&offsets).unwrap();
        let ms = time_ms(&dev, reps, || {
            dev.scan_segments(sum_f32, &dx, &doffs).map(drop)
        });
        ours.insert(
            "scan_segments_f32",
            gbps(ms, 2.0 * bytes + (offsets.len() * 8) as f64),
        );
        println!(
            "scan_segments_f32: {} segments of about {} elements",
            offsets.len() - 1,
            n / (offsets.len() - 1)
        );
        for (data, host, how, op) in [
            (&dx, &xs[..], Sums::Fold(0), "scan_segments_f32"),
            (
                &ex.dev,
                &ex.host[..],
                Sums::Exact,
                "scan_segments_f32 (exact data)",
            ),
        ] {
            let r = must(
                op,
                dev.scan_segments(sum_f32, data, &doffs)
                    .and_then(|r| r.download()),
            );
            checks.elements(op, n, check::scan_segments(&r, host, &offsets, how));
        }
        let a = dev.scan(sum_f32, &dx).unwrap().download().unwrap();
        let b = dev.scan(sum_f32, &dx).unwrap().download().unwrap();
        checks.elements(
            "scan_f32 (same bits on a second run)",
            n,
            check::bitwise(&b, &a),
        );
        drop((a, b, doffs));
        check_scans(&dev, &mut checks, (&xs, &dx), (&ys, &dy), &ex);
        let mut padding: Vec<(String, f64, f64)> = Vec::new();
        for (i, &c) in AXIS_COLS.iter().enumerate() {
            let rows = n / c;
            let m = dx.slice(..rows * c).unwrap();
            let ms = time_ms(&dev, reps, || dev.reduce_rows(sum_f32, &m, c).map(drop));
            ours.insert(ROWSUM[i], gbps(ms, ((rows * c + rows) * 4) as f64));
            let ms = time_ms(&dev, reps, || dev.reduce_cols(sum_f32, &m, c).map(drop));
            ours.insert(COLSUM[i], gbps(ms, ((rows * c + c) * 4) as f64));
            // The padding measurement where `reduce_cols` goes through the padded tile (wide
            // aligned matrices take the vector column reduction, which has no tile).
            if c < warp_kernels::catalogue::COLS_VEC_MIN {
                let unpadded = time_ms(&dev, reps, || {
                    dev.reduce_cols_unpadded(sum_f32, &m, c).map(drop)
                });
                padding.push((format!("reduce_cols {rows}x{c}"), ms, unpadded));
            }
            // Every row and column sum, padded and unpadded, of the data and of exact data.
            let len = rows * c;
            for (data, host, how, tag) in [
                (&dx, &xs[..len], Sums::Fold(0), ""),
                (&ex.dev, &ex.host[..len], Sums::Exact, " (exact data)"),
            ] {
                let m = data.slice(..len).unwrap();
                let op = format!("{}{tag}", ROWSUM[i]);
                let r = must(
                    &op,
                    dev.reduce_rows(sum_f32, &m, c).and_then(|r| r.download()),
                );
                checks.elements(&op, rows, check::rows(&r, host, c, how));
                let op = format!("{}{tag}", COLSUM[i]);
                let k = must(
                    &op,
                    dev.reduce_cols(sum_f32, &m, c).and_then(|r| r.download()),
                );
                checks.elements(&op, c, check::cols(&k, host, c, how));
                let op = format!("{} unpadded{tag}", COLSUM[i]);
                let k = dev.reduce_cols_unpadded(sum_f32, &m, c);
                let k = must(&op, k.and_then(|r| r.download()));
                checks.elements(&op, c, check::cols(&k, host, c, how));
            }
        }
        // CSR segments (bytes: elements + offsets read, sums written): the whole input as one
        // segment (listed, then reduced by the whole grid in chunks), and many short ones (a warp
        // each). Not in the peer table: the peers script has no segmented reduce.
        for len in [n, 100_000, 4096] {
            let nseg = n.div_ceil(len);
            let offsets: Vec<u64> = (0..=nseg).map(|i| (i * len).min(n) as u64).collect();
            let doffs = dev.upload(&offsets).unwrap();
            let ms = time_ms(&dev, reps, || {
                dev.reduce_segments(sum_f32, &dx, &doffs).map(drop)
            });
            for (data, host, how, tag) in [
                (&dx, &xs[..], Sums::Fold(0), ""),
                (&ex.dev, &ex.host[..], Sums::Exact, " (exact data)"),
            ] {
                let op = format!("reduce_segments(sum_f32) {nseg} x {len}{tag}");
                let sums = dev.reduce_segments(sum_f32, data, &doffs);
                let sums = must(&op, sums.and_then(|r| r.download()));
                checks.elements(&op, nseg, check::segments(&sums, host, &offsets, how));
            }
            println!(
                "reduce_segments(sum_f32), {nseg} segments of {len}: {:.0} GB/s ({ms:.4} ms)",
                gbps(ms, (n * 4 + offsets.len() * 8 + nseg * 4) as f64)
            );
        }
        let (trows, tcols) = transpose_shape(n);
        let ms = time_ms(&dev, reps, || dev.transpose(&dx, tcols).map(drop));
        ours.insert("transpose_f32", gbps(ms, 2.0 * bytes));
        let unpadded = time_ms(&dev, reps, || dev.transpose_unpadded(&dx, tcols).map(drop));
        padding.push((format!("transpose {trows}x{tcols}"), ms, unpadded));
        let t = must(
            "transpose",
            dev.transpose(&dx, tcols).and_then(|t| t.download()),
        );
        checks.elements("transpose_f32", n, check::transpose(&t, &xs, tcols));
        let t = dev.transpose_unpadded(&dx, tcols);
        let t = must("transpose_unpadded", t.and_then(|t| t.download()));
        checks.elements(
            "transpose_f32 unpadded",
            n,
            check::transpose(&t, &xs, tcols),
        );
        drop(t);
        // ---- peers, same run ----
        let ops = "copy,sum_f32,sum_i32,max_f32,argmax_f32,sumsq_f32,count_gt0_f32,filter_gt0_f32,any_gt0_first,any_gt0_none,\
               scan_i32,rowsum_f32_32,rowsum_f32_256,rowsum_f32_4096,rowsum_f32_65536,\
               colsum_f32_32,colsum_f32_256,colsum_f32_4096,colsum_f32_65536,transpose_f32,\
               scan_f32,scan_rows_f32_32,scan_rows_f32_4096";
        let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
        let dir = peers::dir();
        run_cuda_peer(
            &dev,
            "cub_peers",
            &[],
            (n, reps),
            &["--ops", ops],
            &mut peers,
            &mut checks,
        );
        let out = peers::stdout(
            Command::new("python3")
                .arg(format!("{dir}/peers.py"))
                .args([
                    "--n",
                    &n.to_string(),
                    "--reps",
                    &reps.to_string(),
                    "--ops",
                    ops,
                    "--libs",
                    "torch,cupy",
                ]),
        );
        parse_peers(&out, &mut peers, &mut checks);

        // ---- table ----
        let copy = ours["copy"];
        println!("\nemission styles, same run (GB/s):");
        println!("| op | intrinsics | cooperative_groups | cg / intrinsics |");
        println!("|---|---|---|---|");
        for (op, c) in &cg {
            println!("| {op} | {:.0} | {c:.0} | {:.3}x |", ours[op], c / ours[op]);
        }
        println!(
            "\nN = {n} (4-byte elements), median of {reps} event-timed runs; GB/s count bytes read (+ written for copy, transpose and the scans); copy: copy_into a preallocated array"
        );
        println!(
            "| op | warp-dsl GB/s | CUB | PyTorch | CuPy | vs best peer | vs CUB | share of copy |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        for op in [
            "sum_f32",
            "sum_i32",
            "max_f32",
            "argmax_f32",
            "sumsq_f32",
            "count_gt0_f32",
            "filter_gt0_f32",
            "any_gt0_none",
            "find_first_gt0_none",
            "scan_i32",
            "scan_f32",
            "scan_rows_f32_32",
            "scan_rows_f32_4096",
            "scan_segments_f32",
            ROWSUM[0],
            ROWSUM[1],
            ROWSUM[2],
            ROWSUM[3],
            COLSUM[0],
            COLSUM[1],
            COLSUM[2],
            COLSUM[3],
            "transpose_f32",
            "copy",
        ] {
            let o = ours[op];
            let peer_op = op.replace("find_first", "any");
            let get = |lib: &str| peers.get(&(lib.to_string(), peer_op.clone())).copied();
            let (c, t, p) = (get("cub"), get("torch"), get("cupy"));
            let best = [c, t, p].into_iter().flatten().fold(0.0f64, f64::max);
            let cell = |v: Option<f64>| v.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
            let ratio = |v: f64| {
                if v > 0.0 {
                    format!("{:.3}x", o / v)
                } else {
                    "-".into()
                }
            };
            println!(
                "| {op} | {o:.0} | {} | {} | {} | {} | {} | {:.1}% |",
                cell(c),
                cell(t),
                cell(p),
                ratio(best),
                ratio(c.unwrap_or(0.0)),
                100.0 * o / copy
            );
        }
        // The transpose's share of the copy, both measured above in this run.
        println!(
            "\ntranspose_f32 ({trows} x {tcols}): {:.0} GB/s, {:.1}% of the copy (copy_into) {copy:.0} GB/s measured in the same run",
            ours["transpose_f32"],
            100.0 * ours["transpose_f32"] / copy
        );
        write_chart(&dev, &ours, &peers, copy);
        println!(
            "\nshared-memory padding, same run (ms; docs/benchmarks/2026-11-30.md has the ncu counters):"
        );
        println!("| kernel | [32][33] padded | [32][32] unpadded | unpadded / padded |");
        println!("|---|---|---|---|");
        for (what, p, u) in &padding {
            println!("| {what} | {p:.4} | {u:.4} | {:.2}x |", u / p);
        }
        println!(
            "\nearly exit, first match at index 0 (times in ms; speed-up over PyTorch's (x > 0).any()):"
        );
        for op in ["any_gt0_first", "find_first_gt0_first"] {
            let ms = pred_ms[op];
            match peer_ms(&peers, "torch", "any_gt0_first", bytes) {
                Some(t) => println!("| {op} | {ms:.4} ms | torch {t:.4} ms | {:.1}x |", t / ms),
                None => println!("| {op} | {ms:.4} ms | torch - | - |"),
            }
        }
    }

    // The later sections after the main table (printed first, so that a cut-short run still
    // has it).
    // ---- several arrays, half precision, Welford ----
    if want("values") {
        values(&dev, (&xs, &dx), reps, ours["sum_f32"], &mut checks, &ex);
    }
    if want("topk") {
        topk(&dev, (&xs, &dx), reps, &mut checks);
    }
    drop((dx, dy));

    // ---- sorting ----
    if want("sort") {
        sort_bench(&dev, n, reps, &mut checks);
    } else if want("sort_by") {
        sort_by_bench(&dev, n, reps, &mut checks);
    }
    if want("rows") && !want("sort") {
        rows_bench(&dev, n, reps, &mut checks);
    }
    if want("group") && !want("sort") {
        group_bench(&dev, n, reps, &mut checks);
    }

    // ---- binary search ----
    if want("search") {
        search_bench(&dev, n, reps, &mut checks);
    }

    // ---- positions and weights: argwhere, weighted histograms ----
    if want("inputs") {
        inputs_bench(&dev, n, reps, &mut checks);
    }

    // ---- runs: run-length encode, unique, reduce-by-key ----
    if want("runs") {
        runs_bench(&dev, n, reps, &mut checks);
    }

    // ---- the caller's stream: a cudarc kernel and ours in one pipeline ----
    if want("pipeline") {
        pipeline(&dev, n, reps, &mut checks);
    }
    checks.finish();
}

/// Several arrays, f16/bf16 and a one-pass Welford, the three-way partition and the
/// histograms, with their peers in the same run: cuBLAS `cublasSdot`,
/// `thrust::inner_product`, CUB `TransformReduce`, `DevicePartition::If` and
/// `DeviceHistogram::HistogramEven` (values_peers.cu), PyTorch (values_peers.py: `bincount`,
/// `histc`). GB/s count the bytes of every array read.
fn values(
    dev: &Device,
    (xs, dx): (&[f32], &DeviceVec<f32>),
    reps: usize,
    sum_f32_gbps: f64,
    checks: &mut Checks,
    ex: &ExactData,
) {
    let n = xs.len();
    let mut next = xorshift(0xd07 ^ std::process::id() as u64);
    let ys: Vec<f32> = (0..n)
        .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
        .collect();
    let dy = dev.upload(&ys).unwrap();
    let dx2 = dev.copy(&dx.as_slice()).unwrap();
    let hb: Vec<bf16> = xs.iter().map(|&x| bf16::from_f32(x)).collect();
    let hh: Vec<f16> = xs.iter().map(|&x| f16::from_f32(x)).collect();
    let (db, dh) = (dev.upload(&hb).unwrap(), dev.upload(&hh).unwrap());
    let two = (8 * n) as f64;
    let pair = (dx, &dy);
    let same = (dx, &dx2);
    let tol = close.with(1e-5, 1e-8);
    let (third_lo, third_hi) = (less.with(-1.0 / 3.0), less.with(1.0 / 3.0));
    let (half_bytes, one) = ((2 * n) as f64, (4 * n) as f64);
    // Histograms: bytes uniform over 0..256 (from the same floats), counts into the caller's
    // 256 counters (as CUB's HistogramEven writes its own); the floats in 256 even bins over
    // [-1, 1).
    let bytes_of = |x: f32| ((x + 1.0) * 128.0) as u8;
    let hb8: Vec<u8> = xs.iter().map(|&x| bytes_of(x)).collect();
    let du8 = dev.upload(&hb8).unwrap();
    let mut h8 = dev.upload(&[0u32; 256]).unwrap();
    let mut hf = dev.upload(&[0u32; 256]).unwrap();
    // (name, bytes read and written, the operation)
    type Run<'r> = Box<dyn FnMut() -> warp_runtime::Result<()> + 'r>;
    let runs: Vec<(&str, f64, Run<'_>)> = vec![
        (
            "dot_f32",
            two,
            Box::new(|| dev.map_reduce_on_device(mul, sum_f32, &pair).map(drop)),
        ),
        (
            "sq_dist_f32",
            two,
            Box::new(|| dev.map_reduce_on_device(sq_diff, sum_f32, &pair).map(drop)),
        ),
        (
            "allclose_f32",
            two,
            Box::new(|| dev.all_on_device(tol, &same).map(drop)),
        ),
        (
            "sum_bf16",
            half_bytes,
            Box::new(|| dev.map_reduce_on_device(widen_bf16, sum_f32, &db).map(drop)),
        ),
        (
            "sum_f16",
            half_bytes,
            Box::new(|| dev.map_reduce_on_device(widen_f16, sum_f32, &dh).map(drop)),
        ),
        (
            "welford_f32",
            one,
            Box::new(|| {
                dev.reduce_on_device(welford32, &dx.map(welford32_one))
                    .map(drop)
            }),
        ),
        (
            "welford_f32_struct",
            one,
            Box::new(|| {
                dev.reduce_on_device(moments, &dx.map(moments_one))
                    .map(drop)
            }),
        ),
        (
            "welford_f32_f64_state",
            one,
            Box::new(|| {
                dev.reduce_on_device(welford, &dx.map(welford_one))
                    .map(drop)
            }),
        ),
        (
            "partition3_f32",
            two,
            Box::new(|| dev.partition3(third_lo, third_hi, dx).map(drop)),
        ),
        (
            "hist_u8_256",
            n as f64,
            Box::new(|| dev.histogram_into(byte_bin, &du8, &mut h8)),
        ),
        (
            "hist_f32_256",
            one,
            Box::new(|| dev.histogram_even_into(dx, -1.0, 1.0, &mut hf)),
        ),
    ];
    let mut ours: Vec<(&str, f64)> = Vec::new();
    for (name, bytes, mut run) in runs {
        ours.push((name, gbps(time_ms(dev, reps, &mut run), bytes)));
    }
    // ---- checks, after the timed runs ----
    // The three parts, each in input order, bit for bit.
    let (a, b, c) = must("partition3_f32", dev.partition3(third_lo, third_hi, dx));
    // The part of x: the first predicate's, else the second's, else the third (NaN too).
    let (lo, hi) = (-1.0f32 / 3.0, 1.0f32 / 3.0);
    let part_of = |x: f32| {
        if x < lo {
            0
        } else if x < hi {
            1
        } else {
            2
        }
    };
    let parts = [
        ("first", a, check::kept(xs, |x| part_of(x) == 0)),
        ("second", b, check::kept(xs, |x| part_of(x) == 1)),
        ("third", c, check::kept(xs, |x| part_of(x) == 2)),
    ];
    for (name, part, want) in parts {
        let op = format!("partition3_f32 {name} part");
        let got = must(&op, part.download());
        checks.elements(&op, want.len(), check::bitwise(&got, &want));
    }
    // The histograms the last timed runs wrote.
    let (want8, wantf) = xs
        .par_chunks(1 << 20)
        .fold(
            || (vec![0u32; 256], vec![0u32; 256]),
            |(mut h8, mut hf), chunk| {
                for &x in chunk {
                    h8[bytes_of(x) as usize] += 1;
                    hf[(((x as f64 + 1.0) * 128.0) as usize).min(255)] += 1;
                }
                (h8, hf)
            },
        )
        .reduce(
            || (vec![0u32; 256], vec![0u32; 256]),
            |(mut a8, mut af), (b8, bf)| {
                a8.iter_mut().zip(b8).for_each(|(a, b)| *a += b);
                af.iter_mut().zip(bf).for_each(|(a, b)| *a += b);
                (a8, af)
            },
        );
    let got = must("hist_u8_256", h8.download());
    checks.elements("hist_u8_256", 256, check::bitwise(&got, &want8));
    let got = must("hist_f32_256", hf.download());
    checks.elements("hist_f32_256", 256, check::bitwise(&got, &wantf));
    drop((du8, h8, hf, hb8));
    // Dot product and squared distance, in the forms timed. x * y of two multiples of 2^-23
    // rounds once (extra 1); x - y of two of them below 1 in magnitude is exact, its square
    // rounds once (extra 1).
    let read = |op: &str, r: warp_runtime::Result<DeviceScalar<f32>>| {
        must(op, r.and_then(|s| s.get())) as f64
    };
    let got = read("dot_f32", dev.map_reduce_on_device(mul, sum_f32, &pair));
    let want = pair_ref(xs, &ys, |a, b| a as i128 * b as i128);
    checks.sum("dot_f32", Sums::Fold(1), want, n, got);
    let got = read(
        "sq_dist_f32",
        dev.map_reduce_on_device(sq_diff, sum_f32, &pair),
    );
    let want = pair_ref(xs, &ys, |a, b| (a - b) as i128 * (a - b) as i128);
    checks.sum("sq_dist_f32", Sums::Fold(1), want, n, got);
    {
        // Over exact data: products of small integers (at most 64 in magnitude), every
        // partial sum an integer far below 2^24.
        let ey = ExactData::new(dev, n, 0xd07);
        let got = read(
            "dot_f32",
            dev.map_reduce_on_device(mul, sum_f32, &(&ex.dev, &ey.dev)),
        );
        let want = ex
            .host
            .par_iter()
            .zip(&ey.host)
            .map(|(&a, &b)| (a as f64 * b as f64, (a as f64 * b as f64).abs()))
            .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        checks.sum("dot_f32 (exact data)", Sums::Exact, want, n, got);
    }
    // allclose of the data and its copy (`Device::copy`, checked too).
    let x2 = must("copy", dx2.download());
    checks.elements("copy (Device::copy)", n, check::bitwise(&x2, xs));
    let all = xs
        .par_iter()
        .zip(&x2)
        .all(|(&x, &y)| x == y || (x - y).abs() <= 1e-8 + 1e-5 * y.abs());
    drop(x2);
    let got = must(
        "allclose_f32",
        dev.all_on_device(tol, &same).and_then(|s| s.get()),
    );
    checks.exact("allclose_f32", all, got);
    // Half sums: widening is exact; f16 values are multiples of 2^-24, bf16 ones of 2^-30, at
    // most 1 in magnitude: their sums are exact as integers (i64).
    let got = read(
        "sum_bf16",
        dev.map_reduce_on_device(widen_bf16, sum_f32, &db),
    );
    let want = fixed_sums(hb.par_iter().map(|h| h.to_f32()), 30);
    checks.sum("sum_bf16", Sums::Fold(0), want, n, got);
    let got = read("sum_f16", dev.map_reduce_on_device(widen_f16, sum_f32, &dh));
    let want = fixed_sums(hh.par_iter().map(|h| h.to_f32()), 24);
    checks.sum("sum_f16", Sums::Fold(0), want, n, got);
    drop((hb, hh));
    {
        // Over exact data: small integers as bf16 and f16.
        let seed = warp_tests::seed();
        let eb: Vec<bf16> = warp_tests::exact_vec(seed ^ 0xb16, n);
        let d = must("upload", dev.upload(&eb));
        let got = read(
            "sum_bf16",
            dev.map_reduce_on_device(widen_bf16, sum_f32, &d),
        );
        let want = fixed_sums(eb.par_iter().map(|h| h.to_f32()), 0);
        checks.sum("sum_bf16 (exact data)", Sums::Exact, want, n, got);
        drop((d, eb));
        let eh: Vec<f16> = warp_tests::exact_vec(seed ^ 0xf16, n);
        let d = must("upload", dev.upload(&eh));
        let got = read("sum_f16", dev.map_reduce_on_device(widen_f16, sum_f32, &d));
        let want = fixed_sums(eh.par_iter().map(|h| h.to_f32()), 0);
        checks.sum("sum_f16 (exact data)", Sums::Exact, want, n, got);
    }
    // Welford, against the exact mean and population variance (`moments_ref`). Bounds: the
    // issue's 1e-6 for the f32 states (relative for the variance, absolute for the mean of
    // values below 1 in magnitude; the f32 count within a relative 1e-6: exact up to 2^24 per
    // partial, a few roundings of at most 2^-24 relative above). The GPU's tree of merges
    // measured about 1e-7 for the variance at 2^28 (docs/benchmarks/2026-12-03-checked-suite.md: 4.1e-8); a left fold of single
    // elements (the CPU backend's) is worse, about 6e-6 at 2^20. The f64 state: the count
    // exact, the mean within 1e-12, the variance within a relative 1e-9 (its roundings are
    // 2^-53 relative, through at most FOLD_DEPTH merges).
    let (m, var) = moments_ref(xs);
    let (count, mean, m2) = must(
        "welford_f32",
        dev.reduce_on_device(welford32, &dx.map(welford32_one))
            .and_then(|s| s.get()),
    );
    let rel = (m2 as f64 / count as f64 - var).abs() / var;
    println!(
        "welford_f32 (f32 state): count {count}, mean {mean:.9} (exact {m:.9}), variance {:.12} (exact {var:.12}): relative error {rel:.2e}",
        m2 as f64 / count as f64
    );
    let f32_state = |checks: &mut Checks, op: &str, (count, mean, m2): (f32, f32, f32)| {
        checks.near(
            &format!("{op} count"),
            n as f64,
            count as f64,
            1e-6 * n as f64,
        );
        checks.near(&format!("{op} mean"), m, mean as f64, 1e-6);
        checks.near(
            &format!("{op} variance"),
            var,
            m2 as f64 / count as f64,
            1e-6 * var,
        );
    };
    f32_state(checks, "welford_f32", (count, mean, m2));
    let st = must(
        "welford_f32_struct",
        dev.reduce_on_device(moments, &dx.map(moments_one))
            .and_then(|s| s.get()),
    );
    println!(
        "welford_f32_struct: {st:?}: variance relative error {:.2e}",
        ((st.m2 / st.count) as f64 - var).abs() / var
    );
    f32_state(checks, "welford_f32_struct", (st.count, st.mean, st.m2));
    let (count, mean, m2) = must(
        "welford_f32_f64_state",
        dev.reduce_on_device(welford, &dx.map(welford_one))
            .and_then(|s| s.get()),
    );
    let rel64 = (m2 / count as f64 - var).abs() / var;
    println!(
        "welford_f32_f64_state: count {count}, mean {mean:.12}, variance {:.12}: relative error {rel64:.2e}",
        m2 / count as f64
    );
    checks.exact("welford_f32_f64_state count", n as u64, count as u64);
    checks.near("welford_f32_f64_state mean", m, mean, 1e-12);
    let v = m2 / count as f64;
    checks.near("welford_f32_f64_state variance", var, v, 1e-9 * var);
    drop((dy, dx2, db, dh));

    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let dir = peers::dir();
    let sizes = (n, reps);
    run_cuda_peer(
        dev,
        "values_peers",
        &["cublas"],
        sizes,
        &[],
        &mut peers,
        checks,
    );
    let out = peers::stdout(
        Command::new("python3")
            .arg(format!("{dir}/values_peers.py"))
            .args(["--n", &n.to_string(), "--reps", &reps.to_string()]),
    );
    parse_peers(&out, &mut peers, checks);
    println!(
        "
several arrays, f16/bf16, Welford: N = {n} elements per array, GB/s of every array read"
    );
    println!("| op | warp-dsl GB/s | cuBLAS | thrust | CUB | PyTorch | target | ratio |");
    println!("|---|---|---|---|---|---|---|---|");
    for (op, o) in &ours {
        let get = |lib: &str| peers.get(&(lib.to_string(), op.to_string())).copied();
        let cell = |v: Option<f64>| v.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        let (target, base) = match *op {
            "dot_f32" => ("1.0x cuBLAS", get("cublas")),
            "sq_dist_f32" => ("2.5x PyTorch", get("torch")),
            "allclose_f32" => ("8x PyTorch", get("torch")),
            "sum_bf16" | "sum_f16" => ("1.1x CUB", get("cub")),
            "partition3_f32" => ("1.2x CUB", get("cub")),
            "hist_u8_256" => ("1.5x CUB", get("cub")),
            "hist_f32_256" => ("1.0x CUB", get("cub")),
            _ => ("0.95x own sum_f32", Some(sum_f32_gbps)),
        };
        println!(
            "| {op} | {o:.0} | {} | {} | {} | {} | {target} | {} |",
            cell(get("cublas")),
            cell(get("thrust")),
            cell(get("cub")),
            cell(get("torch")),
            base.map(|b| format!("{:.3}x", o / b))
                .unwrap_or_else(|| "-".into())
        );
    }
}

/// The runs bench's keys (as benches/peers/runs_peers.cu makes them from the same seed): runs
/// of lengths `1 + next() % (2 * mean - 1)` (mean `mean`), each run's key the one before plus
/// `1 + next() % 999`, `next` the xorshift64 of `seed`.
fn run_data(n: usize, mean: u64, seed: u64) -> Vec<i32> {
    let mut next = xorshift(seed);
    let mut keys = Vec::with_capacity(n);
    let mut key = 0u32;
    while keys.len() < n {
        let len = if mean <= 1 {
            1
        } else {
            1 + next() % (2 * mean - 1)
        };
        let take = (len as usize).min(n - keys.len());
        keys.extend(std::iter::repeat_n(key as i32, take));
        key = key.wrapping_add((1 + next() % 999) as u32);
    }
    keys
}

/// Run-length encode, unique and reduce-by-key (f32 sums) of i32 keys in runs of mean length 4
/// and 64 (random lengths, uniform in [1, 2L-1]), with CUB (`DeviceRunLengthEncode::Encode`,
/// `DeviceSelect::Unique`, `DeviceReduce::ReduceByKey`, runs_peers.cu, over the same keys) and
/// PyTorch (`unique_consecutive`, runs_peers.py, same distribution) in the same run. GB/s count
/// the bytes read: the keys, and the values for reduce-by-key.
fn runs_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    use warp_runtime::Equal;
    let seed = 0x5eed_0000 ^ std::process::id() as u64;
    let vals: Vec<f32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as f32)
        .collect();
    let dv = dev.upload(&vals).unwrap();
    let mut ours: Vec<(String, f64)> = Vec::new();
    for mean in [4u64, 64] {
        let keys = run_data(n, mean, seed + mean);
        // Plain Rust's runs: keys, lengths and value sums (small integers: exact).
        let want = check::runs(&keys, &vals);
        let dk = dev.upload(&keys).unwrap();
        drop(keys);
        // The first `count` elements of an output, read back.
        fn head<T: warp_runtime::Element>(op: &str, v: &DeviceVec<T>, count: u64) -> Vec<T> {
            let count = (count as usize).min(v.len());
            must(op, v.slice(..count).and_then(|s| s.download()))
        }
        let mut ok = dev.upload(&vec![0i32; n]).unwrap();
        let mut oc = dev.upload(&vec![0u32; n]).unwrap();
        let mut ov = dev.upload(&vec![0f32; n]).unwrap();
        let key_bytes = (4 * n) as f64;
        let ms = time_ms(dev, reps, || {
            dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc)
                .map(drop)
        });
        ours.push((format!("rle_i32_runs{mean}"), gbps(ms, key_bytes)));
        let op = format!("rle_i32_runs{mean}");
        let runs = dev.run_length_encode_into(Equal, &dk, &mut ok, &mut oc);
        let runs = must(&op, runs.and_then(|r| r.get()));
        checks.exact(&format!("{op} runs"), want.keys.len() as u64, runs);
        let fail = check::bitwise(&head(&op, &ok, runs), &want.keys);
        checks.elements(&format!("{op} keys"), want.keys.len(), fail);
        let fail = check::bitwise(&head(&op, &oc, runs), &want.counts);
        checks.elements(&format!("{op} counts"), want.counts.len(), fail);
        let ms = time_ms(dev, reps, || dev.unique_into(Equal, &dk, &mut ok).map(drop));
        ours.push((format!("unique_i32_runs{mean}"), gbps(ms, key_bytes)));
        let op = format!("unique_i32_runs{mean}");
        let runs = must(
            &op,
            dev.unique_into(Equal, &dk, &mut ok).and_then(|r| r.get()),
        );
        checks.exact(&format!("{op} count"), want.keys.len() as u64, runs);
        let fail = check::bitwise(&head(&op, &ok, runs), &want.keys);
        checks.elements(&format!("{op} keys"), want.keys.len(), fail);
        let ms = time_ms(dev, reps, || {
            dev.reduce_by_key_into(Equal, sum_f32, &dk, &dv, &mut ok, &mut ov)
                .map(drop)
        });
        ours.push((format!("rbk_i32_f32_runs{mean}"), gbps(ms, 2.0 * key_bytes)));
        let op = format!("rbk_i32_f32_runs{mean}");
        let runs = dev.reduce_by_key_into(Equal, sum_f32, &dk, &dv, &mut ok, &mut ov);
        let runs = must(&op, runs.and_then(|r| r.get()));
        checks.exact(&format!("{op} runs"), want.keys.len() as u64, runs);
        let fail = check::bitwise(&head(&op, &ok, runs), &want.keys);
        checks.elements(&format!("{op} keys"), want.keys.len(), fail);
        let fail = check::bitwise(&head(&op, &ov, runs), &want.sums);
        checks.elements(&format!("{op} values (exact sums)"), want.sums.len(), fail);
    }
    drop(dv);

    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let dir = peers::dir();
    let seed_arg = seed.to_string();
    run_cuda_peer(
        dev,
        "runs_peers",
        &[],
        (n, reps),
        &["--seed", &seed_arg],
        &mut peers,
        checks,
    );
    let out = peers::stdout(
        Command::new("python3")
            .arg(format!("{dir}/runs_peers.py"))
            .args(["--n", &n.to_string(), "--reps", &reps.to_string()]),
    );
    parse_peers(&out, &mut peers, checks);
    println!(
        "
runs: N = {n} i32 keys in runs of random length (mean 4 / 64), GB/s of the bytes read (keys; keys and f32 values for reduce-by-key)"
    );
    println!("| op | warp-dsl GB/s | CUB | PyTorch | target | ratio |");
    println!("|---|---|---|---|---|---|");
    for (op, o) in &ours {
        let get = |lib: &str| peers.get(&(lib.to_string(), op.clone())).copied();
        let cell = |v: Option<f64>| v.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        println!(
            "| {op} | {o:.0} | {} | {} | 1.2x CUB | {} |",
            cell(get("cub")),
            cell(get("torch")),
            get("cub")
                .map(|b| format!("{:.3}x", o / b))
                .unwrap_or_else(|| "-".into())
        );
    }
}

/// Median milliseconds of a peer op from its GB/s and the bytes it counts (bytes 0: an op that
/// reads nothing, its printed time).
fn peer_ms(
    peers: &BTreeMap<(String, String), f64>,
    lib: &str,
    op: &str,
    bytes: f64,
) -> Option<f64> {
    if bytes == 0.0 {
        // An op that reads nothing: its time as the peer printed it.
        return peers.get(&(lib.to_string(), format!("{op} ms"))).copied();
    }
    peers
        .get(&(lib.to_string(), op.to_string()))
        .map(|g| bytes / (g * 1e9) * 1e3)
}

/// The one-pass scans alone, with CUB's in the same run (section `scan`): the f32 sum by exact
/// tile sums, the same sum by the fixed tree, the i32 sum by look-back; GB/s read + written.
fn scans_alone(
    dev: &Device,
    (dx, dy): (&DeviceVec<f32>, &DeviceVec<i32>),
    reps: usize,
    copy_ms: f64,
    checks: &mut Checks,
) {
    let n = dx.len();
    let bytes = 2.0 * (4 * n) as f64;
    let exact = gbps(
        time_ms(dev, reps, || dev.scan(sum_f32, dx).map(drop)),
        bytes,
    );
    let tree = gbps(
        time_ms(dev, reps, || dev.scan(sum_f32_tree, dx).map(drop)),
        bytes,
    );
    let int = gbps(
        time_ms(dev, reps, || dev.scan(sum_i32, dy).map(drop)),
        bytes,
    );
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let ops = ["--ops", "copy,scan_f32,scan_i32"];
    run_cuda_peer(dev, "cub_peers", &[], (n, reps), &ops, &mut peers, checks);
    let cub = |op: &str| {
        peers
            .get(&("cub".into(), op.into()))
            .copied()
            .unwrap_or(f64::NAN)
    };
    println!(
        "scans alone (2 x {n} x 4 bytes; copy {:.0} GB/s, CUB's {:.0}): scan_f32 exact tile sums {exact:.0} GB/s ({:.3}x CUB InclusiveSum {:.0}); scan_f32 fixed tree {tree:.0} ({:.3}x); scan_i32 {int:.0} ({:.3}x CUB {:.0})",
        gbps(copy_ms, bytes),
        cub("copy"),
        exact / cub("scan_f32"),
        cub("scan_f32"),
        tree / cub("scan_f32"),
        int / cub("scan_i32"),
        cub("scan_i32"),
    );
}

/// Builds the CUDA peer program `name` (linking `libs`), runs it for `n` elements and `reps`
/// timed runs with `args` besides and adds the figures it reports to `peers` (nothing, with a
/// line saying why, without nvcc).
fn run_cuda_peer(
    dev: &Device,
    name: &str,
    libs: &[&str],
    (n, reps): (usize, usize),
    args: &[&str],
    peers: &mut BTreeMap<(String, String), f64>,
    checks: &mut Checks,
) {
    if let Some(bin) = peers::build_cuda(name, dev.arch().unwrap_or(90), libs) {
        let sizes = [
            "--n".to_string(),
            n.to_string(),
            "--reps".into(),
            reps.to_string(),
        ];
        parse_peers(
            &peers::stdout(Command::new(&bin).args(sizes).args(args)),
            peers,
            checks,
        );
    }
}

/// Reads a peer's `PEER <lib> <op> <ms> <GB/s>` lines into `out`; prints its `CHECK` and `SKIP`
/// lines, and records a `CHECK <lib> <op> FAIL ...` as a failed check (a peer figure of a wrong
/// result is no comparison).
fn parse_peers(text: &str, out: &mut BTreeMap<(String, String), f64>, checks: &mut Checks) {
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 5 && f[0] == "PEER" {
            if let Ok(g) = f[4].parse::<f64>() {
                out.insert((f[1].to_string(), f[2].to_string()), g);
            }
            // The time itself, for the ops that read nothing (GB/s 0: generated ranges).
            if let Ok(ms) = f[3].parse::<f64>() {
                out.insert((f[1].to_string(), format!("{} ms", f[2])), ms);
            }
        } else if f.first().is_some_and(|w| *w == "CHECK" || *w == "SKIP") {
            println!("peer: {line}");
            if f[0] == "CHECK" && f.get(3) == Some(&"FAIL") {
                checks.fail(
                    &format!("peer {} {}", f[1], f.get(2).unwrap_or(&"?")),
                    f[4..].join(" "),
                );
            }
        }
    }
}

/// Top-k: `top_k` of the N f32 for k = 100 and 1,000, and `top_k_rows` of the first rows x
/// cols of them (4096 x 32768 and 256 x 32768, k = 50 and 1,000; 64 x 128256, k = 50) against
/// `torch.topk` (`dim=1` for the rows) in the same run (values_peers.py), checked against plain Rust (`check::top_k`: indices and values'
/// bits). Time in microseconds; the ratio is torch's time over ours (target: 10x, i.e. about
/// one read of the input).
fn topk(dev: &Device, (xs, dx): (&[f32], &DeviceVec<f32>), reps: usize, checks: &mut Checks) {
    let n = xs.len();
    let bytes = (4 * n) as f64;
    let mut ours: Vec<(String, f64)> = Vec::new();
    for k in [100usize, 1000] {
        let ms = time_ms(dev, reps, || dev.top_k(dx, k).map(drop));
        let op = format!("topk_f32_{k}");
        let TopK { values, indices } = must(&op, dev.top_k(dx, k));
        let want = check::top_k(xs, k);
        let (want_v, want_i): (Vec<f32>, Vec<u64>) = want.into_iter().unzip();
        let got = must(&op, indices.download());
        checks.elements(&format!("{op} indices"), k, check::bitwise(&got, &want_i));
        let got = must(&op, values.download());
        checks.elements(&format!("{op} values"), k, check::bitwise(&got, &want_v));
        ours.push((op, ms));
    }
    // The top-k of each row of the first rows x cols of the N f32 (batched sampling).
    let mut row_ops: Vec<(String, f64, f64)> = Vec::new(); // (op, bytes, ms)
    for (rows, cols, k) in [
        (4096usize, 32768usize, 50usize),
        (64, 128_256, 50),
        (256, 32768, 1000),
    ] {
        if rows * cols > n {
            continue;
        }
        let op = format!("topk_rows_{rows}x{cols}_k{k}");
        let x = must(&op, dx.slice(..rows * cols));
        let ms = time_ms(dev, reps, || dev.top_k_rows(&x, cols, k).map(drop));
        let got = must(&op, dev.top_k_rows(&x, cols, k));
        let (want_v, want_c): (Vec<f32>, Vec<u32>) = xs[..rows * cols]
            .par_chunks(cols)
            .flat_map_iter(|row| check::top_k(row, k).into_iter().map(|(v, c)| (v, c as u32)))
            .unzip();
        let (gv, gc) = (
            must(&op, got.values.download()),
            must(&op, got.columns.download()),
        );
        checks.elements(
            &format!("{op} columns"),
            rows * k,
            check::bitwise(&gc, &want_c),
        );
        checks.elements(
            &format!("{op} values"),
            rows * k,
            check::bitwise(&gv, &want_v),
        );
        row_ops.push((op, (4 * rows * cols) as f64, ms));
    }
    // Along the middle axis of the first b x m x d of them (torch.topk(dim=1)).
    for ([b, m, d], k) in [([64usize, 4096usize, 256usize], 50usize)] {
        let len = b * m * d;
        if len > n {
            continue;
        }
        let op = format!("topk_axis_{b}x{m}x{d}_dim1_k{k}");
        let x = must(&op, dx.slice(..len));
        let shape = [b, m, d];
        let ms = time_ms(dev, reps, || dev.top_k_axis(&x, &shape, 1, k).map(drop));
        let got = must(&op, dev.top_k_axis(&x, &shape, 1, k));
        let (gv, gc) = (
            must(&op, got.values.download()),
            must(&op, got.columns.download()),
        );
        // Line (o, i) of the axis: its entry j at (o * k + j) * d + i.
        let lines: Vec<Vec<(f32, u64)>> = (0..b * d)
            .into_par_iter()
            .map(|l| {
                let (o, i) = (l / d, l % d);
                let line: Vec<f32> = (0..m).map(|j| xs[(o * m + j) * d + i]).collect();
                check::top_k(&line, k)
            })
            .collect();
        let (mut want_v, mut want_c) = (vec![0f32; b * k * d], vec![0u32; b * k * d]);
        for (l, best) in lines.iter().enumerate() {
            let (o, i) = (l / d, l % d);
            for (j, &(v, c)) in best.iter().enumerate() {
                want_v[(o * k + j) * d + i] = v;
                want_c[(o * k + j) * d + i] = c as u32;
            }
        }
        checks.elements(
            &format!("{op} columns"),
            b * k * d,
            check::bitwise(&gc, &want_c),
        );
        checks.elements(
            &format!("{op} values"),
            b * k * d,
            check::bitwise(&gv, &want_v),
        );
        row_ops.push((op, (4 * len) as f64, ms));
    }
    let only: Vec<String> = ["topk_f32_100".to_string(), "topk_f32_1000".to_string()]
        .into_iter()
        .chain(row_ops.iter().map(|r| r.0.clone()))
        .collect();
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let out = peers::stdout(
        Command::new("python3")
            .arg(format!("{}/values_peers.py", peers::dir()))
            .args(["--n", &n.to_string(), "--reps", &reps.to_string()])
            .args(["--only", &only.join(",")]),
    );
    parse_peers(&out, &mut peers, checks);
    println!("\ntop-k: N = {n} f32 (1 GiB at 2^28), largest k, sorted, with indices");
    println!("| op | warp-dsl us | GB/s | torch.topk us | target | ratio |");
    println!("|---|---|---|---|---|---|");
    for (op, ms) in &ours {
        let torch = peer_ms(&peers, "torch", op, bytes);
        println!(
            "| {op} | {:.1} | {:.0} | {} | 10x PyTorch | {} |",
            ms * 1e3,
            bytes / (ms * 1e-3) / 1e9,
            torch.map_or("-".into(), |t| format!("{:.1}", t * 1e3)),
            torch.map_or("-".into(), |t| format!("{:.2}x", t / ms))
        );
    }
    println!(
        "\ntop-k of each row and along the middle axis (values and columns, largest first), f32 in [-1, 1)"
    );
    println!("| op | warp-dsl us | GB/s | torch.topk(dim=1) us | target | ratio |");
    println!("|---|---|---|---|---|---|");
    for (op, bytes, ms) in &row_ops {
        let torch = peer_ms(&peers, "torch", op, *bytes);
        let target = if op.starts_with("topk_axis") {
            "-"
        } else {
            "3x PyTorch"
        };
        println!(
            "| {op} | {:.1} | {:.0} | {} | {target} | {} |",
            ms * 1e3,
            bytes / (ms * 1e-3) / 1e9,
            torch.map_or("-".into(), |t| format!("{:.1}", t * 1e3)),
            torch.map_or("-".into(), |t| format!("{:.2}x", t / ms))
        );
    }
}

/// Sorting (section `sort`): the radix sort of N `u32` and `f32` keys (ascending and
/// descending), N / 2 `u64` keys, argsort of N `f32` into `u32`, pairs of N `u32` keys and
/// `u32` values, the rows' sort of N `f32` in rows of 32, 256 and 4,096, and the group-by sum
/// of N unsorted `i32` keys (2^20 groups), against CUB's `DeviceRadixSort`,
/// `DeviceSegmentedSort` and `SortPairs` + `ReduceByKey`, `torch.sort` (`dim=1` for rows),
/// `unique` + `index_add_`, and `cupy.sort` / `argsort` in the same run (cub_peers / peers.py
/// `--ops sort`). GB/s count each key (and value) read
/// once and written once, as the peers count them. Every result is checked against a sort on
/// the host (`slice::sort_by` with `total_cmp`: the same bits).
fn sort_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    use warp_tests::sorted_positions;
    let order = SortOrder::Ascending;
    let mut ours: Vec<(&str, usize, f64, f64)> = Vec::new(); // (op, n, bytes, ms)
    // Keys alone: u32, f32 ascending and descending, u64 at half the count.
    let u32s: Vec<u32> = warp_tests::random_vec_par(1, n, false);
    let f32s: Vec<f32> = warp_tests::random_vec_par(2, n, false);
    let (du, df) = (
        must("sort", dev.upload(&u32s)),
        must("sort", dev.upload(&f32s)),
    );
    {
        let mut out = must("sort", dev.upload(&vec![0u32; n]));
        let ms = time_ms(dev, reps, || dev.sort_into(&du, &mut out, order));
        let mut want = u32s.clone();
        want.par_sort_unstable();
        checks.elements(
            "sort_u32",
            n,
            check::bitwise(&must("sort_u32", out.download()), &want),
        );
        ours.push(("sort_u32", n, (8 * n) as f64, ms));
        println!("sort_u32: {ms:.3} ms");
        drop(out);
        let mut out = must("sort", dev.upload(&vec![0f32; n]));
        for (op, ord) in [
            ("sort_f32", order),
            ("sort_desc_f32", SortOrder::Descending),
        ] {
            let ms = time_ms(dev, reps, || dev.sort_into(&df, &mut out, ord));
            let mut want = f32s.clone();
            want.par_sort_unstable_by(f32::total_cmp);
            if ord == SortOrder::Descending {
                want.reverse();
            }
            checks.elements(op, n, check::bitwise(&must(op, out.download()), &want));
            ours.push((op, n, (8 * n) as f64, ms));
            println!("{op}: {ms:.3} ms");
        }
        // argsort of the f32 keys into u32 positions (stable: checked index for index).
        let mut idx = must("argsort", dev.upload(&vec![0u32; n]));
        let ms = time_ms(dev, reps, || dev.argsort_into(&df, &mut idx, order));
        let want: Vec<u32> = sorted_positions(&f32s, false)
            .into_iter()
            .map(|i| i as u32)
            .collect();
        checks.elements(
            "argsort_f32",
            n,
            check::bitwise(&must("argsort_f32", idx.download()), &want),
        );
        ours.push(("argsort_f32", n, (16 * n) as f64, ms));
        println!("argsort_f32: {ms:.3} ms");
        // pairs: u32 keys, u32 values (0..n, as CUB's peer).
        let vals: Vec<u32> = (0..n as u32).collect();
        let dv = must("pairs", dev.upload(&vals));
        let mut ko = must("pairs", dev.upload(&vec![0u32; n]));
        let ms = time_ms(dev, reps, || {
            dev.sort_pairs_into(&du, &dv, &mut ko, &mut idx, order)
        });
        let want: Vec<u32> = sorted_positions(&u32s, false)
            .into_iter()
            .map(|i| i as u32)
            .collect();
        checks.elements(
            "pairs_u32",
            n,
            check::bitwise(&must("pairs_u32", idx.download()), &want),
        );
        ours.push(("pairs_u32", n, (16 * n) as f64, ms));
        println!("pairs_u32: {ms:.3} ms");
    }
    drop((du, df, u32s, f32s));
    let n64 = n / 2;
    let u64s: Vec<u64> = warp_tests::random_vec_par(3, n64, false);
    let d64 = must("sort_u64", dev.upload(&u64s));
    let mut out = must("sort_u64", dev.upload(&vec![0u64; n64]));
    let ms = time_ms(dev, reps, || dev.sort_into(&d64, &mut out, order));
    let mut want = u64s.clone();
    want.par_sort_unstable();
    checks.elements(
        "sort_u64",
        n64,
        check::bitwise(&must("sort_u64", out.download()), &want),
    );
    ours.push(("sort_u64", n64, (16 * n64) as f64, ms));
    println!("sort_u64: {ms:.3} ms");
    drop((d64, out, u64s, want));

    ours.extend(sort_rows_bench(dev, n, reps, checks));

    ours.push(group_sum_bench(dev, n, reps, checks));

    // Peers, same run: the 4-byte sorts at N, the u64 sort at N / 2.
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let four = "sort_u32,sort_f32,sort_desc_f32,argsort_f32,pairs_u32,\
                sort_rows_f32_32,sort_rows_f32_256,sort_rows_f32_4096,sort_segments_f32,\
                group_sum_i32";
    for (count, ops) in [(n, four), (n64, "sort_u64")] {
        run_peer_ops(dev, (count, reps), ops, "torch,cupy", &mut peers, checks);
    }
    print_peer_table(
        &format!(
            "sorting: keys uniform over their bits (f32 in [-1, 1)); ms, median of {reps}; GB/s count every key (and value) read once and written once"
        ),
        &ours,
        &peers,
    );
    sort_by_bench(dev, n, reps, checks);
}

/// The rows' and the segments' sorts of N `f32` keys (section `sort`, and alone with their
/// peers as section `rows`): rows of 32, 256 and 4096 keys and CSR segments of 1 to 400 keys,
/// each row or segment checked against `sort_unstable_by(total_cmp)` on the host. Returns the
/// rows of the table (op, keys, bytes, ms).
fn sort_rows_bench(
    dev: &Device,
    n: usize,
    reps: usize,
    checks: &mut Checks,
) -> Vec<(&'static str, usize, f64, f64)> {
    // Rows of 32, 256 and 4096 f32 keys (N in all), each row sorted on its own.
    let order = SortOrder::Ascending;
    let mut ours: Vec<(&'static str, usize, f64, f64)> = Vec::new(); // (op, n, bytes, ms)
    let f32s: Vec<f32> = warp_tests::random_vec_par(4, n, false);
    let df = must("sort_rows", dev.upload(&f32s));
    for cols in [32usize, 256, 4096] {
        let op: &'static str = match cols {
            32 => "sort_rows_f32_32",
            256 => "sort_rows_f32_256",
            _ => "sort_rows_f32_4096",
        };
        let m = n / cols * cols;
        let keys = must(op, df.slice(..m));
        let mut out = must(op, dev.upload(&f32s[..m]));
        let ms = time_ms(dev, reps, || {
            dev.sort_rows_into(&keys, cols, &mut out, order)
        });
        let mut want = f32s[..m].to_vec();
        want.par_chunks_mut(cols)
            .for_each(|row| row.sort_unstable_by(f32::total_cmp));
        checks.elements(op, m, check::bitwise(&must(op, out.download()), &want));
        ours.push((op, m, (8 * m) as f64, ms));
        println!("{op}: {ms:.3} ms");
    }
    // CSR segments of random lengths: segment i has 1 + mix(i) % 400 keys (the last cut at
    // N), as cub_peers cuts them.
    {
        let op = "sort_segments_f32";
        let mut offsets = vec![0u64];
        let mut at = 0u64;
        for i in 0u64.. {
            if at >= n as u64 {
                break;
            }
            at = (n as u64).min(at + 1 + warp_tests::splitmix64(i) % 400);
            offsets.push(at);
        }
        let d_off = must(op, dev.upload(&offsets));
        let mut out = must(op, dev.upload(&f32s));
        let ms = time_ms(dev, reps, || {
            dev.sort_segments_into(&df, &d_off, &mut out, order)
        });
        let mut want = f32s.clone();
        let mut parts = Vec::with_capacity(offsets.len());
        let mut rest = &mut want[..];
        for w in offsets.windows(2) {
            let (a, b) = rest.split_at_mut((w[1] - w[0]) as usize);
            parts.push(a);
            rest = b;
        }
        parts
            .into_par_iter()
            .for_each(|s| s.sort_unstable_by(f32::total_cmp));
        checks.elements(op, n, check::bitwise(&must(op, out.download()), &want));
        ours.push((op, n, (8 * n) as f64, ms));
        println!("{op}: {ms:.3} ms ({} segments)", offsets.len() - 1);
    }
    drop((df, f32s));
    ours
}

/// The `rows` section: [`sort_rows_bench`] with CUB's `DeviceSegmentedSort`, PyTorch and CuPy
/// in the same run.
fn rows_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    let ours = sort_rows_bench(dev, n, reps, checks);
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let ops = "sort_rows_f32_32,sort_rows_f32_256,sort_rows_f32_4096,sort_segments_f32";
    run_peer_ops(dev, (n, reps), ops, "torch,cupy", &mut peers, checks);
    print_peer_table(
        &format!(
            "rows' sorts: ms, median of {reps}; GB/s count every key read once and written once"
        ),
        &ours,
        &peers,
    );
}

/// The group-by sum of N unsorted `i32` keys in [0, 2^20) with `i32` values (section `sort`,
/// and alone with its peers as section `group`), checked against a map on the host.
fn group_sum_bench(
    dev: &Device,
    n: usize,
    reps: usize,
    checks: &mut Checks,
) -> (&'static str, usize, f64, f64) {
    // The sum per distinct key of N unsorted i32 keys in [0, 2^20) with i32 values in
    // [-100, 100] (on a GPU by the table of the keys' slots: the keys' range, one atomic add a
    // pair, the groups written in key order; it waits for the range and the group count).
    {
        let op = "group_sum_i32";
        let keys: Vec<i32> = warp_tests::random_vec_par::<u32>(5, n, false)
            .into_par_iter()
            .map(|k| (k & 0xF_FFFF) as i32)
            .collect();
        let vals: Vec<i32> = warp_tests::random_vec_par::<u32>(6, n, false)
            .into_par_iter()
            .map(|v| (v % 201) as i32 - 100)
            .collect();
        let (dk, dv) = (must(op, dev.upload(&keys)), must(op, dev.upload(&vals)));
        let ms = time_ms(dev, reps, || dev.group_reduce(sum_i32, &dk, &dv).map(drop));
        let got = must(op, dev.group_reduce(sum_i32, &dk, &dv));
        let mut sums = vec![0i64; 1 << 20];
        let mut seen = vec![false; 1 << 20];
        for (&k, &v) in keys.iter().zip(&vals) {
            sums[k as usize] += i64::from(v);
            seen[k as usize] = true;
        }
        let want_keys: Vec<i32> = (0..1i32 << 20).filter(|&k| seen[k as usize]).collect();
        let want_sums: Vec<i32> = want_keys.iter().map(|&k| sums[k as usize] as i32).collect();
        let groups = want_keys.len();
        checks.elements(
            "group_sum_i32 keys",
            groups,
            check::bitwise(&must(op, got.keys.download()), &want_keys),
        );
        checks.elements(
            "group_sum_i32 sums",
            groups,
            check::bitwise(&must(op, got.values.download()), &want_sums),
        );
        println!("{op}: {ms:.3} ms ({groups} groups)");
        (op, n, (8 * n) as f64, ms)
    }
}

/// Section `group`: [`group_sum_bench`] and its peers (CUB `SortPairs` + `ReduceByKey`, torch
/// `unique` + `index_add_`) in the same run.
fn group_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    let ours = vec![group_sum_bench(dev, n, reps, checks)];
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    run_peer_ops(dev, (n, reps), "group_sum_i32", "torch", &mut peers, checks);
    print_peer_table(
        &format!("group-by: ms, median of {reps}; GB/s count every key and value read once"),
        &ours,
        &peers,
    );
}

/// The `sort_by_bench` section (also run by `sort`): sorts by a comparator (merge sorts) of
/// N / 4 `f32` by magnitude and N / 8 points by radius, against CUB's `DeviceMergeSort` in the
/// same run, each checked against `par_sort_by` on the host.
fn sort_by_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    let mut ours: Vec<(&str, usize, f64, f64)> = Vec::new(); // (op, n, bytes, ms)
    // A sort by a comparator: N / 4 f32 keys by magnitude (a merge sort).
    let n_by = n / 4;
    {
        let op = "sort_by_abs_f32";
        let xs: Vec<f32> = warp_tests::random_vec_par(7, n_by, false);
        let d = must(op, dev.upload(&xs));
        let mut out = must(op, dev.upload(&xs));
        let ms = time_ms(dev, reps, || {
            dev.sort_by_into(warp_tests::ops::nearer_zero, &d, &mut out)
        });
        let mut want = xs.clone();
        want.par_sort_by(|a, b| a.abs().total_cmp(&b.abs()));
        checks.elements(op, n_by, check::bitwise(&must(op, out.download()), &want));
        ours.push((op, n_by, (8 * n_by) as f64, ms));
        println!("{op}: {ms:.3} ms");
    }

    // A sort of whole structs by a comparator: N / 8 points by their distance from the origin.
    let n_pts = n / 8;
    {
        use warp_tests::ops::{Point, nearer_origin};
        let op = "sort_by_radius_point";
        let coords: Vec<f32> = warp_tests::random_vec_par(8, 2 * n_pts, false);
        let pts: Vec<Point> = coords
            .chunks_exact(2)
            .map(|c| Point { x: c[0], y: c[1] })
            .collect();
        let d = must(op, dev.upload_values(&pts));
        let mut out = must(op, dev.upload_values(&pts));
        let ms = time_ms(dev, reps, || dev.sort_by_into(nearer_origin, &d, &mut out));
        let radius = |p: &Point| p.x * p.x + p.y * p.y;
        let mut want = pts.clone();
        want.par_sort_by(|a, b| radius(a).total_cmp(&radius(b)));
        let got = must(op, out.download());
        let failure = check::lengths(got.len(), want.len()).or_else(|| {
            check::failures(got.len(), |i| {
                (got[i] != want[i]).then(|| format!("expected {:?}, got {:?}", want[i], got[i]))
            })
        });
        checks.elements(op, n_pts, failure);
        ours.push((op, n_pts, (16 * n_pts) as f64, ms));
        println!("{op}: {ms:.3} ms");
    }

    // Peers, same run: the sort by a comparator at N / 4, the sort of points at N / 8.
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    for (count, ops) in [(n_by, "sort_by_abs_f32"), (n_pts, "sort_by_radius_point")] {
        run_peer_ops(dev, (count, reps), ops, "torch,cupy", &mut peers, checks);
    }
    print_peer_table(
        &format!(
            "sorting by a comparator (merge sorts): f32 in [-1, 1); ms, median of {reps}; GB/s count every key read once and written once"
        ),
        &ours,
        &peers,
    );
}

/// The peers of `ops` (comma-separated) at `count` elements in the same run: CUB (and thrust)
/// from `cub_peers`, then the Python `libs` (`torch`, `cupy`) from `peers.py`, into `peers`.
fn run_peer_ops(
    dev: &Device,
    (count, reps): (usize, usize),
    ops: &str,
    libs: &str,
    peers: &mut BTreeMap<(String, String), f64>,
    checks: &mut Checks,
) {
    run_cuda_peer(
        dev,
        "cub_peers",
        &[],
        (count, reps),
        &["--ops", ops],
        peers,
        checks,
    );
    let out = peers::stdout(
        Command::new("python3")
            .arg(format!("{}/peers.py", peers::dir()))
            .args(["--n", &count.to_string(), "--reps", &reps.to_string()])
            .args(["--ops", ops, "--libs", libs]),
    );
    parse_peers(&out, peers, checks);
}

/// The table of a section's results (`ours`: op, n, bytes, ms) against the peers measured in
/// the same run.
fn print_peer_table(
    title: &str,
    ours: &[(&'static str, usize, f64, f64)],
    peers: &BTreeMap<(String, String), f64>,
) {
    println!("\n{title}");
    println!(
        "| op | n | warp-dsl ms | GB/s | CUB ms | torch ms | CuPy ms | vs CUB | vs best peer |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for &(op, count, bytes, ms) in ours {
        let at = |lib: &str| peer_ms(peers, lib, op, bytes);
        let (cub, torch, cupy) = (at("cub"), at("torch"), at("cupy"));
        let best = [cub, torch, cupy]
            .into_iter()
            .flatten()
            .fold(f64::INFINITY, f64::min);
        let show = |t: Option<f64>| t.map_or("-".into(), |t| format!("{t:.3}"));
        println!(
            "| {op} | {count} | {ms:.3} | {:.0} | {} | {} | {} | {} | {} |",
            gbps(ms, bytes),
            show(cub),
            show(torch),
            show(cupy),
            cub.map_or("-".into(), |c| format!("{:.3}x", c / ms)),
            if best.is_finite() {
                format!("{:.3}x", best / ms)
            } else {
                "-".into()
            },
        );
    }
}

/// Binary search: N / 16 f32 queries (random, then sorted) in N sorted f32 keys, against
/// thrust's `lower_bound` and `torch.searchsorted` in the same run.
fn search_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    let mut ours: Vec<(&'static str, usize, f64, f64)> = Vec::new();
    {
        let xs: Vec<f32> = warp_tests::random_vec_par(8, n, false);
        let keys = must("lower_bound_f32", dev.upload(&xs));
        let sorted = must("lower_bound_f32", dev.sort(&keys, SortOrder::Ascending));
        drop(keys);
        let mut host_sorted = xs;
        host_sorted.par_sort_unstable_by(f32::total_cmp);
        let m = n / 16;
        let mut qs: Vec<f32> = warp_tests::random_vec_par(9, m, false);
        for op in ["lower_bound_f32", "lower_bound_sorted_f32"] {
            if op == "lower_bound_sorted_f32" {
                qs.par_sort_unstable_by(f32::total_cmp);
            }
            let q = must(op, dev.upload(&qs));
            let mut out = must(op, dev.upload(&vec![0u32; m]));
            let ms = time_ms(dev, reps, || {
                dev.lower_bound_into(&sorted, &q, &mut out, SortOrder::Ascending)
            });
            let want: Vec<u32> = qs
                .par_iter()
                .map(|&x| host_sorted.partition_point(|k| k.total_cmp(&x).is_lt()) as u32)
                .collect();
            checks.elements(op, m, check::bitwise(&must(op, out.download()), &want));
            ours.push((op, n, (8 * m) as f64, ms));
            println!("{op}: {ms:.3} ms ({m} queries)");
        }
    }

    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    let ops = "lower_bound_f32,lower_bound_sorted_f32";
    run_peer_ops(dev, (n, reps), ops, "torch", &mut peers, checks);
    print_peer_table(
        &format!(
            "binary search: {} f32 queries in {n} sorted f32 keys; ms, median of {reps}; GB/s count each query read and each answer written once; thrust::lower_bound is in the CUB column",
            n / 16
        ),
        &ours,
        &peers,
    );
}

/// `argwhere` against CUB (`DeviceSelect::If` over a counting iterator) and PyTorch
/// (`nonzero`), each on its own uniform data in [-1, 1), the positions of `x > 0.8` (10%); the
/// weighted histogram of 256 bins of i32 keys with f32 weights against PyTorch's
/// `bincount(weights)` (CUB has none).
fn inputs_bench(dev: &Device, n: usize, reps: usize, checks: &mut Checks) {
    let mut ours: Vec<(&'static str, usize, f64, f64)> = Vec::new();
    {
        let op = "argwhere_f32";
        let xs: Vec<f32> = warp_tests::random_vec_par(10, n, false);
        let dx = must(op, dev.upload(&xs));
        let mut out = must(op, dev.upload(&vec![0u32; n]));
        let p = above.with(0.8);
        let ms = time_ms(dev, reps, || dev.argwhere_into(p, &dx, &mut out).map(drop));
        let count = must(op, must(op, dev.argwhere_into(p, &dx, &mut out)).get()) as usize;
        let want: Vec<u32> = (0..n as u32)
            .into_par_iter()
            .filter(|&i| xs[i as usize] > 0.8)
            .collect();
        let got = must(op, out.download());
        checks.elements(op, n, check::bitwise(&got[..count.min(n)], &want));
        println!("{op}: {ms:.3} ms ({count} of {n} kept)");
        ours.push((op, n, (4 * n + 4 * count) as f64, ms));
    }
    {
        let op = "hist_weighted_f32";
        let keys: Vec<i32> = warp_tests::random_vec_par::<u32>(11, n, false)
            .par_iter()
            .map(|&k| (k & 255) as i32)
            .collect();
        let ws: Vec<f32> = warp_tests::random_vec_par(12, n, false);
        let (dk, dw) = (must(op, dev.upload(&keys)), must(op, dev.upload(&ws)));
        let mut out = must(op, dev.upload(&[0f32; 256]));
        let ms = time_ms(dev, reps, || {
            dev.histogram_weighted_into(key_bin, &dk, &dw, &mut out)
        });
        let got = must(op, out.download());
        let (exact, mass) = keys
            .par_iter()
            .zip(&ws)
            .fold(
                || (vec![0f64; 256], vec![0f64; 256]),
                |(mut e, mut m), (&k, &w)| {
                    e[k as usize] += w as f64;
                    m[k as usize] += (w as f64).abs();
                    (e, m)
                },
            )
            .reduce(
                || (vec![0f64; 256], vec![0f64; 256]),
                |(mut e, mut m), (e2, m2)| {
                    e.iter_mut().zip(&e2).for_each(|(a, b)| *a += b);
                    m.iter_mut().zip(&m2).for_each(|(a, b)| *a += b);
                    (e, m)
                },
            );
        let bad = check::failures(256, |b| {
            ((got[b] as f64 - exact[b]).abs() > 1e-6 * mass[b])
                .then(|| format!("bin {b}: expected {}, got {}", exact[b], got[b]))
        });
        checks.elements(op, 256, bad);
        println!("{op}: {ms:.3} ms");
        ours.push((op, n, (8 * n) as f64, ms));
    }
    // Generated ranges: a Monte-Carlo count and a midpoint-rule integral over 0..n, reading
    // nothing (GB/s: 0).
    {
        use warp_tests::ops::{add_u32, gauss_step, pi_hit, sum_f64};
        let op = "range_pi_u32";
        let r = dev.range(0..n as u64);
        let ms = time_ms(dev, reps, || {
            dev.reduce_on_device(add_u32, &r.map(pi_hit)).map(drop)
        });
        let got = must(op, dev.reduce(add_u32, &r.map(pi_hit)));
        let want = (0..n as u64)
            .into_par_iter()
            .map(|i| pi_hit.call(i) as u64)
            .sum::<u64>() as u32;
        checks.elements(
            op,
            1,
            (got != want).then(|| check::Failure {
                at: 0,
                what: format!("expected {want} hits, got {got}"),
                count: 1,
            }),
        );
        println!("{op}: {ms:.3} ms (pi ~ {:.6})", 4.0 * got as f64 / n as f64);
        ours.push((op, n, 0.0, ms));
        let op = "range_gauss_f64";
        let h = 1.0 / n as f64;
        let step = gauss_step.with(h);
        let ms = time_ms(dev, reps, || {
            dev.reduce_on_device(sum_f64, &r.map(step)).map(drop)
        });
        let got = must(op, dev.reduce(sum_f64, &r.map(step)));
        // The exact integral of exp(-x^2) over [0, 1]: sqrt(pi) / 2 * erf(1).
        let exact = 0.746_824_132_812_427_f64;
        checks.elements(
            op,
            1,
            ((got - exact).abs() > 1e-9).then(|| check::Failure {
                at: 0,
                what: format!("expected {exact}, got {got}"),
                count: 1,
            }),
        );
        println!("{op}: {ms:.3} ms (integral {got:.15})");
        ours.push((op, n, 0.0, ms));
    }
    // A gather: the sum of x[idx[i]] over n random u32 indices into n f32 (GB/s: each index
    // and the element it names read once). Exact data (`exact_vec`): the sum is checked exactly.
    {
        use warp_tests::ops::sum_f32;
        let op = "gather_sum_f32";
        let xs: Vec<f32> = warp_tests::exact_vec(13, n);
        let idx: Vec<u32> = warp_tests::random_vec_par::<u32>(14, n, false)
            .par_iter()
            .map(|&k| (k as u64 % n as u64) as u32)
            .collect();
        let (dx, di) = (must(op, dev.upload(&xs)), must(op, dev.upload(&idx)));
        let ms = time_ms(dev, reps, || {
            dev.reduce_on_device(sum_f32, &dx.gather(&di)).map(drop)
        });
        let got = must(op, dev.reduce(sum_f32, &dx.gather(&di))) as f64;
        // The exact sum and the sum of magnitudes (what `Checks::sum` takes).
        let want_abs = idx
            .par_iter()
            .map(|&i| (xs[i as usize] as f64, (xs[i as usize] as f64).abs()))
            .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        checks.sum(op, Sums::Exact, want_abs, n, got);
        println!("{op}: {ms:.3} ms");
        ours.push((op, n, (8 * n) as f64, ms));
    }
    // A gather written out: collect(x.gather(idx)) (x[idx]; GB/s: each index and element read,
    // each element written), the fault word read after the kernel.
    {
        let op = "gather_f32";
        let xs: Vec<f32> = warp_tests::random_vec_par(19, n, false);
        let idx: Vec<u32> = warp_tests::random_vec_par::<u32>(20, n, false)
            .par_iter()
            .map(|&k| (k as u64 % n as u64) as u32)
            .collect();
        let (dx, di) = (must(op, dev.upload(&xs)), must(op, dev.upload(&idx)));
        let mut out = must(op, dev.upload(&vec![0f32; n]));
        let ms = time_ms(dev, reps, || dev.collect_into(&dx.gather(&di), &mut out));
        let got = must(op, out.download());
        let bad = check::failures(n, |k| {
            (got[k].to_bits() != xs[idx[k] as usize].to_bits())
                .then(|| format!("{k}: expected {}, got {}", xs[idx[k] as usize], got[k]))
        });
        checks.elements(op, n, bad);
        println!("{op}: {ms:.3} ms");
        ours.push((op, n, (12 * n) as f64, ms));
    }
    // A strided view: the sum of every 4th of n f32 (GB/s over the n elements' bytes: every
    // sector is fetched). Exact data (`exact_vec`): the sum is checked exactly.
    {
        use warp_tests::ops::sum_f32;
        let op = "strided_sum_f32";
        let xs: Vec<f32> = warp_tests::exact_vec(16, n);
        let dx = must(op, dev.upload(&xs));
        let sx = must(op, dx.step_by(4));
        let ms = time_ms(dev, reps, || dev.reduce_on_device(sum_f32, &sx).map(drop));
        let got = must(op, dev.reduce(sum_f32, &sx)) as f64;
        let want_abs = xs
            .par_iter()
            .step_by(4)
            .map(|&x| (x as f64, (x as f64).abs()))
            .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        checks.sum(op, Sums::Exact, want_abs, n / 4, got);
        println!("{op}: {ms:.3} ms");
        ours.push((op, n, (4 * n) as f64, ms));
    }
    // A scatter: n f32 values written to the places n random u32 indices name (repeats among
    // them; GB/s: each index and value read and each value written), the indices checked
    // first.
    {
        let op = "scatter_f32";
        let vs: Vec<f32> = warp_tests::random_vec_par(17, n, false);
        let idx: Vec<u32> = warp_tests::random_vec_par::<u32>(18, n, false)
            .par_iter()
            .map(|&k| (k as u64 % n as u64) as u32)
            .collect();
        let (dv, di) = (must(op, dev.upload(&vs)), must(op, dev.upload(&idx)));
        let mut out = must(op, dev.upload(&vec![0f32; n]));
        let ms = time_ms(dev, reps, || dev.scatter_into(&dv, &di, &mut out));
        let got = must(op, out.download());
        // Each place holds one of the values scattered to it (its last writer is not fixed):
        // places only one index names hold that value.
        let mut names = vec![0u8; n];
        for &i in &idx {
            names[i as usize] = names[i as usize].saturating_add(1);
        }
        let bad = check::failures(n, |k| {
            let i = idx[k] as usize;
            (names[i] == 1 && got[i].to_bits() != vs[k].to_bits())
                .then(|| format!("place {i}: expected {}, got {}", vs[k], got[i]))
        });
        checks.elements(op, n, bad);
        println!("{op}: {ms:.3} ms");
        ours.push((op, n, (12 * n) as f64, ms));
    }
    // Sums along each axis of a (256, 4096, 256) f32 array (2^28 elements; GB/s: each element
    // read once and each result written). Exact data (`exact_vec`: integers of magnitude 1 to
    // 8): every sum and running sum of a line (at most 4,096 of them) is exact in any order, so
    // each result is checked exactly.
    {
        use warp_tests::ops::sum_f32;
        let shape = [256usize, 4096, 256];
        let len: usize = shape.iter().product();
        let xs: Vec<f32> = warp_tests::exact_vec(15, len);
        let dx = must("axis_sum", dev.upload(&xs));
        for (axis, op) in [
            (0usize, "axis_sum_f32_0"),
            (1, "axis_sum_f32_1"),
            (2, "axis_sum_f32_2"),
        ] {
            let lines = warp_tests::axes::lines(&shape, axis);
            let mut out = must(op, dev.upload(&vec![0f32; lines.len()]));
            let ms = time_ms(dev, reps, || {
                dev.reduce_axis_into(sum_f32, &dx, &shape, axis, &mut out)
            });
            let got = must(op, out.download());
            let bad = check::failures(lines.len(), |k| {
                let e = lines[k].iter().map(|&p| xs[p] as f64).sum::<f64>();
                (got[k] as f64 != e).then(|| format!("place {k}: expected {e}, got {}", got[k]))
            });
            checks.elements(op, lines.len(), bad);
            println!("{op}: {ms:.3} ms");
            ours.push((op, len, (4 * len + 4 * lines.len()) as f64, ms));
        }
        // Running sums along axes 0 and 1 (GB/s: each element read and written); checked
        // exactly at 4096 sampled lines.
        for (axis, op) in [(0usize, "axis_scan_f32_0"), (1, "axis_scan_f32_1")] {
            let lines = warp_tests::axes::lines(&shape, axis);
            let mut out = must(op, dev.upload(&vec![0f32; len]));
            let ms = time_ms(dev, reps, || {
                dev.scan_axis_into(sum_f32, &dx, &shape, axis, &mut out)
            });
            let got = must(op, out.download());
            let step = lines.len() / 4096;
            let bad = check::failures(4096, |k| {
                let mut e = 0f64;
                for &p in &lines[k * step] {
                    e += xs[p] as f64;
                    if got[p] as f64 != e {
                        return Some(format!(
                            "line {} at {p}: expected {e}, got {}",
                            k * step,
                            got[p]
                        ));
                    }
                }
                None
            });
            checks.elements(op, 4096, bad);
            println!("{op}: {ms:.3} ms");
            ours.push((op, len, (8 * len) as f64, ms));
        }
    }
    let mut peers: BTreeMap<(String, String), f64> = BTreeMap::new();
    run_peer_ops(
        dev,
        (n, reps),
        "argwhere_f32,hist_weighted_f32,range_pi_u32,range_gauss_f64,gather_sum_f32,gather_f32,strided_sum_f32,scatter_f32,axis_sum_f32_0,axis_sum_f32_1,axis_sum_f32_2,axis_scan_f32_0,axis_scan_f32_1",
        "torch",
        &mut peers,
        checks,
    );
    print_peer_table(
        &format!(
            "positions, weights and generated ranges over {n} elements: argwhere of x > 0.8 over f32 in [-1, 1) (10% kept; GB/s count each element read and each position written); the sums of f32 weights of i32 keys in 256 bins (each key and weight read); a Monte-Carlo count and a Gauss integral over the indices 0..n (nothing read: 0 GB/s); the sum of a gather of f32 through n random u32 indices (each index and element read); that gather written out (12n bytes); the sum of every 4th f32 (every sector fetched: 4n bytes); n f32 scattered through n random u32 indices, checked first (each index and value read, each value written: 12n bytes); sums along axis 0, 1 and 2 of a (256, 4096, 256) f32 array (each element read, each result written); running sums along its axes 0 and 1 (each element read and written); ms, median of {reps}"
        ),
        &ours,
        &peers,
    );
}

/// The key itself as the bin.
#[map]
fn key_bin(k: i32) -> i32 {
    k
}
