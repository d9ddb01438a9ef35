// ---- warp-dsl map: the stage's value of every element written out ----
// Grid-stride over elements, WD_UNROLL independent coalesced loads in flight per thread, then
// their values stored (coalesced: consecutive threads, consecutive elements).
template <class St>
static __device__ __forceinline__ void wd_map_all(const St& st, typename St::value_t* out) {
    const wd_u64 n = st.n;
    const wd_u64 tid = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    const wd_u64 nthreads = (wd_u64)gridDim.x * WD_BLOCK;
    wd_u64 i = tid;
    for (; i + (WD_UNROLL - 1) * nthreads < n; i += WD_UNROLL * nthreads) {
        typename St::elem_t e[WD_UNROLL];
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) e[u] = st.load(i + u * nthreads);
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) out[i + u * nthreads] = st.make(e[u], i + u * nthreads);
    }
    for (; i < n; i += nthreads) out[i] = st.make(st.load(i), i);
}

// ---- warp-dsl scatter: each value to the place its index names ----
// Grid-stride like the map: WD_UNROLL indices (the stage's values) and values loaded per
// thread, coalesced, then each value stored where its index says; an index at or past
// `places` stores nothing (the runtime checked them all before the launch).
template <class St, class V>
static __device__ __forceinline__ void wd_scatter_all(const St& st, wd_u64 places, const V* values,
                                                      V* out) {
    const wd_u64 n = st.n;
    const wd_u64 tid = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    const wd_u64 nthreads = (wd_u64)gridDim.x * WD_BLOCK;
    wd_u64 i = tid;
    for (; i + (WD_UNROLL - 1) * nthreads < n; i += WD_UNROLL * nthreads) {
        wd_u64 at[WD_UNROLL];
        V v[WD_UNROLL];
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u) {
            at[u] = (wd_u64)st.make(st.load(i + u * nthreads), i + u * nthreads);
            v[u] = values[i + u * nthreads];
        }
#pragma unroll
        for (int u = 0; u < WD_UNROLL; ++u)
            if (at[u] < places) out[at[u]] = v[u];
    }
    for (; i < n; i += nthreads) {
        const wd_u64 at = (wd_u64)st.make(st.load(i), i);
        if (at < places) out[at] = values[i];
    }
}
