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

/// The kernels of a search module.
pub const SEARCH_KERNELS: &[&Kernel] = &[&SEARCH, &SEARCH_ORDER];

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
