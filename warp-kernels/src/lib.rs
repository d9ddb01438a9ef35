//! warp-kernels: the back end of warp-dsl, free of `syn`. It holds the typed IR of the body
//! language, its lowering to CUDA C, the one table of built-ins, the CUDA templates, the typed
//! catalogue of kernels, and the one assembler of CUDA modules. The macros (through
//! kernels-gen, at compile time) and the runtime (for compositions, at run time) both call it.
//!
//! - [`types`]: the value types (Rust scalars, flat tuples) and their CUDA spellings;
//! - [`ir`]: the checked, typed IR that kernels-gen's checker builds;
//! - [`builtins`]: the built-in methods and constants, with their CUDA spellings;
//! - [`lower`]: IR to a CUDA `__device__` function with Rust semantics;
//! - [`patterns`]: operators a single warp instruction computes (`redux.sync`);
//! - [`catalogue`]: every kernel's entry name, parameters and block size, and the constants
//!   the templates share with the runtime;
//! - [`family`]: each kernel family in one file (its kernels, constants, module function);
//! - [`module`]: fragments, the stage and templates to the complete source of one module.
//!
//! ```
//! use warp_kernels::{catalogue, module};
//! let src = module::transpose_module(warp_kernels::Scalar::F32);
//! assert!(src.contains("#define WD_BLOCK 256"));
//! assert!(src.contains(catalogue::TRANSPOSE.name));
//! ```

#![warn(missing_docs)]

pub mod builtins;
pub mod catalogue;
pub mod family;
pub mod ir;
pub mod lower;
pub mod module;
pub mod patterns;
pub mod types;

pub use module::{FnFragment, OpFragment, Pick, Source, Style};
pub use patterns::Redux;
pub use types::{ALL_SCALARS, HALVES, MAX_TUPLE, Scalar, Ty};
