//! The scan family: inclusive/exclusive single-pass scans, plain, of rows and of CSR
//! segments, with their prefix policies (`ScanMode`). Their kernels live in the axis module
//! (`axes::axis_module`), beside the reductions along axes of the same operator.

use crate::catalogue::kit::*;

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

/// The scan: one tile per block, its prefix by [`ScanMode`] `mode`; `init` (null for none) the
/// value it continues from (each output is `combine(*init, its scan)`).
pub const SCAN: Kernel = kernel_min(
    "wd_k_scan",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("out", Out(Value)),
        p("exclusive", U32),
        p("init", In(Value)),
        p("mode", U32),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
    ],
    // Narrow values of one array: SCAN_SPAN warp tiles a warp at 8 / SCAN_SPAN blocks an SM
    // (64 registers); other 4-byte values one warp tile at 8 (32 registers); else no bound.
    "wd_scan_min_blocks<wd_stage>::value",
    "WD_STAGE;\nwd_heads_none<wd_op> h;\nh.init = init;\nwd_scan<wd_op, wd_scan_span<wd_stage>::value>(st, out, exclusive != 0, mode, status, queue, h);",
);

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

/// The scan of each line along the middle axis of an `(outer, rows, inner)` row-major array
/// (`n = outer * rows * inner`, `rows > 0`): one thread a line, down its `rows` elements in
/// order (`WD_SCAN_COLS_UNROLL` loads in flight), consecutive threads on consecutive columns.
pub const SCAN_COLS: Kernel = kernel(
    "wd_k_scan_cols",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("rows", U64),
        p("inner", U64),
        p("out", Out(Value)),
        p("exclusive", U32),
    ],
    "WD_STAGE;\nwd_scan_cols<wd_op>(st, rows, inner, exclusive != 0, out);",
);

/// The kernels of the scan family.
pub const SCAN_KERNELS: &[&Kernel] = &[&SCAN, &SCAN_ROWS, &SCAN_SEGMENTS, &SCAN_COLS];

/// Rows whose loads a thread of [`SCAN_COLS`] keeps in flight.
pub const SCAN_COLS_UNROLL: usize = 16;

/// The scan family's constants, emitted as `#define`s.
pub const SCAN_DEFINES: &[(&str, u64)] = &[
    ("WD_SCAN_LOOK_BACK", ScanMode::LookBack as u64),
    ("WD_SCAN_TREE", ScanMode::Tree as u64),
    ("WD_SCAN_PREDECESSOR", ScanMode::Predecessor as u64),
    ("WD_SCAN_EXACT_SUM", ScanMode::ExactSum as u64),
    ("WD_SCAN_SPAN", SCAN_SPAN as u64),
    ("WD_EXACT_SUM_BYTES", EXACT_SUM_BYTES as u64),
    ("WD_EXACT_SUM_SLOT_BYTES", EXACT_SUM_SLOT_BYTES as u64),
    ("WD_SCAN_COLS_UNROLL", SCAN_COLS_UNROLL as u64),
];
