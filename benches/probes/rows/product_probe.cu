// The product's long-row kernel (`wd_k_rows_block` of the f32 sum's axis module) against CUB's
// DeviceSegmentedReduce::Sum and the plain kernel of rows_probe.cu, in one process, interleaved,
// so that run-to-run drift between processes (about 1% on the H200) cannot decide the ratio.
// axis_sum_f32.cu is the module's source, written by
//   std::fs::write(path, &*warp_runtime::impl_::axis_module::<sum, DeviceVec<f32>>().source)
// (not kept in git: it is generated). On the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o product_probe product_probe.cu && ./product_probe
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
namespace product {
#include "axis_sum_f32.cu"
}
#include "../timing.cuh"
#include "../bank_conflicts/fill.cuh"

template <int NT>
__device__ float block_sum(float v) {
  __shared__ float w[32];
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < NT / 32 ? w[threadIdx.x] : 0.f;
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  }
  __syncthreads();
  return v;
}

__global__ void __launch_bounds__(1024) plain(const float* x, int64_t rows, int64_t cols, float* out) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* p = (const float4*)(x + r * cols);
    const int64_t nvec = cols / 4;
    float acc = 0.f;
#pragma unroll 1
    for (int64_t v = threadIdx.x; v < nvec; v += 2 * 1024) {
      float4 q[2];
#pragma unroll
      for (int u = 0; u < 2; ++u)
        if (v + u * 1024 < nvec) q[u] = __ldcs(p + v + u * 1024);
#pragma unroll
      for (int u = 0; u < 2; ++u)
        if (v + u * 1024 < nvec) acc += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    acc = block_sum<1024>(acc);
    if (threadIdx.x == 0) out[r] = acc;
  }
}

int main(int argc, char** argv) {
  const int64_t n = 1ll << 28;
  const int64_t cols = argc > 1 ? atoll(argv[1]) : 65536, R = n / cols;
  float *x, *out, *ref; CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&out, R * 4)); CK(cudaMalloc(&ref, R * 4));
  fill_random<<<2048, 256>>>(x, n, 12345); CK(cudaDeviceSynchronize());
  std::vector<int64_t> off(R + 1); for (int64_t i = 0; i <= R; ++i) off[i] = i * cols;
  int64_t* doff; CK(cudaMalloc(&doff, (R + 1) * 8)); CK(cudaMemcpy(doff, off.data(), (R + 1) * 8, cudaMemcpyHostToDevice));
  size_t tb = 0; CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, x, ref, R, doff, doff + 1));
  void* tmp; CK(cudaMalloc(&tmp, tb + 1));
  product::wd_in in{}; in.p[0] = x;
  product::wd_args a{};
  auto cub = [&] { CK(cub::DeviceSegmentedReduce::Sum(tmp, tb, x, ref, R, doff, doff + 1)); };
  auto prod = [&] { product::wd_k_rows_block<<<(unsigned)R, WD_ROWS_BLOCK_THREADS>>>(in, (uint64_t)n, a, (uint64_t)R, (uint64_t)cols, out); };
  auto pl = [&] { plain<<<(unsigned)R, 1024>>>(x, R, cols, out); };
  // Check once: the product's sums against CUB's.
  cub(); prod(); CK(cudaDeviceSynchronize());
  std::vector<float> hr(R), ho(R);
  CK(cudaMemcpy(hr.data(), ref, R * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ho.data(), out, R * 4, cudaMemcpyDeviceToHost));
  double maxd = 0; for (int64_t i = 0; i < R; ++i) maxd = std::max(maxd, (double)fabsf(ho[i] - hr[i]));
  printf("cols %lld rows %lld, product vs CUB maxdiff %.2g\n", (long long)cols, (long long)R, maxd);
  std::vector<double> rc, rp;
  for (int round = 0; round < 8; ++round) {
    float c = median_ms(cub), p = median_ms(prod), q = median_ms(pl), c2 = median_ms(cub);
    CK(cudaGetLastError());
    const double cm = (c + c2) / 2;
    printf("round %d: CUB %.0f GB/s, product %.0f GB/s (%.3fx CUB), plain %.0f GB/s (%.3fx)\n", round,
           n * 4 / cm / 1e6, n * 4 / p / 1e6, cm / p, n * 4 / q / 1e6, cm / q);
    rc.push_back(cm); rp.push_back(p);
  }
  std::sort(rc.begin(), rc.end()); std::sort(rp.begin(), rp.end());
  printf("median of rounds: CUB %.4f ms, product %.4f ms: %.3fx CUB\n", rc[4], rp[4], rc[4] / rp[4]);
  return 0;
}
