//! Operators: the traits `#[reduce]`, `#[predicate]` and `#[map]` implement for the values
//! they make of functions, and the generated code those carry.

use std::sync::Arc;

use warp_kernels::catalogue::BOUND_ARGS;
use warp_kernels::{FnFragment, OpFragment};

use crate::arrays::{DeviceScalar, Held, ScalarInner};
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Row};

/// What `#[reduce]` generates for an operator: its fragments (what compositions with maps,
/// scans and axis reductions are built from) and the complete CUDA source of its own module.
#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The operator on the CPU: the user's function with the GPU's results where Rust's
    /// operators would panic or depend on the build profile (see [`crate::semantics`]).
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
pub trait Predicate: Clone + Send + Sync + 'static {
    /// The element type: one value, or a tuple of the zipped arrays' elements for
    /// `#[predicate(inputs = N)]` (for a comparator of two tuples or structs, `(T, T)`).
    type Input: Copy + Send + Sync + 'static;
    /// The function's own type (its unit struct): what its kernels' module is keyed by, so
    /// that every binding of it shares one module.
    #[doc(hidden)]
    type Key: 'static;
    /// The generated code.
    const META: FnMeta;
    /// The predicate on the CPU: the user's function with the GPU's results where Rust's
    /// operators would panic or depend on the build profile (see [`crate::semantics`]).
    fn test(&self, x: Self::Input) -> bool;
    /// The bound extra parameters, as the kernel receives them.
    #[doc(hidden)]
    fn args(&self) -> BoundArgs;
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
pub trait MapOp: Clone + Send + Sync + 'static {
    /// The element type (a tuple of the zipped arrays' elements for `#[map(inputs = N)]`).
    type Input: Row;
    /// The function's own type (its unit struct): what its kernels' modules are keyed by.
    #[doc(hidden)]
    type Key: 'static;
    /// The result type.
    type Output: DeviceValue;
    /// The generated code.
    const META: FnMeta;
    /// The map on the CPU: the user's function with the GPU's results where Rust's operators
    /// would panic or depend on the build profile (see [`crate::semantics`]).
    fn apply(&self, x: Self::Input) -> Self::Output;
    /// The bound extra parameters, as the kernel receives them.
    #[doc(hidden)]
    fn args(&self) -> BoundArgs;
}

/// What an extra parameter of type `T` of a predicate or map can be bound to with
/// `name.with(...)`: a value of `T`, or a result an `_on_device` operation left on the device
/// (`&DeviceScalar<T>` or `DeviceScalar<T>`), which the kernel reads there with no round trip
/// to the host: `above.with(0.5)`, `above.with(&threshold)`.
pub trait Bind<T> {
    /// How the bound predicate or map holds it.
    type Arg: BoundArg<T>;
    /// Into that.
    fn into_arg(self) -> Self::Arg;
}

/// A bound parameter of type `T` as a bound predicate or map holds it (see [`Bind`]): the
/// value itself (`Copy`, so the bound predicate is too), or a [`DeviceScalar<T>`].
pub trait BoundArg<T>: Clone + Send + Sync + std::fmt::Debug + 'static {
    /// The value, for the function on the CPU (`call`, `test`, `apply`): a device-resident one
    /// is read, waiting for the work that computes it.
    ///
    /// # Panics
    ///
    /// When reading a device-resident value fails (a CUDA driver error). A `Device`'s
    /// operations never call this for a GPU's results: their kernels read them on the device.
    fn value(&self) -> T;
    /// Appends the parameter to the kernel's arguments.
    #[doc(hidden)]
    fn push(&self, args: &mut BoundArgs);
}

impl<T: ArgBits + DeviceValue> Bind<T> for T {
    type Arg = T;
    fn into_arg(self) -> T {
        self
    }
}

impl<T: ArgBits + DeviceValue> Bind<T> for &DeviceScalar<T> {
    type Arg = DeviceScalar<T>;
    fn into_arg(self) -> DeviceScalar<T> {
        self.clone()
    }
}

impl<T: ArgBits + DeviceValue> Bind<T> for DeviceScalar<T> {
    type Arg = DeviceScalar<T>;
    fn into_arg(self) -> DeviceScalar<T> {
        self
    }
}

impl<T: ArgBits + DeviceValue> BoundArg<T> for T {
    fn value(&self) -> T {
        *self
    }
    fn push(&self, args: &mut BoundArgs) {
        args.push_bits(self.to_bits());
    }
}

impl<T: ArgBits + DeviceValue> BoundArg<T> for DeviceScalar<T> {
    fn value(&self) -> T {
        match self.get() {
            Ok(v) => v,
            Err(e) => panic!("reading a bound device-resident parameter failed: {e}"),
        }
    }
    fn push(&self, args: &mut BoundArgs) {
        match &self.inner().held {
            Held::Host(bytes) => args.push_bits(T::read_c(bytes).to_bits()),
            Held::Gpu { slot, .. } => {
                if args.len < BOUND_ARGS {
                    args.indirect |= 1 << args.len;
                }
                args.push_bits(slot.ptr);
                args.scalars.push(self.inner().clone());
            }
        }
    }
}

/// The bound parameters of a map or a predicate as its kernel receives them: up to
/// [`BOUND_ARGS`] words, each a value's bits or the device address of a result slot, and the
/// results they come from. `len` counts every parameter pushed, those beyond the words too,
/// so that [`BoundArgs::check`] refuses them before any launch.
#[doc(hidden)]
#[derive(Clone, Default)]
pub struct BoundArgs {
    pub(crate) bits: [u64; BOUND_ARGS],
    pub(crate) indirect: u32,
    pub(crate) len: usize,
    pub(crate) scalars: Vec<Arc<ScalarInner>>,
}

impl BoundArgs {
    /// Appends a word; one beyond [`BOUND_ARGS`] is only counted ([`BoundArgs::check`]
    /// refuses it).
    fn push_bits(&mut self, bits: u64) {
        if let Some(word) = self.bits.get_mut(self.len) {
            *word = bits;
        }
        self.len += 1;
    }

    /// `Error::Unsupported` when more parameters were bound than the kernel's
    /// [`BOUND_ARGS`] words hold (every operation checks this before it launches anything).
    pub(crate) fn check(&self) -> crate::Result<()> {
        if self.len > BOUND_ARGS {
            return Err(crate::Error::Unsupported(format!(
                "{} bound parameters in one kernel: at most {BOUND_ARGS} in one function, and in a map and a predicate composed together",
                self.len
            )));
        }
        Ok(())
    }

    /// The parameters of a map followed by those of a predicate (the order the kernel decodes
    /// them in); those beyond [`BOUND_ARGS`] are only counted, for [`BoundArgs::check`].
    pub(crate) fn join(first: BoundArgs, then: &BoundArgs) -> BoundArgs {
        let mut out = first;
        for i in 0..then.len.min(BOUND_ARGS) {
            if let Some(word) = out.bits.get_mut(out.len + i) {
                *word = then.bits[i];
            }
        }
        out.indirect |= then.indirect.checked_shl(out.len as u32).unwrap_or(0);
        out.indirect &= (1 << BOUND_ARGS) - 1;
        out.len += then.len;
        out.scalars.extend(then.scalars.iter().cloned());
        out
    }
}

impl std::fmt::Debug for BoundArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundArgs")
            .field("bits", &&self.bits[..self.len.min(BOUND_ARGS)])
            .field("indirect", &self.indirect)
            .finish()
    }
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
impl ArgBits for half::f16 {
    fn to_bits(self) -> u64 {
        half::f16::to_bits(self) as u64
    }
}
impl ArgBits for half::bf16 {
    fn to_bits(self) -> u64 {
        half::bf16::to_bits(self) as u64
    }
}
