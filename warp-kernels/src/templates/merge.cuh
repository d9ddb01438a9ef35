// ---- warp-dsl merge sort by the user's "less than" (CUB's DeviceMergeSort) ----
// The module defines wd_key (the keys' C type) and wd_less(a, x, y): whether x sorts before y
// (the user's #[predicate(inputs = 2)], its bound arguments in `a`). Stable: of equal keys
// (neither less than the other) the earlier comes first. Positions (u32: each key's index in
// the input) move with the keys when `pos_out` is given (argsort_by).
//
// wd_merge_block_sort: each block sorts a tile of WD_MERGE_TILE keys (WD_MERGE_ITEMS a thread)
// by block.cuh's wd_block_merge_sort (each thread's items sorted in registers, then rounds of
// merges through shared memory, each thread merging WD_MERGE_ITEMS keys from its place on the
// merge path of its pair of runs). Then passes over the whole array,
// each merging pairs of sorted runs of `width` keys: wd_merge_partition finds where each output
// tile starts on the merge path of its pair (a binary search per tile), wd_merge_pass merges a
// tile per block through shared memory.

// The user's order as block.cuh's merge primitives take it.
struct wd_merge_less {
    const wd_args& args;
    __device__ __forceinline__ bool operator()(const wd_key& x, const wd_key& y) const { return wd_less(args, x, y); }
};

// A tile's `count` values (count <= WD_MERGE_TILE; keys, or their positions) into shared
// memory, slot i read from src[at(i)], striped over the threads, each thread's WD_MERGE_ITEMS
// loads in flight before it writes any; no barrier.
template <class T, class At>
static __device__ __forceinline__ void wd_merge_load(const T* src, At at, wd_u32 count, T* dst) {
    T r[WD_MERGE_ITEMS];
#pragma unroll
    for (int j = 0; j < WD_MERGE_ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + j * WD_BLOCK;
        if (i < count) r[j] = src[at(i)];
    }
#pragma unroll
    for (int j = 0; j < WD_MERGE_ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + j * WD_BLOCK;
        if (i < count) dst[i] = r[j];
    }
}

// The block's sorted tile (count keys, and positions when with_pos) out to `at`,
// striped over the threads.
template <class K>
static __device__ __forceinline__ void wd_merge_store(const wd_key* tile, const wd_u32* tpos, wd_u32 count, K* keys_out,
                                                      wd_u32* pos_out, wd_u64 at, bool with_pos) {
#pragma unroll
    for (int j = 0; j < WD_MERGE_ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + j * WD_BLOCK;
        if (i < count) {
            keys_out[at + i] = tile[i];
            if (with_pos) pos_out[at + i] = tpos[i];
        }
    }
}

// The block's tile (keys `base .. base + count`, count <= WD_MERGE_TILE) sorted into keys_out
// (and, when WITH_POS, their positions into pos_out). Without positions the block's shared
// memory is the keys' tile alone.
template <bool WITH_POS, class K>
static __device__ __forceinline__ void wd_merge_block_sort(const wd_args& args, const K* keys, wd_u64 n, K* keys_out,
                                                           wd_u32* pos_out) {
    constexpr int ITEMS = WD_MERGE_ITEMS;
    constexpr unsigned TILE = WD_MERGE_TILE;
    __shared__ wd_key tile[TILE];
    __shared__ wd_u32 tpos[WITH_POS ? TILE : 1];
    constexpr bool with_pos = WITH_POS;
    const wd_u64 base = (wd_u64)blockIdx.x * TILE;
    const wd_u32 count = n - base < TILE ? (wd_u32)(n - base) : TILE;
    wd_merge_load(keys + base, [](wd_u32 i) { return i; }, count, tile);
    __syncthreads();
    // The thread's items, each with its position in the input, sorted with the rest of the tile.
    const wd_u32 mine = threadIdx.x * ITEMS;
    const wd_u32 valid = wd_block_merge_valid<ITEMS>(mine, count);
    wd_key k[ITEMS];
    wd_u32 p[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if ((wd_u32)j < valid) k[j] = tile[mine + j];
        p[j] = (wd_u32)(base + mine + j);
    }
    wd_block_merge_sort<ITEMS>(wd_merge_less{args}, tile, tpos, count, k, p, with_pos);
    wd_merge_store(tile, tpos, count, keys_out, pos_out, base, with_pos);
}

// For each output tile t <= tiles of a pass merging pairs of runs of `width` keys: where it
// starts in its pair's first run (an index into `keys`), into part[t]. Grid-stride.
template <class K>
static __device__ __forceinline__ void wd_merge_partition(const wd_args& args, const K* keys, wd_u64 n, wd_u64 width,
                                                          wd_u64 tiles, wd_u64* part) {
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    for (wd_u64 t = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; t <= tiles; t += stride) {
        const wd_u64 g = t * WD_MERGE_TILE < n ? t * WD_MERGE_TILE : n;
        const wd_u64 start = g / (2 * width) * (2 * width);
        const wd_u64 a_end = start + width < n ? start + width : n;
        const wd_u64 b_end = start + 2 * width < n ? start + 2 * width : n;
        part[t] = start + wd_block_merge_path<wd_u64>(wd_merge_less{args}, keys + start, a_end - start, keys + a_end, b_end - a_end, g - start);
    }
}

// Block t: output tile t of the pass (keys t * WD_MERGE_TILE ..) merged from its pair's runs
// in `keys` into keys_out (and, when WITH_POS, the positions in `pos` into pos_out).
template <bool WITH_POS, class K>
static __device__ __forceinline__ void wd_merge_pass(const wd_args& args, const K* keys, const wd_u32* pos, wd_u64 n,
                                                     wd_u64 width, const wd_u64* part, K* keys_out, wd_u32* pos_out) {
    constexpr int ITEMS = WD_MERGE_ITEMS;
    constexpr unsigned TILE = WD_MERGE_TILE;
    __shared__ wd_key tile[TILE];
    __shared__ wd_u32 tpos[WITH_POS ? TILE : 1];
    constexpr bool with_pos = WITH_POS;
    const wd_u64 t = blockIdx.x;
    const wd_u64 g0 = t * TILE, g1 = g0 + TILE < n ? g0 + TILE : n;
    const wd_u64 start = g0 / (2 * width) * (2 * width);
    const wd_u64 a_end = start + width < n ? start + width : n;
    const wd_u64 b_end = start + 2 * width < n ? start + 2 * width : n;
    // The tile's keys: a[a0 .. a1) and b[b0 .. b1), b starting at a_end.
    const wd_u64 a0 = part[t];
    const wd_u64 a1 = g1 == b_end ? a_end : part[t + 1];
    const wd_u64 b0 = a_end + (g0 - start) - (a0 - start);
    const wd_u64 b1 = a_end + (g1 - start) - (a1 - start);
    const wd_u32 na = (wd_u32)(a1 - a0), nb = (wd_u32)(b1 - b0);
    const wd_u32 count = na + nb;
    const auto at = [=](wd_u32 i) { return i < na ? a0 + i : b0 + (i - na); };
    wd_merge_load(keys, at, count, tile);
    if (with_pos) wd_merge_load(pos, at, count, tpos);
    __syncthreads();
    const wd_u32 mine = threadIdx.x * ITEMS;
    const wd_u32 valid = wd_block_merge_valid<ITEMS>(mine, count);
    wd_key k[ITEMS];
    wd_u32 p[ITEMS];
    const wd_merge_less less{args};
    if (valid > 0) {
        const wd_u32 ai = wd_block_merge_path<wd_u32>(less, tile, na, tile + na, nb, mine);
        wd_block_merge_serial<ITEMS>(less, tile, tpos, ai, na, na + (mine - ai), count, k, p, with_pos);
    }
    wd_block_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos);
    wd_merge_store(tile, tpos, count, keys_out, pos_out, g0, with_pos);
}

// Binary search by the comparator (lower_bound_by / upper_bound_by): for each of the m queries,
// a thread (grid-stride) finds in the n keys sorted by wd_less the first position i whose key
// is not less than the query (upper == 0: !wd_less(keys[i], q)) or that the query is less than
// (upper != 0: wd_less(q, keys[i])), n when there is none; out[j] = i (n < 2^32).
static __device__ __forceinline__ void wd_merge_search(const wd_args& args, const wd_key* keys, wd_u64 n,
                                                       const wd_key* queries, wd_u64 m, wd_u32 upper, wd_u32* out) {
    for (wd_u64 j = blockIdx.x * (wd_u64)blockDim.x + threadIdx.x; j < m; j += (wd_u64)gridDim.x * blockDim.x) {
        const wd_key q = queries[j];
        wd_u64 lo = 0, len = n;
        while (len > 0) {
            const wd_u64 half = len >> 1;
            const wd_key x = keys[lo + half];
            const bool after = upper ? !wd_less(args, q, x) : wd_less(args, x, q);
            if (after) {
                lo += half + 1;
                len -= half + 1;
            } else {
                len = half;
            }
        }
        out[j] = (wd_u32)lo;
    }
}
