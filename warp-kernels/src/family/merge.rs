//! The merge family: a stable merge sort by the user's "less than" (a `#[predicate(inputs =
//! 2)]` of two keys), with the keys' positions moved along for an argsort (CUB's
//! `DeviceMergeSort`), and the binary search of queries by the same comparator.

use crate::catalogue::kit::*;
use crate::module::{FnFragment, Module, bound_args};
use crate::types::Scalar;

/// Keys a thread of the merge sort holds: a block's tile is [`BLOCK`] times as many (17 of
/// keys up to 4 bytes, as CUB's merge sort, 9 up to 8, 5 up to 16, 3 up to 32, then 1: a tile
/// of the largest tuples and structs, 64 bytes, and their positions takes 17 KiB of shared
/// memory, one of 4-byte keys 34 KiB). Always odd: a warp's accesses to the shared tile at a
/// stride of that many words meet no bank twice.
pub const fn merge_items(key_size: usize) -> u32 {
    if key_size <= 4 {
        17
    } else if key_size <= 8 {
        9
    } else if key_size <= 16 {
        5
    } else if key_size <= 32 {
        3
    } else {
        1
    }
}

/// The floor of resident blocks per SM of the block sort and the passes (`__launch_bounds__`):
/// a register cap that keeps more tiles in flight. Chosen on the H200 with
/// `benches/probes/merge` (2^26 `f32` by magnitude, 17 keys a thread): 5 (48 registers) took
/// 3.27 ms, 4 (64) 3.57 ms, 6 (40) 3.43 ms. Wider keys take more registers a key: 4 blocks (64
/// registers) up to 32 bytes, 2 (128) above.
pub const fn merge_min_blocks(key_size: usize) -> u32 {
    if key_size <= 8 {
        5
    } else if key_size <= 32 {
        4
    } else {
        2
    }
}

/// Keys of a block's tile: the block sort's sorted runs, and a pass's output tile.
pub const fn merge_tile(key_size: usize) -> usize {
    BLOCK as usize * merge_items(key_size) as usize
}

/// Keys of a pair's merge between two pivots of a four-way pass (the pivots are the keys of
/// `merge(A, B)` and of `merge(C, D)` at its multiples): a tile. Each pivot costs three binary
/// searches over the runs; a pass of 2^26 `f32` keys placed 123,000 pivots (an eighth of a
/// tile apart) in about 110 us on an H100, 15,400 (a tile apart) take an eighth of that.
pub const fn merge4_spacing(key_size: usize) -> usize {
    merge_tile(key_size)
}

/// The even share of a four-way pass's block: a group of four runs is cut every (at most)
/// this many keys, and a block's share runs from the last pivot at or before its cut to the
/// next block's start, fewer than `merge4_span + 2 * merge4_spacing` keys, merged a chunk at a
/// time. Six tiles: at least `4 * merge4_spacing + 2`, so that every cut has a pivot within
/// it, and a block merges several chunks.
pub const fn merge4_span(key_size: usize) -> usize {
    6 * merge_tile(key_size)
}

/// Keys a four-way pass's chunk loads from each run, on average: a quarter of a tile less a
/// thread's keys (the spare thread of the chunk's first round of merges), down to a multiple of
/// the block where it is larger (the loads striped evenly over the threads). The chunk loads
/// `4 * merge4_window / 32` whole segments of 32 keys, shared among the runs as they gave keys
/// to the last chunk, at least one segment (or a 64th of them) a run.
pub const fn merge4_window(key_size: usize) -> usize {
    let w = (merge_tile(key_size) - merge_items(key_size) as usize) / 4;
    if w >= BLOCK as usize {
        w / BLOCK as usize * BLOCK as usize
    } else {
        w
    }
}

/// The blocks of a four-way pass over `n` keys in runs of `width` (a group of four runs is cut
/// into `ceil(size / merge4_span)` even shares), and the blocks of a whole group (the stride of
/// its blocks' slots).
pub const fn merge4_blocks(key_size: usize, n: u64, width: u64) -> (u64, u64) {
    let span = merge4_span(key_size) as u64;
    let group = 4 * width;
    let per = group.div_ceil(span);
    let groups = n.div_ceil(group);
    let last = n - (groups - 1) * group;
    ((groups - 1) * per + last.div_ceil(span), per)
}

/// The pivots of a four-way pass over `n` keys in runs of `width`: a group's start and the
/// keys of its two pairs' merges at multiples of [`merge4_spacing`] (as many slots for each
/// group, whether its keys reach them or not).
pub const fn merge4_pivots(key_size: usize, n: u64, width: u64) -> u64 {
    n.div_ceil(4 * width) * (4 * width / merge4_spacing(key_size) as u64)
}

// The sorted runs ping-pong between two buffers: `out` (the caller's output) and `tmp`
// (scratch), with positions in `pos_out` / `pos_tmp` (null when none are wanted); `src` (0:
// the outputs, 1: the scratch) says which a kernel reads.

/// The block sort's parameters (both forms).
const BLOCK_SORT_PARAMS: &[Param] = &[
    p("keys", In(Elem)),
    p("n", U64),
    p("a", Args),
    p("out", Out(Elem)),
    p("tmp", Out(Elem)),
    p("pos_out", Out(Pointee::U32)),
    p("pos_tmp", Out(Pointee::U32)),
    p("src", U32),
];

/// Each block sorts its tile of keys (`keys[b * tile ..]`) into the buffers `1 - src` names
/// (the outputs when `src` is 1), with their positions (which must not be null).
pub const MERGE_BLOCK_SORT: Kernel = kernel_min(
    "wd_k_merge_block_sort",
    BLOCK_SORT_PARAMS,
    "WD_MERGE_MIN_BLOCKS",
    "wd_merge_block_sort<true>(wd_resolve_args(a), keys, n, src ? out : tmp, src ? pos_out : pos_tmp);",
);

/// [`MERGE_BLOCK_SORT`] of the keys alone (the positions are ignored): a tile's shared memory
/// without positions, so more blocks fit on a multiprocessor.
pub const MERGE_BLOCK_SORT_KEYS: Kernel = kernel_min(
    "wd_k_merge_block_sort_keys",
    BLOCK_SORT_PARAMS,
    "WD_MERGE_MIN_BLOCKS",
    "wd_merge_block_sort<false>(wd_resolve_args(a), keys, n, src ? out : tmp, nullptr);",
);

/// Where each output tile of a pass merging pairs of sorted runs of `width` keys (in the
/// buffer `src` names) starts in its pair's first run (`tiles + 1` entries of `part`).
pub const MERGE_PARTITION: Kernel = kernel(
    "wd_k_merge_partition",
    &[
        p("out", Out(Elem)),
        p("tmp", Out(Elem)),
        p("src", U32),
        p("n", U64),
        p("width", U64),
        p("tiles", U64),
        p("a", Args),
        p("part", Out(Pointee::U64)),
    ],
    "wd_merge_partition(wd_resolve_args(a), src ? tmp : out, n, width, tiles, part);",
);

/// A pass's parameters (both forms).
const PASS_PARAMS: &[Param] = &[
    p("out", Out(Elem)),
    p("tmp", Out(Elem)),
    p("pos_out", Out(Pointee::U32)),
    p("pos_tmp", Out(Pointee::U32)),
    p("src", U32),
    p("n", U64),
    p("width", U64),
    p("part", In(Pointee::U64)),
    p("a", Args),
];

/// One pass: a block per output tile merges its share of a pair of runs of `width` keys (and
/// their positions, which must not be null) from the buffers `src` names into the others.
pub const MERGE_PASS: Kernel = kernel_min(
    "wd_k_merge_pass",
    PASS_PARAMS,
    "WD_MERGE_MIN_BLOCKS",
    "wd_merge_pass<true>(wd_resolve_args(a), src ? tmp : out, src ? pos_tmp : pos_out, n, width, part, src ? out : tmp, src ? pos_out : pos_tmp);",
);

/// [`MERGE_PASS`] of the keys alone (the positions are ignored).
pub const MERGE_PASS_KEYS: Kernel = kernel_min(
    "wd_k_merge_pass_keys",
    PASS_PARAMS,
    "WD_MERGE_MIN_BLOCKS",
    "wd_merge_pass<false>(wd_resolve_args(a), src ? tmp : out, nullptr, n, width, part, src ? out : tmp, nullptr);",
);

/// The pivots of a four-way pass merging groups of four runs of `width` keys (in the buffer
/// `src` names): each pivot's split into `table` (four `u32` a pivot), and each block's
/// starting pivot into its slot of `slots` (zeroed before: an atomic max of (place << 32 |
/// pivot)). `total`: [`merge4_pivots`].
pub const MERGE4_PIVOTS: Kernel = kernel(
    "wd_k_merge4_pivots",
    &[
        p("out", Out(Elem)),
        p("tmp", Out(Elem)),
        p("src", U32),
        p("n", U64),
        p("width", U64),
        p("total", U64),
        p("a", Args),
        p("table", Out(Pointee::U32)),
        p("slots", Out(Pointee::U64)),
    ],
    "wd_merge4_pivots(wd_resolve_args(a), src ? tmp : out, n, width, total, table, slots);",
);

/// One four-way pass of the keys alone: each block merges its share of a group of four runs
/// of `width` keys from the buffer `src` names into the other, its share from
/// [`MERGE4_PIVOTS`]'s table and slots; [`merge4_blocks`] blocks. (With positions the passes
/// are two-way: the rounds' registers hold no positions beside the keys without spilling.)
pub const MERGE4_PASS_KEYS: Kernel = kernel_min(
    "wd_k_merge4_pass_keys",
    &[
        p("out", Out(Elem)),
        p("tmp", Out(Elem)),
        p("src", U32),
        p("n", U64),
        p("width", U64),
        p("table", In(Pointee::U32)),
        p("slots", In(Pointee::U64)),
        p("a", Args),
    ],
    "WD_MERGE_MIN_BLOCKS",
    "wd_merge4_pass(wd_resolve_args(a), src ? tmp : out, n, width, table, slots, src ? out : tmp);",
);

/// The binary search by the comparator: for each of the `m` queries the first position of the
/// `n` sorted keys that is not before it (`upper` 0: lower bound) or that it is before (upper
/// bound), into `out`; a thread per query.
pub const MERGE_SEARCH: Kernel = kernel(
    "wd_k_merge_search",
    &[
        p("keys", In(Elem)),
        p("n", U64),
        p("queries", In(Elem)),
        p("m", U64),
        p("a", Args),
        p("upper", U32),
        p("out", Out(Pointee::U32)),
    ],
    "wd_merge_search(wd_resolve_args(a), keys, n, queries, m, upper, out);",
);

/// The kernels of a merge sort module (which also searches by its comparator).
pub const MERGE_KERNELS: &[&Kernel] = &[
    &MERGE_BLOCK_SORT,
    &MERGE_BLOCK_SORT_KEYS,
    &MERGE_PARTITION,
    &MERGE_PASS,
    &MERGE_PASS_KEYS,
    &MERGE4_PIVOTS,
    &MERGE4_PASS_KEYS,
    &MERGE_SEARCH,
];

/// The merge family's constants, emitted as `#define`s (the tile is the module's: it depends
/// on the key's size).
pub const MERGE_DEFINES: &[(&str, u64)] = &[];

/// A merge sort module for keys of `key` ordered by `less` (a predicate of two keys, its bound
/// arguments in the kernels' `a`): [`MERGE_KERNELS`].
pub fn merge_module(key: Scalar, less: &FnFragment) -> String {
    merge_module_of(key.c_name(), key.size(), &key.to_string(), less)
}

/// A merge sort module for keys of the tuple or struct type `less` compares (its parameters'
/// C type, `size` bytes): [`MERGE_KERNELS`].
pub fn merge_values_module(less: &FnFragment, size: usize) -> String {
    merge_module_of(&less.input, size, &less.input, less)
}

/// The merge sort module of keys of C type `k` (`size` bytes, named `label`).
fn merge_module_of(k: &str, size: usize, label: &str, less: &FnFragment) -> String {
    let mut m = Module::new(&format!(
        "merge sort of {label} keys by `{}` (less than)",
        less.name
    ));
    m.type_support(&[&less.type_support]);
    m.user(&format!(
        "#define WD_MERGE_ITEMS {}\n#define WD_MERGE_TILE {}\n#define WD_MERGE_MIN_BLOCKS {}\n#define WD_MERGE4_SPACING {}\n#define WD_MERGE4_SPAN {}\n#define WD_MERGE4_WINDOW {}\ntypedef {k} wd_key;\n",
        merge_items(size),
        merge_tile(size),
        merge_min_blocks(size),
        merge4_spacing(size),
        merge4_span(size),
        merge4_window(size),
    ));
    m.user("\n// ---- the user's functions, lowered ----\n");
    m.function(&less.text, "wd_pred");
    m.user(&format!(
        "
// ---- the order: whether x sorts before y ----
static __device__ __forceinline__ bool wd_less(const wd_args& a, {k} x, {k} y) {{ (void)a; return wd_pred(x, y{}); }}
",
        bound_args(less, 0)
    ));
    m.template("warp.cuh");
    m.template("warp_intrinsics.cuh");
    m.template("block.cuh");
    m.template("merge.cuh");
    m.kernels(crate::catalogue::MERGE_KERNELS, k, "wd_u32");
    m.finish(&format!("merge_sort_{label}_by_{}", less.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-way pass's constants keep the promises its kernels rely on, for every key size
    /// a comparator sorts: every cut of a group has a pivot within it, four windows and a spare
    /// thread's keys fit a tile, a chunk has at least one segment of 32 keys a run, and a pair
    /// of runs holds a whole number of pivot spacings.
    #[test]
    fn four_way_constants_keep_their_promises() {
        for size in 1..=64 {
            let (tile, items) = (merge_tile(size), merge_items(size) as usize);
            let (spacing, span, window) =
                (merge4_spacing(size), merge4_span(size), merge4_window(size));
            assert!(
                span >= 4 * spacing + 2,
                "size {size}: span {span}, spacing {spacing}"
            );
            assert!(
                4 * window + items <= tile,
                "size {size}: window {window}, tile {tile}"
            );
            // A chunk loads whole segments of 32 keys (a warp's loads), at least one a run.
            assert!(4 * window / 32 >= 4, "size {size}: window {window}");
            assert_eq!((2 * tile) % spacing, 0, "size {size}");
        }
        // A pass over 2^26 four-byte keys in runs of a tile: the blocks fit the slots, and the
        // pivots are a whole group's slots for every group.
        let n = 1u64 << 26;
        let w = merge_tile(4) as u64;
        let (blocks, per) = merge4_blocks(4, n, w);
        assert_eq!(per, (4 * w).div_ceil(merge4_span(4) as u64));
        assert!(blocks <= n.div_ceil(4 * w) * per);
        assert_eq!(
            merge4_pivots(4, n, w),
            n.div_ceil(4 * w) * (4 * w / merge4_spacing(4) as u64)
        );
    }
}
