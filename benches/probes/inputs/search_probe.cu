// Where the time of a search of queries in order goes: 2^24 sorted random f32 queries in 2^28
// sorted random f32 keys (the bench's lower_bound_sorted_f32), thrust::lower_bound against the
// product's wd_k_search_bounds + wd_k_search_tiles and variants of the tiles kernel, with a
// plain read of the keys (the floor of any kernel that reads every key) in the same process.
// search_f32_u32.cu is the product's module (not kept in git), written by the dump_sort example:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o search_probe search_probe.cu && ./search_probe [once]
// `once` runs each kernel once, untimed (for ncu).
#include <cub/cub.cuh>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <cstdint>
#include <cstring>
#include "../timing.cuh"
namespace product {
#include "search_f32_u32.cu"
}
using product::wd_u32;
using product::wd_u64;

__global__ void fill(float* x, uint64_t n, uint64_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
    uint64_t h = (i + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    x[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
  }
}

// The floor: every key read once (float4), summed.
__global__ void __launch_bounds__(256) read_all(const float4* x, uint64_t n4, float* out) {
  float acc = 0.f;
  for (uint64_t i = blockIdx.x * 256ull + threadIdx.x; i < n4; i += (uint64_t)gridDim.x * 256) {
    float4 v = x[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.f) *out = acc;
}

// Tiles, spans read with 16-byte loads from the span's first aligned key (VEC in flight a
// thread), double-buffered (DB): the next tile's loads are issued before this tile's search
// and stored after it.
template <int CAP, bool DB>
__global__ void __launch_bounds__(256) tiles_vec(const float* sorted, const float* queries, uint64_t m,
                                                 const wd_u64* bounds, wd_u32* out) {
  constexpr int VEC = CAP / 4 / 256;
  extern __shared__ __align__(16) unsigned keys_[];
  unsigned* keys[2] = {keys_, keys_ + (CAP + 4)};
  const uint64_t tiles = (m + 255) / 256;
  auto tile_of = [&](uint64_t t, uint64_t& lo, uint64_t& hi, unsigned& w) {
    lo = 0, hi = 0, w = 0;
    if (t >= tiles) return;
    lo = bounds[t];
    hi = bounds[t + 1] < lo ? lo : bounds[t + 1];
    const uint64_t i = t * 256 + threadIdx.x;
    if (i < m) w = product::wd_sort_word(queries[i], false);
  };
  // Issue a span's loads (from lo rounded down to 4 keys) into v.
  auto issue = [&](uint64_t lo, uint64_t hi, float4* v) {
    const uint64_t a = lo & ~(uint64_t)3;
    const wd_u32 q = (wd_u32)((hi - a + 3) / 4);
#pragma unroll
    for (int u = 0; u < VEC; ++u) {
      const wd_u32 k = u * 256 + threadIdx.x;
      if (k < q) v[u] = __ldcs(reinterpret_cast<const float4*>(sorted + a) + k);
    }
  };
  auto store = [&](uint64_t lo, uint64_t hi, const float4* v, unsigned* buf) {
    const uint64_t a = lo & ~(uint64_t)3;
    const wd_u32 q = (wd_u32)((hi - a + 3) / 4);
#pragma unroll
    for (int u = 0; u < VEC; ++u) {
      const wd_u32 k = u * 256 + threadIdx.x;
      if (k < q) {
        uint4 r;
        r.x = product::wd_sort_word(v[u].x, false), r.y = product::wd_sort_word(v[u].y, false);
        r.z = product::wd_sort_word(v[u].z, false), r.w = product::wd_sort_word(v[u].w, false);
        reinterpret_cast<uint4*>(buf)[k] = r;
      }
    }
  };
  uint64_t lo, hi;
  unsigned w;
  float4 v[VEC];
  int cur = 0;
  uint64_t t = blockIdx.x;
  tile_of(t, lo, hi, w);
  issue(lo, hi, v);
  store(lo, hi, v, keys[0]);
  __syncthreads();
  for (; t < tiles; t += gridDim.x) {
    uint64_t nlo, nhi;
    unsigned nw;
    tile_of(t + gridDim.x, nlo, nhi, nw);
    if (DB) issue(nlo, nhi, v);
    const uint64_t a = lo & ~(uint64_t)3;
    const unsigned* ks = keys[cur] + (lo - a);
    const wd_u32 span = (wd_u32)(hi - lo);
    const uint64_t at = lo + product::wd_search_count(span, w, false, [&](wd_u32 k) { return ks[k]; });
    const uint64_t i = t * 256 + threadIdx.x;
    if (i < m) out[i] = (wd_u32)at;
    if (DB) {
      store(nlo, nhi, v, keys[cur ^ 1]);
      cur ^= 1;
    } else {
      __syncthreads();
      issue(nlo, nhi, v);
      store(nlo, nhi, v, keys[0]);
    }
    __syncthreads();
    lo = nlo, hi = nhi, w = nw;
  }
}

// No shared memory: each query searched between its tile's bounds in global memory.
__global__ void __launch_bounds__(256) tiles_global(const float* sorted, const float* queries, uint64_t m,
                                                    const wd_u64* bounds, wd_u32* out) {
  const uint64_t i = blockIdx.x * 256ull + threadIdx.x;
  if (i >= m) return;
  const uint64_t t = i / 256, lo = bounds[t], hi = bounds[t + 1] < lo ? lo : bounds[t + 1];
  const unsigned w = product::wd_sort_word(queries[i], false);
  out[i] = (wd_u32)(lo + product::wd_search_count(hi - lo, w, false, [&](uint64_t k) { return product::wd_sort_word(__ldg(sorted + lo + k), false); }));
}

// Each tile's bound by a group of G lanes: the sample search (shared memory) as the product's,
// then a G-ary search of the stretch in global memory: G - 1 keys a step, their loads in
// flight together, a ballot of the group counting those before the query.
template <int G>
__global__ void __launch_bounds__(256) bounds_gary(const float* sorted, uint64_t n, const float* queries, uint64_t m, unsigned p,
                                                   wd_u64* bounds) {
  __shared__ unsigned sample[2048];
  const wd_u32 samples = product::wd_search_sample(sorted, n, p, false, sample);
  const uint64_t tiles = (m + 255) / 256;
  const unsigned lane = threadIdx.x & 31u, j = lane % G;
  const unsigned gmask = (G == 32 ? 0xffffffffu : ((1u << G) - 1u)) << (lane / G * G);
  for (uint64_t t = (blockIdx.x * 256ull + threadIdx.x) / G; t <= tiles; t += (uint64_t)gridDim.x * (256 / G)) {
    if (t == tiles) {
      if (j == 0) bounds[t] = n;
      continue;
    }
    const unsigned w = product::wd_sort_word(queries[t * 256], false);
    uint64_t base = product::wd_search_stretch(sample, samples, p, w, false);
    if (base == ~0ull) {
      if (j == 0) bounds[t] = 0;
      continue;
    }
    // The answer lies in [base, base + len].
    uint64_t len = (1ull << p) - 1;
    if (base + len > n) len = n - base;
    while (len > 0) {
      const uint64_t chunk = (len + G - 1) / G;
      const uint64_t at = base + j * chunk - 1;  // lane j > 0: is the answer at least base + j * chunk?
      const bool before = j > 0 && j * chunk <= len && product::wd_sort_word(sorted[at], false) < w;
      const unsigned c = __popc(__ballot_sync(gmask, before) & gmask);
      len = c < G - 1 && (c + 1) * chunk <= len ? chunk - 1 : len - c * chunk;
      base += c * chunk;
    }
    if (j == 0) bounds[t] = base;
  }
}

template <class F>
static int occupancy(F f, int sms, size_t dyn = 0) {
  if (dyn) CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
  int bps; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, f, 256, dyn));
  cudaFuncAttributes at; CK(cudaFuncGetAttributes(&at, f));
  printf("  (%d blocks a SM, %d registers, %zu B shared)\n", bps, at.numRegs, at.sharedSizeBytes);
  return sms * bps;
}

int main(int argc, char** argv) {
  const bool once = argc > 1 && !strcmp(argv[1], "once");
  const uint64_t n = 1ull << 28, m = n / 16, tiles = (m + 255) / 256;
  float *keys, *qs, *tmpk, *sink; wd_u32 *out, *ref, *unsorted_flag; wd_u64* bounds;
  CK(cudaMalloc(&keys, n * 4)); CK(cudaMalloc(&tmpk, n * 4)); CK(cudaMalloc(&qs, m * 4));
  CK(cudaMalloc(&out, m * 4)); CK(cudaMalloc(&ref, m * 4)); CK(cudaMalloc(&bounds, (tiles + 1) * 8));
  CK(cudaMalloc(&sink, 4)); CK(cudaMalloc(&unsorted_flag, 4)); CK(cudaMemset(unsorted_flag, 0, 4));
  fill<<<1024, 256>>>(tmpk, n, 1); fill<<<1024, 256>>>(keys, m, 7);
  size_t tb = 0; CK(cub::DeviceRadixSort::SortKeys(nullptr, tb, tmpk, keys, n));
  void* tmp; CK(cudaMalloc(&tmp, tb));
  CK(cub::DeviceRadixSort::SortKeys(tmp, tb, keys, qs, m));  // queries: keys[0..m) sorted into qs
  CK(cub::DeviceRadixSort::SortKeys(tmp, tb, tmpk, keys, n));
  CK(cudaDeviceSynchronize());
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned shift = 0; while ((2048ull << shift) < n) ++shift;

  auto thr = [&] { thrust::lower_bound(thrust::device, keys, keys + n, qs, qs + m, ref); };
  printf("product bounds"); const int gb = occupancy(product::wd_k_search_bounds, sms);
  printf("product tiles"); const int gt = occupancy(product::wd_k_search_tiles, sms);
  auto pbounds = [&] {
    product::wd_k_search_bounds<<<(unsigned)std::min<uint64_t>(gb, (tiles + 256) / 256), 256>>>(keys, n, qs, qs, m, nullptr, nullptr, shift, 0, 0, bounds);
  };
  auto ptiles = [&] {
    product::wd_k_search_tiles<<<(unsigned)std::min<uint64_t>(gt, tiles), 256>>>(keys, qs, qs, m, nullptr, nullptr, bounds, 0, 0, out);
  };
  const size_t s1 = (8192 + 4) * 4, s2 = 2 * s1, s6 = 2 * (6144 + 4) * 4;
  printf("vec 8192"); const int gv = occupancy(tiles_vec<8192, false>, sms, s1);
  printf("vec 8192 double-buffered"); const int gd = occupancy(tiles_vec<8192, true>, sms, s2);
  printf("vec 6144 double-buffered"); const int gd6 = occupancy(tiles_vec<6144, true>, sms, s6);
  auto vec = [&] { tiles_vec<8192, false><<<(unsigned)std::min<uint64_t>(gv, tiles), 256, s1>>>(keys, qs, m, bounds, out); };
  auto dbuf = [&] { tiles_vec<8192, true><<<(unsigned)std::min<uint64_t>(gd, tiles), 256, s2>>>(keys, qs, m, bounds, out); };
  auto dbuf6 = [&] { tiles_vec<6144, true><<<(unsigned)std::min<uint64_t>(gd6, tiles), 256, s6>>>(keys, qs, m, bounds, out); };
  wd_u64* bounds2; CK(cudaMalloc(&bounds2, (tiles + 1) * 8));
  std::vector<wd_u64> bw(tiles + 1), bg(tiles + 1);
  // One lambda a group size (nvcc's host pass refuses a launch through a generic lambda's
  // `auto` kernel parameter).
#define GARY(G) [&] { bounds_gary<G><<<(unsigned)((tiles + 1) * G / 256 + 1), 256>>>(keys, n, qs, m, shift, bounds2); }
  auto g4 = GARY(4);
  auto g8 = GARY(8);
  auto g16 = GARY(16);
  auto g32 = GARY(32);
#undef GARY
  auto glob = [&] { tiles_global<<<(unsigned)tiles, 256>>>(keys, qs, m, bounds, out); };
  auto floor_ = [&] { read_all<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(keys), n / 4, sink); };

  thr(); pbounds(); CK(cudaDeviceSynchronize());
  std::vector<wd_u32> want(m), got(m);
  CK(cudaMemcpy(want.data(), ref, m * 4, cudaMemcpyDeviceToHost));
  auto check = [&](const char* what, auto f) {
    CK(cudaMemset(out, 0xff, m * 4)); f(); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), out, m * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0; for (uint64_t i = 0; i < m; ++i) bad += got[i] != want[i];
    printf("%s: %zu of %llu answers differ from thrust\n", what, bad, (unsigned long long)m);
  };
  CK(cudaMemcpy(bw.data(), bounds, (tiles + 1) * 8, cudaMemcpyDeviceToHost));
  auto bcheck = [&](const char* what, auto f) {
    CK(cudaMemset(bounds2, 0xff, (tiles + 1) * 8)); f(); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(bg.data(), bounds2, (tiles + 1) * 8, cudaMemcpyDeviceToHost));
    size_t bad = 0; for (uint64_t i = 0; i <= tiles; ++i) bad += bg[i] != bw[i];
    printf("%s: %zu of %llu bounds differ from the product's; %.4f ms\n", what, bad, (unsigned long long)tiles + 1, median_ms(f));
  };
  bcheck("bounds 4-ary", g4); bcheck("bounds 8-ary", g8); bcheck("bounds 16-ary", g16); bcheck("bounds 32-ary", g32);
  check("product tiles", ptiles); check("vec", vec); check("dbuf", dbuf); check("dbuf 6144", dbuf6); check("global", glob);
  if (once) { floor_(); CK(cudaDeviceSynchronize()); return 0; }
  for (int round = 0; round < 3; ++round) {
    const float t = median_ms(thr), b = median_ms(pbounds), pt = median_ms(ptiles), v = median_ms(vec), d = median_ms(dbuf),
                d6 = median_ms(dbuf6), g = median_ms(glob), f = median_ms(floor_);
    printf("round %d: thrust %.4f | product bounds %.4f tiles %.4f (sum %.4f, %.3fx thrust) | vec %.4f | dbuf %.4f | dbuf6144 %.4f | global %.4f | read-all floor %.4f (%.0f GB/s)\n",
           round, t, b, pt, b + pt, t / (b + pt), v, d, d6, g, f, n * 4 / (f * 1e6));
  }
  return 0;
}
