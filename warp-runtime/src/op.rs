//! Operator traits: what `#[reduce]` implements for the value it makes of a function.

use crate::value::{DeviceValue, Element};

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
    /// The combine function as a fragment for compositions (`map_reduce`).
    pub combine_fragment: &'static str,
    /// The identity as a fragment for compositions.
    pub identity_fragment: &'static str,
    /// C structs of the operator's tuple types.
    pub type_support: &'static str,
    /// C type of the value.
    pub value_c: &'static str,
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

/// What `#[predicate]` and `#[map]` generate: the function as a fragment of CUDA that the
/// runtime composes into kernels, with its types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FnMeta {
    /// The function's name.
    pub name: &'static str,
    /// The lowered device function (named by a placeholder the composer replaces).
    pub fragment: &'static str,
    /// C structs of its tuple types.
    pub type_support: &'static str,
    /// C type of its result.
    pub output_c: &'static str,
    /// Rust names of the types of its extra (bound) parameters.
    pub extras: &'static [&'static str],
    /// The Rust file of the function.
    pub file: &'static str,
    /// The line of the function.
    pub line: u32,
}

/// A predicate over elements: made by `#[predicate]` from `fn(x: T, extra...) -> bool` (with
/// extra parameters bound by `name.with(...)`).
///
/// ```
/// use warp_runtime::prelude::*;
///
/// #[predicate]
/// fn above(x: f32, t: f32) -> bool { x > t }
///
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[0.5f32, 2.0, 3.0])?;
/// assert_eq!(dev.count(above.with(1.0), &xs)?, 2);
/// assert!(above.call(2.0, 1.0));
/// # Ok(()) }
/// ```
pub trait Predicate: Copy + Send + Sync + 'static {
    /// The element type.
    type Input: DeviceValue;
    /// The generated code.
    const META: FnMeta;
    /// The predicate (the user's function, on the CPU).
    fn test(&self, x: Self::Input) -> bool;
    /// The bound extra parameters, as the bits the kernel decodes.
    fn args(&self) -> [u64; 8];
}

/// A map over elements: made by `#[map]` from `fn(x: T, extra...) -> U`; fused into the reading
/// pass of what consumes it.
///
/// ```
/// use warp_runtime::prelude::*;
///
/// #[map]
/// fn square(x: f32) -> f32 { x * x }
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
///
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 2.0, 3.0])?;
/// assert_eq!(dev.map_reduce(square, sum, &xs)?, 14.0);
/// assert_eq!(dev.reduce(sum, &xs.map(square))?, 14.0);
/// # Ok(()) }
/// ```
pub trait MapOp: Copy + Send + Sync + 'static {
    /// The element type.
    type Input: Element;
    /// The result type.
    type Output: DeviceValue;
    /// The generated code.
    const META: FnMeta;
    /// The map (the user's function, on the CPU).
    fn apply(&self, x: Self::Input) -> Self::Output;
    /// The bound extra parameters, as the bits the kernel decodes.
    fn args(&self) -> [u64; 8];
}

/// A scalar passed to a kernel as the 64 bits of a `u64` (floats by their bit pattern).
pub trait ArgBits: Copy {
    /// The bits.
    fn to_bits(self) -> u64;
}

macro_rules! arg_int {
    ($($t:ty),*) => {$( impl ArgBits for $t { fn to_bits(self) -> u64 { self as u64 } } )*};
}
arg_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl ArgBits for bool {
    fn to_bits(self) -> u64 {
        self as u64
    }
}
impl ArgBits for f32 {
    fn to_bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
}
impl ArgBits for f64 {
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
}
