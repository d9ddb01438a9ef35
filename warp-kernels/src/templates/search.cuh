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

// Sets *unsorted (zeroed by the caller) when a query's word is above the next one's.
template <class K>
static __device__ __forceinline__ void wd_search_order(const K* queries, wd_u64 m, bool descending, wd_u32* unsorted) {
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    bool bad = false;
    for (wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; i + 1 < m; i += stride)
        bad |= wd_sort_word(queries[i], descending) > wd_sort_word(queries[i + 1], descending);
    if (__any_sync(WD_FULL_MASK, bad) && (threadIdx.x & 31u) == 0u) *unsorted = 1u;
}

template <class K, class I>
static __device__ __forceinline__ void wd_search(const K* sorted, wd_u64 n, const K* queries, const K* sorted_queries,
                                                 wd_u64 m, const wd_u32* perm, const wd_u32* unsorted, wd_u32 p,
                                                 bool upper, bool descending, I* out) {
    // Sorted first only when the queries were out of order (else the sort ran no pass).
    if (perm != nullptr && (unsorted == nullptr || *unsorted != 0u)) {
        queries = sorted_queries;
    } else {
        perm = nullptr;
    }
    typedef typename wd_sort_bits<K>::T U;
    constexpr int ITEMS = WD_SEARCH_ITEMS;
    __shared__ U sample[WD_SEARCH_SAMPLES];
    const wd_u64 step = (wd_u64)1 << p;
    const wd_u32 samples = (wd_u32)((n + step - 1) >> p);  // keys 0, step, 2 * step, .. below n
    for (wd_u32 k = threadIdx.x; k < samples; k += WD_BLOCK) sample[k] = wd_sort_word(sorted[(wd_u64)k << p], descending);
    __syncthreads();
    // Whether word x comes before the query's word w.
    auto before = [&](U x, U w) { return upper ? x <= w : x < w; };
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK * ITEMS;
    for (wd_u64 i0 = ((wd_u64)blockIdx.x * WD_BLOCK) * ITEMS + threadIdx.x; i0 < m; i0 += stride) {
        U w[ITEMS];
        wd_u64 base[ITEMS];
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) {
            const wd_u64 i = i0 + (wd_u64)u * WD_BLOCK;
            w[u] = i < m ? wd_sort_word(queries[i], descending) : (U)0;
            // The samples before the query: j of them, so the answer is in
            // ((j - 1) * step, j * step] (0 when j is 0).
            wd_u32 lo = 0, len = samples;
            while (len > 0) {
                const wd_u32 half = len / 2;
                if (before(sample[lo + half], w[u])) {
                    lo += half + 1;
                    len -= half + 1;
                } else {
                    len = half;
                }
            }
            // base: the first key the stretch may still hold before the query (the key after
            // the last sample before it); lo == 0 marks an answer of 0 (no stretch).
            base[u] = lo == 0 ? ~(wd_u64)0 : ((wd_u64)(lo - 1) << p) + 1;
        }
        // The stretch after each base: step - 1 keys (past n: never before), searched in
        // lockstep, p halvings of a length of 2^k - 1.
        wd_u64 len = step - 1;
        while (len > 0) {
            const wd_u64 half = len / 2;
#pragma unroll
            for (int u = 0; u < ITEMS; ++u) {
                if (base[u] == ~(wd_u64)0) continue;
                const wd_u64 at = base[u] + half;
                if (at < n && before(wd_sort_word(sorted[at], descending), w[u])) base[u] = at + 1;
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
