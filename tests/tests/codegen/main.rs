//! The generated CUDA without a GPU: every kernel compiles with NVRTC (`nvrtc_compile`), and
//! snapshots of representative modules (`snapshots`, files under `codegen/snapshots/`).

mod nvrtc_compile;
mod snapshots;
