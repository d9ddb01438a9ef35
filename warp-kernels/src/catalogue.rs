//! The typed catalogue of kernels: each kernel's entry name, parameter list and block size,
//! and the constants the CUDA templates share with the runtime (block, tile and chunk sizes),
//! written once here. Modules get the constants as `#define`s and their `extern "C"`
//! signatures from these parameter lists, so neither side can drift from the other.

use std::fmt::Write;

use crate::patterns::Redux;

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
/// Threads per block of the column reduction: 32 warps, one per row of the `[32][33]` tile.
pub const COLS_BLOCK: u32 = 1024;
/// Columns of one column-reduction tile (a warp reads 32 consecutive elements of a row).
pub const COLS_TILE: usize = 32;
/// Row loads in flight per thread of the column reduction.
pub const COLS_UNROLL: u32 = 8;
/// Loads in flight per lane of the row and segment reductions.
pub const AXIS_UNROLL: u32 = 4;
/// Segments of up to 32 elements reduced together by one warp.
pub const SEG_WAYS: u32 = 4;
/// Segments longer than this many elements are not reduced by one warp (`wd_k_segments`) but
/// listed for the whole grid (`wd_k_segments_long`).
pub const SEG_LONG: usize = 8192;
/// Elements per block-sized chunk of a long segment.
pub const SEG_CHUNK: usize = 32768;
/// The transpose tile is `32 * TRANSPOSE_M` rows by `32 * TRANSPOSE_N` columns for elements of
/// at most [`TRANSPOSE_WIDE_MAX`] bytes, 32 x 32 for wider ones.
pub const TRANSPOSE_M: u32 = 2;
/// See [`TRANSPOSE_M`].
pub const TRANSPOSE_N: u32 = 2;
/// The widest element (bytes) that takes the large transpose tile.
pub const TRANSPOSE_WIDE_MAX: usize = 8;
/// Copies of the stop signal that `wd_k_any` and `wd_k_find_first` read before every tile,
/// spread over L2 slices so that the reads of all warps do not queue on one (see
/// predicate.cuh). The signal buffer holds `STOP_COPIES * STOP_STRIDE` bytes; copy 0 is the
/// result.
pub const STOP_COPIES: usize = 32;
/// Bytes between two copies of the stop signal.
pub const STOP_STRIDE: usize = 512;
/// The most arrays one stage reads, zipped (the slots of `wd_in`).
pub const MAX_INPUTS: usize = 4;
/// The most parameters bound at call time in one function, and in a map and a predicate
/// composed into one kernel (the 64-bit words of `wd_args`): the macros refuse more in one
/// function, the runtime more in a composition.
pub const BOUND_ARGS: usize = 8;
/// Values of at most this many bytes share one 64-bit word with their look-back state.
pub const STATUS_PACK_MAX: usize = 4;

/// The transpose tile (rows, columns) for elements of `elem_size` bytes.
pub const fn transpose_tile(elem_size: usize) -> (usize, usize) {
    if elem_size <= TRANSPOSE_WIDE_MAX {
        (32 * TRANSPOSE_M as usize, 32 * TRANSPOSE_N as usize)
    } else {
        (32, 32)
    }
}

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

/// Where a tile of the single-pass scans (`wd_k_scan`, `wd_k_scan_rows`, `wd_k_scan_segments`)
/// gets its exclusive prefix (their `mode` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ScanMode {
    /// Decoupled look-back: the fastest; how it groups tiles depends on timing, so only for
    /// exact operators (no floats).
    LookBack = 0,
    /// The fixed tree of `wd_prefix_tree` (lookback.cuh): every grouping a function of the
    /// tile number, so floats give the same bits every run.
    Tree = 1,
    /// The predecessor's aggregate alone: segmented scans whose segments are at most
    /// [`BLOCK_TILE`] elements long (every tile holds a head).
    Predecessor = 2,
    /// Float sums (`OpFragment::f32_sum`: f32 values, no segments): the look-back over exact
    /// sums of the tiles' aggregates (`wd_exact32` in lookback.cuh, [`EXACT_SUM_BYTES`] each),
    /// rounded once, so the same bits every run whatever the grouping.
    ExactSum = 3,
}

impl ScanMode {
    /// Look-back status slots the mode uses for `tiles` tiles: two per tile for the tree (its
    /// nodes), one otherwise.
    pub const fn slots(self, tiles: usize) -> usize {
        match self {
            ScanMode::Tree => 2 * tiles,
            ScanMode::LookBack | ScanMode::Predecessor | ScanMode::ExactSum => tiles,
        }
    }

    /// Bytes of status for a scan of `tiles` tiles in this mode over values of `value_size`
    /// bytes (see [`scan_status_bytes`]; an exact sum's slots hold `wd_exact32`s).
    pub const fn status_bytes(self, tiles: usize, value_size: usize, segmented: bool) -> usize {
        match self {
            // A packed (state, f32 aggregate) word per tile, then an inclusive prefix slot.
            ScanMode::ExactSum => (tiles * 8).next_multiple_of(16) + tiles * EXACT_SUM_SLOT_BYTES,
            _ => scan_status_bytes(self.slots(tiles), value_size, segmented),
        }
    }
}

/// Warp tiles each warp of the plain scan (`wd_k_scan`) takes at once when it reads one array of
/// elements of at most 4 bytes into values of at most 4 bytes (`wd_scan_span` in scan.cuh): a
/// block tile of `SCAN_SPAN * BLOCK_TILE` elements at `8 / SCAN_SPAN` blocks an SM, so half the
/// tile prefixes per byte with as many bytes in flight (the deterministic f32 scan went from
/// 0.873x to 1.071x CUB's `InclusiveSum`, docs/benchmarks/2026-12-02.md).
pub const SCAN_SPAN: usize = 2;

/// Warp tiles a warp of the plain scan takes over arrays of element sizes `sizes` (one entry, or
/// several zipped) read into values of `value_size` bytes: [`SCAN_SPAN`] or 1, as
/// `wd_scan_span` (scan.cuh) decides from the stage (`ARRAYS`, `sizeof(elem_t)`,
/// `sizeof(value_t)`).
pub const fn scan_span(sizes: &[usize], value_size: usize) -> usize {
    if sizes.len() == 1 && sizes[0] <= 4 && value_size <= 4 {
        SCAN_SPAN
    } else {
        1
    }
}

/// Bytes of `wd_exact32` (lookback.cuh): the exact sum of f32 values that the tiles of a float
/// sum's scan exchange ([`ScanMode::ExactSum`]): a 320-bit integer, flags and padding, twelve
/// 32-bit words.
pub const EXACT_SUM_BYTES: usize = 48;
/// Bytes of a tile's published inclusive exact sum: 16-byte chunks of three of its words and a
/// tag each (every chunk one 16-byte store, so that a reader seeing all tags sees the value).
pub const EXACT_SUM_SLOT_BYTES: usize = EXACT_SUM_BYTES / 12 * 16;

/// Bytes of status for `slots` slots of a scan over values of `value_size` bytes; `segmented`:
/// the values travel as (value, head) pairs (`wd_seg_val` in scan.cuh), packed with their state
/// in one word for values of at most [`STATUS_PACK_MAX`] bytes, else at most `value_size + 16`
/// bytes each.
pub const fn scan_status_bytes(slots: usize, value_size: usize, segmented: bool) -> usize {
    if segmented && value_size > STATUS_PACK_MAX {
        status_bytes(slots, value_size + 16)
    } else {
        status_bytes(slots, value_size)
    }
}

/// Every constant the templates read, as (define, value): emitted at the top of every module.
pub const DEFINES: &[(&str, u64)] = &[
    ("WD_BLOCK", BLOCK as u64),
    ("WD_UNROLL", UNROLL as u64),
    ("WD_ITEMS", ITEMS as u64),
    ("WD_COLS_BLOCK", COLS_BLOCK as u64),
    ("WD_COLS_UNROLL", COLS_UNROLL as u64),
    ("WD_AXIS_UNROLL", AXIS_UNROLL as u64),
    ("WD_SEG_WAYS", SEG_WAYS as u64),
    ("WD_SEG_LONG", SEG_LONG as u64),
    ("WD_SEG_CHUNK", SEG_CHUNK as u64),
    ("WD_TRANSPOSE_M", TRANSPOSE_M as u64),
    ("WD_TRANSPOSE_N", TRANSPOSE_N as u64),
    ("WD_TRANSPOSE_WIDE_MAX", TRANSPOSE_WIDE_MAX as u64),
    ("WD_HIST_MATCH_MIN", HIST_MATCH_MIN as u64),
    ("WD_HIST_MATCH_COLUMNS", HIST_MATCH_COLUMNS as u64),
    ("WD_STOP_COPIES", STOP_COPIES as u64),
    ("WD_STOP_STRIDE", STOP_STRIDE as u64),
    ("WD_STATUS_PACK_MAX", STATUS_PACK_MAX as u64),
    ("WD_MAX_INPUTS", MAX_INPUTS as u64),
    ("WD_BOUND_ARGS", BOUND_ARGS as u64),
    ("WD_P3_SHIFT", PARTITION3_SHIFT as u64),
    ("WD_TOPK_MAX_K", TOPK_MAX_K as u64),
    ("WD_RUN_VALUE_MAX", RUN_VALUE_MAX as u64),
    ("WD_UNIQUE_SPAN", UNIQUE_SPAN as u64),
    ("WD_UNIQUE_SPAN_KEY_MAX", UNIQUE_SPAN_KEY_MAX as u64),
    ("WD_TOPK_LEVEL_SLOTS", TOPK_LEVEL_SLOTS as u64),
    ("WD_TOPK_PREFETCH", TOPK_PREFETCH as u64),
    ("WD_TOPK_ITEMS", TOPK_ITEMS as u64),
    ("WD_TOPK_ITEMS_WIDE", TOPK_ITEMS_WIDE as u64),
    ("WD_TOPK_KEEP", TOPK_KEEP as u64),
    ("WD_TOPK_KEEP_WIDE", TOPK_KEEP_WIDE as u64),
    ("WD_SCAN_LOOK_BACK", ScanMode::LookBack as u64),
    ("WD_SCAN_TREE", ScanMode::Tree as u64),
    ("WD_SCAN_PREDECESSOR", ScanMode::Predecessor as u64),
    ("WD_SCAN_EXACT_SUM", ScanMode::ExactSum as u64),
    ("WD_SCAN_SPAN", SCAN_SPAN as u64),
    ("WD_EXACT_SUM_BYTES", EXACT_SUM_BYTES as u64),
    ("WD_EXACT_SUM_SLOT_BYTES", EXACT_SUM_SLOT_BYTES as u64),
];

/// The `#define` block of [`DEFINES`] and of the warp instructions an operator may be
/// recognised as ([`Redux`]).
pub fn defines() -> String {
    let mut s = String::from("// ---- shared constants (warp_kernels::catalogue) ----\n");
    for (name, value) in DEFINES {
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
}

impl Threads {
    /// The number of threads.
    pub const fn count(self) -> u32 {
        match self {
            Threads::Block => BLOCK,
            Threads::Cols => COLS_BLOCK,
        }
    }

    /// The define that holds it.
    pub const fn define(self) -> &'static str {
        match self {
            Threads::Block => "WD_BLOCK",
            Threads::Cols => "WD_COLS_BLOCK",
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

const fn p(name: &'static str, ty: ParamTy) -> Param {
    Param { name, ty }
}

use ParamTy::{Args, In, Input, Out, U32, U64};
use Pointee::{Elem, Value};

const fn kernel(name: &'static str, params: &'static [Param], body: &'static str) -> Kernel {
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
const fn kernel_min(
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

// ---- reduction modules ----

/// Grid reduction of the stage's values: per-thread accumulation, warp reduce, `warpSums`,
/// last-block-done grid combine in the same launch (`partials` holds a value per block).
/// `done` (null: none) is the done word of a result in mapped host memory, set once `out` is
/// written (the host spins on it instead of waiting for the kernel's end).
pub const REDUCE: Kernel = kernel(
    "wd_k_reduce",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("partials", Out(Value)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Value)),
        p("done", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_reduce_grid<wd_op>(st, partials, ticket, out, done);",
);

/// The kernels of a reduction module.
pub const REDUCE_KERNELS: &[&Kernel] = &[&REDUCE];

// ---- predicate modules ----

/// Ballot + popc count of kept values, with the grid combine; `done` as [`REDUCE`]'s.
pub const COUNT: Kernel = kernel(
    "wd_k_count",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("partials", Out(Pointee::U64)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Pointee::U64)),
        p("done", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_count(st, partials, ticket, out, done);",
);

/// Whether any value is kept (`negate`: any rejected), as a bool in `out`; stops early. `flag`
/// is the stop signal ([`STOP_COPIES`] copies, [`STOP_STRIDE`] bytes apart), raised by writing
/// `epoch` (never 0, new each launch; the flag is never cleared); `ticket` finds the last block;
/// `done` as [`REDUCE`]'s.
pub const ANY: Kernel = kernel(
    "wd_k_any",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("negate", U32),
        p("epoch", U32),
        p("flag", Out(Pointee::U32)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Pointee::U8)),
        p("done", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_any(st, negate != 0, epoch, flag, ticket, out, done);",
);

/// The first kept index, stored complemented in the stop signal `first` (0: none).
pub const FIND_FIRST: Kernel = kernel(
    "wd_k_find_first",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("first", Out(Pointee::U64)),
    ],
    "WD_STAGE;\nwd_find_first(st, first);",
);

/// One bit per value, straight from the ballots.
pub const MASK: Kernel = kernel(
    "wd_k_mask",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("words", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_mask(st, words);",
);

/// Single-pass, order-preserving compaction (and partition when `rejected` is not null); the
/// count into `count` and, unless `mirror` is null, into `mirror` (mapped host memory) before
/// its `done` word is set.
pub const COMPACT: Kernel = Kernel {
    name: "wd_k_compact",
    params: &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("kept", Out(Value)),
        p("rejected", Out(Value)),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
        p("count", Out(Pointee::U64)),
        p("mirror", Out(Pointee::U64)),
        p("done", Out(Pointee::U32)),
    ],
    threads: Threads::Block,
    // 5 resident blocks per SM (48 registers) keep enough loads in flight for 4-byte values.
    min_blocks: Some("sizeof(wd_stage::value_t) <= 4 && sizeof(wd_stage::elem_t) <= 4 ? 5 : 1"),
    body: "WD_STAGE;\nwd_compact(st, kept, rejected, status, queue, count, mirror, done);",
};

/// `find_first`'s result (the complemented index; 0: none) in a result slot.
pub const FIRST_RESULT: Kernel = kernel(
    "wd_k_first_result",
    &[p("first", In(Pointee::U64)), p("out", Out(Pointee::U64))],
    "wd_first_result(first, out);",
);

/// Three-way partition by two predicates, single pass: `first`, `second` and `rest` each get
/// their values in input order; `count` the two counts packed
/// (`first | second << PARTITION3_SHIFT`).
pub const PARTITION3: Kernel = kernel_min(
    "wd_k_partition3",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("first", Out(Value)),
        p("second", Out(Value)),
        p("rest", Out(Value)),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
        p("count", Out(Pointee::U64)),
    ],
    // 5 resident blocks per SM (48 registers) for 4-byte values: +9% over 3 (no cap) and +6%
    // over 4 on f32 thirds (collectives bench, 2^26).
    "sizeof(wd_stage::value_t) <= 4 && sizeof(wd_stage::elem_t) <= 4 ? 5 : 1",
    "WD_STAGE;\nwd_partition3(st, first, second, rest, status, queue, count);",
);

/// How [`PARTITION3`] packs its two counts in one word (each below `2^PARTITION3_SHIFT`).
pub const PARTITION3_SHIFT: u32 = 31;

/// The kernels of a three-way partition module.
pub const PARTITION3_KERNELS: &[&Kernel] = &[&PARTITION3];

// ---- runs modules (unique, run-length encode, reduce-by-key) ----

/// Runs of equal neighbouring keys, single pass: run `r`'s key into `keys[r]` and, unless the
/// module's `wd_runs_vals` is `wd_runs_none` (unique; `vals` null), its value into `vals[r]`
/// (its length, or its values combined in order); the number of runs into `count`.
pub const RUNS: Kernel = kernel_min(
    "wd_k_runs",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("keys", Out(Elem)),
        p("vals", Out(Value)),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
        p("count", Out(Pointee::U64)),
    ],
    // Unique and run-length encode (no value combined per element) of keys of up to 4 bytes:
    // 5 resident blocks per SM (48 registers, no spill): +12% / +14% (unique, runs of 4 / 64)
    // and +10% / +12% (run-length encode) over 3 and 4 (64 registers), at 2^28; 6 (40
    // registers, spilling) is slower. Reduce-by-key (rows of up to 8 bytes): 4 blocks (64
    // registers, 32 bytes of stack), +4% / +9% over 3 (80 registers); 5 and 6 spill over 240
    // bytes and run at less than half the speed.
    "!wd_runs_vals::on || wd_runs_vals::starts ? (sizeof(wd_stage::elem_t) <= 4 ? 5 : 3) \
     : (sizeof(wd_stage::elem_t) <= 8 ? 4 : 1)",
    "WD_STAGE;\nwd_runs<wd_runs_vals>(st, keys, vals, status, queue, count);",
);

/// Warp tiles each warp of unique takes for keys of at most [`UNIQUE_SPAN_KEY_MAX`] bytes
/// (`wd_unique_span` in runs.cuh): one block tile prefix then serves `UNIQUE_SPAN` times as many
/// elements (wider keys take one: their staging would pass 48 KB of shared memory).
pub const UNIQUE_SPAN: usize = 2;
/// The widest key (bytes) that unique spans [`UNIQUE_SPAN`] warp tiles with.
pub const UNIQUE_SPAN_KEY_MAX: usize = 4;

/// Elements of one block tile of [`RUNS`] for keys of `key_size` bytes: [`BLOCK_TILE`], times
/// [`UNIQUE_SPAN`] for unique (`unique`: the runs carry no values) of narrow keys.
pub const fn runs_block_tile(key_size: usize, unique: bool) -> usize {
    if unique && key_size <= UNIQUE_SPAN_KEY_MAX {
        BLOCK_TILE * UNIQUE_SPAN
    } else {
        BLOCK_TILE
    }
}

/// The largest value (bytes of its C layout) reduce-by-key combines: [`RUNS`] stages values
/// beside keys in shared memory and carries them through the look-back with a 64-bit head
/// count ([`RUN_PART_BYTES`]).
pub const RUN_VALUE_MAX: usize = 8;

/// Bytes of one `(heads, value)` pair of the runs' look-back (`wd_run_part`: a 64-bit count
/// and a value of at most 8 bytes, padded).
pub const RUN_PART_BYTES: usize = 16;

/// Bytes of look-back status of [`RUNS`] for `tiles` tiles: packed head counts for unique,
/// `(heads, value)` pairs in the split layout when runs carry values (the kernel packs pairs
/// of values of at most 4 bytes into one word each when the input has fewer than 2^30
/// elements, which needs less).
pub const fn runs_status_bytes(tiles: usize, values: bool) -> usize {
    if values {
        status_bytes(tiles, RUN_PART_BYTES)
    } else {
        tiles * 8
    }
}

/// The kernels of a runs module.
pub const RUNS_KERNELS: &[&Kernel] = &[&RUNS];

/// The kernels of a predicate module.
pub const PREDICATE_KERNELS: &[&Kernel] =
    &[&COUNT, &ANY, &FIND_FIRST, &MASK, &COMPACT, &FIRST_RESULT];

// ---- map modules ----

/// Every value of the stage (a map of the elements) written out.
pub const MAP: Kernel = kernel(
    "wd_k_map",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("out", Out(Value)),
    ],
    "WD_STAGE;\nwd_map_all(st, out);",
);

/// The kernels of a map module.
pub const MAP_KERNELS: &[&Kernel] = &[&MAP];

// ---- scan and axis modules ----

/// The scan: one tile per block, its prefix by [`ScanMode`] `mode`.
pub const SCAN: Kernel = kernel_min(
    "wd_k_scan",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("out", Out(Value)),
        p("exclusive", U32),
        p("mode", U32),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
    ],
    // Narrow values of one array: SCAN_SPAN warp tiles a warp at 8 / SCAN_SPAN blocks an SM
    // (64 registers); other 4-byte values one warp tile at 8 (32 registers); else no bound.
    "wd_scan_min_blocks<wd_stage>::value",
    "WD_STAGE;\nwd_scan<wd_op, wd_scan_span<wd_stage>::value>(st, out, exclusive != 0, mode, status, queue, wd_heads_none<wd_op>{});",
);

const ROWS_PARAMS: &[Param] = &[
    p("in", Input),
    p("n", U64),
    p("a", Args),
    p("rows", U64),
    p("cols", U64),
    p("out", Out(Value)),
];

/// Short rows, one lane each (32 rows per warp).
pub const ROWS_G1: Kernel = kernel(
    "wd_k_rows_g1",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_group<wd_op, wd_stage, 1>(st, rows, cols, out);",
);
/// Rows read by groups of 2 lanes.
pub const ROWS_G2: Kernel = kernel(
    "wd_k_rows_g2",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_group<wd_op, wd_stage, 2>(st, rows, cols, out);",
);
/// Rows read by groups of 4 lanes.
pub const ROWS_G4: Kernel = kernel(
    "wd_k_rows_g4",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_group<wd_op, wd_stage, 4>(st, rows, cols, out);",
);
/// Rows read by groups of 8 lanes.
pub const ROWS_G8: Kernel = kernel(
    "wd_k_rows_g8",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_group<wd_op, wd_stage, 8>(st, rows, cols, out);",
);
/// Rows read by groups of 16 lanes.
pub const ROWS_G16: Kernel = kernel(
    "wd_k_rows_g16",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_group<wd_op, wd_stage, 16>(st, rows, cols, out);",
);
/// The sub-warp row kernels, by group width 1, 2, 4, 8, 16.
pub const ROWS_GROUPS: [&Kernel; 5] = [&ROWS_G1, &ROWS_G2, &ROWS_G4, &ROWS_G8, &ROWS_G16];
/// A warp per row.
pub const ROWS_WARP: Kernel = kernel(
    "wd_k_rows_warp",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_warp<wd_op>(st, rows, cols, out);",
);
/// A block per row.
pub const ROWS_BLOCK: Kernel = kernel(
    "wd_k_rows_block",
    ROWS_PARAMS,
    "WD_STAGE;\nwd_rows_block<wd_op>(st, rows, cols, out);",
);
/// Several blocks per row; each row's last block combines their partials.
pub const ROWS_SPLIT: Kernel = kernel(
    "wd_k_rows_split",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("rows", U64),
        p("cols", U64),
        p("blocks_per_row", U64),
        p("partials", Out(Value)),
        p("tickets", Out(Pointee::U32)),
        p("out", Out(Value)),
    ],
    "WD_STAGE;\nwd_rows_split<wd_op>(st, rows, cols, blocks_per_row, partials, tickets, out);",
);
/// CSR segments of up to [`SEG_LONG`] elements, a warp each; longer ones are listed in
/// `longs` (`flags[0]`: bad offsets, `flags[1]`: how many were listed).
pub const SEGMENTS: Kernel = kernel(
    "wd_k_segments",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("offsets", In(Pointee::U64)),
        p("nseg", U64),
        p("out", Out(Value)),
        p("flags", Out(Pointee::U32)),
        p("longs", Out(Pointee::U64)),
        p("cap", U64),
    ],
    "WD_STAGE;\nwd_segments<wd_op>(st, offsets, nseg, out, flags, longs, cap);",
);
/// One block numbers the long segments' chunks of [`SEG_CHUNK`] elements.
pub const SEGMENTS_PLAN: Kernel = kernel(
    "wd_k_segments_plan",
    &[
        p("flags", In(Pointee::U32)),
        p("longs", In(Pointee::U64)),
        p("cap", U64),
        p("first", Out(Pointee::U64)),
        p("tickets", Out(Pointee::U32)),
    ],
    "wd_segments_plan(flags, longs, cap, first, tickets);",
);
/// The long segments' chunks, a block each, combined in a fixed order.
pub const SEGMENTS_LONG: Kernel = kernel(
    "wd_k_segments_long",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("offsets", In(Pointee::U64)),
        p("flags", In(Pointee::U32)),
        p("longs", In(Pointee::U64)),
        p("cap", U64),
        p("first", In(Pointee::U64)),
        p("partials", Out(Value)),
        p("tickets", Out(Pointee::U32)),
        p("out", Out(Value)),
    ],
    "WD_STAGE;\nwd_segments_long<wd_op>(st, offsets, flags, longs, cap, first, partials, tickets, out);",
);

const COLS_PARAMS: &[Param] = &[
    p("in", Input),
    p("n", U64),
    p("a", Args),
    p("rows", U64),
    p("cols", U64),
    p("rows_per_block", U64),
    p("partials", Out(Value)),
    p("tickets", Out(Pointee::U32)),
    p("out", Out(Value)),
];

/// Column reduction: coalesced row loads, the `[32][33]` padded tile combine.
pub const COLS: Kernel = Kernel {
    name: "wd_k_cols",
    params: COLS_PARAMS,
    threads: Threads::Cols,
    min_blocks: None,
    body: "WD_STAGE;\nwd_cols<wd_op, wd_stage, 1>(st, rows, cols, rows_per_block, partials, tickets, out);",
};
/// The column reduction through an unpadded `[32][32]` tile: only for measuring the bank
/// conflicts the padding removes.
pub const COLS_UNPADDED: Kernel = Kernel {
    name: "wd_k_cols_unpadded",
    params: COLS_PARAMS,
    threads: Threads::Cols,
    min_blocks: None,
    body: "WD_STAGE;\nwd_cols<wd_op, wd_stage, 0>(st, rows, cols, rows_per_block, partials, tickets, out);",
};

// ---- segmented scans ----

/// The scan of each row of a row-major matrix of `cols` columns: [`SCAN`] over (value, head)
/// pairs, heads every `cols` elements.
pub const SCAN_ROWS: Kernel = kernel(
    "wd_k_scan_rows",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("cols", U64),
        p("out", Out(Value)),
        p("exclusive", U32),
        p("mode", U32),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_heads_rows<wd_op> h;\nh.cols = cols;\nwd_scan<wd_op>(st, out, exclusive != 0, mode, status, queue, h);",
);

/// The scan of each CSR segment (`nseg + 1` offsets from 0 to `n`): [`SCAN`] over (value, head)
/// pairs, heads at the offsets; `flags[0]` (zeroed) is set when the offsets are bad.
pub const SCAN_SEGMENTS: Kernel = kernel(
    "wd_k_scan_segments",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("offsets", In(Pointee::U64)),
        p("nseg", U64),
        p("flags", Out(Pointee::U32)),
        p("out", Out(Value)),
        p("exclusive", U32),
        p("mode", U32),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_heads_csr<wd_op> h;\nh.offsets = offsets;\nh.nseg = nseg;\nh.flags = flags;\nwd_scan<wd_op>(st, out, exclusive != 0, mode, status, queue, h);",
);

/// The kernels of a scan and axis module.
pub const AXIS_KERNELS: &[&Kernel] = &[
    &SCAN,
    &SCAN_ROWS,
    &SCAN_SEGMENTS,
    &ROWS_G1,
    &ROWS_G2,
    &ROWS_G4,
    &ROWS_G8,
    &ROWS_G16,
    &ROWS_WARP,
    &ROWS_BLOCK,
    &ROWS_SPLIT,
    &SEGMENTS,
    &SEGMENTS_PLAN,
    &SEGMENTS_LONG,
    &COLS,
    &COLS_UNPADDED,
];

// ---- transpose modules ----

const TRANSPOSE_PARAMS: &[Param] = &[
    p("in", In(Elem)),
    p("out", Out(Elem)),
    p("rows", U64),
    p("cols", U64),
];

/// Transpose through a padded tile of [`transpose_tile`].
pub const TRANSPOSE: Kernel = kernel(
    "wd_k_transpose",
    TRANSPOSE_PARAMS,
    "wd_transpose<wd_elem_t, 1>(in, out, rows, cols);",
);
/// Transpose through an unpadded tile: only for the padding measurement.
pub const TRANSPOSE_UNPADDED: Kernel = kernel(
    "wd_k_transpose_unpadded",
    TRANSPOSE_PARAMS,
    "wd_transpose<wd_elem_t, 0>(in, out, rows, cols);",
);

/// The kernels of a transpose module.
pub const TRANSPOSE_KERNELS: &[&Kernel] = &[&TRANSPOSE, &TRANSPOSE_UNPADDED];

// ---- top-k modules ----

/// The largest `k` of top-k and bottom-k.
pub const TOPK_MAX_K: usize = 1024;
/// Candidates one block of a later top-k level reads; a level whose blocks leave at most this
/// many has its last block write the answer.
pub const TOPK_LEVEL_SLOTS: usize = 8192;
/// How many of its steps ahead a block of the top-k raw level asks L2 for (registers hold the
/// next two): 2^28 f32, k = 100 / 1,000, took 430 / 535 us without, 408 / 510 with 4 or 6,
/// 413 / 515 with 10.
pub const TOPK_PREFETCH: usize = 4;
/// One element in this many is read by the top-k sample level (see [`topk_sample`]): 2^28
/// f32, k = 100 / 1,000, took 408 / 510 us at 16, 404 / 558 at 32, 634 / 1018 without it.
pub const TOPK_SAMPLE_SHARE: usize = 16;
/// Elements per lane of a top-k block step, for elements of up to 4 bytes.
pub const TOPK_ITEMS: u32 = 8;
/// Elements per lane of a top-k block step, for 8-byte elements.
pub const TOPK_ITEMS_WIDE: u32 = 4;
/// Candidates a top-k block keeps at most after refining its buffer (keys of up to 32 bits);
/// the buffer holds these and one block step (42 KB of shared memory).
pub const TOPK_KEEP: usize = 3072;
/// [`TOPK_KEEP`] for 64-bit keys (44 KB).
pub const TOPK_KEEP_WIDE: usize = 2560;

/// Elements per lane of one top-k block step for elements of `elem_size` bytes.
pub const fn topk_items(elem_size: usize) -> usize {
    if elem_size == 8 {
        TOPK_ITEMS_WIDE as usize
    } else {
        TOPK_ITEMS as usize
    }
}

/// Elements of one top-k block step for elements of `elem_size` bytes.
pub const fn topk_step(elem_size: usize) -> usize {
    BLOCK as usize * topk_items(elem_size)
}

/// The top-k sample level for `n` elements of `elem_size` bytes: `Some((groups, len))`, one
/// warp per group reading `len` elements (whole warp loads of 32 per lane item), about one in
/// [`TOPK_SAMPLE_SHARE`] of the input; `None` when that is less than one warp load per group.
/// `groups` is the refined buffer's size ([`TOPK_KEEP`] or [`TOPK_KEEP_WIDE`]), above
/// [`TOPK_MAX_K`], so the k-th largest group maximum exists.
pub const fn topk_sample(n: usize, elem_size: usize) -> Option<(usize, usize)> {
    let groups = if elem_size == 8 {
        TOPK_KEEP_WIDE
    } else {
        TOPK_KEEP
    };
    let load = 32 * topk_items(elem_size);
    let len = n / (groups * TOPK_SAMPLE_SHARE) / load * load;
    if len == 0 { None } else { Some((groups, len)) }
}

/// One level of top-k (see topk.cuh): `level` 0 reads the elements, a later level the
/// `*cand_total` dense candidates of the one before, [`TOPK_LEVEL_SLOTS`] per block, unless
/// `done` is set. A lone active block sorts its best `k` and writes `values` and `indices`;
/// otherwise the active blocks append theirs to `out_*` (`out_total` counts them) and the
/// last to finish (`ticket`) writes the answer when they are at most [`TOPK_LEVEL_SLOTS`] and
/// sets `done`. `bound` (zeroed before the first launch) is the global key bound; the
/// counters, the ticket and `done` are zeroed too.
pub const TOPK: Kernel = kernel_min(
    "wd_k_topk",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("k", U32),
        p("largest", U32),
        p("cand_keys", In(Pointee::U64)),
        p("cand_idx", In(Pointee::U32)),
        p("cand_total", In(Pointee::U32)),
        p("level", U32),
        p("out_keys", Out(Pointee::U64)),
        p("out_idx", Out(Pointee::U32)),
        p("out_total", Out(Pointee::U32)),
        p("ticket", Out(Pointee::U32)),
        p("done", Out(Pointee::U32)),
        p("bound", Out(Pointee::U64)),
        p("values", Out(Elem)),
        p("indices", Out(Pointee::U64)),
    ],
    // 4 resident blocks per SM (64 registers; 72 uncapped): k = 100 / 1,000 of 2^28 f32 took
    // 349 / 407 us, against 351 / 431 at 3 blocks and 349 / 425 at 2 (with the sample level,
    // the prefetch, the warp appends and the dense lists).
    "4",
    "WD_STAGE;\nwd_topk(st, k, largest != 0, cand_keys, cand_idx, cand_total, level, out_keys, out_idx, out_total, ticket, done, bound, values, indices);",
);

/// The top-k sample level (see topk.cuh and [`topk_sample`]), before level 0: one warp per
/// group, `groups` / 8 blocks; the last block to finish (`ticket`, zeroed) raises `bound`
/// (zeroed) to the k-th largest of the groups' maxima (`sample`, `groups` slots).
pub const TOPK_SAMPLE: Kernel = kernel(
    "wd_k_topk_sample",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("k", U32),
        p("largest", U32),
        p("groups", U32),
        p("len", U64),
        p("sample", Out(Pointee::U64)),
        p("ticket", Out(Pointee::U32)),
        p("bound", Out(Pointee::U64)),
    ],
    "WD_STAGE;\nwd_topk_sample(st, k, largest != 0, groups, len, sample, ticket, bound);",
);

/// The kernels of a top-k module.
pub const TOPK_KERNELS: &[&Kernel] = &[&TOPK, &TOPK_SAMPLE];

/// The most bins a histogram counts into.
pub const HIST_MAX_BINS: usize = 65536;
/// Bytes of shared memory a histogram block keeps its bins in, at most (the dynamic shared
/// memory a kernel gets without opting in): more bins than fit (`(bins + 1) * 4` bytes, with
/// the row of dropped values) are counted in global memory.
pub const HIST_SHARED_MAX: usize = 48 * 1024;
/// Bytes of shared memory a histogram block spends on columns of its bins, at most, while
/// there are fewer than [`HIST_REPLICAS_MAX`] (more columns, fewer bank conflicts between the
/// lanes of one atomic; more memory, fewer resident blocks).
pub const HIST_REPLICA_BYTES: usize = 33 * 1024;
/// The most columns (copies) of each bin a histogram block keeps: one per lane, so that the
/// lanes of one shared atomic hit 32 distinct banks.
pub const HIST_REPLICAS_MAX: u32 = 32;
/// A histogram tile whose probe row (its first 32 values, one per lane) has this many lanes
/// holding the bin of the lane below takes the `__match_any_sync` path (one atomic per
/// distinct bin per row); fewer, and each lane adds its own.
pub const HIST_MATCH_MIN: u32 = 4;
/// Histogram tiles probe for contention (and may take the `__match_any_sync` path) only where
/// the bins have at most this many columns in shared memory, or are in global memory: with
/// more, the lanes of one bin already add to as many distinct addresses (banks), at most
/// `32 / columns` to each.
pub const HIST_MATCH_COLUMNS: u32 = 8;
/// The most elements one histogram block counts (the grid is sized so): its 32-bit shared
/// counters cannot overflow.
pub const HIST_BLOCK_ELEMS_MAX: u64 = 1 << 31;

/// Columns of each bin in shared memory for a histogram of `bins` bins (a power of two up to
/// [`HIST_REPLICAS_MAX`] within [`HIST_REPLICA_BYTES`]; 1 when one column needs more, up to
/// [`HIST_SHARED_MAX`]); 0: the bins do not fit shared memory, they are counted in global
/// memory. The shared bins have one row more, which collects the dropped values.
pub const fn hist_replicas(bins: usize) -> u32 {
    let bytes = (bins + 1) * 4;
    if bytes > HIST_SHARED_MAX {
        return 0;
    }
    let mut r = 1;
    while r < HIST_REPLICAS_MAX && bytes * 2 * r as usize <= HIST_REPLICA_BYTES {
        r *= 2;
    }
    r
}

/// A histogram: the stage's values binned by the module's `wd_bin_of` into `counts` (`bins`
/// 32-bit words, 64-bit when `wide`; zeroed by the caller), through `replicas` columns of each
/// bin in `replicas * (bins + 1) * 4` bytes of dynamic shared memory (the last row collects
/// dropped values; 0 replicas: straight to global memory).
pub const HISTOGRAM: Kernel = kernel_min(
    "wd_k_histogram",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("bins", U64),
        p("replicas", U32),
        p("wide", U32),
        p("counts", Out(Pointee::U8)),
    ],
    // 5 resident blocks per SM (48 registers) for 1-byte elements: +6-7% over the uncapped 4
    // (54 registers) for bytes into 256 bins, as much as 6 (collectives bench, 2^28).
    "sizeof(wd_stage::elem_t) == 1 ? 5 : 1",
    "WD_STAGE;\nwd_histogram(st, bins, replicas, wide, counts);",
);

/// A histogram's 32-bit counts narrowed to 1- or 2-byte counters (`width`).
pub const HIST_NARROW: Kernel = kernel(
    "wd_k_hist_narrow",
    &[
        p("wide", In(Pointee::U32)),
        p("bins", U64),
        p("width", U32),
        p("out", Out(Pointee::U8)),
    ],
    "wd_hist_narrow(wide, bins, width, out);",
);

/// The kernels of a histogram module.
pub const HISTOGRAM_KERNELS: &[&Kernel] = &[&HISTOGRAM, &HIST_NARROW];

/// Every kernel of the catalogue.
pub fn all() -> impl Iterator<Item = &'static Kernel> {
    [
        REDUCE_KERNELS,
        PREDICATE_KERNELS,
        PARTITION3_KERNELS,
        RUNS_KERNELS,
        MAP_KERNELS,
        AXIS_KERNELS,
        TRANSPOSE_KERNELS,
        TOPK_KERNELS,
        HISTOGRAM_KERNELS,
    ]
    .into_iter()
    .flatten()
    .copied()
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
        assert_eq!(hist_replicas(HIST_MAX_BINS), 0);
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
