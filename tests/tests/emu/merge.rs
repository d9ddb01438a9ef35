//! The generated merge sort kernels themselves, run on the CPU (tests/emu/shim.h: 256 threads
//! a block, barriers, blocks one after another): the block sort, then a two-way pass when the
//! doublings are odd and four-way passes (two-way passes alone with positions), as the runtime
//! launches them, on random, three-valued, reversed and sorted keys from one key to 17 tiles, by a comparator without bound arguments and one with, and
//! at each count of keys a thread that wider keys get;
//! checked against `std::stable_sort` by the module's own order; then the search by the same
//! comparator (`wd_k_merge_search`, lower and upper bounds of every key and of neighbours of it
//! that are mostly absent) against
//! `std::partition_point`. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored merge::`.

use std::path::Path;

use warp_kernels::family::merge::{
    merge_items, merge_tile, merge4_spacing, merge4_span, merge4_window,
};
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
    // The keys a thread of wider keys holds (`merge_items`: 9, 5, 3 and 1 for keys of 8, 16,
    // 32 and 64 bytes), over the same `f32` module with its tile and four-way shares edited:
    // the rounds' and passes' edges at each count.
    for size in [8usize, 16, 32, 64] {
        let mut m = merge_module::<f32, nearer_zero>();
        let items = merge_items(size);
        let edits = [
            ("WD_MERGE_ITEMS", items as usize),
            ("WD_MERGE_TILE", merge_tile(size)),
            ("WD_MERGE4_SPACING", merge4_spacing(size)),
            ("WD_MERGE4_SPAN", merge4_span(size)),
            ("WD_MERGE4_WINDOW", merge4_window(size)),
        ];
        let source = m
            .source
            .lines()
            .map(|l| {
                match edits
                    .iter()
                    .find(|(name, _)| l.starts_with(&format!("#define {name} ")))
                {
                    Some((name, v)) => format!("#define {name} {v}"),
                    None => l.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        for (name, v) in edits {
            assert!(source.contains(&format!("#define {name} {v}\n")));
        }
        m.source = source.into();
        emulate(&dir, &format!("f32_items_{items}"), m, "wd_f32", 0);
    }
}
