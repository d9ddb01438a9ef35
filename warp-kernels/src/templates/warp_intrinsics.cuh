// ---- warp-dsl warp reduce, intrinsics style: __shfl_down_sync and __reduce_*_sync ----
// Warp reduce: 5 shuffle-down steps in registers; lane 0 ends with the warp's total.
template <class Op, int R = Op::redux> struct wd_warp_reducer {
    static __device__ __forceinline__ typename Op::T run(typename Op::T v) {
#pragma unroll
        for (unsigned offset = 16; offset > 0; offset >>= 1)
            v = Op::combine(v, wd_shfl_down(v, offset));
        return v;
    }
};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// sm_80+: one redux.sync instruction for recognised 32-bit (and narrower) integer operators.
// Signed values are sign-extended into 32 bits and unsigned ones zero-extended; the result is
// truncated back, which is exact for wrapping add, min, max, and, or, xor.
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
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_reduce(typename Op::T v) {
    return wd_warp_reducer<Op>::run(v);
}

