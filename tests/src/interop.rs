//! A kernel written directly with cudarc (not by warp-dsl), for the interop tests and the
//! pipeline benchmark: `fill(out, n, seed)` writes pseudo-random floats in [-1, 1).

use std::sync::Arc;

use warp_runtime::cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use warp_runtime::toolchain::{self, Output};

/// The CUDA C of the kernel.
pub const FILL: &str = r#"
extern "C" __global__ void fill(float* out, unsigned long long n, unsigned int seed) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned int h = (unsigned int)i * 0x9e3779b9u ^ seed;
        h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
        out[i] = (float)(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
    }
}
"#;

/// The host reference of `fill`.
pub fn fill_host(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let mut h = (i as u32).wrapping_mul(0x9e37_79b9) ^ seed;
            h ^= h >> 16;
            h = h.wrapping_mul(0x7feb_352d);
            h ^= h >> 15;
            h = h.wrapping_mul(0x846c_a68b);
            h ^= h >> 16;
            (h >> 8) as f32 * (1.0 / 8_388_608.0) - 1.0
        })
        .collect()
}

/// `fill` compiled (NVRTC, found by warp-runtime's toolchain) and loaded on `stream`'s context.
pub fn fill_kernel(stream: &Arc<CudaStream>) -> CudaFunction {
    let ctx = stream.context();
    let (major, minor) = ctx.compute_capability().expect("compute capability");
    let arch = (major * 10 + minor) as u32;
    let image = toolchain::compile_source(
        FILL,
        "fill.cu",
        &toolchain::base_options(arch, Output::Cubin),
        Output::Cubin,
    )
    .expect("NVRTC runs")
    .unwrap_or_else(|r| panic!("fill does not compile: {}", r.log));
    let module = ctx
        .load_module(warp_runtime::cudarc::nvrtc::Ptx::from_binary(image.image))
        .expect("module loads");
    module.load_function("fill").expect("fill is in it")
}

/// Queues `fill` of `out` on `stream`.
pub fn fill(stream: &Arc<CudaStream>, f: &CudaFunction, out: &mut CudaSlice<f32>, seed: u32) {
    let n = out.len() as u64;
    let mut b = stream.launch_builder(f);
    b.arg(out).arg(&n).arg(&seed);
    let cfg = LaunchConfig {
        grid_dim: (132 * 8, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: `fill(float*, unsigned long long, unsigned int)` takes exactly these arguments;
    // its grid-stride loop stays within the `n` elements of `out`.
    unsafe { b.launch(cfg) }.expect("fill launches");
}
