//! The attribute macros of warp-dsl: a shell over `kernels_gen::expand`, which parses, checks
//! and generates, and turns any failure (its own bugs included) into a spanned compile error.
//! Use them through `warpdsl-runtime` (`warp_runtime` in code), which re-exports them.

use proc_macro::TokenStream;

/// Turns `fn(T, T) -> T` into a reduction operator that runs on the GPU and the CPU.
///
/// `#[reduce(identity = EXPR)]`: `EXPR` is the identity of the operator (`f(EXPR, x) == x`).
/// The annotated name becomes a value (a unit struct) to pass to `Device::reduce`; the function
/// stays callable on the CPU as `name.call(a, b)`, and `name.cuda_source()` returns the CUDA C
/// generated for it. `style = "cooperative_groups"` emits the warp reduce with CUDA's
/// cooperative groups instead of raw intrinsics. See the `warpdsl-runtime` documentation for
/// the body language.
#[proc_macro_attribute]
pub fn reduce(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernels_gen::expand::reduce(attr.into(), item.into()).into()
}

/// Turns `fn(x: T, extra...) -> bool` into a predicate for the element operations of a
/// `Device` (`count`, `any`, `all`, `find_first`, `mask`, `filter`, `partition`,
/// `partition3`, their `_into` and `_on_device` forms).
///
/// Extra parameters after the element are bound at call time with `name.with(...)`, so a new
/// threshold never means a new compile: at most 8 (a ninth is a compile error), and at most 8
/// together with those of a map it reads through (else the operation returns
/// `Error::Unsupported` before it runs anything). The function stays callable on the CPU as `name.call(x, ...)`.
///
/// `#[predicate(inputs = N)]` (N from 2 to 4): the first N parameters are one element of each
/// of N zipped arrays (`&(&xs, &ys)`); with `inputs = 2` over two keys of one type it also
/// compares neighbouring keys for the runs' `_by` forms (`unique_by`,
/// `run_length_encode_by`, `reduce_by_key_by`), called as `same(previous, next)`.
#[proc_macro_attribute]
pub fn predicate(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernels_gen::expand::predicate(attr.into(), item.into()).into()
}

/// Turns `fn(x: T, extra...) -> U` into a map that fuses into the reading pass of the
/// operations that consume it (`xs.map(f)`, `Device::map_reduce`): nothing is written to memory.
///
/// Extra parameters after the element are bound at call time with `name.with(...)`: at most 8
/// (a ninth is a compile error), and at most 8 together with those of a predicate or bin map
/// that reads the map (else `Error::Unsupported`, before anything runs). `#[map(inputs = N)]`
/// (N from 2 to 4): the first N parameters are one element of each of N zipped arrays
/// (`(&xs, &ys).map(f)`, `Device::map_reduce(f, op, &(&xs, &ys))`).
#[proc_macro_attribute]
pub fn map(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernels_gen::expand::map(attr.into(), item.into()).into()
}

/// Makes a `#[repr(C)]` struct of named scalar fields (`i8`..`u64`, `f32`, `f64`, `bool`,
/// `f16`, `bf16`) a value type of warp-dsl: a map's output, a reduction's value, the element of
/// result arrays (`DeviceTuples`), read and written in its C layout (checked against Rust's at
/// compile time). Bodies of `#[reduce]`, `#[map]` and `#[predicate]` functions in the same crate
/// read its fields by name and build it with struct literals. See the `warpdsl-runtime`
/// documentation.
#[proc_macro_derive(DeviceValue)]
pub fn derive_device_value(input: TokenStream) -> TokenStream {
    kernels_gen::expand::derive_device_value(input.into()).into()
}

/// The way back from a `#[derive(DeviceValue)]` struct's definition to the attribute that asked
/// for it (not for direct use).
#[doc(hidden)]
#[proc_macro]
pub fn resume(input: TokenStream) -> TokenStream {
    kernels_gen::expand::resume(input.into()).into()
}
