// The product's reduction of a map of a generated range (`reduce(sum, &dev.range(0..n)
// .map(gauss_step.with(h)))`, the module's `wd_k_reduce`) compiled with -fmad=false (the
// product's NVRTC flag: no contraction of the user's a * b + c) and -fmad=true, against CUB's
// TransformReduce over a counting iterator, in one process. reduce_gauss_f64.cu is the module's
// source (not kept in git), written by
//   std::fs::write(path, &*reduce_module::<sum, RangeMap<'static, u64, gauss_step_with<f64>>>().source)
//   nvcc -O3 -arch=sm_90 -std=c++17 -fmad=false -o gauss_probe gauss_probe.cu  (and -fmad=true)
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
namespace product {
#include "reduce_gauss_f64.cu"
}
#include "../timing.cuh"

struct GaussStep {
  double h;
  __host__ __device__ double operator()(uint64_t i) const {
    const double x = (static_cast<double>(i) + 0.5) * h;
    return exp(-(x * x)) * h;
  }
};

// A CUB-like loop over the same map, for comparison: even share (a block takes one contiguous
// range of tiles), a tile of 256 * ITEMS indices striped over the threads, the items summed in
// order (TREE: as a balanced tree), the block's total by cub::BlockReduce into partials.
template <int ITEMS, bool TREE>
__global__ void __launch_bounds__(256) cubish(uint64_t n, double h, uint64_t per_block, double* partials) {
  const uint64_t begin = blockIdx.x * per_block, end = begin + per_block < n ? begin + per_block : n;
  double acc = 0.0;
  uint64_t base = begin;
  for (; base + 256 * ITEMS <= end; base += 256 * ITEMS) {
    double v[ITEMS];
#pragma unroll
    for (int u = 0; u < ITEMS; ++u) v[u] = product::wd_map(base + u * 256 + threadIdx.x, h);
    if (TREE) {
#pragma unroll
      for (int s = 1; s < ITEMS; s <<= 1)
#pragma unroll
        for (int k = 0; k + s < ITEMS; k += 2 * s) v[k] += v[k + s];
      acc += v[0];
    } else {
#pragma unroll
      for (int u = 0; u < ITEMS; ++u) acc += v[u];
    }
  }
  for (uint64_t i = base + threadIdx.x; i < end; i += 256) acc += product::wd_map(i, h);
  typedef cub::BlockReduce<double, 256> BR;
  __shared__ typename BR::TempStorage ts;
  acc = BR(ts).Sum(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

template <int ITEMS, bool TREE>
static void variant(const char* what, int sms, int factor, uint64_t n, double h, double* partials, float cub_ms) {
  int bps; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, cubish<ITEMS, TREE>, 256, 0));
  cudaFuncAttributes at; CK(cudaFuncGetAttributes(&at, cubish<ITEMS, TREE>));
  const uint64_t grid = (uint64_t)sms * bps * factor, tile = 256 * ITEMS;
  const uint64_t per_block = (n / tile + grid - 1) / grid * tile;
  const float ms = median_ms([&] { cubish<ITEMS, TREE><<<(unsigned)grid, 256>>>(n, h, per_block, partials); });
  CK(cudaGetLastError());
  printf("variant %s: items %d, tree %d, grid %llu (%d a SM x %d), %d registers: %.4f ms (%.3fx CUB)\n", what, ITEMS,
         (int)TREE, (unsigned long long)grid, bps, factor, at.numRegs, ms, cub_ms / ms);
}

int main() {
  const int64_t n = 1ll << 28;
  const double h = 1.0 / n;
  double *out, *ref, *partials; unsigned *ticket, *done;
  CK(cudaMalloc(&out, 8)); CK(cudaMalloc(&ref, 8)); CK(cudaMalloc(&partials, 65536 * 8));
  CK(cudaMalloc(&ticket, 4)); CK(cudaMalloc(&done, 4)); CK(cudaMemset(ticket, 0, 4));
  int sms, bps; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, product::wd_k_reduce, WD_BLOCK, 0));
  const int64_t needed = (n + WD_BLOCK * 2 - 1) / (WD_BLOCK * 2);
  const unsigned grid = (unsigned)std::min<int64_t>(needed, (int64_t)sms * bps);
  const thrust::counting_iterator<uint64_t> first(0);
  size_t tb = 0;
  CK(cub::DeviceReduce::TransformReduce(nullptr, tb, first, ref, n, cuda::std::plus<>{}, GaussStep{h}, 0.0));
  void* tmp; CK(cudaMalloc(&tmp, tb + 1));
  product::wd_in in{}; in.p[0] = nullptr;  // the range's start: 0
  product::wd_args a{}; std::memcpy(&a.v[0], &h, 8);
  auto cub = [&] { CK(cub::DeviceReduce::TransformReduce(tmp, tb, first, ref, n, cuda::std::plus<>{}, GaussStep{h}, 0.0)); };
  auto prod = [&] { product::wd_k_reduce<<<grid, WD_BLOCK>>>(in, (uint64_t)n, a, partials, ticket, out, done); };
  cub(); prod(); CK(cudaDeviceSynchronize());
  double hr, ho; CK(cudaMemcpy(&hr, ref, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ho, out, 8, cudaMemcpyDeviceToHost));
  printf("gauss over 2^28 indices, grid %u (%d a SM): product %.15f, CUB %.15f\n", grid, bps, ho, hr);
  std::vector<double> rc, rp;
  for (int round = 0; round < 5; ++round) {
    float c = median_ms(cub), p = median_ms(prod);
    CK(cudaGetLastError());
    printf("round %d: CUB %.4f ms, product %.4f ms (%.3fx CUB)\n", round, c, p, c / p);
    rc.push_back(c); rp.push_back(p);
  }
  std::sort(rc.begin(), rc.end()); std::sort(rp.begin(), rp.end());
  printf("median of rounds: CUB %.4f ms, product %.4f ms: %.3fx CUB\n", rc[2], rp[2], rc[2] / rp[2]);
  for (unsigned factor : {2u, 3u, 5u}) {
    const float p = median_ms([&] { product::wd_k_reduce<<<grid * factor, WD_BLOCK>>>(in, (uint64_t)n, a, partials, ticket, out, done); });
    printf("product at %u x its grid: %.4f ms (%.3fx CUB)\n", factor, p, rc[2] / p);
  }
  cudaFuncAttributes at; CK(cudaFuncGetAttributes(&at, product::wd_k_reduce));
  printf("product wd_k_reduce: %d registers, %d blocks a SM\n", at.numRegs, bps);
  variant<8, false>("even share", sms, 1, n, h, partials, rc[2]);
  variant<8, false>("even share", sms, 5, n, h, partials, rc[2]);
  variant<8, true>("even share", sms, 5, n, h, partials, rc[2]);
  variant<16, false>("even share", sms, 5, n, h, partials, rc[2]);
  variant<4, false>("even share", sms, 5, n, h, partials, rc[2]);
  variant<2, false>("even share", sms, 5, n, h, partials, rc[2]);
  return 0;
}
