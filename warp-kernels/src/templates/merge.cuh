// ---- warp-dsl merge sort by the user's "less than" (CUB's DeviceMergeSort) ----
// The module defines wd_key (the keys' C type) and wd_less(a, x, y): whether x sorts before y
// (the user's #[predicate(inputs = 2)], its bound arguments in `a`). Stable: of equal keys
// (neither less than the other) the earlier comes first. Positions (u32: each key's index in
// the input) move with the keys when `pos_out` is given (argsort_by).
//
// wd_merge_block_sort: each block sorts a tile of WD_MERGE_TILE keys (WD_MERGE_ITEMS a thread)
// by block.cuh's wd_block_merge_sort (each thread's items sorted in registers, then rounds of
// merges through shared memory, each thread merging WD_MERGE_ITEMS keys from its place on the
// merge path of its pair of runs). Then passes over the whole array,
// each merging pairs of sorted runs of `width` keys: wd_merge_partition finds where each output
// tile starts on the merge path of its pair (a binary search per tile), wd_merge_pass merges a
// tile per block through shared memory.

// The user's order as block.cuh's merge primitives take it.
struct wd_merge_less {
    const wd_args& args;
    __device__ __forceinline__ bool operator()(const wd_key& x, const wd_key& y) const { return wd_less(args, x, y); }
};

// A tile's `count` values (count <= WD_MERGE_TILE; keys, or their positions) into shared
// memory, slot i read from src[at(i)], striped over the threads, each thread's WD_MERGE_ITEMS
// loads in flight before it writes any; no barrier.
template <class T, class At>
static __device__ __forceinline__ void wd_merge_load(const T* src, At at, wd_u32 count, T* dst) {
    T r[WD_MERGE_ITEMS];
#pragma unroll
    for (int j = 0; j < WD_MERGE_ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + j * WD_BLOCK;
        if (i < count) r[j] = src[at(i)];
    }
#pragma unroll
    for (int j = 0; j < WD_MERGE_ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + j * WD_BLOCK;
        if (i < count) dst[i] = r[j];
    }
}

// The block's sorted tile (count keys, and positions when with_pos) out to `at`,
// striped over the threads.
template <class K>
static __device__ __forceinline__ void wd_merge_store(const wd_key* tile, const wd_u32* tpos, wd_u32 count, K* keys_out,
                                                      wd_u32* pos_out, wd_u64 at, bool with_pos) {
#pragma unroll
    for (int j = 0; j < WD_MERGE_ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + j * WD_BLOCK;
        if (i < count) {
            keys_out[at + i] = tile[i];
            if (with_pos) pos_out[at + i] = tpos[i];
        }
    }
}

// The block's tile (keys `base .. base + count`, count <= WD_MERGE_TILE) sorted into keys_out
// (and, when WITH_POS, their positions into pos_out). Without positions the block's shared
// memory is the keys' tile alone.
template <bool WITH_POS, class K>
static __device__ __forceinline__ void wd_merge_block_sort(const wd_args& args, const K* keys, wd_u64 n, K* keys_out,
                                                           wd_u32* pos_out) {
    constexpr int ITEMS = WD_MERGE_ITEMS;
    constexpr unsigned TILE = WD_MERGE_TILE;
    __shared__ wd_key tile[TILE];
    __shared__ wd_u32 tpos[WITH_POS ? TILE : 1];
    constexpr bool with_pos = WITH_POS;
    const wd_u64 base = (wd_u64)blockIdx.x * TILE;
    const wd_u32 count = n - base < TILE ? (wd_u32)(n - base) : TILE;
    wd_merge_load(keys + base, [](wd_u32 i) { return i; }, count, tile);
    __syncthreads();
    // The thread's items, each with its position in the input, sorted with the rest of the tile.
    const wd_u32 mine = threadIdx.x * ITEMS;
    const wd_u32 valid = wd_block_merge_valid<ITEMS>(mine, count);
    wd_key k[ITEMS];
    wd_u32 p[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if ((wd_u32)j < valid) k[j] = tile[mine + j];
        p[j] = (wd_u32)(base + mine + j);
    }
    wd_block_merge_sort<ITEMS>(wd_merge_less{args}, tile, tpos, count, k, p, with_pos);
    wd_merge_store(tile, tpos, count, keys_out, pos_out, base, with_pos);
}

// For each output tile t <= tiles of a pass merging pairs of runs of `width` keys: where it
// starts in its pair's first run (an index into `keys`), into part[t]. Grid-stride.
template <class K>
static __device__ __forceinline__ void wd_merge_partition(const wd_args& args, const K* keys, wd_u64 n, wd_u64 width,
                                                          wd_u64 tiles, wd_u64* part) {
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    for (wd_u64 t = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; t <= tiles; t += stride) {
        const wd_u64 g = t * WD_MERGE_TILE < n ? t * WD_MERGE_TILE : n;
        const wd_u64 start = g / (2 * width) * (2 * width);
        const wd_u64 a_end = start + width < n ? start + width : n;
        const wd_u64 b_end = start + 2 * width < n ? start + 2 * width : n;
        part[t] = start + wd_block_merge_path<wd_u64>(wd_merge_less{args}, keys + start, a_end - start, keys + a_end, b_end - a_end, g - start);
    }
}

// Block t: output tile t of the pass (keys t * WD_MERGE_TILE ..) merged from its pair's runs
// in `keys` into keys_out (and, when WITH_POS, the positions in `pos` into pos_out).
template <bool WITH_POS, class K>
static __device__ __forceinline__ void wd_merge_pass(const wd_args& args, const K* keys, const wd_u32* pos, wd_u64 n,
                                                     wd_u64 width, const wd_u64* part, K* keys_out, wd_u32* pos_out) {
    constexpr int ITEMS = WD_MERGE_ITEMS;
    constexpr unsigned TILE = WD_MERGE_TILE;
    __shared__ wd_key tile[TILE];
    __shared__ wd_u32 tpos[WITH_POS ? TILE : 1];
    constexpr bool with_pos = WITH_POS;
    const wd_u64 t = blockIdx.x;
    const wd_u64 g0 = t * TILE, g1 = g0 + TILE < n ? g0 + TILE : n;
    const wd_u64 start = g0 / (2 * width) * (2 * width);
    const wd_u64 a_end = start + width < n ? start + width : n;
    const wd_u64 b_end = start + 2 * width < n ? start + 2 * width : n;
    // The tile's keys: a[a0 .. a1) and b[b0 .. b1), b starting at a_end.
    const wd_u64 a0 = part[t];
    const wd_u64 a1 = g1 == b_end ? a_end : part[t + 1];
    const wd_u64 b0 = a_end + (g0 - start) - (a0 - start);
    const wd_u64 b1 = a_end + (g1 - start) - (a1 - start);
    const wd_u32 na = (wd_u32)(a1 - a0), nb = (wd_u32)(b1 - b0);
    const wd_u32 count = na + nb;
    const auto at = [=](wd_u32 i) { return i < na ? a0 + i : b0 + (i - na); };
    wd_merge_load(keys, at, count, tile);
    if (with_pos) wd_merge_load(pos, at, count, tpos);
    __syncthreads();
    const wd_u32 mine = threadIdx.x * ITEMS;
    const wd_u32 valid = wd_block_merge_valid<ITEMS>(mine, count);
    wd_key k[ITEMS];
    wd_u32 p[ITEMS];
    const wd_merge_less less{args};
    if (valid > 0) {
        const wd_u32 ai = wd_block_merge_path<wd_u32>(less, tile, na, tile + na, nb, mine);
        wd_block_merge_serial<ITEMS>(less, tile, tpos, ai, na, na + (mine - ai), count, k, p, with_pos);
    }
    wd_block_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos);
    wd_merge_store(tile, tpos, count, keys_out, pos_out, g0, with_pos);
}

// ---- four-way passes ----
// A pass merging groups of four sorted runs of `width` keys (A, B, C, D, in that order; the
// last group's clipped at n) stably, as merge(merge(A, B), merge(C, D)) would: of equal keys
// A's first, then B's, C's, D's. One such pass replaces two two-way ones: half the traffic.
//
// Where each block's share starts comes from pivots, whose places in the group's output are
// exact and cheap: the keys of X = merge(A, B) at multiples of WD_MERGE4_SPACING, and those of
// Y = merge(C, D) likewise. A pivot's split of its own pair is a merge-path search; the keys of
// the other pair before it are a bound in each of that pair's runs (a key of X goes first among
// equals, so the keys of C and D less than it; a key of Y goes last, so the keys of A and B not
// after it), two binary searches in lockstep. Between two pivots next in the output lie at most
// WD_MERGE4_SPACING keys of X and as many of Y. A group's output is cut at WD_MERGE4_SPAN-even
// places e_i; block i starts at the last pivot at or before e_i (wd_merge4_pivots finds it by an
// atomic max; as WD_MERGE4_SPAN >= 4 * WD_MERGE4_SPACING + 2, every cut has one within it) and
// ends where block i + 1 starts, and merges its share chunk by chunk (wd_merge4_pass).

// A group of four runs: its first key, its runs' lengths and the blocks that merge it.
struct wd_merge4_group {
    wd_u64 start;
    wd_u64 len[4];
    wd_u64 size;
    wd_u64 blocks;
};

// Group g of a pass over n keys in runs of `width`.
static __device__ __forceinline__ wd_merge4_group wd_merge4_group_of(wd_u64 g, wd_u64 n, wd_u64 width) {
    wd_merge4_group r;
    r.start = g * 4 * width;
    wd_u64 at = r.start;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const wd_u64 end = at + width < n ? at + width : n;
        r.len[i] = end - at;
        at = end;
    }
    r.size = at - r.start;
    r.blocks = (r.size + WD_MERGE4_SPAN - 1) / WD_MERGE4_SPAN;
    return r;
}

// Blocks of a whole group (the block index's stride between groups).
static __device__ __forceinline__ wd_u64 wd_merge4_group_blocks(wd_u64 width) {
    return (4 * width + WD_MERGE4_SPAN - 1) / WD_MERGE4_SPAN;
}

// One step of a binary search over [lo, lo + len) whose probe, at lo + (len >> 1), sorts
// `after` the query or not: the bound lies past the probe or before it. With len 0, nothing.
static __device__ __forceinline__ void wd_merge_bound_step(wd_u64& lo, wd_u64& len, bool after) {
    if (len == 0) return;
    const wd_u64 half = len >> 1;
    if (after) {
        lo += half + 1;
        len -= half + 1;
    } else {
        len = half;
    }
}

// Whether a search's probe key sorts before its query by wd_less: less than it, or, with
// `ties`, also equal to it (not greater). The step's `after` of a lower (upper) bound.
static __device__ __forceinline__ bool wd_merge_probe_before(const wd_args& args, const wd_key& probe, const wd_key& query, bool ties) {
    return ties ? !wd_less(args, query, probe) : wd_less(args, probe, query);
}

// How many keys of run r0 (n0 keys) and of run r1 (n1) sort before the pivot x: those less
// than x, and, when `ties`, those equal to it too (their runs come before x's). Two binary
// searches in lockstep, so that each step's two loads are in flight together.
template <class K>
static __device__ __forceinline__ void wd_merge4_ranks(const wd_args& args, const K* r0, wd_u64 n0, const K* r1, wd_u64 n1,
                                                       const wd_key& x, bool ties, wd_u64& c0, wd_u64& c1) {
    wd_u64 lo0 = 0, len0 = n0, lo1 = 0, len1 = n1;
    while (len0 > 0 || len1 > 0) {
        wd_key e0 = x, e1 = x;
        if (len0 > 0) e0 = r0[lo0 + (len0 >> 1)];
        if (len1 > 0) e1 = r1[lo1 + (len1 >> 1)];
        wd_merge_bound_step(lo0, len0, wd_merge_probe_before(args, e0, x, ties));
        wd_merge_bound_step(lo1, len1, wd_merge_probe_before(args, e1, x, ties));
    }
    c0 = lo0;
    c1 = lo1;
}

// Each pivot of a four-way pass (a thread each, grid-stride over `total` = groups * 2 * half,
// half = 2 * width / WD_MERGE4_SPACING): pivot q of group g is the group's start (q == 0), the
// key of X at q * WD_MERGE4_SPACING (q < half) or the key of Y at (q - half) *
// WD_MERGE4_SPACING. Its split (the keys of A, B, C and D before it, relative to their runs)
// goes to table[4 * (g * 2 * half + q) ..]; if it is a block's start, (its place << 32 | q)
// goes to that block's slot by an atomic max (slots zeroed), so that each slot ends with the
// last pivot at or before its cut. A thread's binary searches: a warp each, testing 32 places
// a step, took twice as long on an H100 (its steps read 32 sectors each, about 240 MB a pass).
template <class K>
static __device__ __forceinline__ void wd_merge4_pivots(const wd_args& args, const K* keys, wd_u64 n, wd_u64 width, wd_u64 total,
                                                        wd_u32* table, wd_u64* slots) {
    static_assert(WD_MERGE4_SPAN >= 4 * WD_MERGE4_SPACING + 2, "every cut has a pivot within it");
    const wd_u64 half = 2 * width / WD_MERGE4_SPACING;
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    const wd_merge_less less{args};
    for (wd_u64 t = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; t < total; t += stride) {
        const wd_u64 g = t / (2 * half), q = t % (2 * half);
        const wd_merge4_group gr = wd_merge4_group_of(g, n, width);
        wd_u64 s[4] = {0, 0, 0, 0};
        if (q != 0) {
            // The pivot's pair (p: A and B, or C and D) and the other (o); selects, not
            // indexing, so that nothing goes to local memory.
            const bool of_y = q >= half;
            const K* p0 = keys + gr.start + (of_y ? 2 * width : 0);
            const K* p1 = p0 + width;
            const K* o0 = keys + gr.start + (of_y ? 0 : 2 * width);
            const K* o1 = o0 + width;
            const wd_u64 np0 = of_y ? gr.len[2] : gr.len[0], np1 = of_y ? gr.len[3] : gr.len[1];
            const wd_u64 no0 = of_y ? gr.len[0] : gr.len[2], no1 = of_y ? gr.len[1] : gr.len[3];
            const wd_u64 at = (of_y ? q - half : q) * WD_MERGE4_SPACING;
            if (at >= np0 + np1) continue;
            const wd_u64 i0 = wd_block_merge_path<wd_u64>(less, p0, np0, p1, np1, at), i1 = at - i0;
            const bool second = i1 < np1 && (i0 >= np0 || wd_less(args, p1[i1], p0[i0]));
            const wd_key x = second ? p1[i1] : p0[i0];
            wd_u64 c0, c1;
            wd_merge4_ranks(args, o0, no0, o1, no1, x, of_y, c0, c1);
            s[0] = of_y ? c0 : i0;
            s[1] = of_y ? c1 : i1;
            s[2] = of_y ? i0 : c0;
            s[3] = of_y ? i1 : c1;
        }
        const wd_u64 place = s[0] + s[1] + s[2] + s[3];
        // The first cut at or after the pivot, e_i = floor(i * size / blocks) >= place.
        const wd_u64 i = (place * gr.blocks + gr.size - 1) / gr.size;
        if (i >= gr.blocks) continue;
        reinterpret_cast<uint4*>(table)[t] = make_uint4((wd_u32)s[0], (wd_u32)s[1], (wd_u32)s[2], (wd_u32)s[3]);
        atomicMax(reinterpret_cast<unsigned long long*>(slots + g * wd_merge4_group_blocks(width) + i),
                  (unsigned long long)(place << 32 | q));
    }
}

// A block's split (the keys of each run before its first output) from its slot.
static __device__ __forceinline__ void wd_merge4_split(const wd_u32* table, const wd_u64* slots, wd_u64 g, wd_u64 half, wd_u64 slot,
                                                       wd_u64 (&s)[4]) {
    const wd_u64 q = slots[slot] & 0xffffffffu;
    const uint4 v = reinterpret_cast<const uint4*>(table)[g * 2 * half + q];
    s[0] = v.x;
    s[1] = v.y;
    s[2] = v.z;
    s[3] = v.w;
}

// Whether (x from run rx) sorts before (y from run ry) in a four-way merge: by the user's
// order, then the earlier run first.
static __device__ __forceinline__ bool wd_merge4_before(const wd_args& args, const wd_key& x, int rx, const wd_key& y, int ry) {
    return wd_less(args, x, y) || (rx < ry && !wd_less(args, y, x));
}

// A four-way pass's chunk is loaded by segments of 32 slots of the tile (a warp's loads): each
// window is whole segments, WD_MERGE4_SEGMENTS of them in all, at least WD_MERGE4_MIN_SEGMENTS a
// window (the share of the rest follows what the run gave the last chunk).
#define WD_MERGE4_SEGMENTS (4 * WD_MERGE4_WINDOW / 32)
#ifndef WD_MERGE4_MIN_SEGMENTS
#define WD_MERGE4_MIN_SEGMENTS (WD_MERGE4_SEGMENTS >= 64 ? WD_MERGE4_SEGMENTS / 64 : 1)
#endif

// A chunk's plan, by warp 0 (every lane computes it from the same nx, en, wn; lane 0 stores
// it): window r of the tile (slots wn[r] .. wn[r + 1], whole segments) takes run r's keys from
// nx[r], up to the share's end en[r] (runs `width` apart in the group). Stored: next, wins, and
// end[r] (where window r's keys stop), and for each segment s, seg[s] = (the group's key for
// its first slot, how many of its slots hold keys): the windows' loads need no search.
static __device__ __forceinline__ void wd_merge4_plan(const wd_u32 (&nx)[4], const wd_u32 (&en)[4], const wd_u32 (&wn)[5],
                                                      wd_u64 width, wd_u32* next, wd_u32* wins, wd_u32* end, uint2* seg) {
    const wd_u32 lane = threadIdx.x & 31;
    wd_u32 from[4], stop[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        const wd_u32 left = en[r] - nx[r], w = wn[r + 1] - wn[r];
        from[r] = r * (wd_u32)width + nx[r] - wn[r];
        stop[r] = wn[r] + (left < w ? left : w);
    }
    if (lane == 0) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            next[r] = nx[r];
            wins[r] = wn[r];
            end[r] = stop[r];
        }
        wins[4] = wn[4];
    }
    for (wd_u32 s = lane; s < WD_MERGE4_SEGMENTS; s += 32) {
        const wd_u32 i = 32 * s;
        wd_u32 f = from[0], e = stop[0];
#pragma unroll
        for (int r = 1; r < 4; ++r) {
            f = i >= wn[r] ? from[r] : f;
            e = i >= wn[r] ? stop[r] : e;
        }
        uint2 m;
        m.x = f + i;
        m.y = e > i ? (e - i < 32 ? e - i : 32) : 0;
        seg[s] = m;
    }
}

// A chunk's windows into the tile, by wd_merge4_plan's segments: the tile's slots striped over
// the threads, in batches of up to 8 a thread whose loads are all in flight before their writes
// (more would spill beside the loop's state).
template <class T>
static __device__ __forceinline__ void wd_merge4_windows(const T* group, const uint2* seg, T* tile) {
    constexpr int SLOTS = 32 * WD_MERGE4_SEGMENTS, PER = (SLOTS + WD_BLOCK - 1) / WD_BLOCK, BATCH = PER < 8 ? PER : 8;
    constexpr int WARPS = WD_BLOCK / 32;
    // The warp's segments (warp + WARPS * k) and the lane's key in each.
    const wd_u32 lane = threadIdx.x & 31;
    const uint2* mine = seg + threadIdx.x / 32;
    const T* at = group + lane;
    T* put = tile + threadIdx.x;
#pragma unroll
    for (int b = 0; b < PER; b += BATCH) {
        T v[BATCH];
        wd_u32 valid = 0;
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            const int k = b + j;
            // A whole segment a warp: past the last one (where the slots are not a whole
            // number of the block's) the warp has none.
            const bool some = k < PER && (SLOTS % WD_BLOCK == 0 || threadIdx.x + k * WD_BLOCK < (unsigned)SLOTS);
            const uint2 m = some ? mine[k * WARPS] : uint2{0, 0};
            const bool ok = lane < m.y;
            valid |= (wd_u32)ok << j;
            // Loaded either way (a slot without a key reads the group's first key, which is
            // there in every group, where the lane's own could be past the array's end): a load
            // left unset would carry the last chunk's value through the loop.
            v[j] = *(ok ? at + m.x : group);
        }
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            if (valid >> j & 1) put[(b + j) * WD_BLOCK] = v[j];
        }
    }
}

// A four-way pass's chunk plan (wd_merge4_plan's output): the runs' next keys, where each
// window starts in the tile (and the last ends), where its keys end, the segments' loads.
struct wd_merge4_chunk {
    wd_u32 next[4], wins[5], end[4];
    uint2 seg[WD_MERGE4_SEGMENTS];
};

// Block b of a four-way pass: its share of its group (from its slot and the next, or the
// group's end) merged chunk by chunk into keys_out (keys alone: with positions, which the
// rounds' registers cannot hold beside the keys without spilling, the passes are two-way). A
// chunk loads a window of each run's next keys into the tile, WD_MERGE4_SEGMENTS segments of 32
// keys in all: at first a quarter each, then each run at least WD_MERGE4_MIN_SEGMENTS and the
// rest as the runs gave to the last chunk (already sorted runs give one run nearly the whole
// chunk). The window whose last key sorts first (of those that stop short of the share's end)
// bounds the chunk: every loaded key before that one, and it, are the share's next outputs, as
// no key left unloaded can come before it. Thread r counts run r's such keys (a binary search
// in its window); the chunk's pieces are merged in two rounds (A with B and C with D, then the
// two results), stored, and the next chunk starts after them, on the plan warp 0 made while the
// block merged.
template <class K>
static __device__ __forceinline__ void wd_merge4_pass(const wd_args& args, const K* keys, wd_u64 n, wd_u64 width, const wd_u32* table,
                                                      const wd_u64* slots, K* keys_out) {
    constexpr int ITEMS = WD_MERGE_ITEMS;
    constexpr unsigned TILE = WD_MERGE_TILE, SEGS = WD_MERGE4_SEGMENTS, MIN_S = WD_MERGE4_MIN_SEGMENTS;
    static_assert(32 * SEGS + ITEMS <= TILE, "the windows and a round's spare thread fit a tile");
    static_assert(MIN_S >= 1 && 4 * MIN_S <= SEGS, "every run has a window");
    // Two tiles where they fit the 48 KiB of static shared memory: a chunk's windows in one,
    // its first round's output in the other, its second round's back in the first (stored
    // from there), the next chunk's windows in the second; a round's writes then need no
    // barrier before them, nor the next chunk's loads one after the stores. With one tile,
    // each has its barrier. Keys of 1 or 2 bytes keep one tile: with two, ptxas spilled 380
    // bytes of the rounds' registers (u16 keys, 2026-12-06).
    constexpr bool TWO = sizeof(wd_key) >= 4 && 2 * sizeof(wd_key) * TILE + 2 * sizeof(wd_merge4_chunk) + 64 <= 48 * 1024;
    __shared__ wd_key tiles[TWO ? 2 : 1][TILE];
    __shared__ wd_u32 tpos[1]; // no positions: the merge primitives' unused argument
    // The runs' share ends, the chunk's counts, and the plans of this chunk and the next
    // (warp 0 writes the next one while the block merges).
    __shared__ wd_u32 ends[4], take[4];
    __shared__ wd_merge4_chunk plans[2];
    constexpr bool with_pos = false;
    const volatile wd_u32* vtake = take;
    const wd_u64 per = wd_merge4_group_blocks(width), half = 2 * width / WD_MERGE4_SPACING;
    const wd_u64 g = blockIdx.x / per, i = blockIdx.x % per;
    const wd_merge4_group gr = wd_merge4_group_of(g, n, width);
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) {
            wd_u64 s0[4], s1[4];
            wd_merge4_split(table, slots, g, half, g * per + i, s0);
            if (i + 1 < gr.blocks) {
                wd_merge4_split(table, slots, g, half, g * per + i + 1, s1);
            } else {
#pragma unroll
                for (int r = 0; r < 4; ++r) s1[r] = gr.len[r];
            }
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                plans[0].next[r] = (wd_u32)s0[r];
                ends[r] = (wd_u32)s1[r];
            }
        }
        __syncwarp();
        wd_u32 nx[4], en[4], wn[5];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            nx[r] = ((volatile wd_u32*)plans[0].next)[r];
            en[r] = ((volatile wd_u32*)ends)[r];
            wn[r] = 32 * (r * SEGS / 4);
        }
        wn[4] = 32 * SEGS;
        __syncwarp();
        wd_merge4_plan(nx, en, wn, width, plans[0].next, plans[0].wins, plans[0].end, plans[0].seg);
    }
    __syncthreads();
    const K* group = keys + gr.start;
    const wd_merge_less less{args};
    wd_u64 place = gr.start;
#pragma unroll
    for (int r = 0; r < 4; ++r) place += ((volatile wd_u32*)plans[0].next)[r];
    for (wd_u32 c = 0;; ++c) {
        const wd_merge4_chunk& plan = plans[c & 1];
        const volatile wd_u32* vnext = plan.next;
        const volatile wd_u32* vwins = plan.wins;
        const volatile wd_u32* vend = plan.end;
        wd_key* tile = tiles[TWO ? c & 1 : 0];
        wd_key* other = tiles[TWO ? ~c & 1 : 0];
        // The windows: run r's keys from next[r], slots at[r] .. end[r] of the tile.
        wd_u32 at[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) at[r] = vwins[r];
        if (vend[0] - at[0] + vend[1] - at[1] + vend[2] - at[2] + vend[3] - at[3] == 0) break;
        wd_merge4_windows(group, plan.seg, tile);
        __syncthreads();
        if (threadIdx.x < 4) {
            // The bound: of the windows that stop short of the share's end, the one whose last
            // key sorts first (-1: none; every loaded key is an output).
            int bound = -1;
            wd_key last = tile[0];
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const wd_u32 stop = vwins[r + 1];
                if (vend[r] == stop && vnext[r] + (stop - at[r]) < ends[r]) {
                    const wd_key x = tile[stop - 1];
                    if (bound < 0 || wd_merge4_before(args, x, r, last, bound)) {
                        bound = r;
                        last = x;
                    }
                }
            }
            const int me = threadIdx.x;
            const wd_u32 a = vwins[me], l = vend[me] - a;
            wd_u32 cnt = l;
            if (bound >= 0 && me != bound) {
                // Run me's keys that sort before the bound's last key (or equal it, from an
                // earlier run).
                wd_u32 lo = 0, n = l;
                while (n > 0) {
                    const wd_u32 h = n >> 1;
                    if (wd_merge4_before(args, tile[a + lo + h], me, last, bound)) {
                        lo += h + 1;
                        n -= h + 1;
                    } else {
                        n = h;
                    }
                }
                cnt = lo;
            }
            take[me] = cnt;
        }
        __syncthreads();
        const wd_u32 total = vtake[0] + vtake[1] + vtake[2] + vtake[3];
        if (threadIdx.x < 32) {
            // The next chunk's plan: MIN_S segments each, the rest as the runs gave to this
            // chunk. Its readers come after this chunk's barriers; the last ones of the plan
            // it replaces came before the last barrier.
            wd_u32 nx[4], en[4], wn[5];
            wn[0] = 0;
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                nx[r] = vnext[r] + vtake[r];
                en[r] = ends[r];
                if (r < 3) wn[r + 1] = wn[r] + 32 * (MIN_S + vtake[r] * (SEGS - 4 * MIN_S) / total);
            }
            wn[4] = 32 * SEGS;
            wd_merge4_chunk& next = plans[~c & 1];
            wd_merge4_plan(nx, en, wn, width, next.next, next.wins, next.end, next.seg);
        }
        wd_key k[ITEMS];
        wd_u32 p[ITEMS];
        // Round one: X' = merge(A', B') into the other tile's first nx slots, Y' = merge(C',
        // D') after them; the first ceil(nx / ITEMS) threads take X', the rest Y'. `base`: the
        // pair's first window, `gap`: where its second starts, `d`: the thread's first output
        // in the pair.
        const auto round_one = [&](wd_u32& base, wd_u32& gap, wd_u32& na, wd_u32& nb, wd_u32& d, wd_u32& out) {
            const wd_u32 nx = vtake[0] + vtake[1], tx = (nx + ITEMS - 1) / ITEMS;
            const bool in_y = threadIdx.x >= tx;
            base = in_y ? vwins[2] : 0;
            gap = in_y ? vwins[3] - vwins[2] : vwins[1];
            na = in_y ? vtake[2] : vtake[0];
            nb = in_y ? vtake[3] : vtake[1];
            d = (in_y ? threadIdx.x - tx : threadIdx.x) * ITEMS;
            out = (in_y ? nx : 0) + d;
        };
        {
            wd_u32 base, gap, na, nb, d, out;
            round_one(base, gap, na, nb, d, out);
            if (d < na + nb) {
                const wd_u32 ai = wd_block_merge_path<wd_u32>(less, tile + base, na, tile + base + gap, nb, d);
                wd_block_merge_serial<ITEMS>(less, tile + base, tpos, ai, na, gap + (d - ai), gap + nb, k, p,
                                             with_pos);
            }
        }
        {
            wd_u32 base, gap, na, nb, d, out;
            round_one(base, gap, na, nb, d, out);
            wd_block_merge_put<ITEMS>(other, tpos, out, wd_block_merge_valid<ITEMS>(d, na + nb), k, p, with_pos, !TWO);
        }
        // Round two: X' with Y', back into the tile.
        const wd_u32 mine = threadIdx.x * ITEMS;
        {
            const wd_u32 nx = vtake[0] + vtake[1];
            if (mine < total) {
                const wd_u32 ai = wd_block_merge_path<wd_u32>(less, other, nx, other + nx, total - nx, mine);
                wd_block_merge_serial<ITEMS>(less, other, tpos, ai, nx, nx + (mine - ai), total, k, p, with_pos);
            }
        }
        wd_block_merge_put<ITEMS>(tile, tpos, mine, wd_block_merge_valid<ITEMS>(mine, total), k, p, with_pos, !TWO);
        wd_merge_store(tile, tpos, total, keys_out, nullptr, place, with_pos);
        place += total;
        // With one tile, the next chunk's loads overwrite the tile the stores read.
        if (!TWO) __syncthreads();
    }
}

// Binary search by the comparator (lower_bound_by / upper_bound_by): for each of the m queries,
// a thread (grid-stride) finds in the n keys sorted by wd_less the first position i whose key
// is not less than the query (upper == 0: !wd_less(keys[i], q)) or that the query is less than
// (upper != 0: wd_less(q, keys[i])), n when there is none; out[j] = i (n < 2^32).
static __device__ __forceinline__ void wd_merge_search(const wd_args& args, const wd_key* keys, wd_u64 n,
                                                       const wd_key* queries, wd_u64 m, wd_u32 upper, wd_u32* out) {
    for (wd_u64 j = blockIdx.x * (wd_u64)blockDim.x + threadIdx.x; j < m; j += (wd_u64)gridDim.x * blockDim.x) {
        const wd_key q = queries[j];
        wd_u64 lo = 0, len = n;
        while (len > 0) {
            const wd_key x = keys[lo + (len >> 1)];
            wd_merge_bound_step(lo, len, wd_merge_probe_before(args, x, q, upper != 0));
        }
        out[j] = (wd_u32)lo;
    }
}
