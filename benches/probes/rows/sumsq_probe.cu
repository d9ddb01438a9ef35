// The product's grid reduction of a map (`wd_k_reduce` of the module of `map_reduce(square,
// sum)` over f32) against CUB's DeviceReduce::TransformReduce, in one process, interleaved (see
// product_probe.cu). reduce_sumsq_f32.cu is the module's source, written by
//   std::fs::write(path, &*warp_runtime::impl_::reduce_module::<sum, Mapped<'static, square>>().source)
// (not kept in git). The grid is the runtime's: whole vectors a thread, at most the resident grid.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
namespace product {
#include "reduce_sumsq_f32.cu"
}
#include "../timing.cuh"
#include "../bank_conflicts/fill.cuh"

struct Square { __device__ float operator()(float x) const { return x * x; } };

int main() {
  const int64_t n = 1ll << 28;
  float *x, *out, *ref, *partials; unsigned *ticket, *done;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&out, 4)); CK(cudaMalloc(&ref, 4)); CK(cudaMalloc(&partials, 65536 * 4));
  CK(cudaMalloc(&ticket, 4)); CK(cudaMalloc(&done, 4)); CK(cudaMemset(ticket, 0, 4));
  fill_random<<<2048, 256>>>(x, n, 12345); CK(cudaDeviceSynchronize());
  int sms, bps; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, product::wd_k_reduce, WD_BLOCK, 0));
  const int64_t needed = (n + WD_BLOCK * 4 - 1) / (WD_BLOCK * 4);
  const unsigned grid = (unsigned)std::min<int64_t>(needed, (int64_t)sms * bps);
  size_t tb = 0;
  CK(cub::DeviceReduce::TransformReduce(nullptr, tb, x, ref, n, cuda::std::plus<>{}, Square{}, 0.0f));
  void* tmp; CK(cudaMalloc(&tmp, tb + 1));
  product::wd_in in{}; in.p[0] = x;
  product::wd_args a{};
  auto cub = [&] { CK(cub::DeviceReduce::TransformReduce(tmp, tb, x, ref, n, cuda::std::plus<>{}, Square{}, 0.0f)); };
  auto prod = [&] { product::wd_k_reduce<<<grid, WD_BLOCK>>>(in, (uint64_t)n, a, partials, ticket, out, done); };
  cub(); prod(); CK(cudaDeviceSynchronize());
  float hr, ho; CK(cudaMemcpy(&hr, ref, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ho, out, 4, cudaMemcpyDeviceToHost));
  printf("sum of squares of 2^28 f32, grid %u (%d a SM): product %.6g, CUB %.6g\n", grid, bps, ho, hr);
  std::vector<double> rc, rp;
  for (int round = 0; round < 8; ++round) {
    float c = median_ms(cub), p = median_ms(prod), c2 = median_ms(cub);
    CK(cudaGetLastError());
    const double cm = (c + c2) / 2;
    printf("round %d: CUB %.0f GB/s, product %.0f GB/s (%.3fx CUB)\n", round, n * 4 / cm / 1e6, n * 4 / p / 1e6, cm / p);
    rc.push_back(cm); rp.push_back(p);
  }
  std::sort(rc.begin(), rc.end()); std::sort(rp.begin(), rp.end());
  printf("median of rounds: CUB %.4f ms, product %.4f ms: %.3fx CUB\n", rc[4], rp[4], rc[4] / rp[4]);
  return 0;
}
