//! Generated kernels run on the CPU (tests/emu/shim.h, built with g++): the compaction with
//! and without a device-resident length, the warp and block
//! primitives against sequential Rust, the runs, scan, sort, group-by and top-k kernels (and the top-k of
//! rows) against the CPU backend or a sort. `#[ignore]`d; `WARP_EMU=1 cargo test -p warp-tests
//! --test emu -- --ignored` runs them (scripts/test.sh does).

mod compact;
mod group;
mod merge;
mod primitives;
mod reduce;
mod runs;
mod scan;
mod search;
mod sort;
mod topk;
mod topk_rows;
