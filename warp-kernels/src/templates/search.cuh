// ---- warp-dsl binary search: lower and upper bounds of many queries in a sorted array ----
// The order is the sort's (wd_sort_bits' order words, complemented for a descending array), so
// that an array sorted by Device::sort is searched in its own order. A query's lower bound is
// the number of keys before it in the order (word < the query's), its upper bound the number
// before it or equal (word <= the query's).
//
// Each block first loads a sample of the array into shared memory: every `step`-th key's
// word (step = 2^p, at most WD_SEARCH_SAMPLES samples). A query's sample search (shared
// memory, binary) finds the step-long stretch its answer lies in; a branch-free binary search
// of that stretch in global memory (p steps, the same for every query) finishes it, for
// WD_SEARCH_ITEMS queries a thread at once (independent loads in flight). Queries in order
// read the same lines as their neighbours: the runtime sorts many random queries first (with
// their positions, `perm`), and the answers go back to the queries' places (out[perm[i]]).
// Queries already in order are not sorted again: a pass over them (wd_search_order) sets
// `*unsorted` when one comes after a larger one; the sort's plan then runs no pass when the
// word is 0, and the search reads the queries in place (`queries`) instead of their sorted
// copy (`sorted_queries`, `perm`).

// Sets *unsorted (zeroed by the caller) when a query's word is above the next one's. Pairs
// (i, i + 1), WD_SEARCH_ITEMS a thread at once (their loads in flight together), grid-stride.
template <class K>
static __device__ __forceinline__ void wd_search_order(const K* queries, wd_u64 m, bool descending, wd_u32* unsorted) {
    constexpr int ITEMS = WD_SEARCH_ITEMS;
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    bool bad = false;
    wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    for (; i + (ITEMS - 1) * stride + 1 < m; i += ITEMS * stride) {
        K a[ITEMS], b[ITEMS];
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) a[u] = queries[i + u * stride], b[u] = queries[i + u * stride + 1];
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) bad |= wd_sort_word(a[u], descending) > wd_sort_word(b[u], descending);
    }
    for (; i + 1 < m; i += stride) bad |= wd_sort_word(queries[i], descending) > wd_sort_word(queries[i + 1], descending);
    if (__any_sync(WD_FULL_MASK, bad) && (threadIdx.x & 31u) == 0u) *unsorted = 1u;
}

// The queries a search reads: their sorted copy when they were sorted first (`perm`, their
// positions) and were out of order; else the queries in place, and `perm` becomes null.
template <class K>
static __device__ __forceinline__ const K* wd_search_queries(const K* queries, const K* sorted_queries, const wd_u32*& perm,
                                                             const wd_u32* unsorted) {
    if (perm != nullptr && (unsorted == nullptr || *unsorted != 0u)) return sorted_queries;
    perm = nullptr;
    return queries;
}

// Whether order word x comes before the query's word w (upper: or equals it).
template <class U> static __device__ __forceinline__ bool wd_search_before(U x, U w, bool upper) {
    return upper ? x <= w : x < w;
}

// How many of `len` order words in order (word(k) for k below len) come before w: a binary
// search, N the index type.
template <class N, class U, class Word>
static __device__ __forceinline__ N wd_search_count(N len, U w, bool upper, const Word& word) {
    N lo = 0;
    while (len > 0) {
        const N half = len / 2;
        if (wd_search_before(word(lo + half), w, upper)) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

// Loads every 2^p-th key's word of `sorted` into `sample` (block-wide, then a barrier);
// returns how many.
template <class K>
static __device__ __forceinline__ wd_u32 wd_search_sample(const K* sorted, wd_u64 n, wd_u32 p, bool descending,
                                                          typename wd_sort_bits<K>::T* sample) {
    const wd_u64 step = (wd_u64)1 << p;
    const wd_u32 samples = (wd_u32)((n + step - 1) >> p);  // keys 0, step, 2 * step, .. below n
    for (wd_u32 k = threadIdx.x; k < samples; k += WD_BLOCK) sample[k] = wd_sort_word(sorted[(wd_u64)k << p], descending);
    __syncthreads();
    return samples;
}

// The sample search of word w: the first key of the 2^p-long stretch its answer lies in after
// the last sample before it (the answer is in [base, base + 2^p - 1]), or ~0 when no sample
// comes before it (the answer is 0).
template <class U>
static __device__ __forceinline__ wd_u64 wd_search_stretch(const U* sample, wd_u32 samples, wd_u32 p, U w, bool upper) {
    const wd_u32 lo = wd_search_count(samples, w, upper, [&](wd_u32 k) { return sample[k]; });
    return lo == 0 ? ~(wd_u64)0 : ((wd_u64)(lo - 1) << p) + 1;
}

template <class K, class I>
static __device__ __forceinline__ void wd_search(const K* sorted, wd_u64 n, const K* queries, const K* sorted_queries,
                                                 wd_u64 m, const wd_u32* perm, const wd_u32* unsorted, wd_u32 p,
                                                 bool upper, bool descending, I* out) {
    // Sorted first only when the queries were out of order (else the sort ran no pass).
    queries = wd_search_queries(queries, sorted_queries, perm, unsorted);
    typedef typename wd_sort_bits<K>::T U;
    constexpr int ITEMS = WD_SEARCH_ITEMS;
    __shared__ U sample[WD_SEARCH_SAMPLES];
    const wd_u32 samples = wd_search_sample(sorted, n, p, descending, sample);
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK * ITEMS;
    for (wd_u64 i0 = ((wd_u64)blockIdx.x * WD_BLOCK) * ITEMS + threadIdx.x; i0 < m; i0 += stride) {
        U w[ITEMS];
        wd_u64 base[ITEMS];
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) {
            const wd_u64 i = i0 + (wd_u64)u * WD_BLOCK;
            w[u] = i < m ? wd_sort_word(queries[i], descending) : (U)0;
            // base: the first key the stretch may still hold before the query; ~0 marks an
            // answer of 0 (no stretch).
            base[u] = wd_search_stretch(sample, samples, p, w[u], upper);
        }
        // The stretch after each base: step - 1 keys (past n: never before), searched in
        // lockstep, p halvings of a length of 2^k - 1.
        wd_u64 len = ((wd_u64)1 << p) - 1;
        while (len > 0) {
            const wd_u64 half = len / 2;
#pragma unroll
            for (int u = 0; u < ITEMS; ++u) {
                if (base[u] == ~(wd_u64)0) continue;
                const wd_u64 at = base[u] + half;
                if (at < n && wd_search_before(wd_sort_word(sorted[at], descending), w[u], upper)) base[u] = at + 1;
            }
            len = half;
        }
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) {
            const wd_u64 i = i0 + (wd_u64)u * WD_BLOCK;
            if (i < m) out[perm != nullptr ? perm[i] : i] = (I)(base[u] == ~(wd_u64)0 ? 0 : base[u]);
        }
    }
}

// ---- queries in order, by tiles ----
// When the queries are in order (read in place, or their sorted copy) and dense in the array
// (a tile of WD_BLOCK queries spans fewer keys than a sample's stretch), the answers of a tile
// lie between the answers of its first query and of the next tile's first: wd_search_bounds
// finds those (bounds[t] for tile t, bounds[tiles] = n), and wd_search_tiles reads each tile's
// keys between them once, coalesced, into shared memory (up to WD_SEARCH_TILE_BYTES of order
// words, read as 16-byte vectors) and searches them there; a tile spanning more keys searches
// that span in global memory. Every key is read about once in all, instead of a chain of
// dependent loads a query.

// For each tile t of WD_BLOCK queries (the queries as wd_search_queries picks them), the
// answer of its first query into bounds[t]; bounds[tiles] = n. Grid-stride.
template <class K>
static __device__ __forceinline__ void wd_search_bounds(const K* sorted, wd_u64 n, const K* queries, const K* sorted_queries,
                                                        wd_u64 m, const wd_u32* perm, const wd_u32* unsorted, wd_u32 p,
                                                        bool upper, bool descending, wd_u64* bounds) {
    queries = wd_search_queries(queries, sorted_queries, perm, unsorted);
    typedef typename wd_sort_bits<K>::T U;
    __shared__ U sample[WD_SEARCH_SAMPLES];
    const wd_u32 samples = wd_search_sample(sorted, n, p, descending, sample);
    const wd_u64 tiles = (m + WD_BLOCK - 1) / WD_BLOCK;
    for (wd_u64 t = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; t <= tiles; t += (wd_u64)gridDim.x * WD_BLOCK) {
        if (t == tiles) {
            bounds[t] = n;
            continue;
        }
        const U w = wd_sort_word(queries[t * WD_BLOCK], descending);
        const wd_u64 base = wd_search_stretch(sample, samples, p, w, upper);
        if (base == ~(wd_u64)0) {
            bounds[t] = 0;
            continue;
        }
        // The stretch after base: step - 1 keys, or fewer at the array's end (base <= n).
        const wd_u64 step = (wd_u64)1 << p, len = n - base < step - 1 ? n - base : step - 1;
        bounds[t] = base + wd_search_count(len, w, upper, [&](wd_u64 k) { return wd_sort_word(sorted[base + k], descending); });
    }
}

// Loads the order words of keys lo..hi of `sorted` (hi - lo at most CAP) into shared `keys`
// (CAP + 16 / sizeof(K) words, 16-byte aligned), key x at keys[x - lo + h], and returns h (the
// keys before lo in its aligned 16-byte vector): the keys from the first aligned one are read
// as 16-byte vectors (all of a thread's loads in flight at once), the few before and after it
// one by one. Streaming loads: the span is read once.
template <int CAP, class K>
static __device__ __forceinline__ wd_u32 wd_search_span(const K* sorted, wd_u64 lo, wd_u64 hi, bool descending,
                                                        typename wd_sort_bits<K>::T* keys) {
    typedef typename wd_sort_bits<K>::T U;
    constexpr int V = 16 / (int)sizeof(K);
    constexpr int LOADS = CAP / V / WD_BLOCK > 0 ? CAP / V / WD_BLOCK : 1;
    const wd_u32 span = (wd_u32)(hi - lo);
    const wd_u32 head = (wd_u32)wd_vec_head<K, V>(sorted + lo);  // keys before the first vector
    const wd_u32 h = (V - head) % V;
    const wd_u32 before = head < span ? head : span;
    const wd_u32 vecs = (span - before) / V;
    const wd_u32 after = before + vecs * V;  // the keys from here to hi are read one by one
    if (threadIdx.x < before) keys[h + threadIdx.x] = wd_sort_word(sorted[lo + threadIdx.x], descending);
    if (threadIdx.x < span - after) keys[h + after + threadIdx.x] = wd_sort_word(sorted[lo + after + threadIdx.x], descending);
    const K* first = sorted + lo + before;
    U* to = keys + h + before;  // 16-byte aligned: h + before is 0 or V
    for (wd_u32 c0 = 0; c0 < vecs; c0 += LOADS * WD_BLOCK) {
        wd_vec<K, V> v[LOADS];
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const wd_u32 c = c0 + u * WD_BLOCK + threadIdx.x;
            if (c < vecs) v[u] = wd_ldcs_vec<K, V>(first + (wd_u64)c * V);
        }
#pragma unroll
        for (int u = 0; u < LOADS; ++u) {
            const wd_u32 c = c0 + u * WD_BLOCK + threadIdx.x;
            if (c < vecs) {
                wd_vec<U, V> w;
#pragma unroll
                for (int j = 0; j < V; ++j) w.e[j] = wd_sort_word(v[u].e[j], descending);
                *reinterpret_cast<typename wd_raw<16>::t*>(to + (wd_u64)c * V) = w.raw;
            }
        }
    }
    return h;
}

// The answers of the queries in order, tile by tile (bounds from wd_search_bounds). Grid-stride
// over the tiles, a query a thread.
template <class K, class I>
static __device__ __forceinline__ void wd_search_tiles(const K* sorted, const K* queries, const K* sorted_queries,
                                                       wd_u64 m, const wd_u32* perm, const wd_u32* unsorted,
                                                       const wd_u64* bounds, bool upper, bool descending, I* out) {
    queries = wd_search_queries(queries, sorted_queries, perm, unsorted);
    typedef typename wd_sort_bits<K>::T U;
    // At most WD_SEARCH_TILE_BYTES of words, and as many keys as 4-byte words would be; the
    // extra vector holds the keys before the span's first in its aligned vector.
    constexpr wd_u32 CAP = WD_SEARCH_TILE_BYTES / (sizeof(U) < 4 ? 4 : sizeof(U));
    __shared__ __align__(16) U keys[CAP + 16 / sizeof(K)];
    const wd_u64 tiles = (m + WD_BLOCK - 1) / WD_BLOCK;
    // A tile's bounds and the thread's query (0 past the last tile or query). Each tile asks
    // for the next one's before its search, so they arrive while it searches.
    auto tile_of = [&](wd_u64 t, wd_u64& lo, wd_u64& hi, U& w) {
        lo = 0, hi = 0, w = (U)0;
        if (t >= tiles) return;
        // (An array out of order can give a later tile a smaller bound: its span is then
        // empty, and each answer still some place from 0 to n.)
        lo = bounds[t];
        hi = bounds[t + 1] < lo ? lo : bounds[t + 1];
        const wd_u64 i = t * WD_BLOCK + threadIdx.x;
        if (i < m) w = wd_sort_word(queries[i], descending);
    };
    wd_u64 lo, hi;
    U w;
    tile_of(blockIdx.x, lo, hi, w);
    for (wd_u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const wd_u64 i = t * WD_BLOCK + threadIdx.x;
        const bool shared = hi - lo <= CAP;
        wd_u32 h = 0;
        if (shared) {
            __syncthreads();  // the last tile's searches are done with `keys`
            h = wd_search_span<CAP>(sorted, lo, hi, descending, keys);
            __syncthreads();
        }
        wd_u64 next_lo, next_hi;
        U next_w;
        tile_of(t + gridDim.x, next_lo, next_hi, next_w);
        const U* span = keys + h;
        const wd_u64 at = shared ? lo + wd_search_count((wd_u32)(hi - lo), w, upper, [&](wd_u32 k) { return span[k]; })
                                 : lo + wd_search_count(hi - lo, w, upper, [&](wd_u64 k) { return wd_sort_word(sorted[lo + k], descending); });
        if (i < m) out[perm != nullptr ? perm[i] : i] = (I)at;
        lo = next_lo, hi = next_hi, w = next_w;
    }
}
