//! The generated sort kernels themselves, run on the CPU (tests/emu/shim.h: 256 threads a
//! block, `SORT_BLOCK` for a pass, barriers for the warp votes and shuffles, blocks one after another): the histogram,
//! the plan and every pass as the runtime launches them, on random bits (NaNs of every kind
//! for floats), three-valued and all-equal keys (passes skipped), one to four tiles, both
//! orders, keys alone (`f32`; also partitioned by one byte of the word), pairs and argsort (`f32` and `i32`
//! with 4-byte values staged in shared memory, `f32` keys loaded as raw bits; `i64` with 8, `bf16` with 1); checked against `std::stable_sort` by the order word. Needs g++ (C++20): `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored
//! sort::`.

use std::path::Path;

use warp_runtime::Ordered;
use warp_runtime::half::bf16;
use warp_runtime::impl_::SortMoves::{self, Keys, Pairs};
use warp_runtime::impl_::sort_module;
use warp_tests::emu;

const MAIN: &str = include_str!("../../emu/sort_main.cpp");

fn emulate<K: Ordered>(dir: &Path, elem: &str, moves: SortMoves, val: &str) {
    let m = sort_module::<K>(moves);
    let bin = emu::build(
        dir,
        &format!("emu_{}", m.name),
        &m.source,
        &[format!("ELEM={elem}"), format!("VAL={val}")],
    );
    emu::run_ok(&bin, K::NAME);
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes minutes"]
fn the_sort_kernels_are_exact_in_emulation() {
    let Some(dir) = emu::folder("sort", MAIN) else {
        return;
    };
    emulate::<f32>(&dir, "wd_f32", Keys, "wd_u32");
    emulate::<f32>(&dir, "wd_f32", Pairs(4), "wd_u32");
    emulate::<i32>(&dir, "wd_i32", Pairs(4), "wd_u32");
    emulate::<i64>(&dir, "wd_i64", Pairs(8), "wd_u64");
    emulate::<bf16>(&dir, "wd_bf16", Pairs(1), "wd_u8");
}
