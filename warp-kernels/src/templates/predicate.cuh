// ---- warp-dsl predicate patterns: votes, ballot counting, ballot compaction, look-back ----
// A stage `St` (the module's stage struct) provides: typedef elem_t, value_t, out_t; length
// `n`; its readers; value_t value(elem_t) (the map, or the element itself), bool keep(value_t)
// (the predicate) and out_t out(value_t) (what compaction writes: the value, or one array's
// element of a zipped row).
// Warp tiles and their loads are in tiles.cuh; ballot ranks (wd_ballot_rank) in warp.cuh.

// count: per warp tile, __popc(__ballot_sync) per item row; then the block and grid combine.
template <class St>
static __device__ __forceinline__ void wd_count(const St& st, wd_u64* partials, unsigned int* ticket, wd_u64* out,
                                                unsigned int* done) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    wd_u64 count = 0;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        if (wd_tile_vectorizable(st, t * WD_TILE)) wd_load_tile_vec(st, t * WD_TILE, v, keep);
        else wd_load_tile(st, t * WD_TILE, v, keep);
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) count += (wd_u64)__popc(__ballot_sync(WD_FULL_MASK, keep[k]));
    }
    wd_grid_combine<wd_op_count>((threadIdx.x & 31u) == 0 ? count : 0ull, partials, ticket, out, done);
}

// ---- stop signals ----
// `any` and `find_first` warps read a stop signal before every tile. All of them reading one
// word would queue on a single L2 slice (one read per 2 KiB tile, ~2 G reads/s at full
// bandwidth, about what one slice serves), so the signal is replicated: WD_STOP_COPIES copies,
// WD_STOP_STRIDE bytes apart (warp_kernels::catalogue, which the runtime sizes the buffer from).
// Warp w reads copy w % WD_STOP_COPIES; a setter's lane c writes copy c, so every copy holds the
// signal (copy 0 is the result).
template <class T>
static __device__ __forceinline__ volatile T* wd_stop_copy(T* base, unsigned c) {
    return (volatile T*)((char*)base + (wd_u64)c * WD_STOP_STRIDE);
}
template <class T>
static __device__ __forceinline__ T wd_stop_read(T* base, wd_u64 warp) {
    return *wd_stop_copy(base, (unsigned)(warp % WD_STOP_COPIES));
}

// any: __any_sync per tile; a hit raises the flag and every warp stops reading once it sees it.
// all(p) is !any(!p): `negate` flips the predicate. The flag lives in scratch that is never
// cleared: a launch raises it by writing its own `epoch` (never 0, a new one per launch), so
// values left by earlier launches read as "not raised". The last block to finish (ticket, as in
// wd_grid_combine) writes the answer into *out, re-arms the ticket and signals `done`. A grid
// of one block (small inputs) needs neither: its warps' findings meet in one barrier.
template <class St>
static __device__ __forceinline__ void wd_any(const St& st, bool negate, unsigned int epoch, unsigned int* flag,
                                              unsigned int* ticket, unsigned char* out, unsigned int* done) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    const unsigned lane = threadIdx.x & 31u;
    const bool alone = gridDim.x == 1;
    bool raised = false;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        // Before a warp's second tile the flag is obeyed before the loads: every warp starts
        // at once, so a match in the first tiles is raised while the others read theirs, and
        // each then stops after one tile instead of two. One flag latency per warp, once.
        if (t == warp + nwarps && wd_stop_read(flag, warp) == epoch) break;
        // The flag is read alongside the tile's loads (its latency hidden behind theirs) and
        // obeyed after the vote over them: a convergent vote cannot sink below the check, so
        // neither can the loads it consumes. A warp reads at most one tile more than it needs.
        const bool stop = wd_stop_read(flag, warp) == epoch;
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        bool hit = false;
        if (wd_tile_vectorizable(st, t * WD_TILE)) {
            wd_load_tile_vec(st, t * WD_TILE, v, keep);
#pragma unroll
            for (int k = 0; k < WD_ITEMS; ++k) hit |= keep[k] != negate;
        } else {
            wd_load_tile(st, t * WD_TILE, v, keep);
#pragma unroll
            for (int k = 0; k < WD_ITEMS; ++k) {
                const bool valid = t * WD_TILE + (wd_u64)k * 32u + lane < st.n;
                hit |= valid && (keep[k] != negate);
            }
        }
        const bool found = __any_sync(WD_FULL_MASK, hit);
        if (stop) break;
        if (found) {
            raised = true;
            if (alone) break;
            if (lane < WD_STOP_COPIES) *wd_stop_copy(flag, lane) = epoch;
            __threadfence();
            break;
        }
    }
    if (alone) {
        const bool any = __syncthreads_or(raised) != 0;
        if (threadIdx.x == 0) {
            *out = (unsigned char)(any != negate);
            wd_signal_done(done);
        }
        return;
    }
    __shared__ bool am_last;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        am_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (threadIdx.x == 0 && am_last) {
        __threadfence();
        *out = (unsigned char)((*wd_stop_copy(flag, 0) == epoch) != negate);
        *ticket = 0u;
        wd_signal_done(done);
    }
}

// find_first: per tile, the first item row whose ballot is non-zero gives the smallest index
// (__ffs); the signal holds its complement (0: nothing found yet, so it starts zeroed like
// any's), raised with atomicMax in every copy; warps stop once their tiles start past the best
// found. Whole aligned tiles are read with 16-byte loads: there the first row (32 * VEC
// consecutive elements) with a match decides, at its lowest matching lane's first matching
// component.
template <class St>
static __device__ __forceinline__ void wd_find_first_scan(const St& st, wd_u64* first) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    const unsigned lane = threadIdx.x & 31u;
    // `i` is warp-uniform: every lane raises its copy to ~i.
    const auto found = [&](wd_u64 i) {
        if (lane < WD_STOP_COPIES) atomicMax((unsigned long long*)wd_stop_copy(first, lane), (unsigned long long)~i);
    };
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        // Before a warp's second tile the best index is obeyed before the loads (as in wd_any).
        if (t == warp + nwarps && ~(t * WD_TILE) <= wd_stop_read(first, warp)) return;
        // The best index so far (complemented) is read alongside the tile's loads and obeyed
        // after the ballots over them (as in wd_any, so that the loads stay ahead of the check).
        // It is compared as stored (t * WD_TILE >= ~c is ~(t * WD_TILE) <= c): complementing it
        // on arrival would make the tile's loads wait for it.
        const wd_u64 found_c = wd_stop_read(first, warp);
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        if (wd_tile_vectorizable(st, t * WD_TILE)) {
            typedef wd_vec_layout<St> L;
            wd_load_tile_vec(st, t * WD_TILE, v, keep);
            int k_first[L::ROWS];
            unsigned b[L::ROWS];
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r) {
                k_first[r] = L::VEC;
#pragma unroll
                for (int k = L::VEC - 1; k >= 0; --k) k_first[r] = keep[r * L::VEC + k] ? k : k_first[r];
                b[r] = __ballot_sync(WD_FULL_MASK, k_first[r] < L::VEC);
            }
            if (~(t * WD_TILE) <= found_c) return;
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r) {
                if (b[r]) {
                    const int src = __ffs(b[r]) - 1;
                    const int k = __shfl_sync(WD_FULL_MASK, k_first[r], src);
                    found(t * WD_TILE + ((wd_u64)r * 32u + (wd_u64)src) * L::VEC + (wd_u64)k);
                    return;
                }
            }
            continue;
        }
        wd_load_tile(st, t * WD_TILE, v, keep);
        unsigned b[WD_ITEMS];
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) b[k] = __ballot_sync(WD_FULL_MASK, keep[k]);
        if (~(t * WD_TILE) <= found_c) return;
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) {
            if (b[k]) {
                found(t * WD_TILE + (wd_u64)k * 32u + (__ffs(b[k]) - 1));
                return;
            }
        }
    }
}

// find_first: the scan above; then the last block to finish (`ticket`, as in wd_any) moves
// the best index (copy 0, complemented; 0: none) into *out and re-arms the signal (every copy
// back to 0) and the ticket, so the signal is zeroed once, when it is made, not per launch.
template <class St>
static __device__ __forceinline__ void wd_find_first(const St& st, wd_u64* first, unsigned int* ticket, wd_u64* out) {
    wd_find_first_scan(st, first);
    if (wd_last_block(ticket, gridDim.x) && threadIdx.x < 32u) {
        // Lane 0 reads copy 0 before it clears it; the other lanes clear the other copies.
        if (threadIdx.x == 0u) *out = *wd_stop_copy(first, 0u);
        if (threadIdx.x < WD_STOP_COPIES) *wd_stop_copy(first, threadIdx.x) = 0ull;
        if (threadIdx.x == 0u) *ticket = 0u;
    }
}

// mask: bit j of word w is element 32 * w + j; each ballot is one word, written by lane 0.
template <class St>
static __device__ __forceinline__ void wd_mask(const St& st, wd_u32* words) {
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_u64 ntiles = (st.n + WD_TILE - 1) / WD_TILE;
    const wd_u64 nwords = (st.n + 31) / 32;
    const unsigned lane = threadIdx.x & 31u;
    for (wd_u64 t = warp; t < ntiles; t += nwarps) {
        typename St::value_t v[WD_ITEMS];
        bool keep[WD_ITEMS];
        wd_load_tile(st, t * WD_TILE, v, keep);
        wd_u32 mine = 0;
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) {
            const wd_u32 b = __ballot_sync(WD_FULL_MASK, keep[k]);
            if (lane == (unsigned)k) mine = b;
        }
        // Lane k writes word k of the tile: coalesced.
        const wd_u64 w = t * WD_ITEMS + lane;
        if (lane < WD_ITEMS && w < nwords) words[w] = mine;
    }
}

// ---- single-pass compaction ----
// Kept values of a warp tile are staged in the warp's slice of shared memory (kept ones from
// the front, rejected ones from the back, both in order) and then written out coalesced, once
// the tile's prefix is known. Values over 8 bytes (64 KiB of staging) are scattered directly.
template <class St> struct wd_compact_staged {
    static constexpr bool value = sizeof(typename St::out_t) <= 8;
};

// A warp's kept (and rejected) values of one warp tile, in order: calls put(slot, value, kept)
// with slot the value's rank among the tile's kept values (kept) or rejected ones (not kept).
// Returns the warp tile's kept count.
template <class St, class Put>
static __device__ __forceinline__ unsigned wd_compact_ranks(const St& st, wd_u64 base, bool vec, typename St::value_t (&v)[WD_ITEMS],
                                                            bool (&keep)[WD_ITEMS], Put put) {
    const unsigned lane = threadIdx.x & 31u;
    const wd_u32 below = wd_lanes_below();
    unsigned kept = 0, rej = 0;
    if (vec) {
        // Row r holds 32 * VEC consecutive elements, VEC per lane: a kept element's rank is the
        // kept count of the lanes below plus that of its lane's earlier components.
        typedef wd_vec_layout<St> L;
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
            const wd_rank rank = wd_ballot_rank<L::VEC>(keep, r * L::VEC, below);
            const unsigned lanes_below = rank.below, row_total = rank.total;
            const unsigned rej_below = lane * L::VEC - lanes_below;
            unsigned mine = 0;
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                const int j = r * L::VEC + k;
                const wd_u64 i = base + L::offset(j, lane);
                if (keep[j]) put(kept + lanes_below + mine, st.out(v[j], i), true);
                else put(rej + rej_below + (k - mine), st.out(v[j], i), false);
                mine += keep[j];
            }
            kept += row_total;
            rej += 32u * L::VEC - row_total;
        }
        return kept;
    }
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_rank rank = wd_ballot_rank(keep[k], below);
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        if (keep[k]) put(kept + rank.below, st.out(v[k], i), true);
        else if (i < st.n) put(rej + (lane - rank.below), st.out(v[k], i), false);
        kept += rank.total;
        rej += 32u - rank.total;
    }
    return kept;
}

// Order-preserving compaction, single pass: kept values go to `kept` in input order; with
// `rejected` non-null the others go there, in input order too (partition). `*count` receives
// the number kept, and so does `*mirror` (unless null: a copy in mapped host memory) before
// `done` is signalled. One block tile (WD_BLOCK / 32 warp tiles) per block; a tile's offset is its
// warps' kept counts scanned across the block plus the look-back prefix of the tiles before it.
template <class St>
static __device__ __forceinline__ void wd_compact(const St& st, typename St::out_t* kept, typename St::out_t* rejected,
                                                  unsigned char* status_mem, unsigned int* queue, wd_u64* count,
                                                  wd_u64* mirror, unsigned int* done) {
    typedef typename St::out_t V;
    typedef wd_tile_status<wd_u64, WD_STATUS_PACK62> Status;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
    // Tiles of the capacity (the grid): with a device-resident length the tiles past it keep
    // nothing, and the last one still publishes the total and writes the count.
    const wd_u64 ntiles = (st.cap + block_tile - 1) / block_tile;
    const wd_prefix_look_back<wd_op_count, Status> look_back{Status(status_mem, ntiles)};
    const wd_u64 tile = wd_tile_index(queue);
    const wd_u64 base = tile * block_tile + (wd_u64)warp * WD_TILE;
    // The last warp of the last tile knows the total (its prefix and its own count).
    const bool mirrors = mirror != nullptr && tile == ntiles - 1 && warp == WD_BLOCK / 32 - 1 && lane == 0;
    typename St::value_t v[WD_ITEMS];
    bool keep[WD_ITEMS];
    const bool vec = wd_tile_vectorizable(st, base);
    if (vec) wd_load_tile_vec(st, base, v, keep);
    else wd_load_tile(st, base, v, keep);
    if constexpr (wd_compact_staged<St>::value) {
        __shared__ V staging[WD_BLOCK / 32][WD_TILE];
        const wd_u64 valid = base >= st.n ? 0ull : (st.n - base < WD_TILE ? st.n - base : (wd_u64)WD_TILE);
        V* seg = staging[warp];
        const unsigned warp_kept = wd_compact_ranks(st, base, vec, v, keep, [&](unsigned slot, V x, bool k) {
            seg[k ? slot : WD_TILE - 1u - slot] = x;
        });
        const wd_u64 before = wd_block_tile_prefix<wd_op_count>(look_back, tile, (wd_u64)warp_kept, ntiles, count);
        if (mirrors) {
            *mirror = before + warp_kept;
            wd_signal_done(done);
        }
        for (unsigned i = lane; i < warp_kept; i += 32u) kept[before + i] = seg[i];
        if (rejected != nullptr) {
            const wd_u64 rej_before = base - before;
            for (unsigned i = lane; i < valid - warp_kept; i += 32u) rejected[rej_before + i] = seg[WD_TILE - 1u - i];
        }
    } else {
        wd_u64 warp_kept = 0;
#pragma unroll
        for (int k = 0; k < WD_ITEMS; ++k) warp_kept += __popc(__ballot_sync(WD_FULL_MASK, keep[k]));
        const wd_u64 before = wd_block_tile_prefix<wd_op_count>(look_back, tile, warp_kept, ntiles, count);
        if (mirrors) {
            *mirror = before + warp_kept;
            wd_signal_done(done);
        }
        const wd_u64 rej_before = base - before;
        wd_compact_ranks(st, base, vec, v, keep, [&](unsigned slot, V x, bool k) {
            if (k) kept[before + slot] = x;
            else if (rejected != nullptr) rejected[rej_before + slot] = x;
        });
    }
}

// ---- three-way partition ----
// Order-preserving, single pass: values the stage's first predicate keeps go to `first`, those
// it rejects and the second keeps (`keep2`) to `second`, the others to `rest`, each in input
// order. A tile's two counts travel packed in one look-back word (first in bits 0..30, second
// in bits 31..61: inputs below 2^31 elements); its `rest` offset is its start minus both.
// Whole aligned tiles are read as vectors. Ballots rank each value within its part of the
// warp tile (wd_partition3_ranks calls put(part, rank, value)); values of at most 8 bytes are
// staged in the warp's slice of shared memory, parts one after the other, and written out
// coalesced once the tile's offsets are known; wider ones are stored directly. `*count`
// receives the packed total.
template <class St, class Put>
static __device__ __forceinline__ void wd_partition3_ranks(const St& st, wd_u64 base, bool vec,
                                                           typename St::value_t (&v)[WD_ITEMS], bool (&k1)[WD_ITEMS],
                                                           bool (&k2)[WD_ITEMS], Put put) {
    const unsigned lane = threadIdx.x & 31u;
    const wd_u32 below = wd_lanes_below();
    unsigned r1 = 0, r2 = 0, r3 = 0;
    if (vec) {
        // Row r: 32 * VEC consecutive elements, VEC per lane (the whole tile is valid).
        typedef wd_vec_layout<St> L;
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
            const wd_rank q1 = wd_ballot_rank<L::VEC>(k1, r * L::VEC, below),
                        q2 = wd_ballot_rank<L::VEC>(k2, r * L::VEC, below);
            const unsigned l1 = q1.below, l2 = q2.below, t1 = q1.total, t2 = q2.total;
            const unsigned l3 = lane * L::VEC - l1 - l2;
            unsigned m1 = 0, m2 = 0, m3 = 0;
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                const int j = r * L::VEC + k;
                const wd_u64 i = base + L::offset(j, lane);
                if (k1[j]) put(0, r1 + l1 + m1++, st.out(v[j], i));
                else if (k2[j]) put(1, r2 + l2 + m2++, st.out(v[j], i));
                else put(2, r3 + l3 + m3++, st.out(v[j], i));
            }
            r1 += t1;
            r2 += t2;
            r3 += 32u * L::VEC - t1 - t2;
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        const wd_u64 i = base + (wd_u64)k * 32u + lane;
        const bool valid = i < st.n;
        const wd_rank q1 = wd_ballot_rank(k1[k], below), q2 = wd_ballot_rank(k2[k], below),
                      q3 = wd_ballot_rank(valid && !k1[k] && !k2[k], below);
        if (k1[k]) put(0, r1 + q1.below, st.out(v[k], i));
        else if (k2[k]) put(1, r2 + q2.below, st.out(v[k], i));
        else if (valid) put(2, r3 + q3.below, st.out(v[k], i));
        r1 += q1.total;
        r2 += q2.total;
        r3 += q3.total;
    }
}

template <class St>
static __device__ __forceinline__ void wd_partition3(const St& st, typename St::out_t* first, typename St::out_t* second,
                                                     typename St::out_t* rest, unsigned char* status_mem, unsigned int* queue,
                                                     wd_u64* count) {
    typedef typename St::out_t V;
    typedef wd_tile_status<wd_u64, WD_STATUS_PACK62> Status;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
    const wd_u64 ntiles = (st.n + block_tile - 1) / block_tile;
    const wd_prefix_look_back<wd_op_count, Status> look_back{Status(status_mem, ntiles)};
    const wd_u64 tile = wd_tile_index(queue);
    const wd_u64 base = tile * block_tile + (wd_u64)warp * WD_TILE;
    typename St::value_t v[WD_ITEMS];
    bool k1[WD_ITEMS], k2[WD_ITEMS];
    const bool vec = wd_tile_vectorizable(st, base);
    if (vec) wd_load_tile_vec(st, base, v, k1);
    else wd_load_tile(st, base, v, k1);
    wd_u64 c1 = 0, c2 = 0;
#pragma unroll
    for (int k = 0; k < WD_ITEMS; ++k) {
        // In the vector layout every slot is valid; in the scalar one slot k is base + 32k + lane.
        const bool valid = vec || base + (wd_u64)k * 32u + lane < st.n;
        k2[k] = valid && !k1[k] && st.keep2(v[k]);
        c1 += __popc(__ballot_sync(WD_FULL_MASK, k1[k]));
        c2 += __popc(__ballot_sync(WD_FULL_MASK, k2[k]));
    }
    if constexpr (wd_compact_staged<St>::value) {
        __shared__ V staging[WD_BLOCK / 32][WD_TILE];
        V* seg = staging[warp];
        const unsigned start[3] = {0u, (unsigned)c1, (unsigned)(c1 + c2)};
        wd_partition3_ranks(st, base, vec, v, k1, k2, [&](int part, unsigned slot, V x) { seg[start[part] + slot] = x; });
        const wd_u64 before =
            wd_block_tile_prefix<wd_op_count>(look_back, tile, c1 | (c2 << WD_P3_SHIFT), ntiles, count);
        const wd_u64 o1 = before & ((1ull << WD_P3_SHIFT) - 1ull), o2 = before >> WD_P3_SHIFT;
        const wd_u64 o3 = base - o1 - o2;
        const wd_u64 valid = base >= st.n ? 0ull : (st.n - base < WD_TILE ? st.n - base : (wd_u64)WD_TILE);
        for (unsigned i = lane; i < valid; i += 32u) {
            const V x = seg[i];
            if (i < c1) first[o1 + i] = x;
            else if (i < c1 + c2) second[o2 + (i - c1)] = x;
            else rest[o3 + (i - c1 - c2)] = x;
        }
    } else {
        const wd_u64 before =
            wd_block_tile_prefix<wd_op_count>(look_back, tile, c1 | (c2 << WD_P3_SHIFT), ntiles, count);
        const wd_u64 o1 = before & ((1ull << WD_P3_SHIFT) - 1ull), o2 = before >> WD_P3_SHIFT;
        const wd_u64 o3 = base - o1 - o2;
        V* outs[3] = {first + o1, second + o2, rest + o3};
        wd_partition3_ranks(st, base, vec, v, k1, k2, [&](int part, unsigned slot, V x) { outs[part][slot] = x; });
    }
}

