//! The typed catalogue of kernels: the kernel type (entry name, parameter list, block size,
//! body), the constants every family's templates share with the runtime (block and tile sizes,
//! the limits of a stage), and, re-exported from `family/<f>.rs`, each family's kernels and
//! constants, so the runtime names every kernel as `catalogue::NAME`. Modules get the constants
//! as `#define`s and their `extern "C"` signatures from these parameter lists, so neither side
//! can drift from the other.

use std::fmt::Write;

use crate::family::FAMILIES;
use crate::patterns::Redux;

pub use crate::family::axes::*;
pub use crate::family::group::*;
pub use crate::family::histogram::*;
pub use crate::family::map::*;
pub use crate::family::merge::*;
pub use crate::family::predicates::*;
pub use crate::family::reduce::*;
pub use crate::family::runs::*;
pub use crate::family::scans::*;
pub use crate::family::search::*;
pub use crate::family::sort::*;
pub use crate::family::topk::*;

/// Threads per block of every kernel but the column reduction.
pub const BLOCK: u32 = 256;
/// 16-byte loads each thread of a reduction keeps in flight.
pub const UNROLL: u32 = 4;
/// Elements per lane of a warp tile (predicates, compaction, scan).
pub const ITEMS: u32 = 16;
/// Elements of a warp tile: 32 lanes x [`ITEMS`].
pub const TILE: usize = 32 * ITEMS as usize;
/// Elements of a block tile of the single-pass kernels (compaction, scan): one warp tile per
/// warp.
pub const BLOCK_TILE: usize = TILE * (BLOCK as usize / 32);
/// The most arrays one stage reads, zipped (the slots of `wd_in`).
pub const MAX_INPUTS: usize = 4;
/// The most parameters bound at call time in one function, and in a map and a predicate
/// composed into one kernel (the 64-bit words of `wd_args`): the macros refuse more in one
/// function, the runtime more in a composition.
pub const BOUND_ARGS: usize = 8;
/// Values of at most this many bytes share one 64-bit word with their look-back state.
pub const STATUS_PACK_MAX: usize = 4;

/// Bytes of look-back status for `tiles` tiles of values of `value_size` bytes (the layout of
/// `wd_tile_status` in lookback.cuh: one packed word per tile for values of at most
/// [`STATUS_PACK_MAX`] bytes; else state words, then 16-byte aligned aggregates and inclusive
/// prefixes).
pub const fn status_bytes(tiles: usize, value_size: usize) -> usize {
    if value_size <= STATUS_PACK_MAX {
        tiles * 8
    } else {
        (tiles * 4).next_multiple_of(16) + 2 * tiles * value_size
    }
}

/// The constants every family's templates read, as (define, value); each family adds its own
/// (`family::<f>::DEFINES`). All are emitted at the top of every module ([`defines`]).
pub const SHARED_DEFINES: &[(&str, u64)] = &[
    ("WD_BLOCK", BLOCK as u64),
    ("WD_UNROLL", UNROLL as u64),
    ("WD_ITEMS", ITEMS as u64),
    ("WD_STATUS_PACK_MAX", STATUS_PACK_MAX as u64),
    ("WD_MAX_INPUTS", MAX_INPUTS as u64),
    ("WD_BOUND_ARGS", BOUND_ARGS as u64),
];

/// Every constant the templates read: the shared ones, then each family's, in the order of
/// [`FAMILIES`].
pub fn all_defines() -> impl Iterator<Item = &'static (&'static str, u64)> {
    SHARED_DEFINES
        .iter()
        .chain(FAMILIES.iter().flat_map(|f| f.defines.iter()))
}

/// The `#define` block of [`all_defines`] and of the warp instructions an operator may be
/// recognised as ([`Redux`]).
pub fn defines() -> String {
    let mut s = String::from("// ---- shared constants (warp_kernels::catalogue) ----\n");
    for (name, value) in all_defines() {
        let _ = writeln!(s, "#define {name} {value}");
    }
    for r in std::iter::once(None).chain(Redux::ALL.map(Some)) {
        let _ = writeln!(s, "#define {} {}", Redux::c_const(r), Redux::c_value(r));
    }
    s
}

/// What a pointer parameter points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pointee {
    /// The module's element type (what the input array holds).
    Elem,
    /// The module's value type (what the operator combines, or what compaction keeps).
    Value,
    /// Bytes (`unsigned char`).
    U8,
    /// `unsigned int` words.
    U32,
    /// `wd_u64` words.
    U64,
}

/// The type of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamTy {
    /// A pointer the kernel only reads (`const T*`).
    In(Pointee),
    /// A pointer the kernel writes (and may read): `T*`.
    Out(Pointee),
    /// A `wd_u64` passed by value.
    U64,
    /// An `unsigned int` passed by value.
    U32,
    /// The bound arguments of maps and predicates (`wd_args`: [`BOUND_ARGS`] 64-bit words).
    Args,
    /// The arrays the module's stage reads (`wd_in`: the device addresses of up to four
    /// equally long arrays, zipped; unused ones null).
    Input,
}

impl ParamTy {
    /// The C type of the parameter in a module whose element and value types are `elem` and
    /// `value` (C spellings).
    pub fn c_type(self, elem: &str, value: &str) -> String {
        let pointee = |p: Pointee| match p {
            Pointee::Elem => elem.to_string(),
            Pointee::Value => value.to_string(),
            Pointee::U8 => "unsigned char".into(),
            Pointee::U32 => "unsigned int".into(),
            Pointee::U64 => "wd_u64".into(),
        };
        match self {
            ParamTy::In(p) => format!("const {}*", pointee(p)),
            ParamTy::Out(p) => format!("{}*", pointee(p)),
            ParamTy::U64 => "wd_u64".into(),
            ParamTy::U32 => "unsigned int".into(),
            ParamTy::Args => "wd_args".into(),
            ParamTy::Input => "wd_in".into(),
        }
    }
}

/// A kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its C name (the kernel body refers to it).
    pub name: &'static str,
    /// Its type.
    pub ty: ParamTy,
}

/// Threads per block a kernel is built for (its `__launch_bounds__`) and launched with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// [`BLOCK`].
    Block,
    /// [`COLS_BLOCK`].
    Cols,
    /// [`COLS_VEC_BLOCK`].
    ColsVec,
    /// [`ROWS_BLOCK_THREADS`].
    RowsBlock,
    /// [`SORT_BLOCK`].
    Sort,
    /// [`SORT_ROW_KEYS_BLOCK`].
    SortRowKeys,
}

impl Threads {
    /// The number of threads.
    pub const fn count(self) -> u32 {
        match self {
            Threads::Block => BLOCK,
            Threads::Cols => COLS_BLOCK,
            Threads::ColsVec => COLS_VEC_BLOCK,
            Threads::RowsBlock => ROWS_BLOCK_THREADS,
            Threads::Sort => SORT_BLOCK,
            Threads::SortRowKeys => SORT_ROW_KEYS_BLOCK,
        }
    }

    /// The define that holds it.
    pub const fn define(self) -> &'static str {
        match self {
            Threads::Block => "WD_BLOCK",
            Threads::Cols => "WD_COLS_BLOCK",
            Threads::ColsVec => "WD_COLS_VEC_BLOCK",
            Threads::RowsBlock => "WD_ROWS_BLOCK_THREADS",
            Threads::Sort => "WD_SORT_BLOCK",
            Threads::SortRowKeys => "WD_SORT_ROW_KEYS_BLOCK",
        }
    }
}

/// One kernel entry point.
#[derive(Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The `extern "C"` entry name.
    pub name: &'static str,
    /// Its parameters, in order.
    pub params: &'static [Param],
    /// Threads per block.
    pub threads: Threads,
    /// The minimum resident blocks per SM of `__launch_bounds__`, as a C expression, if any.
    pub min_blocks: Option<&'static str>,
    /// The body: C statements calling the templates, naming the parameters (`WD_STAGE` builds
    /// the module's stage `st` from `in`, `n` and `a`).
    pub body: &'static str,
}

impl Kernel {
    /// The kernel's definition in a module whose element and value types are `elem` and
    /// `value` (C spellings).
    pub fn definition(&self, elem: &str, value: &str) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{} {}", p.ty.c_type(elem, value), p.name))
            .collect();
        let bounds = match self.min_blocks {
            Some(m) => format!("{}, {m}", self.threads.define()),
            None => self.threads.define().to_string(),
        };
        format!(
            "extern \"C\" __global__ void __launch_bounds__({bounds})\n{}({}) {{\n{}\n}}\n",
            self.name,
            params.join(", "),
            self.body
                .lines()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    }

    /// The parameter types, in order.
    pub fn param_types(&self) -> impl Iterator<Item = ParamTy> + '_ {
        self.params.iter().map(|p| p.ty)
    }
}

pub(crate) const fn p(name: &'static str, ty: ParamTy) -> Param {
    Param { name, ty }
}

pub(crate) const fn kernel(
    name: &'static str,
    params: &'static [Param],
    body: &'static str,
) -> Kernel {
    Kernel {
        name,
        params,
        threads: Threads::Block,
        min_blocks: None,
        body,
    }
}

/// [`kernel`] with a floor of resident blocks per SM (`__launch_bounds__`' second argument, a
/// C expression over the module's stage): a register cap that keeps more tiles in flight.
pub(crate) const fn kernel_min(
    name: &'static str,
    params: &'static [Param],
    min_blocks: &'static str,
    body: &'static str,
) -> Kernel {
    Kernel {
        min_blocks: Some(min_blocks),
        ..kernel(name, params, body)
    }
}

/// What every family file imports: the kernel type and its constructors, the parameter types
/// and the shared constants.
pub(crate) mod kit {
    pub(crate) use super::ParamTy::{Args, In, Input, Out, U32, U64};
    pub(crate) use super::Pointee::{Elem, Value};
    pub(crate) use super::{
        BLOCK, BLOCK_TILE, Kernel, Param, Pointee, STATUS_PACK_MAX, Threads, kernel, kernel_min, p,
        status_bytes,
    };
}

/// Every kernel of the catalogue, family by family.
pub fn all() -> impl Iterator<Item = &'static Kernel> {
    FAMILIES.iter().flat_map(|f| f.kernels.iter()).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let names: Vec<&str> = all().map(|k| k.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
    }

    #[test]
    fn definitions_spell_the_parameters() {
        let d = REDUCE.definition("wd_f32", "wd_f32");
        assert!(d.starts_with(
            "extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)\nwd_k_reduce(wd_in in, wd_u64 n, wd_args a, wd_f32* partials, unsigned int* ticket, wd_f32* out, unsigned int* done) {"
        ), "{d}");
        assert!(
            COLS.definition("e", "v")
                .contains("__launch_bounds__(WD_COLS_BLOCK)")
        );
    }

    #[test]
    fn derived_sizes() {
        assert_eq!(TILE, 512);
        assert_eq!(BLOCK_TILE, 4096);
        assert_eq!(transpose_tile(4), (64, 64));
        assert_eq!(transpose_tile(16), (32, 32));
        assert_eq!(status_bytes(3, 4), 24);
        assert_eq!(status_bytes(3, 8), 16 + 48);
        assert_eq!(hist_replicas(256), 32);
        assert_eq!(hist_replicas(263), 32);
        assert_eq!(hist_replicas(264), 16);
        assert_eq!(hist_replicas(512), 16);
        assert_eq!(hist_replicas(1), 32);
        assert_eq!(hist_replicas(2048), 4);
        assert_eq!(hist_replicas(8192), 1);
        assert_eq!(hist_replicas(12287), 1);
        assert_eq!(hist_replicas(12288), 0);
        assert_eq!(hist_replicas(HISTOGRAM_MAX_BINS), 0);
        assert_eq!(hist_replicas_of(256, 8), 16);
        assert_eq!(hist_replicas_of(6143, 8), 1);
        assert_eq!(hist_replicas_of(6144, 8), 0);
        // Few long rows of a top-k split into pieces of at least 8k columns, at most 64: one
        // wave of the read-once kernel (here 3 blocks an SM of 132), or the radix select's
        // (about 4 blocks an SM) where those would be too short to read once.
        assert_eq!(topk_row_pieces(64, 128_256, 50, 132, 396), 6);
        assert_eq!(topk_row_pieces(16, 400_000, 50, 132, 396), 24);
        assert_eq!(topk_row_pieces(256, 32_768, 256, 132, 396), 1);
        assert_eq!(topk_row_pieces(256, 32_768, 1000, 132, 396), 1);
        assert_eq!(topk_row_pieces(40, 20_000, 50, 132, 396), 14);
        assert_eq!(topk_row_pieces(4, 128_256, 50, 132, 396), 64);
        assert_eq!(topk_row_pieces(300, 5_000, 50, 132, 396), 1);
        assert_eq!(topk_row_pieces(4096, 32_768, 50, 132, 396), 1);
        assert_eq!(topk_row_pieces(7, 5000, 1024, 132, 396), 1);
        assert_eq!(topk_row_pieces(1, 10, 1, 132, 396), 1);
        assert_eq!(ScanMode::Tree.slots(3), 6);
        assert_eq!(ScanMode::Predecessor.slots(3), 3);
        // (value, head) pairs: packed with the state up to 4-byte values, else at most 16
        // bytes more than the value.
        assert_eq!(scan_status_bytes(3, 4, true), 24);
        assert_eq!(scan_status_bytes(3, 8, true), 16 + 2 * 3 * 24);
        assert_eq!(scan_status_bytes(3, 8, false), status_bytes(3, 8));
        assert_eq!(scan_span(&[4], 4), SCAN_SPAN);
        assert_eq!(scan_span(&[1], 4), SCAN_SPAN);
        assert_eq!(scan_span(&[2, 2], 4), 1);
        assert_eq!(scan_span(&[8], 4), 1);
        assert_eq!(scan_span(&[4], 8), 1);
        // Exact sums: packed words, then a 64-byte prefix slot per tile.
        assert_eq!(EXACT_SUM_SLOT_BYTES, 64);
        assert_eq!(ScanMode::ExactSum.status_bytes(3, 4, false), 32 + 3 * 64);
        assert_eq!(ScanMode::Tree.status_bytes(3, 4, false), 6 * 8);
        // The tree's status fits in an exact sum's (a non-f32 scan asked for an exact sum
        // falls back to the tree in the kernel).
        for tiles in [1, 2, 3, 1000] {
            assert!(
                ScanMode::Tree.status_bytes(tiles, 4, false)
                    <= ScanMode::ExactSum.status_bytes(tiles, 4, false)
            );
        }
    }
}
