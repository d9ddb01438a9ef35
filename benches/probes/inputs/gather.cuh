// What the gather probes share: random data (f32 in [-0.5, 0.5), u32 indices below n from one
// hash) and the direct gather sum (a grid-stride loop, U gathers in flight a thread).
#pragma once
#include <cstdint>

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
