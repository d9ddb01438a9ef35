//! The generated merge sort kernels themselves, run on the CPU (tests/emu/shim.h: 256 threads
//! a block, barriers, blocks one after another): the block sort, then a partition and a merge
//! launch per pass, as the runtime launches them, on random, three-valued and reversed keys
//! from one key to several tiles, by a comparator without bound arguments and one with, and
//! at each count of keys a thread that wider keys get;
//! checked against `std::stable_sort` by the module's own order. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored merge::`.

use std::path::Path;

use warp_runtime::impl_::merge_module;
use warp_runtime::toolchain::ModuleSource;
use warp_tests::emu;
use warp_tests::ops::{nearer_zero, residue_below_with};

const MAIN: &str = include_str!("../../emu/merge_main.cpp");

fn emulate(dir: &Path, name: &str, module: ModuleSource, elem: &str, arg: u64) {
    let bin = emu::build(
        dir,
        &format!("emu_merge_{name}"),
        &module.source,
        &[format!("ELEM={elem}"), format!("ARG={arg}ull")],
    );
    emu::run_ok(&bin, name);
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes a minute"]
fn the_merge_sort_kernels_are_exact_in_emulation() {
    let Some(dir) = emu::folder("merge", MAIN) else {
        return;
    };
    emulate(&dir, "f32", merge_module::<f32, nearer_zero>(), "wd_f32", 0);
    emulate(
        &dir,
        "u32",
        merge_module::<u32, residue_below_with<u32>>(),
        "wd_u32",
        7,
    );
    // The keys a thread of wider keys holds (`merge_items`: 9, 5, 3 and 1), over the same
    // `f32` module with its tile edited: the rounds' and passes' edges at each count.
    for items in [9u32, 5, 3, 1] {
        let mut m = merge_module::<f32, nearer_zero>();
        let tile = 256 * items;
        let source = m
            .source
            .lines()
            .map(|l| {
                if l.starts_with("#define WD_MERGE_ITEMS ") {
                    format!("#define WD_MERGE_ITEMS {items}")
                } else if l.starts_with("#define WD_MERGE_TILE ") {
                    format!("#define WD_MERGE_TILE {tile}")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(source.contains(&format!("#define WD_MERGE_TILE {tile}")));
        m.source = source.into();
        emulate(&dir, &format!("f32_items_{items}"), m, "wd_f32", 0);
    }
}
