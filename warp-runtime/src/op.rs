//! Operator traits: what `#[reduce]` implements for the value it makes of a function.

use crate::value::DeviceValue;

/// What the generated code knows about an operation: its CUDA source and kernel names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpMeta {
    /// The function's name.
    pub name: &'static str,
    /// The complete CUDA source (compiled by NVRTC exactly as it is).
    pub source: &'static str,
    /// Kernel over a plain array of values.
    pub plain_kernel: Option<&'static str>,
    /// Kernel over `(array[i], i)` pairs.
    pub indexed_kernel: Option<&'static str>,
    /// The warp instruction (`redux.sync`) chosen for the operator, if any.
    pub redux: Option<&'static str>,
    /// The warp-level style: `"intrinsics"` or `"cooperative_groups"`.
    pub style: &'static str,
    /// Whether the source includes CUDA's headers (cooperative groups); NVRTC then needs the
    /// toolkit's include folders (see `loader::cuda_include_dirs`).
    pub needs_cuda_headers: bool,
    /// The Rust file of the function.
    pub file: &'static str,
    /// The line of the function.
    pub line: u32,
}

/// A reduction operator: an associative and commutative `combine` with an identity. Made by
/// `#[reduce(identity = ...)]` from a plain Rust function.
///
/// ```
/// use warp_runtime::prelude::*;
///
/// #[reduce(identity = 0)]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// assert_eq!(add.call(2, 3), 5);
/// assert_eq!(add.identity(), 0);
/// assert!(add.cuda_source().contains("__shfl_down_sync"));
/// ```
pub trait ReduceOp: Copy + Send + Sync + 'static {
    /// The value type `T` of `fn(T, T) -> T`.
    type Value: DeviceValue;
    /// The generated code.
    const META: OpMeta;
    /// The identity element.
    fn identity(&self) -> Self::Value;
    /// The operator (the user's function, on the CPU).
    fn combine(&self, a: Self::Value, b: Self::Value) -> Self::Value;
}
