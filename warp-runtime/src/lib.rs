//! # warp-runtime
//!
//! Write GPU reductions as plain Rust functions. `#[reduce]` turns `fn(T, T) -> T` into CUDA C
//! warp kernels (shuffles, `redux.sync`, a two-level block combine, a one-launch grid combine,
//! 16-byte vector loads); this crate compiles that C with NVRTC at run time (cached in memory
//! and on disk), launches it through cudarc, and runs the same Rust function on the CPU when
//! there is no GPU.
//!
//! ```
//! use warp_runtime::prelude::*;
//!
//! #[reduce(identity = 0.0)]
//! fn sum(a: f32, b: f32) -> f32 { a + b }
//!
//! /// NumPy's argmax: NaN is the largest value; ties (NaNs too) go to the smallest index.
//! #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
//! fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
//!     let b_wins = if a.0.is_nan() || b.0.is_nan() {
//!         b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
//!     } else {
//!         b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
//!     };
//!     if b_wins { b } else { a }
//! }
//!
//! fn main() -> warp_runtime::Result<()> {
//!     let dev = Device::auto()?; // the first CUDA GPU, else the CPU backend
//!     let xs = dev.upload(&[1.0f32, 4.0, -2.0, 4.0])?;
//!     assert_eq!(dev.reduce(sum, &xs)?, 7.0);
//!     assert_eq!(dev.reduce(argmax, &xs.indexed())?, (4.0, 1));
//!     let ys = dev.upload(&[1.0f32, f32::NAN, 9.0, f32::NAN])?;
//!     assert!(dev.reduce(sum, &ys)?.is_nan());                   // NaN propagates
//!     assert_eq!(dev.reduce(argmax, &ys.indexed())?.1, 1);       // the first NaN's index
//!     assert_eq!(sum.call(1.0, 2.0), 3.0);              // the function itself, on the CPU
//!     assert!(sum.cuda_source().contains("wd_k_reduce")); // the generated CUDA C
//!     Ok(())
//! }
//! ```
//!
//! NaN: `sum` is NaN when an element is; `argmax`, written as above, propagates NaN like NumPy
//! (the first NaN's index) and is commutative and associative for any input with distinct
//! indices, so both backends give the same result run after run. The shorter
//! `if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }` is not (a NaN met first
//! sticks, one met later is skipped: the result depends on the combine tree). Empty input:
//! the identity. The other examples below: `mul` and `sum` propagate NaN, `close` never holds
//! for NaN (every comparison with NaN is false), `widen` keeps it, and `extent`'s `min`/`max`
//! ignore it (all NaN: the identity, `(inf, -inf)`).
//!
//! ## The body language
//!
//! Bodies may use literals, parameters, `let` (with `mut` and reassignment), arithmetic, bit
//! operations, shifts, comparisons, `&&`, `||`, `!`, `as` casts, `if`/`else`, `match` on
//! integers, tuples and `.0`/`.1`, the fields of `#[derive(DeviceValue)]` structs and their
//! literals, blocks, the usual float and integer methods (`min`, `max`,
//! `abs`, `sqrt`, `exp`, `ln`, `powi`, `mul_add`, `is_nan`, `clamp`, `count_ones`,
//! `wrapping_*`, ...) and constants such as `f32::INFINITY`. Everything else (loops,
//! references, calls to other functions, ...) is refused at compile time, with the error on
//! the offending token.
//!
//! One semantics on both backends: the GPU and the CPU backend compute the same results, in
//! every build profile, and neither panics (a float operator that is associative only up to
//! rounding, as a sum, may round differently where the backends group values differently:
//! the GPU in tiles, the CPU backend in chunks or, for reduce-by-key, one fold per run). Integer `+ - *` and `-x` wrap, shifts mask their
//! amount to the width, `abs` and `pow` wrap, integer division and remainder by zero give 0,
//! `MIN / -1` gives `MIN` and `MIN % -1` gives 0, `clamp` never panics (a bound that is NaN or
//! out of order is compared, not asserted), float-to-integer casts saturate (NaN gives 0),
//! float `min`/`max` ignore NaN, `a * b + c` is never fused. Where Rust does not panic this is
//! what it computes in a release build. The CPU backend runs a hidden copy of each function
//! with these rules ([`semantics`]); `name.call(..)` stays the function as written (Rust's own
//! semantics: in a debug build `i32::MAX + 1` panics there). Reductions must be associative
//! and commutative: the GPU combines in a tree. Scans combine in element order
//! (`Device::scan`), so they need associativity only.
//!
//! ```
//! use warp_runtime::prelude::*;
//!
//! #[reduce(identity = 0)]
//! fn sum(a: i32, b: i32) -> i32 { a + b }
//! #[map]
//! fn share(x: i32, parts: i32) -> i32 { x / parts }
//!
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let xs = dev.upload(&[i32::MAX, 1, i32::MIN])?;
//! assert_eq!(dev.reduce(sum, &xs)?, 0);                                  // wraps, in debug builds too
//! assert_eq!(dev.map(share.with(0), &xs)?.download()?, [0, 0, 0]);       // division by zero gives 0
//! assert_eq!(dev.map(share.with(-1), &xs)?.download()?, [-i32::MAX, -1, i32::MIN]); // MIN / -1 == MIN
//! # Ok(()) }
//! ```
//!
//! Beyond whole-array reductions: predicates and maps (`count`, `any`, `find_first`, `mask`,
//! `filter`, `partition`, `partition3` (three-way, by two predicates), `map_reduce`), runs
//! (`unique`, `run_length_encode`, `reduce_by_key`), scans (`scan`, `exclusive_scan`;
//! segmented: `scan_rows`, `scan_segments` and their exclusive forms, a scan over (value,
//! head) pairs whose heads restart the fold), reductions along the rows and columns of a
//! row-major matrix and over CSR segments (`reduce_rows`, `reduce_cols`, `reduce_segments`),
//! `transpose`, and histograms (`histogram` by a `#[map]` to a bin index, `histogram_even`
//! over evenly spaced bins, CUB's `HistogramEven`: per-block bins in shared memory, a column
//! per lane so that one atomic's lanes hit distinct banks, merged once to global memory;
//! where lanes would share an address, lanes grouped by bin with `__match_any_sync`, one
//! atomic per distinct bin per warp; up to 65,536 bins, any integer counter type,
//! out-of-range bins dropped). Float scans have the same bits every run, in one pass: f32 sums
//! chain their tiles by a look-back over exact sums of the tile aggregates, other float
//! operators through a fixed tree of tile aggregates (see `Device::scan`).
//!
//! ```
//! use warp_runtime::prelude::*;
//! #[map]
//! fn low_nibble(x: u8) -> u32 { (x & 15) as u32 }
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let xs = dev.upload(&[0x11u8, 0x21, 0x3f, 0x02])?;
//! let h: DeviceVec<u64> = dev.histogram(low_nibble, &xs, 16)?;
//! assert_eq!(h.download()?[1], 2);
//! let even: DeviceVec<u32> = dev.histogram_even(&xs, 0, 64, 4)?; // bins of 16 values
//! assert_eq!(even.download()?, [1, 1, 1, 1]); // 2, 17, 33, 63
//! # Ok(()) }
//! ```
//!
//! ## Runs: unique, run-length encode, reduce-by-key
//!
//! Runs of equal neighbouring keys, each in one pass on the GPU, CUB's patterns: a key is a
//! run head when it differs from its neighbour (compared through a warp shuffle, or a read for
//! a warp tile's first element); `__ballot_sync` and popc rank the heads; a block scan and the
//! decoupled look-back (as `filter`'s compaction) give each tile its first run number; keys are
//! staged in shared memory and written coalesced. [`Device::unique`] writes the heads' keys
//! (`DeviceSelect::Unique`; for keys of at most 4 bytes each warp takes two warp tiles, so one
//! look-back serves 8192 keys); [`Device::run_length_encode`] also each run's length
//! (`DeviceRunLengthEncode::Encode`: the difference of neighbouring run starts, the last start
//! before each tile carried with the head count through the look-back) and
//! [`Device::reduce_by_key`] each run's values combined by a `#[reduce]` operator
//! (`DeviceReduce::ReduceByKey`): a segmented scan within each tile (each row's segment
//! starts from one ballot of the lanes holding a head, so only values are shuffled; whole
//! aligned tiles skip the per-element bounds checks), the partial of the run crossing into the
//! next tile carried with the head count as one (heads, value) pair through the look-back,
//! folded in tile order so floats are deterministic. Its values are any input a reduction
//! takes (an array, `xs.indexed()`, `xs.map(f)`, zipped arrays), read beside the keys in the
//! same pass and made into the operator's value in registers, for values of at most
//! [`RUN_VALUE_MAX_BYTES`]. Keys are compared with `==` ([`Equal`]; NaN is a run of its own)
//! or a `#[predicate(inputs = 2)]` of two neighbours (`_by` forms, [`SameKeys`]); the `_into`
//! forms leave the number of runs on the device.
//!
//! ```
//! use warp_runtime::prelude::*;
//! #[reduce(identity = 0)]
//! fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let keys = dev.upload(&[5u8, 5, 2, 5, 5, 5])?;
//! let vals = dev.upload(&[1, 2, 3, 4, 5, 6])?;
//! assert_eq!(dev.unique(&keys)?.download()?, [5, 2, 5]);
//! assert_eq!(dev.run_length_encode(&keys)?.counts.download()?, [2, 1, 3]);
//! assert_eq!(dev.reduce_by_key(add, &keys, &vals)?.values.download()?, [3, 3, 15]);
//! # Ok(()) }
//! ```
//!
//! ## Scans and their CUDA patterns
//!
//! | operation | CUDA pattern |
//! |---|---|
//! | `scan`, `exclusive_scan` | an 8192-element tile per block (4096 for wider values, elements or zipped arrays): thread scan, `__shfl_up_sync` warp scan, block scan of warp totals; tiles chained in one pass by decoupled look-back (exact values), by the same look-back over exact 320-bit sums of the tile aggregates (f32 sums: the same bits every run, each prefix rounded once) or by a fixed tree of tile aggregates (other floats: the same bits every run) |
//! | `scan_rows`, `exclusive_scan_rows` | the same tile over (value, head) pairs with the segmented operator, heads every `cols` elements (one 64-bit remainder per thread and tile); rows of at most 4096 elements put a head in every tile, so a tile's carry is its predecessor's aggregate alone; longer rows chain as `scan` does |
//! | `scan_segments`, `exclusive_scan_segments` | the same over CSR offsets: each block finds the segments starting in its tile (a 32-way warp search of the offsets) and marks their heads in shared memory; tiles chain as `scan` does |
//!
//! Segmented scans restart at each segment's first element (exclusive ones give the identity
//! there), combine in element order within a segment, and take any `#[reduce]` operator.
//!
//! ```
//! use warp_runtime::prelude::*;
//! #[reduce(identity = 0.0)]
//! fn sum(a: f32, b: f32) -> f32 { a + b }
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::auto()?;
//! let xs = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
//! assert_eq!(dev.scan(sum, &xs)?.download()?, [1.0, 3.0, 6.0, 10.0]);
//! assert_eq!(dev.scan_rows(sum, &xs, 2)?.download()?, [1.0, 3.0, 3.0, 7.0]);
//! let offsets = dev.upload(&[0u64, 1, 1, 4])?; // [1], [], [2, 3, 4]
//! assert_eq!(dev.exclusive_scan_segments(sum, &xs, &offsets)?.download()?, [0.0, 0.0, 2.0, 5.0]);
//! # Ok(()) }
//! ```
//!
//! Top-k: [`Device::top_k`] and [`Device::bottom_k`] return the k (up to 1,024) largest or
//! smallest elements of an array of any element type, sorted, with their indices ([`TopK`]);
//! ties to the smaller index, NaN above `+inf` ([`Ordered`] gives the order). CUDA pattern:
//! on large inputs a sample level (one element in 16, as the maxima of disjoint groups, warp
//! shuffles) whose last block (a ticket) radix-selects the k-th largest maximum as the first
//! global bound; then one read of the input, in which each warp votes (`__ballot_sync`, ranks
//! by `__popc`) on whether its elements' order keys beat the block's running threshold and the
//! global bound (`atomicMax`), and compacts the passing ones into shared memory, while L2 is
//! asked for later steps (`prefetch.global.L2`); a radix select over 8-bit digits (shared
//! histogram, block scan) refines the block's candidates when they fill; the blocks' best k
//! are appended to one list (an atomic count), and the last block to finish (a ticket) sorts
//! its best k (bitonic, in shared memory), or, for a long list, the same kernel trims it
//! first, 8,192 candidates per block.
//!
//! ```
//! use warp_runtime::prelude::*;
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let xs = dev.upload(&[2.5f32, -1.0, 7.0, 2.5])?;
//! let TopK { values, indices } = dev.top_k(&xs, 2)?;
//! assert_eq!((values.download()?, indices.download()?), (vec![7.0, 2.5], vec![2, 0]));
//! assert_eq!(dev.bottom_k(&xs, 1)?.values.download()?, [-1.0]);
//! # Ok(()) }
//! ```
//!
//! ## Several arrays, f16/bf16, structs
//!
//! `#[map(inputs = N)]` and `#[predicate(inputs = N)]` (N = 2 to 4) take one element of each of
//! `N` equally long arrays as their first `N` parameters; pass the arrays zipped as a tuple of
//! references (any [`Array`]: `DeviceVec`, views, `CudaSlice`, `CudaView`). Every element
//! operation takes them; [`Zip::map`] maps them lazily and [`Zip::keep`] makes `filter` and
//! `partition` keep one array's elements. One kernel reads each array once, with vector loads
//! of each array where its alignment allows. Arrays of different lengths are an
//! [`Error::Shape`].
//!
//! ```
//! use warp_runtime::prelude::*;
//! #[map(inputs = 2)]
//! fn mul(x: f32, y: f32) -> f32 { x * y }
//! #[reduce(identity = 0.0)]
//! fn sum(a: f32, b: f32) -> f32 { a + b }
//! #[predicate(inputs = 2)]
//! fn close(x: f32, y: f32, tol: f32) -> bool { (x - y).abs() <= tol }
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let (xs, ys) = (dev.upload(&[1.0f32, 2.0, 3.0])?, dev.upload(&[1.0f32, 2.5, 3.0])?);
//! assert_eq!(dev.map_reduce(mul, sum, &(&xs, &ys))?, 15.0);
//! assert_eq!(dev.count(close.with(0.1), &(&xs, &ys))?, 2);
//! assert_eq!(dev.filter(close.with(0.1), &(&xs, &ys).keep::<1>())?.download()?, [1.0, 3.0]);
//! # Ok(()) }
//! ```
//!
//! `f16` and `bf16` (the [`half`] crate's, in the prelude) are element and value types:
//! arithmetic goes through f32 and rounds back exactly as `half` does; `to_f32`, `from_f32`,
//! `from_bits`, `max`, `is_nan`, the constants and the rest are listed in README.md; there are
//! no `as` casts or literals of them (they are not primitives).
//!
//! ```
//! use warp_runtime::prelude::*;
//! #[map]
//! fn widen(x: bf16) -> f32 { x.to_f32() }
//! #[reduce(identity = 0.0)]
//! fn sum(a: f32, b: f32) -> f32 { a + b }
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let acts = dev.upload(&[bf16::from_f32(1.5), bf16::from_f32(-0.25)])?;
//! assert_eq!(dev.map_reduce(widen, sum, &acts)?, 1.25);
//! # Ok(()) }
//! ```
//!
//! `#[derive(DeviceValue)]` on a `#[repr(C)]` struct of named scalar fields makes it a value
//! type (a map's output, a reduction's value, a predicate's input; results of scans and axis
//! reductions are `DeviceTuples` of it; [`Device::upload_values`] uploads arrays of it). Bodies
//! in the same crate read its fields by name and build it with struct literals; its C layout is
//! checked against Rust's at compile time.
//!
//! ```
//! use warp_runtime::prelude::*;
//! #[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
//! #[repr(C)]
//! pub struct MinMax { lo: f32, hi: f32 }
//! #[map]
//! fn both(x: f32) -> MinMax { MinMax { lo: x, hi: x } }
//! #[reduce(identity = MinMax { lo: f32::INFINITY, hi: f32::NEG_INFINITY })]
//! fn extent(a: MinMax, b: MinMax) -> MinMax { MinMax { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi) } }
//! # fn main() -> warp_runtime::Result<()> {
//! let dev = Device::cpu();
//! let xs = dev.upload(&[3.0f32, -1.0, 7.5])?;
//! assert_eq!(dev.reduce(extent, &xs.map(both))?, MinMax { lo: -1.0, hi: 7.5 });
//! # Ok(()) }
//! ```
//!
//! ## Streams, the caller's memory, and what waits
//!
//! A `Device` on a GPU runs its operations on one CUDA stream: its own (`Device::cuda`), the
//! caller's cudarc stream (`Device::from_stream`, `dev.with_stream(stream)`), or a new one of
//! the same GPU (`dev.fork()`). The runtime is built on the re-exported [`cudarc`], and every
//! operation takes the caller's `&CudaSlice<T>` and `CudaView<'_, T>` as inputs (borrowed;
//! `.map(f)` and `.indexed()` through [`CudaInput`]); the `_into` forms write into a
//! `DeviceVec`, `DeviceTuples`, `CudaSlice` or `CudaViewMut`; `DeviceVec::from_cuda` and
//! `DeviceVec::into_cuda` convert without copying. Memory is shared by every device of one
//! GPU context (two `Device::cuda(0)` included), and by every CPU-backend device.
//!
//! What waits, on a GPU:
//!
//! - On one `Device`, work runs in the order it was called (one stream).
//! - Operations that return host values wait for their result, and so for the work queued
//!   before them on that device: `reduce`, `map_reduce`, `count`, `any`, `all`,
//!   `find_first`, `filter`, `partition` and `partition3` (for the counts), `unique`,
//!   `unique_by`, `run_length_encode`, `reduce_by_key` and their `_by` forms (for the number
//!   of runs), `reduce_segments`, `scan_segments` and `exclusive_scan_segments` (their `_into`
//!   forms too: to check the offsets), and `download`. A kernel fault surfaces at such a
//!   wait.
//! - Nothing else waits: the `_on_device` forms (`reduce_on_device`, `count_on_device`, ...)
//!   return a [`DeviceScalar`], the other `_into` forms write the caller's arrays, and `scan`,
//!   `map`, `reduce_rows`, `reduce_cols`, `transpose`, `mask`, `histogram`,
//!   `histogram_even`, `top_k` and `bottom_k` return device arrays, all
//!   with their kernels queued. `DeviceScalar::get` waits for the work computing that result
//!   (and what was queued before it on its device), not for work queued after it;
//!   `Device::synchronize` waits for everything.
//! - A `DeviceScalar` bound as a parameter (`above.with(&total)`) is read by the kernel on the
//!   device. On the device that computed it, the kernel runs after; on another device of the
//!   GPU, that device's stream waits for it (an event), and the producer's stream waits for
//!   the kernel before reusing the result's memory.
//! - Across devices (streams), arrays carry cudarc's events: a kernel reading a `DeviceVec` or
//!   `CudaSlice` waits for the writes queued on it on other streams, and a kernel writing it
//!   waits for earlier reads and writes (cudarc's event tracking, on by default; a caller who
//!   turned it off orders by hand). For anything else, `b.wait_for(&a)` makes the work queued
//!   on `b` afterwards wait for all the work queued on `a` so far.
//! - Each device keeps its own scratch and result slots (cached, grown only when an operation
//!   needs more than before): a loop of `_into` and `_on_device` operations allocates no
//!   device memory once warm (`Device::allocations` counts). Running out of memory is an
//!   [`Error::OutOfMemory`] naming the bytes asked for and free; the device stays usable.
//!
//! On the CPU backend everything runs at once and `DeviceScalar`s hold their values. Its
//! arrays live in host memory: an upload, a copy or a result whose memory cannot be reserved
//! is an [`Error::OutOfMemory`] (with `free` 0); host memory running out later, inside an
//! operation's own work, aborts the process, as Rust's allocator does.
//!
//! ## Environment and observability
//!
//! Every environment variable is read by [`settings`] (its docs have the table): `WARP_DEVICE`
//! (`cpu`, `cuda`, `cuda:N`: the backend of `Device::auto()`), `WARP_QUIET`, `WARP_CACHE`,
//! `WARP_CACHE_DIR`, `WARP_CACHE_MAX_MB` (default 512: least recently used kernels are deleted
//! beyond it), `WARP_NVRTC_PATH`, `WARP_CUDA_DRIVER_PATH`, `WARP_CUDA_INCLUDE`,
//! `WARP_TILE_QUEUE`, `WARP_POISON`. Booleans are `1`/`0`/`true`/`false`/`on`/`off`; any other
//! value is an [`Error::Setting`] that lists those, returned by what reads the variable:
//! `Device::auto()` (`WARP_DEVICE`, `WARP_QUIET`), and `Device::cuda`, so also
//! `Device::auto()` on a machine with a GPU (`WARP_TILE_QUEUE`, `WARP_POISON`, `WARP_CACHE`,
//! `WARP_CACHE_MAX_MB`); operations on the CPU backend read none of them.
//!
//! The library prints nothing. Compiles (a `warp_dsl.compile` span with the operator's name
//! and its Rust `file:line`), kernel-cache hits, misses, repairs and evictions, module loads,
//! launch configurations and `Device::auto()`'s choice (a warning when it falls back to the
//! CPU) are [`tracing`](https://docs.rs/tracing) events; install a subscriber
//! (`tracing_subscriber::fmt().init()`, say) to see them.

#![warn(missing_docs)]

// The macros name the runtime by its absolute path; the histogram's built-in bin maps use them
// inside the crate.
extern crate self as warp_runtime;

// The layers, from the bottom: values; the toolchain (driver and NVRTC, compile, cache); the
// backends (CPU; CUDA: context and stream, memory, modules, the typed launcher, each family's
// launches); the device; arrays (and device-resident results); operators; inputs; the
// operations, one file per family.
mod arrays;
mod backend;
mod device;
mod error;
mod inputs;
mod operations;
mod operators;
pub mod semantics;
pub mod settings;
pub mod toolchain;
mod values;

pub use arrays::{
    ArrayOf, DeviceScalar, DeviceSlice, DeviceTuples, DeviceVec, OutputArray, Readout, ValueArray,
};
pub use backend::cpu::CHUNK as CPU_CHUNK;
pub use backend::cuda::LoadReport;
/// The cudarc the runtime is built on, so that callers name the same types (`CudaSlice`,
/// `CudaStream`, ...).
pub use cudarc;
pub use device::Device;
pub use error::{Error, Result};
/// The `half` crate, whose `f16` and `bf16` are element types (also in the prelude).
pub use half;
pub use inputs::{
    Array, AsSlice, AxisInput, CudaInput, ElementInput, Field, Indexed, Keeping, Mapped,
    ReduceInput, Zip,
};
pub use operations::{BinIndex, Counter, EvenSample, HISTOGRAM_MAX_BINS, histogram_module};
pub use operations::{
    ByKey, Equal, RUN_VALUE_MAX_BYTES, RunCount, Runs, SameKeys, reduce_by_key_input_module,
    reduce_by_key_module, run_length_module, unique_module,
};
pub use operations::{
    Split, Split3, TopK, axis_module, map_module, partition3_module, predicate_module,
    reduce_module, topk_module, transpose_module,
};
pub use operators::{
    ArgBits, Bind, BoundArg, BoundArgs, FnMeta, MapOp, OpMeta, Predicate, ReduceOp,
};
pub use values::{DeviceValue, Element, IndexInt, Ordered, Row};
pub use warp_macros::{DeviceValue, map, predicate, reduce};

/// What the macros' expansions name; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::inputs::{IndexKey, KeepKey, Stage};
    pub use crate::values::Sealed;
    pub use warp_kernels::{FnFragment, OpFragment, Redux, Scalar, Style};
    pub use warp_macros::resume;
}

/// Everything a program using warp-dsl needs: `use warp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        ByKey, CudaInput, Device, DeviceScalar, DeviceSlice, DeviceTuples, DeviceValue, DeviceVec,
        Equal, Error, MapOp, OutputArray, Predicate, ReduceOp, Runs, TopK, ValueArray, Zip, map,
        predicate, reduce,
    };
    pub use half::{bf16, f16};
}
