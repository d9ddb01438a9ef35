// ---- warp-dsl warp primitives: what the 32 lanes of one warp compute together (CUB's warp layer) ----
// The lowest layer of the templates: warp reduce (shuffles or redux.sync), all-reduce, ordered
// fold, inclusive / exclusive / segmented scans, ballot ranks and a warp-wide lower bound.
// block.cuh builds on them, and the families (reduce, predicates, scans, runs, top-k, axes,
// histogram) call both; nothing here is written again there.
//
// Contract of every primitive below unless its comment says otherwise: all 32 lanes of the warp
// call it together with the same arguments where they are warp-uniform (full-mask intrinsics);
// it contains no block barrier and uses no shared memory. Values move through the prelude's
// wd_shfl_* overloads, so any type with those works (tuples, (value, head) pairs). An operation
// `Op` provides typedef T, identity(), combine(a, b) (associative; the scans and ordered folds
// never assume it commutes) and `redux`, the __reduce_*_sync instruction that computes its
// warp reduction on sm_80+ (WD_REDUX_NONE if none; WD_REDUX_* come from the module's defines).

// Counts and offsets: 64-bit addition as an operation (compaction's kept counts, run heads,
// radix bins, the chunk numbering of long segments).
struct wd_op_count {
    typedef wd_u64 T;
    static constexpr int redux = WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() { return 0ull; }
    static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
    struct functor {
        __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
    };
};

// The larger of two unsigned order keys, as an operation (redux.sync for 32 bits): top-k's
// maxima, the group-by's key range.
template <class K> struct wd_op_key_max {
    typedef K T;
    static constexpr int redux = sizeof(K) == 4 ? WD_REDUX_MAX : WD_REDUX_NONE;
    static __device__ __forceinline__ T identity() { return (T)0; }
    static __device__ __forceinline__ T combine(T a, T b) { return a > b ? a : b; }
};

// ---- warp reduce ----
// The module's warp reduce, wd_warp_reduce<Op>(v): lane 0 ends with the warp's total (other
// lanes: partial values, or the total too in the cooperative-groups style). Its definition is
// the emission style's (warp_intrinsics.cuh: wd_warp_reducer below; warp_cg.cuh: cg::reduce),
// included after this file and before any kernel that instantiates it.
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_reduce(typename Op::T v);

// Warp reduce with shuffles: 5 shuffle-down steps in registers (a tree in which lane l takes
// lane l + offset's value: for commutative operators); lane 0 ends with the warp's total.
template <class Op, int R = Op::redux> struct wd_warp_reducer {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
#pragma unroll
        for (unsigned offset = 16; offset > 0; offset >>= 1)
            v = Op::combine(v, wd_shfl_down(v, offset));
        return v;
    }
};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// sm_80+: one redux.sync instruction for recognised 32-bit (and narrower) integer operators
// (every lane gets the total). Signed values are sign-extended into 32 bits and unsigned ones
// zero-extended; the result is truncated back, which is exact for wrapping add, min, max, and,
// or, xor.
template <class Op> struct wd_warp_reducer<Op, WD_REDUX_ADD> {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
        return (typename Op::T)__reduce_add_sync(WD_FULL_MASK, (wd_u32)v);
    }
};
template <class Op> struct wd_warp_reducer<Op, WD_REDUX_MIN> {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
        if (wd_int<typename Op::T>::is_signed) return (typename Op::T)__reduce_min_sync(WD_FULL_MASK, (wd_i32)v);
        return (typename Op::T)__reduce_min_sync(WD_FULL_MASK, (wd_u32)v);
    }
};
template <class Op> struct wd_warp_reducer<Op, WD_REDUX_MAX> {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
        if (wd_int<typename Op::T>::is_signed) return (typename Op::T)__reduce_max_sync(WD_FULL_MASK, (wd_i32)v);
        return (typename Op::T)__reduce_max_sync(WD_FULL_MASK, (wd_u32)v);
    }
};
template <class Op> struct wd_warp_reducer<Op, WD_REDUX_AND> {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
        return (typename Op::T)__reduce_and_sync(WD_FULL_MASK, (wd_u32)v);
    }
};
template <class Op> struct wd_warp_reducer<Op, WD_REDUX_OR> {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
        return (typename Op::T)__reduce_or_sync(WD_FULL_MASK, (wd_u32)v);
    }
};
template <class Op> struct wd_warp_reducer<Op, WD_REDUX_XOR> {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
        return (typename Op::T)__reduce_xor_sync(WD_FULL_MASK, (wd_u32)v);
    }
};
#endif

// All-reduce within groups of G lanes (G a power of two, at most 32): a butterfly of log2(G)
// xor shuffles; every lane ends with its group's total (in an order that differs between lanes:
// for commutative operators).
template <class Op, int G = 32> static __device__ __forceinline__ typename Op::T wd_warp_allreduce(typename Op::T v) {
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1) v = Op::combine(v, wd_shfl_xor(v, o));
    return v;
}

// The sum of the warp's 32-bit values (each lane gets it): redux.sync on sm_80+.
WD_DEV wd_u32 wd_warp_sum_u32(wd_u32 v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    return __reduce_add_sync(WD_FULL_MASK, v);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(WD_FULL_MASK, v, o);
    return v;
#endif
}

// The bitwise or of the warp's 32-bit values (each lane gets it).
WD_DEV wd_u32 wd_warp_or_u32(wd_u32 v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    return __reduce_or_sync(WD_FULL_MASK, v);
#else
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(WD_FULL_MASK, v, o);
    return v;
#endif
}

// Ordered warp combine where higher lanes hold earlier values: the fold of lane 31's value, then
// lane 30's, ..., then lane 0's, grouped as a fixed tree (so the same for every call), returned
// to every lane. (lookback.cuh specialises it for exact sums.)
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_fold_back(typename Op::T v) {
    typedef typename Op::T T;
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const T later = v;
        const T earlier = wd_shfl_down(v, o);
        if (lane + o < 32u) v = Op::combine(earlier, later);
    }
    return wd_shfl_idx(v, 0);
}

// ---- scans ----
// Ordered inclusive warp scan (Kogge-Stone with __shfl_up_sync, 5 steps): lane l ends with
// v_0 + ... + v_l, combined in lane order. A segmented scan of (value, head) pairs is this scan
// over wd_seg_op (scan.cuh).
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_scan(typename Op::T v) {
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const typename Op::T up = wd_shfl_up(v, o);
        if (lane >= o) v = Op::combine(up, v);
    }
    return v;
}

// The exclusive scan from an inclusive one (`incl`, from wd_warp_scan): one shuffle up; lane 0
// gets the identity, lane l the inclusive value of lane l - 1.
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_exclusive(typename Op::T incl) {
    const typename Op::T up = wd_shfl_up(incl, 1u);
    return (threadIdx.x & 31u) == 0 ? Op::identity() : up;
}
// The same after `seed` (what comes before lane 0): lane 0 gets `seed`, lane l
// combine(seed, inclusive value of lane l - 1). One shuffle up.
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_exclusive(typename Op::T incl, typename Op::T seed) {
    const typename Op::T up = wd_shfl_up(incl, 1u);
    return (threadIdx.x & 31u) == 0 ? seed : Op::combine(seed, up);
}

// Inclusive segmented warp scan of values whose flagged lanes start segments (`flags`: the
// ballot of the flags, the same in every lane): lane l ends with the values from its nearest
// flagged lane at or below it (or lane 0) up to its own, combined in lane order. The segment
// starts come from the ballot (the highest flagged lane at or below l), so only the values are
// shuffled (5 shuffles up).
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_seg_scan(wd_u32 flags, typename Op::T v) {
    const unsigned lane = threadIdx.x & 31u;
    const int start = 31 - __clz(flags & (0xffffffffu >> (31u - lane)));  // -1: none
#pragma unroll
    for (unsigned o = 1; o < 32; o <<= 1) {
        const typename Op::T up = wd_shfl_up(v, o);
        if (lane >= o && (int)(lane - o) >= start) v = Op::combine(up, v);
    }
    return v;
}

// ---- ballot ranks ----
// Where this lane's flags fall among a row's: `below`, the flags set in the lanes below this
// one; `total`, in the whole row. A flag's rank in the row (flags set before it) is `below` plus
// the lane's own earlier flags. The callers compute the mask of the lanes below
// (wd_lanes_below) once and pass it to every rank.
struct wd_rank {
    unsigned below, total;
};
// The mask of the lanes below this one.
WD_DEV wd_u32 wd_lanes_below() { return (1u << (threadIdx.x & 31u)) - 1u; }
// A row of 32 flags, one a lane: one ballot.
WD_DEV wd_rank wd_ballot_rank(bool f, wd_u32 lanes_below) {
    const wd_u32 b = __ballot_sync(WD_FULL_MASK, f);
    wd_rank r;
    r.below = (unsigned)__popc(b & lanes_below);
    r.total = (unsigned)__popc(b);
    return r;
}
// A row of 32 * VEC flags, VEC a lane: lane l holds the row's flags l * VEC .. l * VEC + VEC - 1
// as f[at .. at + VEC) (the vector layout of tiles: at = r * VEC for row r). VEC ballots.
template <int VEC, int N>
static __device__ __forceinline__ wd_rank wd_ballot_rank(const bool (&f)[N], int at, wd_u32 lanes_below) {
    wd_rank r;
    r.below = 0;
    r.total = 0;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        const wd_u32 b = __ballot_sync(WD_FULL_MASK, f[at + k]);
        r.below += __popc(b & lanes_below);
        r.total += __popc(b);
    }
    return r;
}

// ---- search ----
// The first of the indices 0 .. len at which `pred` (true on a prefix of them, false after) is
// false, len if none, the same in every lane of the warp (all call it, with the same len and
// pred): a 32-way search, each lane testing the last index of one of 32 chunks of the range,
// about log32(len) dependent steps (5 for 2^25). With a predicate that is not monotone it still
// ends, in range.
template <class P>
static __device__ __forceinline__ wd_u64 wd_warp_partition_point(wd_u64 len, const P& pred) {
    const unsigned lane = threadIdx.x & 31u;
    wd_u64 lo = 0, hi = len;
    while (lo < hi) {
        const wd_u64 step = (hi - lo + 31u) / 32u;
        const wd_u64 last = lo + ((wd_u64)lane + 1u) * step - 1u;
        const bool yes = last < hi && pred(last);
        const wd_u64 chunks = (wd_u64)__popc(__ballot_sync(WD_FULL_MASK, yes));
        // The answer is past the chunks that hold true and at most the next chunk's last index.
        lo += chunks * step;
        hi = lo + step - 1u < hi ? lo + step - 1u : hi;
    }
    return lo;
}

// Index of the first of `len` sorted offsets that is >= x (len if none), the same in every lane:
// wd_warp_partition_point, about 6 dependent loads for 2^28 offsets.
static __device__ __forceinline__ wd_u64 wd_warp_lower_bound(const wd_u64* offsets, wd_u64 len, wd_u64 x) {
    return wd_warp_partition_point(len, [&](wd_u64 i) { return offsets[i] < x; });
}
