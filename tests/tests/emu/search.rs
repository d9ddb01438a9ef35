//! The generated binary search kernel itself, run on the CPU (tests/emu/shim.h: 256 threads a
//! block, barriers, blocks one after another) as the runtime launches it: arrays from one key
//! to several samples' stretches, random and few-valued keys, both orders, both bounds;
//! checked against a linear count by the order words. Queries in order searched by tiles
//! (`wd_k_search_bounds`, then `wd_k_search_tiles`): spread (each tile's keys in shared
//! memory) and in two clusters (a tile spanning the array, searched in global memory), in
//! place and as a sorted copy with positions, and in arrays whose first key is not aligned to
//! 16 bytes (the tiles' vector loads), against `partition_point`; an array out of order
//! answers no place past its end. Keys of 1, 2, 4 and 8 bytes. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored search::`.

use std::path::Path;

use warp_runtime::Ordered;
use warp_runtime::impl_::search_module;
use warp_tests::emu;

const MAIN: &str = include_str!("../../emu/search_main.cpp");

fn emulate<K: Ordered>(dir: &Path, elem: &str) {
    let bin = emu::build(
        dir,
        &format!("emu_search_{}", K::NAME),
        &search_module::<K, u32>().source,
        &[format!("ELEM={elem}")],
    );
    emu::run_ok(&bin, K::NAME);
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes a minute"]
fn the_search_kernel_is_exact_in_emulation() {
    let Some(dir) = emu::folder("search", MAIN) else {
        return;
    };
    emulate::<u32>(&dir, "wd_u32");
    emulate::<i64>(&dir, "wd_i64");
    emulate::<u8>(&dir, "wd_u8");
    emulate::<u16>(&dir, "wd_u16");
}
