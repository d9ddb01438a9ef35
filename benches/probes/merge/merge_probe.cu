// A/B of the product's merge sort by a comparator (`merge_module::<f32, nearer_zero>()`, dumped
// by `cargo run -p warp-tests --example dump_sort -- DIR` as merge_f32_abs.cu): the block sort,
// then a partition and a pass per doubling, launched as warp-runtime launches them, timed with
// CUDA events (median of 21 after warm-up) beside CUB's DeviceMergeSort::SortKeysCopy by the
// same order in the same program; the result checked against CUB's (both stable). run.sh
// builds one binary a variant (the module's WD_MERGE_ITEMS / WD_MERGE_MIN_BLOCKS edited).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>
#include <cub/device/device_merge_sort.cuh>
namespace product {
#include MODULE
}
#include "../timing.cuh"

struct AbsLess {
  __device__ bool operator()(float a, float b) const { return fabsf(a) < fabsf(b); }
};

int main(int argc, char** argv) {
  using namespace product;
  const uint64_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (1ull << 26);
  std::vector<float> h(n);
  std::mt19937_64 rng(42);
  for (uint64_t i = 0; i < n; ++i) h[i] = (float)((double)(rng() >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
  float *keys, *out, *tmp, *ref;
  CK(cudaMalloc(&keys, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&tmp, n * 4)); CK(cudaMalloc(&ref, n * 4));
  CK(cudaMemcpy(keys, h.data(), n * 4, cudaMemcpyHostToDevice));
  const uint64_t tile = WD_MERGE_TILE, tiles = (n + tile - 1) / tile;
  unsigned passes = 0;
  while ((tile << passes) < n) ++passes;
  wd_u64* part; CK(cudaMalloc(&part, 8 * (tiles + 1)));
  int sms, bps, pbps, ppbps; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, wd_k_merge_block_sort_keys, WD_BLOCK, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pbps, wd_k_merge_pass_keys, WD_BLOCK, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ppbps, wd_k_merge_partition, WD_BLOCK, 0));
  cudaFuncAttributes fb, fp; CK(cudaFuncGetAttributes(&fb, wd_k_merge_block_sort_keys)); CK(cudaFuncGetAttributes(&fp, wd_k_merge_pass_keys));
  const unsigned pgrid = (unsigned)std::min<uint64_t>((tiles + 1 + WD_BLOCK - 1) / WD_BLOCK, (uint64_t)sms * ppbps);
  wd_args a{};
  auto run = [&](int upto) {  // upto: -1 the block sort alone, else every pass
    unsigned src = passes % 2 == 0 ? 1u : 0u;
    wd_k_merge_block_sort_keys<<<(unsigned)tiles, WD_BLOCK>>>(keys, n, a, out, tmp, nullptr, nullptr, src);
    if (upto < 0) return;
    for (unsigned p = 0; p < passes; ++p) {
      src ^= 1u;
      const wd_u64 width = tile << p;
      wd_k_merge_partition<<<pgrid, WD_BLOCK>>>(out, tmp, src, n, width, tiles, a, part);
      wd_k_merge_pass_keys<<<(unsigned)tiles, WD_BLOCK>>>(out, tmp, nullptr, nullptr, src, n, width, part, a);
    }
  };
  size_t tb = 0;
  CK(cub::DeviceMergeSort::SortKeysCopy(nullptr, tb, keys, ref, (int)n, AbsLess{}));
  void* cubtmp; CK(cudaMalloc(&cubtmp, tb));
  auto cub_run = [&] { CK(cub::DeviceMergeSort::SortKeysCopy(cubtmp, tb, keys, ref, (int)n, AbsLess{})); };
  run(1); cub_run(); CK(cudaDeviceSynchronize());
  std::vector<float> o(n), r(n);
  CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  const bool ok = memcmp(o.data(), r.data(), n * 4) == 0;
  const float total = median_ms([&] { run(1); });
  const float block = median_ms([&] { run(-1); });
  const float cub = median_ms(cub_run);
  printf("%-22s items %2d minblocks %d regs %3d/%3d blocks/SM %d/%d | total %.3f ms block sort %.3f per pass %.3f (%u) | CUB %.3f ms | %.3fx | %s\n",
         VARIANT, WD_MERGE_ITEMS, WD_MERGE_MIN_BLOCKS, fb.numRegs, fp.numRegs, bps, pbps, total, block, (total - block) / passes, passes, cub,
         cub / total, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
