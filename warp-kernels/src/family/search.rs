//! The search family: lower and upper bounds of many queries in a sorted array (binary
//! search in the sort's order), `thrust::lower_bound` / `torch.searchsorted`.

use crate::catalogue::kit::*;
use crate::module::Module;
use crate::types::Scalar;

/// Queries a thread of the search answers at once (their loads in flight together).
pub const SEARCH_ITEMS: u32 = 4;

/// The most keys of the array's sample a block holds in shared memory: the sample search
/// narrows a query's answer to a stretch of `2^p` keys, `p` the smallest with
/// `n <= SEARCH_SAMPLES * 2^p` ([`search_shift`]).
pub const SEARCH_SAMPLES: u32 = 2048;

/// `p`: the array's sample takes every `2^p`-th key of `n`, at most [`SEARCH_SAMPLES`] of
/// them.
pub const fn search_shift(n: usize) -> u32 {
    let mut p = 0;
    while ((SEARCH_SAMPLES as usize) << p) < n {
        p += 1;
    }
    p
}

/// For each query (`m` of them), the number of keys of `sorted` (`n`, sorted in the order:
/// ascending, or descending when `descending`) before it (`upper`: before it or equal), into
/// `out` (the module's index type) at the query's place. With `perm` (null: none), the
/// queries were sorted first, `sorted_queries` with their positions `perm`, unless `unsorted`
/// (null: they were) reads 0 ([`SEARCH_ORDER`]'s word): then `queries` are read in place.
/// Grid-stride; `p` is [`search_shift`] of `n`.
pub const SEARCH: Kernel = kernel(
    "wd_k_search",
    &[
        p("sorted", In(Elem)),
        p("n", U64),
        p("queries", In(Elem)),
        p("sorted_queries", In(Elem)),
        p("m", U64),
        p("perm", In(Pointee::U32)),
        p("unsorted", In(Pointee::U32)),
        p("p", U32),
        p("upper", U32),
        p("descending", U32),
        p("out", Out(Value)),
    ],
    "wd_search(sorted, n, queries, sorted_queries, m, perm, unsorted, p, upper != 0, descending != 0, out);",
);

/// Whether the `m` queries are already in the order (ascending, or descending when
/// `descending`): `*unsorted` (zeroed by the caller) set to 1 when one is not. Grid-stride.
pub const SEARCH_ORDER: Kernel = kernel(
    "wd_k_search_order",
    &[
        p("queries", In(Elem)),
        p("m", U64),
        p("descending", U32),
        p("unsorted", Out(Pointee::U32)),
    ],
    "wd_search_order(queries, m, descending != 0, unsorted);",
);

/// The bytes of order words a block of [`SEARCH_TILES`] holds: the most keys a tile of
/// queries in order searches in shared memory are as many as 4-byte words would be (8,192
/// keys of 1 to 4 bytes, 4,096 of 8), each thread's loads of them all in flight at once.
pub const SEARCH_TILE_BYTES: u32 = 32 << 10;

/// For each tile of [`BLOCK`] queries in order (the queries as
/// [`SEARCH`] picks them: in place, or their sorted copy), the answer of its first query into
/// `bounds[t]`, and `bounds[tiles] = n`: the answers of tile `t` lie in
/// `bounds[t]..=bounds[t + 1]`. Grid-stride over the tiles; `p` is [`search_shift`] of `n`.
pub const SEARCH_BOUNDS: Kernel = kernel(
    "wd_k_search_bounds",
    &[
        p("sorted", In(Elem)),
        p("n", U64),
        p("queries", In(Elem)),
        p("sorted_queries", In(Elem)),
        p("m", U64),
        p("perm", In(Pointee::U32)),
        p("unsorted", In(Pointee::U32)),
        p("p", U32),
        p("upper", U32),
        p("descending", U32),
        p("bounds", Out(Pointee::U64)),
    ],
    "wd_search_bounds(sorted, n, queries, sorted_queries, m, perm, unsorted, p, upper != 0, descending != 0, bounds);",
);

/// The answers of `m` queries in order, a tile of [`BLOCK`] at a
/// time between its `bounds` ([`SEARCH_BOUNDS`]): a tile's keys are read once, coalesced,
/// into shared memory (at most [`SEARCH_TILE_BYTES`] of them; more are searched in global
/// memory) and its queries searched there. Written as [`SEARCH`] writes them. Grid-stride
/// over the tiles.
pub const SEARCH_TILES: Kernel = kernel(
    "wd_k_search_tiles",
    &[
        p("sorted", In(Elem)),
        p("queries", In(Elem)),
        p("sorted_queries", In(Elem)),
        p("m", U64),
        p("perm", In(Pointee::U32)),
        p("unsorted", In(Pointee::U32)),
        p("bounds", In(Pointee::U64)),
        p("upper", U32),
        p("descending", U32),
        p("out", Out(Value)),
    ],
    "wd_search_tiles(sorted, queries, sorted_queries, m, perm, unsorted, bounds, upper != 0, descending != 0, out);",
);

/// Whether `m` queries in order into `n` keys are searched by tiles ([`SEARCH_BOUNDS`], then
/// [`SEARCH_TILES`]) rather than each on its own ([`SEARCH`]): when a tile of queries spans,
/// on average, no more keys than a sample's stretch (the keys [`SEARCH`] searches a query's
/// answer among in global memory), so that every tile reads no more than its queries would.
pub const fn search_by_tiles(n: usize, m: usize) -> bool {
    (n as u128) * (crate::catalogue::BLOCK as u128) <= (m as u128) << search_shift(n)
}

/// The kernels of a search module.
pub const SEARCH_KERNELS: &[&Kernel] = &[&SEARCH, &SEARCH_ORDER, &SEARCH_BOUNDS, &SEARCH_TILES];

/// The fewest queries that are sorted before they are searched (with their positions, the
/// answers written back to the queries' places), when the array is larger than
/// [`SEARCH_SORT_MIN_BYTES`]: neighbouring sorted queries read the same lines, where random
/// ones each miss the cache at every low level of the search (on an H200, 2^24 random f32
/// queries in 2^28 keys: 5.8 ms searched directly, 0.57 ms once sorted).
pub const SEARCH_SORT_MIN_QUERIES: usize = 1 << 16;

/// The smallest array (bytes) whose searches sort many queries first: smaller ones stay in
/// the L2 cache (50 MB on an H200), where random queries cost little more than sorted ones.
pub const SEARCH_SORT_MIN_BYTES: usize = 32 << 20;

/// The search family's constants, emitted as `#define`s.
pub const SEARCH_DEFINES: &[(&str, u64)] = &[
    ("WD_SEARCH_ITEMS", SEARCH_ITEMS as u64),
    ("WD_SEARCH_SAMPLES", SEARCH_SAMPLES as u64),
    ("WD_SEARCH_TILE_BYTES", SEARCH_TILE_BYTES as u64),
];

/// A search module for keys of `key` with answers of the integer type `index` (`u32` or
/// `u64`, ...): [`SEARCH_KERNELS`].
pub fn search_module(key: Scalar, index: Scalar) -> String {
    let mut m = Module::new(&format!("binary search of {key} keys, {index} answers"));
    m.template("order.cuh");
    m.template("search.cuh");
    m.kernels(
        crate::catalogue::SEARCH_KERNELS,
        key.c_name(),
        index.c_name(),
    );
    m.finish(&format!("search_{key}_{index}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_queries_in_order_are_searched_by_tiles() {
        // 2^24 queries into 2^28 keys (16 keys a query; a stretch is 2^17 keys): tiles.
        assert!(search_by_tiles(1 << 28, 1 << 24));
        // A tile of 256 spanning exactly a stretch, and just more.
        assert!(search_by_tiles(1 << 28, 1 << 19));
        assert!(!search_by_tiles(1 << 28, (1 << 19) - 1));
        // Few queries: each on its own.
        assert!(!search_by_tiles(1 << 28, 1 << 10));
        // A small array (all sample: a stretch of one key) needs a query a key and more.
        assert!(search_by_tiles(1000, 256_000));
        assert!(!search_by_tiles(1000, 1000));
    }
}
