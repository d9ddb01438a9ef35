//! The generated top-k kernel itself, run on the CPU: the module's CUDA compiled as C++20 with
//! a host emulation of the block (tests/emu/shim.h: 256 threads, barriers, warp votes and
//! shuffles), its sample level (for some cases, its bound checked too) and its levels launched
//! as the runtime launches them, blocks one after another, on random bits (NaNs of every kind
//! for floats), ascending, all-equal and three-valued inputs, k = 1, 100, 1,024, both
//! directions, one or two levels; checked against a sort. Needs g++
//! (C++20) and a few minutes: `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored
//! topk::`.

use std::path::Path;

use warp_runtime::Ordered;
use warp_runtime::half::f16;
use warp_runtime::impl_::topk_module;
use warp_tests::emu;

const MAIN: &str = include_str!("../../emu/topk_main.cpp");

fn emulate<T: Ordered>(dir: &Path, elem: &str, gen_up: &str) {
    let bin = emu::build(
        dir,
        &format!("emu_{}", T::NAME),
        &topk_module::<T>().source,
        &[format!("ELEM={elem}"), format!("GEN_UP={gen_up}")],
    );
    emu::run_ok(&bin, T::NAME);
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes minutes"]
fn the_topk_kernel_is_exact_in_emulation() {
    let Some(dir) = emu::folder("topk", MAIN) else {
        return;
    };
    emulate::<f32>(
        &dir,
        "wd_f32",
        "float fu = (float)i - 100.0f; std::memcpy(&up[i], &fu, 4);",
    );
    emulate::<f64>(
        &dir,
        "wd_f64",
        "double d = (double)i - 100.0; std::memcpy(&up[i], &d, 8);",
    );
    emulate::<u64>(&dir, "wd_u64", "std::memcpy(&up[i], &u, 8);");
    emulate::<i8>(
        &dir,
        "wd_i8",
        "signed char c = (signed char)(i / 64); std::memcpy(&up[i], &c, 1);",
    );
    emulate::<f16>(
        &dir,
        "wd_f16",
        "unsigned short h = (unsigned short)(0x3c00 + i / 8); std::memcpy(&up[i], &h, 2);",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
