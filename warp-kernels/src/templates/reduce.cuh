// ---- warp-dsl reduction patterns: thread -> warp -> block -> grid, each written once ----
// An operation `Op` provides: typedef T; identity(); combine(a, b); and `redux`, the
// __reduce_*_sync instruction that computes its warp reduction on sm_80+ (WD_REDUX_NONE if none).
// A source `Src` provides: typedef elem_t, value_t; pointer `p`, length `n`;
// value_t make(elem_t e, wd_u64 index).

// The WD_REDUX_* values come from warp_kernels::patterns::Redux (the module's defines); the
// warp reduce (wd_warp_reduce<Op>) of the chosen style comes before this file.

// Block reduce: every warp reduces, lane 0 writes warpSums[warp], one barrier, warp 0 reduces
// the warp totals. All WD_BLOCK threads call it; thread 0 ends with the block's total.
template <class Op> static __device__ __forceinline__ typename Op::T wd_block_reduce(typename Op::T v) {
    __shared__ typename Op::T warpSums[32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    v = wd_warp_reduce<Op>(v);
    if (lane == 0) warpSums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (WD_BLOCK / 32) ? warpSums[lane] : Op::identity();
        v = wd_warp_reduce<Op>(v);
    }
    return v;
}

// One 16-byte vector of elements.
template <class E> union wd_vec16 {
    uint4 raw;
    E e[16 / sizeof(E)];
};

// Thread reduce: grid-stride over 16-byte vectors, WD_UNROLL independent loads in flight per
// thread; the unaligned head and the tail (fewer than one vector each) are read element-wise.
// Every element is folded into `acc` exactly once, in an order fixed by (n, grid): deterministic.
template <class Op, class Src> static __device__ __forceinline__ typename Op::T wd_thread_reduce(const Src& src) {
    typedef typename Src::elem_t E;
    typedef typename Op::T T;
    constexpr unsigned VEC = 16 / sizeof(E);
    const wd_u64 n = src.n;
    const wd_u64 tid = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    const wd_u64 nthreads = (wd_u64)gridDim.x * WD_BLOCK;
    T acc = Op::identity();
    wd_u64 head = ((16u - ((wd_u64)src.p & 15u)) & 15u) / sizeof(E);
    if (head > n) head = n;
    if (tid < head) acc = Op::combine(acc, src.make(src.p[tid], tid));
    const wd_u64 nvec = (n - head) / VEC;
    const uint4* pv = reinterpret_cast<const uint4*>(src.p + head);
    wd_u64 v = tid;
    for (; v + (WD_UNROLL - 1) * nthreads < nvec; v += WD_UNROLL * nthreads) {
        wd_vec16<E> r[WD_UNROLL];
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) r[u].raw = __ldcs(pv + v + u * nthreads);
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) {
            const wd_u64 base = head + (v + u * nthreads) * VEC;
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) acc = Op::combine(acc, src.make(r[u].e[k], base + k));
        }
    }
    for (; v < nvec; v += nthreads) {
        wd_vec16<E> r;
        r.raw = __ldcs(pv + v);
        const wd_u64 base = head + v * VEC;
#pragma unroll
        for (unsigned k = 0; k < VEC; ++k) acc = Op::combine(acc, src.make(r.e[k], base + k));
    }
    const wd_u64 t = head + nvec * VEC + tid;
    if (t < n) acc = Op::combine(acc, src.make(src.p[t], t));
    return acc;
}

// Grid combine in one launch: every thread brings its value; the block combines them; each
// block writes its total to partials[blockIdx.x]; the last block to finish (atomic ticket)
// combines the partials in index order and writes *out, then re-arms the ticket counter for
// the next launch. Deterministic for a given grid size.
template <class Op>
static __device__ __forceinline__ void wd_grid_combine(typename Op::T acc, typename Op::T* partials,
                                                       unsigned int* ticket, typename Op::T* out) {
    __shared__ bool am_last;
    acc = wd_block_reduce<Op>(acc);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = acc;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();
        am_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!am_last) return;
    __threadfence();
    acc = Op::identity();
    for (unsigned i = threadIdx.x; i < gridDim.x; i += WD_BLOCK) acc = Op::combine(acc, wd_ldcg(partials + i));
    acc = wd_block_reduce<Op>(acc);
    if (threadIdx.x == 0) {
        *out = acc;
        *ticket = 0u;
    }
}

// Grid reduce: thread reduce, then the grid combine.
template <class Op, class Src>
static __device__ __forceinline__ void wd_reduce_grid(const Src& src, typename Op::T* partials,
                                                      unsigned int* ticket, typename Op::T* out) {
    wd_grid_combine<Op>(wd_thread_reduce<Op>(src), partials, ticket, out);
}
