// ---- warp-dsl warp tiles: the layout and loads shared by predicates, compaction and scan ----
// Work is cut into warp tiles of 32 * WD_ITEMS elements: lane l of a warp holds the elements
// base + k * 32 + l (k < WD_ITEMS), so each ballot covers 32 consecutive elements and every
// loop is warp-uniform (full-mask votes are always valid; lanes past n vote false).
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
        e[k] = i < st.n ? st.load(i) : st.at(0);
    }
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        v[k] = st.value(e[k]);
        keep[k] = i < st.n && st.keep(v[k]);
    }
}

// The same tile read as vectors (16 bytes of the widest array at a time): slot j = r * VEC + k of lane l holds element
// base + (r * 32 + l) * VEC + k (r < ITEMS / VEC). Used, when the tile is whole and aligned,
// by the operations that do not need a ballot to cover 32 consecutive elements. ITEMS (the
// slots of a lane) is WD_ITEMS but where a warp takes several warp tiles at once (the scan).
template <class St, int ITEMS = WD_ITEMS> struct wd_vec_layout {
    static_assert(St::VEC <= ITEMS, "a vector holds at most ITEMS elements");
    static constexpr int VEC = St::VEC;
    static constexpr int ROWS = ITEMS / VEC;
    static constexpr int TILE = 32 * ITEMS;
    // Where slot j of `lane` is, from the warp tile's first element.
    static __device__ __forceinline__ unsigned offset(int j, unsigned lane) {
        return ((unsigned)(j / VEC) * 32u + lane) * VEC + (unsigned)(j % VEC);
    }
};
template <class St>
static __device__ __forceinline__ bool wd_tile_vectorizable(const St& st, wd_u64 base, wd_u64 tile = WD_TILE) {
    return base + tile <= st.n && st.aligned(base);
}
template <class St>
static __device__ __forceinline__ void wd_load_tile_vec(const St& st, wd_u64 base, typename St::value_t (&v)[WD_ITEMS],
                                                        bool (&keep)[WD_ITEMS]) {
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u;
    typename St::elem_t raw[L::ROWS][L::VEC];
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) st.load_vec(base + ((wd_u64)r * 32u + lane) * L::VEC, raw[r]);
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
#pragma unroll
        for (int k = 0; k < L::VEC; ++k) {
            v[r * L::VEC + k] = st.value(raw[r][k]);
            keep[r * L::VEC + k] = st.keep(v[r * L::VEC + k]);
        }
    }
}
