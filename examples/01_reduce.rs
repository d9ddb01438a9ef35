//! The main example: reductions written as Rust functions (over arrays and over a generated
//! range), run on the GPU when there is one (checked against the CPU), otherwise shown as
//! CUDA, compiled with NVRTC when it is found, and run on the CPU backend.
//!
//!     cargo run --release --example 01_reduce

use warp_runtime::prelude::*;

/// Sum of floats (a NaN anywhere gives NaN; `inf + -inf` too).
#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

/// Sum of integers (wrapping, as in a Rust release build).
#[reduce(identity = 0)]
fn sum_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// Maximum, ignoring NaN like `f32::max` (all NaN: the identity, `-inf`).
#[reduce(identity = f32::NEG_INFINITY)]
fn max(a: f32, b: f32) -> f32 {
    a.max(b)
}

/// Index of the largest value, NaN-propagating like NumPy's `argmax`: NaN counts as the
/// largest value, and ties (several NaNs too) go to the smallest index, so the combine is
/// commutative and associative whatever the input. Empty input: `(-inf, u32::MAX)`.
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

/// Monte-Carlo: 1 when the point of the unit square hashed from index `i` is inside the
/// quarter disc.
#[map]
fn hit(i: u64) -> u32 {
    let mut h = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    h ^= h >> 31;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 29;
    let x = (h >> 40) as f32 * (1.0 / 16_777_216.0);
    let y = ((h >> 16) & 0xff_ffff) as f32 * (1.0 / 16_777_216.0);
    if x * x + y * y < 1.0 { 1 } else { 0 }
}

/// Sum of counts (wrapping).
#[reduce(identity = 0)]
fn count(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 10_000_000usize;
    // Deterministic pseudo-random data (a small xorshift; no zeros).
    let mut s = 0x9e3779b97f4a7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let xs: Vec<f32> = (0..n)
        .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0)
        .collect();
    let ys: Vec<i32> = (0..n).map(|_| (next() % 2001) as i32 - 1000).collect();

    let d_xs = dev.upload(&xs)?;
    let d_ys = dev.upload(&ys)?;
    let total = dev.reduce(sum, &d_xs)?;
    let total_i = dev.reduce(sum_i32, &d_ys)?;
    let biggest = dev.reduce(max, &d_xs)?;
    let (best, at) = dev.reduce(argmax, &d_xs.indexed())?;
    println!("on {}: n = {n}", dev.describe());
    println!("  sum      = {total}");
    println!("  sum_i32  = {total_i}");
    println!("  max      = {biggest}");
    println!("  argmax   = {best} at index {at}");

    // The same functions on the CPU backend: the reference.
    let cpu = Device::cpu();
    let c_total = cpu.reduce(sum, &cpu.upload(&xs)?)?;
    let c_total_i = cpu.reduce(sum_i32, &cpu.upload(&ys)?)?;
    let c_max = cpu.reduce(max, &cpu.upload(&xs)?)?;
    let c_arg = cpu.reduce(argmax, &cpu.upload(&xs)?.indexed())?;
    let abs_sum: f64 = xs.iter().map(|x| x.abs() as f64).sum();
    let sum_ok = ((total - c_total) as f64).abs() <= 1e-5 * abs_sum;
    let exact_ok = total_i == c_total_i && biggest == c_max && (best, at) == c_arg;
    println!(
        "  check against the CPU backend: {}",
        if sum_ok && exact_ok { "ok" } else { "MISMATCH" }
    );
    if !(sum_ok && exact_ok) {
        eprintln!("cpu: sum {c_total} sum_i32 {c_total_i} max {c_max} argmax {c_arg:?}");
        std::process::exit(1);
    }

    // A generated range: pi by Monte-Carlo over 2^24 indices, one kernel that reads nothing.
    let m = 1u64 << 24;
    let hits = dev.reduce(count, &dev.range(0..m).map(hit))?;
    let c_hits = cpu.reduce(count, &cpu.range(0..m).map(hit))?;
    println!(
        "  pi by Monte-Carlo over dev.range(0..2^24): {:.5} ({})",
        4.0 * hits as f64 / m as f64,
        if hits == c_hits {
            "the CPU backend agrees"
        } else {
            "MISMATCH"
        }
    );
    if hits != c_hits {
        std::process::exit(1);
    }

    if !dev.is_gpu() {
        // No GPU: show what would run there, and compile it if NVRTC is installed.
        println!(
            "\n--- CUDA generated for `argmax` ({} lines in all; the part made from the Rust function) ---",
            argmax.cuda_source().lines().count()
        );
        for line in argmax
            .cuda_source()
            .lines()
            .skip_while(|l| !l.contains("the user's functions"))
            .take_while(|l| !l.starts_with("// ==== shared"))
        {
            println!("{line}");
        }
        let settings = warp_runtime::Settings::new();
        match warp_runtime::toolchain::ptx(&<argmax as ReduceOp>::META.module(), 90, &settings) {
            Ok(ptx) => println!(
                "\nNVRTC compiled it for sm_90: {} lines of PTX, {} warp shuffles",
                ptx.lines().count(),
                ptx.matches("shfl.sync").count()
            ),
            Err(e) => println!("\n(NVRTC not available, so the CUDA was not compiled: {e})"),
        }
    }
    Ok(())
}
