// CUB DeviceRadixSort::SortKeys and SortPairs on the sort probe's data (2^28 u32 keys, f32 keys in
// [-1, 1), u32 pairs), each timed as the probe times the product (median of 21 after warm-up);
// with ONCE set, each sort runs once (for ncu's per-kernel times).
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>
#include "../timing.cuh"
template <class K> void go(const char* name, uint64_t n, bool pairs) {
  std::vector<K> h(n); std::vector<uint32_t> hv(n);
  std::mt19937_64 rng(42);
  for (uint64_t i = 0; i < n; ++i) { uint64_t r = rng();
    if constexpr (std::is_same<K, float>::value) h[i] = (float)((double)(r >> 11) / (double)(1ull << 53) * 2.0 - 1.0); else h[i] = (K)r;
    hv[i] = (uint32_t)(r >> 32); }
  K *a, *b; uint32_t *va, *vb; CK(cudaMalloc(&a, n * sizeof(K))); CK(cudaMalloc(&b, n * sizeof(K))); CK(cudaMalloc(&va, n * 4)); CK(cudaMalloc(&vb, n * 4));
  CK(cudaMemcpy(a, h.data(), n * sizeof(K), cudaMemcpyHostToDevice)); CK(cudaMemcpy(va, hv.data(), n * 4, cudaMemcpyHostToDevice));
  size_t tb = 0; void* t = nullptr;
  if (pairs) cub::DeviceRadixSort::SortPairs(t, tb, a, b, va, vb, (int)n); else cub::DeviceRadixSort::SortKeys(t, tb, a, b, (int)n);
  CK(cudaMalloc(&t, tb));
  auto run = [&] { if (pairs) cub::DeviceRadixSort::SortPairs(t, tb, a, b, va, vb, (int)n); else cub::DeviceRadixSort::SortKeys(t, tb, a, b, (int)n); };
  if (getenv("ONCE")) { run(); CK(cudaDeviceSynchronize()); return; }
  const float ms = median_ms(run);
  printf("cub %s n %llu: %.3f ms\n", name, (unsigned long long)n, ms);
  CK(cudaFree(a)); CK(cudaFree(b)); CK(cudaFree(va)); CK(cudaFree(vb)); CK(cudaFree(t));
}
int main() {
  go<unsigned>("u32 keys", 1ull << 28, false);
  go<float>("f32 keys", 1ull << 28, false);
  go<unsigned>("u32 pairs", 1ull << 28, true);
  return 0;
}
