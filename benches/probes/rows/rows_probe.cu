// Row sums of a row-major R x C f32 matrix, one block per row: variants of the per-thread load
// schedule and block size against CUB's DeviceSegmentedReduce::Sum, event-timed in one run.
//   nvcc -O3 -arch=sm_90 -o rows_probe rows_probe.cu && ./rows_probe [cols...]
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdint>

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

// LOAD: 0 __ldg, 1 __ldcs (streaming, as the product's stage), 2 plain
template <int LOAD>
__device__ __forceinline__ float4 ld(const float4* p) {
  if (LOAD == 0) return __ldg(p);
  if (LOAD == 1) return __ldcs(p);
  return *p;
}

template <int NT, int U, int UNROLL, int LOAD>
__global__ void __launch_bounds__(NT) rows(const float* x, int64_t rows, int64_t cols, float* out) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* p = (const float4*)(x + r * cols);
    const int64_t nvec = cols / 4;
    float acc = 0.f;
#pragma unroll UNROLL
    for (int64_t v = threadIdx.x; v < nvec; v += (int64_t)U * NT) {
      float4 q[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + (int64_t)u * NT < nvec) q[u] = ld<LOAD>(p + v + (int64_t)u * NT);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + (int64_t)u * NT < nvec) acc += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    acc = block_sum<NT>(acc);
    if (threadIdx.x == 0) out[r] = acc;
  }
}


// Even share: a resident grid, block b folds vectors [b * N / G, (b + 1) * N / G) of the flat
// matrix, one block reduce per row piece it meets, pieces combined by atomicAdd (timing only:
// the product would combine a row's pieces in a fixed order).
template <int NT, int U, int LOAD>
__global__ void __launch_bounds__(NT) even(const float* x, int64_t rows, int64_t cols, float* out) {
  const int64_t nv = rows * cols / 4, cv = cols / 4;
  const int64_t lo = nv * blockIdx.x / gridDim.x, hi = nv * (blockIdx.x + 1) / gridDim.x;
  const float4* p = (const float4*)x;
  for (int64_t s = lo; s < hi;) {  // block-uniform
    const int64_t r = s / cv, e0 = (r + 1) * cv, e = e0 < hi ? e0 : hi;
    float acc = 0.f;
    for (int64_t v = s + threadIdx.x; v < e; v += (int64_t)U * NT) {
      float4 q[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + (int64_t)u * NT < e) q[u] = ld<LOAD>(p + v + (int64_t)u * NT);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (v + (int64_t)u * NT < e) acc += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    acc = block_sum<NT>(acc);
    if (threadIdx.x == 0) atomicAdd(out + r, acc);
    s = e;
  }
}

int main(int argc, char** argv) {
  const int64_t n = 1ll << 28;
  std::vector<int64_t> colss = {65536, 4096, 16384};
  if (argc > 1) { colss.clear(); for (int i = 1; i < argc; ++i) colss.push_back(atoll(argv[i])); }
  float *x, *out, *ref; CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&out, (n / 32) * 4)); CK(cudaMalloc(&ref, (n / 32) * 4));
  fill_random<<<2048, 256>>>(x, n, 12345); CK(cudaDeviceSynchronize());
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* y; CK(cudaMalloc(&y, n * 4));
  float copy = median_ms([&] { CK(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice)); });
  printf("copy %.0f GB/s\n", 2.0 * n * 4 / copy / 1e6);
  for (int64_t cols : colss) {
    const int64_t R = n / cols;
    std::vector<int64_t> off(R + 1); for (int64_t i = 0; i <= R; ++i) off[i] = i * cols;
    int64_t* doff; CK(cudaMalloc(&doff, (R + 1) * 8)); CK(cudaMemcpy(doff, off.data(), (R + 1) * 8, cudaMemcpyHostToDevice));
    size_t tb = 0; CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, x, ref, R, doff, doff + 1));
    void* tmp; CK(cudaMalloc(&tmp, tb + 1));
    float cub = median_ms([&] { CK(cub::DeviceSegmentedReduce::Sum(tmp, tb, x, ref, R, doff, doff + 1)); });
    printf("cols %lld rows %lld: CUB %.0f GB/s (%.4f ms)\n", (long long)cols, (long long)R, n * 4 / cub / 1e6, cub);
    std::vector<float> h_ref(R), h_out(R);
    CK(cudaMemcpy(h_ref.data(), ref, R * 4, cudaMemcpyDeviceToHost));
    auto run = [&](const char* name, auto kern, int nt, int64_t grid) {
      CK(cudaMemset(out, 0, R * 4));
      kern<<<(unsigned)grid, nt>>>(x, R, cols, out);  // once from zero, for the check
      CK(cudaGetLastError());
      CK(cudaMemcpy(h_out.data(), out, R * 4, cudaMemcpyDeviceToHost));
      float ms = median_ms([&] { kern<<<(unsigned)grid, nt>>>(x, R, cols, out); });
      CK(cudaGetLastError());
      double maxd = 0; for (int64_t i = 0; i < R; ++i) maxd = std::max(maxd, (double)fabsf(h_out[i] - h_ref[i]));
      printf("  %-34s grid %7lld: %5.0f GB/s (%.4f ms) %.3fx CUB  maxdiff %.2g\n", name, (long long)grid, n * 4 / ms / 1e6, ms, cub / ms, maxd);
    };
    size_t fb = 0; CK(cub::DeviceReduce::Sum(nullptr, fb, x, ref, n));
    void* ftmp; CK(cudaMalloc(&ftmp, fb + 1));
    float flat = median_ms([&] { CK(cub::DeviceReduce::Sum(ftmp, fb, x, out + R, n)); });
    printf("  CUB DeviceReduce::Sum (flat) %.0f GB/s (%.4f ms)\n", n * 4 / flat / 1e6, flat);
    CK(cudaFree(ftmp));
    for (int rep = 0; rep < 2; ++rep) {
    run("1024 U2 ldcs per-row (product)", rows<1024, 2, 1, 1>, 1024, R);
    run("1024 U2 ldg per-row", rows<1024, 2, 1, 0>, 1024, R);
    run("1024 U4 ldcs per-row", rows<1024, 4, 1, 1>, 1024, R);
    run("1024 U4 ldg per-row", rows<1024, 4, 1, 0>, 1024, R);
    run("512 U4 ldcs per-row", rows<512, 4, 1, 1>, 512, R);
    run("512 U8 ldcs per-row", rows<512, 8, 1, 1>, 512, R);
    run("256 U8 ldcs per-row", rows<256, 8, 1, 1>, 256, R);
    run("256 U16 ldcs per-row", rows<256, 16, 1, 1>, 256, R);
    run("even 1024 U2 ldcs 2/SM", even<1024, 2, 1>, 1024, 2 * sms);
    run("even 1024 U4 ldcs 2/SM", even<1024, 4, 1>, 1024, 2 * sms);
    run("even 512 U4 ldcs 4/SM", even<512, 4, 1>, 512, 4 * sms);
    run("even 256 U8 ldcs 8/SM", even<256, 8, 1>, 256, 8 * sms);
    run("even 256 U4 ldg 8/SM", even<256, 4, 0>, 256, 8 * sms);
    }
    CK(cudaFree(doff)); CK(cudaFree(tmp));
  }
  return 0;
}
