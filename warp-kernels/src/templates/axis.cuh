// ---- warp-dsl axis patterns: row, segment and column reductions of a row-major matrix; transpose ----
// A stage `St` (the module's stage struct) provides: typedef elem_t, value_t; length `n`; its
// readers (load, load_l2, at, VEC, load_vec, aligned, head); value_t make(elem_t, index) (the
// element, its map, or an (element, flat index) pair). Element (r, c) of a matrix of `rows`
// rows and `cols` columns is element r * cols + c; every index is 64-bit. An operation `Op` is the one of
// reduce.cuh (Op::T == St::value_t). Every loop is a grid-stride loop, so any grid size is
// correct, and every result is folded in an order fixed by the shape, the grid and the input
// pointer's alignment: deterministic. Loops around warp or block collectives are warp- or
// block-uniform; lanes without work contribute Op::identity().
// Sizes (warp_kernels::catalogue, defined at the top of the module): WD_BLOCK threads per
// block; WD_AXIS_UNROLL independent loads in flight per thread in the row and segment folds;
// WD_SEG_WAYS short segments (32 elements or fewer) reduced together by one warp;
// WD_COLS_UNROLL rows in flight per thread in the column reduce; the transpose tile is
// 32 * WD_TRANSPOSE_M rows by 32 * WD_TRANSPOSE_N columns of `in` for elements of at most
// WD_TRANSPOSE_WIDE_MAX bytes (32 x 32 for wider ones), 256 threads moving 4 * M * N elements
// each.

// Range fold: thread t of NT (NT >= 16) folds its share of elements [start, start + len).
// Streaming vector loads, WD_AXIS_UNROLL in flight for a warp (two steps of them), or
// WD_AXIS_UNROLL_BLOCK for a block, between an unaligned head and a tail read
// element-wise (fewer than one vector each); element loads when zipped arrays' alignments differ.
// Each thread's fold order is fixed by (start alignment, len, NT).
template <class Op, class St, unsigned NT>
static __device__ __forceinline__ typename Op::T wd_axis_fold_range(const St& st, wd_u64 start, wd_u64 len, unsigned t) {
    typedef typename St::elem_t E;
    typedef typename Op::T T;
    constexpr unsigned U = NT <= 32 ? WD_AXIS_UNROLL : WD_AXIS_UNROLL_BLOCK;
    T acc = Op::identity();
    wd_u64 head = st.head(start);
    if (head != WD_NO_VEC) {
        constexpr unsigned VEC = St::VEC;
        if (head > len) head = len;
        const wd_u64 nvec = (len - head) / VEC;
        const wd_u64 tail = head + nvec * VEC + t;
        // The head and tail elements are loaded first and folded last, so that a short range
        // costs one memory round trip.
        const bool has_head = t < head, has_tail = tail < len;
        E he, te;
        if (has_head) he = st.load(start + t);
        if (has_tail) te = st.load(start + tail);
        const wd_u64 vbase = start + head;
#pragma unroll (NT <= 32 ? 2 : 1)  // two steps in flight for warp-wide rows, one for block-wide rows
        for (wd_u64 v = t; v < nvec; v += (wd_u64)U * NT) {
            E r[U][VEC];
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (v + (wd_u64)u * NT < nvec) st.load_vec(vbase + (v + (wd_u64)u * NT) * VEC, r[u]);
#pragma unroll
            for (unsigned u = 0; u < U; ++u) {
                if (v + (wd_u64)u * NT < nvec) {
#pragma unroll
                    for (unsigned k = 0; k < VEC; ++k)
                        acc = Op::combine(acc, st.make(r[u][k], vbase + (v + (wd_u64)u * NT) * VEC + k));
                }
            }
        }
        if (has_head) acc = Op::combine(acc, st.make(he, start + t));
        if (has_tail) acc = Op::combine(acc, st.make(te, start + tail));
    } else {
        for (wd_u64 i = t; i < len; i += (wd_u64)U * NT) {
            E e[U];
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (i + (wd_u64)u * NT < len) e[u] = st.load(start + i + (wd_u64)u * NT);
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (i + (wd_u64)u * NT < len) acc = Op::combine(acc, st.make(e[u], start + i + (wd_u64)u * NT));
        }
    }
    return acc;
}

// Short rows: out[r] = fold of row r, each row owned by a group of G lanes (G = 1, 2, ..., 32).
// 32 / G rows per warp step and WD_AXIS_UNROLL steps per iteration, all loads issued before any
// combine; a lane folds its G-strided vectors (when every row start is 16-byte aligned) or
// elements of each row, then an xor-shuffle combine within the group; the group's first lane
// writes out[row]. Any block size that is a multiple of 32.
template <class Op, class St, int G>
static __device__ __forceinline__ void wd_rows_group(const St& st, wd_u64 rows, wd_u64 cols, typename Op::T* out) {
    static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "wd_rows_group: G must be a power of two <= 32");
    typedef typename St::elem_t E;
    typedef typename Op::T T;
    constexpr unsigned U = WD_AXIS_UNROLL;
    constexpr unsigned NG = 32u / G;  // rows per warp step
    constexpr unsigned R = NG * U;    // rows per warp iteration
    const unsigned lane = threadIdx.x & 31u, g = lane / G, j = lane % G;
    const wd_u64 warp = ((wd_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * blockDim.x) >> 5;
    const bool vec = st.aligned(0) && cols % St::VEC == 0;
    for (wd_u64 base = warp * R; base < rows; base += nwarps * R) {  // warp-uniform
        T acc[U];
        wd_u64 rp[U];  // row starts (row 0 for rows past the end, which load nothing)
        bool ok[U];
#pragma unroll
        for (unsigned u = 0; u < U; ++u) {
            const wd_u64 r = base + (wd_u64)u * NG + g;
            acc[u] = Op::identity();
            ok[u] = r < rows;
            rp[u] = (ok[u] ? r : 0) * cols;
        }
        if (vec) {
            constexpr unsigned VEC = St::VEC;
            const wd_u64 nvec = cols / VEC;
#pragma unroll 1
            for (wd_u64 v = j; v < nvec; v += G) {
                E r[U][VEC];
#pragma unroll
                for (unsigned u = 0; u < U; ++u)
                    if (ok[u]) st.load_vec(rp[u] + v * VEC, r[u]);
#pragma unroll
                for (unsigned u = 0; u < U; ++u) {
                    if (ok[u]) {
#pragma unroll
                        for (unsigned k = 0; k < VEC; ++k) acc[u] = Op::combine(acc[u], st.make(r[u][k], rp[u] + v * VEC + k));
                    }
                }
            }
        }
        if (!vec) {
#pragma unroll 1
            for (wd_u64 c = j; c < cols; c += G) {
                E e[U];
#pragma unroll
                for (unsigned u = 0; u < U; ++u)
                    if (ok[u]) e[u] = st.load(rp[u] + c);
#pragma unroll
                for (unsigned u = 0; u < U; ++u)
                    if (ok[u]) acc[u] = Op::combine(acc[u], st.make(e[u], rp[u] + c));
            }
        }
        // All 32 lanes reach here together: width-limited butterfly within each group.
#pragma unroll
        for (unsigned u = 0; u < U; ++u) acc[u] = wd_warp_allreduce<Op, G>(acc[u]);
        if (j == 0) {
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (ok[u]) out[base + (wd_u64)u * NG + g] = acc[u];
        }
    }
}

// Medium rows: out[r] = fold of row r, one warp per row (grid-stride by warps).
// Lanes fold the row with 16-byte loads, WD_AXIS_UNROLL in flight; warp reduce; lane 0 writes
// out[row]. Any block size that is a multiple of 32.
template <class Op, class St>
static __device__ __forceinline__ void wd_rows_warp(const St& st, wd_u64 rows, wd_u64 cols, typename Op::T* out) {
    const unsigned lane = threadIdx.x & 31u;
    const wd_u64 warp = ((wd_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * blockDim.x) >> 5;
    for (wd_u64 r = warp; r < rows; r += nwarps) {  // warp-uniform
        typename Op::T acc = wd_axis_fold_range<Op, St, 32>(st, r * cols, cols, lane);
        acc = wd_warp_reduce<Op>(acc);
        if (lane == 0) out[r] = acc;
    }
}

// Long rows: out[r] = fold of row r, one block of WD_ROWS_BLOCK_THREADS threads per row
// (grid-stride). The threads fold the row with WD_AXIS_UNROLL_BLOCK loads in flight; block
// reduce; thread 0 writes.
template <class Op, class St>
static __device__ __forceinline__ void wd_rows_block(const St& st, wd_u64 rows, wd_u64 cols, typename Op::T* out) {
    for (wd_u64 r = blockIdx.x; r < rows; r += gridDim.x) {  // block-uniform
        typename Op::T acc = wd_axis_fold_range<Op, St, WD_ROWS_BLOCK_THREADS>(st, r * cols, cols, threadIdx.x);
        acc = wd_block_reduce<Op, WD_ROWS_BLOCK_THREADS>(acc);
        if (threadIdx.x == 0) out[r] = acc;
        __syncthreads();  // the block reduce's shared slots are reused by the next row
    }
}

// The end of a fold split over blocks: this block's total `acc` (valid in thread 0) is part
// `part` of `nparts`, stored at parts[part]; the block that stores the last one (ticket) folds
// parts[0 .. nparts) in a fixed order, writes *out and re-arms the ticket. Block-uniform.
template <class Op>
static __device__ __forceinline__ void wd_split_finish(typename Op::T acc, typename Op::T* parts, wd_u64 part, wd_u64 nparts,
                                                       unsigned int* ticket, typename Op::T* out) {
    __shared__ bool am_last;
    if (threadIdx.x == 0) {
        parts[part] = acc;
        __threadfence();
        am_last = atomicAdd(ticket, 1u) == (unsigned)(nparts - 1);
    }
    __syncthreads();
    if (am_last) {
        __threadfence();
        acc = Op::identity();
        for (wd_u64 i = threadIdx.x; i < nparts; i += WD_BLOCK) acc = Op::combine(acc, wd_ldcg(parts + i));
        acc = wd_block_reduce<Op>(acc);
        if (threadIdx.x == 0) {
            *out = acc;
            *ticket = 0u;
        }
    }
    __syncthreads();  // am_last and the block reduce's shared slots are reused next iteration
}

// Very long rows: out[r] = fold of row r, split over blocks_per_row blocks of WD_BLOCK threads.
// Block b (grid-stride over rows * blocks_per_row) folds chunk b % blocks_per_row of row
// b / blocks_per_row into partials[b]; the row's last block to finish (ticket) combines the
// row's partials in a fixed order, writes out[row] and re-arms tickets[row].
template <class Op, class St>
static __device__ __forceinline__ void wd_rows_split(const St& st, wd_u64 rows, wd_u64 cols, wd_u64 blocks_per_row,
                                                     typename Op::T* partials, unsigned int* tickets, typename Op::T* out) {
    typedef typename Op::T T;
    const wd_u64 bpr = blocks_per_row ? blocks_per_row : 1;
    // Chunks are whole vectors, so every chunk of an aligned row starts aligned.
    constexpr wd_u64 VEC = St::VEC;
    const wd_u64 chunk = ((cols + bpr - 1) / bpr + VEC - 1) / VEC * VEC;
    const wd_u64 nblocks = rows * bpr;
    for (wd_u64 b = blockIdx.x; b < nblocks; b += gridDim.x) {  // block-uniform
        const wd_u64 r = b / bpr, part = b - r * bpr;
        const wd_u64 begin = part * chunk < cols ? part * chunk : cols;
        const wd_u64 end = begin + chunk < cols ? begin + chunk : cols;
        T acc = wd_axis_fold_range<Op, St, WD_BLOCK>(st, r * cols + begin, end - begin, threadIdx.x);
        acc = wd_block_reduce<Op>(acc);
        if (bpr == 1) {
            if (threadIdx.x == 0) out[r] = acc;
            __syncthreads();  // the block reduce's shared slots are reused next iteration
            continue;
        }
        wd_split_finish<Op>(acc, partials + r * bpr, part, bpr, tickets + r, out + r);
    }
}

// CSR segments: out[s] = fold of elements [offsets[s], offsets[s + 1]), one warp per segment.
// Empty segments (or end < begin) give Op::identity(). A warp takes WD_SEG_WAYS consecutive
// segments per iteration (grid-stride by warps; lanes load their bounds together and pass them
// by shuffles): when none is longer than 32, one scalar load per lane for each (WD_SEG_WAYS
// loads in flight), else one segment after another, lanes striding it with WD_AXIS_UNROLL scalar
// loads in flight. Lane l folds elements begin + l, begin + l + 32, ... in order; warp reduce;
// lane 0 writes out[s]. Segments longer than WD_SEG_LONG elements are left to the whole grid
// (wd_segments_long): the pair (s, length) is appended to `longs` (room for `cap` pairs, which
// valid offsets never exceed) and flags[1] counts them; flags[0] is the bad-offsets flag. Any
// block size that is a multiple of 32.
template <class Op, class St>
static __device__ __forceinline__ void wd_segments(const St& st, const wd_u64* offsets, wd_u64 nseg, typename Op::T* out,
                                                   unsigned int* flags, wd_u64* longs, wd_u64 cap) {
    typedef typename St::elem_t E;
    typedef typename Op::T T;
    constexpr unsigned W = WD_SEG_WAYS, U = WD_AXIS_UNROLL;
    static_assert(W >= 1 && W <= 32, "WD_SEG_WAYS must be in 1..32");
    const unsigned lane = threadIdx.x & 31u;
    const wd_u64 warp = ((wd_u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * blockDim.x) >> 5;
    for (wd_u64 sb = warp * W; sb < nseg; sb += nwarps * W) {  // warp-uniform
        // Lane l < W holds the bounds of segment sb + l (an empty range past nseg).
        wd_u64 my_begin = 0, my_end = 0;
        if (lane < W && sb + lane < nseg) {
            my_begin = offsets[sb + lane];
            my_end = offsets[sb + lane + 1];
        }
        // Offsets out of order or past the input raise flags[0] (the runtime reports an error);
        // nothing outside the input is read either way.
        if (my_end < my_begin || my_end > st.n) {
            atomicExch(flags, 1u);
            if (my_end > st.n) my_end = st.n;
            if (my_end < my_begin) my_end = my_begin;
        }
        if (__all_sync(WD_FULL_MASK, my_end - my_begin <= 32u)) {
            T v[W];
            E e[W];
#pragma unroll
            for (unsigned w = 0; w < W; ++w) {
                const wd_u64 b = wd_shfl_idx(my_begin, (int)w), end = wd_shfl_idx(my_end, (int)w);
                if (b + lane < end) e[w] = st.load(b + lane);
                // Each value enters as combine(identity, value), as the CPU's fold from the identity.
                v[w] = b + lane < end ? Op::combine(Op::identity(), st.make(e[w], b + lane)) : Op::identity();
            }
#pragma unroll
            for (unsigned w = 0; w < W; ++w) {
                v[w] = wd_warp_reduce<Op>(v[w]);
                if (lane == 0 && sb + w < nseg) out[sb + w] = v[w];
            }
        } else {
#pragma unroll 1
            for (unsigned w = 0; w < W; ++w) {
                const wd_u64 b = wd_shfl_idx(my_begin, (int)w), end = wd_shfl_idx(my_end, (int)w);
                if (end - b > WD_SEG_LONG) {  // warp-uniform
                    if (lane == 0) {
                        const wd_u64 i = atomicAdd(flags + 1, 1u);
                        if (i < cap) {
                            longs[2 * i] = sb + w;
                            longs[2 * i + 1] = end - b;
                        } else {
                            atomicExch(flags, 1u);  // only overlapping segments get here
                        }
                    }
                    continue;
                }
                T acc = Op::identity();
                for (wd_u64 i = b + lane; i < end; i += 32u * U) {
                    E e[U];
#pragma unroll
                    for (unsigned u = 0; u < U; ++u)
                        if (i + 32u * u < end) e[u] = st.load(i + 32u * u);
#pragma unroll
                    for (unsigned u = 0; u < U; ++u)
                        if (i + 32u * u < end) acc = Op::combine(acc, st.make(e[u], i + 32u * u));
                }
                acc = wd_warp_reduce<Op>(acc);
                if (lane == 0 && sb + w < nseg) out[sb + w] = acc;
            }
        }
    }
}

// How many long segments wd_segments listed: none when it found bad offsets.
static __device__ __forceinline__ wd_u64 wd_segments_listed(const unsigned int* flags, wd_u64 cap) {
    return flags[0] ? 0ull : (flags[1] < cap ? (wd_u64)flags[1] : cap);
}
// Long CSR segments, numbered (one block): listed pair k gets first[k] = the number of
// WD_SEG_CHUNK-element chunks of the listed segments before it, first[count] = all of them;
// their tickets are zeroed. It uses the block scan of scan.cuh, which axis modules include
// (transpose modules do not).
#ifdef WD_HAVE_SCAN
static __device__ __forceinline__ void wd_segments_plan(const unsigned int* flags, const wd_u64* longs, wd_u64 cap, wd_u64* first,
                                                        unsigned int* tickets) {
    const wd_u64 count = wd_segments_listed(flags, cap);
    for (wd_u64 k = threadIdx.x; k <= count; k += WD_BLOCK) {
        first[k] = k < count ? (longs[2 * k + 1] + WD_SEG_CHUNK - 1) / WD_SEG_CHUNK : 0ull;
        if (k < count) tickets[k] = 0u;
    }
    __syncthreads();
    wd_scan_tiles<wd_op_count>(first, count + 1);
}
#endif

// Long CSR segments over the whole grid: chunk g of the numbering above belongs to listed
// pair k (the last k with first[k] <= g): segment s = longs[2 * k] of length longs[2 * k + 1]. Blocks take chunks
// grid-stride; a chunk is folded by the block (16-byte loads) and a segment's partials are
// combined in chunk order by wd_split_finish (partials[first[k] ..], tickets[k]):
// deterministic for a given segment.
template <class Op, class St>
static __device__ __forceinline__ void wd_segments_long(const St& st, const wd_u64* offsets, const unsigned int* flags,
                                                        const wd_u64* longs, wd_u64 cap, const wd_u64* first,
                                                        typename Op::T* partials, unsigned int* tickets, typename Op::T* out) {
    const wd_u64 count = wd_segments_listed(flags, cap);
    const wd_u64 total = first[count];
    for (wd_u64 g = blockIdx.x; g < total; g += gridDim.x) {  // block-uniform
        wd_u64 lo = 0, hi = count - 1;
        while (lo < hi) {
            const wd_u64 mid = (lo + hi + 1) / 2;
            if (first[mid] <= g) lo = mid;
            else hi = mid - 1;
        }
        // Listed segments are valid (with bad offsets none is listed): [offsets[s], + length).
        const wd_u64 s = longs[2 * lo], j = g - first[lo], chunks = first[lo + 1] - first[lo];
        const wd_u64 c0 = offsets[s] + j * WD_SEG_CHUNK, rest = longs[2 * lo + 1] - j * WD_SEG_CHUNK;
        const wd_u64 len = rest < WD_SEG_CHUNK ? rest : WD_SEG_CHUNK;
        typename Op::T acc = wd_axis_fold_range<Op, St, WD_BLOCK>(st, c0, len, threadIdx.x);
        acc = wd_block_reduce<Op>(acc);
        wd_split_finish<Op>(acc, partials + first[lo], j, chunks, tickets + lo, out + s);
    }
}

// Tile combine: lane 0 of warp w gets the total over the 32 warps of lane w's values.
// Warp w brings lane l's value for tile column l through a padded shared tile, then a warp
// reduce (needs blockDim.x == 1024).
template <class Op, int PAD>
static __device__ __forceinline__ typename Op::T wd_axis_tile_combine(typename Op::T (&tile)[32][32 + PAD], typename Op::T v) {
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    tile[w][lane] = v;
    __syncthreads();
    v = tile[lane][w];  // column w: conflict-free with PAD 1, a 32-way bank conflict with PAD 0
    __syncthreads();    // the tile is free again when this returns
    return wd_warp_reduce<Op>(v);
}

// Columns: out[c] = fold of column c over all rows, blocks of 1024 threads (32 warps). The
// columns are those of cols / inner batches of rows x inner matrices one after the other (a
// plain matrix: inner == cols): column c is column c % inner of batch c / inner, its row r at
// wd_col_at(c, r) (the middle axis of a (B, N, D) array: B batches of N rows of D columns).
// blockIdx.x strides over 32-column tiles (c = tile * 32 + lane), blockIdx.y over chunks of
// rows_per_block rows (0: rows / gridDim.y, rounded up); warp w reads rows w, w + 32, ... of a
// chunk (32 consecutive elements of a row per warp read, WD_COLS_UNROLL in flight), each thread
// folds its column; a padded shared tile turns columns into warps for a warp reduce.
// gridDim.y == 1 writes out[c]; else partials[blockIdx.y * cols + c], and the column tile's
// last block over y (tickets[tile]) combines them in a fixed order, writes out[c] and re-arms
// the ticket.
// Where column c's row 0 is among cols / inner batches of rows x inner matrices (add r * inner
// for row r).
static __device__ __forceinline__ wd_u64 wd_col_base(wd_u64 c, wd_u64 rows, wd_u64 inner) {
    const wd_u64 b = c / inner;
    return b * rows * inner + (c - b * inner);
}

template <class Op, class St, int PAD>
static __device__ __forceinline__ void wd_cols(const St& st, wd_u64 rows, wd_u64 cols, wd_u64 inner, wd_u64 rows_per_block,
                                               typename Op::T* partials, unsigned int* tickets, typename Op::T* out) {
    typedef typename St::elem_t E;
    typedef typename Op::T T;
    constexpr unsigned U = WD_COLS_UNROLL;
    __shared__ T tile[32][32 + PAD];
    __shared__ bool am_last;
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    wd_u64 rpb = rows_per_block;
    if (rpb == 0) rpb = (rows + gridDim.y - 1) / gridDim.y;
    if (rpb == 0) rpb = 1;
    const wd_u64 ntiles = (cols + 31) / 32;
    const wd_u64 ystride = (wd_u64)gridDim.y * rpb;
    for (wd_u64 ct = blockIdx.x; ct < ntiles; ct += gridDim.x) {  // block-uniform
        const wd_u64 c = ct * 32 + lane;
        const bool col_ok = c < cols;
        const wd_u64 base = col_ok ? wd_col_base(c, rows, inner) : 0;
        T acc = Op::identity();
        for (wd_u64 r0 = (wd_u64)blockIdx.y * rpb; r0 < rows; r0 += ystride) {
            const wd_u64 r1 = r0 + rpb < rows ? r0 + rpb : rows;
            for (wd_u64 r = r0 + w; r < r1; r += 32u * U) {
                E e[U];
#pragma unroll
                for (unsigned u = 0; u < U; ++u)
                    if (col_ok && r + 32u * u < r1) e[u] = st.load_l2(base + (r + 32u * u) * inner);
#pragma unroll
                for (unsigned u = 0; u < U; ++u)
                    if (col_ok && r + 32u * u < r1) acc = Op::combine(acc, st.make(e[u], base + (r + 32u * u) * inner));
            }
        }
        const wd_u64 cw = ct * 32 + w;  // the column this warp totals
        acc = wd_axis_tile_combine<Op, PAD>(tile, acc);
        if (gridDim.y == 1) {
            if (lane == 0 && cw < cols) out[cw] = acc;
            continue;
        }
        if (lane == 0 && cw < cols) {
            partials[(wd_u64)blockIdx.y * cols + cw] = acc;
            __threadfence();
        }
        __syncthreads();
        if (threadIdx.x == 0) am_last = atomicAdd(tickets + ct, 1u) == gridDim.y - 1;
        __syncthreads();
        if (am_last) {
            __threadfence();
            // Warp w folds rows y = w, w + 32, ... of the partials (coalesced over the tile's
            // columns), then the tile combine gives each column's total in a fixed order.
            acc = Op::identity();
            if (col_ok)
                for (unsigned y = w; y < gridDim.y; y += 32) acc = Op::combine(acc, wd_ldcg(partials + (wd_u64)y * cols + c));
            acc = wd_axis_tile_combine<Op, PAD>(tile, acc);
            if (lane == 0 && cw < cols) out[cw] = acc;
            if (threadIdx.x == 0) tickets[ct] = 0u;
        }
        // am_last is rewritten only after the next tile combine's barriers: no barrier needed.
    }
}

// Wide columns (rows that are whole aligned vectors): out[c] = fold of column c over all rows
// (in batches as wd_cols: inner a multiple of VEC, so a vector lies in one batch), blocks of
// WD_COLS_VEC_BLOCK threads. Thread g of the grid's x dimension owns the VEC columns
// [g * VEC, g * VEC + VEC) and folds them down its block's chunk of rows_per_block rows
// (blockIdx.y), one vector load per row, WD_COLS_VEC_UNROLL rows in flight: a warp reads
// 32 * 16 consecutive bytes of a row, and no shared tile is needed. gridDim.y == 1 writes
// out[c]; else partials[blockIdx.y * cols + c], and the column block's last block over y
// (tickets[blockIdx.x]) folds them in y order, writes out[c] and re-arms the ticket. Each
// column's fold order is fixed by (rows, rows_per_block).
template <class Op, class St>
static __device__ __forceinline__ void wd_cols_vec(const St& st, wd_u64 rows, wd_u64 cols, wd_u64 inner, wd_u64 rows_per_block,
                                                   typename Op::T* partials, unsigned int* tickets, typename Op::T* out) {
    typedef typename St::elem_t E;
    typedef typename Op::T T;
    constexpr unsigned VEC = St::VEC;
    constexpr unsigned U = WD_COLS_VEC_UNROLL;
    __shared__ bool am_last;
    const wd_u64 c0 = ((wd_u64)blockIdx.x * WD_COLS_VEC_BLOCK + threadIdx.x) * VEC;
    const bool ok = c0 < cols;  // cols and inner are multiples of VEC
    const wd_u64 base = ok ? wd_col_base(c0, rows, inner) : 0;
    const wd_u64 rpb = rows_per_block ? rows_per_block : 1;
    const wd_u64 r0 = (wd_u64)blockIdx.y * rpb;
    const wd_u64 r1 = r0 + rpb < rows ? r0 + rpb : rows;
    T acc[VEC];
#pragma unroll
    for (unsigned k = 0; k < VEC; ++k) acc[k] = Op::identity();
    if (ok) {
        for (wd_u64 r = r0; r < r1; r += U) {
            E e[U][VEC];
#pragma unroll
            for (unsigned u = 0; u < U; ++u)
                if (r + u < r1) st.load_vec(base + (r + u) * inner, e[u]);
#pragma unroll
            for (unsigned u = 0; u < U; ++u) {
                if (r + u < r1) {
#pragma unroll
                    for (unsigned k = 0; k < VEC; ++k) acc[k] = Op::combine(acc[k], st.make(e[u][k], base + (r + u) * inner + k));
                }
            }
        }
    }
    if (gridDim.y == 1) {
        if (ok)
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) out[c0 + k] = acc[k];
        return;
    }
    if (ok)
#pragma unroll
        for (unsigned k = 0; k < VEC; ++k) partials[(wd_u64)blockIdx.y * cols + c0 + k] = acc[k];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) am_last = atomicAdd(tickets + blockIdx.x, 1u) == gridDim.y - 1;
    __syncthreads();
    if (!am_last) return;
    __threadfence();
    if (ok) {
#pragma unroll
        for (unsigned k = 0; k < VEC; ++k) acc[k] = Op::identity();
        for (unsigned y = 0; y < gridDim.y; ++y)
#pragma unroll
            for (unsigned k = 0; k < VEC; ++k) acc[k] = Op::combine(acc[k], wd_ldcg(partials + (wd_u64)y * cols + c0 + k));
#pragma unroll
        for (unsigned k = 0; k < VEC; ++k) out[c0 + k] = acc[k];
    }
    if (threadIdx.x == 0) tickets[blockIdx.x] = 0u;
}

// Transpose: out (cols x rows) = in^T (rows x cols) through a padded shared tile, for each of
// `batches` matrices stored one after another (matrix b at b * rows * cols, in and out).
// The tile is TR = 32 * M rows by TC = 32 * N columns of `in`; 256 threads (tx = threadIdx.x & 31,
// ty = threadIdx.x >> 5) move 4 * M * N elements each: warp ty reads tile rows ty + 8k (TC
// consecutive elements of a row of `in` each) and writes rows of `out` in segments of 32
// consecutive elements; blockIdx.x strides over column tiles, blockIdx.y over the row tiles of
// every matrix (both grid-stride); partial tiles are guarded.
template <class E, int PAD, int M = (sizeof(E) <= WD_TRANSPOSE_WIDE_MAX ? WD_TRANSPOSE_M : 1),
          int N = (sizeof(E) <= WD_TRANSPOSE_WIDE_MAX ? WD_TRANSPOSE_N : 1)>
static __device__ __forceinline__ void wd_transpose(const E* in_all, E* out_all, wd_u64 rows, wd_u64 cols, wd_u64 batches) {
    constexpr unsigned TR = 32u * M, TC = 32u * N;
    constexpr unsigned KR = TR / 8u;     // tile rows read per thread
    constexpr unsigned KW = 4u * M * N;  // 32-element output segments written per warp
    __shared__ E tile[TR][TC + PAD];
    const unsigned tx = threadIdx.x & 31u, ty = threadIdx.x >> 5;
    const wd_u64 nrt = (rows + TR - 1) / TR, nct = (cols + TC - 1) / TC;
    for (wd_u64 t = blockIdx.y; t < batches * nrt; t += gridDim.y) {  // block-uniform
        const wd_u64 b = t / nrt, bt = t - b * nrt;
        const E* in = in_all + b * rows * cols;
        E* out = out_all + b * rows * cols;
        for (wd_u64 ct = blockIdx.x; ct < nct; ct += gridDim.x) {  // block-uniform
            const wd_u64 r0 = bt * TR, c0 = ct * TC;
            {
                E e[KR][N];
#pragma unroll
                for (unsigned k = 0; k < KR; ++k) {
                    const wd_u64 r = r0 + ty + 8u * k;
#pragma unroll
                    for (unsigned n = 0; n < N; ++n) {
                        const wd_u64 c = c0 + tx + 32u * n;
                        if (r < rows && c < cols) e[k][n] = wd_ldcg(in + r * cols + c);
                    }
                }
#pragma unroll
                for (unsigned k = 0; k < KR; ++k) {
#pragma unroll
                    for (unsigned n = 0; n < N; ++n) tile[ty + 8u * k][tx + 32u * n] = e[k][n];
                }
            }
            __syncthreads();
            // Segment q = ty + 8k: out row c0 + q / M (a tile column), elements r0 + 32 * (q % M) + tx.
#pragma unroll
            for (unsigned k = 0; k < KW; ++k) {
                const unsigned q = ty + 8u * k;
                const unsigned i = q / M, s = (q % M) * 32u;
                const wd_u64 oc = c0 + i, orow = r0 + s + tx;
                if (oc < cols && orow < rows) out[oc * rows + orow] = tile[s + tx][i];  // PAD 1: conflict-free
            }
            __syncthreads();  // the tile is reused by the next iteration
        }
    }
}
