// ---- warp-dsl block primitives: what the WD_BLOCK threads of a block compute together (CUB's block layer) ----
// The layer above warp.cuh (whose primitives these are built from) and below the families'
// patterns (CUB's agents: reduce.cuh, predicate.cuh, scan.cuh, runs.cuh, topk.cuh, axis.cuh,
// histogram.cuh): block reduce, block scans (the scan of warp totals, written once here), the
// radix digit histogram and pick of a radix select, a bitonic sort network in shared memory,
// the merge sort of a tile, the bitonic sort of 4,096 words in registers, and the warp tile
// layout with its vector loads and stores.
//
// Each primitive's comment says who calls it (every thread of the block, or one warp), the
// barriers it contains and the shared memory it uses. Where the callers already hold shared
// memory for it (top-k's block state), the primitive takes it as an argument instead of
// declaring its own, so no kernel gains shared memory or barriers by calling it.

// ---- block reduce ----
// Every warp reduces (the module's wd_warp_reduce), lane 0 writes warpSums[warp], one barrier,
// warp 0 reduces the warp totals. All NT threads of the block (WD_BLOCK unless given; at most
// 1024) call it; thread 0 ends with the block's total. Shared memory: its own 32 slots of T; a
// caller that calls it again must put a barrier between the two calls (the slots are reused).
template <class Op, unsigned NT = WD_BLOCK> static __device__ __forceinline__ typename Op::T wd_block_reduce(typename Op::T v) {
    __shared__ typename Op::T warpSums[32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    v = wd_warp_reduce<Op>(v);
    if (lane == 0) warpSums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (NT / 32) ? warpSums[lane] : Op::identity();
        v = wd_warp_reduce<Op>(v);
    }
    return v;
}

// ---- block scans: the scan of warp totals ----
// Two ways, chosen by who needs the result:
//
// wd_block_scan: every thread needs its prefix at once. One value a thread, scanned in thread
// order: warp scans (wd_warp_scan), lane 31 writes its warp's total to slots[warp], a barrier,
// then every thread folds the totals of the warps before its own (and of all of them, `total`,
// the block's aggregate) from shared memory; a second barrier frees the slots for the caller's
// next use. Returns the thread's inclusive prefix, or with EXCLUSIVE its exclusive one (thread 0:
// the identity). All NT (the block's, WD_BLOCK unless said) threads call it; `slots` is shared
// memory of NT / 32 values.
template <class Op, bool EXCLUSIVE, unsigned NT = WD_BLOCK>
static __device__ __forceinline__ typename Op::T wd_block_scan(typename Op::T v, typename Op::T (&slots)[NT / 32],
                                                               typename Op::T& total) {
    typedef typename Op::T T;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const T incl = wd_warp_scan<Op>(v);
    if (lane == 31) slots[warp] = incl;
    __syncthreads();
    T before = Op::identity(), all = Op::identity();
#pragma unroll
    for (unsigned w = 0; w < NT / 32; ++w) {
        const T t = slots[w];
        if (w < warp) before = Op::combine(before, t);
        all = Op::combine(all, t);
    }
    total = all;
    __syncthreads();
    if constexpr (EXCLUSIVE) return wd_warp_exclusive<Op>(incl, before);
    else return Op::combine(before, incl);
}

// wd_block_scan_warp_totals: one warp needs the block's aggregate before the others need their
// prefixes (the single-pass tile prefix, wd_block_tile_prefix in lookback.cuh, whose warp 0
// then looks back). Called by all of warp 0 after the barrier that follows every warp's write of
// its total to slots[warp]: scans the totals in place into exclusive prefixes (slots[0] the
// identity, slots[w] the totals of the warps before w) with one warp scan, and returns the
// block's aggregate to every lane of warp 0. No barrier: the caller's next one publishes the
// prefixes. `slots` is shared memory of WD_BLOCK / 32 values.
template <class Op>
static __device__ __forceinline__ typename Op::T wd_block_scan_warp_totals(typename Op::T (&slots)[WD_BLOCK / 32]) {
    typedef typename Op::T T;
    const unsigned lane = threadIdx.x & 31u;
    const T mine = lane < WD_BLOCK / 32 ? slots[lane] : Op::identity();
    const T incl = wd_warp_scan<Op>(mine);
    const T aggregate = wd_shfl_idx(incl, WD_BLOCK / 32 - 1);
    const T excl = wd_warp_exclusive<Op>(incl);
    if (lane < WD_BLOCK / 32) slots[lane] = excl;
    return aggregate;
}

// ---- radix select: digit histogram and pick ----
// What a radix pick finds (in shared memory): the digit holding the wanted entry, its rank among
// that digit's entries (1-based), their number (`bin`), and all the entries counted (`total`).
struct wd_radix_pick {
    wd_u32 digit, rank, bin, total;
};

// wd_block_digit_histogram (below) with U loads in flight a thread, for entries read from
// global memory (a row of top_k_rows): load(j) reads entry j (all U of a round before any is
// counted), count(j, x, d) tests the loaded x and sets its digit d. The same barriers. (The
// plain one, for entries in shared memory, stays a loop of its own: the top-k kernel's
// registers.)
template <int U, class Load, class Count>
static __device__ __forceinline__ void wd_block_digit_histogram_loaded(wd_u32 (&hist)[256], wd_u32 cnt, const Load& load,
                                                                       const Count& count) {
    static_assert(WD_BLOCK >= 256, "the radix primitives give each of their 256 bins a thread");
    if (threadIdx.x < 256u) hist[threadIdx.x] = 0u;
    __syncthreads();
    wd_u64 j = threadIdx.x;
    for (; j + (U - 1) * WD_BLOCK < cnt; j += U * WD_BLOCK) {
        decltype(load(0u)) x[U];
#pragma unroll
        for (int u = 0; u < U; ++u) x[u] = load((wd_u32)(j + u * WD_BLOCK));
#pragma unroll
        for (int u = 0; u < U; ++u) {
            wd_u32 d = 0;
            if (count((wd_u32)(j + u * WD_BLOCK), x[u], d)) atomicAdd(&hist[d], 1u);
        }
    }
    for (; j < cnt; j += WD_BLOCK) {
        wd_u32 d = 0;
        if (count((wd_u32)j, load((wd_u32)j), d)) atomicAdd(&hist[d], 1u);
    }
    __syncthreads();
}

// The histogram of one 8-bit digit: `hist` (256 bins in shared memory) zeroed, then each entry
// j < cnt for which count(j, d) is true (it sets d, the entry's digit) adds one to hist[d]
// (shared atomics). All threads of a block of at least 256 call it; two barriers, the last
// making the histogram visible.
template <class Count>
static __device__ __forceinline__ void wd_block_digit_histogram(wd_u32 (&hist)[256], wd_u32 cnt, const Count& count) {
    static_assert(WD_BLOCK >= 256, "the radix primitives give each of their 256 bins a thread");
    if (threadIdx.x < 256u) hist[threadIdx.x] = 0u;
    __syncthreads();
    for (wd_u32 j = threadIdx.x; j < cnt; j += WD_BLOCK) {
        wd_u32 d = 0;
        if (count(j, d)) atomicAdd(&hist[d], 1u);
    }
    __syncthreads();
}

// The digit of the rank-th entry (1-based) of a visible digit histogram `hist`, in descending
// digit order when `descending`, else ascending: thread t takes bin t (255 - t), the block scan
// (wd_block_scan over `slots`, WD_BLOCK / 32 values of shared memory) ranks the bins, and the
// thread whose bin holds the rank-th entry writes pick.digit, pick.rank and pick.bin; thread 0
// writes pick.total (rank beyond it: digit, rank and bin are left as they were). All threads of a
// block of at least 256 call it; three barriers (the block scan's two, and one making `pick`
// visible).
static __device__ __forceinline__ void wd_block_radix_pick(const wd_u32 (&hist)[256], wd_u32 rank, bool descending,
                                                           wd_u64 (&slots)[WD_BLOCK / 32], wd_radix_pick& pick) {
    const unsigned d = descending ? 255u - threadIdx.x : threadIdx.x;
    const wd_u64 h = threadIdx.x < 256u ? hist[d] : 0ull;
    wd_u64 total;
    const wd_u64 incl = wd_block_scan<wd_op_count, false>(h, slots, total);
    const wd_u64 excl = incl - h;
    if (threadIdx.x < 256u && excl < rank && rank <= incl) {
        pick.digit = d;
        pick.rank = rank - (wd_u32)excl;
        pick.bin = (wd_u32)h;
    }
    if (threadIdx.x == 0) pick.total = (wd_u32)total;
    __syncthreads();
}

// ---- bitonic sort ----
// Sorts entries [0, p) of (key, val) in shared memory (p a power of two at most N, every entry
// written and visible: after a barrier) so that no entry is followed by one that goes `before`
// it (before(ka, va, kb, vb): a strict order; pad [cnt, p) with entries that go last). The
// network's log2(p) (log2(p) + 1) / 2 steps each compare-exchange p / 2 pairs, spread over the
// threads (pair t to thread t % WD_BLOCK). A step of stride at most 32 keeps each warp within
// 64-entry segments of its own (pair t's entries are in segment t / 32), so between two such
// steps a warp barrier (__syncwarp) does; other steps end with a block barrier, as does the
// last. All threads call it.
template <class K, class V, int N, class Before>
static __device__ __forceinline__ void wd_block_bitonic_sort(K (&key)[N], V (&val)[N], wd_u32 p, const Before& before) {
    for (wd_u32 size = 2; size <= p; size <<= 1) {
        for (wd_u32 stride = size >> 1; stride > 0; stride >>= 1) {
            for (wd_u32 t = threadIdx.x; t < p / 2; t += WD_BLOCK) {
                // Pair t's first entry: t with a zero bit inserted at stride's place.
                const wd_u32 i = ((t & ~(stride - 1u)) << 1) | (t & (stride - 1u)), j = i + stride;
                const K ki = key[i], kj = key[j];
                const V vi = val[i], vj = val[j];
                const bool j_first = before(kj, vj, ki, vi);
                const bool ascending = (i & size) == 0;
                if (j_first == ascending) {
                    key[i] = kj;
                    key[j] = ki;
                    val[i] = vj;
                    val[j] = vi;
                }
            }
            const wd_u32 next = stride > 1u ? stride >> 1 : (size < p ? size : 0u);
            if (stride <= 32u && next != 0u && next <= 32u)
                __syncwarp();
            else
                __syncthreads();
        }
    }
}

// Sorts entries [0, cnt) of (key, val) in shared memory (cnt at most WD_BLOCK, every entry
// visible: after a barrier) by rank: thread t counts the entries that go `before` entry t (a
// strict total order over the entries, so no two share a rank) and, after a barrier, writes
// entry t at its rank. Two barriers, the last making the order visible; cnt broadcast reads a
// thread. All threads call it.
template <class K, class V, int N, class Before>
static __device__ __forceinline__ void wd_block_rank_sort(K (&key)[N], V (&val)[N], wd_u32 cnt, const Before& before) {
    const bool mine = threadIdx.x < cnt;
    K k0 = K();
    V v0 = V();
    wd_u32 r = 0;
    if (mine) {
        k0 = key[threadIdx.x];
        v0 = val[threadIdx.x];
#pragma unroll 4
        for (wd_u32 j = 0; j < cnt; ++j) r += before(key[j], val[j], k0, v0) ? 1u : 0u;
    }
    __syncthreads();
    if (mine) {
        key[r] = k0;
        val[r] = v0;
    }
    __syncthreads();
}

// Sorts entries [0, cnt) of (key, val) in shared memory (every entry visible) so that no entry
// is followed by one that goes `before` it (a strict total order): by rank
// (wd_block_rank_sort) when cnt is at most WD_BLOCK, else by the bitonic network
// (wd_block_bitonic_sort) over the next power of two, padded with (pad_key, pad_val), which
// must go after every entry (the arrays hold N entries, at least that power of two). Ends
// with a barrier. All threads call it.
template <class K, class V, int N, class Before>
static __device__ __forceinline__ void wd_block_sort(K (&key)[N], V (&val)[N], wd_u32 cnt, K pad_key, V pad_val,
                                                     const Before& before) {
    if (cnt <= (wd_u32)WD_BLOCK) {
        wd_block_rank_sort(key, val, cnt, before);
        return;
    }
    wd_u32 p = 1;
    while (p < cnt) p <<= 1;
    for (wd_u32 j = cnt + threadIdx.x; j < p; j += WD_BLOCK) {
        key[j] = pad_key;
        val[j] = pad_val;
    }
    __syncthreads();
    wd_block_bitonic_sort(key, val, p, before);
}

// ---- merge sort of a tile in shared memory (CUB's BlockMergeSort) ----
// By `less(x, y)`: whether x sorts before y (a strict weak order); stable: of equal keys (neither
// less than the other) the earlier comes first. A tile's keys are ITEMS a thread, thread t's at
// t * ITEMS (ITEMS odd, so that a warp's strided accesses meet no bank twice); positions (u32)
// move with them when `with_pos`. The callers: merge.cuh (the user's comparator) and sort.cuh
// (the rows' keys kernel's 8-byte words, by `<`).

// Keys taken from `a` (na keys) among the first d of the stable merge of a and b (nb keys):
// the merge path's crossing of diagonal d. Equal keys: a's first.
template <class I, class PA, class PB, class L>
static __device__ __forceinline__ I wd_block_merge_path(const L& less, PA a, I na, PB b, I nb, I d) {
    I lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (!less(b[d - 1 - mid], a[mid])) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// ITEMS keys (and positions when with_pos) of the stable merge of keys[ia .. a_end) (run a,
// from the thread's place on the merge path) and keys[ib .. b_end) (run b, starting at a_end),
// into k / p; slots past the runs' end hold no key. As CUB's SerialMerge: the next key of each
// run waits in a register, so each output reads one key from shared memory, the one after the
// key it takes (`at + 1`), clamped to the pair's last key (a read past it could meet another
// warp's writes; whatever is read there is never taken). The choice is branch-free: `less` is
// evaluated on whatever x and y hold (keys of the tile, never taken when a run is spent), which
// costs fewer instructions than the branches that would skip it.
template <int ITEMS, class T, class L>
static __device__ __forceinline__ void wd_block_merge_serial(const L& less, const T* keys, const wd_u32* pos, wd_u32 ia,
                                                             wd_u32 a_end, wd_u32 ib, wd_u32 b_end, T (&k)[ITEMS],
                                                             wd_u32 (&p)[ITEMS], bool with_pos) {
    const wd_u32 last = b_end - 1;
    const auto clamp = [last](wd_u32 i) { return i < last ? i : last; };
    T x = keys[clamp(ia)], y = keys[clamp(ib)];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const bool take_b = (ib <= last) & ((ia >= a_end) | less(y, x));
        const wd_u32 at = take_b ? ib : ia;
        k[j] = take_b ? y : x;
        if (with_pos) p[j] = pos[clamp(at)];
        if (j + 1 < ITEMS) {
            // The taken run's next key (the last output reads none).
            const T z = keys[clamp(at + 1)];
            if (take_b) {
                y = z;
                ib = at + 1;
            } else {
                x = z;
                ia = at + 1;
            }
        }
    }
}

// How many of the ITEMS keys from `mine` a thread holds of a tile of `count` keys.
template <int ITEMS>
static __device__ __forceinline__ wd_u32 wd_block_merge_valid(wd_u32 mine, wd_u32 count) {
    return mine < count ? (count - mine < (wd_u32)ITEMS ? count - mine : (wd_u32)ITEMS) : 0u;
}

// Whether a merge round of runs of `w` keys (ITEMS times a power of two) stays within each
// warp's 32 * ITEMS keys, which then hold whole pairs of runs: the round's barriers need only
// the warp.
template <int ITEMS>
static __device__ __forceinline__ bool wd_block_merge_local(wd_u32 w) {
    return 2u * w <= 32u * (wd_u32)ITEMS;
}

// The thread's `valid` keys (and positions, when with_pos) written to the tile at `mine`, once
// every thread has read the tile: a barrier on each side, of the block, or of the warp alone
// where `lead_block` (before) or `trail_block` (after) is false (the reads before, or after,
// stay within the warp's keys: wd_block_merge_local).
template <int ITEMS, class T>
static __device__ __forceinline__ void wd_block_merge_put(T* tile, wd_u32* tpos, wd_u32 mine, wd_u32 valid, const T (&k)[ITEMS],
                                                          const wd_u32 (&p)[ITEMS], bool with_pos, bool lead_block = true,
                                                          bool trail_block = true) {
    static_assert(ITEMS % 2 == 1, "an odd number of keys a thread: strided shared accesses meet no bank twice");
    if (lead_block) __syncthreads();
    else __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if ((wd_u32)j < valid) {
            tile[mine + j] = k[j];
            if (with_pos) tpos[mine + j] = p[j];
        }
    }
    if (trail_block) __syncthreads();
    else __syncwarp();
}

// A thread's N keys sorted in registers by `less`, not stably, by Batcher's odd-even merge
// network over the next power of two, the pairs past N dropped (as if padded with keys that sort
// last): fewer compare-exchanges than an insertion sort, each a min and a max for words.
// (The network's pairs, listed at compile time.)
template <int N> struct wd_sort_network {
    static constexpr int P2 = N <= 1 ? 1 : N <= 2 ? 2 : N <= 4 ? 4 : N <= 8 ? 8 : N <= 16 ? 16 : N <= 32 ? 32 : 64;
    int a[P2 * 12], b[P2 * 12], count;
    __host__ __device__ constexpr wd_sort_network() : a(), b(), count(0) {
        for (int p = 1; p < P2; p <<= 1)
            for (int d = p; d >= 1; d >>= 1)
                for (int j = d % p; j + d < P2; j += 2 * d)
                    for (int i = 0; i < d; ++i) {
                        const int x = i + j, y = i + j + d;
                        if (y < N && x / (2 * p) == y / (2 * p)) {
                            a[count] = x;
                            b[count] = y;
                            ++count;
                        }
                    }
    }
};
template <int N, class T, class L>
static __device__ __forceinline__ void wd_thread_sort_network(const L& less, T (&k)[N]) {
    static_assert(N <= 64, "a network of at most 64 keys");
    constexpr wd_sort_network<N> net{};
#pragma unroll
    for (int c = 0; c < net.count; ++c) {
        const int x = net.a[c], y = net.b[c];
        if (less(k[y], k[x])) {
            const T t = k[x];
            k[x] = k[y];
            k[y] = t;
        }
    }
}

// The tile's `count` keys (at most ITEMS times the block's threads) sorted in place: each
// thread's items (k, and p when with_pos: the caller's, the `valid` ones from
// threadIdx.x * ITEMS) sorted in registers (a stable insertion sort; with UNSTABLE, for keys
// whose equal ones cannot be told apart and a full tile, ITEMS keys in every thread,
// wd_thread_sort_network), then rounds of merges double the sorted runs, each thread finding
// where its outputs start on the merge path of its pair of runs (the first five rounds, within
// each warp's keys, behind the warp's barriers alone). Every thread calls it; it ends with a
// block barrier, the sorted tile (and positions) in `tile` (`tpos`).
template <int ITEMS, bool UNSTABLE = false, class T, class L>
static __device__ __forceinline__ void wd_block_merge_sort(const L& less, T* tile, wd_u32* tpos, wd_u32 count, T (&k)[ITEMS],
                                                           wd_u32 (&p)[ITEMS], bool with_pos) {
    const wd_u32 mine = threadIdx.x * ITEMS;
    const wd_u32 valid = UNSTABLE ? (wd_u32)ITEMS : wd_block_merge_valid<ITEMS>(mine, count);
    if constexpr (UNSTABLE) {
        wd_thread_sort_network<ITEMS>(less, k);
    } else {
#pragma unroll
        for (int j = 1; j < ITEMS; ++j) {
#pragma unroll
            for (int i = j; i > 0; --i) {
                // Moves item i down while it is less than the one before it (never past an equal key).
                if ((wd_u32)i < valid && less(k[i], k[i - 1])) {
                    const T t = k[i];
                    k[i] = k[i - 1];
                    k[i - 1] = t;
                    const wd_u32 q = p[i];
                    p[i] = p[i - 1];
                    p[i - 1] = q;
                }
            }
        }
    }
    // Rounds: runs of `w` keys merged in pairs, each thread taking ITEMS outputs of its pair.
    const auto round = [&](wd_u32 w) {
        if (valid > 0) {
            // The pair's first key (by a division: with the thread index's bits instead, ptxas
            // spilled in a comparator's block sort).
            const wd_u32 start = mine / (2 * w) * (2 * w);
            const wd_u32 a_end = start + w < count ? start + w : count;
            const wd_u32 b_end = start + 2 * w < count ? start + 2 * w : count;
            const wd_u32 na = a_end - start, nb = b_end - a_end;
            const wd_u32 d = mine - start;
            const wd_u32 ai = wd_block_merge_path<wd_u32>(less, tile + start, na, tile + a_end, nb, d);
            wd_block_merge_serial<ITEMS>(less, tile + start, tpos + start, ai, na, na + (d - ai), na + nb, k, p, with_pos);
        }
    };
    // The rounds within a warp's keys (the first five) behind the warp's barriers, then the
    // block's.
    const auto local = [count](wd_u32 w) { return w < count && wd_block_merge_local<ITEMS>(w); };
    wd_block_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos, true, !local(ITEMS));
    wd_u32 w = ITEMS;
    for (; local(w); w *= 2) {
        round(w);
        wd_block_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos, false, !local(2 * w));
    }
    for (; w < count; w *= 2) {
        round(w);
        wd_block_merge_put<ITEMS>(tile, tpos, mine, valid, k, p, with_pos);
    }
}

// ---- bitonic sort of 4,096 words in registers ----
// Each group of 128 threads of a block (four warps: threadIdx.x / 128) holds 4,096 unsigned
// words, 32 a thread in registers, and sorts them ascending by `<` (equal words cannot be told
// apart, so no order among them is kept) by Batcher's bitonic network: 12 levels, level k's
// steps (strides 2^(k-1) .. 1) each compare-exchanging the pairs of words whose index differs
// in the step's bit. A word's index (12 bits) is given by one of three layouts of (warp w,
// lane l, register r):
//   L: w << 10 | l << 5 | r   (registers hold bits 0..4),
//   M: w << 10 | r << 5 | l   (bits 5..9; a lane's register r at consecutive indices),
//   H: r0 << 10 | r1 << 11 | r2..4 << 5 | w << 8 | l   (bits 10, 11 and 5..7).
// Every step runs in registers, on the layout whose registers hold its bit; the words move
// between layouts through shared memory (`wd_bitonic_move`: 17 moves, those between L and M
// within each warp's own words, behind the warp's barriers alone; those to and from H behind
// the block's). Index i sits at i + i / 32, so that every move's reads and writes meet each
// bank once a warp. Level k sorts a pair descending where the index's bit k is set: in levels
// 1 .. 4 a register's bit, known when compiling; from level 5 on the words there are held
// complemented (`wd_bitonic_flip` between levels), so every compare-exchange is the same
// min-first pair of min and max.

// Index bits a layout gives a thread (`wd_bitonic_thread`) and register r (`wd_bitonic_reg`):
// disjoint, so the padded index is the sum of the parts' padded indices, the register's part an
// immediate offset.
enum wd_bitonic_layout { WD_BITONIC_L, WD_BITONIC_M, WD_BITONIC_H };
template <int Y> static __device__ __forceinline__ wd_u32 wd_bitonic_thread(wd_u32 w, wd_u32 l) {
    return Y == WD_BITONIC_L ? (w << 10 | l << 5) : Y == WD_BITONIC_M ? (w << 10 | l) : (w << 8 | l);
}
template <int Y> static __device__ __forceinline__ constexpr wd_u32 wd_bitonic_reg(wd_u32 r) {
    return Y == WD_BITONIC_L ? r : Y == WD_BITONIC_M ? r << 5 : ((r & 1u) << 10 | (r >> 1 & 1u) << 11 | (r >> 2) << 5);
}
static __device__ __forceinline__ constexpr wd_u32 wd_bitonic_pad(wd_u32 i) { return i + (i >> 5); }

// The words of layout FROM into layout TO through `tile` (4,224 words). The barrier before the
// writes keeps them after every read of the move before: the block's where either layout is H
// (its writes or reads cross the warps' words), else the warp's (L and M keep a warp's words in
// its own 1,056 slots). All threads call it.
template <int FROM, int TO, class W>
static __device__ __forceinline__ void wd_bitonic_move(W* tile, W (&k)[32]) {
    constexpr bool block = FROM == WD_BITONIC_H || TO == WD_BITONIC_H;
    const wd_u32 w = threadIdx.x >> 5 & 3u, l = threadIdx.x & 31u;
    if (block) __syncthreads();
    else __syncwarp();
    W* from = tile + wd_bitonic_pad(wd_bitonic_thread<FROM>(w, l));
#pragma unroll
    for (int r = 0; r < 32; ++r) from[wd_bitonic_pad(wd_bitonic_reg<FROM>((wd_u32)r))] = k[r];
    if (block) __syncthreads();
    else __syncwarp();
    const W* to = tile + wd_bitonic_pad(wd_bitonic_thread<TO>(w, l));
#pragma unroll
    for (int r = 0; r < 32; ++r) k[r] = to[wd_bitonic_pad(wd_bitonic_reg<TO>((wd_u32)r))];
}

// The steps of register bits HI .. 0, in that order: each pair (r, r | 1 << b) of registers
// ordered min first, or max first where register bit D (D < 5) of r is set. A min and a max
// both take the ALU pipe (16 lanes a cycle), which bounds the network; where r is a multiple of
// 4 the max is x + y - min instead, two IMADs on the FMA pipe (exact: the sum wraps and comes
// back). Rows of 4,096 f32 on an H100, 2^27 keys: 0.972 ms with no such pair, 0.943 where r is
// a multiple of 4, 0.949 of 3, 0.957 of 2 (one call).
template <int HI, int D = 5, class W>
static __device__ __forceinline__ void wd_bitonic_steps(W (&k)[32]) {
    // 1 (a block has at most 1,024 threads), which ptxas cannot fold: the sums below issue as
    // IMADs.
    const W one = (W)((blockDim.x >> 10) | 1u);
#pragma unroll
    for (int b = HI; b >= 0; --b) {
#pragma unroll
        for (int r = 0; r < 32; ++r) {
            if ((r >> b & 1) == 0) {
                const W x = k[r], y = k[r | 1 << b];
                const W lo = x < y ? x : y;
                const W hi = r % 4 == 0 ? (W)0 - one * lo + (x * one + y) : (x < y ? y : x);
                const bool down = (r >> D & 1) != 0;
                k[r] = down ? hi : lo;
                k[r | 1 << b] = down ? lo : hi;
            }
        }
    }
}

// In layout L: each word complemented where its index's bit A differs from its bit B (B < 0:
// where bit A is set): from the direction of one level (bit A) to the next's (bit B). As
// x * s + m (m all ones or zero, s = m | 1: ~x = -x - 1), an IMAD on the FMA pipe.
template <int A, int B, class W>
static __device__ __forceinline__ void wd_bitonic_flip(W (&k)[32]) {
    constexpr int BB = B < 0 ? 0 : B;
    const wd_u32 t = wd_bitonic_thread<WD_BITONIC_L>(threadIdx.x >> 5 & 3u, threadIdx.x & 31u);
    // The thread's bits of the index (5 .. 11) and the register's (0 .. 4).
    const W m = (W)0 - (W)(((t >> A) ^ (B < 0 ? 0u : t >> BB)) & 1u);
    const W n = (W)~m;
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        const bool c = ((r >> A) ^ (B < 0 ? 0 : r >> BB)) & 1;
        k[r] = c ? k[r] * (n | 1u) + n : k[r] * (m | 1u) + m;
    }
}

// Level K (6 .. 12) of the network, from layout L to L: the steps of bits K-1 .. 5 (those of
// bits 11 and 10 in H, the rest in M), then of bits 4 .. 0, then the words' complements turned
// from this level's direction to the next's.
template <int K, class W>
static __device__ __forceinline__ void wd_bitonic_level(W* tile, W (&k)[32]) {
    if constexpr (K > 10) {
        wd_bitonic_move<WD_BITONIC_L, WD_BITONIC_H>(tile, k);
        wd_bitonic_steps<K - 11>(k);
        wd_bitonic_move<WD_BITONIC_H, WD_BITONIC_M>(tile, k);
        wd_bitonic_steps<4>(k);
    } else {
        wd_bitonic_move<WD_BITONIC_L, WD_BITONIC_M>(tile, k);
        wd_bitonic_steps<K - 6>(k);
    }
    wd_bitonic_move<WD_BITONIC_M, WD_BITONIC_L>(tile, k);
    wd_bitonic_steps<4>(k);
    if constexpr (K < 11) wd_bitonic_flip<K, K + 1>(k);
    else if constexpr (K == 11) wd_bitonic_flip<11, -1>(k);
}

// The group's 4,096 words, k of each thread as layout L gives them (any places: a sort does not
// care where a word starts), sorted: on return k holds them as layout M gives them (thread
// (w, l)'s register r the word of index w << 10 | r << 5 | l, w the thread's warp in its group:
// a warp's register r is 32 consecutive words, for coalesced stores). `tile`: the group's
// 4,224 words of shared memory. Every thread of the block calls it (its barriers are the
// block's); the tile is free once the block's next barrier is passed.
template <class W>
static __device__ __forceinline__ void wd_block_bitonic_words(W* tile, W (&k)[32]) {
    // Levels 1 .. 4: their directions' bits are the registers' (no complemented words).
    wd_bitonic_steps<0, 1>(k);
    wd_bitonic_steps<1, 2>(k);
    wd_bitonic_steps<2, 3>(k);
    wd_bitonic_steps<3, 4>(k);
    wd_bitonic_flip<5, -1>(k);
    wd_bitonic_steps<4>(k);
    wd_bitonic_flip<5, 6>(k);
    wd_bitonic_level<6>(tile, k);
    wd_bitonic_level<7>(tile, k);
    wd_bitonic_level<8>(tile, k);
    wd_bitonic_level<9>(tile, k);
    wd_bitonic_level<10>(tile, k);
    wd_bitonic_level<11>(tile, k);
    wd_bitonic_level<12>(tile, k);
    wd_bitonic_move<WD_BITONIC_L, WD_BITONIC_M>(tile, k);
}

// ---- warp tiles: layout, vector loads and stores ----
// A warp tile read as vectors (16 bytes of the widest array at a time): slot j = r * VEC + k of
// lane l holds element base + (r * 32 + l) * VEC + k (r < ITEMS / VEC), so each row of 32 * VEC
// consecutive elements is one coalesced load. ITEMS (the slots of a lane) is WD_ITEMS but where
// a warp takes several warp tiles at once (the scan) or a family has its own (top-k).
template <class St, int ITEMS = WD_ITEMS> struct wd_vec_layout {
    static_assert(St::VEC <= ITEMS, "a vector holds at most ITEMS elements");
    static constexpr int VEC = St::VEC;
    static constexpr int ROWS = ITEMS / VEC;
    static constexpr int SLOTS = ITEMS;
    static constexpr int TILE = 32 * ITEMS;
    // Where slot j of `lane` is, from the warp tile's first element.
    static __device__ __forceinline__ unsigned offset(int j, unsigned lane) {
        return ((unsigned)(j / VEC) * 32u + lane) * VEC + (unsigned)(j % VEC);
    }
};

// Loads ITEMS elements a lane, striped: e[j] = element base + j * 32 + lane (each load covers 32
// consecutive elements), st.at(0) past st.n (so any tail is safe). Independent loads, all in
// flight. One warp; no barrier.
template <int ITEMS, class St>
static __device__ __forceinline__ void wd_tile_load_striped(const St& st, wd_u64 base, typename St::elem_t (&e)[ITEMS]) {
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const wd_u64 i = base + (wd_u64)j * 32u + lane;
        e[j] = i < st.n ? st.load(i) : st.at(0);
    }
}

// Loads the warp tile of layout L (a wd_vec_layout) from `base` as vectors: raw[r] = the L::VEC
// elements from base + (r * 32 + lane) * L::VEC. The tile must be inside the input and aligned
// (wd_tile_vectorizable, tiles.cuh). One warp; no barrier.
template <class L, class St>
static __device__ __forceinline__ void wd_tile_load_vec(const St& st, wd_u64 base, typename St::elem_t (&raw)[L::ROWS][L::VEC]) {
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) st.load_vec(base + ((wd_u64)r * 32u + lane) * L::VEC, raw[r]);
}

// Stores the warp tile of layout L from `base`: slot j's w[j] to out[base + L::offset(j, lane)].
// When the tile is whole (`whole`: inside the n elements), out + base is 16-byte aligned and a
// lane's L::VEC values are 16 bytes, as streaming 16-byte stores; else element by element, those
// below n. One warp; no barrier.
template <class L, class V>
static __device__ __forceinline__ void wd_tile_store(V* out, wd_u64 base, wd_u64 n, const V (&w)[L::SLOTS], bool whole) {
    const unsigned lane = threadIdx.x & 31u;
    bool stored = false;
    if constexpr (L::VEC * sizeof(V) == 16) {
        if (whole && (((wd_u64)(out + base)) & 15u) == 0) {
#pragma unroll
            for (int r = 0; r < L::ROWS; ++r) {
                wd_vec<V, L::VEC> x;
#pragma unroll
                for (int k = 0; k < L::VEC; ++k) x.e[k] = w[r * L::VEC + k];
                __stcs(reinterpret_cast<uint4*>(out + base + ((wd_u64)r * 32u + lane) * L::VEC), x.raw);
            }
            stored = true;
        }
    }
    if (!stored) {
#pragma unroll
        for (int j = 0; j < L::SLOTS; ++j) {
            const wd_u64 i = base + L::offset(j, lane);
            if (i < n) out[i] = w[j];
        }
    }
}
