// Whether a random gather's sum gains from reordering its indices first: 2^28 random u32
// indices into 2^28 f32 (1 GiB, twenty times the L2), summed directly (a grid-stride kernel, 8
// gathers in flight a thread; CUB's DeviceReduce::Sum over thrust's permutation iterator), and
// summed after the indices are partitioned by their top bits (CUB's DeviceRadixSort::SortKeys
// over bits [28 - b, 28): one digit pass and its histogram), so that the blocks in flight read
// a few L2-sized windows of the array at a time. Prints each part's time and the total.
//   nvcc -O3 -arch=sm_90 -std=c++17 -o gather_partition_probe gather_partition_probe.cu
#include <cub/cub.cuh>
#include <thrust/iterator/permutation_iterator.h>
#include <cstdint>
#include "../timing.cuh"
#include "gather.cuh"

// Tiles in order: block b reads indices [b * T, (b + 1) * T), so the blocks in flight cover a
// contiguous stretch of the partitioned indices (a grid-stride loop would spread them over
// every bucket at once).
template <int U>
__global__ void __launch_bounds__(256) gather_sum_tiles(const float* __restrict__ x, const uint32_t* __restrict__ idx, uint64_t n, float* partial) {
  constexpr int T = 256 * U;
  float acc = 0.f;
  const uint64_t base = (uint64_t)blockIdx.x * T;
  if (base + T <= n) {
    uint32_t k[U];
#pragma unroll
    for (int u = 0; u < U; ++u) k[u] = __ldcs(idx + base + u * 256 + threadIdx.x);
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = x[k[u]];
#pragma unroll
    for (int u = 0; u < U; ++u) acc += v[u];
  } else {
    for (uint64_t i = base + threadIdx.x; i < n; i += 256) acc += x[idx[i]];
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(partial, acc);
}

int main() {
  const uint64_t n = 1ull << 28;
  float *x, *out; uint32_t *idx, *part;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&idx, n * 4)); CK(cudaMalloc(&part, n * 4)); CK(cudaMalloc(&out, 8));
  fill<<<1024, 256>>>(x, idx, n);
  CK(cudaDeviceSynchronize());
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int l2; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  printf("SMs %d, L2 %d MiB\n", sms, l2 >> 20);
  auto perm = thrust::make_permutation_iterator(x, idx);
  size_t tb = 0; CK(cub::DeviceReduce::Sum(nullptr, tb, perm, out, (int64_t)n));
  size_t ts = 0; CK(cub::DeviceRadixSort::SortKeys(nullptr, ts, idx, part, (int64_t)n, 20, 28));
  void* tmp; CK(cudaMalloc(&tmp, std::max(tb, ts) + 1));
  const float c = median_ms([&] { CK(cub::DeviceReduce::Sum(tmp, tb, perm, out, (int64_t)n)); });
  const float d8 = median_ms([&] { gather_sum<8><<<sms * 8, 256>>>(x, idx, n, out); });
  const float t8 = median_ms([&] { gather_sum_tiles<8><<<(n + 2047) / 2048, 256>>>(x, idx, n, out); });
  printf("direct: CUB over the permutation iterator %.3f ms, grid-stride x8 %.3f, tiles x8 %.3f\n", c, d8, t8);
  for (int b : {4, 6, 8, 12, 28}) {
    const int lo = 28 - b;
    size_t need = 0; CK(cub::DeviceRadixSort::SortKeys(nullptr, need, idx, part, (int64_t)n, lo, 28));
    if (need > std::max(tb, ts)) { CK(cudaFree(tmp)); CK(cudaMalloc(&tmp, need)); tb = ts = need; }
    const float s = median_ms([&] { CK(cub::DeviceRadixSort::SortKeys(tmp, need, idx, part, (int64_t)n, lo, 28)); });
    const float g8 = median_ms([&] { gather_sum_tiles<8><<<(n + 2047) / 2048, 256>>>(x, part, n, out); });
    const float g16 = median_ms([&] { gather_sum_tiles<16><<<(n + 4095) / 4096, 256>>>(x, part, n, out); });
    const float gs = median_ms([&] { gather_sum<8><<<sms * 8, 256>>>(x, part, n, out); });
    CK(cudaGetLastError());
    const float best = std::min(g8, g16);
    printf("top %2d bits: partition (CUB SortKeys) %.3f ms, then tiles x8 %.3f, x16 %.3f, grid-stride %.3f; total %.3f ms = %.3fx CUB's direct sum\n",
           b, s, g8, g16, gs, s + best, c / (s + best));
  }
  return 0;
}
