// A/B of the product's radix sort module (`sort_module::<K>(value_bytes)`, dumped by
// `cargo run -p warp-tests --example dump_sort -- DIR`): histogram, plan and the digit passes
// launched as warp-runtime launches them, timed with CUDA events (median of 21 after warm-up),
// the result checked sorted and (with values) the values moved with their keys. run.sh builds
// one binary a variant (the module's WD_SORT_ITEMS / WD_SORT_MIN_BLOCKS / WD_SORT_BLOCK edited).
// Also printed: each pass's time (events around each launch, median of 7). Switches for the
// experiment modules of variants.py: -DTIMED (a phase-timed module: cycles a tile of each
// phase), -DDYN=1 (a tile of 4-byte values of dynamic shared memory: the `_staged` modules, WD_SORT_STAGE),
// PERSIST (the module's WD_SORT_PERSIST unless given: a grid of the resident blocks alone,
// taking tiles from the queue; else a block a tile).
//   nvcc -O3 -arch=sm_90 -std=c++17 -DMODULE='"variant.cu"' -DPROBE_KEY=unsigned -DVALS=1 sort_probe.cu
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#include <type_traits>
namespace product {
#include MODULE
}
#include "../timing.cuh"

#ifndef VALS
#define VALS 0  // 0: keys alone; 1: pairs (random u32 values); 2: argsort (index values)
#endif

int main(int argc, char** argv) {
  using namespace product;
  const uint64_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (1ull << 28);
  const uint64_t passes = sizeof(PROBE_KEY);
  std::vector<PROBE_KEY> h(n);
  std::vector<uint32_t> hv(n);
  std::mt19937_64 rng(42);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    if constexpr (std::is_same<PROBE_KEY, float>::value) h[i] = (float)((double)(r >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
    else h[i] = (PROBE_KEY)r;
    hv[i] = (uint32_t)(r >> 32);
  }
  PROBE_KEY *keys, *out, *tmp; uint32_t *vin, *vout, *vtmp;
  CK(cudaMalloc(&keys, n * sizeof(PROBE_KEY))); CK(cudaMalloc(&out, n * sizeof(PROBE_KEY))); CK(cudaMalloc(&tmp, n * sizeof(PROBE_KEY)));
  CK(cudaMalloc(&vin, n * 4)); CK(cudaMalloc(&vout, n * 4)); CK(cudaMalloc(&vtmp, n * 4));
  CK(cudaMemcpy(keys, h.data(), n * sizeof(PROBE_KEY), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(vin, hv.data(), n * 4, cudaMemcpyHostToDevice));
  const uint64_t tiles = (n + WD_SORT_TILE - 1) / WD_SORT_TILE;
  wd_u64 *status, *hist, *offsets; unsigned *queue, *plan;
  CK(cudaMalloc(&status, tiles * 256 * 8)); CK(cudaMalloc(&hist, 8 * 256 * passes)); CK(cudaMalloc(&offsets, 8 * 256 * passes));
  CK(cudaMalloc(&queue, 4 * passes)); CK(cudaMalloc(&plan, 4 * passes));
  int sms, bps, pbps, regs = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, wd_k_sort_histogram, WD_BLOCK, 0));
#ifndef PERSIST
#define PERSIST WD_SORT_PERSIST
#endif
#ifndef DYN
#define DYN 0
#endif
  const int dyn = DYN ? (int)(WD_SORT_TILE * 4) : 0;
  if (dyn) {
    CK(cudaFuncSetAttribute(wd_k_sort_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
    CK(cudaFuncSetAttribute(wd_k_sort_pass, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  }
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pbps, wd_k_sort_pass, WD_SORT_BLOCK, dyn));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, wd_k_sort_pass)); regs = fa.numRegs;
  const uint64_t needed = (n + WD_BLOCK * WD_SORT_UNROLL - 1) / (WD_BLOCK * WD_SORT_UNROLL);
  const unsigned hgrid = (unsigned)std::min<uint64_t>(needed, (uint64_t)sms * bps);
  const bool pairs = VALS != 0;
  auto run = [&](bool hist_only, cudaEvent_t* ev = nullptr) {
    CK(cudaMemsetAsync(status, 0, tiles * 256 * 8)); CK(cudaMemsetAsync(queue, 0, 4 * passes));
    CK(cudaMemsetAsync(hist, 0, 8 * 256 * passes));
    wd_k_sort_histogram<<<hgrid, WD_BLOCK>>>(keys, n, 0u, 0u, nullptr, hist);
    if (hist_only) return;
    wd_k_sort_plan<<<1, WD_BLOCK>>>(hist, n, (unsigned)passes, nullptr, offsets, plan);
    for (unsigned p = 0; p < passes; ++p) {
      if (ev) CK(cudaEventRecord(ev[p]));
      wd_k_sort_pass<<<PERSIST ? (unsigned)std::min<uint64_t>(tiles, (uint64_t)sms * pbps) : (unsigned)tiles, WD_SORT_BLOCK, dyn>>>(keys, out, tmp, pairs && VALS == 1 ? vin : nullptr, pairs ? vout : nullptr,
                                                   pairs ? vtmp : nullptr, VALS == 2 ? 1u : 0u, n, p, 0u, 0u, plan, offsets, status, queue);
    }
    if (ev) CK(cudaEventRecord(ev[passes]));
  };
  run(false); CK(cudaDeviceSynchronize());
  std::vector<PROBE_KEY> o(n); std::vector<uint32_t> ov(n);
  CK(cudaMemcpy(o.data(), out, n * sizeof(PROBE_KEY), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ov.data(), vout, n * 4, cudaMemcpyDeviceToHost));
  // Checked in O(n): sorted, and the same multiset of (key, value) pairs (a sum of hashes).
  auto bits = [](PROBE_KEY k) { uint64_t b = 0; memcpy(&b, &k, sizeof(PROBE_KEY)); return b; };
  auto mix = [](uint64_t x) { x += 0x9e3779b97f4a7c15ull; x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull; x = (x ^ (x >> 27)) * 0x94d049bb133111ebull; return x ^ (x >> 31); };
  bool ok = true;
  uint64_t a = 0, b = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0 && o[i] < o[i - 1]) ok = false;
    const uint64_t hv_i = VALS == 2 ? i : VALS == 1 ? hv[i] : 0, ov_i = VALS ? ov[i] : 0;
    a += mix(bits(h[i]) * 0x100000001b3ull ^ hv_i);
    b += mix(bits(o[i]) * 0x100000001b3ull ^ ov_i);
    if (VALS == 2 && i > 0 && o[i] == o[i - 1] && ov[i] < ov[i - 1]) ok = false;  // stable
  }
  ok = ok && a == b;
  const float total = median_ms([&] { run(false); });
  const float hist_ms = median_ms([&] { run(true); });
#ifdef TIMED
  { unsigned long long z[16] = {0}; CK(cudaMemcpyToSymbol(wd_x_timers, z, sizeof(z))); run(false); CK(cudaDeviceSynchronize());
    CK(cudaMemcpyFromSymbol(z, wd_x_timers, sizeof(z)));
    const double per = (double)tiles * passes;
    printf("  timed %s per tile (cycles, thread 0 | thread 352): start->tile %.0f|%.0f load+counts %.0f|%.0f prefix+scan %.0f|%.0f rank %.0f|%.0f lookback %.0f|%.0f keys out %.0f|%.0f values %.0f|%.0f; lookback rounds %.2f steps %.2f\n",
      VARIANT, z[0]/per, z[7]/per, z[1]/per, z[8]/per, z[2]/per, z[9]/per, z[3]/per, z[10]/per, z[4]/per, z[11]/per, z[5]/per, z[12]/per, z[6]/per, z[13]/per, z[14]/per, z[15]/per); }
#endif
  { cudaEvent_t ev[9]; for (int k = 0; k < 9; ++k) CK(cudaEventCreate(&ev[k]));
    std::vector<std::vector<float>> t(passes);
    for (int r = 0; r < 7; ++r) { run(false, ev); CK(cudaDeviceSynchronize());
      for (unsigned p = 0; p < passes; ++p) { float ms; CK(cudaEventElapsedTime(&ms, ev[p], ev[p + 1])); t[p].push_back(ms); } }
    printf("  passes %s:", VARIANT);
    for (unsigned p = 0; p < passes; ++p) { std::sort(t[p].begin(), t[p].end()); printf(" %.3f", t[p][3]); }
    printf(" ms\n"); }
  printf("%-34s items %2d block %3d minblocks %d regs %3d blocks/SM %d | total %.3f ms hist %.3f per pass %.3f | %s\n",
         VARIANT, WD_SORT_ITEMS, WD_SORT_BLOCK, WD_SORT_MIN_BLOCKS, regs, pbps, total, hist_ms, (total - hist_ms) / passes, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
