// ---- warp-dsl runs: unique, run-length encode and reduce-by-key in one pass ----
// A run is a maximal stretch of consecutive elements whose neighbours are the same key:
// element i starts a run (is its head) when i == 0 or !wd_same(a, key[i-1], key[i]) (the
// module writes wd_same: `==`, or the user's predicate of two keys). Each block takes one
// block tile (warp tiles in the scan's layout: slot j = r * VEC + k of lane l is element
// base + (r * 32 + l) * VEC + k, so that whole aligned tiles are read as vectors); a slot's
// predecessor comes from its own lane (k > 0), the lane below (shuffle), lane 31 of the row
// before, or, for the warp tile's first element, from global memory. Heads are ranked by
// ballots; the block's head count is scanned across its warps and between tiles by the
// decoupled look-back, and the keys of the heads are staged in shared memory and written
// coalesced at their run numbers.
//
// Run lengths are differences of run starts: each head stages its offset, and the start of the
// last run before a warp tile travels with the head count through the block scan and the
// look-back (wd_runs_last), so no value is combined per element.
//
// With values (a #[reduce] operator over values read alongside the keys), each slot's
// value is combined with those before it in its run by a segmented scan (thread, then warp
// with head flags, rows chained by a carry); what runs over a warp tile's end travels with the
// head count as one (heads, value) pair through the block scan and the look-back. A run's
// value is written, staged too, by the warp tile holding its last element (the successor of a
// warp tile's last element is read from global memory). The look-back of pairs folds values
// strictly in tile order from the nearest tile that holds a head (or has its inclusive
// prefix), so a run's value does not depend on timing: floating-point results are the same on
// every run of the same input.
#define WD_HAVE_RUNS 1

// What a run carries (the `Vals` policy): nothing (unique), its length (counts of type C), or
// its values combined by an operator (Op: the module's wd_op). `key` is the key of a stage
// value (the element, or field 0 of a row of the key and the values' elements); `of` the value
// element i brings. Lengths (`starts`) are not combined element by element: they are
// differences of run starts (see wd_runs_last).
struct wd_runs_none {
    typedef wd_u8 T;
    static constexpr bool on = false;
    static constexpr bool starts = false;
    static __device__ __forceinline__ T identity() { return 0; }
    static __device__ __forceinline__ T combine(T a, T) { return a; }
    template <class V> static __device__ __forceinline__ V key(V v) { return v; }
    template <class V> static __device__ __forceinline__ T of(const wd_args&, V, wd_u64) { return 0; }
};
template <class C> struct wd_runs_counts {
    typedef C T;
    static constexpr bool on = true;
    static constexpr bool starts = true;
    static __device__ __forceinline__ T identity() { return (C)0; }
    static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
    template <class V> static __device__ __forceinline__ V key(V v) { return v; }
    template <class V> static __device__ __forceinline__ T of(const wd_args&, V, wd_u64) { return (C)1; }
};
// Val::of(a, row, i): the operator's value of the row of element i (the module's wd_run_value:
// the element after the key, zipped elements, an (element, index) pair, or a map of them).
template <class Op, class Val> struct wd_runs_reduce {
    typedef typename Op::T T;
    static constexpr bool on = true;
    static constexpr bool starts = false;
    static __device__ __forceinline__ T identity() { return Op::identity(); }
    static __device__ __forceinline__ T combine(T a, T b) { return Op::combine(a, b); }
    template <class V> static __device__ __forceinline__ auto key(V v) -> decltype(v.f0) { return v.f0; }
    // Every value enters as combine(identity, value), as the CPU's fold does.
    template <class V> static __device__ __forceinline__ T of(const wd_args& a, V v, wd_u64 i) {
        return Op::combine(Op::identity(), Val::of(a, v, i));
    }
};

// What run-length encoding carries through the look-back: the position of the last run start
// (a stretch's last head; a stretch without one passes the earlier position on).
struct wd_runs_last {
    typedef wd_u64 T;
    static __device__ __forceinline__ T identity() { return 0; }
    static __device__ __forceinline__ T combine(T a, T) { return a; }
};

// A (heads, value) pair: how many runs start in a stretch of elements, and the value of its
// last run's part in it (of all of it when no run starts there).
template <class T> struct wd_run_part {
    wd_u64 heads;
    T v;
};
template <class T> WD_DEV wd_run_part<T> wd_shfl_up(wd_run_part<T> p, unsigned x) {
    p.heads = wd_shfl_up(p.heads, x);
    p.v = wd_shfl_up(p.v, x);
    return p;
}
template <class T> WD_DEV wd_run_part<T> wd_shfl_down(wd_run_part<T> p, unsigned x) {
    p.heads = wd_shfl_down(p.heads, x);
    p.v = wd_shfl_down(p.v, x);
    return p;
}
template <class T> WD_DEV wd_run_part<T> wd_shfl_idx(wd_run_part<T> p, int x) {
    p.heads = wd_shfl_idx(p.heads, x);
    p.v = wd_shfl_idx(p.v, x);
    return p;
}
template <class T> WD_DEV wd_run_part<T> wd_ldcg(const wd_run_part<T>* p) {
    wd_run_part<T> r;
    r.heads = wd_ldcg(&p->heads);
    r.v = wd_ldcg(&p->v);
    return r;
}

// Look-back status of pairs. Values of at most 4 bytes (or, `Narrow`, integers below the
// input's length) with inputs below 2^30 elements (so that every head count fits 30 bits) share
// one 64-bit word with their state (state in bits 62..63, heads in 32..61, the value's low 32
// bits in 0..31), published by one atomic exchange; other pairs use the split layout of
// lookback.cuh (value, fence, state). The choice is made per launch from the input's length
// (the runtime sizes the status for the split layout, the larger).
template <class T, bool Narrow = false> struct wd_run_status {
    typedef wd_run_part<T> P;
    static constexpr bool can_pack = sizeof(T) <= 4 || Narrow;
    wd_tile_status<P, WD_STATUS_SPLIT> split;
    bool packed;
    __device__ __forceinline__ wd_run_status(unsigned char* mem, wd_u64 ntiles, wd_u64 n)
        : split(mem, ntiles), packed(can_pack && n < (1ull << 30)) {}
    __device__ __forceinline__ void publish(wd_u64 tile, unsigned state, P p) const {
        if constexpr (can_pack) {
            if (packed) {
                wd_u32 bits = 0;
                if constexpr (Narrow) bits = (wd_u32)p.v;
                else memcpy(&bits, &p.v, sizeof(T));
                const wd_u64 w = ((wd_u64)state << 62) | (p.heads << 32) | (wd_u64)bits;
                atomicExch((unsigned long long*)split.states + tile, (unsigned long long)w);
                return;
            }
        }
        split.publish(tile, state, p);
    }
    __device__ __forceinline__ unsigned read(wd_u64 tile, P& p) const {
        if constexpr (can_pack) {
            if (packed) {
                const wd_u64 w = *((volatile wd_u64*)split.states + tile);
                const wd_u32 bits = (wd_u32)w;
                if constexpr (Narrow) p.v = (T)bits;
                else memcpy(&p.v, &bits, sizeof(T));
                p.heads = (w >> 32) & ((1ull << 30) - 1ull);
                return (unsigned)(w >> 62);
            }
        }
        return split.read(tile, p);
    }
};

// Pairs combined in order: a later part with a head replaces the value, one without extends it.
template <class Vals> struct wd_op_runs {
    typedef wd_run_part<typename Vals::T> T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() {
        T t;
        t.heads = 0;
        t.v = Vals::identity();
        return t;
    }
    static __device__ __forceinline__ T combine(T a, T b) {
        T t;
        t.heads = a.heads + b.heads;
        t.v = b.heads != 0 ? b.v : Vals::combine(a.v, b.v);
        return t;
    }
};

// The look-back of (heads, value) pairs, by one whole warp (wd_block_tile_prefix's prefix_of):
// publishes the tile's aggregate, finds its exclusive prefix, publishes its inclusive prefix.
// Head counts are summed back to the nearest inclusive prefix (exact in any grouping); the
// value is folded one tile at a time, in tile order, from the nearest tile that holds a head or
// has published its inclusive prefix (both values fixed by the input alone), so it is the same
// whatever the timing. A window of 32 tiles with neither (a run longer than 32 block tiles) is
// read again until one of its tiles publishes its inclusive prefix.
template <class Vals, class S> struct wd_runs_prefix {
    S status;
    __device__ __forceinline__ typename wd_op_runs<Vals>::T operator()(wd_u64 tile, typename wd_op_runs<Vals>::T aggregate) const {
        typedef wd_op_runs<Vals> Op;
        typedef typename Op::T P;
        const unsigned lane = threadIdx.x & 31u;
        if (tile == 0) {
            if (lane == 0) status.publish(0, WD_LB_PREFIX, aggregate);
            return Op::identity();
        }
        if (lane == 0) status.publish(tile, WD_LB_AGGREGATE, aggregate);
        wd_u64 heads = 0;
        typename Vals::T value = Vals::identity();
        bool have_value = false;
        wd_i64 window = (wd_i64)tile - 1;
        while (true) {
            const wd_i64 j = window - (wd_i64)lane;  // lane l looks at the l-th predecessor
            P p = Op::identity();
            unsigned s;
            do {
                s = j >= 0 ? status.read((wd_u64)j, p) : WD_LB_PREFIX;
            } while (__any_sync(WD_FULL_MASK, s == WD_LB_INVALID));
            if (j < 0) p = Op::identity();
            const unsigned inclusive = __ballot_sync(WD_FULL_MASK, s == WD_LB_PREFIX);
            if (!have_value) {
                const unsigned start = inclusive | __ballot_sync(WD_FULL_MASK, p.heads != 0);
                if (start == 0) continue;  // no fixed start in this window yet: read it again
                const int from = __ffs(start) - 1;
                value = wd_shfl_idx(p.v, from);
                for (int l = from - 1; l >= 0; --l) value = Vals::combine(value, wd_shfl_idx(p.v, l));
                have_value = true;
            }
            const unsigned upto = inclusive ? (unsigned)(__ffs(inclusive) - 1) : 31u;
            heads += wd_warp_allreduce<wd_op_count>(lane <= upto ? p.heads : 0ull);
            if (inclusive) break;
            window -= 32;
        }
        P prefix;
        prefix.heads = heads;
        prefix.v = value;
        if (lane == 0) status.publish(tile, WD_LB_PREFIX, Op::combine(prefix, aggregate));
        return prefix;
    }
};

// Whether reduce-by-key stages its values (T) apart from its keys (K): when both fit 40 KB of
// static shared memory; else where the keys were, after the keys are written.
template <class K, class T> constexpr bool wd_runs_apart = (sizeof(K) + sizeof(T)) * (WD_TILE + 1) * (WD_BLOCK / 32) <= 40 * 1024;

// The run heads of one warp tile at `base` (`Whole`: of a whole aligned block tile): each slot's
// stage value `v` and key, whether it is valid (inside the input) and a head, and c[j], the heads
// of the warp tile at or before slot j; returns the warp tile's head count.
template <class Vals, bool Whole, class St, class Key>
static __device__ __forceinline__ unsigned wd_runs_heads(const St& st, wd_u64 base, typename St::value_t (&v)[WD_ITEMS],
                                                         bool (&valid_slot)[WD_ITEMS], Key (&key)[WD_ITEMS],
                                                         bool (&head)[WD_ITEMS], unsigned (&c)[WD_ITEMS]) {
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u;
    const wd_u32 below = wd_lanes_below();
    const auto slot_index = [&](int j) -> wd_u64 { return base + L::offset(j, lane); };
    // Load: vectors for whole aligned warp tiles, else one element per slot.
    if (Whole || wd_tile_vectorizable(st, base)) {
        wd_load_tile_vec(st, base, v, valid_slot);
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) valid_slot[j] = true;
    } else {
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) {
            const wd_u64 i = slot_index(j);
            valid_slot[j] = i < st.n;
            v[j] = st.value(valid_slot[j] ? st.load(i) : st.at(0));
        }
    }
    const auto valid = [&](int j) -> bool { return Whole || valid_slot[j]; };
#pragma unroll
    for (int j = 0; j < WD_ITEMS; ++j) key[j] = Vals::key(v[j]);
    // The key before the warp tile (for its first element).
    const Key before = base > 0 && base - 1 < st.n ? Vals::key(st.value(st.at(base - 1))) : key[0];
    // Heads: compare each slot with its predecessor; element 0 is one.
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
        const Key from_lane_below = wd_shfl_up(key[r * L::VEC + L::VEC - 1], 1u);
        const Key from_row_before = r > 0 ? wd_shfl_idx(key[(r - 1) * L::VEC + L::VEC - 1], 31) : before;
#pragma unroll
        for (int k = 0; k < L::VEC; ++k) {
            const int j = r * L::VEC + k;
            const Key prev = k > 0 ? key[j - 1] : (lane > 0 ? from_lane_below : from_row_before);
            head[j] = valid(j) && ((!Whole && slot_index(j) == 0) || !wd_same(st.a, prev, key[j]));
        }
    }
    if constexpr (Whole)
        if (base == 0 && lane == 0) head[0] = true;
    // Ranks: c[j] = heads of the warp tile at or before slot j.
    unsigned heads = 0;
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
        const wd_rank rank = wd_ballot_rank<L::VEC>(head, r * L::VEC, below);
        unsigned mine = heads + rank.below;
#pragma unroll
        for (int k = 0; k < L::VEC; ++k) {
            mine += head[r * L::VEC + k];
            c[r * L::VEC + k] = mine;
        }
        heads += rank.total;
    }
    return heads;
}

// Unique's warps take WD_UNIQUE_SPAN consecutive warp tiles each (keys of at most
// WD_UNIQUE_SPAN_KEY_MAX bytes; else one), so that one block tile prefix serves more elements:
// the heads' keys of each are staged one after another in the warp's slice, then the block
// finds its place once and writes them.
template <class K> constexpr unsigned wd_unique_span = sizeof(K) <= WD_UNIQUE_SPAN_KEY_MAX ? WD_UNIQUE_SPAN : 1u;

// Unique (keys only): the warp's wd_unique_span<K> warp tiles from `base`, their heads' keys
// staged in `seg`, written at their run numbers after the block tile prefix.
template <class Vals, class St, class K>
static __device__ __forceinline__ void wd_unique_tiles(const St& st, K* keys, unsigned char* status_mem, wd_u64* count, wd_u64 tile,
                                                       wd_u64 ntiles, wd_u64 base, K* seg) {
    typedef decltype(Vals::key(st.value(st.at(0)))) Key;
    const unsigned lane = threadIdx.x & 31u;
    unsigned heads = 0;
#pragma unroll 1
    for (unsigned s = 0; s < wd_unique_span<K>; ++s) {
        typename St::value_t v[WD_ITEMS];
        bool valid_slot[WD_ITEMS], head[WD_ITEMS];
        Key key[WD_ITEMS];
        unsigned c[WD_ITEMS];
        const unsigned h = wd_runs_heads<Vals, false>(st, base + (wd_u64)s * WD_TILE, v, valid_slot, key, head, c);
        // The keys are staged before the look-back, so that they need no registers during it.
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j)
            if (head[j]) seg[heads + c[j] - 1] = key[j];
        heads += h;
    }
    const wd_u64 run0 = wd_block_tile_prefix<wd_op_count>(
        wd_prefix_look_back<wd_op_count, wd_tile_status<wd_u64, WD_STATUS_PACK62>>{
            wd_tile_status<wd_u64, WD_STATUS_PACK62>(status_mem, ntiles)},
        tile, (wd_u64)heads, ntiles, count);
    __syncwarp();
    for (unsigned i = lane; i < heads; i += 32u) keys[run0 + i] = seg[i];
}

// One warp tile of wd_runs for run-length encode and reduce-by-key (`Whole`: of a whole aligned
// block tile): its runs staged in the warp's slices of shared memory (`stage_w`; `starts_w` for
// run-length encode, `vstage_w` for reduce-by-key values), its place found by the block tile
// prefix, its runs written out.
template <class Vals, bool Whole, class St, class K, class V>
static __device__ __forceinline__ void wd_runs_tile(const St& st, K* keys, V* vals, unsigned char* status_mem, wd_u64* count,
                                                    wd_u64 tile, wd_u64 ntiles, wd_u64 base, unsigned char* stage_w,
                                                    unsigned short* starts_w, unsigned char* vstage_w) {
    typedef typename Vals::T T;
    typedef wd_vec_layout<St> L;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const wd_u32 below = (1u << lane) - 1u;
    constexpr bool apart = wd_runs_apart<K, T>;
    const auto slot_index = [&](int j) -> wd_u64 { return base + L::offset(j, lane); };
    typedef decltype(Vals::key(st.value(st.at(0)))) Key;
    typename St::value_t v[WD_ITEMS];
    bool valid_slot[WD_ITEMS], head[WD_ITEMS];
    Key key[WD_ITEMS];
    unsigned c[WD_ITEMS];
    const unsigned heads = wd_runs_heads<Vals, Whole>(st, base, v, valid_slot, key, head, c);
    const auto valid = [&](int j) -> bool { return Whole || valid_slot[j]; };
    if constexpr (Vals::starts) {
        // Run lengths from run starts: run r's length is start(r + 1) - start(r), with n for
        // the last run's successor. The heads of a warp tile stage their keys and offsets
        // before the look-back; the start before the warp tile (the last head of the warp
        // tiles before it) travels with the head count through the block scan and the
        // look-back as a (heads, last start) pair, exact in any grouping.
        typedef wd_op_runs<wd_runs_last> Op;
        typedef typename Op::T P;
        typedef wd_run_status<wd_u64, true> Status;
        K* seg_k = (K*)stage_w;
        unsigned short* seg_s = starts_w;
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j)
            if (head[j]) {
                seg_k[c[j] - 1] = key[j];
                seg_s[c[j] - 1] = (unsigned short)L::offset(j, lane);
            }
        __syncwarp();
        P mine;
        mine.heads = heads;
        mine.v = heads != 0 ? base + seg_s[heads - 1] : 0ull;
        const P pre = wd_block_tile_prefix<Op>(wd_runs_prefix<wd_runs_last, Status>{Status(status_mem, ntiles, st.n)}, tile,
                                               mine, ntiles, (P*)nullptr);
        if (count != nullptr && tile == ntiles - 1 && warp == WD_BLOCK / 32 - 1 && lane == 0) *count = pre.heads + heads;
        const wd_u64 run0 = pre.heads;
        // Head i of the warp tile is run run0 + i: it writes its key and its predecessor's length.
        for (unsigned i = lane; i < heads; i += 32u) {
            keys[run0 + i] = seg_k[i];
            const wd_u64 prev = i > 0 ? base + seg_s[i - 1] : pre.v;
            if (run0 + i > 0) vals[run0 + i - 1] = (V)(base + seg_s[i] - prev);
        }
        // The last run ends at n: the warp tile holding element n - 1 writes its length.
        if (lane == 0 && base < st.n && st.n - base <= WD_TILE)
            vals[run0 + heads - 1] = (V)(st.n - (heads != 0 ? base + seg_s[heads - 1] : pre.v));
    } else {
        typedef wd_op_runs<Vals> Op;
        typedef typename Op::T P;
        // Ends: a slot is its run's last element when its successor is a head (or past n).
        const bool after_head = base + WD_TILE < st.n
                                    ? !wd_same(st.a, key[WD_ITEMS - 1], Vals::key(st.value(st.at(base + WD_TILE))))
                                    : true;
        bool end[WD_ITEMS];
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
            const bool next_lane = wd_shfl_down(head[r * L::VEC], 1u);
            const bool next_row = r + 1 < L::ROWS ? wd_shfl_idx(head[(r + 1) * L::VEC], 0) : after_head;
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                const int j = r * L::VEC + k;
                const bool next = k + 1 < L::VEC ? head[j + 1] : (lane < 31 ? next_lane : next_row);
                end[j] = valid(j) && ((!Whole && slot_index(j) + 1 >= st.n) || next);
            }
        }
        // Segmented scan within the warp tile: x[j] becomes the values of its run from the
        // later of its head and the warp tile's start, up to j; f[j]: a head is among them.
        T x[WD_ITEMS];
        bool f[WD_ITEMS];
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) {
            x[j] = valid(j) ? Vals::of(st.a, v[j], slot_index(j)) : Vals::identity();
            f[j] = head[j];
        }
        bool carry_f = false;
        T carry = Vals::identity();
#pragma unroll
        for (int r = 0; r < L::ROWS; ++r) {
#pragma unroll
            for (int k = 1; k < L::VEC; ++k) {
                const int j = r * L::VEC + k;
                if (!f[j]) x[j] = Vals::combine(x[j - 1], x[j]);
                f[j] = f[j] || f[j - 1];
            }
            // Across the row's lanes: which lanes hold a head (a ballot), their values
            // scanned in segments from those lanes.
            const wd_u32 flags = __ballot_sync(WD_FULL_MASK, f[r * L::VEC + L::VEC - 1]);
            const T lv = wd_warp_seg_scan<Vals>(flags, x[r * L::VEC + L::VEC - 1]);
            const T up_v = wd_shfl_up(lv, 1u);
            const T row_v = wd_shfl_idx(lv, 31);
            const bool up_f = (flags & below) != 0u, row_f = flags != 0u;
            // What enters this lane's part of the row: the carry, then the lanes below.
            const bool pre_f = lane == 0 ? carry_f : (up_f || carry_f);
            const T pre_v = lane == 0 ? carry : (up_f ? up_v : Vals::combine(carry, up_v));
#pragma unroll
            for (int k = 0; k < L::VEC; ++k) {
                const int j = r * L::VEC + k;
                if (!f[j]) x[j] = Vals::combine(pre_v, x[j]);
                f[j] = f[j] || pre_f;
            }
            carry = row_f ? row_v : Vals::combine(carry, row_v);
            carry_f = carry_f || row_f;
        }
        // Staged before the look-back, so that nothing per slot is live during it: the keys
        // of the heads at c[j] - 1, the values at the ends at c[j] (0: the run that entered
        // the warp tile, which still needs the value before it), written from the first
        // end's place on. Keys and values of more than 8 bytes together do not fit apart in
        // the 48 KB of static shared memory: their values are staged where the keys were,
        // after the keys are written.
        K* seg_k = (K*)stage_w;
        T* seg_v = apart ? (T*)vstage_w : (T*)stage_w;
        unsigned ends = 0;
#pragma unroll
        for (int j = 0; j < WD_ITEMS; ++j) {
            if (head[j]) seg_k[c[j] - 1] = key[j];
            if constexpr (apart) {
                ends += __popc(__ballot_sync(WD_FULL_MASK, end[j]));
                if (end[j]) seg_v[c[j]] = x[j];
            }
        }
        const bool first_head = wd_shfl_idx(head[0], 0);
        P mine;
        mine.heads = heads;
        mine.v = carry;
        const wd_runs_prefix<Vals, wd_run_status<T>> look_back{wd_run_status<T>(status_mem, ntiles, st.n)};
        const P pre = wd_block_tile_prefix<Op>(look_back, tile, mine, ntiles, (P*)nullptr);
        if (count != nullptr && tile == ntiles - 1 && warp == WD_BLOCK / 32 - 1 && lane == 0) *count = pre.heads + heads;
        const wd_u64 run0 = pre.heads;
        __syncwarp();
        for (unsigned i = lane; i < heads; i += 32u) keys[run0 + i] = seg_k[i];
        if constexpr (!apart) {
            __syncwarp();
#pragma unroll
            for (int j = 0; j < WD_ITEMS; ++j) {
                ends += __popc(__ballot_sync(WD_FULL_MASK, end[j]));
                if (end[j]) seg_v[c[j]] = x[j];
            }
            __syncwarp();
        }
        const unsigned lo = first_head ? 1u : 0u;
        for (unsigned i = lane; i < ends; i += 32u) {
            const T x0 = seg_v[lo + i];
            vals[run0 + lo + i - 1] = (V)(i == 0 && !first_head ? Vals::combine(pre.v, x0) : x0);
        }
    }
}

// Unique (Vals = wd_runs_none: keys only; wd_unique_tiles), run-length encode (wd_runs_counts:
// `vals` gets each run's length, from the differences of run starts) or reduce-by-key (wd_runs_reduce: `vals`
// gets each run's values combined in order): run r's key goes to keys[r], its value to
// vals[r]; `*count` receives the number of runs. Contains the block tile prefix's barriers:
// every thread of the block calls it. Reduce-by-key's whole aligned block tiles (all but the
// last, for aligned inputs) take a path of their own without per-element bounds checks: every
// slot is valid and only element 0 starts a run without comparing keys.
template <class Vals, class St, class K, class V>
static __device__ __forceinline__ void wd_runs(const St& st, K* keys, V* vals, unsigned char* status_mem, unsigned int* queue,
                                               wd_u64* count) {
    typedef typename Vals::T T;
    static_assert(sizeof(K) <= 8 && sizeof(T) <= WD_RUN_VALUE_MAX_BYTES, "runs stage keys of at most 8 bytes and values of at most WD_RUN_VALUE_MAX_BYTES");
    const unsigned warp = threadIdx.x >> 5;
    // Warp tiles per warp: wd_unique_span<K> for unique, else one.
    constexpr unsigned SPAN = Vals::on ? 1u : wd_unique_span<K>;
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE * SPAN;
    const wd_u64 ntiles = (st.n + block_tile - 1) / block_tile;
    const wd_u64 tile = wd_tile_index(queue);
    const wd_u64 base = tile * block_tile + (wd_u64)warp * WD_TILE * SPAN;
    // Shared memory, declared once for both kinds of tile. Staging for coalesced writes: the
    // warp's keys (and values), in one slice.
    constexpr int S = sizeof(K) > sizeof(T) ? (int)sizeof(K) : (int)sizeof(T);
    __shared__ __align__(16) unsigned char staging[WD_BLOCK / 32][(WD_TILE * SPAN + 1) * S];
    if constexpr (!Vals::on) {
        wd_unique_tiles<Vals>(st, keys, status_mem, count, tile, ntiles, base, (K*)staging[warp]);
    } else {
        // Run-length encode: the offsets of the heads in the warp tile.
        static_assert(WD_TILE <= 65536, "warp tile offsets are staged as 16-bit numbers");
        __shared__ unsigned short starts[WD_BLOCK / 32][Vals::starts ? WD_TILE : 1];
        // Reduce-by-key: the values at the run ends, apart from the keys when both fit 40 KB (else
        // where the keys were, after the keys are written).
        constexpr bool reduces = !Vals::starts;
        constexpr bool apart = wd_runs_apart<K, T>;
        __shared__ __align__(16) unsigned char vstaging[WD_BLOCK / 32][reduces && apart ? (WD_TILE + 1) * sizeof(T) : 16];
        // The kind of the block tile, the same for all its warps (the block tile prefix's barriers).
        const wd_u64 block_base = tile * block_tile;
        unsigned char* const vstage_w = reduces && apart ? vstaging[warp] : nullptr;
        // Only reduce-by-key has a path of its own for whole tiles: a second copy of the code made
        // unique and run-length encode slower (7% and 4% at 2^28), reduce-by-key 14-20% faster.
        if (reduces && block_base + block_tile <= st.n && st.aligned(block_base))
            wd_runs_tile<Vals, true>(st, keys, vals, status_mem, count, tile, ntiles, base, staging[warp], starts[warp], vstage_w);
        else
            wd_runs_tile<Vals, false>(st, keys, vals, status_mem, count, tile, ntiles, base, staging[warp], starts[warp], vstage_w);
    }
}
