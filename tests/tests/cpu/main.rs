//! The CPU backend's tests (no GPU needed), one module per subject: the CPU backend against
//! plain Rust, the reference the GPU tests compare against. `cpu_settings` (process-wide
//! environment variables) is a binary of its own.

mod axis;
mod edge_semantics;
mod gathers;
mod group;
mod half;
mod histogram;
mod interop;
mod names;
mod nan;
mod old_driver;
mod predicates;
mod ranges;
mod ranks;
mod runs;
mod scans;
mod search;
mod semantics;
mod sort;
mod structs;
mod taken;
mod topk;
mod zip;
