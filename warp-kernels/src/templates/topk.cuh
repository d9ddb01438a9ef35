// ---- warp-dsl top-k: the k largest (or smallest) elements with their indices, sorted ----
// Order: every element becomes an order-preserving unsigned key (wd_topk_key): integers with
// the sign bit flipped, floats with the sign bit set for positives and every bit flipped for
// negatives, -0.0 as +0.0, and every NaN as the largest key (above +inf). The smallest are the
// largest of the complemented keys, so one selection serves both. Ties go to the smallest
// index: entries are ordered by the composite (key descending, index ascending), which is a
// strict order (indices are distinct, 32-bit, below 2^32 - 1).
//
// One kernel, launched level by level (warp_kernels::catalogue::TOPK). Every block keeps a
// candidate buffer in shared memory and a pass rule (key > tk, or key == tk and index < ti)
// that only rejects entries which at least k buffered entries beat. On large inputs a sample
// level runs first (wd_topk_sample, catalogue::TOPK_SAMPLE): the largest keys of disjoint
// groups spread over the input, whose k-th largest at least k distinct elements reach, start
// the bound, so level 0's blocks see few candidates from their first step. A level reads its
// input once: each warp computes the keys of its items, votes (__ballot_sync) on the pass rule
// and on the global bound (`bound`: at least k elements have a key >= it), and compacts the
// passing entries into the buffer (ballot ranks, one shared atomicAdd per warp, no barrier).
// When the buffer is fuller than WD_TOPK_KEEP(_WIDE),
// the block refines: a radix select (8-bit digits, shared histogram, block scan of the bins)
// finds the k-th largest key tk among its live entries (key >= bound), or stops at the first
// digit where the entries that share the k-th's digits so far, with those above them, are at
// most 1.5 k (tk is then those digits, the rest zero); if the entries with
// key >= tk fit, they stay (on the raw level, whose blocks read in index order, later entries
// equal to tk lose to them: ti = 0); otherwise a radix select of the indices of the entries
// equal to tk keeps exactly k (ti = the k-th one's index). The block then publishes tk
// (atomicMax on the bound). At its end every block keeps exactly its k best (or all, if
// fewer). A lone block sorts them (wd_block_sort, in shared memory) and writes the answer: the
// values (read again from the input at their indices) and the indices. Otherwise the blocks
// append those the bound still lets through to one dense list (an atomic count); the last
// block to finish (a ticket) takes the list itself, as a block of the next level would, and
// writes the answer when it holds at most WD_TOPK_LEVEL_SLOTS entries; else the next level's
// blocks take WD_TOPK_LEVEL_SLOTS each. Level 0 reads the stage's elements with vector loads,
// one step of WD_BLOCK * items, two steps (and the bound, for the step after) ahead in
// registers and WD_TOPK_PREFETCH steps ahead asked of L2; a step first tries a cheap test that
// every candidate passes (wd_topk_pre: for f32 and f64 a float compare), computes keys, the
// exact rule and the append only in warps where it passes somewhere, and ends with one
// barrier (__syncthreads_or: whether the buffer must be refined).

template <class E> struct wd_topk_key;
#define WD_TOPK_UINT(E, K)                                                                    \
    template <> struct wd_topk_key<E> {                                                       \
        typedef K T;                                                                          \
        static constexpr int BITS = (int)sizeof(E) * 8;                                       \
        static __device__ __forceinline__ T of(E x) { return (T)x; }                          \
    };
#define WD_TOPK_SINT(E, U, K)                                                                 \
    template <> struct wd_topk_key<E> {                                                       \
        typedef K T;                                                                          \
        static constexpr int BITS = (int)sizeof(E) * 8;                                       \
        static __device__ __forceinline__ T of(E x) { return (T)(U)x ^ ((T)1 << (BITS - 1)); } \
    };
WD_TOPK_UINT(wd_u8, wd_u32)
WD_TOPK_UINT(wd_u16, wd_u32)
WD_TOPK_UINT(wd_u32, wd_u32)
WD_TOPK_UINT(wd_u64, wd_u64)
WD_TOPK_SINT(wd_i8, wd_u8, wd_u32)
WD_TOPK_SINT(wd_i16, wd_u16, wd_u32)
WD_TOPK_SINT(wd_i32, wd_u32, wd_u32)
WD_TOPK_SINT(wd_i64, wd_u64, wd_u64)
template <> struct wd_topk_key<bool> {
    typedef wd_u32 T;
    static constexpr int BITS = 8;
    static __device__ __forceinline__ T of(bool x) { return x ? 1u : 0u; }
};
// Floats from their bits `b` (of `BITS` bits, exponent mask `EXP`): NaN the largest key, both
// zeros the key of +0.0.
template <class T, int BITS>
static __device__ __forceinline__ T wd_topk_float_key(T b, T exp) {
    const T sign = (T)1 << (BITS - 1);
    const T mag = b & (sign - (T)1);
    if (mag > exp) return (T)~(T)0 >> (sizeof(T) * 8 - BITS);
    if (mag == 0) return sign;
    return (b & sign) ? ((T)~b & (sign | (sign - (T)1))) : (b | sign);
}
template <> struct wd_topk_key<wd_f32> {
    typedef wd_u32 T;
    static constexpr int BITS = 32;
    static __device__ __forceinline__ T of(wd_f32 x) { return wd_topk_float_key<wd_u32, 32>(__float_as_uint(x), 0x7F800000u); }
};
template <> struct wd_topk_key<wd_f64> {
    typedef wd_u64 T;
    static constexpr int BITS = 64;
    static __device__ __forceinline__ T of(wd_f64 x) {
        return wd_topk_float_key<wd_u64, 64>((wd_u64)__double_as_longlong(x), 0x7FF0000000000000ull);
    }
};
template <> struct wd_topk_key<wd_f16> {
    typedef wd_u32 T;
    static constexpr int BITS = 16;
    static __device__ __forceinline__ T of(wd_f16 x) { return wd_topk_float_key<wd_u32, 16>((wd_u32)x.bits, 0x7C00u); }
};
template <> struct wd_topk_key<wd_bf16> {
    typedef wd_u32 T;
    static constexpr int BITS = 16;
    static __device__ __forceinline__ T of(wd_bf16 x) { return wd_topk_float_key<wd_u32, 16>((wd_u32)x.bits, 0x7F80u); }
};

// Sizes by key width: items per lane of a block step and the entries a refined buffer may
// keep (at least WD_TOPK_MAX_K); the buffer holds those and one more step.
template <class K> struct wd_topk_sizes {
    static constexpr int ITEMS = sizeof(K) == 4 ? WD_TOPK_ITEMS : WD_TOPK_ITEMS_WIDE;
    static constexpr int KEEP = sizeof(K) == 4 ? WD_TOPK_KEEP : WD_TOPK_KEEP_WIDE;
    static constexpr int STEP = WD_BLOCK * ITEMS;
    static constexpr int CAP = KEEP + STEP;
};

// The block's candidates and selection state, in shared memory.
template <class K> struct wd_topk_block {
    K key[wd_topk_sizes<K>::CAP];
    wd_u32 idx[wd_topk_sizes<K>::CAP];
    wd_u32 hist[256];
    wd_u64 scan_warps[WD_BLOCK / 32];
    wd_u64 bound;
    wd_radix_pick pick;
    wd_u32 out;
};

// The global bound's value (0 when there is none: `bound` null, a block selecting alone).
static __device__ __forceinline__ wd_u64 wd_topk_bound_now(const wd_u64* bound) { return bound != nullptr ? wd_ldcg(bound) : 0u; }

// The global bound, read once for the block (after a barrier: the buffer may be in use).
template <class K> static __device__ __forceinline__ K wd_topk_bound(wd_topk_block<K>& b, const wd_u64* bound) {
    __syncthreads();
    if (threadIdx.x == 0) b.bound = wd_topk_bound_now(bound);
    __syncthreads();
    return (K)b.bound;
}

// Keeps the buffer's entries that `keep(key, idx)` accepts (in any order), in place, chunk by
// chunk: a chunk's entries are read, then (after a barrier) written below the chunk's end.
// Returns the new count (to every thread).
template <class K, class Keep>
static __device__ __forceinline__ wd_u32 wd_topk_compact(wd_topk_block<K>& b, wd_u32 cnt, const Keep& keep) {
    const unsigned lane = threadIdx.x & 31u;
    if (threadIdx.x == 0) b.out = 0;
    __syncthreads();
    for (wd_u32 c = 0; c < cnt; c += WD_BLOCK) {
        const wd_u32 j = c + threadIdx.x;
        K key = 0;
        wd_u32 idx = 0;
        bool kept = false;
        if (j < cnt) {
            key = b.key[j];
            idx = b.idx[j];
            kept = keep(key, idx);
        }
        __syncthreads();
        const wd_rank rank = wd_ballot_rank(kept, (1u << lane) - 1u);
        wd_u32 at = 0;
        if (lane == 0 && rank.total != 0u) at = atomicAdd(&b.out, (wd_u32)rank.total);
        at = wd_shfl_idx(at, 0) + (wd_u32)rank.below;
        if (kept) {
            b.key[at] = key;
            b.idx[at] = idx;
        }
    }
    __syncthreads();
    const wd_u32 out = b.out;
    __syncthreads();
    return out;
}

// The radix select of the refine: the number of live entries (key >= g) among the buffer's
// first `cnt`; when it exceeds k, also `prefix`, the k-th largest live key, `rank`, its rank
// among the entries equal to it, and `equal`, their number. With `enough` (0: never), it stops
// at the first digit where the live entries that share the k-th's digits so far, with those
// above them, are at most `enough`: `prefix` is then those digits (the rest zero, the least key
// that shares them), `equal` the entries that share them and `rank` the k-th's rank among them,
// so that (k - rank) + equal live keys are at least `prefix`, as for a whole key. All threads
// call it.
template <int BITS, class K>
static __device__ __forceinline__ wd_u32 wd_topk_kth(wd_topk_block<K>& b, wd_u32 cnt, wd_u32 k, K g, K& prefix, wd_u32& rank,
                                                     wd_u32& equal, wd_u32 enough = 0) {
    prefix = 0;
    rank = k;
    equal = 0;
    wd_u32 live = 0;
    for (int shift = BITS - 8; shift >= 0; shift -= 8) {
        wd_block_digit_histogram(b.hist, cnt, [&](wd_u32 j, wd_u32& d) {
            const K key = b.key[j];
            const bool match = shift + 8 >= BITS || (key >> (shift + 8)) == (prefix >> (shift + 8));
            d = (wd_u32)(key >> shift) & 255u;
            return key >= g && match;
        });
        wd_block_radix_pick(b.hist, rank, true, b.scan_warps, b.pick);
        if (shift == BITS - 8) {
            live = b.pick.total;
            if (live <= k) break;
        }
        prefix |= (K)b.pick.digit << shift;
        rank = b.pick.rank;
        equal = b.pick.bin;
        if ((k - rank) + equal <= enough) break;
    }
    return live;
}

// Refines the buffer (`cnt` entries; all threads call it with the same values): drops the
// entries below the global bound, and, when more than k remain, keeps the best ones as the
// header describes, updating the pass rule (tk, ti) and publishing tk. `exact`: keep exactly
// the k best (the end of a block). `ordered`: the block reads its entries in index order (the
// raw level). Keys have BITS bits (the element's width). Returns the new count.
template <int BITS, class K>
static __device__ __forceinline__ wd_u32 wd_topk_refine(wd_topk_block<K>& b, wd_u32 cnt, wd_u32 k, bool exact, bool ordered,
                                                        wd_u64* bound, K& tk, wd_u32& ti) {
    const K g = wd_topk_bound<K>(b, bound);
    K prefix;
    wd_u32 rank, equal;
    // Not exact: a bound from the key's first digits will do while it keeps at most half as
    // many again as k (fewer digit passes, a refine a little sooner).
    const wd_u32 live = wd_topk_kth<BITS>(b, cnt, k, g, prefix, rank, equal, exact ? 0u : k + k / 2);
    if (live <= k) {
        return wd_topk_compact(b, cnt, [g](K key, wd_u32) { return key >= g; });
    }
    // At least k live entries have a key >= prefix: publish it.
    if (threadIdx.x == 0 && bound != nullptr) atomicMax((unsigned long long*)bound, (unsigned long long)prefix);
    const K t = prefix;
    const wd_u32 ge = (k - rank) + equal;
    if (ge == k || (!exact && ge <= (wd_u32)wd_topk_sizes<K>::KEEP)) {
        tk = t;
        ti = ordered ? 0u : 0xFFFFFFFFu;
        return wd_topk_compact(b, cnt, [t](K key, wd_u32) { return key >= t; });
    }
    // The index digits of the rank-th smallest index among the entries equal to t.
    wd_u32 ip = 0;
    for (int shift = 24; shift >= 0; shift -= 8) {
        wd_block_digit_histogram(b.hist, cnt, [&](wd_u32 j, wd_u32& d) {
            const wd_u32 idx = b.idx[j];
            const bool match = shift == 24 || (idx >> (shift + 8)) == (ip >> (shift + 8));
            d = (idx >> shift) & 255u;
            return b.key[j] == t && match;
        });
        wd_block_radix_pick(b.hist, rank, false, b.scan_warps, b.pick);
        ip |= b.pick.digit << shift;
        rank = b.pick.rank;
    }
    tk = t;
    ti = ip;
    return wd_topk_compact(b, cnt, [t, ip](K key, wd_u32 idx) { return key > t || (key == t && idx <= ip); });
}

// The oriented key of element e: its key, or (for the smallest) its complement.
template <class St, class K>
static __device__ __forceinline__ K wd_topk_oriented(const typename St::elem_t& e, bool largest) {
    typedef wd_topk_key<typename St::elem_t> Key;
    const K key = (K)Key::of(e);
    const K mask = (K)~(K)0 >> (sizeof(K) * 8 - Key::BITS);
    return largest ? key : (K)(~key & mask);
}

// A test every candidate of the raw level passes (it may pass others): its oriented key is at
// least `m`, the larger of the global bound and the block's tk, which any entry the pass rule
// lets through has. The exact rule is applied only in warps where some element passes this.
// In general it is the key compare itself; for f32 and f64 it is a float compare against the
// float whose key is `m` (-inf below the smallest float's key, +inf above the largest's), NaN
// (whose key is the largest) passing for the largest and, for the smallest, only where m is 0
// (which every key reaches).
template <class E, class K> struct wd_topk_pre {
    K m;
    bool largest;
    __device__ __forceinline__ wd_topk_pre(K m_, bool largest_) : m(m_), largest(largest_) {}
    template <class St> __device__ __forceinline__ bool test(E e) const { return wd_topk_oriented<St, K>(e, largest) >= m; }
};
// A float type's keys (wd_topk_key): the sign bit, the key of +inf (also the bits of -inf),
// the key of -inf, and the float of some bits.
template <class F> struct wd_topk_float;
template <> struct wd_topk_float<wd_f32> {
    typedef wd_u32 K;
    static constexpr K SIGN = 0x80000000u, POS_INF = 0xFF800000u, NEG_INF = 0x007FFFFFu;
    static __device__ __forceinline__ wd_f32 of(K bits) { return __uint_as_float(bits); }
};
template <> struct wd_topk_float<wd_f64> {
    typedef wd_u64 K;
    static constexpr K SIGN = 0x8000000000000000ull, POS_INF = 0xFFF0000000000000ull, NEG_INF = 0x000FFFFFFFFFFFFFull;
    static __device__ __forceinline__ wd_f64 of(K bits) { return __longlong_as_double((long long)bits); }
};
template <class F> struct wd_topk_float_pre {
    typedef wd_topk_float<F> W;
    typedef typename W::K K;
    F t;
    bool largest, all;
    static __device__ __forceinline__ F value_of(K key) {
        if (key <= W::NEG_INF) return W::of(W::POS_INF);          // -inf: at most its key
        if (key > W::POS_INF) return W::of(W::POS_INF ^ W::SIGN);  // +inf: above its key (NaN)
        return W::of(key >= W::SIGN ? key ^ W::SIGN : (K)~key);
    }
    __device__ __forceinline__ wd_topk_float_pre(K m, bool largest_)
        : t(value_of(largest_ ? m : (K)~m)), largest(largest_), all(m == (K)0) {}
    template <class St> __device__ __forceinline__ bool test(F x) const {
        return largest ? (x >= t || x != x) : (x <= t || all);
    }
};
template <> struct wd_topk_pre<wd_f32, wd_u32> : wd_topk_float_pre<wd_f32> {
    using wd_topk_float_pre<wd_f32>::wd_topk_float_pre;
};
template <> struct wd_topk_pre<wd_f64, wd_u64> : wd_topk_float_pre<wd_f64> {
    using wd_topk_float_pre<wd_f64>::wd_topk_float_pre;
};

// This warp's first element of raw step `s` (32 * ITEMS elements per warp).
template <int ITEMS>
static __device__ __forceinline__ wd_u64 wd_topk_base(wd_u64 s) {
    return s * (wd_u64)(WD_BLOCK * ITEMS) + (wd_u64)(threadIdx.x >> 5) * 32u * ITEMS;
}

// Loads the 32 * ITEMS elements from `base` (this warp's, within the input) into `e`; item j
// is element base + j * 32 + lane, or, read as vectors, base + ((j / VEC) * 32 + lane) * VEC
// + j % VEC.
template <class St, int ITEMS>
static __device__ __forceinline__ void wd_topk_load(const St& st, wd_u64 base, typename St::elem_t (&e)[ITEMS], bool& vec) {
    vec = false;
    if constexpr (St::VEC <= ITEMS && ITEMS % St::VEC == 0) {
        if (base + 32u * ITEMS <= st.n && st.aligned(base)) {
            typedef wd_vec_layout<St, ITEMS> L;
            vec = true;
            typename St::elem_t raw[L::ROWS][L::VEC];
            wd_tile_load_vec<L>(st, base, raw);
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r)
#pragma unroll
                for (int q = 0; q < L::VEC; ++q) e[r * L::VEC + q] = raw[r][q];
            return;
        }
    }
    wd_tile_load_striped<ITEMS>(st, base, e);
}

// The index of item j of the elements loaded from `base` (see wd_topk_load).
template <class St, int ITEMS>
static __device__ __forceinline__ wd_u64 wd_topk_index(wd_u64 base, int j, bool vec) {
    const unsigned lane = threadIdx.x & 31u;
    if (vec) return base + ((wd_u64)(j / St::VEC) * 32u + lane) * St::VEC + (wd_u64)(j % St::VEC);
    return base + (wd_u64)j * 32u + lane;
}

// Appends this warp's passing entries (ITEMS per thread) to the buffer without a barrier: the
// buffer's count lives in b.out, and the warp takes its places with one shared atomicAdd.
// Returns the count right after this warp's entries (0 if it had none); the count once every
// warp appended is the largest such value.
template <class K, int ITEMS>
static __device__ __forceinline__ wd_u32 wd_topk_append(wd_topk_block<K>& b, const K (&key)[ITEMS], const wd_u32 (&idx)[ITEMS],
                                                        const bool (&pass)[ITEMS]) {
    const unsigned lane = threadIdx.x & 31u;
    wd_u32 total = 0;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) total += (wd_u32)__popc(__ballot_sync(WD_FULL_MASK, pass[j]));
    if (total == 0) return 0;
    wd_u32 at = 0;
    if (lane == 0) at = atomicAdd(&b.out, total);
    at = wd_shfl_idx(at, 0);
    const wd_u32 end = at + total, below = (1u << lane) - 1u;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_rank rank = wd_ballot_rank(pass[j], below);
        if (pass[j]) {
            const wd_u32 p = at + (wd_u32)rank.below;
            b.key[p] = key[j];
            b.idx[p] = idx[j];
        }
        at += (wd_u32)rank.total;
    }
    return end;
}

// The buffer's count after every warp's appends (b.out; a barrier first, and the refine that
// may follow starts with another before anything changes it).
template <class K> static __device__ __forceinline__ wd_u32 wd_topk_count(wd_topk_block<K>& b) {
    __syncthreads();
    return b.out;
}

// Whether an entry passes the rule and the bound.
template <class K>
static __device__ __forceinline__ bool wd_topk_passes(K key, wd_u32 idx, K g, K tk, wd_u32 ti) {
    return key >= g && (key > tk || (key == tk && idx < ti));
}

// Sorts the buffer's first `cnt` (at most WD_TOPK_MAX_K) entries, best first (key descending,
// index ascending): wd_block_sort, padded where it needs with entries that sort last (key 0,
// index 0xFFFFFFFF: no real entry has that index). Ends with a barrier.
template <class K>
static __device__ __forceinline__ void wd_topk_sort(wd_topk_block<K>& b, wd_u32 cnt) {
    wd_block_sort(b.key, b.idx, cnt, (K)0, 0xFFFFFFFFu, [](K ka, wd_u32 ia, K kb, wd_u32 ib) { return ka > kb || (ka == kb && ia < ib); });
}

// The end of a block's selection: of its `cnt` entries, exactly its k best (all, if fewer).
// Returns the count; ends with a barrier.
template <int BITS, class K>
static __device__ __forceinline__ wd_u32 wd_topk_keep(wd_topk_block<K>& b, wd_u32 cnt, wd_u32 k, bool ordered, wd_u64* bound, K& tk,
                                                      wd_u32& ti) {
    if (cnt > k) return wd_topk_refine<BITS>(b, cnt, k, true, ordered, bound, tk, ti);
    __syncthreads();
    return cnt;
}

// Fills the (free) buffer from entries [lo, hi) of a dense candidate list (keys, idx) step by
// step, by the pass rule and the bound, refining as level 0 does, and keeps the k best
// (wd_topk_keep). Returns the count.
template <int BITS, class K>
static __device__ __forceinline__ wd_u32 wd_topk_take(wd_topk_block<K>& b, const wd_u64* keys, const wd_u32* idxs, wd_u64 lo,
                                                      wd_u64 hi, wd_u32 k, wd_u64* bound, K& tk, wd_u32& ti) {
    typedef wd_topk_sizes<K> Z;
    constexpr int ITEMS = Z::ITEMS;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    K key[ITEMS];
    wd_u32 idx[ITEMS];
    bool pass[ITEMS];
    if (threadIdx.x == 0) b.out = 0;
    __syncthreads();
    for (wd_u64 base = lo; base < hi; base += Z::STEP) {
        const K g = (K)wd_ldcg(bound);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const wd_u64 slot = base + ((wd_u64)warp * ITEMS + j) * 32u + lane;
            const bool valid = slot < hi;
            key[j] = valid ? (K)keys[slot] : (K)0;
            idx[j] = valid ? idxs[slot] : 0u;
            pass[j] = valid && wd_topk_passes(key[j], idx[j], g, tk, ti);
        }
        const wd_u32 end = wd_topk_append<K, ITEMS>(b, key, idx, pass);
        if (__syncthreads_or(end > (wd_u32)Z::KEEP)) wd_topk_refine<BITS>(b, wd_topk_count(b), k, false, false, bound, tk, ti);
    }
    return wd_topk_keep<BITS>(b, wd_topk_count(b), k, false, bound, tk, ti);
}

// The raw level's reading of the stage's elements: the block's steps `first`, `first + grid`,
// ... (each WD_BLOCK * ITEMS elements, read in index order), two steps ahead in flight in
// registers and WD_TOPK_PREFETCH steps ahead asked of L2, each step's entries that pass the
// block's rule (tk, ti) and the global bound (`bound`; null: none) appended to the buffer, which
// is refined whenever it holds more than KEEP. SEED (a block selecting alone, whose buffer is
// free): when k < WD_BLOCK, the rule starts at the k-th largest of the threads' best keys of
// the first step, which at least k elements reach (each of those threads holds one), so the
// first steps append a few entries, not all of theirs. Ends with the buffer's entries counted
// in b.out (not yet behind a barrier: wd_topk_count).
template <int BITS, bool SEED, class St, class K>
static __device__ __forceinline__ void wd_topk_steps(const St& st, wd_topk_block<K>& b, wd_u32 k, bool largest, wd_u64 first,
                                                     wd_u64 grid, wd_u64* bound, K& tk, wd_u32& ti) {
    typedef wd_topk_sizes<K> Z;
    constexpr int ITEMS = Z::ITEMS;
    // Two steps ahead in flight while one is filtered.
    const wd_u64 nsteps = (st.n + Z::STEP - 1) / Z::STEP;
    typename St::elem_t cur[ITEMS], next[ITEMS], later[ITEMS];
    bool cur_vec = false, next_vec = false, later_vec = false;
    wd_u64 s = first;
    if (s < nsteps) wd_topk_load<St, ITEMS>(st, wd_topk_base<ITEMS>(s), cur, cur_vec);
    if (s + grid < nsteps) wd_topk_load<St, ITEMS>(st, wd_topk_base<ITEMS>(s + grid), next, next_vec);
    if (SEED && k < (wd_u32)WD_BLOCK) {
        // A thread without elements offers key 0, which can only make the rule pass more.
        K best = 0;
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const K key = wd_topk_oriented<St, K>(cur[j], largest);
            if (s < nsteps && wd_topk_index<St, ITEMS>(wd_topk_base<ITEMS>(s), j, cur_vec) < st.n && key > best) best = key;
        }
        b.key[threadIdx.x] = best;
        __syncthreads();
        K prefix;
        wd_u32 rank, equal;
        wd_topk_kth<BITS>(b, (wd_u32)WD_BLOCK, k, (K)0, prefix, rank, equal);
        tk = prefix;
        ti = 0xFFFFFFFFu;
    }
    // The bound a step uses was read during the step before (it only grows, and every
    // value it takes is one at least k elements reach).
    K g = (K)wd_topk_bound_now(bound);
    if (threadIdx.x == 0) b.out = 0;
    __syncthreads();
    for (; s < nsteps; s += grid) {
        // L2 fetches a later step, so the register loads two steps ahead hit L2.
        if (WD_TOPK_PREFETCH > 2 && s + WD_TOPK_PREFETCH * grid < nsteps)
            wd_prefetch_range(st, (s + WD_TOPK_PREFETCH * grid) * (wd_u64)Z::STEP, Z::STEP);
        if (s + 2 * grid < nsteps) wd_topk_load<St, ITEMS>(st, wd_topk_base<ITEMS>(s + 2 * grid), later, later_vec);
        const K g_next = (K)wd_topk_bound_now(bound);
        // Most steps hold no candidate: a cheap test first, the exact rule and the append
        // only in warps where it passes somewhere.
        const wd_topk_pre<typename St::elem_t, K> pre(g > tk ? g : tk, largest);
        bool maybe = false;
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) maybe |= pre.template test<St>(cur[j]);
        wd_u32 end = 0;
        if (__any_sync(WD_FULL_MASK, maybe)) {
            K key[ITEMS];
            wd_u32 idx[ITEMS];
            bool pass[ITEMS];
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const wd_u64 i = wd_topk_index<St, ITEMS>(wd_topk_base<ITEMS>(s), j, cur_vec);
                key[j] = wd_topk_oriented<St, K>(cur[j], largest);
                idx[j] = (wd_u32)i;
                pass[j] = i < st.n && wd_topk_passes(key[j], idx[j], g, tk, ti);
            }
            end = wd_topk_append<K, ITEMS>(b, key, idx, pass);
        }
        // The buffer holds more than KEEP once some warp's append ended past it.
        if (__syncthreads_or(end > (wd_u32)Z::KEEP)) wd_topk_refine<BITS>(b, wd_topk_count(b), k, false, true, bound, tk, ti);
        if (s + grid < nsteps) {
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) cur[j] = next[j];
            cur_vec = next_vec;
        }
        if (s + 2 * grid < nsteps) {
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) next[j] = later[j];
            next_vec = later_vec;
        }
        g = g_next;
    }
}

// The end of a block's selection: its k best (`cnt` entries, or all if fewer), sorted, become
// the answer: `values` (read again from the input at their indices) and `indices`.
template <class St, class K>
static __device__ __forceinline__ void wd_topk_answer(const St& st, wd_topk_block<K>& b, wd_u32 cnt, typename St::elem_t* values,
                                                      wd_u64* indices) {
    wd_topk_sort(b, cnt);
    for (wd_u32 j = threadIdx.x; j < cnt; j += WD_BLOCK) {
        const wd_u32 i = b.idx[j];
        indices[j] = (wd_u64)i;
        values[j] = st.at((wd_u64)i);
    }
}

// One level of the top-k (see the header). `level` 0 reads the stage's elements (every block
// active); a later one, unless `done` is set, the `*cand_total` entries of the level before
// (cand_keys, cand_idx), WD_TOPK_LEVEL_SLOTS per active block. A lone active block writes the
// answer; otherwise every active block appends its best k that the bound lets through to
// out_keys / out_idx (`out_total` counts them), and the last to finish (`ticket`) writes the
// answer from them when they are at most WD_TOPK_LEVEL_SLOTS, setting `done`; else the next
// level goes on.
template <class St>
static __device__ __forceinline__ void wd_topk(const St& st, wd_u32 k, bool largest, const wd_u64* cand_keys,
                                               const wd_u32* cand_idx, const wd_u32* cand_total, wd_u32 level, wd_u64* out_keys,
                                               wd_u32* out_idx, wd_u32* out_total, wd_u32* ticket, wd_u32* done, wd_u64* bound,
                                               typename St::elem_t* values, wd_u64* indices) {
    typedef typename wd_topk_key<typename St::elem_t>::T K;
    constexpr int BITS = wd_topk_key<typename St::elem_t>::BITS;
    __shared__ wd_topk_block<K> b;
    const bool raw = level == 0;
    K tk = 0;
    wd_u32 ti = 0xFFFFFFFFu;
    wd_u32 cnt = 0, active = gridDim.x;
    if (raw) {
        wd_topk_steps<BITS, false>(st, b, k, largest, blockIdx.x, gridDim.x, bound, tk, ti);
        cnt = wd_topk_keep<BITS>(b, wd_topk_count(b), k, true, bound, tk, ti);
    } else {
        if (wd_ldcg(done) != 0u) return;
        const wd_u64 total = wd_ldcg(cand_total);
        active = (wd_u32)((total + WD_TOPK_LEVEL_SLOTS - 1) / WD_TOPK_LEVEL_SLOTS);
        if (blockIdx.x >= active) return;
        const wd_u64 lo = (wd_u64)blockIdx.x * WD_TOPK_LEVEL_SLOTS;
        const wd_u64 hi = lo + WD_TOPK_LEVEL_SLOTS < total ? lo + WD_TOPK_LEVEL_SLOTS : total;
        cnt = wd_topk_take<BITS>(b, cand_keys, cand_idx, lo, hi, k, bound, tk, ti);
    }
    if (active == 1) {
        wd_topk_answer(st, b, cnt, values, indices);
        return;
    }
    // Append the entries the bound still lets through (it may have risen since the refine).
    const K g = wd_topk_bound<K>(b, bound);
    cnt = wd_topk_compact(b, cnt, [g](K key, wd_u32) { return key >= g; });
    if (threadIdx.x == 0) b.out = atomicAdd(out_total, cnt);
    __syncthreads();
    const wd_u32 at = b.out;
    for (wd_u32 j = threadIdx.x; j < cnt; j += WD_BLOCK) {
        out_keys[at + j] = (wd_u64)b.key[j];
        out_idx[at + j] = b.idx[j];
    }
    if (!wd_last_block(ticket, active)) return;
    const wd_u32 all = wd_ldcg(out_total);
    if (all > WD_TOPK_LEVEL_SLOTS) return;
    tk = 0;
    ti = 0xFFFFFFFFu;
    cnt = wd_topk_take<BITS>(b, out_keys, out_idx, 0, all, k, bound, tk, ti);
    wd_topk_answer(st, b, cnt, values, indices);
    if (threadIdx.x == 0) *done = 1u;
}

// The sample level (see the header): warp g of the grid takes `len` elements (a multiple of
// 32 * ITEMS, at most n / groups) from g * (n / groups), so the `groups` groups are disjoint,
// and stores the largest oriented key among them in sample[g]. The block that finishes last
// (ticket, zeroed before the launch) selects, among the maxima (each an element of its own;
// `groups` is the buffer's KEEP, catalogue::topk_sample), the k-th largest, a key at least k
// distinct elements reach, and raises the bound (zeroed) to it.
template <class St>
static __device__ __forceinline__ void wd_topk_sample(const St& st, wd_u32 k, bool largest, wd_u32 groups, wd_u64 len,
                                                      wd_u64* sample, wd_u32* ticket, wd_u64* bound) {
    typedef typename wd_topk_key<typename St::elem_t>::T K;
    constexpr int BITS = wd_topk_key<typename St::elem_t>::BITS;
    constexpr int ITEMS = wd_topk_sizes<K>::ITEMS;
    constexpr wd_u64 LOAD = 32u * ITEMS;
    __shared__ wd_topk_block<K> b;
    const unsigned lane = threadIdx.x & 31u;
    const wd_u64 g = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    if (g < groups) {
        const wd_u64 lo = g * (st.n / groups);
        K best = 0;
        const auto fold = [&](const typename St::elem_t (&e)[ITEMS]) {
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const K key = wd_topk_oriented<St, K>(e[j], largest);
                best = key > best ? key : best;
            }
        };
        // Four loads in flight, then the rest one by one.
        wd_u64 c = 0;
        for (; c + 4 * LOAD <= len; c += 4 * LOAD) {
            typename St::elem_t e0[ITEMS], e1[ITEMS], e2[ITEMS], e3[ITEMS];
            bool vec;
            wd_topk_load<St, ITEMS>(st, lo + c, e0, vec);
            wd_topk_load<St, ITEMS>(st, lo + c + LOAD, e1, vec);
            wd_topk_load<St, ITEMS>(st, lo + c + 2 * LOAD, e2, vec);
            wd_topk_load<St, ITEMS>(st, lo + c + 3 * LOAD, e3, vec);
            fold(e0);
            fold(e1);
            fold(e2);
            fold(e3);
        }
        for (; c < len; c += LOAD) {
            typename St::elem_t e[ITEMS];
            bool vec;
            wd_topk_load<St, ITEMS>(st, lo + c, e, vec);
            fold(e);
        }
        best = wd_warp_reduce<wd_op_key_max<K>>(best);
        if (lane == 0) sample[g] = (wd_u64)best;
    }
    if (!wd_last_block(ticket, gridDim.x)) return;
    for (wd_u32 j = threadIdx.x; j < groups; j += WD_BLOCK) b.key[j] = (K)wd_ldcg(sample + j);
    __syncthreads();
    K prefix;
    wd_u32 rank, equal;
    if (wd_topk_kth<BITS>(b, groups, k, (K)0, prefix, rank, equal) > k && threadIdx.x == 0)
        atomicMax((unsigned long long*)bound, (unsigned long long)prefix);
}

// ---- the top-k of each row ----
// Block b's piece of its row: row b / pieces, piece b % pieces (`chunk` columns from
// piece * chunk, the last to the row's end) of the row-major x (`row_cols` columns).
// write(t, c, ...): the block's t-th best, column c of the piece, to entry t of its k: the
// value, and the column in the row (mapped through idx_in when given).
template <class E> struct wd_topk_piece {
    wd_u64 r;
    wd_u32 row_cols, start, cols;
    const E* row;
    __device__ __forceinline__ wd_topk_piece(const E* x, wd_u32 row_cols_, wd_u32 pieces, wd_u32 chunk) {
        r = blockIdx.x / pieces;
        row_cols = row_cols_;
        const wd_u32 piece = blockIdx.x % pieces;
        start = piece * chunk;
        cols = piece + 1u == pieces ? row_cols - start : chunk;
        row = x + r * row_cols + start;
    }
    __device__ __forceinline__ void write(wd_u32 t, wd_u32 c, wd_u32 k, const wd_u32* idx_in, E* values, wd_u32* indices) const {
        const wd_u64 out = (wd_u64)blockIdx.x * k + t;
        values[out] = row[c];
        indices[out] = idx_in != nullptr ? idx_in[r * row_cols + start + c] : start + c;
    }
};

// wd_topk_rows_radix: block b selects from piece b % pieces of row b / pieces: `chunk` columns
// from (b % pieces) * chunk, the last piece to the row's end (each piece at least k columns;
// k <= WD_TOPK_MAX_K), writing k entries at b * k. A row of few long rows is split in pieces
// so that every SM has blocks; a second launch over the pieces' candidates (pieces * k a row,
// `idx_in` their columns) selects each row's k: `idx_in` (null: none) maps a column of the
// launch's rows to the one written.
// A radix select over the row, 8-bit digits of the key (wd_topk_key; complemented for the
// smallest), most significant first, one read of the row a digit (WD_TOPK_ROW_LOADS loads in
// flight a thread), finds the k-th best key and how many of the keys equal to it are taken;
// it stops early at a digit whose whole bin is taken. Ties then go to the smallest columns: a
// radix select of the columns of the keys equal to the k-th best finds the last one taken. A last read appends exactly the k selected
// entries (key, column) to shared memory, wd_block_sort orders them (key descending, column
// ascending), and the block writes the values (read again from the row) and the columns.
template <class E>
static __device__ __forceinline__ void wd_topk_rows_radix(const E* x, wd_u32 row_cols, wd_u32 pieces, wd_u32 chunk,
                                                          const wd_u32* idx_in, wd_u32 k, bool largest, E* values,
                                                          wd_u32* indices) {
    typedef wd_topk_key<E> KK;
    typedef typename KK::T K;
    constexpr int BITS = KK::BITS;
    __shared__ wd_u32 hist[256];
    __shared__ wd_u64 slots[WD_BLOCK / 32];
    __shared__ wd_radix_pick pick;
    __shared__ K ck[WD_TOPK_MAX_K];
    __shared__ wd_u32 ci[WD_TOPK_MAX_K];
    __shared__ wd_u32 taken;
    const wd_topk_piece<E> pc(x, row_cols, pieces, chunk);
    const wd_u32 cols = pc.cols;
    const E* row = pc.row;
    const K flip = largest ? (K)0 : (K)(~(K)0 >> (sizeof(K) * 8 - BITS));
    auto key = [&](wd_u32 j) -> K { return KK::of(row[j]) ^ flip; };

    // The k-th best key, digit by digit: `prefix` its digits so far (under `mask`), `rank` its
    // rank among the keys that share them.
    K prefix = 0, mask = 0;
    wd_u32 rank = k;
    bool whole = false;  // every key sharing `prefix`'s digits is taken
    for (int shift = BITS - 8; shift >= 0 && !whole; shift -= 8) {
        wd_block_digit_histogram_loaded<WD_TOPK_ROW_LOADS>(hist, cols, key, [&](wd_u32, K c, wd_u32& d) {
            if ((c & mask) != prefix) return false;
            d = (wd_u32)(c >> shift) & 255u;
            return true;
        });
        wd_block_radix_pick(hist, rank, true, slots, pick);
        __syncthreads();
        prefix |= (K)pick.digit << shift;
        mask |= (K)255 << shift;
        whole = pick.rank == pick.bin;
        rank = pick.rank;
        __syncthreads();
    }
    // Keys equal to the k-th best: the first `rank` by column (all of them when `whole`).
    wd_u32 last = 0xffffffffu;
    if (!whole) {
        const wd_u32 width = cols <= 1u ? 1u : 32u - (wd_u32)__clz(cols - 1u);
        const int top = (int)((width + 7u) / 8u) * 8 - 8;
        wd_u32 cprefix = 0, cmask = 0;
        bool all = false;
        int shift = top;
        for (; shift >= 0 && !all; shift -= 8) {
            wd_block_digit_histogram_loaded<WD_TOPK_ROW_LOADS>(hist, cols, key, [&](wd_u32 j, K c, wd_u32& d) {
                if (c != prefix || (j & cmask) != cprefix) return false;
                d = (j >> shift) & 255u;
                return true;
            });
            wd_block_radix_pick(hist, rank, false, slots, pick);
            __syncthreads();
            cprefix |= pick.digit << shift;
            cmask |= 255u << shift;
            all = pick.rank == pick.bin;
            rank = pick.rank;
            __syncthreads();
        }
        // All of the last bin taken: every column sharing its digits; else exactly cprefix.
        last = all ? (shift + 8 > 0 ? cprefix | ((1u << (shift + 8)) - 1u) : cprefix) : cprefix;
    }

    if (threadIdx.x == 0) taken = 0u;
    __syncthreads();
    auto collect = [&](wd_u32 j, K c) {
        if (c > prefix || (c == prefix && j <= last)) {
            const wd_u32 s = atomicAdd(&taken, 1u);
            ck[s] = c;
            ci[s] = j;
        }
    };
    wd_u64 j = threadIdx.x;
    for (; j + (WD_TOPK_ROW_LOADS - 1) * WD_BLOCK < cols; j += WD_TOPK_ROW_LOADS * WD_BLOCK) {
        K c[WD_TOPK_ROW_LOADS];
#pragma unroll
        for (int u = 0; u < WD_TOPK_ROW_LOADS; ++u) c[u] = key((wd_u32)(j + u * WD_BLOCK));
#pragma unroll
        for (int u = 0; u < WD_TOPK_ROW_LOADS; ++u) collect((wd_u32)(j + u * WD_BLOCK), c[u]);
    }
    for (; j < cols; j += WD_BLOCK) collect((wd_u32)j, key((wd_u32)j));
    __syncthreads();
    wd_block_sort(ck, ci, k, (K)0, 0xffffffffu, [](K a, wd_u32 ia, K b, wd_u32 ib) { return a > b || (a == b && ia < ib); });
    for (wd_u32 t = threadIdx.x; t < k; t += WD_BLOCK) pc.write(t, ci[t], k, idx_in, values, indices);
}

// The `n` elements of a piece of a row from `p`, as the raw level's stage (wd_topk_steps) reads
// them: 16-byte vectors where the piece's warp tiles are aligned, element by element elsewhere.
template <class E> struct wd_topk_row_stage {
    typedef E elem_t;
    static constexpr int VEC = 16 / (int)sizeof(E);
    const E* p;
    wd_u64 n;
    __device__ __forceinline__ E load(wd_u64 i) const { return wd_ldcs(p + i); }
    __device__ __forceinline__ E at(wd_u64 i) const { return p[i]; }
    __device__ __forceinline__ void prefetch_l2(wd_u64 i) const { wd_prefetch_l2(p + i); }
    __device__ __forceinline__ void load_vec(wd_u64 i, E (&e)[VEC]) const {
        const wd_vec<E, VEC> v = wd_ldcs_vec<E, VEC>(p + i);
#pragma unroll
        for (int q = 0; q < VEC; ++q) e[q] = v.e[q];
    }
    __device__ __forceinline__ bool aligned(wd_u64 i) const { return wd_vec_aligned<E, VEC>(p + i); }
};

// wd_topk_rows_radix's selection by one read of each piece: the block runs the raw level
// over its piece alone (wd_topk_steps: candidates that pass its rule buffered in shared
// memory, the buffer refined by a radix select whenever it fills; no global bound), keeps
// exactly its k best (ties to the smaller column) and sorts them. The same answer; it pays on
// long pieces (catalogue::TOPK_ROW_STREAM_MIN_COLS), where most steps hold no candidate, and
// the radix select (which reads a piece once a key byte, from L2 on short ones) on short ones.
template <class E>
static __device__ __forceinline__ void wd_topk_rows_stream(const E* x, wd_u32 row_cols, wd_u32 pieces, wd_u32 chunk,
                                                           const wd_u32* idx_in, wd_u32 k, bool largest, E* values,
                                                           wd_u32* indices) {
    typedef typename wd_topk_key<E>::T K;
    constexpr int BITS = wd_topk_key<E>::BITS;
    __shared__ wd_topk_block<K> b;
    const wd_topk_piece<E> pc(x, row_cols, pieces, chunk);
    const wd_u32 cols = pc.cols;
    const E* row = pc.row;
    const wd_topk_row_stage<E> st{row, cols};
    K tk = 0;
    wd_u32 ti = 0xFFFFFFFFu;
    wd_topk_steps<BITS, true>(st, b, k, largest, 0u, 1u, nullptr, tk, ti);
    const wd_u32 cnt = wd_topk_keep<BITS>(b, wd_topk_count(b), k, true, nullptr, tk, ti);
    wd_topk_sort(b, cnt);
    for (wd_u32 t = threadIdx.x; t < cnt; t += WD_BLOCK) pc.write(t, b.idx[t], k, idx_in, values, indices);
}
