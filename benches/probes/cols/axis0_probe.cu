// The column sum of a (256, 2^20) f32 array (reduce_axis along axis 0, wd_k_cols_vec) in the
// product's launch, against variants of it, in one process, interleaved: more rows in flight
// per thread (U = 8, a second copy of the module), the rows split over 2 and 4 blocks (with
// the partials' pass), and the middle axis of (256, 4096, 256) for comparison. The module is
// ../rows/axis_sum_f32.cu (generated, not kept in git: see ../rows/product_probe.cu); u8.cu is
// the same with WD_COLS_VEC_UNROLL 8 and its kernels renamed (`sed`). On the GPU machine:
//   sed -e "s/#define WD_COLS_VEC_UNROLL 4/#define WD_COLS_VEC_UNROLL 8/" -e "s/wd_k_/wd8_k_/g" ../rows/axis_sum_f32.cu > u8.cu
//   nvcc -O3 -arch=sm_90 -std=c++17 -o axis0_probe axis0_probe.cu && ./axis0_probe
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
namespace product {
#include "../rows/axis_sum_f32.cu"
}
namespace u8 {
#include "u8.cu"
}
#include "../timing.cuh"
#include "../bank_conflicts/fill.cuh"

int main() {
  const int64_t n = 1ll << 28;
  float *x, *out, *part; unsigned* tickets;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&out, (1 << 20) * 4)); CK(cudaMalloc(&part, 64ll << 20));
  CK(cudaMalloc(&tickets, 1 << 20)); CK(cudaMemset(tickets, 0, 1 << 20));
  fill_random<<<2048, 256>>>(x, n, 12345); CK(cudaDeviceSynchronize());
  product::wd_in in{}; in.p[0] = x;
  product::wd_args a{};
  u8::wd_in in8{}; in8.p[0] = x;
  u8::wd_args a8{};
  const uint64_t rows = 256, cols = 1 << 20;
  const unsigned vb = WD_COLS_VEC_BLOCK, blocks = (unsigned)(cols / 4 / vb);
  auto launch = [&](int split, bool wide) {
    const uint64_t rpb = (rows + split - 1) / split;
    if (wide) u8::wd8_k_cols_vec<<<dim3(blocks, split), vb>>>(in8, n, a8, rows, cols, cols, rpb, part, tickets, out);
    else product::wd_k_cols_vec<<<dim3(blocks, split), vb>>>(in, n, a, rows, cols, cols, rpb, part, tickets, out);
  };
  // The middle axis of (256, 4096, 256) as the runtime launches it: 128 column blocks, 8 splits.
  auto mid = [&] {
    product::wd_k_cols_vec<<<dim3(65536 / 4 / vb, 8), vb>>>(in, n, a, 4096, 65536, 256, 512, part, tickets, out);
  };
  for (auto [name, f] : {std::pair<const char*, const void*>{"product", (const void*)product::wd_k_cols_vec},
                         {"U8", (const void*)u8::wd8_k_cols_vec}}) {
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, f));
    int bps; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, f, vb, 0));
    printf("%s: %d registers, %d blocks of %u an SM; the axis-0 grid is %u blocks\n", name, fa.numRegs, bps, vb, blocks);
  }
  const double bytes = n * 4.0;
  for (int round = 0; round < 4; ++round) {
    const float p1 = median_ms([&] { launch(1, false); }), p2 = median_ms([&] { launch(2, false); }),
                p4 = median_ms([&] { launch(4, false); }), w1 = median_ms([&] { launch(1, true); }),
                w2 = median_ms([&] { launch(2, true); }), m = median_ms(mid);
    CK(cudaGetLastError());
    printf("round %d GB/s: product %.0f, split2 %.0f, split4 %.0f, U8 %.0f, U8 split2 %.0f, middle axis %.0f\n", round,
           bytes / p1 / 1e6, bytes / p2 / 1e6, bytes / p4 / 1e6, bytes / w1 / 1e6, bytes / w2 / 1e6, bytes / m / 1e6);
  }
  return 0;
}
