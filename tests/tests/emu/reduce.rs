//! The reduction of a generated range (`wd_k_reduce` over a stage that reads no memory: tiles
//! of `BLOCK x ITEMS` indices, `wd_thread_reduce_generated`) run on the CPU with the host
//! emulation of tests/emu/shim.h, grids of 1 to 7 blocks, lengths around the tile, starts up
//! to 2^40, with and without a device length, against the module's own map and operator
//! folded on the host. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored reduce::`.

use warp_runtime::RangeMap;
use warp_runtime::impl_::reduce_module;
use warp_tests::emu;
use warp_tests::ops::{add_u32, pi_hit};

const MAIN: &str = include_str!("../../emu/reduce_main.cpp");

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn a_generated_range_reduces_as_the_host_folds_it_in_emulation() {
    let Some(dir) = emu::folder("reduce", MAIN) else {
        return;
    };
    let module = reduce_module::<add_u32, RangeMap<'static, u64, pi_hit>>();
    let bin = emu::build(&dir, "emu_reduce_pi", &module.source, &[]);
    emu::run_ok(&bin, "pi_hit");
}
