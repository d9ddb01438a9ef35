// ---- warp-dsl scan: thread scan, warp scan (warp.cuh), block scan, single-pass tile prefix ----
// Layout (as the predicates' 16-byte tiles): in a warp tile of 32 * WD_ITEMS elements, slot
// j = r * VEC + k of lane l is element base + (r * 32 + l) * VEC + k. Each row of 32 * VEC
// consecutive elements is scanned by a thread scan of VEC values and a warp scan of the lane
// totals; rows are chained by a running carry; warps are chained by the block scan and blocks
// by the tile prefix. Every combine is in element order (the operator need not commute), and
// every value enters as combine(identity, value), as the CPU's fold does.
//
// Tile prefixes (the mode values are defined by warp_kernels::catalogue::ScanMode), all one
// pass: WD_SCAN_LOOK_BACK, decoupled look-back (exact operators: integers, whose result does
// not depend on how the look-back happens to group tiles); WD_SCAN_EXACT_SUM, the look-back
// over exact sums of the tiles' f32 aggregates (wd_prefix_exact_sum: f32 addition, the same
// bits every run); WD_SCAN_TREE, the fixed tree of wd_prefix_tree (other float operators: the
// same bits every run); WD_SCAN_PREDECESSOR, the predecessor's
// aggregate (segmented scans whose segments are at most a block tile long, so that every tile
// holds a segment head and its aggregate is all the next tile needs).
//
// Segmented scans run the same tile over (value, head) pairs with the segmented operator
// wd_seg_op: a head (the first element of a segment) restarts the fold. Heads come from a
// policy: none (the plain scan), every `cols`-th element (the rows of a row-major matrix), or
// CSR offsets.
#define WD_HAVE_SCAN 1

// A value and whether a segment starts at it (or, for a run of values, within it).
template <class T> struct wd_seg_val {
    T v;
    bool head;
};
#define WD_SEG_SHFL(NAME, ARG)                                                                 \
    template <class T> WD_DEV wd_seg_val<T> NAME(wd_seg_val<T> x, ARG o) {                     \
        x.v = NAME(x.v, o);                                                                    \
        x.head = NAME(x.head, o);                                                              \
        return x;                                                                              \
    }
WD_SEG_SHFL(wd_shfl_down, unsigned)
WD_SEG_SHFL(wd_shfl_up, unsigned)
WD_SEG_SHFL(wd_shfl_idx, int)
template <class T> WD_DEV wd_seg_val<T> wd_ldcg(const wd_seg_val<T>* p) {
    wd_seg_val<T> x;
    x.v = wd_ldcg(&p->v);
    x.head = wd_ldcg(&p->head);
    return x;
}

// The segmented operator: (a, b) -> b's value alone if a segment starts in b, else a + b.
// Associative whenever Op is.
template <class Op> struct wd_seg_op {
    typedef wd_seg_val<typename Op::T> T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() {
        T t;
        t.v = Op::identity();
        t.head = false;
        return t;
    }
    static __device__ __forceinline__ T combine(T a, T b) {
        T t;
        t.v = b.head ? b.v : Op::combine(a.v, b.v);
        t.head = a.head || b.head;
        return t;
    }
};

// Look-back status of a pair whose value takes at most 4 bytes: the head in bit 2 of the state.
#define WD_STATUS_PACK_SEG 3
template <class T> struct wd_status_kind<wd_seg_val<T>> {
    static constexpr int value = sizeof(T) <= WD_STATUS_PACK_MAX ? WD_STATUS_PACK_SEG : WD_STATUS_SPLIT;
};
template <class T> struct wd_tile_status<wd_seg_val<T>, WD_STATUS_PACK_SEG> {
    wd_u64* words;
    __device__ __forceinline__ wd_tile_status(unsigned char* mem, wd_u64) : words((wd_u64*)mem) {}
    __device__ __forceinline__ void publish(wd_u64 tile, unsigned state, wd_seg_val<T> x) const {
        wd_u32 bits = 0;
        memcpy(&bits, &x.v, sizeof(T));
        const wd_u64 high = (wd_u64)(state | (x.head ? 4u : 0u));
        atomicExch((unsigned long long*)(words + tile), (unsigned long long)((high << 32) | bits));
    }
    __device__ __forceinline__ unsigned read(wd_u64 tile, wd_seg_val<T>& x) const {
        const wd_u64 w = *(volatile wd_u64*)(words + tile);
        const wd_u32 bits = (wd_u32)w;
        memcpy(&x.v, &bits, sizeof(T));
        x.head = ((w >> 34) & 1u) != 0;
        return (unsigned)(w >> 32) & 3u;
    }
};

// Head policies: the scan operator (Op, or wd_seg_op<Op>), how an element enters it, how a
// scanned value leaves it (`value`), and the heads of a thread's slots (bit j: slot j starts a
// segment). `heads` is called by every thread of the block (it may use shared memory and
// barriers); `warp_base` is the warp tile's first element.
//
// The plain scan's policy holds the scan's initial value (`init`, null for none): each output
// leaves as combine(*init, its scan), the scan of the input continued from `init`.
template <class Op> struct wd_heads_none {
    typedef Op S;
    static constexpr bool SEGMENTED = false;
    const typename Op::T* init;
    static __device__ __forceinline__ typename Op::T enter(typename Op::T x, bool) { return x; }
    __device__ __forceinline__ typename Op::T value(typename Op::T x) const { return init ? Op::combine(*init, x) : x; }
    template <class L> __device__ __forceinline__ unsigned heads(wd_u64, wd_u64, wd_u64, wd_u64) const { return 0u; }
};
template <class Op> struct wd_heads_seg {
    typedef wd_seg_op<Op> S;
    static constexpr bool SEGMENTED = true;
    static __device__ __forceinline__ typename S::T enter(typename Op::T x, bool head) {
        typename S::T t;
        t.v = x;
        t.head = head;
        return t;
    }
    __device__ __forceinline__ typename Op::T value(typename S::T x) const { return x.v; }
};

// The rows of a row-major matrix of `cols` columns: heads where i % cols == 0, from one 64-bit
// remainder per thread and tile (then a 32-bit one per vector, or a compare for long rows, and
// a count along the vector).
template <class Op> struct wd_heads_rows : wd_heads_seg<Op> {
    wd_u64 cols;
    template <class L>
    __device__ __forceinline__ unsigned heads(wd_u64, wd_u64 warp_base, wd_u64, wd_u64) const {
        const unsigned lane = threadIdx.x & 31u;
        const wd_u64 q = warp_base % cols;
        unsigned h = 0;
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
            // p < cols + WD_TILE: one subtraction brings it below cols when cols > WD_TILE.
            const wd_u64 p = q + ((wd_u64)r * 32u + lane) * L::VEC;
            wd_u64 m = cols > WD_TILE ? (p >= cols ? p - cols : p) : (wd_u64)((wd_u32)p % (wd_u32)cols);
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                if (m == 0) h |= 1u << (r * L::VEC + k);
                m = m + 1 == cols ? 0 : m + 1;
            }
        }
        return h;
    }
};

// CSR segments: `offsets` (nseg + 1 of them) must be non-decreasing from 0 to n. The block
// marks its tile's heads in shared memory (the segments starting in it, found by searching the
// offsets for the tile's first and last element, warps 0 and 1, with wd_warp_lower_bound), and checks its share of the
// offsets: flags[0] = 1 when they are bad.
template <class Op> struct wd_heads_csr : wd_heads_seg<Op> {
    const wd_u64* offsets;
    wd_u64 nseg;
    unsigned* flags;
    template <class L>
    __device__ __forceinline__ unsigned heads(wd_u64 tile, wd_u64 warp_base, wd_u64 n, wd_u64 ntiles) const {
        const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
        __shared__ wd_u32 bits[WD_BLOCK / 32 * WD_TILE / 32];
        __shared__ wd_u64 range[2];
        const wd_u64 start = tile * block_tile, end = start + block_tile < n ? start + block_tile : n;
        for (unsigned w = threadIdx.x; w < WD_BLOCK / 32 * WD_TILE / 32; w += WD_BLOCK) bits[w] = 0;
        const unsigned warp = threadIdx.x >> 5;
        if (warp < 2) {
            const wd_u64 at = wd_warp_lower_bound(offsets, nseg + 1, warp == 0 ? start : end);
            if ((threadIdx.x & 31u) == 0) range[warp] = at;
        }
        const wd_u64 share = (nseg + 1 + ntiles - 1) / ntiles;
        for (wd_u64 i = tile * share + threadIdx.x; i < (tile + 1) * share && i <= nseg; i += WD_BLOCK) {
            const wd_u64 o = offsets[i];
            const bool bad = (i == 0 && o != 0) || (i > 0 && o < offsets[i - 1]) || (i == nseg && o != n);
            if (bad) flags[0] = 1u;
        }
        __syncthreads();
        for (wd_u64 s = range[0] + threadIdx.x; s < range[1]; s += WD_BLOCK) {
            const wd_u64 o = offsets[s];
            if (o >= start && o < end) atomicOr(&bits[(o - start) >> 5], 1u << ((o - start) & 31u));
        }
        __syncthreads();
        const unsigned lane = threadIdx.x & 31u;
        unsigned h = 0;
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
            const wd_u64 e = warp_base - start + ((wd_u64)r * 32u + lane) * L::VEC;
            h |= ((bits[e >> 5] >> (e & 31u)) & ((1u << L::VEC) - 1u)) << (r * L::VEC);
        }
        return h;
    }
};

// One block tile of the scan, ITEMS slots a lane (WD_ITEMS times the warp's span); `prefix_of`
// gives the tile's exclusive prefix (see lookback.cuh), `hp` the segment heads.
template <class Op, int ITEMS, class St, class P, class H>
static __device__ __forceinline__ void wd_scan_tile(const St& st, typename Op::T* out, bool exclusive, const P& prefix_of,
                                                    wd_u64 tile, const H& hp) {
    typedef typename H::S S;
    typedef typename S::T T;
    typedef typename Op::T V;
    typedef typename St::elem_t E;
    typedef wd_vec_layout<St, ITEMS> L;
    static_assert(ITEMS == WD_ITEMS || !H::SEGMENTED, "segmented scans take one warp tile a warp");
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * L::TILE;
    // Tiles of the capacity (the grid): with a device-resident length the tiles past it scan
    // nothing and store nothing, and still publish their (identity) aggregates.
    const wd_u64 ntiles = (st.cap + block_tile - 1) / block_tile;
    const wd_u64 base = tile * block_tile + (wd_u64)warp * L::TILE;
    const bool whole = wd_tile_vectorizable(st, base, L::TILE);
    // The vector loads are issued first, so that they are in flight while the heads are found.
    E raw[L::ROWS][L::VEC];
    if (whole) wd_tile_load_vec<L>(st, base, raw);
    const unsigned heads = hp.template heads<L>(tile, base, st.n, ntiles);
    T v[ITEMS];
    if (whole) {
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r)
#pragma unroll
            for (int k = 0; k < L::VEC; ++k)
                v[r * L::VEC + k] = hp.enter(
                    Op::combine(Op::identity(), st.make(raw[r][k], base + ((wd_u64)r * 32u + lane) * L::VEC + (wd_u64)k)),
                    (heads >> (r * L::VEC + k)) & 1u);
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const wd_u64 i = base + L::offset(j, lane);
            v[j] = i < st.n ? hp.enter(Op::combine(Op::identity(), st.make(st.load(i), i)), (heads >> j) & 1u) : S::identity();
        }
    }
    // Rows: thread scan, warp scan of lane totals, then each slot's prefix within the tile.
    T carry = S::identity();
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
#pragma unroll
        for (int k = 1; k < L::VEC; ++k) v[r * L::VEC + k] = S::combine(v[r * L::VEC + k - 1], v[r * L::VEC + k]);
        const T lane_incl = wd_warp_scan<S>(v[r * L::VEC + L::VEC - 1]);
        const T pre = wd_warp_exclusive<S>(lane_incl, carry);
        const T row_total = wd_shfl_idx(lane_incl, 31);
        if (exclusive) {
#pragma unroll
            for (int k = L::VEC - 1; k > 0; --k) v[r * L::VEC + k] = S::combine(pre, v[r * L::VEC + k - 1]);
            v[r * L::VEC] = pre;
        } else {
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) v[r * L::VEC + k] = S::combine(pre, v[r * L::VEC + k]);
        }
        carry = S::combine(carry, row_total);
    }
    const T prefix = wd_block_tile_prefix<S>(prefix_of, tile, carry, ntiles, (T*)nullptr);
    // The outputs; an exclusive segmented scan gives the identity at each head.
    V w[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        w[j] = hp.value(S::combine(prefix, v[j]));
        if (H::SEGMENTED && exclusive && ((heads >> j) & 1u)) w[j] = Op::identity();
    }
    wd_tile_store<L>(out, base, st.n, w, whole);
}

// Warp tiles a warp of the plain scan takes at once (catalogue::scan_span): WD_SCAN_SPAN when
// the stage reads one array of elements of at most 4 bytes into values of at most 4 bytes (a
// block tile of WD_SCAN_SPAN * 4096 elements at 4 blocks an SM: half the tile prefixes per
// byte of the one-warp-tile blocks at 8, as many bytes in flight), else 1.
template <class St> struct wd_scan_span {
    static constexpr int value =
        St::ARRAYS == 1 && sizeof(typename St::elem_t) <= 4 && sizeof(typename St::value_t) <= 4 ? WD_SCAN_SPAN : 1;
};
// Resident blocks an SM that the plain scan's kernel asks for (its launch bound).
template <class St> struct wd_scan_min_blocks {
    static constexpr int value = wd_scan_span<St>::value > 1
                                     ? 8 / WD_SCAN_SPAN
                                     : (sizeof(typename St::elem_t) <= 4 && sizeof(typename St::value_t) <= 4 ? 8 : 1);
};

// The scan kernels' body: this block's tile (SPAN warp tiles a warp), its prefix from `mode` (a
// ScanMode) through `status` (zeroed look-back status: ntiles slots, 2 * ntiles for
// WD_SCAN_TREE, ntiles of exact sums for WD_SCAN_EXACT_SUM), heads from `hp`.
template <class Op, int SPAN = 1, class St, class H>
static __device__ __forceinline__ void wd_scan(const St& st, typename Op::T* out, bool exclusive, unsigned mode,
                                               unsigned char* status, unsigned int* queue, const H& hp) {
    typedef typename H::S S;
    typedef wd_tile_status<typename S::T> Status;
    constexpr int ITEMS = WD_ITEMS * SPAN;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE * SPAN;
    const wd_u64 ntiles = (st.cap + block_tile - 1) / block_tile;
    const wd_u64 tile = wd_tile_index(queue);
    if (mode == WD_SCAN_LOOK_BACK) {
        const wd_prefix_look_back<S, Status> p{Status(status, ntiles)};
        wd_scan_tile<Op, ITEMS>(st, out, exclusive, p, tile, hp);
    } else if (mode == WD_SCAN_TREE || (mode == WD_SCAN_EXACT_SUM && !wd_is_f32<typename S::T>::value)) {
        // (An exact-sum status is larger than the tree's: a non-f32 scan falls back to the tree.)
        const wd_prefix_tree<S, Status> p{Status(status, 2u * ntiles)};
        wd_scan_tile<Op, ITEMS>(st, out, exclusive, p, tile, hp);
    } else if (mode == WD_SCAN_EXACT_SUM) {
        if constexpr (wd_is_f32<typename S::T>::value) {
            typedef wd_tile_status<wd_exact32> Exact;
            const wd_prefix_exact_sum<S, Exact> p{Exact(status, ntiles)};
            wd_scan_tile<Op, ITEMS>(st, out, exclusive, p, tile, hp);
        }
    } else {
        const wd_prefix_predecessor<S, Status> p{Status(status, ntiles)};
        wd_scan_tile<Op, ITEMS>(st, out, exclusive, p, tile, hp);
    }
}

// Exclusive scan, in place, of `n` values by one block, in a fixed order (the long segments'
// chunk numbering in axis.cuh): each thread folds 16 consecutive values, the block scans the
// thread totals (wd_block_scan, block.cuh), and a carry chains the chunks.
template <class Op> static __device__ __forceinline__ void wd_scan_tiles(typename Op::T* vals, wd_u64 n) {
    typedef typename Op::T T;
    __shared__ T warp_totals[WD_BLOCK / 32];
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
        T chunk_total;
        T run = Op::combine(carry, wd_block_scan<Op, true>(total, warp_totals, chunk_total));
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            if (mine + k < n) vals[mine + k] = run;
            run = Op::combine(run, x[k]);
        }
        carry = Op::combine(carry, chunk_total);
    }
}

// ---- the scan along a middle axis: one thread a line ----
// Line t of an (outer, rows, inner) row-major array is column t % inner of matrix t / inner;
// its thread folds the line's elements in order (exact in that order for every operator: the
// CPU's order), writing each running value (or the one before it, exclusive) in place.
// Consecutive threads take consecutive columns, so each row's loads and stores are coalesced;
// WD_SCAN_COLS_UNROLL rows of loads are in flight before their folds.
template <class Op, class St>
static __device__ __forceinline__ void wd_scan_cols(const St& st, wd_u64 rows, wd_u64 inner, bool exclusive,
                                                    typename Op::T* out) {
    typedef typename Op::T T;
    typedef typename St::elem_t E;
    constexpr int U = WD_SCAN_COLS_UNROLL;
    const wd_u64 lines = st.n / rows;
    const wd_u64 nthreads = (wd_u64)gridDim.x * WD_BLOCK;
    for (wd_u64 t = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; t < lines; t += nthreads) {
        const wd_u64 o = t / inner;
        const wd_u64 base = o * rows * inner + (t - o * inner);
        T acc = Op::identity();
        wd_u64 r = 0;
        for (; r + U <= rows; r += U) {
            E e[U];
#pragma unroll
            for (int u = 0; u < U; ++u) e[u] = st.load(base + (r + u) * inner);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const wd_u64 i = base + (r + u) * inner;
                const T next = Op::combine(acc, st.make(e[u], i));
                out[i] = exclusive ? acc : next;
                acc = next;
            }
        }
        for (; r < rows; ++r) {
            const wd_u64 i = base + r * inner;
            const T next = Op::combine(acc, st.make(st.load(i), i));
            out[i] = exclusive ? acc : next;
            acc = next;
        }
    }
}
