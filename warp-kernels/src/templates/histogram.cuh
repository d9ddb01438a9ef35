// ---- warp-dsl histogram: warp-aggregated counts in per-block shared bins, merged once ----
// A stage `St` (as in predicate.cuh) and the module's `wd_bin_of(st, v)`: the bin index of a
// value, any integer type; indices outside [0, bins) (negative ones included) are dropped.
// Warps read warp tiles (tiles.cuh: 16-byte vector loads of whole aligned tiles) over a
// grid-stride loop. Where lanes of one bin would hit one address (global memory, or shared
// bins of at most WD_HIST_MATCH_COLUMNS columns, see below), each tile first probes its first
// row for contention (how many lanes hold the bin of the lane below): a crowded tile
// (WD_HIST_MATCH_MIN or more such pairs) groups the lanes of every row by bin with
// __match_any_sync and its leader adds the group's size, one atomic per distinct bin per row;
// an uncrowded one (the usual case for spread data, where matching would cost more than it
// saves) adds 1 per lane, as do all tiles over more columns. Adds go to the block's bins in
// shared memory, `replicas` (a power of two up to 32) columns per bin: bin j's column c is word
// j * replicas + c and lane l adds to column l % replicas, so with 32 columns the lanes of one
// atomic never share a bank (nor an address), and with fewer at most 32 / replicas of them do.
// A value's bin is clamped to `bins`, one more row that collects the dropped values, so that
// every lane adds without a branch (a bin costs a minimum, a multiply-add and the atomic).
// After a barrier each block merges its columns (read rotated, so that a warp's reads hit
// distinct banks) and adds every non-zero bin to `counts` with one global atomic. With
// `replicas == 0` (the bins do not fit shared memory) the same warp-aggregated adds go
// straight to global memory. `counts` holds `bins` 32-bit words, or 64-bit ones when `wide`;
// shared counters are 32-bit, so the runtime sizes the grid for fewer than 2^32 elements per
// block. Indices are 64-bit throughout (inputs above 2^32 elements).
// The bin of index `x` of any integer type, or `bins` (the row of dropped values) outside
// [0, bins) (bins <= 65,536): a negative `x` converts to an unsigned value of at least 2^31 (2^63
// for 64-bit types), so one unsigned minimum, in 32 bits for types of up to 4 bytes, drops it too.
template <class B> static __device__ __forceinline__ unsigned wd_hist_index(B x, unsigned bins) {
    if (sizeof(B) <= 4) return min((unsigned)x, bins);
    return (wd_u64)x < (wd_u64)bins ? (unsigned)x : bins;
}

// The bin of a stage value, `bins` for a value dropped (not kept, or outside [0, bins)).
template <class St>
static __device__ __forceinline__ unsigned wd_hist_bin(const St& st, typename St::value_t v, bool keep, unsigned bins) {
    return keep ? wd_hist_index(wd_bin_of(st, v), bins) : bins;
}

// Adds one tile's bins `b` (`bins`: dropped) with `add(bin, amount)`, each slot's amount
// `w[k]` (1 for a count, the weight for a weighted histogram), grouping lanes by bin where
// `may_match` (warp-uniform; counts only) and the probe finds the tile crowded (the group's
// amount is its size); warp-convergent. `Trash`: `add` takes the row of dropped values too
// (the shared bins keep one, so that every lane adds without a branch); else dropped values
// are skipped.
template <bool Trash, class A, class Add>
static __device__ __forceinline__ void wd_hist_tile(const unsigned (&b)[WD_ITEMS], const A (&w)[WD_ITEMS], unsigned bins,
                                                    bool may_match, Add add) {
    const unsigned lane = threadIdx.x & 31u;
    bool crowded = false;
    if (may_match) {
        const unsigned below = __shfl_up_sync(WD_FULL_MASK, b[0], 1);
        const unsigned pairs = __ballot_sync(WD_FULL_MASK, lane != 0u && below == b[0] && b[0] != bins);
        crowded = __popc(pairs) >= WD_HIST_MATCH_MIN;
    }
    if (crowded) {
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) {
            const unsigned peers = __match_any_sync(WD_FULL_MASK, b[k]);
            if (b[k] != bins && lane == (unsigned)(__ffs(peers) - 1)) add(b[k], (A)__popc(peers));
        }
    } else {
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k)
            if (Trash || b[k] != bins) add(b[k], w[k]);
    }
}

// The amount of a counted value: 1 (a constant, so nothing is loaded).
struct wd_hist_count {
    __device__ __forceinline__ unsigned operator()(wd_u64) const { return 1u; }
};

// The amount of value i of a weighted histogram: its weight, read through the read-only path
// (the tile's weights are read in its slots' order, which the L1 serves).
template <class W> struct wd_hist_weight {
    const W* w;
    __device__ __forceinline__ W operator()(wd_u64 i) const { return __ldg(w + i); }
};

// `U` whole tiles of the warp, `t`, `t + step`, ..., read as vectors (wd_tile_load_vec,
// block.cuh), and their amounts `wt(i)`, every load in flight before the first tile is counted.
template <int U, bool Trash, class St, class Wt, class Add>
static __device__ __forceinline__ void wd_hist_whole(const St& st, wd_u64 t, wd_u64 step, unsigned bins, bool may_match,
                                                     Wt wt, Add add) {
    typedef wd_vec_layout<St> L;
    typedef decltype(wt(0)) A;
    const unsigned lane = threadIdx.x & 31u;
    typename St::elem_t raw[U][L::ROWS][L::VEC];
    A w[U][WD_ITEMS];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const wd_u64 base = (t + (wd_u64)u * step) * WD_TILE;
        wd_tile_load_vec<L>(st, base, raw[u]);
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) w[u][j] = wt(base + L::offset(j, lane));
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        unsigned b[WD_ITEMS];
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r)
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                const typename St::value_t v = st.value(raw[u][r][k]);
                b[r * L::VEC + k] = wd_hist_bin(st, v, st.keep(v), bins);
            }
        wd_hist_tile<Trash>(b, w[u], bins, may_match, add);
    }
}

// Tile `t` read element by element (the last, partial tile, or any tile of a misaligned view).
template <bool Trash, class St, class Wt, class Add>
static __device__ __forceinline__ void wd_hist_scalar(const St& st, wd_u64 t, unsigned bins, bool may_match, Wt wt,
                                                      Add add) {
    typedef decltype(wt(0)) A;
    const unsigned lane = threadIdx.x & 31u;
    typename St::value_t v[WD_ITEMS];
    bool keep[WD_ITEMS];
    wd_load_tile(st, t * WD_TILE, v, keep);
    unsigned b[WD_ITEMS];
    A w[WD_ITEMS];
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u64 i = t * WD_TILE + (wd_u64)k * 32u + lane;
        b[k] = wd_hist_bin(st, v[k], keep[k], bins);
        w[k] = i < st.n ? wt(i) : (A)0;
    }
    wd_hist_tile<Trash>(b, w, bins, may_match, add);
}

// Every tile of the warp's grid-stride share, its bins added with `add` (each value's amount
// `wt(i)`). Whole tiles of an aligned input are read as vectors, several tiles at a time
// (about 128 bytes per lane in flight); the last, partial tile (and every tile of a
// misaligned view) element by element.
template <bool Trash, class St, class Wt, class Add>
static __device__ __forceinline__ void wd_hist_tiles(const St& st, unsigned bins, bool may_match, Wt wt, Add add) {
    typedef wd_vec_layout<St> L;
    constexpr int U = L::ROWS >= 4 ? 2 : 8 / L::ROWS;
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 whole = st.n / WD_TILE;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    wd_u64 t = warp;
    // Tile bases are multiples of WD_TILE elements (of 512 bytes or more): all aligned or none.
    // Tiles that may take the match path go one at a time (that path is long; unrolled U
    // times it would only grow the kernel).
    if (st.aligned(0)) {
        if (!may_match)
            for (; t + (wd_u64)(U - 1) * nwarps < whole; t += (wd_u64)U * nwarps)
                wd_hist_whole<U, Trash>(st, t, nwarps, bins, false, wt, add);
        for (; t < whole; t += nwarps) wd_hist_whole<1, Trash>(st, t, nwarps, bins, may_match, wt, add);
    }
    for (; t < ntiles; t += nwarps) wd_hist_scalar<Trash>(st, t, bins, may_match, wt, add);
}

// The histogram of the stage's values into `counts` (zeroed by the caller). Shared bins take
// `replicas * (bins + 1)` words: the last row counts the dropped values, and is not merged.
template <class St>
static __device__ __forceinline__ void wd_histogram(const St& st, wd_u64 bins, unsigned replicas, unsigned wide,
                                                    unsigned char* counts) {
    unsigned* const c32 = (unsigned*)counts;
    unsigned long long* const c64 = (unsigned long long*)counts;
    const unsigned nb = (unsigned)bins;
    if (replicas == 0u) {
        wd_hist_tiles<false>(st, nb, true, wd_hist_count(), [&](unsigned j, unsigned c) {
            if (wide) atomicAdd(c64 + j, (unsigned long long)c);
            else atomicAdd(c32 + j, c);
        });
        return;
    }
    extern __shared__ unsigned wd_hist_shared[];
    const unsigned last = replicas - 1u;
    for (unsigned j = threadIdx.x; j < replicas * (nb + 1u); j += WD_BLOCK) wd_hist_shared[j] = 0u;
    __syncthreads();
    unsigned* const mine = wd_hist_shared + (threadIdx.x & last);
    wd_hist_tiles<true>(st, nb, replicas <= WD_HIST_MATCH_COLUMNS, wd_hist_count(),
                        [&](unsigned j, unsigned c) { atomicAdd(mine + j * replicas, c); });
    __syncthreads();
    for (unsigned j = threadIdx.x; j < nb; j += WD_BLOCK) {
        unsigned c = 0u;
        for (unsigned r = 0; r < replicas; ++r) c += wd_hist_shared[j * replicas + ((r + j) & last)];
        if (c == 0u) continue;
        if (wide) atomicAdd(c64 + j, (unsigned long long)c);
        else atomicAdd(c32 + j, c);
    }
}

// ---- weighted histograms ----
// The same pass with each value's weight `weights[i]` (of type W: f32, f64, i32, u32, i64 or
// u64) added to its bin instead of 1: `sums` (`bins` values of W, zeroed by the caller) gets each
// bin's sum of weights. Shared bins hold W, `replicas` columns each (as the counts'); lanes are
// never grouped by bin (each adds its own weight). Integer sums wrap; float sums are added in
// whatever order the atomics land (not deterministic in the last bits).
static __device__ __forceinline__ void wd_hist_atomic_add(float* p, float v) { atomicAdd(p, v); }
static __device__ __forceinline__ void wd_hist_atomic_add(double* p, double v) { atomicAdd(p, v); }
static __device__ __forceinline__ void wd_hist_atomic_add(int* p, int v) { atomicAdd(p, v); }
static __device__ __forceinline__ void wd_hist_atomic_add(unsigned* p, unsigned v) { atomicAdd(p, v); }
static __device__ __forceinline__ void wd_hist_atomic_add(unsigned long long* p, unsigned long long v) { atomicAdd(p, v); }
static __device__ __forceinline__ void wd_hist_atomic_add(long long* p, long long v) {
    atomicAdd((unsigned long long*)p, (unsigned long long)v);  // two's complement: the same bits
}

template <class St, class W>
static __device__ __forceinline__ void wd_histogram_weighted(const St& st, wd_u64 bins, unsigned replicas, const W* weights,
                                                             W* sums) {
    const unsigned nb = (unsigned)bins;
    const wd_hist_weight<W> wt{weights};
    if (replicas == 0u) {
        wd_hist_tiles<false>(st, nb, false, wt, [&](unsigned j, W w) { wd_hist_atomic_add(sums + j, w); });
        return;
    }
    extern __shared__ __align__(8) unsigned char wd_hist_weight_shared[];
    W* const shared = reinterpret_cast<W*>(wd_hist_weight_shared);
    const unsigned last = replicas - 1u;
    for (unsigned j = threadIdx.x; j < replicas * (nb + 1u); j += WD_BLOCK) shared[j] = (W)0;
    __syncthreads();
    W* const mine = shared + (threadIdx.x & last);
    wd_hist_tiles<true>(st, nb, false, wt, [&](unsigned j, W w) { wd_hist_atomic_add(mine + j * replicas, w); });
    __syncthreads();
    for (unsigned j = threadIdx.x; j < nb; j += WD_BLOCK) {
        W c = (W)0;
        for (unsigned r = 0; r < replicas; ++r) c += shared[j * replicas + ((r + j) & last)];
        if (c != (W)0) wd_hist_atomic_add(sums + j, c);
    }
}

// ---- histograms of weights combined by a #[reduce] operator ----
// The weighted pass with each bin's weights combined by the module's `Op` (of 4 or 8 bytes)
// instead of summed: shared bins start at Op::identity(), each lane combines its weight into its
// column with a compare-and-swap loop (`wd_atomic_combine`), the columns are combined and then
// into `sums` (`bins` values the caller set to the identity) the same way. The order in which
// weights meet is not fixed: exact for operators whose result does not depend on it (integer
// sums, min, max, bitwise), not deterministic in the last bits for float sums.
template <int B> struct wd_cas_word;
template <> struct wd_cas_word<4> { typedef unsigned int t; };
template <> struct wd_cas_word<8> { typedef unsigned long long t; };

// `*p = Op::combine(*p, v)` atomically, in global or shared memory (a CAS loop on the value's
// bits; no write when the value does not change).
template <class Op>
static __device__ __forceinline__ void wd_atomic_combine(typename Op::T* p, typename Op::T v) {
    typedef typename Op::T T;
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "wd_atomic_combine: values of 4 or 8 bytes");
    typedef typename wd_cas_word<sizeof(T)>::t W;
    W* const a = reinterpret_cast<W*>(p);
    W old = *reinterpret_cast<volatile W*>(a);
    while (true) {
        T cur;
        memcpy(&cur, &old, sizeof(T));
        const T next = Op::combine(cur, v);
        W word;
        memcpy(&word, &next, sizeof(T));
        if (word == old) return;
        const W seen = atomicCAS(a, old, word);
        if (seen == old) return;
        old = seen;
    }
}

template <class Op, class St>
static __device__ __forceinline__ void wd_histogram_reduce(const St& st, wd_u64 bins, unsigned replicas,
                                                           const typename Op::T* weights, typename Op::T* sums) {
    typedef typename Op::T T;
    const unsigned nb = (unsigned)bins;
    const wd_hist_weight<T> wt{weights};
    if (replicas == 0u) {
        wd_hist_tiles<false>(st, nb, false, wt, [&](unsigned j, T w) { wd_atomic_combine<Op>(sums + j, w); });
        return;
    }
    extern __shared__ __align__(8) unsigned char wd_hist_reduce_shared[];
    T* const shared = reinterpret_cast<T*>(wd_hist_reduce_shared);
    const unsigned last = replicas - 1u;
    for (unsigned j = threadIdx.x; j < replicas * (nb + 1u); j += WD_BLOCK) shared[j] = Op::identity();
    __syncthreads();
    T* const mine = shared + (threadIdx.x & last);
    wd_hist_tiles<true>(st, nb, false, wt, [&](unsigned j, T w) { wd_atomic_combine<Op>(mine + j * replicas, w); });
    __syncthreads();
    for (unsigned j = threadIdx.x; j < nb; j += WD_BLOCK) {
        T c = Op::identity();
        for (unsigned r = 0; r < replicas; ++r) c = Op::combine(c, shared[j * replicas + ((r + j) & last)]);
        wd_atomic_combine<Op>(sums + j, c);
    }
}

// 32-bit counts narrowed to counters of `width` bytes (1 or 2): each keeps the low bits, as a
// wrapping count of that width does.
static __device__ __forceinline__ void wd_hist_narrow(const unsigned* wide, wd_u64 bins, unsigned width, unsigned char* out) {
    const wd_u64 nthreads = (wd_u64)gridDim.x * WD_BLOCK;
    for (wd_u64 j = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; j < bins; j += nthreads) {
        if (width == 1u) out[j] = (unsigned char)wide[j];
        else ((unsigned short*)out)[j] = (unsigned short)wide[j];
    }
}
