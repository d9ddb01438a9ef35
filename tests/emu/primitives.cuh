// Test kernels of the warp and block primitives (warp-kernels/src/templates/warp.cuh, block.cuh):
// one kernel per primitive, run by one block of WD_BLOCK threads, reading 32-bit words `in` and
// writing 32-bit words `out` that warp_tests::primitives checks against plain Rust. Appended to
// the constants, prelude, warp.cuh, warp_intrinsics.cuh and block.cuh (warp_tests::primitives::
// source); compiled by NVRTC (nvrtc_compile.rs, gpu_primitives.rs) and by g++ through
// tests/emu/shim.h (emu_primitives.rs, with tests/emu/primitives_main.cpp).

// The kernels, for the emulation's driver.
#define WD_T_KERNELS(X)                                                                            \
    X(wd_t_warp_reduce)                                                                            \
    X(wd_t_warp_allreduce)                                                                         \
    X(wd_t_warp_fold_back)                                                                         \
    X(wd_t_warp_scan)                                                                              \
    X(wd_t_warp_seg_scan)                                                                          \
    X(wd_t_ballot_rank)                                                                            \
    X(wd_t_lower_bound)                                                                            \
    X(wd_t_block_reduce)                                                                           \
    X(wd_t_block_scan)                                                                             \
    X(wd_t_block_warp_totals)                                                                      \
    X(wd_t_radix)                                                                                  \
    X(wd_t_bitonic)                                                                                \
    X(wd_t_merge_sort)                                                                             \
    X(wd_t_bitonic_words)                                                                          \
    X(wd_t_tiles)                                                                                  \
    X(wd_t_tiles_striped)

#define WD_T_KERNEL(NAME)                                                                          \
    extern "C" __global__ void __launch_bounds__(WD_BLOCK) NAME(const wd_u32* in, wd_u32* out, wd_u32 n, wd_u32 arg)

// Operations: u32 addition (redux.sync add on sm_80+), i32 maximum (redux.sync max), and the
// composition of affine maps x -> a x + b modulo 2^32 (associative, not commutative: it checks
// that every combine is in order).
struct wd_t_add {
    typedef wd_u32 T;
    static constexpr int redux = WD_REDUX_ADD;
    static __device__ __forceinline__ T identity() { return 0u; }
    static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
};
struct wd_t_max {
    typedef wd_i32 T;
    static constexpr int redux = WD_REDUX_MAX;
    static __device__ __forceinline__ T identity() { return -2147483647 - 1; }
    static __device__ __forceinline__ T combine(T a, T b) { return a > b ? a : b; }
};
struct wd_t_pair {
    wd_u32 a, b;
};
#define WD_T_PAIR_SHFL(NAME, ARG)                                                                  \
    WD_DEV wd_t_pair NAME(wd_t_pair x, ARG o) {                                                    \
        x.a = NAME(x.a, o);                                                                        \
        x.b = NAME(x.b, o);                                                                        \
        return x;                                                                                  \
    }
WD_T_PAIR_SHFL(wd_shfl_down, unsigned)
WD_T_PAIR_SHFL(wd_shfl_up, unsigned)
WD_T_PAIR_SHFL(wd_shfl_xor, int)
WD_T_PAIR_SHFL(wd_shfl_idx, int)
struct wd_t_aff {
    typedef wd_t_pair T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() {
        T t;
        t.a = 1u;
        t.b = 0u;
        return t;
    }
    // x then y: a_y (a_x v + b_x) + b_y.
    static __device__ __forceinline__ T combine(T x, T y) {
        T t;
        t.a = x.a * y.a;
        t.b = x.b * y.a + y.b;
        return t;
    }
};
WD_DEV wd_t_pair wd_t_load(const wd_u32* in, wd_u32 i) {
    wd_t_pair p;
    p.a = in[2u * i];
    p.b = in[2u * i + 1u];
    return p;
}
WD_DEV void wd_t_store(wd_u32* out, wd_u32 i, wd_t_pair p) {
    out[2u * i] = p.a;
    out[2u * i + 1u] = p.b;
}

// Warp reduce (arg 0: u32 add, 1: i32 max, 2: u64 add through shuffles) of in[t] (u64 words for
// arg 2): out[warp], lane 0's (a u64 for arg 2).
WD_T_KERNEL(wd_t_warp_reduce) {
    const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
    if (arg == 0) {
        const wd_u32 v = wd_warp_reduce<wd_t_add>(in[t]);
        if (lane == 0) out[warp] = v;
    } else if (arg == 1) {
        const wd_i32 v = wd_warp_reduce<wd_t_max>((wd_i32)in[t]);
        if (lane == 0) out[warp] = (wd_u32)v;
    } else {
        const wd_u64 v = wd_warp_reduce<wd_op_count>(((const wd_u64*)in)[t]);
        if (lane == 0) ((wd_u64*)out)[warp] = v;
    }
}

// All-reduce (addition) within groups of arg lanes: out[t].
WD_T_KERNEL(wd_t_warp_allreduce) {
    const unsigned t = threadIdx.x;
    wd_u32 v = in[t];
    switch (arg) {
    case 1: v = wd_warp_allreduce<wd_t_add, 1>(v); break;
    case 2: v = wd_warp_allreduce<wd_t_add, 2>(v); break;
    case 4: v = wd_warp_allreduce<wd_t_add, 4>(v); break;
    case 8: v = wd_warp_allreduce<wd_t_add, 8>(v); break;
    case 16: v = wd_warp_allreduce<wd_t_add, 16>(v); break;
    default: v = wd_warp_allreduce<wd_t_add>(v); break;
    }
    out[t] = v;
}

// Ordered fold, higher lanes first (affine): out[t], every lane's.
WD_T_KERNEL(wd_t_warp_fold_back) {
    const unsigned t = threadIdx.x;
    wd_t_store(out, t, wd_warp_fold_back<wd_t_aff>(wd_t_load(in, t)));
}

// Warp scans (affine) of pairs in[t]: out[3t] inclusive, out[3t + 1] exclusive, out[3t + 2]
// exclusive after the warp's seed (pair WD_BLOCK + warp of in).
WD_T_KERNEL(wd_t_warp_scan) {
    const unsigned t = threadIdx.x, warp = t >> 5;
    const wd_t_pair incl = wd_warp_scan<wd_t_aff>(wd_t_load(in, t));
    wd_t_store(out, 3u * t, incl);
    wd_t_store(out, 3u * t + 1u, wd_warp_exclusive<wd_t_aff>(incl));
    wd_t_store(out, 3u * t + 2u, wd_warp_exclusive<wd_t_aff>(incl, wd_t_load(in, WD_BLOCK + warp)));
}

// Segmented warp scan (affine) of pairs in[t], segments starting where bit 0 of word
// 2 WD_BLOCK + t is set: out[t].
WD_T_KERNEL(wd_t_warp_seg_scan) {
    const unsigned t = threadIdx.x;
    const wd_u32 flags = __ballot_sync(WD_FULL_MASK, (in[2u * WD_BLOCK + t] & 1u) != 0u);
    wd_t_store(out, t, wd_warp_seg_scan<wd_t_aff>(flags, wd_t_load(in, t)));
}

// Ballot ranks of lane flags f[k] = bit 0 of in[8t + k]: out[6t ..] = (below, total) of the rows
// of VEC 4 at f[4..8), of VEC 2 at f[0..2), and of the one flag f[0].
WD_T_KERNEL(wd_t_ballot_rank) {
    const unsigned t = threadIdx.x;
    bool f[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) f[k] = (in[8u * t + k] & 1u) != 0u;
    const wd_u32 below = wd_lanes_below();
    const wd_rank r4 = wd_ballot_rank<4>(f, 4, below), r2 = wd_ballot_rank<2>(f, 0, below), r1 = wd_ballot_rank(f[0], below);
    out[6u * t] = r4.below;
    out[6u * t + 1u] = r4.total;
    out[6u * t + 2u] = r2.below;
    out[6u * t + 3u] = r2.total;
    out[6u * t + 4u] = r1.below;
    out[6u * t + 5u] = r1.total;
}

// Lower bound of each of `arg` u64 queries (after the n sorted u64 offsets in `in`) among the
// offsets: out[q] (u64), warp w taking queries w, w + 8, ...
WD_T_KERNEL(wd_t_lower_bound) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64* offsets = (const wd_u64*)in;
    const wd_u64* queries = offsets + n;
    for (wd_u32 q = warp; q < arg; q += WD_BLOCK / 32) {
        const wd_u64 at = wd_warp_lower_bound(offsets, n, queries[q]);
        if (lane == 0) {
            out[2u * q] = (wd_u32)at;
            out[2u * q + 1u] = (wd_u32)(at >> 32);
        }
    }
}

// Block reduce (arg 0: u32 add, 1: i32 max, 2: u64 add through shuffles) of in[t] (u64 words for
// arg 2): out[0] (a u64 for arg 2).
WD_T_KERNEL(wd_t_block_reduce) {
    const unsigned t = threadIdx.x;
    if (arg == 0) {
        const wd_u32 v = wd_block_reduce<wd_t_add>(in[t]);
        if (t == 0) out[0] = v;
    } else if (arg == 1) {
        const wd_i32 v = wd_block_reduce<wd_t_max>((wd_i32)in[t]);
        if (t == 0) out[0] = (wd_u32)v;
    } else {
        const wd_u64 v = wd_block_reduce<wd_op_count>(((const wd_u64*)in)[t]);
        if (t == 0) ((wd_u64*)out)[0] = v;
    }
}

// Block scans (affine) of pairs in[t]: out[2t] inclusive, out[2t + 1] exclusive; pairs
// 2 WD_BLOCK and 2 WD_BLOCK + 1 the totals the two scans gave.
WD_T_KERNEL(wd_t_block_scan) {
    __shared__ wd_t_pair slots[WD_BLOCK / 32];
    const unsigned t = threadIdx.x;
    const wd_t_pair v = wd_t_load(in, t);
    wd_t_pair total_i, total_e;
    const wd_t_pair incl = wd_block_scan<wd_t_aff, false>(v, slots, total_i);
    const wd_t_pair excl = wd_block_scan<wd_t_aff, true>(v, slots, total_e);
    wd_t_store(out, 2u * t, incl);
    wd_t_store(out, 2u * t + 1u, excl);
    if (t == 0) {
        wd_t_store(out, 2u * WD_BLOCK, total_i);
        wd_t_store(out, 2u * WD_BLOCK + 1u, total_e);
    }
}

// The scan of warp totals by warp 0 (affine): warp w's total is pair w of `in`; out[w] the
// exclusive prefixes left in the slots, out[WD_BLOCK / 32] the aggregate.
WD_T_KERNEL(wd_t_block_warp_totals) {
    __shared__ wd_t_pair slots[WD_BLOCK / 32];
    __shared__ wd_t_pair aggregate;
    const unsigned t = threadIdx.x, lane = t & 31u, warp = t >> 5;
    if (lane == 0) slots[warp] = wd_t_load(in, warp);
    __syncthreads();
    if (warp == 0) {
        const wd_t_pair a = wd_block_scan_warp_totals<wd_t_aff>(slots);
        if (lane == 0) aggregate = a;
    }
    __syncthreads();
    if (t < WD_BLOCK / 32) wd_t_store(out, t, slots[t]);
    if (t == 0) wd_t_store(out, WD_BLOCK / 32, aggregate);
}

// Radix digit histogram and pick of the n (at most 1024) keys in `in`, counting those that are
// not multiples of 3, digit (key >> shift) & 255 with shift = arg & 31, the rank-th entry
// (rank = arg >> 8) in descending digit order when bit 5 of arg is set: out[0 .. 256) the
// histogram, out[256 .. 260) the pick (digit, rank, bin, total; 0xFFFFFFFF where not set).
WD_T_KERNEL(wd_t_radix) {
    __shared__ wd_u32 keys[1024];
    __shared__ wd_u32 hist[256];
    __shared__ wd_u64 slots[WD_BLOCK / 32];
    __shared__ wd_radix_pick pick;
    const unsigned t = threadIdx.x, shift = arg & 31u;
    const bool descending = ((arg >> 5) & 1u) != 0u;
    for (wd_u32 j = t; j < n; j += WD_BLOCK) keys[j] = in[j];
    if (t == 0) pick.digit = pick.rank = pick.bin = pick.total = 0xFFFFFFFFu;
    wd_block_digit_histogram(hist, n, [&](wd_u32 j, wd_u32& d) {
        d = (keys[j] >> shift) & 255u;
        return keys[j] % 3u != 0u;
    });
    wd_block_radix_pick(hist, arg >> 8, descending, slots, pick);
    for (wd_u32 j = t; j < 256u; j += WD_BLOCK) out[j] = hist[j];
    if (t == 0) {
        out[256] = pick.digit;
        out[257] = pick.rank;
        out[258] = pick.bin;
        out[259] = pick.total;
    }
}

// Sort of the n (at most 1024) keys in `in` with their indices: by key descending (arg bit 0
// clear) or ascending (set), ties by index ascending; by wd_block_sort (arg bit 1 set: by rank,
// or the network in registers) or by the shared-memory network wd_block_bitonic_sort (clear).
// out[2j], out[2j + 1]: entry j's key, index.
WD_T_KERNEL(wd_t_bitonic) {
    __shared__ wd_u32 key[1024];
    __shared__ wd_u32 idx[1024];
    const unsigned t = threadIdx.x;
    const bool ascending = (arg & 1u) != 0u;
    const wd_u32 pad = ascending ? 0xFFFFFFFFu : 0u;
    auto before = [ascending](wd_u32 ka, wd_u32 ia, wd_u32 kb, wd_u32 ib) {
        return (ascending ? ka < kb : ka > kb) || (ka == kb && ia < ib);
    };
    if ((arg & 2u) != 0u) {
        for (wd_u32 j = t; j < n; j += WD_BLOCK) {
            key[j] = in[j];
            idx[j] = j;
        }
        __syncthreads();
        wd_block_sort(key, idx, n, pad, 0xFFFFFFFFu, before);
    } else {
        wd_u32 p = 1;
        while (p < n) p <<= 1;
        for (wd_u32 j = t; j < p; j += WD_BLOCK) {
            key[j] = j < n ? in[j] : pad;
            idx[j] = j < n ? j : 0xFFFFFFFFu;
        }
        __syncthreads();
        wd_block_bitonic_sort(key, idx, p, before);
    }
    for (wd_u32 j = t; j < n; j += WD_BLOCK) {
        out[2u * j] = key[j];
        out[2u * j + 1u] = idx[j];
    }
}

// Merge sort of the n (at most WD_BLOCK * 5) keys in `in` by wd_block_merge_sort, 5 keys a
// thread: stably by the key's top byte, each key's index moving with it as its position (arg
// 0), or by the whole key with UNSTABLE (arg 1, a full tile: n = WD_BLOCK * 5). out[2j],
// out[2j + 1]: entry j's key and its index (0 for arg 1).
WD_T_KERNEL(wd_t_merge_sort) {
    constexpr int ITEMS = 5;
    __shared__ wd_u32 tile[WD_BLOCK * ITEMS];
    __shared__ wd_u32 tpos[WD_BLOCK * ITEMS];
    const wd_u32 mine = threadIdx.x * ITEMS;
    wd_u32 k[ITEMS], p[ITEMS];
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 i = mine + (wd_u32)j;
        k[j] = i < n ? in[i] : 0xFFFFFFFFu;
        p[j] = i;
    }
    if (arg == 1u)
        wd_block_merge_sort<ITEMS, true>([](const wd_u32& x, const wd_u32& y) { return x < y; }, tile, tpos, n, k, p, false);
    else
        wd_block_merge_sort<ITEMS>([](const wd_u32& x, const wd_u32& y) { return (x >> 24) < (y >> 24); }, tile, tpos, n, k, p, true);
    for (wd_u32 j = threadIdx.x; j < n; j += WD_BLOCK) {
        out[2u * j] = tile[j];
        out[2u * j + 1u] = arg == 1u ? 0u : tpos[j];
    }
}

// Bitonic sort of words in registers by wd_block_bitonic_words: each group of 128 threads
// sorts its 4,096 words of `in` (group g: words 4096 g ..; n at most 4096 * WD_BLOCK / 128,
// the largest word past n), a thread's register r taken from layout L's place, and writes the
// sorted words below n to the same places of `out`.
WD_T_KERNEL(wd_t_bitonic_words) {
    constexpr unsigned GROUPS = WD_BLOCK / 128u;
    __shared__ wd_u32 tile[GROUPS][4096 + 128];
    const wd_u32 g = threadIdx.x / 128u, w = threadIdx.x >> 5 & 3u, l = threadIdx.x & 31u;
    wd_u32 k[32];
    for (int r = 0; r < 32; ++r) {
        const wd_u32 i = g * 4096u + w * 1024u + l * 32u + (wd_u32)r;
        k[r] = i < n ? in[i] : 0xFFFFFFFFu;
    }
    wd_block_bitonic_words(tile[g], k);
    for (int r = 0; r < 32; ++r) {
        const wd_u32 i = g * 4096u + w * 1024u + (wd_u32)r * 32u + l;
        if (i < n) out[i] = k[r];
    }
}

// A stage of one u32 array (what a module's stage provides to the tile primitives).
struct wd_t_stage {
    typedef wd_u32 elem_t;
    static constexpr int VEC = 4;
    const wd_u32* p;
    wd_u64 n;
    __device__ __forceinline__ wd_u32 load(wd_u64 i) const { return p[i]; }
    __device__ __forceinline__ wd_u32 at(wd_u64 i) const { return p[i]; }
    __device__ __forceinline__ void load_vec(wd_u64 i, wd_u32 (&e)[4]) const {
        const uint4 v = *reinterpret_cast<const uint4*>(p + i);
        e[0] = v.x;
        e[1] = v.y;
        e[2] = v.z;
        e[3] = v.w;
    }
    __device__ __forceinline__ bool aligned(wd_u64 i) const { return (((wd_u64)(p + i)) & 15u) == 0; }
};

// Copies n words from in + (arg & 3) to out + (arg >> 2) through warp tiles of the vector
// layout: whole aligned tiles by wd_tile_load_vec, others element by element; every tile by
// wd_tile_store (as vectors where the output is aligned too).
WD_T_KERNEL(wd_t_tiles) {
    typedef wd_vec_layout<wd_t_stage> L;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    wd_t_stage st;
    st.p = in + (arg & 3u);
    st.n = n;
    wd_u32* const o = out + (arg >> 2);
    for (wd_u64 base = (wd_u64)warp * L::TILE; base < n; base += (wd_u64)(WD_BLOCK / 32) * L::TILE) {
        const bool whole = base + L::TILE <= n && st.aligned(base);
        wd_u32 w[L::SLOTS];
        if (whole) {
            wd_u32 raw[L::ROWS][L::VEC];
            wd_tile_load_vec<L>(st, base, raw);
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r)
#pragma unroll
                for (int k = 0; k < L::VEC; ++k) w[r * L::VEC + k] = raw[r][k];
        } else {
#pragma unroll
            for (int j = 0; j < L::SLOTS; ++j) {
                const wd_u64 i = base + L::offset(j, lane);
                w[j] = i < n ? st.load(i) : 0u;
            }
        }
        wd_tile_store<L>(o, base, (wd_u64)n, w, whole);
    }
}

// Copies n words from in + (arg & 3) to out + (arg >> 2) by striped loads of 8 a lane
// (wd_tile_load_striped).
WD_T_KERNEL(wd_t_tiles_striped) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    wd_t_stage st;
    st.p = in + (arg & 3u);
    st.n = n;
    wd_u32* const o = out + (arg >> 2);
    for (wd_u64 base = (wd_u64)warp * 256u; base < n; base += (wd_u64)(WD_BLOCK / 32) * 256u) {
        wd_u32 e[8];
        wd_tile_load_striped<8>(st, base, e);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const wd_u64 i = base + (wd_u64)j * 32u + lane;
            if (i < n) o[i] = e[j];
        }
    }
}
