// runs_peers.cu - CUB peers of the runs operations (issue 13 item 2): DeviceRunLengthEncode::Encode,
// DeviceSelect::Unique and DeviceReduce::ReduceByKey (sum of f32 values) over i32 keys whose runs
// have random lengths, uniform in [1, 2L-1] (mean L), the same keys as the Rust bench makes from
// the same seed (xorshift64 below, as tests/benches/reduce.rs's `run_data`). Same output lines as
// values_peers.cu (PEER <lib> <op> <median_ms> <gbps>, CHECK, SKIP).
//
// Build (the bench does this):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl -o runs_peers runs_peers.cu
// Usage:
//   runs_peers --n N --reps R --seed S
//
// Timing: outputs and temporary storage allocated once, 3 untimed warm-ups, then R runs each
// bracketed by its own event pair; the median is printed. GB/s count the bytes read: the keys,
// and the values for reduce-by-key (as the issue counts them).

#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

template <class F> static double time_ms(int reps, F f) {
  for (int i = 0; i < 3; ++i) f();
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

// The bench's keys: runs of lengths 1 + next() % (2 * mean - 1) (1 for mean 1), each run's key
// the one before plus 1 + next() % 999 (wrapping), next() the xorshift64 of `seed | 1`.
static std::vector<int32_t> run_data(int64_t n, uint64_t mean, uint64_t seed) {
  uint64_t s = seed | 1;
  auto next = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  std::vector<int32_t> keys;
  keys.reserve(n);
  uint32_t key = 0;
  while ((int64_t)keys.size() < n) {
    const uint64_t len = mean <= 1 ? 1 : 1 + next() % (2 * mean - 1);
    const int64_t take = std::min<int64_t>((int64_t)len, n - (int64_t)keys.size());
    keys.insert(keys.end(), take, (int32_t)key);
    key += (uint32_t)(1 + next() % 999);
  }
  return keys;
}

// The bench's values: the top 5 bits of i times the golden ratio, as f32 (0 to 31).
__global__ void fill_values(float* v, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    v[i] = (float)(((uint64_t)i * 0x9E3779B97F4A7C15ull) >> 59);
}

static int64_t host_runs(const std::vector<int32_t>& k) {
  int64_t r = 0;
  for (size_t i = 0; i < k.size(); ++i) r += i == 0 || k[i] != k[i - 1];
  return r;
}

static void runs(int64_t n, int reps, uint64_t mean, uint64_t seed) {
  char name[64];
  if (n > INT32_MAX) {
    std::printf("SKIP cub rle_i32_runs%llu n above int\n", (unsigned long long)mean);
    return;
  }
  const std::vector<int32_t> host = run_data(n, mean, seed);
  const int64_t want = host_runs(host);
  int32_t *keys = nullptr, *keys_out = nullptr;
  int *counts = nullptr, *num = nullptr;
  float *vals = nullptr, *vals_out = nullptr;
  CK(cudaMalloc(&keys, n * sizeof(int32_t)));
  CK(cudaMalloc(&keys_out, n * sizeof(int32_t)));
  CK(cudaMalloc(&counts, n * sizeof(int)));
  CK(cudaMalloc(&vals, n * sizeof(float)));
  CK(cudaMalloc(&vals_out, n * sizeof(float)));
  CK(cudaMalloc(&num, sizeof(int)));
  CK(cudaMemcpy(keys, host.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice));
  fill_values<<<1024, 256, 0, g_stream>>>(vals, n);
  CK(cudaStreamSynchronize(g_stream));
  const int items = (int)n;
  auto check = [&](const char* op) {
    int got = 0;
    CK(cudaMemcpy(&got, num, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("CHECK cub %s %s runs=%d want=%lld\n", op, got == want ? "ok" : "FAIL", got, (long long)want);
  };
  {
    size_t tmp_bytes = 0;
    CK(cub::DeviceRunLengthEncode::Encode(nullptr, tmp_bytes, keys, keys_out, counts, num, items, g_stream));
    void* tmp = nullptr;
    CK(cudaMalloc(&tmp, tmp_bytes));
    const double ms = time_ms(reps, [&] {
      CK(cub::DeviceRunLengthEncode::Encode(tmp, tmp_bytes, keys, keys_out, counts, num, items, g_stream));
    });
    std::snprintf(name, sizeof(name), "rle_i32_runs%llu", (unsigned long long)mean);
    peer("cub", name, ms, (double)n * sizeof(int32_t));
    check(name);
    cudaFree(tmp);
  }
  {
    size_t tmp_bytes = 0;
    CK(cub::DeviceSelect::Unique(nullptr, tmp_bytes, keys, keys_out, num, items, g_stream));
    void* tmp = nullptr;
    CK(cudaMalloc(&tmp, tmp_bytes));
    const double ms = time_ms(reps, [&] {
      CK(cub::DeviceSelect::Unique(tmp, tmp_bytes, keys, keys_out, num, items, g_stream));
    });
    std::snprintf(name, sizeof(name), "unique_i32_runs%llu", (unsigned long long)mean);
    peer("cub", name, ms, (double)n * sizeof(int32_t));
    check(name);
    cudaFree(tmp);
  }
  {
    size_t tmp_bytes = 0;
    const cuda::std::plus<float> op{};
    CK(cub::DeviceReduce::ReduceByKey(nullptr, tmp_bytes, keys, keys_out, vals, vals_out, num, op, items, g_stream));
    void* tmp = nullptr;
    CK(cudaMalloc(&tmp, tmp_bytes));
    const double ms = time_ms(reps, [&] {
      CK(cub::DeviceReduce::ReduceByKey(tmp, tmp_bytes, keys, keys_out, vals, vals_out, num, op, items, g_stream));
    });
    std::snprintf(name, sizeof(name), "rbk_i32_f32_runs%llu", (unsigned long long)mean);
    peer("cub", name, ms, (double)n * (sizeof(int32_t) + sizeof(float)));
    check(name);
    cudaFree(tmp);
  }
  cudaFree(keys);
  cudaFree(keys_out);
  cudaFree(counts);
  cudaFree(vals);
  cudaFree(vals_out);
  cudaFree(num);
}

int main(int argc, char** argv) {
  int64_t n = int64_t{1} << 28;
  int reps = 20;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--n")) n = std::atoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  for (uint64_t mean : {4ull, 64ull}) runs(n, reps, mean, seed + mean);
  return 0;
}
