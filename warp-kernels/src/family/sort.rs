//! The sort family: stable radix sort of keys, of keys with values, and argsort (Onesweep: one
//! histogram pass, then one pass per 8-bit digit with a decoupled look-back), and the sort of
//! short rows within a block.

use crate::catalogue::kit::*;
use crate::module::Module;
use crate::types::Scalar;

/// Loads in flight per thread of the sort's histogram pass.
pub const SORT_UNROLL: u32 = 4;
/// Look-back words a thread of a sort pass reads at once beyond the nearest predecessor.
pub const SORT_LOOKBACK: u32 = 4;
/// Bits of one digit: a pass sorts by one byte of the keys' order words.
pub const SORT_RADIX_BITS: u32 = 8;
/// A pass whose most common digit holds more than `n / SORT_CROWDED` of the `n` keys is
/// crowded: it counts and ranks each item's lanes of one digit by `__match_any_sync` (one
/// shared atomic a digit), not by every lane's shared atomic (which queue on one word when
/// many lanes share a digit). Uniform keys (each digit about `n / 256`) are never crowded,
/// nor keys spread evenly over 16 digits; the top byte of floats of one sign and a few
/// exponents is (a quarter of uniform `f32` in `[-1, 1)` share one).
pub const SORT_CROWDED: u32 = 8;

/// Digit passes of keys of `key_size` bytes (one per byte).
pub const fn sort_passes(key_size: usize) -> usize {
    key_size
}

/// Threads of a block of a sort pass ([`SORT_PASS`]; the module's other kernels run
/// [`BLOCK`]): twelve warps. Measured on the H200 against 256 threads (2^28 random 4-byte keys
/// alone: 1.37 ms a pass at 24 items and three blocks per SM, against 1.47 ms at 256 threads,
/// 24 items and four blocks).
pub const SORT_BLOCK: u32 = 384;

/// What a sort module's digit passes move with the keys: with the key's type, it sets the
/// passes' shape ([`SortShape`]).
///
/// ```
/// use warp_kernels::family::sort::SortMoves;
/// assert_eq!(SortMoves::Positions(8).value_size(), 8);
/// assert_eq!(SortMoves::Keys.value_size(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortMoves {
    /// The keys alone.
    Keys,
    /// The caller's values of this many bytes (1, 2, 4 or 8), read by every pass.
    Pairs(usize),
    /// The keys' positions of this many bytes (4 or 8: argsort), made by the first pass and
    /// read by the others.
    Positions(usize),
}

impl SortMoves {
    /// Bytes of a value moved with each key (0: none).
    pub const fn value_size(self) -> usize {
        match self {
            SortMoves::Keys => 0,
            SortMoves::Pairs(size) | SortMoves::Positions(size) => size,
        }
    }
}

/// The shape of a sort module's digit passes, for keys of `key_size` bytes moving values of
/// `value_size` (0: none), made by [`SortShape::new`]: one Rust definition of the tile, the blocks an SM, the persistent
/// grid and the staged values, which the module's `#define`s and the runtime's launches both
/// read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SortShape {
    /// Bytes of a key.
    pub key_size: usize,
    /// Bytes of a value (0: keys alone).
    pub value_size: usize,
    /// Whether a tile's values are staged in dynamic shared memory ([`SortShape::stash_bytes`]
    /// a block): copied by `cp.async` as the tile starts, so that their loads complete under
    /// the ranking instead of after it, and no register holds them; the tile then grows to
    /// 24 keys a thread at two blocks an SM. 4-byte keys (`u32`, `i32`, `f32`) with 4-byte
    /// values or positions, on a device that [`sort_can_stage`]; `f32` keys are loaded as raw
    /// bits and made order words only once the copies are issued. Measured on an H100
    /// (2026-12-07, the sort probe, 2^28 keys, a pass): `u32` pairs 2.210-2.247 ms against
    /// 2.582 at 16 keys a thread and three blocks, a `u32` argsort 2.162-2.186 against 2.533;
    /// `f32` pairs 2.143 against 2.378, an `f32` argsort 2.089 against 2.347 (with the order
    /// words made before the copies, which then waited for the keys' loads: 3.154 for pairs).
    /// Narrower keys stay unstaged (they spill registers at 24 a thread).
    pub staged: bool,
}

/// Whether a device of compute capability `arch` (`90` for sm_90) with `shared_per_sm` bytes
/// of shared memory an SM runs staged sort passes ([`SortShape::staged`]): `cp.async` (sm_80
/// and later) and room for two staged blocks an SM (about 75 KiB each: 39 of the pass's own,
/// 36 of stash), 160 KiB (the A100, H100, H200 and B200 have 164 to 228; GPUs with 100 KiB an
/// SM, as the RTX 30 and 40 series, would run one block an SM, and stay unstaged).
///
/// ```
/// use warp_kernels::family::sort::sort_can_stage;
/// assert!(sort_can_stage(90, 228 * 1024)); // an H100 or H200
/// assert!(!sort_can_stage(89, 100 * 1024)); // an RTX 4090
/// assert!(!sort_can_stage(75, 64 * 1024)); // a T4: no cp.async
/// ```
pub const fn sort_can_stage(arch: u32, shared_per_sm: usize) -> bool {
    arch >= 80 && shared_per_sm >= 160 * 1024
}

impl SortShape {
    /// The shape of the passes of keys of type `key` moving `moves`, on a device that
    /// [`sort_can_stage`] (`can_stage`) or not.
    ///
    /// ```
    /// use warp_kernels::Scalar;
    /// use warp_kernels::family::sort::{SortMoves, SortShape};
    /// let pairs = SortShape::new(Scalar::U32, SortMoves::Pairs(4), true);
    /// assert!(pairs.staged && pairs.tile() == 9_216 && pairs.stash_bytes() == 36_864);
    /// let floats = SortShape::new(Scalar::F32, SortMoves::Positions(4), true);
    /// assert!(floats.staged && floats.tile() == 9_216);
    /// let halves = SortShape::new(Scalar::F16, SortMoves::Pairs(4), true);
    /// assert!(!halves.staged && halves.tile() == 6_144 && halves.stash_bytes() == 0);
    /// assert!(SortShape::new(Scalar::U32, SortMoves::Keys, true).persistent());
    /// ```
    pub fn new(key: Scalar, moves: SortMoves, can_stage: bool) -> SortShape {
        let value_size = moves.value_size();
        SortShape {
            key_size: key.size(),
            value_size,
            staged: can_stage
                && value_size == 4
                && matches!(key, Scalar::U32 | Scalar::I32 | Scalar::F32)
                && moves != SortMoves::Keys,
        }
    }

    /// Keys a thread of a pass ranks and moves (warp-striped). The pass is bound by latency
    /// and instructions: a larger tile spreads its fixed work (the scan over the digits, the
    /// look-back) over more keys, and more resident warps hide more latency; the registers
    /// (keys and ranks; values are read only after the ranking or staged) and the tile's words
    /// in shared memory bound it. 20 items for keys of at most 4 bytes alone (a persistent
    /// pass, [`SortShape::persistent`], whose registers also hold the next tile's keys), 24
    /// staged, 16 for such keys with other values of at most 4 bytes, 12 where a key or a
    /// value has 8 bytes. Measured on the H200 (2^28 keys; per pass): u32 keys 1.37 ms (a
    /// block a tile, 24 items), u32 keys with u32 values 2.08 ms, f32 argsort 2.00 ms; 2^27
    /// u64 keys 0.99 ms. On an H100 (2026-12-07), u32 keys: 1.443 ms a block a tile at 24
    /// items, 1.396 persistent at 24 (84 bytes of spills), 1.294 persistent at 20.
    pub const fn items(self) -> u32 {
        if self.staged {
            24
        } else if self.key_size > 4 || self.value_size > 4 {
            12
        } else if self.value_size > 0 {
            16
        } else {
            20
        }
    }

    /// Whether the passes run persistent blocks (`WD_SORT_PERSIST`): a resident grid whose
    /// blocks take tiles from the pass's queue until none is left, each loading its next
    /// tile's keys while the current one looks back and writes out. Keys of at most 4 bytes
    /// alone (measured: 10% less a pass for `u32` keys on an H100); other passes run a block
    /// a tile.
    pub const fn persistent(self) -> bool {
        self.key_size <= 4 && self.value_size == 0
    }

    /// Keys of one tile (a block's): [`SortShape::items`] a thread.
    pub const fn tile(self) -> usize {
        SORT_BLOCK as usize * self.items() as usize
    }

    /// Tiles of one pass over `n` keys.
    pub const fn tiles(self, n: usize) -> usize {
        n.div_ceil(self.tile())
    }

    /// Bytes of a sort's look-back status over `n` keys: a 64-bit word per tile and digit,
    /// shared by the passes (each tags its words with its epoch).
    pub const fn status_bytes(self, n: usize) -> usize {
        self.tiles(n) * 256 * 8
    }

    /// Resident blocks per SM a pass is compiled for (`__launch_bounds__`' second argument):
    /// three (56 registers a thread at [`SORT_BLOCK`]), two staged (80 registers).
    pub const fn min_blocks(self) -> u32 {
        if self.staged { 2 } else { 3 }
    }

    /// Bytes of dynamic shared memory a block of a pass takes: a staged tile's values (0
    /// unstaged). Over 48 KiB with the pass's static shared memory, so the launch opts in.
    pub const fn stash_bytes(self) -> u32 {
        if self.staged {
            (self.tile() * self.value_size) as u32
        } else {
            0
        }
    }
}

/// Keys a thread of the rows' sort holds ([`SORT_ROWS`]): each item holds its key, a 4-byte
/// tag (row and column) and its rank: 16 for keys of at most 4 bytes, 12 for 8-byte keys.
pub const fn sort_row_items(key_size: usize) -> u32 {
    if key_size > 4 { 12 } else { 16 }
}

/// The most keys a block of the rows' sort holds: rows of at most this many columns are sorted
/// within a block, longer ones by the device-wide sort, a row at a time.
pub const fn sort_row_tile(key_size: usize) -> usize {
    BLOCK as usize * sort_row_items(key_size) as usize
}

/// Rows a block of the rows' sort takes: as many whole rows of `cols` keys as its tile holds,
/// at most 255 (the row is a digit of the block's last pass, 255 marking the tile's padding).
pub const fn sort_rows_per_block(key_size: usize, cols: usize) -> usize {
    let fit = sort_row_tile(key_size) / cols;
    if fit > 255 { 255 } else { fit }
}

/// The longest short segment of the segments' sort ([`SORT_SEGMENTS`]): segments of at most
/// this many keys are sorted many to a block, a window of [`sort_segment_window`] positions'
/// worth each; longer ones up to [`sort_row_tile`] keys a block each, and longer still by the
/// device-wide sort.
pub const fn sort_segment_small(key_size: usize) -> usize {
    sort_row_tile(key_size) / 4
}

/// Positions of the window whose starting short segments a block of the segments' sort takes:
/// those segments end within one tile ([`sort_row_tile`]).
pub const fn sort_segment_window(key_size: usize) -> usize {
    sort_row_tile(key_size) - sort_segment_small(key_size)
}

/// Resident blocks per SM the rows' sort is compiled for.
pub const SORT_ROW_MIN_BLOCKS: u32 = 3;

/// The histogram of every digit of every key: `hist` (zeroed) gets, for pass `p` and digit
/// `d`, the number of keys whose order word has byte `p` equal to `d` at `hist[p * 256 + d]`;
/// nothing when `needed` (null: none) reads 0 ([`SORT_PLAN`] then runs no pass). With `low`
/// above 0 the words' bits below `low` are not sorted on: pass `p`'s byte starts at bit
/// `min(8 * p + low, bits - 8)` (a partition by the bits from `low` up, stable).
pub const SORT_HISTOGRAM: Kernel = kernel(
    "wd_k_sort_histogram",
    &[
        p("keys", In(Elem)),
        p("n", U64),
        p("descending", U32),
        p("low", U32),
        p("needed", In(Pointee::U32)),
        p("hist", Out(Pointee::U64)),
    ],
    "wd_sort_histogram(keys, n, descending != 0, low, needed, hist);",
);

/// One block: each digit's first output position per pass (`offsets`) and the plan (which
/// passes run, reading and writing which buffers), from the histograms.
pub const SORT_PLAN: Kernel = kernel(
    "wd_k_sort_plan",
    &[
        p("hist", In(Pointee::U64)),
        p("n", U64),
        p("passes", U32),
        p("needed", In(Pointee::U32)),
        p("offsets", Out(Pointee::U64)),
        p("plan", Out(Pointee::U32)),
    ],
    "wd_sort_plan(hist, n, passes, needed, offsets, plan);",
);

/// One digit pass (`pass`), a tile per block in queue order: the keys (and values) of the
/// plan's source buffer moved to its destination, stably ordered by the digit (its first bit
/// as [`SORT_HISTOGRAM`]'s, from `low`). Blocks of [`SORT_BLOCK`] threads.
pub const SORT_PASS: Kernel = Kernel {
    threads: Threads::Sort,
    ..kernel_min(
        "wd_k_sort_pass",
        &[
            p("keys_in", In(Elem)),
            p("keys_out", Out(Elem)),
            p("keys_tmp", Out(Elem)),
            p("vals_in", In(Value)),
            p("vals_out", Out(Value)),
            p("vals_tmp", Out(Value)),
            p("index_values", U32),
            p("n", U64),
            p("pass", U32),
            p("low", U32),
            p("descending", U32),
            p("plan", In(Pointee::U32)),
            p("offsets", In(Pointee::U64)),
            p("status", Out(Pointee::U64)),
            p("queue", Out(Pointee::U32)),
        ],
        "WD_SORT_MIN_BLOCKS",
        "wd_sort_pass(keys_in, keys_out, keys_tmp, vals_in, vals_out, vals_tmp, index_values != 0, n, pass, low, descending != 0, plan, offsets, status, queue);",
    )
};

/// Rows short enough for a block ([`sort_row_tile`] keys at most), `rows_per_block` rows
/// (at most 255) a block, sorted in shared memory: the sorted keys into `keys_out`, each
/// key's column into `cols_out` and the value of `vals` at the key's place into `vals_out`,
/// each unless null.
pub const SORT_ROWS: Kernel = kernel_min(
    "wd_k_sort_rows",
    &[
        p("keys", In(Elem)),
        p("keys_out", Out(Elem)),
        p("cols_out", Out(Pointee::U32)),
        p("vals", In(Value)),
        p("vals_out", Out(Value)),
        p("rows", U64),
        p("cols", U32),
        p("rows_per_block", U32),
        p("descending", U32),
    ],
    "WD_SORT_ROW_MIN_BLOCKS",
    "wd_sort_rows(keys, keys_out, cols_out, vals, vals_out, rows, cols, rows_per_block, descending != 0);",
);

/// [`SORT_ROWS`] where only the sorted keys are wanted and a row takes a block (more than
/// half of [`sort_row_tile`] keys): block `b` sorts row `b` by its order words alone (equal
/// words are equal keys, so stability cannot be seen and no column is carried) instead of a
/// radix ranking per byte; blocks of [`SORT_ROW_KEYS_BLOCK`] threads. Words of up to 4 bytes:
/// a bitonic network over [`SORT_ROW_KEYS_TILE`] words in registers (block.cuh's
/// `wd_block_bitonic_words`: 32 a thread, moved between layouts through shared memory);
/// 8-byte words: block.cuh's merge sort, [`sort_row_keys_items`] a thread (the network's
/// 64-bit compare-exchanges took it 2.7 times the merge sort's time for rows of 3,072 `f64`
/// on an H100).
pub const SORT_ROWS_KEYS: Kernel = Kernel {
    threads: Threads::SortRowKeys,
    ..kernel_min(
        "wd_k_sort_rows_keys",
        &[
            p("keys", In(Elem)),
            p("keys_out", Out(Elem)),
            p("cols", U32),
            p("descending", U32),
        ],
        "WD_SORT_ROW_KEYS_MIN_BLOCKS",
        "wd_sort_rows_keys(keys, keys_out, cols, descending != 0);",
    )
};

/// Threads a block of [`SORT_ROWS_KEYS`] has: 128, four warps of 32 words a thread, the
/// bitonic network's [`SORT_ROW_KEYS_TILE`] words.
pub const SORT_ROW_KEYS_BLOCK: u32 = 128;

/// Words a block of [`SORT_ROWS_KEYS`] sorts by the bitonic network (a row of keys of up to 4
/// bytes, padded with the largest word): 32 a thread of [`SORT_ROW_KEYS_BLOCK`].
pub const SORT_ROW_KEYS_TILE: u32 = 4096;

/// Resident blocks per SM [`SORT_ROWS_KEYS`] is compiled for (at least; `__launch_bounds__`'
/// second argument), with keys of `key_size` bytes: eight for keys of up to 4 bytes (ptxas
/// takes 56 registers a thread, 64 at most), six for 8-byte words (the merge sort: 80
/// registers, 85 at most).
pub const fn sort_row_keys_min_blocks(key_size: usize) -> u32 {
    if key_size > 4 { 6 } else { 8 }
}

/// Keys a thread of [`SORT_ROWS_KEYS`] holds: 32 for keys of up to 4 bytes (the bitonic
/// network), 25 for 8-byte keys (the merge sort: odd, so that a warp's strided shared accesses
/// meet no bank twice), so that a block of [`SORT_ROW_KEYS_BLOCK`] threads holds a row of
/// [`sort_row_tile`] keys.
pub const fn sort_row_keys_items(key_size: usize) -> u32 {
    if key_size > 4 { 25 } else { 32 }
}

// A block of the keys' kernel holds the longest row it is given, for every key size.
const _: () = {
    assert!(SORT_ROW_KEYS_BLOCK * 32 == SORT_ROW_KEYS_TILE);
    let mut size = 1;
    while size <= 8 {
        assert!(
            SORT_ROW_KEYS_BLOCK as usize * sort_row_keys_items(size) as usize
                >= sort_row_tile(size)
        );
        assert!(size <= 4 || sort_row_keys_items(size) % 2 == 1);
        size *= 2;
    }
    assert!(sort_row_tile(4) <= SORT_ROW_KEYS_TILE as usize);
};

/// The segments' plan: checks the CSR `offsets` (`counts[2]` non-zero when bad), each
/// window's first segment into `win_first` (`windows + 1` entries), the medium segments'
/// indices into `medium` and the long ones' (start, end) pairs into `longs` (at most
/// `cap_medium` / `cap_long`), their
/// numbers into `counts[0]` and `counts[1]` (`counts` zeroed).
pub const SORT_SEGMENTS_PLAN: Kernel = kernel(
    "wd_k_sort_segments_plan",
    &[
        p("offsets", In(Pointee::U64)),
        p("segments", U64),
        p("n", U64),
        p("windows", U64),
        p("win_first", Out(Pointee::U64)),
        p("medium", Out(Pointee::U64)),
        p("cap_medium", U64),
        p("longs", Out(Pointee::U64)),
        p("cap_long", U64),
        p("counts", Out(Pointee::U64)),
    ],
    "wd_sort_segments_plan(offsets, segments, n, windows, win_first, medium, cap_medium, longs, cap_long, counts);",
);

/// The segments' sort of short and medium segments, after [`SORT_SEGMENTS_PLAN`]: a block per
/// window of short segments (`windows` of them), then one per medium segment; outputs as
/// [`SORT_ROWS`]'s, `cols_out` each key's position in its segment.
pub const SORT_SEGMENTS: Kernel = kernel_min(
    "wd_k_sort_segments",
    &[
        p("keys", In(Elem)),
        p("keys_out", Out(Elem)),
        p("cols_out", Out(Pointee::U32)),
        p("vals", In(Value)),
        p("vals_out", Out(Value)),
        p("offsets", In(Pointee::U64)),
        p("win_first", In(Pointee::U64)),
        p("windows", U64),
        p("medium", In(Pointee::U64)),
        p("descending", U32),
    ],
    "WD_SORT_ROW_MIN_BLOCKS",
    "wd_sort_segments(keys, keys_out, cols_out, vals, vals_out, offsets, win_first, windows, medium, descending != 0);",
);

/// Rows of at most [`SORT_WARP_COLS`] keys, each sorted by a bitonic network over (order word,
/// column) of the power of two at or above `cols`: in a thread's registers for words of up to
/// 4 bytes (32 rows a warp, staged through shared memory), by a group of lanes with shuffles
/// for 8-byte words; grid-stride; writes as [`SORT_ROWS`] does.
pub const SORT_ROWS_WARP: Kernel = kernel(
    "wd_k_sort_rows_warp",
    &[
        p("keys", In(Elem)),
        p("keys_out", Out(Elem)),
        p("cols_out", Out(Pointee::U32)),
        p("vals", In(Value)),
        p("vals_out", Out(Value)),
        p("rows", U64),
        p("cols", U32),
        p("descending", U32),
    ],
    "wd_sort_rows_warp<false>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending != 0);",
);

/// [`SORT_ROWS_WARP`] where only the sorted keys are wanted: for keys of up to 4 bytes the
/// network sorts the 32-bit order words alone (equal words are equal keys, so stability cannot
/// be seen), in a kernel of its own so that its register count is not the (word, column)
/// network's; keys of 8 bytes as [`SORT_ROWS_WARP`] with no columns or values.
pub const SORT_ROWS_WARP_KEYS: Kernel = kernel(
    "wd_k_sort_rows_warp_keys",
    &[
        p("keys", In(Elem)),
        p("keys_out", Out(Elem)),
        p("rows", U64),
        p("cols", U32),
        p("descending", U32),
    ],
    "wd_sort_rows_warp_keys(keys, keys_out, rows, cols, descending != 0);",
);

/// The longest rows the rows' sort sorts in registers ([`SORT_ROWS_WARP`]): a warp's lanes, or
/// a thread's 32 keys.
pub const SORT_WARP_COLS: usize = 32;

/// Batches of rows a warp of [`SORT_ROWS_WARP`] holds at once in the lanes' form (8-byte
/// words; their loads and shuffles interleaved).
pub const SORT_WARP_ROWS: u32 = 4;

/// One array of values gathered by a permutation into one field of rows: `dst`'s row `i`
/// (`stride` bytes from `dst`, the field `offset` bytes into it) gets `src[perm[i]]`, elements
/// of `width` bytes (1, 2, 4 or 8): the sort of pairs whose values are zipped arrays, each
/// array moved after an argsort into the field of the result's tuples. Grid-stride.
pub const SORT_GATHER: Kernel = kernel(
    "wd_k_sort_gather",
    &[
        p("src", In(Pointee::U8)),
        p("width", U32),
        p("perm", In(Pointee::U32)),
        p("n", U64),
        p("dst", Out(Pointee::U8)),
        p("stride", U32),
        p("offset", U32),
    ],
    "wd_sort_gather(src, width, perm, n, dst, stride, offset);",
);

/// The kernels of a sort module.
pub const SORT_KERNELS: &[&Kernel] = &[
    &SORT_HISTOGRAM,
    &SORT_PLAN,
    &SORT_PASS,
    &SORT_ROWS,
    &SORT_ROWS_KEYS,
    &SORT_ROWS_WARP,
    &SORT_ROWS_WARP_KEYS,
    &SORT_SEGMENTS_PLAN,
    &SORT_SEGMENTS,
    &SORT_GATHER,
];

/// The sort family's constants, emitted as `#define`s.
pub const SORT_DEFINES: &[(&str, u64)] = &[
    ("WD_SORT_BLOCK", SORT_BLOCK as u64),
    ("WD_SORT_ROW_KEYS_BLOCK", SORT_ROW_KEYS_BLOCK as u64),
    ("WD_SORT_ROW_KEYS_TILE", SORT_ROW_KEYS_TILE as u64),
    ("WD_SORT_UNROLL", SORT_UNROLL as u64),
    ("WD_SORT_WARP_ROWS", SORT_WARP_ROWS as u64),
    ("WD_SORT_LOOKBACK", SORT_LOOKBACK as u64),
    ("WD_SORT_RADIX_BITS", SORT_RADIX_BITS as u64),
    ("WD_SORT_CROWDED", SORT_CROWDED as u64),
];

/// The C type a sort moves values of `size` bytes as (their bits; `wd_u32` when there are
/// none).
pub fn sort_value_word(size: usize) -> &'static str {
    match size {
        1 => "wd_u8",
        2 => "wd_u16",
        8 => "wd_u64",
        _ => "wd_u32",
    }
}

/// The name of [`sort_module`]`(key, moves, can_stage)`: `sort_<key>_v<value bytes>`, with
/// `_staged` where its passes stage values ([`SortShape::staged`]). The module's file name,
/// and what the runtime checks a module against before it launches its passes (a module built
/// for other keys, values or passes than the launch's is refused, never run).
///
/// ```
/// use warp_kernels::Scalar;
/// use warp_kernels::family::sort::{SortMoves, sort_module_name};
/// assert_eq!(sort_module_name(Scalar::F32, SortMoves::Positions(4), true), "sort_f32_v4_staged");
/// assert_eq!(sort_module_name(Scalar::F32, SortMoves::Positions(4), false), "sort_f32_v4");
/// assert_eq!(sort_module_name(Scalar::U64, SortMoves::Keys, true), "sort_u64_v0");
/// ```
pub fn sort_module_name(key: Scalar, moves: SortMoves, can_stage: bool) -> String {
    let shape = SortShape::new(key, moves, can_stage);
    let staged = if shape.staged { "_staged" } else { "" };
    format!("sort_{key}_v{}{staged}", shape.value_size)
}

/// A sort module for keys of `key` moving `moves` (`Device::sort`, `sort_pairs`, `argsort`) on
/// a device that [`sort_can_stage`] (`can_stage`) or not: the catalogue's [`SORT_KERNELS`], its
/// passes shaped by [`SortShape::new`], named by [`sort_module_name`].
pub fn sort_module(key: Scalar, moves: SortMoves, can_stage: bool) -> String {
    let shape = SortShape::new(key, moves, can_stage);
    let value_size = shape.value_size;
    let value = sort_value_word(value_size);
    let staged = if shape.staged { ", staged" } else { "" };
    let mut m = Module::new(&format!(
        "radix sort of {key} keys, {value_size}-byte values{staged}"
    ));
    m.user(&format!(
        "#define WD_SORT_VALUE_BYTES {value_size}\n#define WD_SORT_MIN_BLOCKS {}\n#define WD_SORT_ITEMS {}\n\
         #define WD_SORT_PERSIST {}\n#define WD_SORT_STAGE {}\n#define WD_SORT_STASH_BYTES {}\n\
         #define WD_SORT_TILE {}\n#define WD_SORT_ROW_ITEMS {}\n#define WD_SORT_ROW_TILE {}\n\
         #define WD_SORT_ROW_MIN_BLOCKS {SORT_ROW_MIN_BLOCKS}\n\
         #define WD_SORT_ROW_KEYS_MIN_BLOCKS {}\n#define WD_SORT_ROW_KEYS_ITEMS {}\n#define WD_SORT_SEGMENT_SMALL {}\n\
         #define WD_SORT_SEGMENT_WINDOW {}\n",
        shape.min_blocks(),
        shape.items(),
        shape.persistent() as u32,
        shape.staged as u32,
        shape.stash_bytes(),
        shape.tile(),
        sort_row_items(key.size()),
        sort_row_tile(key.size()),
        sort_row_keys_min_blocks(key.size()),
        sort_row_keys_items(key.size()),
        sort_segment_small(key.size()),
        sort_segment_window(key.size()),
    ));
    m.template("warp.cuh");
    m.template("warp_intrinsics.cuh");
    m.template("block.cuh");
    m.template("lookback.cuh");
    m.template("order.cuh");
    m.template("sort.cuh");
    m.kernels(crate::catalogue::SORT_KERNELS, key.c_name(), value);
    m.finish(&sort_module_name(key, moves, can_stage))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Device::sort`'s documentation (warp-runtime) states the passes' tiles (4,608 to 9,216
    /// keys) and their look-back status (at most half a byte a key): the figures hold for
    /// every key size and what a sort module moves, and each tile's ranks fit 16 bits; a
    /// block's shared memory (static, about 40 KiB at most, and the stash) fits its SM at the
    /// blocks it is built for (228 KiB an SM from sm_90, 164 KiB on sm_80).
    #[test]
    fn pass_tiles_are_as_documented() {
        let mut tiles = vec![];
        for key in [
            Scalar::U8,
            Scalar::I16,
            Scalar::F16,
            Scalar::U32,
            Scalar::I32,
            Scalar::F32,
            Scalar::U64,
            Scalar::F64,
        ] {
            let mut moves = vec![SortMoves::Keys];
            for value in [1, 2, 4, 8, 16] {
                moves.push(SortMoves::Pairs(value));
            }
            moves.extend([SortMoves::Positions(4), SortMoves::Positions(8)]);
            for m in moves {
                assert!(!SortShape::new(key, m, false).staged);
                let shape = SortShape::new(key, m, true);
                let tile = shape.tile();
                assert!(tile <= 65_536, "a tile's ranks are 16 bits");
                assert!(2 * shape.status_bytes(tile) <= tile, "half a byte a key");
                let word4 = matches!(key, Scalar::U32 | Scalar::I32 | Scalar::F32);
                assert_eq!(
                    shape.staged,
                    word4 && m != SortMoves::Keys && m.value_size() == 4
                );
                let stash = shape.stash_bytes() as usize;
                assert_eq!(stash, if shape.staged { tile * 4 } else { 0 });
                assert!(shape.min_blocks() as usize * (stash + 41 * 1024) <= 164 * 1024);
                tiles.push(tile);
            }
        }
        assert_eq!(tiles.iter().min(), Some(&4_608));
        assert_eq!(tiles.iter().max(), Some(&9_216));
    }
}
