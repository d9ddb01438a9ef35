// ---- warp-dsl predicate patterns: votes, ballot counting, ballot compaction, look-back ----
// A stage `St` provides: typedef elem_t, value_t; pointer `p`, length `n`;
// value_t value(elem_t) (the map, or the element itself) and bool keep(value_t) (the predicate).
// Work is cut into warp tiles of 32 * WD_ITEMS elements: lane l of a warp holds the elements
// base + k * 32 + l (k < WD_ITEMS), so each ballot covers 32 consecutive elements and every
// loop is warp-uniform (full-mask votes are always valid; lanes past n vote false).
#ifndef WD_ITEMS
#define WD_ITEMS 16
#endif
#define WD_TILE (32 * WD_ITEMS)

// Loads a warp tile's elements and their keep flags (independent loads, all in flight).
template <class St>
static __device__ __forceinline__ void wd_load_tile(const St& st, wd_u64 base, typename St::value_t (&v)[WD_ITEMS],
                                                    bool (&keep)[WD_ITEMS]) {
    const unsigned lane = threadIdx.x & 31u;
    typename St::elem_t e[WD_ITEMS];
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        e[k] = i < st.n ? wd_ldcs(st.p + i) : st.p[0];
    }
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        v[k] = st.value(e[k]);
        keep[k] = i < st.n && st.keep(v[k]);
    }
}

// The same tile read with 16-byte loads: slot j = r * VEC + k of lane l holds element
// base + (r * 32 + l) * VEC + k (r < WD_ITEMS / VEC). Used, when the tile is whole and aligned,
// by the operations that do not need a ballot to cover 32 consecutive elements.
template <class St> struct wd_vec_layout {
    static constexpr int VEC = (16 / (int)sizeof(typename St::elem_t)) < WD_ITEMS ? 16 / (int)sizeof(typename St::elem_t) : WD_ITEMS;
    static constexpr int ROWS = WD_ITEMS / VEC;
};
template <class St>
static __device__ __forceinline__ bool wd_tile_vectorizable(const St& st, wd_u64 base) {
    return 16 % sizeof(typename St::elem_t) == 0 && base + WD_TILE <= st.n && (((wd_u64)(st.p + base)) & 15u) == 0;
}
template <class St>
static __device__ __forceinline__ void wd_load_tile_vec(const St& st, wd_u64 base, typename St::value_t (&v)[WD_ITEMS],
                                                        bool (&keep)[WD_ITEMS]) {
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u;
    wd_vec16<typename St::elem_t> raw[L::ROWS];
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r)
        raw[r].raw = __ldcs(reinterpret_cast<const uint4*>(st.p + base + ((wd_u64)r * 32u + lane) * L::VEC));
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
#pragma unroll
        for (int k = 0; k < L::VEC; ++k) {
            v[r * L::VEC + k] = st.value(raw[r].e[k]);
            keep[r * L::VEC + k] = st.keep(v[r * L::VEC + k]);
        }
    }
}

struct wd_op_count {
    typedef wd_u64 T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() { return 0ull; }
    static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
    struct functor {
        __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
    };
};

// count: per warp tile, __popc(__ballot_sync) per item row; then the block and grid combine.
template <class St>
static __device__ __forceinline__ void wd_count(const St& st, wd_u64* partials, unsigned int* ticket, wd_u64* out) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    wd_u64 count = 0;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        if (wd_tile_vectorizable(st, t * WD_TILE)) wd_load_tile_vec(st, t * WD_TILE, v, keep);
        else wd_load_tile(st, t * WD_TILE, v, keep);
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) count += (wd_u64)__popc(__ballot_sync(WD_FULL_MASK, keep[k]));
    }
    wd_grid_combine<wd_op_count>((threadIdx.x & 31u) == 0 ? count : 0ull, partials, ticket, out);
}

// any: __any_sync per tile; a hit raises *flag and every warp stops reading once it sees it.
// all(p) is !any(!p): `negate` flips the predicate.
template <class St>
static __device__ __forceinline__ void wd_any(const St& st, bool negate, unsigned int* flag) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    const unsigned lane = threadIdx.x & 31u;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        if (*(volatile unsigned int*)flag) return;
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        bool hit = false;
        if (wd_tile_vectorizable(st, t * WD_TILE)) {
            wd_load_tile_vec(st, t * WD_TILE, v, keep);
#pragma unroll
            for (int k = 0; k < WD_ITEMS; ++k) hit |= keep[k] != negate;
        } else {
            wd_load_tile(st, t * WD_TILE, v, keep);
#pragma unroll
            for (int k = 0; k < WD_ITEMS; ++k) {
                const bool valid = t * WD_TILE + (wd_u64)k * 32u + lane < st.n;
                hit |= valid && (keep[k] != negate);
            }
        }
        if (__any_sync(WD_FULL_MASK, hit)) {
            if (lane == 0) atomicExch(flag, 1u);
            return;
        }
    }
}

// find_first: per tile, the first item row whose ballot is non-zero gives the smallest index
// (__ffs); atomicMin into *first; warps stop once their tiles start past the best found.
template <class St>
static __device__ __forceinline__ void wd_find_first(const St& st, wd_u64* first) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        if (t * WD_TILE >= *(volatile wd_u64*)first) return;
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        wd_load_tile(st, t * WD_TILE, v, keep);
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) {
            const unsigned b = __ballot_sync(WD_FULL_MASK, keep[k]);
            if (b) {
                if ((threadIdx.x & 31u) == 0) atomicMin((unsigned long long*)first, (unsigned long long)(t * WD_TILE + (wd_u64)k * 32u + (__ffs(b) - 1)));
                return;
            }
        }
    }
}

// mask: bit j of word w is element 32 * w + j; each ballot is one word, written by lane 0.
template <class St>
static __device__ __forceinline__ void wd_mask(const St& st, wd_u32* words) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    const wd_u64 nwords = (st.n + 31) / 32;
    const unsigned lane = threadIdx.x & 31u;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        wd_load_tile(st, t * WD_TILE, v, keep);
        wd_u32 mine = 0;
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) {
            const wd_u32 b = __ballot_sync(WD_FULL_MASK, keep[k]);
            if (lane == (unsigned)k) mine = b;
        }
        // Lane k writes word k of the tile: coalesced.
        const wd_u64 w = t * WD_ITEMS + lane;
        if (lane < WD_ITEMS && w < nwords) words[w] = mine;
    }
}

// ---- single-pass compaction with decoupled look-back ----
// Tile status words: bits 62..63 the state, bits 0..61 the count.
#define WD_LB_INVALID 0ull
#define WD_LB_AGGREGATE 1ull
#define WD_LB_PREFIX 2ull
#define WD_LB_SHIFT 62
#define WD_LB_MASK ((1ull << WD_LB_SHIFT) - 1ull)

// The exclusive prefix of tile `tile` (called by warp 0 of its block, which has published the
// tile's aggregate): looks back 32 predecessors at a time, summing aggregates up to the nearest
// published inclusive prefix.
static __device__ __forceinline__ wd_u64 wd_look_back(wd_u64* status, wd_u64 tile) {
    const unsigned lane = threadIdx.x & 31u;
    wd_u64 prefix = 0;
    wd_i64 window = (wd_i64)tile - 1;
    while (window >= 0) {
        const wd_i64 j = window - (wd_i64)lane;
        wd_u64 s;
        do {
            s = j >= 0 ? *(volatile wd_u64*)(status + j) : (WD_LB_PREFIX << WD_LB_SHIFT);
        } while (__any_sync(WD_FULL_MASK, (s >> WD_LB_SHIFT) == WD_LB_INVALID));
        const unsigned inclusive = __ballot_sync(WD_FULL_MASK, (s >> WD_LB_SHIFT) == WD_LB_PREFIX);
        // Lanes up to and including the nearest inclusive prefix contribute.
        const unsigned upto = inclusive ? (unsigned)(__ffs(inclusive) - 1) : 31u;
        wd_u64 add = lane <= upto && j >= 0 ? (s & WD_LB_MASK) : 0ull;
#pragma unroll
        for (unsigned o = 16; o > 0; o >>= 1) add += wd_shfl_xor(add, (int)o);
        prefix += add;
        if (inclusive) break;
        window -= 32;
    }
    return prefix;
}

// Compaction of one block tile (WD_BLOCK / 32 warp tiles), in tile order: kept values go to
// `kept` in input order; with `rejected` non-null, the others go there in input order too
// (partition). `*count` receives the number kept. Tiles are numbered by an atomic counter, so a
// tile's predecessors have all started (the look-back cannot wait on a tile not yet running).
template <class St>
static __device__ __forceinline__ void wd_compact(const St& st, typename St::value_t* kept, typename St::value_t* rejected,
                                                  wd_u64* status, unsigned int* tile_counter, wd_u64* count) {
    __shared__ wd_u64 warp_counts[WD_BLOCK / 32];
    __shared__ wd_u64 block_prefix;
    __shared__ wd_u64 tile_shared;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1u);
    __syncthreads();
    const wd_u64 tile = tile_shared;
    const wd_u64 base = (tile * (WD_BLOCK / 32) + warp) * WD_TILE;
    typename St::value_t v[WD_ITEMS];
    bool keep[WD_ITEMS];
    const bool vec = wd_tile_vectorizable(st, base);
    if (vec) wd_load_tile_vec(st, base, v, keep);
    else wd_load_tile(st, base, v, keep);
    wd_u32 ballots[WD_ITEMS];
    wd_u64 warp_total = 0;
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        ballots[k] = __ballot_sync(WD_FULL_MASK, keep[k]);
        warp_total += __popc(ballots[k]);
    }
    if (lane == 0) warp_counts[warp] = warp_total;
    __syncthreads();
    // Block scan of the warp counts, by warp 0, then the look-back for the tile's prefix.
    if (warp == 0) {
        wd_u64 c = lane < WD_BLOCK / 32 ? warp_counts[lane] : 0ull;
        wd_u64 incl = c;
#pragma unroll
        for (unsigned o = 1; o < 32; o <<= 1) {
            const wd_u64 up = wd_shfl_up(incl, o);
            if (lane >= o) incl += up;
        }
        const wd_u64 aggregate = wd_shfl_idx(incl, 31);
        if (lane < WD_BLOCK / 32) warp_counts[lane] = incl - c;
        wd_u64 prefix = 0;
        if (tile == 0) {
            if (lane == 0) atomicExch((unsigned long long*)(status + tile), (unsigned long long)((WD_LB_PREFIX << WD_LB_SHIFT) | aggregate));
        } else {
            if (lane == 0) atomicExch((unsigned long long*)(status + tile), (unsigned long long)((WD_LB_AGGREGATE << WD_LB_SHIFT) | aggregate));
            prefix = wd_look_back(status, tile);
            if (lane == 0) atomicExch((unsigned long long*)(status + tile), (unsigned long long)((WD_LB_PREFIX << WD_LB_SHIFT) | (prefix + aggregate)));
        }
        if (lane == 0) {
            block_prefix = prefix;
            if (tile == gridDim.x - 1) *count = prefix + aggregate;
        }
    }
    __syncthreads();
    wd_u64 out = block_prefix + warp_counts[warp];
    wd_u64 rej = base - out;  // elements of this warp tile before it, minus those kept
    const wd_u32 below = (1u << lane) - 1u;
    if (vec) {
        // Row r holds 32 * VEC consecutive elements, VEC per lane: a kept element's slot is the
        // kept count of the lanes below plus that of its lane's earlier components.
        typedef wd_vec_layout<St> L;
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
            unsigned lanes_below = 0, row_total = 0;
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                lanes_below += __popc(ballots[r * L::VEC + k] & below);
                row_total += __popc(ballots[r * L::VEC + k]);
            }
            unsigned mine = 0;
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                const int j = r * L::VEC + k;
                const unsigned rej_below = lane * L::VEC - lanes_below;
                if (keep[j]) kept[out + lanes_below + mine] = v[j];
                else if (rejected != nullptr) rejected[rej + rej_below + (k - mine)] = v[j];
                mine += keep[j];
            }
            out += row_total;
            rej += 32u * L::VEC - row_total;
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u32 b = ballots[k];
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        const unsigned before = __popc(b & below);
        if (keep[k]) kept[out + before] = v[k];
        else if (rejected != nullptr && i < st.n) rejected[rej + (lane - before)] = v[k];
        out += __popc(b);
        rej += 32u - __popc(b);
    }
}
