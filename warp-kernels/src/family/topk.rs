//! The top-k family: the largest (or smallest) k values and their indices.

use crate::catalogue::kit::*;
use crate::module::{Module, Pick, Source, stage};
use crate::types::Scalar;

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

/// The `k` best (largest, or smallest unless `largest`) of each row of the row-major `x`
/// (`cols` columns, `k` at most `cols` and [`TOPK_MAX_K`]), a block per piece of a row
/// (`pieces` a row: `chunk` columns each, the last to the row's end, each at least `k`): their
/// values into `values` and their columns into `indices` (`k` a piece, best first, ties to the
/// smaller column; a column `c` written as `idx_in[row * cols + c]` when `idx_in` is not null:
/// the second launch over the pieces' candidates).
pub const TOPK_ROWS: Kernel = kernel(
    "wd_k_topk_rows",
    &[
        p("x", In(Elem)),
        p("cols", U32),
        p("pieces", U32),
        p("chunk", U32),
        p("idx_in", In(Pointee::U32)),
        p("k", U32),
        p("largest", U32),
        p("values", Out(Elem)),
        p("indices", Out(Pointee::U32)),
    ],
    "wd_topk_rows_radix(x, cols, pieces, chunk, idx_in, k, largest != 0, values, indices);",
);

/// [`TOPK_ROWS`] by one read of each piece: the top-k level's buffered candidates, refined by a
/// radix select whenever the buffer fills, in the piece's one block; the same answer, for pieces
/// of at least [`TOPK_ROW_STREAM_MIN_COLS`] columns. The same arguments.
///
/// Uncapped (74 registers, 3 blocks an SM): capped at 4 blocks an SM (64 registers), an H100
/// took 49.9 us, against 46.8 uncapped in the same run, for 64 rows of 128,256 (k = 50; 8
/// pieces, not 6), and 78.3 us, against 75.1, for 256 rows of 32,768 (k = 1,000).
pub const TOPK_ROWS_STREAM: Kernel = kernel(
    "wd_k_topk_rows_stream",
    TOPK_ROWS.params,
    "wd_topk_rows_stream(x, cols, pieces, chunk, idx_in, k, largest != 0, values, indices);",
);

/// The largest `k` of a top-k of rows whose rows are split into pieces: each piece sorts its
/// `k` candidates (a bitonic sort in shared memory), which costs more than the split saves for
/// large `k` (on an H200, 256 rows of 32,768 with k = 1,000: 96 us whole, 141 us in three
/// pieces).
pub const TOPK_ROW_SPLIT_MAX_K: usize = 256;

/// Pieces each row of a top-k of rows is split into (1: none), when `k` is at most
/// [`TOPK_ROW_SPLIT_MAX_K`]: each piece at least eight times `k` columns (so that the second
/// launch, over the pieces' `pieces * k` candidates a row, reads far less than the first), at
/// most 64, and as many as one wave of [`TOPK_ROWS_STREAM`] holds (`stream_resident` blocks:
/// its blocks an SM times the SMs) when those pieces are long enough for it
/// ([`TOPK_ROW_STREAM_MIN_COLS`]; one piece when even that is more than a wave holds); else,
/// with fewer rows than twice `sms` (the GPU's SMs), enough for about four blocks of
/// [`TOPK_ROWS`] an SM. A second wave of the read-once kernel would wait for the first: on
/// an H100, 64 rows of 128,256 (k = 50) took 65 us in 9 pieces (576 blocks, 396 at once).
pub const fn topk_row_pieces(
    rows: usize,
    cols: usize,
    k: usize,
    sms: usize,
    stream_resident: usize,
) -> usize {
    if rows == 0 || k > TOPK_ROW_SPLIT_MAX_K {
        return 1;
    }
    let most = cols / (8 * if k == 0 { 1 } else { k });
    let most = if most > 64 { 64 } else { most };
    let stream = stream_resident / rows;
    let stream = if stream > most { most } else { stream };
    let stream = if stream < 1 { 1 } else { stream };
    if cols / stream >= TOPK_ROW_STREAM_MIN_COLS {
        return stream;
    }
    // Pieces too short to be read once: the radix select's.
    if rows >= 2 * sms {
        return 1;
    }
    let want = (4 * sms).div_ceil(rows);
    let p = if want < most { want } else { most };
    if p < 1 { 1 } else { p }
}

/// The kernels of a top-k module.
pub const TOPK_KERNELS: &[&Kernel] = &[&TOPK, &TOPK_SAMPLE, &TOPK_ROWS, &TOPK_ROWS_STREAM];

/// Loads in flight per thread of each read of a row by [`TOPK_ROWS`].
pub const TOPK_ROW_LOADS: u32 = 16;

/// The fewest columns of a piece of a row that [`TOPK_ROWS_STREAM`] selects from instead of
/// [`TOPK_ROWS`] (on an H200, 2026-12-05: rows of 32,768, k = 50: 536 us streamed, 653 us by the
/// radix select; rows of 4,096, k = 50 (`top_k_axis` of (64, 4096, 256)): 1,036 us streamed,
/// 631 us by the radix select).
pub const TOPK_ROW_STREAM_MIN_COLS: usize = 8192;

/// The top-k family's constants, emitted as `#define`s.
pub const TOPK_DEFINES: &[(&str, u64)] = &[
    ("WD_TOPK_ROW_LOADS", TOPK_ROW_LOADS as u64),
    ("WD_TOPK_MAX_K", TOPK_MAX_K as u64),
    ("WD_TOPK_LEVEL_SLOTS", TOPK_LEVEL_SLOTS as u64),
    ("WD_TOPK_PREFETCH", TOPK_PREFETCH as u64),
    ("WD_TOPK_ITEMS", TOPK_ITEMS as u64),
    ("WD_TOPK_ITEMS_WIDE", TOPK_ITEMS_WIDE as u64),
    ("WD_TOPK_KEEP", TOPK_KEEP as u64),
    ("WD_TOPK_KEEP_WIDE", TOPK_KEEP_WIDE as u64),
];

/// A top-k module for arrays of `elem` (`Device::top_k`, `Device::bottom_k`): the catalogue's
/// [`TOPK_KERNELS`] over a plain stage of the array.
pub fn topk_module(elem: Scalar) -> String {
    let source = Source::Plain(std::slice::from_ref(&elem));
    let mut m = Module::new(&format!("top-k of {}", source.describe()));
    m.user(&stage(&source, None, elem.c_name(), Pick::Value));
    m.template("warp.cuh");
    m.template("warp_intrinsics.cuh");
    m.template("block.cuh");
    m.template("lookback.cuh");
    m.template("topk.cuh");
    m.kernels(crate::catalogue::TOPK_KERNELS, elem.c_name(), elem.c_name());
    m.finish(&format!("topk_{elem}"))
}
