// ---- warp-dsl single-pass prefix: tile order, tile status and decoupled look-back ----
// Single-pass kernels (compaction, scan) give each block one tile. A tile's number is its
// blockIdx.x (blocks are dispatched in increasing order, as CUB's look-back also relies on) or,
// with a queue counter, taken from it in the order blocks start, so that every predecessor of
// a tile has started and the look-back never waits on a tile that cannot run. Each tile
// publishes its aggregate, then (once it knows its exclusive prefix) its inclusive prefix; a
// tile's prefix is found by looking back over its predecessors' published values, 32 at a
// time, up to the nearest inclusive prefix. Warp and block steps are warp.cuh's and block.cuh's.
#define WD_LB_INVALID 0u
#define WD_LB_AGGREGATE 1u
#define WD_LB_PREFIX 2u

// Status storage: how a tile's (state, value) pair is published and read.
// WD_STATUS_PACK32: state and a value of at most 4 bytes in one 64-bit word (one load).
// WD_STATUS_PACK62: state in bits 62..63 and a count below 2^62 in one 64-bit word.
// WD_STATUS_SPLIT: any value; state words, aggregates and inclusive prefixes in separate
// arrays, the value made visible (fence) before its state.
#define WD_STATUS_SPLIT 0
#define WD_STATUS_PACK32 1
#define WD_STATUS_PACK62 2
template <class T> struct wd_status_kind {
    static constexpr int value = sizeof(T) <= WD_STATUS_PACK_MAX ? WD_STATUS_PACK32 : WD_STATUS_SPLIT;
};

// Bytes of status storage for `ntiles` tiles (the runtime zero-fills it before each launch).
template <class T, int K = wd_status_kind<T>::value> struct wd_tile_status;
template <class T> struct wd_tile_status<T, WD_STATUS_PACK32> {
    wd_u64* words;
    __device__ __forceinline__ wd_tile_status(unsigned char* mem, wd_u64) : words((wd_u64*)mem) {}
    __device__ __forceinline__ void publish(wd_u64 tile, unsigned state, T v) const {
        wd_u32 bits = 0;
        memcpy(&bits, &v, sizeof(T));
        atomicExch((unsigned long long*)(words + tile), (unsigned long long)(((wd_u64)state << 32) | bits));
    }
    __device__ __forceinline__ unsigned read(wd_u64 tile, T& v) const {
        const wd_u64 w = *(volatile wd_u64*)(words + tile);
        const wd_u32 bits = (wd_u32)w;
        memcpy(&v, &bits, sizeof(T));
        return (unsigned)(w >> 32);
    }
};
template <class T> struct wd_tile_status<T, WD_STATUS_PACK62> {
    wd_u64* words;
    __device__ __forceinline__ wd_tile_status(unsigned char* mem, wd_u64) : words((wd_u64*)mem) {}
    __device__ __forceinline__ void publish(wd_u64 tile, unsigned state, T v) const {
        atomicExch((unsigned long long*)(words + tile), (unsigned long long)(((wd_u64)state << 62) | (wd_u64)v));
    }
    __device__ __forceinline__ unsigned read(wd_u64 tile, T& v) const {
        const wd_u64 w = *(volatile wd_u64*)(words + tile);
        v = (T)(w & ((1ull << 62) - 1ull));
        return (unsigned)(w >> 62);
    }
};
template <class T> struct wd_tile_status<T, WD_STATUS_SPLIT> {
    wd_u32* states;
    T* aggregates;
    T* inclusives;
    // Layout: ntiles u32 states, then (16-byte aligned) ntiles aggregates, ntiles prefixes.
    __device__ __forceinline__ wd_tile_status(unsigned char* mem, wd_u64 ntiles) {
        states = (wd_u32*)mem;
        const wd_u64 off = (ntiles * 4u + 15u) & ~15ull;
        aggregates = (T*)(mem + off);
        inclusives = aggregates + ntiles;
    }
    __device__ __forceinline__ void publish(wd_u64 tile, unsigned state, T v) const {
        (state == WD_LB_PREFIX ? inclusives : aggregates)[tile] = v;
        __threadfence();
        atomicExch(states + tile, state);
    }
    __device__ __forceinline__ unsigned read(wd_u64 tile, T& v) const {
        const unsigned s = *(volatile wd_u32*)(states + tile);
        if (s != WD_LB_INVALID) {
            __threadfence();
            v = wd_ldcg((s == WD_LB_PREFIX ? inclusives : aggregates) + tile);
        }
        return s;
    }
};

// The exclusive prefix of `tile`, by one whole warp, after the tile published its aggregate.
// Values are combined in tile order (the operator need not commute); each window of 32 is
// folded by wd_warp_fold_back (warp.cuh).
template <class Op, class S>
static __device__ __forceinline__ typename Op::T wd_look_back(const S& status, wd_u64 tile) {
    typedef typename Op::T T;
    const unsigned lane = threadIdx.x & 31u;
    T prefix = Op::identity();
    wd_i64 window = (wd_i64)tile - 1;
    while (window >= 0) {
        const wd_i64 j = window - (wd_i64)lane;  // lane l looks at the l-th predecessor
        T v = Op::identity();
        unsigned s;
        do {
            s = j >= 0 ? status.read((wd_u64)j, v) : WD_LB_PREFIX;
        } while (__any_sync(WD_FULL_MASK, s == WD_LB_INVALID));
        const unsigned inclusive = __ballot_sync(WD_FULL_MASK, s == WD_LB_PREFIX);
        const unsigned upto = inclusive ? (unsigned)(__ffs(inclusive) - 1) : 31u;
        if (lane > upto || j < 0) v = Op::identity();
        prefix = Op::combine(wd_warp_fold_back<Op>(v), prefix);
        if (inclusive) break;
        window -= 32;
    }
    return prefix;
}

// Publishes `tile`'s aggregate, looks back, publishes its inclusive prefix; returns the
// exclusive prefix. Called by one whole warp; lane 0 publishes.
template <class Op, class S>
static __device__ __forceinline__ typename Op::T wd_tile_prefix(const S& status, wd_u64 tile, typename Op::T aggregate) {
    const unsigned lane = threadIdx.x & 31u;
    if (tile == 0) {
        if (lane == 0) status.publish(0, WD_LB_PREFIX, aggregate);
        return Op::identity();
    }
    if (lane == 0) status.publish(tile, WD_LB_AGGREGATE, aggregate);
    const typename Op::T prefix = wd_look_back<Op>(status, tile);
    if (lane == 0) status.publish(tile, WD_LB_PREFIX, Op::combine(prefix, aggregate));
    return prefix;
}

// This block's tile: blockIdx.x, or the next number from `queue` when it is non-null (one
// barrier).
static __device__ __forceinline__ wd_u64 wd_tile_index(unsigned int* queue) {
    if (queue == nullptr) return blockIdx.x;
    __shared__ wd_u64 tile;
    if (threadIdx.x == 0) tile = atomicAdd(queue, 1u);
    __syncthreads();
    return tile;
}

// Where a tile's exclusive prefix comes from (called by all of warp 0 with the tile's
// aggregate): the look-back (the fastest; its grouping of tiles depends on timing, so it is for
// exact operators); the fixed tree (deterministic for any operator); or the predecessor's
// aggregate alone (when every tile's aggregate already holds its whole prefix that matters, as
// in a segmented scan whose every tile starts a segment).
template <class Op, class S> struct wd_prefix_look_back {
    S status;
    __device__ __forceinline__ typename Op::T operator()(wd_u64 tile, typename Op::T aggregate) const {
        return wd_tile_prefix<Op>(status, tile, aggregate);
    }
};

// The deterministic single-pass prefix. Node (j, e) is the aggregate of the 2^j tiles ending at
// tile e (e + 1 a multiple of 2^j): node (0, e) is tile e's aggregate and node (j, e) is
// combine(node (j - 1, e - 2^(j-1)), node (j - 1, e)), published by tile e itself, which
// completes it. The exclusive prefix of tile t folds, in tile order, the nodes of t's binary
// decomposition (for each set bit j of t, from the highest, the 2^j tiles that follow the
// higher bits), lane j fetching bit j's node, combined by wd_warp_fold_back. Every grouping is
// a function of the tile number only, so the result has the same bits run after run. A tile
// waits only on nodes of earlier tiles, which have started (tiles are taken in order), so it
// cannot deadlock. Node (j, e) lives in status slot 2e - popcount(e) + j (tiles before e own
// 2e - popcount(e) nodes), so `status` holds 2 * ntiles slots.
template <class Op, class S> struct wd_prefix_tree {
    typedef typename Op::T T;
    S status;
    static __device__ __forceinline__ wd_u64 slot(wd_u64 e, unsigned level) {
        return 2ull * e - (wd_u64)__popcll(e) + level;
    }
    __device__ __forceinline__ T wait(wd_u64 at) const {
        T v;
        while (status.read(at, v) == WD_LB_INVALID) {
        }
        return v;
    }
    __device__ __forceinline__ T operator()(wd_u64 tile, T aggregate) const {
        const unsigned lane = threadIdx.x & 31u;
        // This tile's nodes first (later tiles wait on them): level 0, then each range it ends.
        T node = aggregate;
        if (lane == 0) status.publish(slot(tile, 0), WD_LB_AGGREGATE, node);
        for (unsigned j = 1; j < 64 && ((tile >> (j - 1)) & 1ull); ++j) {
            node = Op::combine(wait(slot(tile - (1ull << (j - 1)), j - 1)), node);
            if (lane == 0) status.publish(slot(tile, j), WD_LB_AGGREGATE, node);
        }
        T v = Op::identity();
        if ((tile >> lane) & 1ull) v = wait(slot(((tile >> lane >> 1) << lane << 1) + (1ull << lane) - 1ull, lane));
        return wd_warp_fold_back<Op>(v);
    }
};

template <class Op, class S> struct wd_prefix_predecessor {
    typedef typename Op::T T;
    S status;
    __device__ __forceinline__ T operator()(wd_u64 tile, T aggregate) const {
        if ((threadIdx.x & 31u) == 0) status.publish(tile, WD_LB_AGGREGATE, aggregate);
        if (tile == 0) return Op::identity();
        T v;
        while (status.read(tile - 1, v) == WD_LB_INVALID) {
        }
        return v;
    }
};

// ---- exact sums of f32 values: the tile prefixes of the deterministic scan of float sums ----
// wd_exact32 holds a sum of f32 values exactly: a 320-bit two's complement integer in units of
// 2^-149 (the smallest subnormal; w[0] the least significant word), which holds any finite f32
// with 2^41 to spare above FLT_MAX (sums of fewer than 2^41 values cannot overflow it), and as
// flags what IEEE addition makes of infinities, NaN and signed zeros. Its addition is exact, so
// associative and commutative: however the look-back happens to group tiles, the sum is the
// same, and rounded once to the nearest f32 (ties to even) it is the same bits every run.
#define WD_EXACT_WORDS 10
#define WD_EXACT_NAN 1u
#define WD_EXACT_POS_INF 2u
#define WD_EXACT_NEG_INF 4u
#define WD_EXACT_NOT_NEG_ZERO 8u  // some term is not -0.0 (a zero sum is then +0.0)
struct __align__(16) wd_exact32 {
    wd_u32 w[WD_EXACT_WORDS];
    wd_u32 flags;
    wd_u32 pad;
};
static_assert(sizeof(wd_exact32) == WD_EXACT_SUM_BYTES, "wd_exact32 is catalogue::EXACT_SUM_BYTES bytes");

// Word j of v's twelve (the integer's ten, the flags, the padding).
WD_DEV wd_u32 wd_exact32_word(const wd_exact32& v, int j) {
    return j < WD_EXACT_WORDS ? v.w[j] : (j == WD_EXACT_WORDS ? v.flags : v.pad);
}
WD_DEV void wd_exact32_set_word(wd_exact32& v, int j, wd_u32 x) {
    if (j < WD_EXACT_WORDS) v.w[j] = x;
    else if (j == WD_EXACT_WORDS) v.flags = x;
    else v.pad = x;
}

struct wd_op_exact32 {
    typedef wd_exact32 T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() {
        T t;
#pragma unroll
        for (int i = 0; i < WD_EXACT_WORDS; ++i) t.w[i] = 0u;
        t.flags = 0u;
        t.pad = 0u;
        return t;
    }
    static __device__ __forceinline__ T combine(T a, T b) {
        T t;
        wd_u64 c = 0;
#pragma unroll
        for (int i = 0; i < WD_EXACT_WORDS; ++i) {
            c += (wd_u64)a.w[i] + b.w[i];
            t.w[i] = (wd_u32)c;
            c >>= 32;
        }
        t.flags = a.flags | b.flags;
        t.pad = 0u;
        return t;
    }
};
// The exact value of x.
WD_DEV wd_exact32 wd_exact32_of(wd_f32 x) {
    wd_exact32 t = wd_op_exact32::identity();
    const wd_u32 bits = __float_as_uint(x), e = (bits >> 23) & 0xffu, frac = bits & 0x7fffffu;
    const bool neg = (bits >> 31) != 0u;
    if (e == 0xffu) {
        t.flags = frac != 0u ? WD_EXACT_NAN : (neg ? WD_EXACT_NEG_INF : WD_EXACT_POS_INF);
        return t;
    }
    t.flags = bits == 0x80000000u ? 0u : WD_EXACT_NOT_NEG_ZERO;
    // x = m * 2^p units: a subnormal is frac units, a normal (frac + 2^23) << (e - 1).
    const wd_u32 m = e != 0u ? (frac | 0x800000u) : frac, p = e != 0u ? e - 1u : 0u;
    const wd_u32 q = p >> 5, r = p & 31u;
    const wd_u32 lo = m << r, hi = r != 0u ? m >> (32u - r) : 0u;
    wd_u64 c = neg ? 1u : 0u;  // -v = ~v + 1
#pragma unroll
    for (int i = 0; i < WD_EXACT_WORDS; ++i) {
        const wd_u32 v = (wd_u32)i == q ? lo : ((wd_u32)i == q + 1u ? hi : 0u);
        c += neg ? (wd_u64)(~v) : (wd_u64)v;
        t.w[i] = (wd_u32)c;
        c >>= 32;
    }
    return t;
}

// The f32 nearest s (ties to even; beyond FLT_MAX's rounding range an infinity): NaN if a term
// was NaN or both infinities were met, else the infinity met, else the rounded sum (-0.0 only
// when every term was -0.0).
WD_DEV wd_f32 wd_exact32_round(const wd_exact32& s) {
    const wd_u32 inf = WD_EXACT_POS_INF | WD_EXACT_NEG_INF;
    if ((s.flags & WD_EXACT_NAN) != 0u || (s.flags & inf) == inf) return __uint_as_float(0x7fc00000u);
    if ((s.flags & WD_EXACT_POS_INF) != 0u) return __uint_as_float(0x7f800000u);
    if ((s.flags & WD_EXACT_NEG_INF) != 0u) return __uint_as_float(0xff800000u);
    const bool neg = (s.w[WD_EXACT_WORDS - 1] >> 31) != 0u;
    wd_u32 a[WD_EXACT_WORDS];
    wd_u64 c = neg ? 1u : 0u;
#pragma unroll
    for (int i = 0; i < WD_EXACT_WORDS; ++i) {
        c += neg ? (wd_u64)(~s.w[i]) : (wd_u64)s.w[i];
        a[i] = (wd_u32)c;
        c >>= 32;
    }
    // The magnitude's highest non-zero word k, the 64 bits from it down, and whether any bit
    // below those is set.
    int k = -1;
#pragma unroll
    for (int i = 0; i < WD_EXACT_WORDS; ++i)
        if (a[i] != 0u) k = i;
    if (k < 0) return __uint_as_float((s.flags & WD_EXACT_NOT_NEG_ZERO) != 0u ? 0u : 0x80000000u);
    wd_u32 hi = 0u, lo = 0u;
    bool sticky = false;
#pragma unroll
    for (int i = 0; i < WD_EXACT_WORDS; ++i) {
        if (i == k) hi = a[i];
        if (i + 1 == k) lo = a[i];
        if (i + 1 < k && a[i] != 0u) sticky = true;
    }
    const wd_u64 window = k > 0 ? (((wd_u64)hi << 32) | lo) : (wd_u64)hi;
    const int base = k > 0 ? 32 * (k - 1) : 0, top = 63 - __clzll((long long)window);
    wd_u32 bits;
    if (top + base <= 23) {
        bits = (wd_u32)window;  // below 2^24 units: a subnormal or one of the smallest normals, exact
    } else {
        // Value mant * 2^(shift + base) units, mant in [2^23, 2^24): bits (shift + base) << 23
        // plus mant (a carry out of the mantissa moves into the exponent, to infinity at most).
        const int shift = top - 23;
        const wd_u32 mant = (wd_u32)(window >> shift);
        const wd_u64 rest = window & ((1ull << shift) - 1ull), half = 1ull << (shift - 1);
        const bool up = rest > half || (rest == half && (sticky || (mant & 1u) != 0u));
        bits = ((wd_u32)(shift + base) << 23) + mant + (up ? 1u : 0u);
        if (bits > 0x7f800000u) bits = 0x7f800000u;
    }
    return __uint_as_float(bits | (neg ? 0x80000000u : 0u));
}

// The look-back status of exact sums: a tile's aggregate as its f32 (exact sums of one f32
// round back to it), packed with its state in one 64-bit word, which is what a look-back reads
// of most tiles, in one load; and its inclusive prefix in WD_EXACT_SUM_SLOT_BYTES of 16-byte
// chunks, each three words of the wd_exact32 and a tag, written by single 16-byte stores: a
// reader that sees every tag set has the whole prefix, with no fence and no second load.
#define WD_STATUS_EXACT 4
#define WD_EXACT_CHUNKS (WD_EXACT_SUM_BYTES / 12)
static_assert(WD_EXACT_CHUNKS * 16 == WD_EXACT_SUM_SLOT_BYTES, "16-byte chunks of three words and a tag");
template <> struct wd_status_kind<wd_exact32> {
    static constexpr int value = WD_STATUS_EXACT;
};
template <> struct wd_tile_status<wd_exact32, WD_STATUS_EXACT> {
    wd_u64* words;
    uint4* chunks;
    // Layout: ntiles packed words, then (16-byte aligned) ntiles prefixes of WD_EXACT_CHUNKS
    // chunks (catalogue::ScanMode::status_bytes).
    __device__ __forceinline__ wd_tile_status(unsigned char* mem, wd_u64 ntiles) {
        words = (wd_u64*)mem;
        chunks = (uint4*)(mem + ((ntiles * 8u + 15u) & ~15ull));
    }
    // A tile's inclusive prefix (its aggregate goes by publish_aggregate: the exact-sum prefix
    // publishes both itself, not through wd_tile_prefix).
    __device__ __forceinline__ void publish_prefix(wd_u64 tile, const wd_exact32& v) const {
#pragma unroll
        for (int k = 0; k < WD_EXACT_CHUNKS; ++k) {
            uint4 c;
            c.x = wd_exact32_word(v, 3 * k);
            c.y = wd_exact32_word(v, 3 * k + 1);
            c.z = wd_exact32_word(v, 3 * k + 2);
            c.w = 1u;
#ifdef __CUDA_ARCH__
            __stcg(chunks + tile * WD_EXACT_CHUNKS + k, c);
#else
            chunks[tile * WD_EXACT_CHUNKS + k] = c;
#endif
        }
    }
    // A tile's aggregate, as the f32 it is.
    __device__ __forceinline__ void publish_aggregate(wd_u64 tile, wd_f32 aggregate) const {
        const wd_u64 bits = __float_as_uint(aggregate);
        atomicExch((unsigned long long*)(words + tile), (unsigned long long)(((wd_u64)WD_LB_AGGREGATE << 32) | bits));
    }
    __device__ __forceinline__ unsigned read(wd_u64 tile, wd_exact32& v) const {
        const wd_u64 w = *(volatile wd_u64*)(words + tile);
        uint4 c[WD_EXACT_CHUNKS];
        bool whole = true;
#pragma unroll
        for (int k = 0; k < WD_EXACT_CHUNKS; ++k) {
#ifdef __CUDA_ARCH__
            c[k] = __ldcg(chunks + tile * WD_EXACT_CHUNKS + k);
#else
            const volatile wd_u32* q = (const volatile wd_u32*)(chunks + tile * WD_EXACT_CHUNKS + k);
            c[k].x = q[0], c[k].y = q[1], c[k].z = q[2], c[k].w = q[3];
#endif
            whole = whole && c[k].w != 0u;
        }
        if (whole) {
#pragma unroll
            for (int k = 0; k < WD_EXACT_CHUNKS; ++k) {
                wd_exact32_set_word(v, 3 * k, c[k].x);
                wd_exact32_set_word(v, 3 * k + 1, c[k].y);
                wd_exact32_set_word(v, 3 * k + 2, c[k].z);
            }
            return WD_LB_PREFIX;
        }
        const unsigned s = (unsigned)(w >> 32);
        if (s != WD_LB_INVALID) v = wd_exact32_of(__uint_as_float((wd_u32)w));
        return s;
    }
};

// The exact sum of the warp's exact sums (every lane gets it). Addition being exact, the order
// does not matter, so rather than folding whole values lane by lane (five rounds of shuffles of
// eleven words) each word's 16-bit halves are summed across the warp (sums below 2^21) and the
// carries then propagated.
template <> __device__ __forceinline__ wd_exact32 wd_warp_fold_back<wd_op_exact32>(wd_exact32 v) {
    wd_exact32 t;
    wd_u64 c = 0;
#pragma unroll
    for (int i = 0; i < WD_EXACT_WORDS; ++i) {
        c += (wd_u64)wd_warp_sum_u32(v.w[i] & 0xffffu) + ((wd_u64)wd_warp_sum_u32(v.w[i] >> 16) << 16);
        t.w[i] = (wd_u32)c;
        c >>= 32;
    }
    t.flags = wd_warp_or_u32(v.flags);
    t.pad = 0u;
    return t;
}

template <class T> struct wd_is_f32 {
    static constexpr bool value = false;
};
template <> struct wd_is_f32<wd_f32> {
    static constexpr bool value = true;
};

// The prefix of float sums (Op is f32 addition with a zero identity): wd_tile_prefix's steps
// over exact tile sums (`status` of wd_exact32): the tile's f32 aggregate published as it is
// (no conversion on the way to its successors), the look-back, the exact inclusive prefix;
// returns the exact prefix rounded once (tile 0: the identity).
template <class Op, class S> struct wd_prefix_exact_sum {
    typedef typename Op::T T;
    S status;
    __device__ __forceinline__ T operator()(wd_u64 tile, T aggregate) const {
        const unsigned lane = threadIdx.x & 31u;
        if (tile == 0) {
            if (lane == 0) status.publish_prefix(0, wd_exact32_of(aggregate));
            return Op::identity();
        }
        if (lane == 0) status.publish_aggregate(tile, aggregate);
        const wd_exact32 prefix = wd_look_back<wd_op_exact32>(status, tile);
        if (lane == 0) status.publish_prefix(tile, wd_op_exact32::combine(prefix, wd_exact32_of(aggregate)));
        return wd_exact32_round(prefix);
    }
};

// Block-level part of a single-pass tile: every warp brings its aggregate (warp order is
// tile order); returns, to every thread, the exclusive prefix of its warp's part of `tile`.
// Warp 0 scans the warp aggregates (wd_block_scan_warp_totals, block.cuh) and gets the tile's
// prefix from `prefix_of`. With `total` non-null, the last tile writes the grand total. Contains
// two barriers.
template <class Op, class P>
static __device__ __forceinline__ typename Op::T wd_block_tile_prefix(const P& prefix_of, wd_u64 tile, typename Op::T warp_aggregate,
                                                                      wd_u64 ntiles, typename Op::T* total) {
    typedef typename Op::T T;
    __shared__ T warp_values[WD_BLOCK / 32];
    __shared__ T block_prefix;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0) warp_values[warp] = warp_aggregate;
    __syncthreads();
    if (warp == 0) {
        const T aggregate = wd_block_scan_warp_totals<Op>(warp_values);
        const T prefix = prefix_of(tile, aggregate);
        if (lane == 0) {
            block_prefix = prefix;
            if (total != nullptr && tile == ntiles - 1) *total = Op::combine(prefix, aggregate);
        }
    }
    __syncthreads();
    return Op::combine(block_prefix, warp_values[warp]);
}
