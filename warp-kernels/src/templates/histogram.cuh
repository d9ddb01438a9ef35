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

// Adds one tile's bins `b` (`bins`: dropped) with `add(bin, count)`, grouping lanes by bin
// where `may_match` (warp-uniform) and the probe finds the tile crowded; warp-convergent.
// `Trash`: `add` takes the row of dropped values too (the shared bins keep one, so that every
// lane adds without a branch); else dropped values are skipped.
template <bool Trash, class Add>
static __device__ __forceinline__ void wd_hist_tile(const unsigned (&b)[WD_ITEMS], unsigned bins, bool may_match, Add add) {
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
            if (b[k] != bins && lane == (unsigned)(__ffs(peers) - 1)) add(b[k], (unsigned)__popc(peers));
        }
    } else {
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k)
            if (Trash || b[k] != bins) add(b[k], 1u);
    }
}

// `U` whole tiles of the warp, `t`, `t + step`, ..., read as vectors (wd_load_tile_vec's
// layout), every load in flight before the first tile is counted.
template <int U, bool Trash, class St, class Add>
static __device__ __forceinline__ void wd_hist_whole(const St& st, wd_u64 t, wd_u64 step, unsigned bins, bool may_match,
                                                     Add add) {
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u;
    typename St::elem_t raw[U][L::ROWS][L::VEC];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r)
            st.load_vec((t + (wd_u64)u * step) * WD_TILE + ((wd_u64)r * 32u + lane) * L::VEC, raw[u][r]);
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
        wd_hist_tile<Trash>(b, bins, may_match, add);
    }
}

// Tile `t` read element by element (the last, partial tile, or any tile of a misaligned view).
template <bool Trash, class St, class Add>
static __device__ __forceinline__ void wd_hist_scalar(const St& st, wd_u64 t, unsigned bins, bool may_match, Add add) {
    typename St::value_t v[WD_ITEMS];
    bool keep[WD_ITEMS];
    wd_load_tile(st, t * WD_TILE, v, keep);
    unsigned b[WD_ITEMS];
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) b[k] = wd_hist_bin(st, v[k], keep[k], bins);
    wd_hist_tile<Trash>(b, bins, may_match, add);
}

// Every tile of the warp's grid-stride share, its bins added with `add`. Whole tiles of an
// aligned input are read as vectors, several tiles at a time (about 128 bytes per lane in
// flight); the last, partial tile (and every tile of a misaligned view) element by element.
template <bool Trash, class St, class Add>
static __device__ __forceinline__ void wd_hist_tiles(const St& st, unsigned bins, bool may_match, Add add) {
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
            for (; t + (wd_u64)(U - 1) * nwarps < whole; t += (wd_u64)U * nwarps) wd_hist_whole<U, Trash>(st, t, nwarps, bins, false, add);
        for (; t < whole; t += nwarps) wd_hist_whole<1, Trash>(st, t, nwarps, bins, may_match, add);
    }
    for (; t < ntiles; t += nwarps) wd_hist_scalar<Trash>(st, t, bins, may_match, add);
}

// Few bins (at most WD_HIST_PRIVATE_BINS): every thread counts in bytes of its own, so an
// element costs a shared load and store (no atomic; no contention, whatever the data). Thread
// x's counter of bin j (bins + 1 of them, the last for dropped values) is byte j % 4 of word
// (j / 4) * WD_BLOCK + x: the lanes of a warp touch 32 consecutive words (distinct banks).
// Blocks take chunks of WD_HIST_EPOCH tiles per warp (at most 255 / WD_ITEMS, so that no byte
// overflows: each tile adds at most WD_ITEMS to one counter), then flush: each warp sums the
// bytes of some word rows over the block's threads (two bins per 32-bit lane of packed 16-bit
// sums, within 65,535), adds them to the block's 32-bit totals and clears the bytes. Totals
// then go to `counts` with one global atomic per non-zero bin.
template <class St>
static __device__ __forceinline__ void wd_hist_private(const St& st, unsigned nb, unsigned wide, unsigned char* counts) {
    typedef wd_vec_layout<St> L;
    constexpr int U = L::ROWS >= 4 ? 3 : 5;  // tiles in flight; divides WD_HIST_EPOCH
    constexpr unsigned WARPS = WD_BLOCK / 32u;
    static_assert(WD_HIST_EPOCH % U == 0 && WD_HIST_EPOCH * WD_ITEMS <= 255, "byte counters");
    extern __shared__ unsigned wd_hist_shared[];
    const unsigned rows = (nb + 4u) >> 2;  // words of counters per thread
    unsigned* const total = wd_hist_shared + rows * WD_BLOCK;
    for (unsigned j = threadIdx.x; j < rows * WD_BLOCK + nb + 1u; j += WD_BLOCK) wd_hist_shared[j] = 0u;
    __syncthreads();
    unsigned char* const mine = (unsigned char*)wd_hist_shared + threadIdx.x * 4u;
    // Byte (j / 4) * 4 * WD_BLOCK + j % 4 of `mine`, as one multiply-add.
    const auto add = [&](unsigned j, unsigned) { mine[(j & ~3u) * (WD_BLOCK - 1u) + j] += 1; };
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const wd_u64 whole = st.n / WD_TILE;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    const wd_u64 chunk = (wd_u64)WARPS * WD_HIST_EPOCH;
    const bool vec = st.aligned(0);
    for (wd_u64 first = (wd_u64)blockIdx.x * chunk; first < ntiles; first += (wd_u64)gridDim.x * chunk) {
        // This warp's tiles of the chunk: first + warp + i * WARPS, i < WD_HIST_EPOCH.
        wd_u64 t = first + warp;
        int i = 0;
        if (vec)
            for (; i < WD_HIST_EPOCH && t + (wd_u64)(U - 1) * WARPS < whole; i += U, t += (wd_u64)U * WARPS)
                wd_hist_whole<U, true>(st, t, WARPS, nb, false, add);
        for (; i < WD_HIST_EPOCH && t < ntiles; ++i, t += WARPS) {
            if (vec && t < whole) wd_hist_whole<1, true>(st, t, WARPS, nb, false, add);
            else wd_hist_scalar<true>(st, t, nb, false, add);
        }
        __syncthreads();
        for (unsigned q = warp; q < rows; q += WARPS) {
            unsigned lo = 0u, hi = 0u;  // bytes 0 and 2, bytes 1 and 3, as 16-bit sums
#pragma unroll
            for (unsigned r = 0; r < WARPS; ++r) {
                unsigned* const w = wd_hist_shared + q * WD_BLOCK + r * 32u + lane;
                const unsigned x = *w;
                *w = 0u;
                lo += x & 0x00ff00ffu;
                hi += (x >> 8) & 0x00ff00ffu;
            }
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) {
                lo += __shfl_xor_sync(WD_FULL_MASK, lo, o);
                hi += __shfl_xor_sync(WD_FULL_MASK, hi, o);
            }
            if (lane < 4u && q * 4u + lane <= nb) {
                const unsigned sum = lane & 1u ? hi : lo;
                total[q * 4u + lane] += lane & 2u ? sum >> 16 : sum & 0xffffu;
            }
        }
        __syncthreads();
    }
    for (unsigned j = threadIdx.x; j < nb; j += WD_BLOCK) {
        const unsigned c = total[j];
        if (c == 0u) continue;
        if (wide) atomicAdd((unsigned long long*)counts + j, (unsigned long long)c);
        else atomicAdd((unsigned*)counts + j, c);
    }
}

// The histogram of the stage's values into `counts` (zeroed by the caller). Shared bins take
// `replicas * (bins + 1)` words: the last row counts the dropped values, and is not merged.
// `replicas == WD_HIST_PRIVATE`: the private byte counters above.
template <class St>
static __device__ __forceinline__ void wd_histogram(const St& st, wd_u64 bins, unsigned replicas, unsigned wide,
                                                    unsigned char* counts) {
    unsigned* const c32 = (unsigned*)counts;
    unsigned long long* const c64 = (unsigned long long*)counts;
    const unsigned nb = (unsigned)bins;
    if (replicas == WD_HIST_PRIVATE) {
        wd_hist_private(st, nb, wide, counts);
        return;
    }
    if (replicas == 0u) {
        wd_hist_tiles<false>(st, nb, true, [&](unsigned j, unsigned c) {
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
    wd_hist_tiles<true>(st, nb, replicas <= WD_HIST_MATCH_COLUMNS, [&](unsigned j, unsigned c) { atomicAdd(mine + j * replicas, c); });
    __syncthreads();
    for (unsigned j = threadIdx.x; j < nb; j += WD_BLOCK) {
        unsigned c = 0u;
        for (unsigned r = 0; r < replicas; ++r) c += wd_hist_shared[j * replicas + ((r + j) & last)];
        if (c == 0u) continue;
        if (wide) atomicAdd(c64 + j, (unsigned long long)c);
        else atomicAdd(c32 + j, c);
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
