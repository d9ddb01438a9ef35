#![doc = include_str!("docs/overview.md")]
#![doc = include_str!("docs/operators.md")]
#![doc = include_str!("docs/reduce.md")]
#![doc = include_str!("docs/predicates.md")]
#![doc = include_str!("docs/scans.md")]
#![doc = include_str!("docs/runs.md")]
#![doc = include_str!("docs/map.md")]
#![doc = include_str!("docs/histogram.md")]
#![doc = include_str!("docs/axes.md")]
#![doc = include_str!("docs/topk.md")]
#![doc = include_str!("docs/sort.md")]
#![doc = include_str!("docs/search.md")]
#![doc = include_str!("docs/inputs.md")]
#![doc = include_str!("docs/devices.md")]
#![doc = include_str!("docs/errors.md")]
#![doc = include_str!("docs/settings.md")]
#![warn(missing_docs)]

// The macros name the runtime by its absolute path; the histogram's built-in bin maps use them
// inside the crate.
extern crate self as warp_runtime;

// The layers, from the bottom: values; the toolchain (driver and NVRTC, compile, cache); the
// backends (CPU; CUDA: context and stream, memory, modules, the typed launcher, each family's
// launches); the device; arrays (and device-resident results); operators; inputs; generated
// ranges; the operations, one file per family.
mod arrays;
mod backend;
mod device;
mod error;
mod gathers;
mod group;
mod inputs;
mod operations;
mod operators;
mod ranges;
#[cfg(feature = "nccl")]
mod ranks;
pub mod semantics;
pub mod settings;
mod strides;
pub mod toolchain;
mod values;

pub use arrays::{
    ArrayOf, DeviceScalar, DeviceTuples, DeviceVec, DeviceView, OutputArray, Readout, ValueArray,
};
pub use backend::cuda::LoadReport;
/// The cudarc the runtime is built on, so that callers name the same types (`CudaSlice`,
/// `CudaStream`, ...).
pub use cudarc;
pub use device::Device;
pub use error::{Error, Result};
pub use gathers::{Gather, GatherMap, Gathered};
pub use group::{DeviceGroup, ShardedVec};
/// The `half` crate, whose `f16` and `bf16` are element types (also in the prelude).
pub use half;
pub use inputs::{
    Array, AsSlice, Chained, Column, CudaInput, ElementInput, Field, Filter, Indexed, Keeping,
    Mapped, Masked, ReduceInput, Take, Taken, Zip,
};
pub use operations::{BinIndex, Counter, EvenSample, HISTOGRAM_MAX_BINS, ScatterIndex, Weight};
pub use operations::{ByKey, Equal, RUN_VALUE_MAX_BYTES, RunCount, Runs, SameKeys};
pub use operations::{SortByInput, SortOrder, SortValue, Split, Split3, TopK, TopKRows};
pub use operators::{ArgBits, Bind, BoundArg, BoundArgs, MapOp, Predicate, ReduceOp};
pub use ranges::{DeviceRange, RangeIndex, RangeMap};
#[cfg(feature = "nccl")]
pub use ranks::{Rank, nccl_available, nccl_id};
pub use settings::Settings;
pub use strides::{StepBy, Strided, StridedMap};
pub use values::{DeviceValue, Element, IndexInt, Ordered, Row};
pub use warp_macros::{DeviceValue, map, predicate, reduce};

/// What the macros' expansions and the tests name: the operators' fragments (`OpMeta`,
/// `FnMeta`), the CUDA source each operation composes (`*_module`), the CPU backend's chunk.
/// Not part of the API: it may change in any release.
#[doc(hidden)]
pub mod impl_ {
    pub use crate::backend::cpu::CHUNK as CPU_CHUNK;
    pub use crate::gathers::GatherKey;
    pub use crate::inputs::{
        ChainKey, Generated, IndexKey, KeepKey, Kind, Kinds, MaskKey, Stage, Stored,
    };
    pub use crate::operations::{
        argwhere_module, axis_module, collect_module, group_module, histogram_module,
        histogram_reduce_module, histogram_weighted_module, map_module, merge_module,
        merge_values_module, partition3_module, predicate_module, reduce_by_key_input_module,
        reduce_by_key_module, reduce_module, run_length_module, scatter_module, search_module,
        sort_module, sort_module_on, topk_module, transpose_module, unique_module,
    };
    pub use crate::operators::{FnMeta, OpMeta};
    pub use crate::ranges::RangeKey;
    pub use crate::strides::StridedKey;
    pub use crate::values::Sealed;
    pub use std::borrow::Cow;
    pub use warp_kernels::family::sort::SortMoves;
    pub use warp_kernels::{FnFragment, OpFragment, Redux, Scalar, Style};
    pub use warp_macros::resume;
}

/// Everything a program using warp-dsl needs: `use warp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        ByKey, CudaInput, Device, DeviceScalar, DeviceTuples, DeviceValue, DeviceVec, DeviceView,
        Equal, Error, Filter, Gather, MapOp, OutputArray, Predicate, ReduceOp, Runs, SortOrder,
        StepBy, Take, TopK, TopKRows, ValueArray, Zip, map, predicate, reduce,
    };
    pub use half::{bf16, f16};
}
