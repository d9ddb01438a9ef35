// ---- warp-dsl warp reduce, intrinsics style: __shfl_down_sync and __reduce_*_sync ----
// The module's wd_warp_reduce (declared in warp.cuh) is warp.cuh's wd_warp_reducer: 5 shuffle-down
// steps in registers, or one redux.sync on sm_80+ for recognised integer operators; lane 0 ends
// with the warp's total.
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_reduce(typename Op::T v) {
    return wd_warp_reducer<Op>::run(v);
}
