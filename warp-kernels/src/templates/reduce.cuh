// ---- warp-dsl reduction patterns: thread -> (warp -> block: warp.cuh, block.cuh) -> grid ----
// An operation `Op` provides: typedef T; identity(); combine(a, b); and `redux`, the
// __reduce_*_sync instruction that computes its warp reduction on sm_80+ (WD_REDUX_NONE if none).
// A source `Src` is a module's stage (see the stage struct the assembler writes): typedef
// elem_t, value_t; length `n`; VEC; load/at/load_vec/head; value_t make(elem_t e, wd_u64 index).

// The WD_REDUX_* values come from warp_kernels::patterns::Redux (the module's defines); the
// warp and block reduce (wd_warp_reduce<Op> of the chosen style, wd_block_reduce) come before
// this file (warp.cuh, the style's file, block.cuh).

// Fold N values as a balanced tree, left to right (v[k] always holds earlier elements than
// v[k + s]): N - 1 combines, but only log2(N) of them in a chain, so an operator with a long
// combine (a division, a Welford merge) keeps its latency off the loop's critical path.
template <class Op, unsigned N> static __device__ __forceinline__ typename Op::T wd_fold_tree(typename Op::T (&v)[N]) {
#pragma unroll
    for (unsigned s = 1; s < N; s <<= 1) {
#pragma unroll
        for (unsigned k = 0; k + s < N; k += 2 * s) v[k] = Op::combine(v[k], v[k + s]);
    }
    return v[0];
}

// Whether a stage reads no memory (a generated range: `GENERATED` in its readers).
template <class S, class = void> struct wd_generated {
    static constexpr bool value = false;
};
template <class S> struct wd_generated<S, decltype((void)S::GENERATED, void())> {
    static constexpr bool value = S::GENERATED;
};

// Thread reduce of a stage that reads no memory, where the map is the work (an f64 exp of
// every index): grid-stride over tiles of WD_BLOCK x WD_ITEMS indices, thread t making
// indices t, t + WD_BLOCK, .. of its block's tile, folded as a tree; the last partial tile by
// the one block whose turn it is. Few registers a value, so more warps a SM hide the map's
// latency (on an H200 the f64 Gauss integral ran at 0.75x CUB through the vector loop below,
// at CUB's speed so). Every index is folded exactly once, in an order fixed by (n, grid).
template <class Op, class Src> static __device__ __forceinline__ typename Op::T wd_thread_reduce_generated(const Src& src) {
    typedef typename Op::T T;
    const wd_u64 n = src.n;
    constexpr wd_u64 TILE = (wd_u64)WD_BLOCK * WD_ITEMS;
    T acc = Op::identity();
    wd_u64 base = (wd_u64)blockIdx.x * TILE;
    for (; base + TILE <= n; base += (wd_u64)gridDim.x * TILE) {
        T t[WD_ITEMS];
#pragma unroll
        for (int u = 0; u < WD_ITEMS; ++u) {
            const wd_u64 i = base + (wd_u64)u * WD_BLOCK + threadIdx.x;
            t[u] = src.make(src.at(i), i);
        }
        acc = Op::combine(acc, wd_fold_tree<Op>(t));
    }
    for (wd_u64 i = base + threadIdx.x; i < n; i += WD_BLOCK) acc = Op::combine(acc, src.make(src.at(i), i));
    return acc;
}

// Thread reduce: grid-stride over vectors (St::VEC elements of every array, 16 bytes of the
// widest), WD_UNROLL independent loads in flight per thread; the unaligned head and the tail
// (fewer than one vector each) are read element-wise, and so is everything when zipped arrays'
// alignments differ. Each step's WD_UNROLL x VEC values are folded as a tree (wd_fold_tree)
// and then into `acc`. Every element is folded exactly once, in an order fixed by (n, grid,
// alignment): deterministic.
template <class Op, class Src> static __device__ __forceinline__ typename Op::T wd_thread_reduce(const Src& src) {
    typedef typename Src::elem_t E;
    typedef typename Op::T T;
    if constexpr (wd_generated<Src>::value) return wd_thread_reduce_generated<Op>(src);
    constexpr unsigned VEC = Src::VEC;
    const wd_u64 n = src.n;
    const wd_u64 tid = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    const wd_u64 nthreads = (wd_u64)gridDim.x * WD_BLOCK;
    T acc = Op::identity();
    wd_u64 head = src.head(0);
    if (head == WD_NO_VEC) {
        wd_u64 i = tid;
        for (; i + (WD_UNROLL - 1) * nthreads < n; i += WD_UNROLL * nthreads) {
            E e[WD_UNROLL];
#pragma unroll
            for (int u = 0; u < WD_UNROLL; ++u) e[u] = src.load(i + u * nthreads);
            T t[WD_UNROLL];
#pragma unroll
            for (int u = 0; u < WD_UNROLL; ++u) t[u] = src.make(e[u], i + u * nthreads);
            acc = Op::combine(acc, wd_fold_tree<Op>(t));
        }
        for (; i < n; i += nthreads) acc = Op::combine(acc, src.make(src.load(i), i));
        return acc;
    }
    if (head > n) head = n;
    if (tid < head) acc = Op::combine(acc, src.make(src.at(tid), tid));
    const wd_u64 nvec = (n - head) / VEC;
    wd_u64 v = tid;
    for (; v + (WD_UNROLL - 1) * nthreads < nvec; v += WD_UNROLL * nthreads) {
        E r[WD_UNROLL][VEC];
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) src.load_vec(head + (v + u * nthreads) * VEC, r[u]);
        T t[WD_UNROLL * VEC];
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) {
            const wd_u64 base = head + (v + u * nthreads) * VEC;
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) t[u * VEC + k] = src.make(r[u][k], base + k);
        }
        acc = Op::combine(acc, wd_fold_tree<Op>(t));
    }
    for (; v < nvec; v += nthreads) {
        E r[VEC];
        src.load_vec(head + v * VEC, r);
        const wd_u64 base = head + v * VEC;
        T t[VEC];
#pragma unroll
        for (unsigned k = 0; k < VEC; ++k) t[k] = src.make(r[k], base + k);
        acc = Op::combine(acc, wd_fold_tree<Op>(t));
    }
    const wd_u64 t = head + nvec * VEC + tid;
    if (t < n) acc = Op::combine(acc, src.make(src.at(t), t));
    return acc;
}

// Tells a host waiting on a result in mapped host memory that the result is written: after a
// system-wide fence (the result's bytes reach the host first), sets its done word (null: the
// result stays on the device, nobody spins on it).
static __device__ __forceinline__ void wd_signal_done(unsigned int* done) {
    if (done != nullptr) {
        __threadfence_system();
        *(volatile unsigned int*)done = 1u;
    }
}

// Grid combine in one launch: every thread brings its value; the block combines them; each
// block writes its total to partials[blockIdx.x]; the last block to finish (atomic ticket)
// combines the partials in index order and writes *out (then signals `done`), then re-arms the
// ticket counter for the next launch. Deterministic for a given grid size.
template <class Op>
static __device__ __forceinline__ void wd_grid_combine(typename Op::T acc, typename Op::T* partials,
                                                       unsigned int* ticket, typename Op::T* out, unsigned int* done) {
    __shared__ bool am_last;
    acc = wd_block_reduce<Op>(acc);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) {
            *out = acc;
            wd_signal_done(done);
        }
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
        wd_signal_done(done);
    }
}

// Grid reduce: thread reduce, then the grid combine.
template <class Op, class Src>
static __device__ __forceinline__ void wd_reduce_grid(const Src& src, typename Op::T* partials,
                                                      unsigned int* ticket, typename Op::T* out, unsigned int* done) {
    wd_grid_combine<Op>(wd_thread_reduce<Op>(src), partials, ticket, out, done);
}
