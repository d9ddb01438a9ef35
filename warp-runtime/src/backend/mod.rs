//! The backends an operation runs on: the CUDA backend (one GPU and its stream) and the CPU
//! backend (the user's own Rust functions, in parallel).

pub(crate) mod cpu;
pub(crate) mod cuda;

/// The backend of a `Device`.
#[allow(clippy::large_enum_variant)] // one per Device, behind an Arc
pub(crate) enum Backend {
    Gpu(cuda::Gpu),
    Cpu,
}
