// ---- warp-dsl warp tiles: the stage's loads of a warp tile (values and keep flags) for predicates, runs, histogram ----
// Work is cut into warp tiles of 32 * WD_ITEMS elements: lane l of a warp holds the elements
// base + k * 32 + l (k < WD_ITEMS), so each ballot covers 32 consecutive elements and every
// loop is warp-uniform (full-mask votes are always valid; lanes past n vote false).
#define WD_TILE (32 * WD_ITEMS)

// Loads a warp tile's elements and their keep flags (striped: wd_tile_load_striped, block.cuh).
template <class St>
static __device__ __forceinline__ void wd_load_tile(const St& st, wd_u64 base, typename St::value_t (&v)[WD_ITEMS],
                                                    bool (&keep)[WD_ITEMS]) {
    const unsigned lane = threadIdx.x & 31u;
    typename St::elem_t e[WD_ITEMS];
    wd_tile_load_striped<WD_ITEMS>(st, base, e);
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        v[k] = st.value(e[k]);
        keep[k] = i < st.n && st.keep(v[k]);
    }
}

// The same tile read as vectors in the layout wd_vec_layout (block.cuh): slot j = r * VEC + k of
// lane l holds element base + (r * 32 + l) * VEC + k. Used, when the tile is whole and aligned,
// by the operations that do not need a ballot to cover 32 consecutive elements.
template <class St>
static __device__ __forceinline__ bool wd_tile_vectorizable(const St& st, wd_u64 base, wd_u64 tile = WD_TILE) {
    return base + tile <= st.n && st.aligned(base);
}
template <class St>
static __device__ __forceinline__ void wd_load_tile_vec(const St& st, wd_u64 base, typename St::value_t (&v)[WD_ITEMS],
                                                        bool (&keep)[WD_ITEMS]) {
    typedef wd_vec_layout<St> L;
    typename St::elem_t raw[L::ROWS][L::VEC];
    wd_tile_load_vec<L>(st, base, raw);
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
#pragma unroll
        for (int k = 0; k < L::VEC; ++k) {
            v[r * L::VEC + k] = st.value(raw[r][k]);
            keep[r * L::VEC + k] = st.keep(v[r * L::VEC + k]);
        }
    }
}
