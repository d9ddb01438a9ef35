// Whether the L2 fetch granularity (cudaLimitMaxL2FetchGranularity) bounds a random gather's
// sum: 2^28 random u32 indices into 2^28 f32, summed by a grid-stride kernel (4 gathers in
// flight a thread), timed at the context's default limit and at 32, 64 and 128 bytes, against
// CUB's DeviceReduce::Sum over thrust's permutation iterator at each.
//   nvcc -O3 -arch=sm_90 -std=c++17 -o gather_probe gather_probe.cu
#include <cub/cub.cuh>
#include <thrust/iterator/permutation_iterator.h>
#include <cstdint>
#include "../timing.cuh"
#include "gather.cuh"

int main() {
  const uint64_t n = 1ull << 28;
  float *x, *out; uint32_t* idx;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&idx, n * 4)); CK(cudaMalloc(&out, 8));
  fill<<<1024, 256>>>(x, idx, n);
  CK(cudaDeviceSynchronize());
  size_t def; CK(cudaDeviceGetLimit(&def, cudaLimitMaxL2FetchGranularity));
  printf("default cudaLimitMaxL2FetchGranularity: %zu\n", def);
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto perm = thrust::make_permutation_iterator(x, idx);
  size_t tb = 0; CK(cub::DeviceReduce::Sum(nullptr, tb, perm, out, (int64_t)n));
  void* tmp; CK(cudaMalloc(&tmp, tb + 1));
  for (size_t g : {def, (size_t)32, (size_t)64, (size_t)128, def}) {
    CK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, g));
    size_t now; CK(cudaDeviceGetLimit(&now, cudaLimitMaxL2FetchGranularity));
    const float c = median_ms([&] { CK(cub::DeviceReduce::Sum(tmp, tb, perm, out, (int64_t)n)); });
    const float p4 = median_ms([&] { gather_sum<4><<<sms * 8, 256>>>(x, idx, n, out); });
    const float p8 = median_ms([&] { gather_sum<8><<<sms * 8, 256>>>(x, idx, n, out); });
    const float p16 = median_ms([&] { gather_sum<16><<<sms * 4, 256>>>(x, idx, n, out); });
    CK(cudaGetLastError());
    printf("limit %zu (set %zu): CUB %.3f ms, gather x4 %.3f, x8 %.3f, x16 %.3f ms\n", g, now, c, p4, p8, p16);
  }
  return 0;
}
