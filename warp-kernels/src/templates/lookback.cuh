// ---- warp-dsl single-pass prefix: tile order, tile status and decoupled look-back ----
// Single-pass kernels (compaction, scan) give each block one tile. A tile's number is its
// blockIdx.x (blocks are dispatched in increasing order, as CUB's look-back also relies on) or,
// with a queue counter, taken from it in the order blocks start, so that every predecessor of
// a tile has started and the look-back never waits on a tile that cannot run. Each tile
// publishes its aggregate, then (once it knows its exclusive prefix) its inclusive prefix; a
// tile's prefix is found by looking back over its predecessors' published values, 32 at a
// time, up to the nearest inclusive prefix.
// Counts and offsets: 64-bit addition as an operation (compaction's kept counts, the chunk
// numbering of long segments).
struct wd_op_count {
    typedef wd_u64 T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() { return 0ull; }
    static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
    struct functor {
        __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
    };
};

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

// Ordered warp combine where higher lanes hold earlier values: the fold of lane 31's value, then
// lane 30's, ..., then lane 0's, grouped as a fixed tree (so the same for every call), returned
// to every lane.
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_fold_back(typename Op::T v) {
    typedef typename Op::T T;
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const T later = v;
        const T earlier = wd_shfl_down(v, o);
        if (lane + o < 32u) v = Op::combine(earlier, later);
    }
    return wd_shfl_idx(v, 0);
}

// The exclusive prefix of `tile`, by one whole warp, after the tile published its aggregate.
// Values are combined in tile order (the operator need not commute).
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

// Ordered inclusive warp scan (Kogge-Stone with __shfl_up_sync): lane l ends with
// v_0 + ... + v_l, combined in lane order.
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_scan(typename Op::T v) {
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const typename Op::T up = wd_shfl_up(v, o);
        if (lane >= o) v = Op::combine(up, v);
    }
    return v;
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

// Block-level part of a single-pass tile: every warp brings its aggregate (warp order is
// tile order); returns, to every thread, the exclusive prefix of its warp's part of `tile`.
// Warp 0 scans the warp aggregates and gets the tile's prefix from `prefix_of`. With `total`
// non-null, the last tile writes the grand total. Contains two barriers.
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
        const T mine = lane < WD_BLOCK / 32 ? warp_values[lane] : Op::identity();
        const T incl = wd_warp_scan<Op>(mine);
        const T aggregate = wd_shfl_idx(incl, WD_BLOCK / 32 - 1);
        const T excl = wd_shfl_up(incl, 1u);
        if (lane < WD_BLOCK / 32) warp_values[lane] = lane == 0 ? Op::identity() : excl;
        const T prefix = prefix_of(tile, aggregate);
        if (lane == 0) {
            block_prefix = prefix;
            if (total != nullptr && tile == ntiles - 1) *total = Op::combine(prefix, aggregate);
        }
    }
    __syncthreads();
    return Op::combine(block_prefix, warp_values[warp]);
}
