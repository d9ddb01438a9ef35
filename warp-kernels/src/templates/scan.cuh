// ---- warp-dsl scan: thread scan, __shfl_up_sync warp scan, block scan, single-pass look-back ----
// Layout (as the predicates' 16-byte tiles): in a warp tile of 32 * WD_ITEMS elements, slot
// j = r * VEC + k of lane l is element base + (r * 32 + l) * VEC + k. Each row of 32 * VEC
// consecutive elements is scanned by a thread scan of VEC values and a warp scan of the lane
// totals; rows are chained by a running carry; warps are chained by the block scan and blocks
// by the tile prefix. Every combine is in element order (the operator need not commute), and
// every value enters as combine(identity, value), as the CPU's fold does.
//
// Modes: WD_SCAN_LOOK_BACK, one pass with decoupled look-back (exact for integer operators,
// whose result does not depend on how the look-back groups tiles); for floats, whose rounding
// does, the deterministic three passes: WD_SCAN_AGGREGATES stores each tile's aggregate,
// wd_scan_tiles scans them in a fixed order, WD_SCAN_GIVEN rescans each tile from its prefix.
// (The mode values are defined by warp_kernels::catalogue::ScanMode.)
#define WD_HAVE_SCAN 1

// One block tile of the scan; `prefix_of` gives the tile's exclusive prefix (see lookback.cuh).
template <class Op, class St, class P>
static __device__ __forceinline__ void wd_scan_tile(const St& st, typename Op::T* out, bool exclusive, const P& prefix_of,
                                                    wd_u64 tile, bool write) {
    typedef typename Op::T T;
    typedef typename St::elem_t E;
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
    const wd_u64 ntiles = (st.n + block_tile - 1) / block_tile;
    const wd_u64 base = tile * block_tile + (wd_u64)warp * WD_TILE;
    const bool whole = wd_tile_vectorizable(st, base);
    T v[WD_ITEMS];
    if (whole) {
        E raw[L::ROWS][L::VEC];
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) st.load_vec(base + ((wd_u64)r * 32u + lane) * L::VEC, raw[r]);
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r)
#pragma unroll
            for (int k = 0; k < L::VEC; ++k)
                v[r * L::VEC + k] =
                    Op::combine(Op::identity(), st.make(raw[r][k], base + ((wd_u64)r * 32u + lane) * L::VEC + (wd_u64)k));
    } else {
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) {
            const wd_u64 i = base + ((wd_u64)(j / L::VEC) * 32u + lane) * L::VEC + (wd_u64)(j % L::VEC);
            v[j] = i < st.n ? Op::combine(Op::identity(), st.make(st.load(i), i)) : Op::identity();
        }
    }
    // Rows: thread scan, warp scan of lane totals, then each slot's prefix within the tile.
    T carry = Op::identity();
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
#pragma unroll
        for (int k = 1; k < L::VEC; ++k) v[r * L::VEC + k] = Op::combine(v[r * L::VEC + k - 1], v[r * L::VEC + k]);
        const T lane_incl = wd_warp_scan<Op>(v[r * L::VEC + L::VEC - 1]);
        const T up = wd_shfl_up(lane_incl, 1u);
        const T row_total = wd_shfl_idx(lane_incl, 31);
        const T pre = lane == 0 ? carry : Op::combine(carry, up);
        if (exclusive) {
#pragma unroll
            for (int k = L::VEC - 1; k > 0; --k) v[r * L::VEC + k] = Op::combine(pre, v[r * L::VEC + k - 1]);
            v[r * L::VEC] = pre;
        } else {
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) v[r * L::VEC + k] = Op::combine(pre, v[r * L::VEC + k]);
        }
        carry = Op::combine(carry, row_total);
    }
    const T prefix = wd_block_tile_prefix<Op>(prefix_of, tile, carry, ntiles, (T*)nullptr);
    if (!write) return;
#pragma unroll
    for (int j = 0; j < WD_ITEMS; ++j) v[j] = Op::combine(prefix, v[j]);
    bool stored = false;
    if constexpr (L::VEC * sizeof(T) == 16) {
        if (whole && (((wd_u64)(out + base)) & 15u) == 0) {
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r) {
                wd_vec<T, L::VEC> w;
#pragma unroll
                for (int k = 0; k < L::VEC; ++k) w.e[k] = v[r * L::VEC + k];
                __stcs(reinterpret_cast<uint4*>(out + base + ((wd_u64)r * 32u + lane) * L::VEC), w.raw);
            }
            stored = true;
        }
    }
    if (!stored) {
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) {
            const wd_u64 i = base + ((wd_u64)(j / L::VEC) * 32u + lane) * L::VEC + (wd_u64)(j % L::VEC);
            if (i < st.n) out[i] = v[j];
        }
    }
}

// The scan kernel's body: this block's tile in `mode`. `status` is the look-back status
// (WD_SCAN_LOOK_BACK) or the array of tile aggregates / prefixes (the other modes).
template <class Op, class St>
static __device__ __forceinline__ void wd_scan(const St& st, typename Op::T* out, bool exclusive, unsigned mode,
                                               unsigned char* status, unsigned int* queue) {
    typedef typename Op::T T;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
    const wd_u64 ntiles = (st.n + block_tile - 1) / block_tile;
    const wd_u64 tile = wd_tile_index(queue);
    if (mode == WD_SCAN_LOOK_BACK) {
        const wd_prefix_look_back<Op, wd_tile_status<T>> p{wd_tile_status<T>(status, ntiles)};
        wd_scan_tile<Op>(st, out, exclusive, p, tile, true);
    } else if (mode == WD_SCAN_AGGREGATES) {
        const wd_prefix_store_aggregate<Op> p{(T*)status};
        wd_scan_tile<Op>(st, out, exclusive, p, tile, false);
    } else {
        const wd_prefix_given<Op> p{(const T*)status};
        wd_scan_tile<Op>(st, out, exclusive, p, tile, true);
    }
}

// Exclusive scan, in place, of `n` tile aggregates by one block, in a fixed order: each thread
// folds 16 consecutive values, the block scans the thread totals (warp scans, then the warp
// totals), and a carry chains the chunks.
template <class Op> static __device__ __forceinline__ void wd_scan_tiles(typename Op::T* vals, wd_u64 n) {
    typedef typename Op::T T;
    __shared__ T warp_totals[WD_BLOCK / 32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    T carry = Op::identity();
    for (wd_u64 base = 0; base < n; base += (wd_u64)WD_BLOCK * 16u) {
        const wd_u64 mine = base + (wd_u64)threadIdx.x * 16u;
        T x[16];
        T total = Op::identity();
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            x[k] = mine + k < n ? vals[mine + k] : Op::identity();
            total = Op::combine(total, x[k]);
        }
        const T incl = wd_warp_scan<Op>(total);
        if (lane == 31) warp_totals[warp] = incl;
        __syncthreads();
        T warp_pre = Op::identity();
        for (unsigned w = 0; w < warp; ++w) warp_pre = Op::combine(warp_pre, warp_totals[w]);
        T chunk_total = Op::identity();
        for (unsigned w = 0; w < WD_BLOCK / 32; ++w) chunk_total = Op::combine(chunk_total, warp_totals[w]);
        const T up = wd_shfl_up(incl, 1u);
        T run = Op::combine(carry, lane == 0 ? warp_pre : Op::combine(warp_pre, up));
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            if (mine + k < n) vals[mine + k] = run;
            run = Op::combine(run, x[k]);
        }
        carry = Op::combine(carry, chunk_total);
        __syncthreads();
    }
}
