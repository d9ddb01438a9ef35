//! `fidelity`: compares every generated program on the GPU with the rustc-compiled function.
//!
//!     fidelity nvrtc [--limit N]   every program compiles with NVRTC (sm_75, sm_80, sm_90 PTX); no GPU
//!     fidelity gpu [--limit N]     run every program on the GPU and compare with the CPU, bit for bit
//!     fidelity ulps                measure CPU-GPU differences of the transcendental functions

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use warp_fidelity::harness::{self, ROWS};
use warp_fidelity::{PROGRAMS, Program, SEED, parse_ty};
use warp_runtime::toolchain::{self, Output};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let limit = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(PROGRAMS.len())
        .min(PROGRAMS.len());
    let programs: Vec<&Program> = PROGRAMS.iter().take(limit).collect();
    match args.first().map(String::as_str) {
        Some("nvrtc") => nvrtc(&programs),
        Some("gpu") => gpu(&programs),
        Some("narrow") => {
            // Counts 8/16-bit arithmetic left in the PTX of every program.
            let images = match harness::compile_all(&programs, 90, Output::Ptx) {
                Ok(i) => i,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let mut counts = std::collections::BTreeMap::new();
            for (_, ptx) in &images {
                for i in harness::narrow_instructions(&String::from_utf8_lossy(ptx)) {
                    *counts
                        .entry(i.split_whitespace().next().unwrap_or("").to_string())
                        .or_insert(0usize) += 1;
                }
            }
            println!("{counts:?}");
            if counts.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Some("show") => {
            // The Rust and the CUDA of the programs named after `show`.
            for name in &args[1..] {
                match PROGRAMS.iter().find(|p| p.name == name) {
                    Some(p) => match harness::batch_source(&[p], 0) {
                        Ok(src) => println!("{}\n{src}", p.source),
                        Err(e) => println!("{e}"),
                    },
                    None => println!("no program {name}"),
                }
            }
            ExitCode::SUCCESS
        }
        Some("ulps") => match ulps() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fidelity: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            println!(
                "usage: fidelity nvrtc|gpu [--limit N] | ulps   ({} programs, seed {SEED})",
                PROGRAMS.len()
            );
            ExitCode::SUCCESS
        }
    }
}

fn nvrtc(programs: &[&Program]) -> ExitCode {
    for arch in [75, 80, 90] {
        let t0 = Instant::now();
        match harness::compile_all(programs, arch, Output::Ptx) {
            Ok(images) => println!(
                "fidelity: {} programs compile with NVRTC for compute_{arch} ({} batches, {:.1} s)",
                programs.len(),
                images.len(),
                t0.elapsed().as_secs_f64()
            ),
            Err(e) => {
                eprintln!("fidelity: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn gpu(programs: &[&Program]) -> ExitCode {
    match run_gpu(programs) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("fidelity: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_gpu(programs: &[&Program]) -> Result<usize, String> {
    if let Err(searched) = toolchain::find_driver() {
        return Err(format!(
            "no CUDA driver (looked in {})",
            searched.join(", ")
        ));
    }
    let ctx: Arc<CudaContext> = CudaContext::new(0).map_err(|e| e.to_string())?;
    let (major, minor) = ctx.compute_capability().map_err(|e| e.to_string())?;
    let arch = (major * 10 + minor) as u32;
    let stream = ctx.default_stream();
    let t0 = Instant::now();
    let images = harness::compile_all(programs, arch, Output::Cubin)?;
    println!(
        "fidelity: compiled {} programs in {} batches for sm_{arch} in {:.1} s",
        programs.len(),
        images.len(),
        t0.elapsed().as_secs_f64()
    );
    let by_name: std::collections::HashMap<&str, &Program> =
        programs.iter().map(|p| (p.name, *p)).collect();
    let (mut evaluations, mut mismatched_programs, mut shown) = (0usize, 0usize, 0usize);
    let t1 = Instant::now();
    for (names, image) in images {
        let module = ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image))
            .map_err(|e| e.to_string())?;
        for name in names {
            let p = by_name[name];
            let ret = parse_ty(p.ret);
            let size = ret.c_size();
            let (a, b) = harness::inputs(p, SEED ^ name.len() as u64);
            let want = harness::cpu_results(p, &a, &b);
            let func = module
                .load_function(&format!("k_{name}"))
                .map_err(|e| e.to_string())?;
            let da = stream.clone_htod(&a).map_err(|e| e.to_string())?;
            let db = stream.clone_htod(&b).map_err(|e| e.to_string())?;
            let mut dout = stream
                .alloc_zeros::<u8>(size * ROWS)
                .map_err(|e| e.to_string())?;
            let n = ROWS as u64;
            let mut launch = stream.launch_builder(&func);
            launch.arg(&da).arg(&db).arg(&mut dout).arg(&n);
            // SAFETY: k_<name>(const A*, const B*, R*, u64) reads ROWS values of A and B and
            // writes ROWS values of R: the buffers have exactly those sizes.
            unsafe { launch.launch(LaunchConfig::for_num_elems(ROWS as u32)) }
                .map_err(|e| e.to_string())?;
            let got = stream.clone_dtoh(&dout).map_err(|e| e.to_string())?;
            stream.synchronize().map_err(|e| e.to_string())?;
            evaluations += ROWS;
            let bad: Vec<usize> = (0..ROWS)
                .filter(|&r| !harness::same(&ret, &want[r * size..], &got[r * size..]))
                .collect();
            if !bad.is_empty() {
                mismatched_programs += 1;
                println!("mismatched: {name} ({} rows)", bad.len());
                if shown < 10 {
                    shown += 1;
                    let r = bad[0];
                    let (ta, tb) = (parse_ty(p.params[0]), parse_ty(p.params[1]));
                    println!(
                        "MISMATCH {name}: {} of {ROWS} rows; first: a = {}, b = {}: cpu {} gpu {}\n{}",
                        bad.len(),
                        harness::show(&ta, &a[r * ta.c_size()..]),
                        harness::show(&tb, &b[r * tb.c_size()..]),
                        harness::show(&ret, &want[r * size..]),
                        harness::show(&ret, &got[r * size..]),
                        p.source
                    );
                }
            }
        }
    }
    println!(
        "fidelity: {} programs, {evaluations} evaluations on {}, {mismatched_programs} programs with mismatches ({:.1} s)",
        programs.len(),
        ctx.name().unwrap_or_default(),
        t1.elapsed().as_secs_f64()
    );
    Ok(mismatched_programs)
}

fn ulps() -> Result<(), String> {
    use kernels_gen::Scalar;
    if let Err(searched) = toolchain::find_driver() {
        return Err(format!(
            "no CUDA driver (looked in {})",
            searched.join(", ")
        ));
    }
    let ctx: Arc<CudaContext> = CudaContext::new(0).map_err(|e| e.to_string())?;
    let (major, minor) = ctx.compute_capability().map_err(|e| e.to_string())?;
    let stream = ctx.default_stream();
    let mut fns = String::new();
    for (f, arity) in harness::TRANSCENDENTALS {
        for t in [Scalar::F32, Scalar::F64] {
            let item: syn::ItemFn =
                syn::parse_str(&harness::probe_source(f, *arity, t)).map_err(|e| e.to_string())?;
            let d = kernels_gen::device_function(item, "probe.rs", &format!("wd_{f}_{t}"))
                .map_err(|e| e.diagnostics.render("probe.rs"))?;
            fns.push_str(&d.text);
            let c = t.c_name();
            fns.push_str(&format!(
                "extern \"C\" __global__ void k_{f}_{t}(const {c}* a, const {c}* b, {c}* out, wd_u64 n) {{ const wd_u64 i = (wd_u64)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = wd_{f}_{t}(a[i], b[i]); }}\n"
            ));
        }
    }
    let src = warp_kernels::module::functions_module("ulp probes", "probes", &[], &fns);
    let opts = harness::options((major * 10 + minor) as u32, Output::Cubin);
    let image = match toolchain::compile_source(&src, "probes.cu", &opts, Output::Cubin)
        .map_err(|e| e.to_string())?
    {
        Ok(c) => c.image,
        Err(r) => return Err(r.log),
    };
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_binary(image))
        .map_err(|e| e.to_string())?;
    let n = 1usize << 20;
    let (a, b) = harness::probe_inputs(n, SEED);
    println!(
        "| function | f32 max ulp | f32 inputs differing | f64 max ulp | f64 inputs differing | specials (NaN/inf disagreement) |"
    );
    println!("|---|---|---|---|---|---|");
    for (f, _) in harness::TRANSCENDENTALS {
        let mut cells = Vec::new();
        let mut specials = 0usize;
        for t in [Scalar::F32, Scalar::F64] {
            let func = module
                .load_function(&format!("k_{f}_{t}"))
                .map_err(|e| e.to_string())?;
            let (got, want): (Vec<f64>, Vec<f64>) = if t == Scalar::F32 {
                let (a32, b32): (Vec<f32>, Vec<f32>) = (
                    a.iter().map(|&x| x as f32).collect(),
                    b.iter().map(|&x| x as f32).collect(),
                );
                let g = run_probe(&stream, &func, &a32, &b32)?;
                let w = a32
                    .iter()
                    .zip(&b32)
                    .map(|(&x, &y)| harness::cpu_f32(f, x, y) as f64);
                (g.into_iter().map(f64::from).collect(), w.collect())
            } else {
                let g = run_probe(&stream, &func, &a, &b)?;
                (
                    g,
                    a.iter()
                        .zip(&b)
                        .map(|(&x, &y)| harness::cpu_f64(f, x, y))
                        .collect(),
                )
            };
            stream.synchronize().map_err(|e| e.to_string())?;
            let mut max = 0u64;
            let mut differing = 0usize;
            for (g, w) in got.iter().zip(&want) {
                match harness::ulp_distance(*g, *w, t == Scalar::F32) {
                    Some(d) => {
                        max = max.max(d);
                        differing += (d > 0) as usize;
                    }
                    None => specials += 1,
                }
            }
            cells.push(format!(
                "{max} | {:.3}%",
                100.0 * differing as f64 / n as f64
            ));
        }
        println!("| {f} | {} | {} | {specials} |", cells[0], cells[1]);
    }
    println!(
        "({n} inputs per function and type; moderate values, magnitudes 2^-30..2^30, both signs)"
    );
    Ok(())
}

/// Runs probe kernel `k(const T* a, const T* b, T* out, u64 n)` over `a` and `b`.
fn run_probe<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    stream: &Arc<cudarc::driver::CudaStream>,
    func: &cudarc::driver::CudaFunction,
    a: &[T],
    b: &[T],
) -> Result<Vec<T>, String> {
    let n = a.len();
    let (da, db) = (
        stream.clone_htod(a).map_err(|e| e.to_string())?,
        stream.clone_htod(b).map_err(|e| e.to_string())?,
    );
    let mut dout = stream.alloc_zeros::<T>(n).map_err(|e| e.to_string())?;
    let n64 = n as u64;
    let mut l = stream.launch_builder(func);
    l.arg(&da).arg(&db).arg(&mut dout).arg(&n64);
    // SAFETY: k_<f>_<t>(const T*, const T*, T*, u64) reads and writes n elements of each buffer.
    unsafe { l.launch(LaunchConfig::for_num_elems(n as u32)) }.map_err(|e| e.to_string())?;
    stream.clone_dtoh(&dout).map_err(|e| e.to_string())
}
