//! Generated kernels run on the CPU (tests/emu/shim.h, built with g++): the runs, scan and
//! top-k kernels against the CPU backend or a sort. `#[ignore]`d; `WARP_EMU=1 cargo test -p
//! warp-tests --test emu -- --ignored` runs them (scripts/test.sh does).

mod runs;
mod scan;
mod topk;
