//! The generated group-by table kernels themselves, run on the CPU (tests/emu/shim.h: 256
//! threads a block, blocks one after another) as the runtime launches them: the keys' range,
//! the table, the count and the write, over one pair, dense keys around the middle of the
//! order, sparse keys over three tiles of slots and more, keys up to the largest order word
//! (with an identity of 7), one key; checked against a map of wrapping sums. Keys of 1, 2, 4
//! and 8 bytes, signed and unsigned; sums of 1, 2 and 4 bytes. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored group::`.

use std::path::Path;

use warp_runtime::impl_::group_module;
use warp_runtime::{Element, Ordered};
use warp_tests::emu;

const MAIN: &str = include_str!("../../emu/group_main.cpp");

fn emulate<K: Ordered, V: Element>(dir: &Path, key: &str, val: &str) {
    let bin = emu::build(
        dir,
        &format!("emu_group_{}_{}", K::NAME, V::NAME),
        &group_module::<K, V>().source,
        &[format!("KEY={key}"), format!("VAL={val}")],
    );
    emu::run_ok(&bin, K::NAME);
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes a minute"]
fn the_group_table_kernels_are_exact_in_emulation() {
    let Some(dir) = emu::folder("group", MAIN) else {
        return;
    };
    emulate::<i32, i32>(&dir, "wd_i32", "wd_i32");
    emulate::<u8, u8>(&dir, "wd_u8", "wd_u8");
    emulate::<i64, u16>(&dir, "wd_i64", "wd_u16");
    emulate::<u16, i8>(&dir, "wd_u16", "wd_i8");
}
