// Column sums of a row-major R x C f32 matrix: each thread owns VEC consecutive columns (one
// 16-byte load per row), blocks of NT threads cover NT * 4 columns, blockIdx.y takes a chunk
// of rows; partials [splits][C] are folded in a fixed order by a second kernel. Event-timed
// against PyTorch's figure of the same shape (run torch separately), one run.
//   nvcc -O3 -arch=sm_90 -o cols_probe cols_probe.cu && ./cols_probe [cols...]
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdint>
#include <cmath>

#include "../timing.cuh"
#include "../bank_conflicts/fill.cuh"

template <int NT, int U>
__global__ void __launch_bounds__(NT) cols_part(const float* x, int64_t rows, int64_t cols, int64_t rpb, float* part) {
  const int64_t c4 = (int64_t)blockIdx.x * NT + threadIdx.x;  // float4 column index
  if (c4 * 4 >= cols) return;
  const int64_t r0 = (int64_t)blockIdx.y * rpb, r1 = min(rows, r0 + rpb);
  const float4* p = (const float4*)x + c4;
  const int64_t stride = cols / 4;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int64_t r = r0; r < r1; r += U) {
    float4 q[U];
#pragma unroll
    for (int u = 0; u < U; ++u) if (r + u < r1) q[u] = __ldcs(p + (r + u) * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) if (r + u < r1) { acc.x += q[u].x; acc.y += q[u].y; acc.z += q[u].z; acc.w += q[u].w; }
  }
  ((float4*)(part + (int64_t)blockIdx.y * cols))[c4] = acc;
}

__global__ void cols_fold(const float* part, int64_t splits, int64_t cols, float* out) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < cols; c += (int64_t)gridDim.x * blockDim.x) {
    float a = 0.f;
    for (int64_t y = 0; y < splits; ++y) a += part[y * cols + c];
    out[c] = a;
  }
}

int main(int argc, char** argv) {
  const int64_t n = 1ll << 28;
  std::vector<int64_t> colss = {65536, 4096};
  if (argc > 1) { colss.clear(); for (int i = 1; i < argc; ++i) colss.push_back(atoll(argv[i])); }
  float *x, *out, *part; CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&out, 65536 * 64 * 4)); CK(cudaMalloc(&part, (int64_t)64 << 20));
  fill_random<<<2048, 256>>>(x, n, 12345); CK(cudaDeviceSynchronize());
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int64_t cols : colss) {
    const int64_t R = n / cols;
    // Host reference in double.
    std::vector<float> hx(n); CK(cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost));
    std::vector<double> ref(cols, 0.0);
    for (int64_t r = 0; r < R; ++r) for (int64_t c = 0; c < cols; ++c) ref[c] += hx[r * cols + c];
    std::vector<float> h(cols);
    auto run = [&](const char* name, auto kern, int nt, int64_t splits_target) {
      const int64_t ctiles = (cols / 4 + nt - 1) / nt;
      int64_t splits = std::max<int64_t>(1, std::min<int64_t>(R, splits_target / ctiles));
      const int64_t rpb = (R + splits - 1) / splits; splits = (R + rpb - 1) / rpb;
      if (splits * cols * 4 > ((int64_t)64 << 20)) { printf("  %s: partials too big\n", name); return; }
      float ms = median_ms([&] {
        kern<<<dim3((unsigned)ctiles, (unsigned)splits), nt>>>(x, R, cols, rpb, part);
        cols_fold<<<(unsigned)std::min<int64_t>(4096, (cols + 255) / 256), 256>>>(part, splits, cols, out);
      });
      CK(cudaGetLastError());
      CK(cudaMemcpy(h.data(), out, cols * 4, cudaMemcpyDeviceToHost));
      double maxd = 0; for (int64_t c = 0; c < cols; ++c) maxd = std::max(maxd, fabs(h[c] - ref[c]));
      printf("  %-22s blocks %5lld x %4lld (rows/block %5lld): %5.0f GB/s (%.4f ms) maxdiff %.2g\n", name, (long long)ctiles,
             (long long)splits, (long long)rpb, n * 4 / ms / 1e6, ms, maxd);
    };
    printf("cols %lld rows %lld\n", (long long)cols, (long long)R);
    for (int64_t target : {(int64_t)sms * 8, (int64_t)sms * 16, (int64_t)sms * 32}) {
      printf(" splits target %lld blocks\n", (long long)target);
      run("256 thr U4", cols_part<256, 4>, 256, target);
      run("256 thr U8", cols_part<256, 8>, 256, target);
      run("128 thr U4", cols_part<128, 4>, 128, target);
      run("128 thr U8", cols_part<128, 8>, 128, target);
      run("64 thr U8", cols_part<64, 8>, 64, target);
    }
  }
  return 0;
}
