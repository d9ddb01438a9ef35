// ---- warp-dsl warp reduce, cooperative-groups style: tiled_partition<32> and cg::reduce ----
// The user's operator is passed to cg::reduce as a functor; operators recognised as a
// redux.sync instruction use CG's own functors (cg::plus, cg::less, ...), which CG lowers to it.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// `Op::functor` is a plain (non-template) function object calling the user's operator.
template <class Op, int R = Op::redux> struct wd_cg_op { typedef typename Op::functor type; };
template <class Op> struct wd_cg_op<Op, WD_REDUX_ADD> { typedef cg::plus<typename Op::T> type; };
template <class Op> struct wd_cg_op<Op, WD_REDUX_MIN> { typedef cg::less<typename Op::T> type; };
template <class Op> struct wd_cg_op<Op, WD_REDUX_MAX> { typedef cg::greater<typename Op::T> type; };
template <class Op> struct wd_cg_op<Op, WD_REDUX_AND> { typedef cg::bit_and<typename Op::T> type; };
template <class Op> struct wd_cg_op<Op, WD_REDUX_OR> { typedef cg::bit_or<typename Op::T> type; };
template <class Op> struct wd_cg_op<Op, WD_REDUX_XOR> { typedef cg::bit_xor<typename Op::T> type; };

// The module's wd_warp_reduce (declared in warp.cuh): every lane ends with the warp's total
// (lane 0 is the one used).
template <class Op> static __device__ __forceinline__ typename Op::T wd_warp_reduce(typename Op::T v) {
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    return cg::reduce(warp, v, typename wd_cg_op<Op>::type());
}
