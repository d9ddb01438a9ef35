// ---- warp-dsl radix sort: one histogram pass, then one pass per 8-bit digit (Onesweep) ----
// Order: every key becomes its order word (order.cuh: wd_sort_bits, wd_sort_word); keys move as
// these words and are turned back into keys when a pass writes them.
//
// wd_sort_histogram (one read of the keys) counts every digit of every key: a block's shared
// histograms, added to the global ones. wd_sort_plan scans each digit's histogram into the
// digit's first output position, and marks a pass to be skipped when one digit holds every key
// (the pass would move nothing); it chooses each active pass's source and destination so that
// the last one writes the output. wd_sort_pass, once per digit: a block takes the next tile of
// WD_SORT_TILE keys (tile queue), counts each warp's digits (shared atomics) and publishes the
// tile's count of each digit at once (early counts), ranks the keys by the digit within the
// block (per-digit lane masks set by shared atomic ORs, a scan over the warps and over the
// digits; in a pass the plan marks crowded, each item's lanes of one digit found by
// __match_any_sync instead), looks back over its predecessors' counts (one thread per digit, decoupled look-back
// with inclusive prefixes), then writes its keys (and values) through shared memory in digit
// order, so that each digit's keys are written out contiguously. Stable: ranks follow input
// order within a warp, warps within a block, tiles in queue order.

// ---- the histogram of every digit ----
// hist: sizeof(K) histograms of 256 u64 counts (zeroed before the launch), pass p's at
// hist[p * 256]. Grid-stride over the keys, WD_SORT_UNROLL loads in flight a thread; each key
// adds one to its digit of every pass in the block's shared histograms (shared atomics); the
// block then adds its non-zero counts to hist. Two barriers. With `needed` given and 0 (see
// wd_sort_plan), nothing is counted. Pass p's digit starts at bit wd_sort_pass_bit(p, low) of
// the order word (low: the bits below it are not sorted on; 0 for a whole sort).
template <class K>
static __device__ __forceinline__ void wd_sort_histogram(const K* keys, wd_u64 n, bool descending, wd_u32 low,
                                                         const wd_u32* needed, wd_u64* hist) {
    if (needed != nullptr && *needed == 0u) return;  // the plan runs no pass
    constexpr int P = (int)sizeof(K);
    __shared__ wd_u32 h[P * 256];
    for (unsigned i = threadIdx.x; i < P * 256u; i += WD_BLOCK) h[i] = 0u;
    __syncthreads();
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    auto count = [&](K x) {
        const typename wd_sort_bits<K>::T w = wd_sort_word(x, descending);
#pragma unroll
        for (int p = 0; p < P; ++p) atomicAdd(&h[p * 256 + wd_sort_digit_at(w, wd_sort_pass_bit<typename wd_sort_bits<K>::T>((wd_u32)p, low))], 1u);
    };
    for (; i + (WD_SORT_UNROLL - 1) * stride < n; i += WD_SORT_UNROLL * stride) {
        K x[WD_SORT_UNROLL];
#pragma unroll
        for (int u = 0; u < WD_SORT_UNROLL; ++u) x[u] = keys[i + u * stride];
#pragma unroll
        for (int u = 0; u < WD_SORT_UNROLL; ++u) count(x[u]);
    }
    for (; i < n; i += stride) count(keys[i]);
    __syncthreads();
    for (unsigned j = threadIdx.x; j < P * 256u; j += WD_BLOCK) {
        if (h[j] != 0u) atomicAdd((unsigned long long*)&hist[j], (unsigned long long)h[j]);
    }
}

// ---- the plan: digit offsets and the passes to run ----
// One block; `passes` (1 to 8) histograms. offsets[p * 256 + d]: the first output position of
// digit d in pass p (the exclusive scan of hist[p]). plan[p]: 0 for a skipped pass (one digit holds all n keys), else
// 1 | source << 4 | destination << 8 | crowded << 12, where 0 is the input, 1 the output and 2
// the scratch buffer: the first active pass reads the input and the last writes the output;
// `crowded` when one digit holds more than n / WD_SORT_CROWDED of the keys (the pass then
// ranks by __match_any_sync: see wd_sort_warp_rank_match). When every
// pass would be skipped (all keys equal), the last runs anyway, as the copy to the output.
// With `needed` given and 0 (a caller that reads the keys in place when they are already in
// order), no pass runs.
static __device__ __forceinline__ void wd_sort_plan(const wd_u64* hist, wd_u64 n, wd_u32 passes, const wd_u32* needed,
                                                    wd_u64* offsets, wd_u32* plan) {
    const int P = (int)passes;  // at most 8
    __shared__ wd_u64 slots[WD_BLOCK / 32];
    __shared__ wd_u32 skip[8], crowded[8];
    if (threadIdx.x < (unsigned)P) skip[threadIdx.x] = crowded[threadIdx.x] = 0u;
    __syncthreads();
    for (int p = 0; p < P; ++p) {
        const wd_u64 h = threadIdx.x < 256u ? hist[p * 256 + threadIdx.x] : 0ull;
        wd_u64 total;
        const wd_u64 before = wd_block_scan<wd_op_count, true>(h, slots, total);
        if (threadIdx.x < 256u) {
            offsets[p * 256 + threadIdx.x] = before;
            if (h == n) skip[p] = 1u;
            if (h > n / WD_SORT_CROWDED) crowded[p] = 1u;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0 && needed != nullptr && *needed == 0u) {
        for (int p = 0; p < P; ++p) plan[p] = 0u;
    } else if (threadIdx.x == 0) {
        int active = 0;
        for (int p = 0; p < P; ++p) active += skip[p] ? 0 : 1;
        if (active == 0) {
            skip[P - 1] = 0u;
            active = 1;
        }
        wd_u32 src = 0u;
        int done = 0;
        for (int p = 0; p < P; ++p) {
            if (skip[p]) {
                plan[p] = 0u;
                continue;
            }
            const wd_u32 dst = ((active - 1 - done) % 2 == 0) ? 1u : 2u;
            plan[p] = 1u | (src << 4) | (dst << 8) | (crowded[p] << 12);
            src = dst;
            ++done;
        }
    }
}

// ---- one digit pass ----
// Look-back status: one 64-bit word per (tile, digit), status[tile * 256 + digit]: state in
// bits 62..63 (1: the tile's count, 2: the inclusive prefix), the pass's epoch (pass + 1) in
// bits 56..61, the value in bits 0..55. Zeroed once per sort; every pass reuses it, a word of
// an earlier pass reading as not yet published.
#define WD_SORT_COUNT 1ull
#define WD_SORT_PREFIX 2ull
static __device__ __forceinline__ void wd_sort_publish(wd_u64* word, wd_u64 state, wd_u64 epoch, wd_u64 v) {
    atomicExch((unsigned long long*)word, (unsigned long long)((state << 62) | (epoch << 56) | v));
}

// Digit `digit`'s keys in the tiles before `tile`, by the one thread of that digit, after the
// tile published its count: back over the predecessors' words up to the nearest inclusive
// prefix (every tile before it has started: the tile queue). The nearest predecessor is read
// alone (it often holds its inclusive prefix already); further back, WD_SORT_LOOKBACK words are
// read at once and taken in order up to the first not yet published, where the next window
// starts. Any published word is right to add (a tile's count, or its inclusive prefix, which
// ends the walk), whenever it was read.
static __device__ __forceinline__ wd_u64 wd_sort_look_back(wd_u64* status, wd_u64 tile, wd_u32 digit, wd_u64 epoch) {
    wd_u64 prefix = 0;
    wd_i64 t = (wd_i64)tile - 1;
    int width = 1;
    for (;;) {
        wd_u64 w[WD_SORT_LOOKBACK];
#pragma unroll
        for (int k = 0; k < WD_SORT_LOOKBACK; ++k) {
            // Tile 0 publishes an inclusive prefix, so the walk never takes a word before it.
            w[k] = (k < width && t - k >= 0) ? *(volatile wd_u64*)(status + (wd_u64)(t - k) * 256u + digit) : 0ull;
        }
#pragma unroll
        for (int k = 0; k < WD_SORT_LOOKBACK; ++k) {
            if (k >= width || ((w[k] >> 56) & 63ull) != epoch) break;
            prefix += w[k] & ((1ull << 56) - 1ull);
            if ((w[k] >> 62) == WD_SORT_PREFIX) return prefix;
            --t;
        }
        width = WD_SORT_LOOKBACK;
    }
}

// ---- ranking a block's keys by one digit (the passes and the rows' sort) ----
// The block's keys are warp-striped: item j of lane l of warp w is the block's key
// w * 32 * ITEMS + j * 32 + l, the order ranks keep (stable). whist and wmask: a row of 256
// counters and one of 256 lane masks a warp, in shared memory. THREADS: the block's threads
// (WD_SORT_BLOCK in a pass, WD_BLOCK in the rows' and segments' sorts).

// A thread's small fields of its items, set in order (item j before j + 1): 32 / BITS a
// register (BITS 8 or 16), or one a register (BITS 32). The ranking's registers are what bound
// a pass.
template <int ITEMS, int BITS> struct wd_sort_packed {
    static_assert(BITS == 8 || BITS == 16 || BITS == 32, "fields of 8, 16 or 32 bits");
    static constexpr int PER = 32 / BITS;
    static constexpr wd_u32 MASK = BITS == 32 ? 0xffffffffu : (1u << (BITS % 32)) - 1u;
    wd_u32 r[(ITEMS + PER - 1) / PER];
    __device__ __forceinline__ void set(int j, wd_u32 v) {
        if (PER == 1) {
            r[j] = v;
        } else if (j % PER) {
            r[j / PER] |= v << (BITS * (j % PER));
        } else {
            r[j / PER] = v;
        }
    }
    __device__ __forceinline__ wd_u32 operator[](int j) const { return PER == 1 ? r[j] : (r[j / PER] >> (BITS * (j % PER))) & MASK; }
};
// A thread's ranks of its items in the block's tile, two a register (a tile holds at most
// 65,536 keys).
template <int ITEMS> using wd_sort_ranks = wd_sort_packed<ITEMS, 16>;
// A thread's digits of its items in a pass's tile: four a register when PACK (keys of at most
// 4 bytes: their passes that move values then spill nothing, 4 bytes unpacked), else one
// (8-byte keys' passes spill more packed: 104 bytes against 20).
template <int ITEMS, bool PACK> using wd_sort_digits = wd_sort_packed<ITEMS, PACK ? 8 : 32>;

// Each warp's count of each digit into whist[warp] (shared atomics). The caller's barrier
// publishes them. digit(j): the digit of the thread's item j (recomputed where needed rather
// than held: registers are what bound a pass).
template <int ITEMS, class D>
static __device__ __forceinline__ void wd_sort_warp_counts(D digit, wd_u32 (*whist)[256], wd_u32 (*wmask)[256]) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (unsigned d = lane; d < 256u; d += 32u) {
        whist[warp][d] = 0u;
        wmask[warp][d] = 0u;
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) atomicAdd(&whist[warp][digit(j)], 1u);
}

// Thread d < 256, after the counts' barrier: digit d's keys in the warps before each warp, in
// place in whist[k][d]; returns the block's count of digit d (0 for other threads).
template <unsigned THREADS>
static __device__ __forceinline__ wd_u32 wd_sort_warp_prefix(wd_u32 (*whist)[256]) {
    wd_u32 mine = 0u;
    if (threadIdx.x < 256u) {
        for (unsigned k = 0; k < THREADS / 32; ++k) {
            const wd_u32 c = whist[k][threadIdx.x];
            whist[k][threadIdx.x] = mine;
            mine += c;
        }
    }
    return mine;
}

// All threads: the block's keys of digits below d (block scan of `mine`), returned to thread
// d and added to each warp's first rank of d in whist; a barrier follows, so the warps may
// rank.
template <unsigned THREADS>
static __device__ __forceinline__ wd_u64 wd_sort_digit_starts(wd_u32 mine, wd_u32 (*whist)[256], wd_u64 (&slots)[THREADS / 32]) {
    wd_u64 total;
    const wd_u64 start = wd_block_scan<wd_op_count, true, THREADS>((wd_u64)mine, slots, total);
    if (threadIdx.x < 256u) {
        for (unsigned k = 0; k < THREADS / 32; ++k) whist[k][threadIdx.x] += (wd_u32)start;
    }
    __syncthreads();
    return start;
}

// Each key's rank in the block, item by item: each lane sets its bit in its digit's lane mask
// (a shared atomic OR), so every lane reads the lanes of its digit at once; its rank is the
// warp's running rank of the digit (whist, from wd_sort_digit_starts) plus the lanes of the
// digit below it, and the digit's lowest lane advances the running rank and clears the mask
// (CUB's match by atomic OR: a handful of instructions where 8 ballots take about 60).
template <int ITEMS, class D>
static __device__ __forceinline__ void wd_sort_warp_rank(D digit, wd_sort_ranks<ITEMS>& rank, wd_u32 (*whist)[256],
                                                         wd_u32 (*wmask)[256]) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned below_me = (1u << lane) - 1u;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 d = digit(j);
        atomicOr(&wmask[warp][d], 1u << lane);
        __syncwarp();
        const unsigned peers = wmask[warp][d];
        const wd_u32 first = whist[warp][d];
        __syncwarp();
        const unsigned below = __popc(peers & below_me);
        rank.set(j, first + below);
        if (below == 0u) {
            whist[warp][d] = first + __popc(peers);
            wmask[warp][d] = 0u;
        }
        __syncwarp();
    }
}

// wd_sort_warp_counts and wd_sort_warp_rank for keys crowded in few digits: each item's lanes
// of one digit found at once by __match_any_sync, their lowest lane adding their number to the
// warp's counter of the digit (one shared atomic a digit, where the atomic OR and the counts'
// atomics of every lane of a crowded digit would queue on one word). The same ranks.
template <int ITEMS, class D>
static __device__ __forceinline__ void wd_sort_warp_counts_match(D digit, wd_u32 (*whist)[256]) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (unsigned d = lane; d < 256u; d += 32u) whist[warp][d] = 0u;
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 d = digit(j);
        const unsigned peers = __match_any_sync(WD_FULL_MASK, d);
        if (lane == (unsigned)(__ffs((int)peers) - 1)) atomicAdd(&whist[warp][d], (wd_u32)__popc(peers));
    }
}
template <int ITEMS, class D>
static __device__ __forceinline__ void wd_sort_warp_rank_match(D digit, wd_sort_ranks<ITEMS>& rank, wd_u32 (*whist)[256]) {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned below_me = (1u << lane) - 1u;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 d = digit(j);
        const unsigned peers = __match_any_sync(WD_FULL_MASK, d);
        const int leader = __ffs((int)peers) - 1;
        wd_u32 first = 0u;
        // The leader's atomic returns the digit's running rank (and advances it) before the
        // shuffle hands it on, so the next item's leader, any lane, sees it advanced.
        if (lane == (unsigned)leader) first = atomicAdd(&whist[warp][d], (wd_u32)__popc(peers));
        first = __shfl_sync(WD_FULL_MASK, first, leader);
        rank.set(j, first + (wd_u32)__popc(peers & below_me));
    }
}

// A pass's keys of a tile, warp-striped, as order words: item j of a lane is element
// first + j * 32 (`first`: the tile's start, plus the warp's 32 * ITEMS, plus the lane). Past n:
// the largest word (digit 255 in every pass), ranked after every real key of the tile.
template <int ITEMS, class K, class U>
static __device__ __forceinline__ void wd_sort_load_tile(U (&w)[ITEMS], const K* keys, wd_u64 first, wd_u64 n, bool descending) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u64 i = first + (wd_u64)j * 32u;
        w[j] = i < n ? wd_sort_word(keys[i], descending) : (U)~(U)0;
    }
}

// The same keys as their raw bits (K's size is U's), for a staged pass over floats: the loads'
// results then feed nothing before the values' copies are issued (a float's order word, a select
// on its sign, would hold the copies behind the loads); wd_sort_words_of_raw then makes them
// order words. Past n: the key whose word is the largest (wd_sort_load_tile's), so that every
// item is made a word alike. (Integer keys' words are made at the load: raw, a u32 or i32 pass
// spilled registers.)
template <class K> struct wd_sort_raw_loads { static constexpr bool value = false; };
template <> struct wd_sort_raw_loads<wd_f32> { static constexpr bool value = true; };
template <int ITEMS, class K, class U>
static __device__ __forceinline__ void wd_sort_load_raw(U (&w)[ITEMS], const K* keys, wd_u64 first, wd_u64 n, bool descending) {
    static_assert(sizeof(K) == sizeof(U), "raw loads of keys as wide as their words");
    const K last = wd_sort_key<K>((U)~(U)0, descending);
    U fill;
    memcpy(&fill, &last, sizeof(U));
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u64 i = first + (wd_u64)j * 32u;
        w[j] = i < n ? reinterpret_cast<const U*>(keys)[i] : fill;
    }
}
template <int ITEMS, class K, class U>
static __device__ __forceinline__ void wd_sort_words_of_raw(U (&w)[ITEMS], bool descending) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        K x;
        memcpy(&x, &w[j], sizeof(K));
        w[j] = wd_sort_word(x, descending);
    }
}

// One pass over digit `pass`: the plan says whether it runs and which buffers it reads and
// writes (keys_in / vals_in: the caller's input; 1: keys_out / vals_out; 2: keys_tmp /
// vals_tmp). Values move with their keys in a module built for them (WD_SORT_VALUE_BYTES > 0:
// the code is compiled out of a keys-only module, whose value pointers are null); with
// `index_values` the values read from the input are the keys' positions (argsort). A module
// built with WD_SORT_STAGE (4-byte keys, 4-byte values or positions) stages a tile's values
// in the block's dynamic shared memory (WD_SORT_STASH_BYTES, the launch's) as the tile starts.
// `queue`: this pass's tile
// counter (zeroed). The digit starts at bit wd_sort_pass_bit(pass, low) of the order word, as
// the histogram's. All WD_SORT_BLOCK (at least 256) threads; thread d < 256 owns digit d.
template <class K, class V>
static __device__ __forceinline__ void wd_sort_pass(const K* keys_in, K* keys_out, K* keys_tmp, const V* vals_in, V* vals_out,
                                                    V* vals_tmp, bool index_values, wd_u64 n, wd_u32 pass, wd_u32 low,
                                                    bool descending, const wd_u32* plan, const wd_u64* offsets, wd_u64* status,
                                                    wd_u32* queue) {
    constexpr unsigned THREADS = WD_SORT_BLOCK;
    static_assert(THREADS >= 256, "a sort pass gives each of its 256 digits a thread");
    typedef typename wd_sort_bits<K>::T U;
    constexpr int ITEMS = WD_SORT_ITEMS;
    constexpr unsigned WARPS = THREADS / 32;
    constexpr unsigned TILE = WD_SORT_TILE;
    constexpr unsigned WIDE = sizeof(U) > sizeof(V) ? sizeof(U) : sizeof(V);
    constexpr unsigned RANKING = 2u * WARPS * 256u * 4u;
    constexpr unsigned BYTES = TILE * WIDE > RANKING ? TILE * WIDE : RANKING;
    // The warps' digit counts and lane masks (each warp's lane mask of each digit, zero
    // between items), then the tile's words in digit order, then its values.
    __shared__ __align__(16) unsigned char smem[BYTES];
    __shared__ wd_u64 shift[256];
    __shared__ wd_u64 slots[WARPS];
    wd_u32(*whist)[256] = reinterpret_cast<wd_u32(*)[256]>(smem);
    wd_u32(*wmask)[256] = reinterpret_cast<wd_u32(*)[256]>(smem + RANKING / 2u);
    U* tile_words = reinterpret_cast<U*>(smem);
    V* tile_vals = reinterpret_cast<V*>(smem);

    const wd_u32 pl = plan[pass];
    if ((pl & 1u) == 0u) return;  // the same in every block
    const wd_u32 src = (pl >> 4) & 15u, dst = (pl >> 8) & 15u;
    // The same in every block. The match path is compiled into keys-only modules alone (with
    // it, a pass that moves values would spill registers), and out of every module when
    // WD_SORT_CROWDED is 1 (the probe's A/B of it).
    constexpr bool may_crowd = WD_SORT_CROWDED > 1 && WD_SORT_VALUE_BYTES == 0;
    const bool crowded = may_crowd && ((pl >> 12) & 1u) != 0u;
    const K* ksrc = src == 0u ? keys_in : src == 1u ? keys_out : keys_tmp;
    K* kdst = dst == 1u ? keys_out : keys_tmp;
    constexpr bool moves_values = WD_SORT_VALUE_BYTES > 0;
    const V* vsrc = src == 0u ? vals_in : src == 1u ? vals_out : vals_tmp;
    V* vdst = dst == 1u ? vals_out : vals_tmp;
    const bool make_index = index_values && src == 0u;
    // Staged values: each thread's own, warp-striped as its keys (item j at stash[j * 32]).
    constexpr bool staged = WD_SORT_STAGE != 0 && moves_values;
#ifdef __CUDA_ARCH__
    extern __shared__ __align__(16) unsigned char wd_sort_stash[];
#else
    __shared__ __align__(16) unsigned char wd_sort_stash[WD_SORT_STASH_BYTES > 0 ? WD_SORT_STASH_BYTES : 16];
#endif

    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    // Tiles in queue order. A keys-only module's pass (WD_SORT_PERSIST) runs a resident grid
    // whose blocks take tiles until none is left, each loading its next tile's keys while the
    // current one looks back and writes out; a module that moves values runs a block a tile.
    // No block waits on a tile not yet taken: a tile's look-back reads only tiles taken
    // before it, by blocks that publish them without waiting for anything later.
    constexpr bool persistent = WD_SORT_PERSIST != 0 && !moves_values;
    __shared__ wd_u64 next_tile;
    wd_u64 tile = wd_tile_index(queue + pass);
    if (persistent && tile * TILE >= n) return;  // block-uniform: a resident grid's surplus blocks
    U w[ITEMS];
    // This thread's first element of the tile (its warp's 32 * ITEMS, its lane).
    wd_u64 first = tile * TILE + (wd_u64)warp * 32u * ITEMS + lane;
    constexpr bool raw = staged && wd_sort_raw_loads<K>::value;
    static_assert(!(raw && persistent), "a persistent pass loads its next tile's keys as words");
    if constexpr (raw) {
        wd_sort_load_raw<ITEMS>(w, ksrc, first, n, descending);
    } else {
        wd_sort_load_tile<ITEMS>(w, ksrc, first, n, descending);
    }
    const wd_u32 bit = wd_sort_pass_bit<U>(pass, low);
    const wd_u64 epoch = pass + 1u;
    for (;;) {
        const wd_u64 base = tile * TILE;
        V* stash = reinterpret_cast<V*>(wd_sort_stash) + warp * 32u * ITEMS + lane;
        if constexpr (staged) {
            // The tile's values into shared memory, to arrive while the keys rank (a block a
            // tile: once). Here, after the keys' loads (asked for before them, or before the
            // loop, the pass measured slower or spilled registers) and before their order
            // words are made (made first, f32 keys' words held the copies behind the loads).
            static_assert(WD_SORT_STASH_BYTES >= TILE * sizeof(V), "the stash holds a tile's values");
            if (!make_index) {
#pragma unroll
                for (int j = 0; j < ITEMS; ++j) {
                    const wd_u64 i = first + (wd_u64)j * 32u;
                    if (i < n) wd_copy_async(stash + j * 32, vsrc + i);
                }
            }
            if constexpr (raw) wd_sort_words_of_raw<ITEMS, K>(w, descending);
        }
        // Early counts: the tile's count of each digit is published before it ranks its keys,
        // so that its successors' look-backs need not wait for the ranking.
        auto digit_of = [&](int j) { return wd_sort_digit_at(w[j], bit); };
        if (crowded) {
            wd_sort_warp_counts_match<ITEMS>(digit_of, whist);
        } else {
            wd_sort_warp_counts<ITEMS>(digit_of, whist, wmask);
        }
        __syncthreads();
        const wd_u32 mine = wd_sort_warp_prefix<THREADS>(whist);
        if (threadIdx.x < 256u)
            wd_sort_publish(status + tile * 256u + threadIdx.x, tile == 0 ? WD_SORT_PREFIX : WD_SORT_COUNT, epoch, mine);
        {
            const wd_u64 start = wd_sort_digit_starts<THREADS>(mine, whist, slots);
            // The tile's i-th word in digit order, of digit d, goes to shift[d] + i (once the
            // keys of d in the tiles before are added, after the look-back): set now, so that no
            // register holds `start` through the ranking.
            if (threadIdx.x < 256u) shift[threadIdx.x] = offsets[pass * 256u + threadIdx.x] - start;
        }
        static_assert(TILE <= 65536u, "ranks are held in 16 bits");
        wd_sort_ranks<ITEMS> rank;
        if (crowded) {
            wd_sort_warp_rank_match<ITEMS>(digit_of, rank, whist);
        } else {
            wd_sort_warp_rank<ITEMS>(digit_of, rank, whist, wmask);
        }
        // The next tile is taken once this one's counts are published (its look-back may then
        // need them at once).
        if (persistent && threadIdx.x == 0) next_tile = queue != nullptr ? atomicAdd(queue + pass, 1u) : ~(wd_u64)0;
        __syncthreads();  // every warp ranked: the counts' memory becomes the tile's
        // The keys in digit order, in shared memory (their registers free for the look-back,
        // or for the next tile's keys).
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) tile_words[rank[j]] = w[j];
        wd_u64 next = 0;
        bool more = false;
        // Persistent blocks: the next tile's keys into w, `first` moved to it.
        if constexpr (persistent) {
            next = next_tile;
            more = next < (n + TILE - 1) / TILE;
            first = next * TILE + (wd_u64)warp * 32u * ITEMS + lane;
            if (more) wd_sort_load_tile<ITEMS>(w, ksrc, first, n, descending);
        }
        // Thread d: the keys of d before this tile (look-back, after the ranking, which gives
        // the predecessors time to publish), added to where the tile's keys of d go.
        if (threadIdx.x < 256u && tile != 0) {
            const wd_u64 before = wd_sort_look_back(status, tile, threadIdx.x, epoch);
            wd_sort_publish(status + tile * 256u + threadIdx.x, WD_SORT_PREFIX, epoch, before + mine);
            shift[threadIdx.x] += before;
        }
        __syncthreads();

        const wd_u64 left = n - base;
        const unsigned valid = left < TILE ? (unsigned)left : TILE;
        wd_sort_digits<ITEMS, sizeof(U) <= 4> digit;  // the values' write needs them again
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned i = threadIdx.x + (unsigned)j * THREADS;
            const U x = tile_words[i];
            const wd_u32 d = wd_sort_digit_at(x, bit);
            digit.set(j, d);
            if (i < valid) kdst[shift[d] + i] = wd_sort_key<K>(x, descending);
        }
        if constexpr (moves_values) {
            // The values are read only now (CUB's order): held through the ranking, they would
            // take the registers the ranking needs; staged, they arrived while it ran (their
            // slots past n are never written out).
            V v[ITEMS];
            if (staged && !make_index) wd_copy_async_wait();
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const wd_u64 i = first + (wd_u64)j * 32u;
                if constexpr (staged) {
                    v[j] = make_index ? (V)i : stash[j * 32];
                } else {
                    v[j] = i < n ? (make_index ? (V)i : vsrc[i]) : (V)0;
                }
            }
            __syncthreads();
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) tile_vals[rank[j]] = v[j];
            __syncthreads();
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const unsigned i = threadIdx.x + (unsigned)j * THREADS;
                if (i < valid) vdst[shift[digit[j]] + i] = tile_vals[i];
            }
        }
        if (!more) return;
        tile = next;
        __syncthreads();  // the tile's words and shift are read before the next counts reuse them
    }
}

// ---- sorting groups of keys within a block: the rows' and the segments' sorts ----
// A block holds a tile of up to WD_SORT_ROW_TILE keys, warp-striped as a pass holds them: each
// key's order word and a tag, group << 16 | position, where the group (a row, a segment) is
// non-decreasing in the tile's order and the position (below 2^16) says where the key came
// from. wd_sort_tile_groups ranks the tile by each byte of the words, least significant
// first, then by each of the `group_bytes` low bytes of the group (stable passes, so the block
// ends sorted by group, then key, then position: each group's keys end where the group
// started), moving through shared memory between passes; a pass whose digit is the same in
// every key of the block is skipped. Padding past the block's keys: the largest word, the
// last group and positions past the keys', so that it ranks last.
template <class U, int ITEMS>
static __device__ __forceinline__ void wd_sort_tile_groups(U (&w)[ITEMS], wd_u32 (&tag)[ITEMS], int group_bytes) {
    static_assert(WD_BLOCK >= 256, "a sort pass gives each of its 256 digits a thread");
    constexpr unsigned WARPS = WD_BLOCK / 32;
    constexpr unsigned TILE = WD_SORT_ROW_TILE;
    static_assert(TILE == WD_BLOCK * ITEMS, "a group tile is ITEMS keys a thread");
    // The warps' counts and lane masks share memory with the tile's tags (a block's static
    // shared memory is at most 48 KB): barriers keep them apart.
    constexpr unsigned RANKING = 2u * WARPS * 256u * 4u;
    constexpr unsigned SHARED = TILE * 4u > RANKING ? TILE * 4u : RANKING;
    __shared__ U tile_words[TILE];
    __shared__ __align__(16) unsigned char scratch[SHARED];
    __shared__ wd_u64 slots[WD_BLOCK / 32];
    wd_u32(*whist)[256] = reinterpret_cast<wd_u32(*)[256]>(scratch);
    wd_u32(*wmask)[256] = reinterpret_cast<wd_u32(*)[256]>(scratch + RANKING / 2u);
    wd_u32* tile_tags = reinterpret_cast<wd_u32*>(scratch);
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const unsigned first = warp * 32u * ITEMS + lane;  // item j: first + j * 32
    const int passes = (int)sizeof(U) + group_bytes;
#pragma unroll 1
    for (int pass = 0; pass < passes; ++pass) {
        auto digit_of = [&](int j) -> wd_u32 {
            return pass < (int)sizeof(U) ? wd_sort_digit(w[j], (wd_u32)pass) : (tag[j] >> (16 + 8 * (pass - (int)sizeof(U)))) & 255u;
        };
        wd_sort_warp_counts<ITEMS>(digit_of, whist, wmask);
        __syncthreads();
        const wd_u32 mine = wd_sort_warp_prefix<WD_BLOCK>(whist);
        if (__syncthreads_or(mine == TILE)) continue;  // one digit: the pass would move nothing
        wd_sort_digit_starts<WD_BLOCK>(mine, whist, slots);
        static_assert(TILE <= 65536u, "ranks are held in 16 bits");
        wd_sort_ranks<ITEMS> rank;
        wd_sort_warp_rank<ITEMS>(digit_of, rank, whist, wmask);
        __syncthreads();  // every warp ranked: the counts' memory becomes the tags'
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            tile_words[rank[j]] = w[j];
            tile_tags[rank[j]] = tag[j];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            w[j] = tile_words[first + (unsigned)j * 32u];
            tag[j] = tile_tags[first + (unsigned)j * 32u];
        }
        __syncthreads();  // every warp read its tags: the next pass counts in their memory
    }
}

// ---- the rows' sort: rows short enough for a block, sorted in shared memory ----
// Block b sorts rows b * rpb .. (rpb rows of `cols` keys, rpb * cols <= WD_SORT_ROW_TILE,
// rpb <= 255) as a tile of groups (wd_sort_tile_groups; the group is the row in the block,
// the position the column; padding is row 255). Writes the sorted keys (keys_out), each key's
// column in its row (cols_out) and the value at the key's place in `vals` (vals_out), each
// unless null.
template <class K, class V>
static __device__ __forceinline__ void wd_sort_rows(const K* keys, K* keys_out, wd_u32* cols_out, const V* vals, V* vals_out,
                                                    wd_u64 rows, wd_u32 cols, wd_u32 rpb, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    constexpr int ITEMS = WD_SORT_ROW_ITEMS;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u64 row0 = (wd_u64)blockIdx.x * rpb;
    const wd_u32 nrows = rows - row0 < rpb ? (wd_u32)(rows - row0) : rpb;
    const wd_u32 count = nrows * cols;
    const wd_u64 base = row0 * cols;
    const unsigned first = warp * 32u * ITEMS + lane;  // item j: first + j * 32

    U w[ITEMS];
    wd_u32 tag[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 p = first + (unsigned)j * 32u;
        if (p < count) {
            w[j] = wd_sort_word(keys[base + p], descending);
            const wd_u32 r = p / cols;
            tag[j] = r << 16 | (p - r * cols);
        } else {
            w[j] = (U)~(U)0;
            tag[j] = 255u << 16;
        }
    }
    wd_sort_tile_groups<U, ITEMS>(w, tag, 1);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 p = first + (unsigned)j * 32u;
        if (p < count) {
            const wd_u32 col = tag[j] & 0xffffu;
            if (keys_out != nullptr) keys_out[base + p] = wd_sort_key<K>(w[j], descending);
            if (cols_out != nullptr) cols_out[base + p] = col;
            if (vals_out != nullptr) vals_out[base + p] = vals[base + (wd_u64)(p / cols) * cols + col];
        }
    }
}

// ---- the rows' sort of keys alone, a row a block ----
// Block b (WD_SORT_ROW_KEYS_BLOCK = 128 threads) sorts row b (`cols` keys, at most
// WD_SORT_ROW_TILE) into keys_out by its order words alone: equal words are equal keys, so no
// column is carried and stability cannot be seen. Padding past the row: the largest word,
// sorted last and not written. Words of up to 4 bytes: block.cuh's bitonic network over 4,096
// words in registers (wd_block_bitonic_words, 32 a thread; words under 4 bytes widened to 32
// bits), each warp's loads and stores 32 consecutive keys a register. 8-byte words: block.cuh's
// merge sort (a network in registers, then rounds of merges through shared memory): with
// 64-bit compare-exchanges the network took 2.7 times as long.
template <class K>
static __device__ __forceinline__ void wd_sort_rows_keys_bitonic(const K* keys, K* keys_out, wd_u32 cols, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    static_assert(WD_SORT_ROW_KEYS_BLOCK == 128 && WD_SORT_ROW_KEYS_TILE == 4096 && WD_SORT_ROW_TILE <= 4096,
                  "a block's 4,096 words hold a row");
    __shared__ wd_u32 tile[WD_SORT_ROW_KEYS_TILE + WD_SORT_ROW_KEYS_TILE / 32];
    const wd_u64 base = (wd_u64)blockIdx.x * cols;
    // Register r of warp w's lane l: the row's key w * 1024 + r * 32 + l (layout M's place).
    const wd_u32 first = (threadIdx.x >> 5) * 1024u + (threadIdx.x & 31u);
    wd_u32 k[32];
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        const wd_u32 i = first + (unsigned)r * 32u;
        k[r] = i < cols ? (wd_u32)wd_sort_word(keys[base + i], descending) : ~0u;
    }
    wd_block_bitonic_words(tile, k);
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        const wd_u32 i = first + (unsigned)r * 32u;
        if (i < cols) keys_out[base + i] = wd_sort_key<K>((U)k[r], descending);
    }
}

// The 8-byte words' merge sort: the row read into shared memory (coalesced), each thread takes
// its WD_SORT_ROW_KEYS_ITEMS words from there, and the sorted tile is written out as it was read.
template <class K>
static __device__ __forceinline__ void wd_sort_rows_keys_merge(const K* keys, K* keys_out, wd_u32 cols, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    constexpr int ITEMS = WD_SORT_ROW_KEYS_ITEMS;
    constexpr unsigned TILE = WD_SORT_ROW_KEYS_BLOCK * ITEMS;
    static_assert(TILE >= WD_SORT_ROW_TILE, "a block holds a row of the rows' tile");
    __shared__ U tile[TILE];
    __shared__ wd_u32 no_pos[1];
    const wd_u64 base = (wd_u64)blockIdx.x * cols;
    {
        U r[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const wd_u32 i = threadIdx.x + (unsigned)j * WD_SORT_ROW_KEYS_BLOCK;
            r[j] = i < cols ? wd_sort_word(keys[base + i], descending) : (U)~(U)0;
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) tile[threadIdx.x + (unsigned)j * WD_SORT_ROW_KEYS_BLOCK] = r[j];
    }
    __syncthreads();
    U k[ITEMS];
    wd_u32 p[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) k[j] = tile[threadIdx.x * ITEMS + j];
    wd_block_merge_sort<ITEMS, true>([](const U& x, const U& y) { return x < y; }, tile, no_pos, TILE, k, p, false);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 i = threadIdx.x + (unsigned)j * WD_SORT_ROW_KEYS_BLOCK;
        if (i < cols) keys_out[base + i] = wd_sort_key<K>(tile[i], descending);
    }
}

template <class K>
static __device__ __forceinline__ void wd_sort_rows_keys(const K* keys, K* keys_out, wd_u32 cols, bool descending) {
    if constexpr (sizeof(typename wd_sort_bits<K>::T) == 8) wd_sort_rows_keys_merge(keys, keys_out, cols, descending);
    else wd_sort_rows_keys_bitonic(keys, keys_out, cols, descending);
}

// ---- the rows' sort of rows of at most 32 8-byte keys: a bitonic network in a group of lanes ----
// (Keys of up to 4 bytes take wd_sort_rows_thread, below.)
// G lanes (the power of two at or above `cols`, at most 32) hold a row, one key a lane, 32 / G
// rows a warp, WD_SORT_WARP_ROWS such batches at once (their loads and shuffles interleaved);
// a bitonic network of shuffles sorts each group by (order word, column), so equal keys keep
// their column order (stable) and lanes past the row (the largest word, their own column past
// `cols`) end last. Grid-stride over the batches; writes as wd_sort_rows does.

template <int G, class K, class V>
static __device__ __forceinline__ void wd_sort_rows_lanes(const K* keys, K* keys_out, wd_u32* cols_out, const V* vals, V* vals_out,
                                                          wd_u64 rows, wd_u32 cols, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    static_assert(sizeof(U) == 8, "keys of up to 4 bytes are sorted a thread a row");
    constexpr unsigned RPW = 32u / G;  // rows a warp holds in one batch
    constexpr int R = WD_SORT_WARP_ROWS;
    const unsigned lane = threadIdx.x & 31u, c = lane & (unsigned)(G - 1);
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    for (wd_u64 r0 = warp * RPW * R; r0 < rows; r0 += nwarps * RPW * R) {
        U w[R];
        wd_u32 col[R];
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const wd_u64 row = r0 + (wd_u64)u * RPW + lane / (unsigned)G;
            const bool valid = row < rows && c < cols;
            w[u] = valid ? wd_sort_word(keys[row * cols + c], descending) : (U)~(U)0;
            col[u] = c;
        }
#pragma unroll
        for (unsigned k = 2; k <= (unsigned)G; k <<= 1) {
#pragma unroll
            for (unsigned j = k >> 1; j > 0; j >>= 1) {
                // The lower lane of a pair keeps the first of the two where its run ascends.
                const bool keep_first = ((c & k) == 0u) == ((c & j) == 0u);
#pragma unroll
                for (int u = 0; u < R; ++u) {
                    // The (word, column) of lane ^ j.
                    const U ow = (U)__shfl_xor_sync(WD_FULL_MASK, (unsigned long long)w[u], (int)j);
                    const wd_u32 oc = __shfl_xor_sync(WD_FULL_MASK, col[u], (int)j);
                    const bool other_first = ow < w[u] || (ow == w[u] && oc < col[u]);
                    if (other_first == keep_first) {
                        w[u] = ow;
                        col[u] = oc;
                    }
                }
            }
        }
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const wd_u64 row = r0 + (wd_u64)u * RPW + lane / (unsigned)G;
            if (row < rows && c < cols) {
                const wd_u64 at = row * cols + c;
                if (keys_out != nullptr) keys_out[at] = wd_sort_key<K>(w[u], descending);
                if (cols_out != nullptr) cols_out[at] = col[u];
                if (vals_out != nullptr) vals_out[at] = vals[row * cols + col[u]];
            }
        }
    }
}

// ---- the rows' sort of rows of at most 32 keys of at most 4 bytes: a thread a row ----
// A warp takes 32 rows at a time: it loads them coalesced (a lane's G loads from one address,
// all issued before the first store; the next group's lines asked of L2 first) into its part
// of shared memory as they are (a row's keys `WD_SORT_ROW_STRIDE` words apart: 33, so that the
// lanes reading their rows' column c hit 32 banks; element p of the 32 rows is row p / cols by
// a multiply, `wd_sort_row_at`), each lane takes its row into registers as order words and
// sorts it with a bitonic network of G (the power of two at or above `cols`) in registers,
// fully unrolled (no shuffles: G/2 compare-exchanges a step, independent of one another).
// Columns cols .. G hold the largest word, so they end last. Where columns
// or values are wanted the network sorts (word << 32 | column), so equal words keep their
// column order (stable); where only the keys are (`WORDS`), it sorts the 32-bit words alone:
// equal words are equal keys, so the order among them cannot be seen. The sorted words and
// then the columns go back through shared memory and out coalesced; writes as wd_sort_rows
// does. Grid-stride over the warps' groups of 32 rows. `stage`: the warp's
// 32 * WD_SORT_ROW_STRIDE words of shared memory.
#define WD_SORT_ROW_STRIDE 33u
template <bool WORDS> struct wd_sort_row_entry { typedef wd_u64 T; };
template <> struct wd_sort_row_entry<true> { typedef wd_u32 T; };

// Where element p (< 1024) of a warp's 32 rows of `cols` keys sits in the stage: row
// r = p / cols as (p * m) >> 16 with m = ceil(2^16 / cols) (exact while p * (cols - 1) < 2^16),
// at r * WD_SORT_ROW_STRIDE + p - r * cols = p + r * (WD_SORT_ROW_STRIDE - cols).
struct wd_sort_row_at {
    wd_u32 m, skip;
    __device__ __forceinline__ wd_sort_row_at(wd_u32 cols) : m((65535u + cols) / cols), skip(WD_SORT_ROW_STRIDE - cols) {}
    __device__ __forceinline__ wd_u32 row(wd_u32 p) const { return (p * m) >> 16; }
    __device__ __forceinline__ wd_u32 operator()(wd_u32 p) const { return p + row(p) * skip; }
    // A copy the compiler cannot see through: a lane's positions are the same for every group
    // of rows, and hoisting them all out of the loop would hold G more registers.
    __device__ __forceinline__ wd_sort_row_at fresh() const {
        wd_sort_row_at a = *this;
        asm volatile("" : "+r"(a.m));
        return a;
    }
};

template <int G, bool WORDS, class K, class V>
static __device__ __forceinline__ void wd_sort_rows_thread(const K* keys, K* keys_out, wd_u32* cols_out, const V* vals, V* vals_out,
                                                           wd_u64 rows, wd_u32 cols, bool descending, wd_u32* stage) {
    typedef typename wd_sort_bits<K>::T U;
    typedef typename wd_sort_row_entry<WORDS>::T E;
    static_assert(sizeof(U) <= 4, "a row's (word, column) pairs are packed in 64 bits");
    static_assert(32 * G * (G - 1) < 65536, "wd_sort_row_at is exact");
    const unsigned lane = threadIdx.x & 31u;
    const wd_u64 warp = ((wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x) >> 5;
    const wd_u64 nwarps = ((wd_u64)gridDim.x * WD_BLOCK) >> 5;
    const wd_sort_row_at at_all(cols);
    wd_u32* mine = stage + lane * WD_SORT_ROW_STRIDE;
    for (wd_u64 r0 = warp * 32u; r0 < rows; r0 += nwarps * 32u) {
        const wd_u32 nr = rows - r0 < 32u ? (wd_u32)(rows - r0) : 32u;
        const wd_u32 count = nr * cols;
        const wd_u64 base = r0 * cols;
        const wd_sort_row_at at = at_all.fresh();
        {
            // The warp's next group of rows into L2 (a 128-byte line a lane), so that its loads
            // wait for L2, not for DRAM.
            const wd_u64 next = r0 + nwarps * 32u;
            if (next < rows) {
                const wd_u64 nn = rows - next < 32u ? rows - next : 32u;
                const wd_u64 bytes = nn * cols * sizeof(K);
                if ((wd_u64)lane * 128u < bytes) wd_prefetch_l2((const char*)(keys + next * cols) + (wd_u64)lane * 128u);
            }
        }
        {
            // A lane's elements p = lane + 32 t (t < cols <= G), from one address a lane (each
            // load's offset an immediate), stored as they are: the warp barrier keeps every
            // store, and so every wait for a load, after the last load is issued.
            const K* from = keys + base + lane;
            K in[G];
#pragma unroll
            for (int t = 0; t < G; ++t) {
                if (lane + 32u * (unsigned)t < count) in[t] = from[32 * t];
            }
            __syncwarp();
#pragma unroll
            for (int t = 0; t < G; ++t) {
                const wd_u32 p = lane + 32u * (unsigned)t;
                wd_u32 raw = 0;
                memcpy(&raw, &in[t], sizeof(K));
                if (p < count) stage[at(p)] = raw;
            }
        }
        __syncwarp();
        // A row's keys as order words, the largest word past its end (lanes past the last row
        // sort what their rows held before; nothing of theirs is written).
        E e[G];
#pragma unroll
        for (int c = 0; c < G; ++c) {
            K x;
            const wd_u32 raw = (unsigned)c < cols ? mine[c] : 0u;
            memcpy(&x, &raw, sizeof(K));
            const wd_u32 w = (unsigned)c < cols ? (wd_u32)wd_sort_word(x, descending) : 0xffffffffu;
            if constexpr (WORDS) e[c] = w;
            else e[c] = ((wd_u64)w << 32) | (wd_u64)c;
        }
        __syncwarp();
#pragma unroll
        for (int k = 2; k <= G; k <<= 1) {
#pragma unroll
            for (int j = k >> 1; j > 0; j >>= 1) {
#pragma unroll
                for (int i = 0; i < G; ++i) {
                    const int l = i ^ j;
                    if (l > i) {
                        const E a = e[i], b = e[l];
                        const E lo = a < b ? a : b, hi = a < b ? b : a;
                        const bool ascending = (i & k) == 0;
                        e[i] = ascending ? lo : hi;
                        e[l] = ascending ? hi : lo;
                    }
                }
            }
        }
        // The sorted words, then the columns, out through shared memory.
        if (keys_out != nullptr) {
#pragma unroll
            for (int c = 0; c < G; ++c) mine[c] = WORDS ? (wd_u32)e[c] : (wd_u32)((wd_u64)e[c] >> 32);
            __syncwarp();
            K* to = keys_out + base + lane;
#pragma unroll
            for (int t = 0; t < G; ++t) {
                const wd_u32 p = lane + 32u * (unsigned)t;
                if (p < count) to[32 * t] = wd_sort_key<K>((U)stage[at(p)], descending);
            }
            __syncwarp();
        }
        if constexpr (!WORDS) {
            if (cols_out != nullptr || vals_out != nullptr) {
#pragma unroll
                for (int c = 0; c < G; ++c) {
                    if ((unsigned)c < cols) mine[c] = (wd_u32)e[c];
                }
                __syncwarp();
                const wd_u64 from = base + lane;
#pragma unroll
                for (int t = 0; t < G; ++t) {
                    const wd_u32 p = lane + 32u * (unsigned)t;
                    if (p < count) {
                        const wd_u32 col = stage[at(p)];
                        if (cols_out != nullptr) cols_out[from + 32 * t] = col;
                        if (vals_out != nullptr) vals_out[from + 32 * t] = vals[base + (wd_u64)at.row(p) * cols + col];
                    }
                }
                __syncwarp();
            }
        }
    }
}

// wd_sort_rows_thread with G, the power of two at or above `cols`.
template <bool WORDS, class K, class V>
static __device__ __forceinline__ void wd_sort_rows_thread_g(const K* keys, K* keys_out, wd_u32* cols_out, const V* vals, V* vals_out,
                                                             wd_u64 rows, wd_u32 cols, bool descending, wd_u32* st) {
    if (cols <= 1u) wd_sort_rows_thread<1, WORDS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
    else if (cols <= 2u) wd_sort_rows_thread<2, WORDS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
    else if (cols <= 4u) wd_sort_rows_thread<4, WORDS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
    else if (cols <= 8u) wd_sort_rows_thread<8, WORDS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
    else if (cols <= 16u) wd_sort_rows_thread<16, WORDS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
    else wd_sort_rows_thread<32, WORDS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
}

// Rows of at most 32 keys: a thread a row (wd_sort_rows_thread) for words of at most 4 bytes,
// a group of lanes a row (wd_sort_rows_lanes) for 8-byte words, whose (word, column) pairs
// do not pack in 64 bits and whose rows would not fit a warp's shared memory. `KEYS`: only the
// sorted keys are wanted (the keys' kernel; cols_out, vals and vals_out null), so a thread's
// network sorts words alone.
template <bool KEYS, class K, class V>
static __device__ __forceinline__ void wd_sort_rows_warp(const K* keys, K* keys_out, wd_u32* cols_out, const V* vals, V* vals_out,
                                                         wd_u64 rows, wd_u32 cols, bool descending) {
    if constexpr (sizeof(typename wd_sort_bits<K>::T) <= 4) {
        __shared__ wd_u32 stage_all[WD_BLOCK / 32][32u * WD_SORT_ROW_STRIDE];
        wd_u32* st = stage_all[threadIdx.x >> 5];
        wd_sort_rows_thread_g<KEYS>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending, st);
    } else {
        if (cols <= 1u) wd_sort_rows_lanes<1>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending);
        else if (cols <= 2u) wd_sort_rows_lanes<2>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending);
        else if (cols <= 4u) wd_sort_rows_lanes<4>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending);
        else if (cols <= 8u) wd_sort_rows_lanes<8>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending);
        else if (cols <= 16u) wd_sort_rows_lanes<16>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending);
        else wd_sort_rows_lanes<32>(keys, keys_out, cols_out, vals, vals_out, rows, cols, descending);
    }
}

// The keys' kernel's entry: wd_sort_rows_warp with nothing but the keys.
template <class K>
static __device__ __forceinline__ void wd_sort_rows_warp_keys(const K* keys, K* keys_out, wd_u64 rows, wd_u32 cols, bool descending) {
    wd_sort_rows_warp<true, K, wd_u32>(keys, keys_out, nullptr, nullptr, nullptr, rows, cols, descending);
}

// ---- the segments' sort: CSR segments, the short ones many to a block ----
// Segment s is keys offsets[s] .. offsets[s + 1] (offsets checked by wd_sort_segments_plan:
// non-decreasing from 0 to n). A segment of at most WD_SORT_SEGMENT_SMALL keys is short: the
// window w of WD_SORT_SEGMENT_WINDOW (= WD_SORT_ROW_TILE - WD_SORT_SEGMENT_SMALL) positions
// sorts the short segments that start in it, which end within a tile of it. A medium segment
// (up to WD_SORT_ROW_TILE keys) takes a block alone; longer ones are the host's (the
// device-wide sort).

// The first segment starting at or after position x: a binary search of the segments' starts.
static __device__ __forceinline__ wd_u64 wd_sort_segment_at(const wd_u64* offsets, wd_u64 segments, wd_u64 x) {
    wd_u64 lo = 0, hi = segments;
    while (lo < hi) {
        const wd_u64 mid = lo + (hi - lo) / 2;
        if (offsets[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Grid-stride: window w's first segment into win_first[w] (w <= windows); each medium segment's
// index appended to `medium`, each long one's start and end to `longs` (at most `cap_medium`
// segments / `cap_long` pairs); counts[0] and counts[1] their lengths, counts[2] non-zero when the
// offsets are bad (decreasing, past n, not starting at 0 or not ending at n).
static __device__ __forceinline__ void wd_sort_segments_plan(const wd_u64* offsets, wd_u64 segments, wd_u64 n, wd_u64 windows,
                                                             wd_u64* win_first, wd_u64* medium, wd_u64 cap_medium, wd_u64* longs,
                                                             wd_u64 cap_long, wd_u64* counts) {
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    const wd_u64 end = segments > windows + 1 ? segments : windows + 1;
    for (wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; i < end; i += stride) {
        if (i < segments) {
            const wd_u64 a = offsets[i], e = offsets[i + 1];
            bool bad = e < a || e > n || (i == 0 && a != 0) || (i + 1 == segments && e != n);
            if (!bad && e - a > WD_SORT_ROW_TILE) {
                const wd_u64 at = atomicAdd((unsigned long long*)&counts[1], 1ull);
                if (at < cap_long) {
                    longs[2 * at] = a;
                    longs[2 * at + 1] = e;
                }
                else bad = true;
            } else if (!bad && e - a > WD_SORT_SEGMENT_SMALL) {
                const wd_u64 at = atomicAdd((unsigned long long*)&counts[0], 1ull);
                if (at < cap_medium) medium[at] = i;
                else bad = true;
            }
            if (bad) atomicOr((unsigned long long*)&counts[2], 1ull);
        }
        if (i <= windows) win_first[i] = wd_sort_segment_at(offsets, segments, i * WD_SORT_SEGMENT_WINDOW);
    }
}

// Blocks below `windows`: window b's short segments (win_first[b] .. win_first[b + 1]) as a tile
// of groups from the first one's start: bitmaps of where the tile's segments start (heads) and
// of which of them are not short (theirs are ranked with the rest but not written), the
// group a key's segment's ordinal in the tile (2 bytes) and the position its place in the
// tile. Blocks from `windows`: medium segment medium[b - windows] alone. Writes as the rows'
// sort does, with each key's position in its segment (cols_out).
template <class K, class V>
static __device__ __forceinline__ void wd_sort_segments(const K* keys, K* keys_out, wd_u32* cols_out, const V* vals, V* vals_out,
                                                        const wd_u64* offsets, const wd_u64* win_first, wd_u64 windows,
                                                        const wd_u64* medium, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    constexpr int ITEMS = WD_SORT_ROW_ITEMS;
    constexpr unsigned TILE = WD_SORT_ROW_TILE;
    constexpr unsigned WORDS = TILE / 32u;
    static_assert(WD_SORT_SEGMENT_WINDOW + WD_SORT_SEGMENT_SMALL <= TILE, "a window's short segments end within a tile");
    static_assert(TILE <= 65536u, "a position is 16 bits of a tag");
    __shared__ wd_u32 heads[WORDS], foreign[WORDS], before[WORDS];
    __shared__ wd_u64 range_base;
    __shared__ wd_u32 range_count;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    for (unsigned i = threadIdx.x; i < WORDS; i += WD_BLOCK) {
        heads[i] = 0u;
        foreign[i] = 0u;
    }
    if (threadIdx.x == 0) range_count = 0u;
    __syncthreads();
    if ((wd_u64)blockIdx.x >= windows) {
        const wd_u64 s = medium[blockIdx.x - windows];
        if (threadIdx.x == 0) {
            range_base = offsets[s];
            range_count = (wd_u32)(offsets[s + 1] - offsets[s]);
            heads[0] = 1u;
        }
    } else {
        const wd_u64 s_lo = win_first[blockIdx.x], s_hi = win_first[blockIdx.x + 1];
        if (s_lo == s_hi) return;  // no segment starts in the window (the same for the block)
        const wd_u64 base = offsets[s_lo];
        if (threadIdx.x == 0) range_base = base;
        for (wd_u64 s = s_lo + threadIdx.x; s < s_hi; s += WD_BLOCK) {
            const wd_u64 a = offsets[s], e = offsets[s + 1];
            if (e == a) continue;
            const wd_u32 at = (wd_u32)(a - base);
            atomicOr(&heads[at >> 5], 1u << (at & 31u));
            if (e - a > WD_SORT_SEGMENT_SMALL) atomicOr(&foreign[at >> 5], 1u << (at & 31u));
            else atomicMax(&range_count, (wd_u32)(e - base));
        }
    }
    __syncthreads();
    const wd_u64 base = range_base;
    const wd_u32 count = range_count;
    if (count == 0u) return;  // only long or medium segments start here (the same for the block)
    if (warp == 0) {
        // The heads before each word: a warp's exclusive scan of the words' counts.
        constexpr unsigned PER = (WORDS + 31u) / 32u;
        wd_u32 c[PER], sum = 0u;
#pragma unroll
        for (unsigned k = 0; k < PER; ++k) {
            const unsigned i = lane * PER + k;
            c[k] = i < WORDS ? (wd_u32)__popc(heads[i]) : 0u;
            sum += c[k];
        }
        wd_u32 incl = sum;
#pragma unroll
        for (unsigned d = 1; d < 32u; d <<= 1) {
            const wd_u32 t = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += t;
        }
        wd_u32 run = incl - sum;
#pragma unroll
        for (unsigned k = 0; k < PER; ++k) {
            const unsigned i = lane * PER + k;
            if (i < WORDS) before[i] = run;
            run += c[k];
        }
    }
    __syncthreads();
    // The tile's segment of position p: its ordinal (the heads at or before p, less one).
    auto ordinal = [&](wd_u32 p) -> wd_u32 { return before[p >> 5] + (wd_u32)__popc(heads[p >> 5] & ((2u << (p & 31u)) - 1u)) - 1u; };
    const wd_u32 last = ordinal(count - 1u);
    const unsigned first = warp * 32u * ITEMS + lane;  // item j: first + j * 32
    U w[ITEMS];
    wd_u32 tag[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 p = first + (unsigned)j * 32u;
        if (p < count) {
            w[j] = wd_sort_word(keys[base + p], descending);
            tag[j] = ordinal(p) << 16 | p;
        } else {
            w[j] = (U)~(U)0;
            tag[j] = last << 16 | p;
        }
    }
    wd_sort_tile_groups<U, ITEMS>(w, tag, 2);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u32 q = first + (unsigned)j * 32u;
        if (q < count) {
            // The key came from position p, in the segment whose start is the last head at or
            // before p (q is in the same segment).
            const wd_u32 p = tag[j] & 0xffffu;
            unsigned wi = p >> 5;
            wd_u32 m = heads[wi] & ((2u << (p & 31u)) - 1u);
            while (m == 0u) m = heads[--wi];
            const wd_u32 start = wi * 32u + 31u - (wd_u32)__clz((int)m);
            if ((foreign[start >> 5] >> (start & 31u)) & 1u) continue;  // not a short segment
            if (keys_out != nullptr) keys_out[base + q] = wd_sort_key<K>(w[j], descending);
            if (cols_out != nullptr) cols_out[base + q] = p - start;
            if (vals_out != nullptr) vals_out[base + q] = vals[base + p];
        }
    }
}

// ---- values gathered by a permutation ----
// Row i of `dst` (`stride` bytes each; the field at `offset`, aligned to `width` as a C struct
// lays it out) gets element perm[i] of `src` (elements of `width` bytes: 1, 2, 4 or 8): the
// arrays of zipped values moved after an argsort. Grid-stride; the width is the same for every
// thread.
template <class W>
static __device__ __forceinline__ void wd_sort_gather_as(const unsigned char* src, const wd_u32* perm, wd_u64 n,
                                                         unsigned char* dst, wd_u32 stride, wd_u32 offset) {
    const W* s = reinterpret_cast<const W*>(src);
    const wd_u64 step = (wd_u64)gridDim.x * WD_BLOCK;
    for (wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x; i < n; i += step)
        *reinterpret_cast<W*>(dst + i * stride + offset) = s[perm[i]];
}

static __device__ __forceinline__ void wd_sort_gather(const unsigned char* src, wd_u32 width, const wd_u32* perm, wd_u64 n,
                                                      unsigned char* dst, wd_u32 stride, wd_u32 offset) {
    switch (width) {
        case 1: wd_sort_gather_as<wd_u8>(src, perm, n, dst, stride, offset); break;
        case 2: wd_sort_gather_as<wd_u16>(src, perm, n, dst, stride, offset); break;
        case 4: wd_sort_gather_as<wd_u32>(src, perm, n, dst, stride, offset); break;
        default: wd_sort_gather_as<wd_u64>(src, perm, n, dst, stride, offset); break;
    }
}
