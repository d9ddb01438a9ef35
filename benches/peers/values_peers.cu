// values_peers.cu - peers of the several-array and half-precision reductions (issue 12): cuBLAS
// cublasSdot and thrust::inner_product for a dot product of two f32 arrays, and CUB
// DeviceReduce::TransformReduce summing bf16 / f16 arrays with f32 accumulation,
// DevicePartition::If with two selectors (a three-way partition of f32 into thirds), and
// DeviceHistogram::HistogramEven (u8 into 256 bins over [0, 256), f32 into 256 bins over
// [-1, 1)). Same output lines as cub_peers.cu (PEER <lib> <op> <median_ms> <gbps>, CHECK, SKIP,
// INFO).
//
// Build (the bench does this):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl -o values_peers values_peers.cu -lcublas
// Usage:
//   values_peers --n N --reps R
//
// Timing: fresh random data per op, a warm-up of at least 30 runs and 100 ms, then R runs each bracketed by its own
// event pair; the median is printed. GB/s count the bytes of every array read.
//
// Checks (outside the timing, against the inputs read back to the host): `CHECK <lib> <op> ok|FAIL ...`. Exact for
// the partition's counts and every histogram bin; the dot products and half sums within 1e-5 of the sum of the
// terms' magnitudes (f32 accumulation; the double references are exact or within 2^-50 of it).

#include <cub/cub.cuh>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                                   \
  do {                                                                                             \
    const cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s in %s\n", __FILE__, __LINE__, cudaGetErrorString(e_), #call); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static cudaStream_t g_stream = nullptr;

__global__ void fill_f32(float* x, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = (float)(z >> 40) / (float)(1u << 24) * 2.0f - 1.0f;
  }
}
template <class H> __global__ void to_half(const float* x, H* h, int64_t n);
template <> __global__ void to_half<__half>(const float* x, __half* h, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    h[i] = __float2half_rn(x[i]);
}
template <> __global__ void to_half<__nv_bfloat16>(const float* x, __nv_bfloat16* h, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    h[i] = __float2bfloat16_rn(x[i]);
}

template <class F> static double time_ms(int reps, F f) {
  // Warm-up: at least 30 runs and 100 ms (see cub_peers.cu: a short warm-up after another op
  // measures a transient).
  {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0;; ++i) {
      f();
      if (i + 1 >= 30 && i % 8 == 7) {
        CK(cudaStreamSynchronize(g_stream));
        if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() >= 100.0) break;
      }
    }
  }
  CK(cudaStreamSynchronize(g_stream));
  std::vector<cudaEvent_t> a(reps), b(reps);
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventCreate(&a[i]));
    CK(cudaEventCreate(&b[i]));
  }
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a[i], g_stream));
    f();
    CK(cudaEventRecord(b[i], g_stream));
  }
  CK(cudaStreamSynchronize(g_stream));
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a[i], b[i]));
    t[i] = ms;
    cudaEventDestroy(a[i]);
    cudaEventDestroy(b[i]);
  }
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

static void peer(const char* lib, const char* op, double ms, double bytes) {
  std::printf("PEER %s %s %.6f %.3f\n", lib, op, ms, bytes / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

// `CHECK <lib> <op> ok|FAIL got=... ref=... tol=...`: |got - ref| <= tol.
static void check_near(const char* lib, const char* op, double got, double ref, double tol) {
  std::printf("CHECK %s %s %s got=%.9g ref=%.9g tol=%.3g\n", lib, op, std::fabs(got - ref) <= tol ? "ok" : "FAIL", got,
              ref, tol);
  std::fflush(stdout);
}

struct ToF32 {
  __device__ float operator()(__half h) const { return __half2float(h); }
  __device__ float operator()(__nv_bfloat16 h) const { return __bfloat162float(h); }
};
// The same on the host, from the bits (f16: sign, 5-bit exponent, 10-bit fraction; bf16: the
// top half of an f32).
static float ToF32Host(__nv_bfloat16 h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  const uint32_t w = (uint32_t)b << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}
static float ToF32Host(__half h) {
  uint16_t b;
  std::memcpy(&b, &h, 2);
  const int sign = b >> 15, exp = (b >> 10) & 0x1f, frac = b & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp((float)frac, -24);                 // zero, subnormal
  else if (exp == 31) v = frac ? NAN : INFINITY;                 // inf, NaN
  else v = std::ldexp((float)(frac | 0x400), exp - 25);          // normal
  return sign ? -v : v;
}

template <class H> static void half_sum(const char* op, const float* x, int64_t n, int reps) {
  static_assert(sizeof(H) == 2, "a 16-bit float");
  H* h = nullptr;
  CK(cudaMalloc(&h, n * sizeof(H)));
  to_half<H><<<1024, 256, 0, g_stream>>>(x, h, n);
  float* out = nullptr;
  CK(cudaMalloc(&out, sizeof(float)));
  size_t tmp_bytes = 0;
  CK(cub::DeviceReduce::TransformReduce(nullptr, tmp_bytes, h, out, n, cuda::std::plus<float>{}, ToF32{}, 0.0f, g_stream));
  void* tmp = nullptr;
  CK(cudaMalloc(&tmp, tmp_bytes));
  const double ms = time_ms(reps, [&] {
    CK(cub::DeviceReduce::TransformReduce(tmp, tmp_bytes, h, out, n, cuda::std::plus<float>{}, ToF32{}, 0.0f, g_stream));
  });
  peer("cub", op, ms, (double)n * sizeof(H));
  float got = 0;
  CK(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost));
  // The halves read back and widened on the host (exact), summed in double.
  std::vector<H> hh(n);
  CK(cudaMemcpy(hh.data(), h, n * sizeof(H), cudaMemcpyDeviceToHost));
  double ref = 0, abs_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = ToF32Host(hh[i]);
    ref += v;
    abs_sum += std::fabs(v);
  }
  check_near("cub", op, got, ref, 1e-5 * abs_sum);
  cudaFree(tmp);
  cudaFree(out);
  cudaFree(h);
}

struct Below {
  float t;
  __device__ bool operator()(float x) const { return x < t; }
};

// CUB's three-way partition of f32 into thirds (x < -1/3, then x < 1/3, the rest): bytes read
// and written counted.
static void partition3(const float* x, const std::vector<float>& hx, int64_t n, int reps) {
  if (n > INT32_MAX) {
    std::printf("SKIP cub partition3_f32 n above int\n");
    return;
  }
  float *a = nullptr, *b = nullptr, *c = nullptr;
  int* counts = nullptr;
  CK(cudaMalloc(&a, n * sizeof(float)));
  CK(cudaMalloc(&b, n * sizeof(float)));
  CK(cudaMalloc(&c, n * sizeof(float)));
  CK(cudaMalloc(&counts, 2 * sizeof(int)));
  const Below lo{-1.0f / 3.0f}, hi{1.0f / 3.0f};
  size_t tmp_bytes = 0;
  CK(cub::DevicePartition::If(nullptr, tmp_bytes, x, a, b, c, counts, (int)n, lo, hi, g_stream));
  void* tmp = nullptr;
  CK(cudaMalloc(&tmp, tmp_bytes));
  const double ms = time_ms(reps, [&] {
    CK(cub::DevicePartition::If(tmp, tmp_bytes, x, a, b, c, counts, (int)n, lo, hi, g_stream));
  });
  peer("cub", "partition3_f32", ms, 2.0 * n * sizeof(float));
  int got[2] = {0, 0};
  CK(cudaMemcpy(got, counts, sizeof(got), cudaMemcpyDeviceToHost));
  int64_t want[2] = {0, 0};
  for (int64_t i = 0; i < n; ++i) {
    if (hx[i] < lo.t) ++want[0];
    else if (hx[i] < hi.t) ++want[1];
  }
  std::printf("CHECK cub partition3_f32 %s first=%d second=%d ref_first=%lld ref_second=%lld\n",
              got[0] == want[0] && got[1] == want[1] ? "ok" : "FAIL", got[0], got[1], (long long)want[0],
              (long long)want[1]);
  cudaFree(tmp);
  cudaFree(counts);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

__global__ void to_bytes(const float* x, unsigned char* b, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    b[i] = (unsigned char)((x[i] + 1.0f) * 128.0f);
}

// CUB's even-bin histogram of `samples` (256 bins over [lower, upper)), 32-bit counters; bytes
// read counted. Checked bin for bin against `want` (the host's counts); the check line also
// holds the total counted (n when every sample is in range).
template <class S, class L>
static void histogram_even(const char* op, const S* samples, int64_t n, L lower, L upper, int reps,
                           const std::vector<int64_t>& want) {
  if (n > INT32_MAX) {
    std::printf("SKIP cub %s n above int\n", op);
    return;
  }
  int* hist = nullptr;
  CK(cudaMalloc(&hist, 256 * sizeof(int)));
  size_t tmp_bytes = 0;
  CK(cub::DeviceHistogram::HistogramEven(nullptr, tmp_bytes, samples, hist, 257, lower, upper, (int)n, g_stream));
  void* tmp = nullptr;
  CK(cudaMalloc(&tmp, tmp_bytes));
  const double ms = time_ms(reps, [&] {
    CK(cub::DeviceHistogram::HistogramEven(tmp, tmp_bytes, samples, hist, 257, lower, upper, (int)n, g_stream));
  });
  peer("cub", op, ms, (double)n * sizeof(S));
  std::vector<int> got(256);
  CK(cudaMemcpy(got.data(), hist, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  int64_t total = 0, bad = 0;
  for (int b = 0; b < 256; ++b) {
    total += got[b];
    bad += got[b] != want[b];
  }
  std::printf("CHECK cub %s %s total=%lld wrong_bins=%lld\n", op, bad == 0 ? "ok" : "FAIL", (long long)total,
              (long long)bad);
  cudaFree(tmp);
  cudaFree(hist);
}

int main(int argc, char** argv) {
  int64_t n = int64_t{1} << 28;
  int reps = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::atoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  float *x = nullptr, *y = nullptr;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  fill_f32<<<1024, 256, 0, g_stream>>>(x, n, 0x1234);
  fill_f32<<<1024, 256, 0, g_stream>>>(y, n, 0x9876);
  CK(cudaStreamSynchronize(g_stream));
  // The inputs on the host, for the checks.
  std::vector<float> hx(n), hy(n);
  CK(cudaMemcpy(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  double dot_ref = 0, dot_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double p = (double)hx[i] * hy[i];
    dot_ref += p;
    dot_abs += std::fabs(p);
  }
  // cublasSdot: two arrays read, the result to device memory (no host round trip timed).
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::printf("SKIP cublas dot_f32 cublasCreate failed\n");
  } else {
    cublasSetStream(handle, g_stream);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
    // cublasSdot takes an int count: one call when n fits, else int-sized pieces, each
    // writing its own result (their sum is the dot product).
    const int64_t piece = INT32_MAX / 2, pieces = std::max<int64_t>(1, (n + piece - 1) / piece);
    float* r = nullptr;
    CK(cudaMalloc(&r, pieces * sizeof(float)));
    const double ms = time_ms(reps, [&] {
      for (int64_t off = 0; off < n; off += piece) {
        const int len = (int)std::min<int64_t>(n - off, piece);
        cublasSdot(handle, len, x + off, 1, y + off, 1, r + off / piece);
      }
    });
    peer("cublas", "dot_f32", ms, 2.0 * n * sizeof(float));
    std::vector<float> parts(pieces);
    CK(cudaMemcpy(parts.data(), r, pieces * sizeof(float), cudaMemcpyDeviceToHost));
    double got = 0;
    for (float p : parts) got += p;
    check_near("cublas", "dot_f32", got, dot_ref, 1e-5 * dot_abs);
    cudaFree(r);
    cublasDestroy(handle);
  }
  // thrust::inner_product (returns to the host: one synchronous call per run).
  {
    float got = 0;
    const double ms = time_ms(reps, [&] { got = thrust::inner_product(thrust::cuda::par.on(g_stream), x, x + n, y, 0.0f); });
    peer("thrust", "dot_f32", ms, 2.0 * n * sizeof(float));
    check_near("thrust", "dot_f32", got, dot_ref, 1e-5 * dot_abs);
  }
  partition3(x, hx, n, reps);
  {
    unsigned char* b = nullptr;
    CK(cudaMalloc(&b, n));
    to_bytes<<<1024, 256, 0, g_stream>>>(x, b, n);
    // The bins on the host: the byte itself (as to_bytes makes it), and the f32 bin
    // floor((x + 1) * 128) (exact: x is a multiple of 2^-23 in [-1, 1)).
    std::vector<int64_t> want8(256, 0), wantf(256, 0);
    for (int64_t i = 0; i < n; ++i) {
      ++want8[(unsigned char)((hx[i] + 1.0f) * 128.0f)];
      ++wantf[std::min(255, (int)((hx[i] + 1.0f) * 128.0f))];
    }
    histogram_even("hist_u8_256", b, n, 0, 256, reps, want8);
    cudaFree(b);
    histogram_even("hist_f32_256", x, n, -1.0f, 1.0f, reps, wantf);
  }
  half_sum<__nv_bfloat16>("sum_bf16", x, n, reps);
  half_sum<__half>("sum_f16", x, n, reps);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
