//! Operators: the traits `#[reduce]`, `#[predicate]` and `#[map]` implement for the values
//! they make of functions, and the generated code those carry.

use warp_kernels::{FnFragment, OpFragment};

use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element};

/// What `#[reduce]` generates for an operator: its fragments (what compositions with maps,
/// scans and axis reductions are built from) and the complete CUDA source of its own module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpMeta {
    /// The operator's fragments.
    pub fragment: OpFragment<'static>,
    /// Its own module: the reduction over plain elements (scalar values) or over
    /// `(element, index)` pairs (`(V, I)` values), compiled by NVRTC exactly as it is.
    pub source: &'static str,
}

impl OpMeta {
    /// The operator's own module, as the toolchain compiles it.
    pub fn module(&self) -> ModuleSource {
        ModuleSource {
            name: self.fragment.name.to_string(),
            location: format!("{}:{}", self.fragment.file, self.fragment.line),
            source: std::borrow::Cow::Borrowed(self.source),
            needs_cuda_headers: self.fragment.style.needs_cuda_headers(),
        }
    }
}

/// What `#[predicate]` and `#[map]` generate: the function as a fragment of CUDA that the
/// runtime composes into kernels, with its types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FnMeta {
    /// The function's fragment.
    pub fragment: FnFragment<'static>,
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
/// assert!(add.cuda_source().contains("__shfl_down_sync")); // 64-bit: no redux.sync
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
