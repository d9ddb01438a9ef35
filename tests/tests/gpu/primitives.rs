//! The warp and block primitives (warp-kernels' `warp.cuh` and `block.cuh`) on their own, on the
//! GPU: the test kernels of tests/emu/primitives.cuh compiled with NVRTC for the device's
//! architecture (sm_80+ takes the redux.sync paths of the warp reduce) and launched through
//! cudarc, one block each, on the cases of the emulation (`warp_tests::primitives`), each
//! output checked against plain sequential Rust.

use warp_runtime::cudarc::driver::{LaunchConfig, PushKernelArg};
use warp_runtime::cudarc::nvrtc::Ptx;
use warp_runtime::toolchain::{self, Output};
use warp_tests::primitives::{self, Case};
use warp_tests::{gpu, rng, seed};

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_primitives_match_sequential_rust_on_the_gpu() {
    let dev = gpu();
    let ctx = dev.cuda_context().expect("a CUDA device");
    let stream = ctx.default_stream();
    let (major, minor) = ctx.compute_capability().expect("compute capability");
    let arch = (major * 10 + minor) as u32;
    let image = toolchain::compile_source(
        &primitives::source(),
        "primitives.cu",
        &toolchain::base_options(arch, Output::Cubin),
        Output::Cubin,
    )
    .expect("NVRTC runs")
    .unwrap_or_else(|r| panic!("the primitives do not compile: {}", r.log));
    let module = ctx
        .load_module(Ptx::from_binary(image.image))
        .expect("module loads");
    let ran = primitives::run_all(&mut rng(seed()), |c: &Case| {
        let f = module
            .load_function(c.kernel)
            .unwrap_or_else(|e| panic!("{}: {e}", c.kernel));
        let input = stream.clone_htod(&c.input).unwrap();
        let mut out = stream
            .clone_htod(&vec![0xDEAD_BEEFu32; c.out_words.max(1)])
            .unwrap();
        let mut b = stream.launch_builder(&f);
        b.arg(&input).arg(&mut out).arg(&c.n).arg(&c.arg);
        let cfg = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (warp_kernels::catalogue::BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: every test kernel takes (const u32* in, u32* out, u32 n, u32 arg), reads
        // within the case's (padded) input and writes within its `out_words` words.
        unsafe { b.launch(cfg) }.unwrap_or_else(|e| panic!("{}: {e}", c.kernel));
        let mut words = stream.clone_dtoh(&out).unwrap();
        words.truncate(c.out_words);
        words
    });
    assert!(ran > 100, "{ran} cases");
}
