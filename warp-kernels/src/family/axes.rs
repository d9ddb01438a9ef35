//! The axes family: reductions along rows, over CSR segments and along columns (through a
//! padded tile), and the transpose. Its module (`axis_module`) also carries the scans.

use super::scans::{SCAN, SCAN_COLS, SCAN_ROWS, SCAN_SEGMENTS};
use crate::catalogue::kit::*;
use crate::module::{Module, OpFragment, Pick, Source, Style, op_struct, stage, stage_functions};
use crate::types::Scalar;

/// Threads per block of the column reduction: 32 warps, one per row of the `[32][33]` tile.
pub const COLS_BLOCK: u32 = 1024;
/// Columns of one column-reduction tile (a warp reads 32 consecutive elements of a row).
pub const COLS_TILE: usize = 32;
/// Threads of a block of the vector column reduction (`wd_k_cols_vec`): fewer threads and
/// blocks than the padded tile's, each holding a vector's columns (measured fastest on an
/// H200: benches/probes/cols).
pub const COLS_VEC_BLOCK: u32 = 128;
/// Rows in flight per thread of the vector column reduction.
pub const COLS_VEC_UNROLL: u32 = 4;
/// The fewest columns the vector column reduction takes (narrower matrices, and rows that are
/// not whole aligned vectors, go through the padded tile).
pub const COLS_VEC_MIN: usize = 4096;
/// Row loads in flight per thread of the column reduction.
pub const COLS_UNROLL: u32 = 8;
/// Threads of the block that reduces one long row (`wd_k_rows_block`): a whole SM's worth
/// reads a row fastest on an H200 (rows of 65,536 f32: 4475 GB/s against 4412 with 256
/// threads, benches/probes/rows).
pub const ROWS_BLOCK_THREADS: u32 = 1024;
/// Vector loads in flight per lane of the warp-wide row and segment reductions.
pub const AXIS_UNROLL: u32 = 4;
/// Vector loads in flight per thread of the block-wide ones (a block per long row, chunks of
/// long segments): two measure faster than four on an H200 (rows of 65,536 f32: 4412 against
/// 4318 GB/s, benches/probes/rows).
pub const AXIS_UNROLL_BLOCK: u32 = 2;
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

/// The transpose tile (rows, columns) for elements of `elem_size` bytes.
pub const fn transpose_tile(elem_size: usize) -> (usize, usize) {
    if elem_size <= TRANSPOSE_WIDE_MAX {
        (32 * TRANSPOSE_M as usize, 32 * TRANSPOSE_N as usize)
    } else {
        (32, 32)
    }
}

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
/// A block of [`ROWS_BLOCK_THREADS`] per row.
pub const ROWS_BLOCK: Kernel = Kernel {
    name: "wd_k_rows_block",
    params: ROWS_PARAMS,
    threads: Threads::RowsBlock,
    min_blocks: None,
    body: "WD_STAGE;\nwd_rows_block<wd_op>(st, rows, cols, out);",
};
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

/// The column reductions' parameters: `cols` columns in all, in `cols / inner` batches of
/// `rows` x `inner` row-major matrices one after the other (one batch for a plain matrix:
/// `inner == cols`); column `c` is column `c % inner` of batch `c / inner`.
const COLS_PARAMS: &[Param] = &[
    p("in", Input),
    p("n", U64),
    p("a", Args),
    p("rows", U64),
    p("cols", U64),
    p("inner", U64),
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
    body: "WD_STAGE;\nwd_cols<wd_op, wd_stage, 1>(st, rows, cols, inner, rows_per_block, partials, tickets, out);",
};
/// The column reduction through an unpadded `[32][32]` tile: only for measuring the bank
/// conflicts the padding removes.
pub const COLS_UNPADDED: Kernel = Kernel {
    name: "wd_k_cols_unpadded",
    params: COLS_PARAMS,
    threads: Threads::Cols,
    min_blocks: None,
    body: "WD_STAGE;\nwd_cols<wd_op, wd_stage, 0>(st, rows, cols, inner, rows_per_block, partials, tickets, out);",
};

/// Column reduction of wide matrices whose rows are whole aligned vectors: each thread folds
/// a vector's columns down a chunk of rows, no shared tile.
pub const COLS_VEC: Kernel = Kernel {
    name: "wd_k_cols_vec",
    params: COLS_PARAMS,
    threads: Threads::ColsVec,
    min_blocks: None,
    body: "WD_STAGE;\nwd_cols_vec<wd_op, wd_stage>(st, rows, cols, inner, rows_per_block, partials, tickets, out);",
};

/// The kernels of a scan and axis module.
pub const AXIS_KERNELS: &[&Kernel] = &[
    &SCAN,
    &SCAN_ROWS,
    &SCAN_SEGMENTS,
    &SCAN_COLS,
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
    &COLS_VEC,
];

const TRANSPOSE_PARAMS: &[Param] = &[
    p("in", In(Elem)),
    p("out", Out(Elem)),
    p("rows", U64),
    p("cols", U64),
    p("batches", U64),
];

/// Transpose through a padded tile of [`transpose_tile`].
pub const TRANSPOSE: Kernel = kernel(
    "wd_k_transpose",
    TRANSPOSE_PARAMS,
    "wd_transpose<wd_elem_t, 1>(in, out, rows, cols, batches);",
);
/// Transpose through an unpadded tile: only for the padding measurement.
pub const TRANSPOSE_UNPADDED: Kernel = kernel(
    "wd_k_transpose_unpadded",
    TRANSPOSE_PARAMS,
    "wd_transpose<wd_elem_t, 0>(in, out, rows, cols, batches);",
);

/// The kernels of a transpose module.
pub const TRANSPOSE_KERNELS: &[&Kernel] = &[&TRANSPOSE, &TRANSPOSE_UNPADDED];

/// The axes family's constants, emitted as `#define`s.
pub const AXIS_DEFINES: &[(&str, u64)] = &[
    ("WD_COLS_BLOCK", COLS_BLOCK as u64),
    ("WD_COLS_UNROLL", COLS_UNROLL as u64),
    ("WD_COLS_VEC_BLOCK", COLS_VEC_BLOCK as u64),
    ("WD_COLS_VEC_UNROLL", COLS_VEC_UNROLL as u64),
    ("WD_AXIS_UNROLL", AXIS_UNROLL as u64),
    ("WD_AXIS_UNROLL_BLOCK", AXIS_UNROLL_BLOCK as u64),
    ("WD_ROWS_BLOCK_THREADS", ROWS_BLOCK_THREADS as u64),
    ("WD_SEG_WAYS", SEG_WAYS as u64),
    ("WD_SEG_LONG", SEG_LONG as u64),
    ("WD_SEG_CHUNK", SEG_CHUNK as u64),
    ("WD_TRANSPOSE_M", TRANSPOSE_M as u64),
    ("WD_TRANSPOSE_N", TRANSPOSE_N as u64),
    ("WD_TRANSPOSE_WIDE_MAX", TRANSPOSE_WIDE_MAX as u64),
];

/// A scan and axis module: inclusive/exclusive scans, reductions along rows, over CSR
/// segments and along columns, of `op` over the values of `source`.
pub fn axis_module(op: &OpFragment, source: &Source) -> String {
    let mut m = Module::new(&format!(
        "scans and axis reductions `{}` over {}",
        op.name,
        source.describe()
    ));
    let fns = stage_functions(source);
    let row = source.row_support();
    let mut types: Vec<&str> = vec![&row];
    types.extend(fns.iter().map(|(f, _)| &*f.type_support));
    types.push(&op.type_support);
    m.type_support(&types);
    m.user("\n// ---- the user's functions, lowered ----\n");
    for (f, name) in &fns {
        m.function(&f.text, name);
    }
    m.function(&op.combine, "wd_op_combine");
    m.function(&op.identity, "wd_op_identity");
    m.user(&op_struct(op));
    m.user(&stage(source, None, &op.value, Pick::Value));
    m.reduce_templates(Style::Intrinsics);
    m.template("tiles.cuh");
    m.template("lookback.cuh");
    m.template("scan.cuh");
    m.template("axis.cuh");
    m.kernels(crate::catalogue::AXIS_KERNELS, &source.elem_c(), &op.value);
    m.finish(&format!("axis_{}_{}", op.name, source.tag()))
}

/// A transpose module for row-major matrices of `elem`, through a padded shared tile (and,
/// for the padding measurement only, an unpadded one).
pub fn transpose_module(elem: Scalar) -> String {
    let mut m = Module::new(&format!("transpose of `{elem}` matrices"));
    let e = elem.c_name();
    m.user(&format!("\ntypedef {e} wd_elem_t;\n"));
    m.reduce_templates(Style::Intrinsics);
    m.template("axis.cuh");
    m.kernels(crate::catalogue::TRANSPOSE_KERNELS, e, e);
    m.finish(&format!("transpose_{elem}"))
}

/// The axes family's own kernels (the axis module's without the scans, and the transpose's).
pub const AXIS_FAMILY_KERNELS: &[&Kernel] = &[
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
    &COLS_VEC,
    &TRANSPOSE,
    &TRANSPOSE_UNPADDED,
];
