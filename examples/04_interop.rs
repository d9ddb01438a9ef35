//! warp-dsl inside a cudarc program: a kernel written directly with cudarc produces data on
//! the caller's stream; warp-dsl reduces and scans it on that same stream with the results
//! left on the device (one of them bound as a parameter of a later count, read by its kernel);
//! then a cudarc kernel consumes warp-dsl's output, handed back as a `CudaSlice`, without a
//! copy.
//!
//!     cargo run --release --example 04_interop
//!
//! Without a GPU it says so and runs the warp-dsl half on the CPU backend.

use std::sync::Arc;

use warp_runtime::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use warp_runtime::prelude::*;
use warp_runtime::toolchain::{self, Output};

/// Sum of floats (a NaN gives NaN).
#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

/// `x > t`: false for NaN (and for every `x` when `t` is NaN).
#[predicate]
fn above(x: f32, t: f32) -> bool {
    x > t
}

/// `x * k` (NaN in, NaN out).
#[map]
fn scaled(x: f32, k: f32) -> f32 {
    x * k
}

/// Two kernels of the caller's own: `wave` writes `out[i] = sin(i / 1000)`, `twice` doubles
/// `x` into `out`.
const KERNELS: &str = r#"
extern "C" __global__ void wave(float* out, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = sinf((float)i / 1000.0f);
}
extern "C" __global__ void twice(const float* x, float* out, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = 2.0f * x[i];
}
"#;

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 1usize << 20;
    let Some(stream) = dev.cuda_stream() else {
        println!("no GPU: the cudarc half needs one; the same calls on the CPU backend:");
        let xs: Vec<f32> = (0..n).map(|i| (i as f32 / 1000.0).sin()).collect();
        let xs = dev.upload(&xs)?;
        let total = dev.reduce_on_device(sum, &xs)?;
        let mean = dev.upload(&[total.get()? / n as f32])?;
        let mean = dev.reduce_on_device(sum, &mean)?;
        println!(
            "sum {:.4}, {} values above the mean",
            total.get()?,
            dev.count(above.with(&mean), &xs)?
        );
        return Ok(());
    };
    run_on_gpu(&dev, &stream, n)
}

fn run_on_gpu(dev: &Device, stream: &Arc<CudaStream>, n: usize) -> warp_runtime::Result<()> {
    // The caller's kernels, compiled with the NVRTC warp-dsl finds, loaded with cudarc.
    let ctx = stream.context();
    let arch = dev.arch().unwrap_or(90);
    let cubin = toolchain::compile_source(
        KERNELS,
        "interop.cu",
        &toolchain::base_options(arch, Output::Cubin),
        Output::Cubin,
    )?
    .map_err(|r| warp_runtime::Error::Unsupported(r.log))?;
    // cudarc's errors convert into warp-dsl's (`Error::Driver`), so `?` works on both.
    let module = ctx.load_module(warp_runtime::cudarc::nvrtc::Ptx::from_binary(cubin.image))?;
    let kernel = |name: &str| module.load_function(name);
    let (wave, twice) = (kernel("wave")?, kernel("twice")?);
    let cfg = LaunchConfig {
        grid_dim: (1024, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let n64 = n as u64;

    // 1. The caller's kernel writes the data, on its stream.
    // SAFETY: `wave` writes every element before anything reads it.
    let mut data: CudaSlice<f32> = unsafe { stream.alloc::<f32>(n) }?;
    let mut b = stream.launch_builder(&wave);
    b.arg(&mut data).arg(&n64);
    // SAFETY: `wave(float*, unsigned long long)` takes these arguments and stays within `n`.
    unsafe { b.launch(cfg) }?;

    // 2. warp-dsl on the same stream, borrowing the caller's slice; nothing waits.
    let total = dev.reduce_on_device(sum, &data)?; // a DeviceScalar
    let prefix = dev.scan(sum, &data)?; // a DeviceVec, queued
    let positive = dev.count_on_device(above.with(0.0), &data)?;
    // The mean, and a count whose kernel reads it on the device: no round trip.
    let mean = dev.map_reduce_on_device(scaled.with(1.0 / n as f32), sum, &data)?;
    let above_mean = dev.count_on_device(above.with(&mean), &data)?;

    // 3. warp-dsl's output handed back to a cudarc kernel, without a copy.
    let prefix: CudaSlice<f32> = prefix.into_cuda()?;
    // SAFETY: `twice` writes every element before anything reads it.
    let mut doubled: CudaSlice<f32> = unsafe { stream.alloc::<f32>(n) }?;
    let mut b = stream.launch_builder(&twice);
    b.arg(&prefix).arg(&mut doubled).arg(&n64);
    // SAFETY: `twice(const float*, float*, unsigned long long)` takes these arguments and
    // stays within `n`.
    unsafe { b.launch(cfg) }?;

    // 4. Read the results (each waits for its own kernels only).
    let last = stream.clone_dtoh(&doubled.slice(n - 1..))?[0];
    println!(
        "sum {:.4} (= the scan's last value {:.4}); {} of {n} values are positive, {} above the mean {:.6}",
        total.get()?,
        last / 2.0,
        positive.get()?,
        above_mean.get()?,
        mean.get()?
    );
    let host: Vec<f32> = (0..n).map(|i| (i as f32 / 1000.0).sin()).collect();
    let want: f64 = host.iter().map(|&x| x as f64).sum();
    let mean_host = mean.get()?; // the device's own rounding of the mean
    let ok = (total.get()? as f64 - want).abs() < 1e-2 * want.abs().max(1.0)
        && ((last / 2.0) as f64 - want).abs() < 1e-2 * want.abs().max(1.0)
        && positive.get()? == host.iter().filter(|&&x| x > 0.0).count() as u64
        // (sinf and Rust's sin may differ in the last bit near the mean)
        && above_mean
            .get()?
            .abs_diff(host.iter().filter(|&&x| x > mean_host).count() as u64)
            <= 2;
    println!(
        "check against the host: {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
