//! The GPU tests against the CPU backend and plain Rust, one module per subject; each is
//! `#[ignore = "needs a CUDA GPU"]` (run them with `--ignored` on a GPU machine). The tests of
//! multi-gigabyte inputs take `warp_tests::big_lock()`, one at a time. Binaries of their own:
//! `gpu_events` (tracing events of a first use), `gpu_interop` (reads and fills the GPU's free
//! memory) and `gpu_sanitize` (the compute-sanitizer runs).

mod axis;
mod edge_semantics;
mod gathers;
mod group;
mod half;
mod histogram;
mod nan;
mod predicates;
mod primitives;
mod promises;
mod ranges;
mod ranks;
mod reduce;
mod runs;
mod scans;
mod search;
mod sort;
mod structs;
mod taken;
mod topk;
mod zip;
