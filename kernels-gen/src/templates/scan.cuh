// ---- warp-dsl scan: thread scan, __shfl_up_sync warp scan, block scan, single-pass look-back ----
// Layout (as the predicates' 16-byte tiles): in a warp tile of 32 * WD_ITEMS elements, slot
// j = r * VEC + k of lane l is element base + (r * 32 + l) * VEC + k. Each row of 32 * VEC
// consecutive elements is scanned by a thread scan of VEC values and a warp scan of the lane
// totals; rows are chained by a running carry; warps are chained by the block scan and blocks
// by the decoupled look-back. Every combine is in element order: deterministic, and the
// operator need not commute.
template <class Op, class St>
static __device__ __forceinline__ void wd_scan(const St& st, typename Op::T* out, bool exclusive, unsigned char* status_mem,
                                               unsigned int* queue) {
    typedef typename Op::T T;
    typedef typename St::elem_t E;
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
    const wd_u64 ntiles = (st.n + block_tile - 1) / block_tile;
    const wd_tile_status<T> status(status_mem, ntiles);
    wd_u64 tile = wd_queue_first(queue);
    while (tile < ntiles) {
        const wd_u64 base = tile * block_tile + (wd_u64)warp * WD_TILE;
        const bool whole = wd_tile_vectorizable(st, base);
        T v[WD_ITEMS];
        if (whole) {
            wd_vec16<E> raw[L::ROWS];
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r)
                raw[r].raw = __ldcs(reinterpret_cast<const uint4*>(st.p + base + ((wd_u64)r * 32u + lane) * L::VEC));
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r)
#pragma unroll
                for (int k = 0; k < L::VEC; ++k)
                    v[r * L::VEC + k] = st.make(raw[r].e[k], base + ((wd_u64)r * 32u + lane) * L::VEC + (wd_u64)k);
        } else {
#pragma unroll
            for (int j = 0; j < WD_ITEMS; ++j) {
                const wd_u64 i = base + ((wd_u64)(j / L::VEC) * 32u + lane) * L::VEC + (wd_u64)(j % L::VEC);
                v[j] = i < st.n ? st.make(wd_ldcs(st.p + i), i) : Op::identity();
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
        wd_u64 next;
        const T prefix = wd_block_tile_prefix<Op>(status, tile, carry, ntiles, (T*)nullptr, queue, next);
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) v[j] = Op::combine(prefix, v[j]);
        bool stored = false;
        if constexpr (sizeof(T) == sizeof(E)) {
            if (whole && (((wd_u64)(out + base)) & 15u) == 0) {
#pragma unroll
                for (int r = 0; r < L::ROWS; ++r) {
                    wd_vec16<T> w;
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
        tile = next;
    }
}
