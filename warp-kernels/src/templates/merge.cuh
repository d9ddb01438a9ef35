// ---- warp-dsl merge sort by the user's "less than" (CUB's DeviceMergeSort) ----
// The module defines wd_key (the keys' C type) and wd_less(a, x, y): whether x sorts before y
// (the user's #[predicate(inputs = 2)], its bound arguments in `a`). Stable: of equal keys
// (neither less than the other) the earlier comes first. Positions (u32: each key's index in
// the input) move with the keys when `pos_out` is given (argsort_by).
//
// wd_merge_block_sort: each block sorts a tile of WD_MERGE_TILE keys (WD_MERGE_ITEMS a thread):
// each thread sorts its items in registers (insertion sort), then rounds of merges through
// shared memory double the sorted runs (each thread finds where its outputs start on the merge
// path of its pair of runs and merges WD_MERGE_ITEMS keys). Then passes over the whole array,
// each merging pairs of sorted runs of `width` keys: wd_merge_partition finds where each output
// tile starts on the merge path of its pair (a binary search per tile), wd_merge_pass merges a
// tile per block through shared memory.

// Keys taken from `a` (na keys) among the first d of the stable merge of a and b (nb keys):
// the merge path's crossing of diagonal d. Equal keys: a's first.
template <class I, class PA, class PB>
static __device__ __forceinline__ I wd_merge_path(const wd_args& args, PA a, I na, PB b, I nb, I d) {
    I lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (!wd_less(args, b[d - 1 - mid], a[mid])) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// ITEMS keys (and positions when with_pos) of the stable merge of the tile's keys[ai .. na)
// (run a) and keys[na + bi .. na + nb) (run b), from the thread's place on the merge path, into
// k / p; slots past the runs' end hold no key. As CUB's SerialMerge: the next key of each run
// waits in a register, so each output reads one key from shared memory (clamped to the
// tile's last key, which the thread's place guarantees is there).
template <int ITEMS>
static __device__ __forceinline__ void wd_merge_serial(const wd_args& args, const wd_key* keys, const wd_u32* pos, wd_u32 ai,
                                                       wd_u32 na, wd_u32 bi, wd_u32 nb, wd_key (&k)[ITEMS],
                                                       wd_u32 (&p)[ITEMS], bool with_pos) {
    const wd_u32 last = na + nb - 1;
    wd_u32 ia = ai, ib = na + bi;
    wd_key x = keys[ia < last ? ia : last], y = keys[ib < last ? ib : last];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const bool take_b = ib <= last && (ia >= na || wd_less(args, y, x));
        k[j] = take_b ? y : x;
        const wd_u32 at = take_b ? ib++ : ia++;
        if (with_pos) p[j] = pos[at < last ? at : last];
        const wd_u32 next = take_b ? ib : ia;
        const wd_key z = keys[next < last ? next : last];
        if (take_b) y = z;
        else x = z;
    }
}

// How many of the ITEMS keys from `mine` a thread holds of a tile of `count` keys.
template <int ITEMS>
static __device__ __forceinline__ wd_u32 wd_merge_valid(wd_u32 mine, wd_u32 count) {
    return mine < count ? (count - mine < (wd_u32)ITEMS ? count - mine : (wd_u32)ITEMS) : 0u;
}

// The thread's `valid` keys (and positions, when with_pos) written to the tile at `mine`, once
// every thread has read the tile (a barrier on each side). ITEMS is odd, so a warp's writes
// (a stride of ITEMS words) meet no bank twice.
template <int ITEMS>
static __device__ __forceinline__ void wd_merge_put(wd_key* tile, wd_u32* tpos, wd_u32 mine, wd_u32 valid,
                                                    const wd_key (&k)[ITEMS], const wd_u32 (&p)[ITEMS], bool with_pos) {
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if ((wd_u32)j < valid) {
            tile[mine + j] = k[j];
            if (with_pos) tpos[mine + j] = p[j];
        }
    }
    __syncthreads();
}

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
    static_assert(ITEMS % 2 == 1, "an odd number of keys a thread: strided shared accesses meet no bank twice");
    __shared__ wd_key tile[TILE];
    __shared__ wd_u32 tpos[WITH_POS ? TILE : 1];
    constexpr bool with_pos = WITH_POS;
    const wd_u64 base = (wd_u64)blockIdx.x * TILE;
    const wd_u32 count = n - base < TILE ? (wd_u32)(n - base) : TILE;
    wd_merge_load(keys + base, [](wd_u32 i) { return i; }, count, tile);
    __syncthreads();
    // The thread's items, sorted in registers: a stable insertion sort of the valid ones, each
    // with its position in the input.
    const wd_u32 mine = threadIdx.x * ITEMS;
    const wd_u32 valid = wd_merge_valid<ITEMS>(mine, count);
    wd_key k[ITEMS];
    wd_u32 p[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if ((wd_u32)j < valid) k[j] = tile[mine + j];
        p[j] = (wd_u32)(base + mine + j);
    }
#pragma unroll
    for (int j = 1; j < ITEMS; ++j) {
#pragma unroll
        for (int i = j; i > 0; --i) {
            // Moves item i down while it is less than the one before it (never past an equal key).
            if ((wd_u32)i < valid && wd_less(args, k[i], k[i - 1])) {
                const wd_key t = k[i];
                k[i] = k[i - 1];
                k[i - 1] = t;
                const wd_u32 q = p[i];
                p[i] = p[i - 1];
                p[i - 1] = q;
            }
        }
    }
    wd_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos);
    // Rounds: runs of `w` keys merged in pairs, each thread taking ITEMS outputs of its pair.
    for (wd_u32 w = ITEMS; w < count; w *= 2) {
        if (valid > 0) {
            const wd_u32 start = mine / (2 * w) * (2 * w);
            const wd_u32 a_end = start + w < count ? start + w : count;
            const wd_u32 b_end = start + 2 * w < count ? start + 2 * w : count;
            const wd_u32 na = a_end - start, nb = b_end - a_end;
            const wd_u32 d = mine - start;
            const wd_u32 ai = wd_merge_path<wd_u32>(args, tile + start, na, tile + a_end, nb, d);
            wd_merge_serial<ITEMS>(args, tile + start, tpos + start, ai, na, d - ai, nb, k, p, with_pos);
        }
        wd_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos);
    }
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
        part[t] = start + wd_merge_path<wd_u64>(args, keys + start, a_end - start, keys + a_end, b_end - a_end, g - start);
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
    const wd_u32 valid = wd_merge_valid<ITEMS>(mine, count);
    wd_key k[ITEMS];
    wd_u32 p[ITEMS];
    if (valid > 0) {
        const wd_u32 ai = wd_merge_path<wd_u32>(args, tile, na, tile + na, nb, mine);
        wd_merge_serial<ITEMS>(args, tile, tpos, ai, na, mine - ai, nb, k, p, with_pos);
    }
    wd_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos);
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
