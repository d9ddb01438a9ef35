// Whether the L2 fetch granularity (cudaLimitMaxL2FetchGranularity) bounds a random gather's
// sum: 2^28 random u32 indices into 2^28 f32, summed by a grid-stride kernel (4 gathers in
// flight a thread), timed at the context's default limit and at 32, 64 and 128 bytes, against
// CUB's DeviceReduce::Sum over thrust's permutation iterator at each.
//   nvcc -O3 -arch=sm_90 -std=c++17 -o gather_probe gather_probe.cu
#include <cub/cub.cuh>
#include <thrust/iterator/permutation_iterator.h>
#include <cstdint>
#include "../timing.cuh"

__global__ void fill(float* x, uint32_t* idx, uint64_t n) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    x[i] = (float)(h >> 40) * (1.0f / 16777216.0f) - 0.5f;
    idx[i] = (uint32_t)((h >> 8) % n);
  }
}

template <int U>
__global__ void __launch_bounds__(256) gather_sum(const float* __restrict__ x, const uint32_t* __restrict__ idx, uint64_t n, float* partial) {
  const uint64_t stride = (uint64_t)gridDim.x * 256;
  float acc = 0.f;
  uint64_t i = blockIdx.x * 256ull + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint32_t k[U];
#pragma unroll
    for (int u = 0; u < U; ++u) k[u] = __ldcs(idx + i + u * stride);
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = x[k[u]];
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u];
  }
  for (; i < n; i += stride) acc += x[idx[i]];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(partial, acc);
}

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
