//! The generated top-k-of-rows kernel itself, run on the CPU (tests/emu/shim.h: 256 threads a
//! block, barriers, warp votes and shuffles, a block per row one after another) as the runtime
//! launches it: random bits (NaNs of every kind for floats), three-valued and all-equal rows
//! (ties settled by the columns' radix select), k from 1 to the row and 1,024, both
//! directions; checked against a stable sort of (oriented key, column). Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored topk_rows::`.

use std::path::Path;

use warp_runtime::Ordered;
use warp_runtime::half::f16;
use warp_runtime::impl_::topk_module;
use warp_tests::emu;

const MAIN: &str = include_str!("../../emu/topk_rows_main.cpp");

fn emulate<T: Ordered>(dir: &Path, elem: &str) {
    let bin = emu::build(
        dir,
        &format!("emu_rows_{}", T::NAME),
        &topk_module::<T>().source,
        &[format!("ELEM={elem}")],
    );
    emu::run_ok(&bin, T::NAME);
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes a minute"]
fn the_topk_rows_kernel_is_exact_in_emulation() {
    let Some(dir) = emu::folder("topk_rows", MAIN) else {
        return;
    };
    emulate::<f32>(&dir, "wd_f32");
    emulate::<u64>(&dir, "wd_u64");
    emulate::<i8>(&dir, "wd_i8");
    emulate::<f16>(&dir, "wd_f16");
}
