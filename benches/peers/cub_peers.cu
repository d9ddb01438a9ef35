// cub_peers.cu - CUB peer benchmarks: times CUB device-wide primitives on fresh random data and prints one
// parseable line per op, so the project's own kernels can be compared against CUB in the same run.
//
// Build:
//   nvcc -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl -o cub_peers cub_peers.cu
//
// Usage:
//   cub_peers --n N --reps R --ops op1,op2,... [--seed S] [--no-check]
//   (N accepts plain integers, "2^28" or "1<<28"; --ops all, or no --ops, runs every op but the
//   sorts; --ops sort runs the sorts)
//
// Output on stdout (everything is flushed line by line):
//   INFO cub ...                            informational (device, CUB version, sizes)
//   PEER cub <op> <median_ms> <gbps>        gbps = counted bytes / median seconds / 1e9
//   CHECK cub <op> ok|FAIL <detail>         rough correctness check against a host computation
//   SKIP cub <op> <reason>                  op unknown, or no CUB primitive for it
// Errors from any CUDA call print file:line to stderr and exit with status 1.

#include <cub/cub.cuh>
#include <cub/version.cuh>
#include <cuda/std/functional>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

// ------------------------------------------------------------------------------------------------
// Error checking
// ------------------------------------------------------------------------------------------------

#define CK(call)                                                                                   \
  do {                                                                                             \
    const cudaError_t ck_err_ = (call);                                                            \
    if (ck_err_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: CUDA error %s (%s) in: %s\n", __FILE__, __LINE__,               \
                   cudaGetErrorName(ck_err_), cudaGetErrorString(ck_err_), #call);                 \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// Every CUB call gets this stream explicitly (a typed cudaStream_t, never a literal 0, so overload
// resolution cannot pick an unexpected CUB overload). nullptr = the legacy default stream.
static cudaStream_t g_stream = nullptr;

// Warm-up before every timed series: at least kWarmup runs and kWarmupMs of wall time. A short
// warm-up is not enough after another op: on the H200 a sum measured right after the copy read
// 4137-4243 GB/s for its first ~20 runs and 4418-4437 after (clocks at 1980 MHz throughout).
static constexpr int kWarmup = 30;
static constexpr double kWarmupMs = 100.0;

// ------------------------------------------------------------------------------------------------
// Options and small helpers
// ------------------------------------------------------------------------------------------------

struct Opts {
  int64_t n = int64_t{1} << 28;
  int reps = 20;
  uint64_t seed = 0x5eed5eedull;
  bool check = true;
  std::vector<std::string> ops;
};

static const char* const kAllOps[] = {
    "copy",           "sum_f32",         "sum_i32",         "max_f32",          "argmax_f32",
    "sumsq_f32",      "count_gt0_f32",   "any_gt0_first",   "any_gt0_none",     "filter_gt0_f32",
    "scan_i32",       "rowsum_f32_32",   "rowsum_f32_256",  "rowsum_f32_4096",  "rowsum_f32_65536",
    "colsum_f32_32",  "colsum_f32_256",  "colsum_f32_4096", "colsum_f32_65536", "transpose_f32",
    "scan_f32",       "scan_rows_f32_32", "scan_rows_f32_4096",
};

// `--ops sort`. Not in `all`: a sort runs tens of times longer than one pass over its keys, and a
// full run (the bandwidth ops) stays as short as it was.
static const char* const kSortOps[] = {
    "sort_u32", "sort_f32", "sort_u64", "argsort_f32", "pairs_u32", "sort_desc_f32",
    "sort_rows_f32_32", "sort_rows_f32_256", "sort_rows_f32_4096", "sort_segments_f32", "group_sum_i32",
    "sort_by_abs_f32", "sort_by_radius_point", "lower_bound_f32", "lower_bound_sorted_f32", "argwhere_f32",
};

static std::string strf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return std::string(buf);
}

static void print_peer(const std::string& op, double ms, double bytes) {
  const double gbps = ms > 0.0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
  std::printf("PEER cub %s %.6f %.3f\n", op.c_str(), ms, gbps);
  std::fflush(stdout);
}

static void print_check(const std::string& op, bool ok, const std::string& detail) {
  std::printf("CHECK cub %s %s %s\n", op.c_str(), ok ? "ok" : "FAIL", detail.c_str());
  std::fflush(stdout);
}

static void print_skip(const std::string& op, const std::string& why) {
  std::printf("SKIP cub %s %s\n", op.c_str(), why.c_str());
  std::fflush(stdout);
}

// splitmix64 finalizer: a good 64-bit mixer, used both for per-op seeds and per-element randoms.
__host__ __device__ inline uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Fresh seed per op: base seed mixed with an FNV-1a hash of the op name.
static uint64_t seed_for(const Opts& o, const std::string& op) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : op) h = (h ^ c) * 0x100000001b3ull;
  return mix64(o.seed ^ h);
}

// Owning device allocation, freed on scope exit (so each op releases its memory).
class DevBuf {
 public:
  explicit DevBuf(size_t bytes) : bytes_(bytes) { CK(cudaMalloc(&p_, bytes ? bytes : 1)); }
  ~DevBuf() {
    if (p_) cudaFree(p_);
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

template <class T>
static std::vector<T> download(const T* d, int64_t count) {
  std::vector<T> h(static_cast<size_t>(count));
  if (count > 0) {
    CK(cudaMemcpy(h.data(), d, static_cast<size_t>(count) * sizeof(T), cudaMemcpyDeviceToHost));
  }
  return h;
}

template <class T>
static T download_one(const T* d) {
  T v{};
  CK(cudaMemcpy(&v, d, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// CUB derives its internal offset type from the num_items type. Pass int (32-bit offsets, what most
// CUB users write) when N fits, int64_t otherwise. `f` is a generic lambda taking the count.
template <class F>
static void with_num_items(int64_t n, F&& f) {
  if (n <= static_cast<int64_t>(INT_MAX)) {
    f(static_cast<int>(n));
  } else {
    f(static_cast<int64_t>(n));
  }
}

// ------------------------------------------------------------------------------------------------
// Random fill (hash based, no curand): floats uniform in [-1,1), ints uniform in [-1000,1000]
// ------------------------------------------------------------------------------------------------

enum FillMode : int { kUniformPm1 = 0, kNegative = 1 };

__global__ void fill_f32_kernel(float* x, int64_t n, uint64_t seed, int mode) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = mix64(seed + static_cast<uint64_t>(i));
    const float u = static_cast<float>(static_cast<uint32_t>(h >> 40)) * (1.0f / 16777216.0f);  // [0,1)
    // kUniformPm1: [-1,1) (exact in fp32); kNegative: (-1.1,-0.1], i.e. every element <= -0.1.
    x[i] = (mode == kUniformPm1) ? (2.0f * u - 1.0f) : (-u - 0.1f);
  }
}

__global__ void fill_i32_kernel(int* x, int64_t n, uint64_t seed) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = mix64(seed + static_cast<uint64_t>(i));
    x[i] = static_cast<int>(h % 2001ull) - 1000;
  }
}

static int fill_grid(int64_t n) {
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int64_t need = (n + 255) / 256;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(need, int64_t{sms} * 32)));
}

static void fill_f32(float* x, int64_t n, uint64_t seed, FillMode mode = kUniformPm1) {
  fill_f32_kernel<<<fill_grid(n), 256, 0, g_stream>>>(x, n, seed, static_cast<int>(mode));
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_stream));
}

static void fill_i32(int* x, int64_t n, uint64_t seed) {
  fill_i32_kernel<<<fill_grid(n), 256, 0, g_stream>>>(x, n, seed);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_stream));
}

// Sort keys: unsigned integers uniform over all their bits; the sequence 0..N-1 (sort values).
template <class T>
__global__ void fill_bits_kernel(T* x, int64_t n, uint64_t seed, bool iota) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    x[i] = static_cast<T>(iota ? static_cast<uint64_t>(i) : mix64(seed + static_cast<uint64_t>(i)));
  }
}

template <class T>
static void fill_bits(T* x, int64_t n, uint64_t seed, bool iota = false) {
  fill_bits_kernel<T><<<fill_grid(n), 256, 0, g_stream>>>(x, n, seed, iota);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_stream));
}

// Sort keys: f32 uniform in [-1,1) (no -0.0, no NaN), integers uniform over all their bits.
template <class K>
static void fill_keys(K* x, int64_t n, uint64_t seed) {
  if constexpr (std::is_same_v<K, float>) {
    fill_f32(x, n, seed);
  } else {
    fill_bits(x, n, seed);
  }
}

// ------------------------------------------------------------------------------------------------
// Timing: warm-up (kWarmup runs and kWarmupMs at least), then `reps` runs each bracketed by its own event pair; median in ms.
// ------------------------------------------------------------------------------------------------

template <class F>
static double median_ms(int reps, F&& run) {
  {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0;; ++i) {
      run();
      if (i + 1 >= kWarmup && i % 8 == 7) {
        CK(cudaStreamSynchronize(g_stream));
        if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() >= kWarmupMs) break;
      }
    }
    CK(cudaStreamSynchronize(g_stream));
  }

  std::vector<cudaEvent_t> beg(reps), end(reps);
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventCreate(&beg[i]));
    CK(cudaEventCreate(&end[i]));
  }
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(beg[i], g_stream));
    run();
    CK(cudaEventRecord(end[i], g_stream));
  }
  CK(cudaEventSynchronize(end[reps - 1]));
  CK(cudaGetLastError());

  std::vector<double> ms(reps);
  for (int i = 0; i < reps; ++i) {
    float t = 0.0f;
    CK(cudaEventElapsedTime(&t, beg[i], end[i]));
    ms[i] = t;
    CK(cudaEventDestroy(beg[i]));
    CK(cudaEventDestroy(end[i]));
  }
  std::sort(ms.begin(), ms.end());
  return (reps % 2 == 1) ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

// ------------------------------------------------------------------------------------------------
// Device functors (namespace scope so they can instantiate CUB kernels)
// ------------------------------------------------------------------------------------------------

struct Square {
  __host__ __device__ float operator()(float v) const { return v * v; }
};

template <class T>
struct GtZeroTo {  // maps x to 1 if x > 0 else 0, in the counter type T
  __host__ __device__ T operator()(float v) const { return v > 0.0f ? T{1} : T{0}; }
};

struct GtZero {
  __host__ __device__ bool operator()(const float& v) const { return v > 0.0f; }
};

template <class OffT>
struct RowStart {  // row r of a row-major matrix with `cols` columns starts at r * cols
  OffT cols;
  __host__ __device__ OffT operator()(OffT r) const { return r * cols; }
};

template <class OffT>
struct RowOf {  // element i of a row-major matrix with `cols` columns is in row i / cols
  OffT cols;
  __host__ __device__ OffT operator()(OffT i) const { return i / cols; }
};

// ------------------------------------------------------------------------------------------------
// Ops
// ------------------------------------------------------------------------------------------------

// copy: D2D memcpy of N f32. bytes = 2*N*4.
static void op_copy(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  const size_t nbytes = static_cast<size_t>(n) * sizeof(float);
  DevBuf src(nbytes), dst(nbytes);
  fill_f32(src.as<float>(), n, seed_for(o, op));

  const double ms = median_ms(o.reps, [&] {
    CK(cudaMemcpyAsync(dst.get(), src.get(), nbytes, cudaMemcpyDeviceToDevice, g_stream));
  });
  print_peer(op, ms, 2.0 * static_cast<double>(nbytes));

  if (o.check) {
    const auto a = download(src.as<float>(), n);
    const auto b = download(dst.as<float>(), n);
    const bool ok = std::memcmp(a.data(), b.data(), nbytes) == 0;
    print_check(op, ok, ok ? "dst==src bitwise" : "dst!=src");
  }
}

// sum_f32: cub::DeviceReduce::Sum. bytes = N*4.
static void op_sum_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), out(sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    size_t tb = 0;
    CK(cub::DeviceReduce::Sum(nullptr, tb, x.as<float>(), out.as<float>(), nn, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceReduce::Sum(tmp.get(), tb, x.as<float>(), out.as<float>(), nn, g_stream));
    });
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    double ref = 0.0, abs_sum = 0.0;
    for (float v : h) {
      ref += v;
      abs_sum += std::fabs(v);
    }
    const double dev = download_one(out.as<float>());
    const double tol = 1e-6 * abs_sum + 1e-2;
    print_check(op, std::fabs(dev - ref) <= tol, strf("dev=%.9g ref=%.9g tol=%.3g", dev, ref, tol));
  }
}

// sum_i32: cub::DeviceReduce::Sum into int32 (wrapping, like the input type). bytes = N*4.
static void op_sum_i32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(int)), out(sizeof(int));
  fill_i32(x.as<int>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    size_t tb = 0;
    CK(cub::DeviceReduce::Sum(nullptr, tb, x.as<int>(), out.as<int>(), nn, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceReduce::Sum(tmp.get(), tb, x.as<int>(), out.as<int>(), nn, g_stream));
    });
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n));

  if (o.check) {
    const auto h = download(x.as<int>(), n);
    int64_t ref64 = 0;
    for (int v : h) ref64 += v;
    const int32_t ref = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(ref64)));
    const int32_t dev = download_one(out.as<int>());
    print_check(op, dev == ref, strf("dev=%d ref=%d (int64 ref %lld)", dev, ref, static_cast<long long>(ref64)));
  }
}

// max_f32: cub::DeviceReduce::Max. bytes = N*4.
static void op_max_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), out(sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    size_t tb = 0;
    CK(cub::DeviceReduce::Max(nullptr, tb, x.as<float>(), out.as<float>(), nn, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceReduce::Max(tmp.get(), tb, x.as<float>(), out.as<float>(), nn, g_stream));
    });
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    const float ref = *std::max_element(h.begin(), h.end());
    const float dev = download_one(out.as<float>());
    print_check(op, dev == ref, strf("dev=%.9g ref=%.9g", dev, ref));
  }
}

// argmax_f32: cub::DeviceReduce::ArgMax. bytes = N*4.
static void op_argmax_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));

  double ms = 0.0;
  float dev_val = 0.0f;
  int64_t dev_idx = -1;
#if CUB_VERSION >= 200800
  // CCCL >= 2.8 (CUDA 13.0 ships CCCL 3.x): overload writing the extremum and its int64 index to two
  // separate outputs: ArgMax(d_temp, bytes, d_in, d_max_out, d_index_out, int64 num_items, stream).
  // The older KeyValuePair<int,T> overload is deprecated (and limited to int num_items).
  DevBuf vmax(sizeof(float)), vidx(sizeof(int64_t));
  const int64_t num_items = n;
  size_t tb = 0;
  CK(cub::DeviceReduce::ArgMax(nullptr, tb, x.as<float>(), vmax.as<float>(), vidx.as<int64_t>(), num_items,
                               g_stream));
  DevBuf tmp(tb);
  ms = median_ms(o.reps, [&] {
    CK(cub::DeviceReduce::ArgMax(tmp.get(), tb, x.as<float>(), vmax.as<float>(), vidx.as<int64_t>(), num_items,
                                 g_stream));
  });
  dev_val = download_one(vmax.as<float>());
  dev_idx = download_one(vidx.as<int64_t>());
#else
  // Pre-2.8 CUB: only the KeyValuePair<int, T> overload exists (int num_items).
  if (n > static_cast<int64_t>(INT_MAX)) {
    print_skip(op, "N>INT_MAX unsupported by this CUB's ArgMax");
    return;
  }
  using KV = cub::KeyValuePair<int, float>;
  DevBuf kv(sizeof(KV));
  const int num_items = static_cast<int>(n);
  size_t tb = 0;
  CK(cub::DeviceReduce::ArgMax(nullptr, tb, x.as<float>(), kv.as<KV>(), num_items, g_stream));
  DevBuf tmp(tb);
  ms = median_ms(o.reps, [&] {
    CK(cub::DeviceReduce::ArgMax(tmp.get(), tb, x.as<float>(), kv.as<KV>(), num_items, g_stream));
  });
  const KV r = download_one(kv.as<KV>());
  dev_val = r.value;
  dev_idx = r.key;
#endif
  print_peer(op, ms, 4.0 * static_cast<double>(n));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    const auto it = std::max_element(h.begin(), h.end());  // first occurrence of the maximum
    const float ref = *it;
    const int64_t ref_idx = static_cast<int64_t>(it - h.begin());
    const bool idx_in_range = dev_idx >= 0 && dev_idx < n;
    // Ties are common (24-bit randoms), so any index holding the maximum is accepted.
    const bool ok = idx_in_range && dev_val == ref && h[static_cast<size_t>(dev_idx)] == ref;
    print_check(op, ok,
                strf("dev_idx=%lld dev_val=%.9g ref_first_idx=%lld ref=%.9g%s", static_cast<long long>(dev_idx),
                     dev_val, static_cast<long long>(ref_idx), ref,
                     (ok && dev_idx != ref_idx) ? " (not first occurrence)" : ""));
  }
}

// sumsq_f32: cub::DeviceReduce::TransformReduce(x -> x*x, +). bytes = N*4.
static void op_sumsq_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), out(sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    size_t tb = 0;
    CK(cub::DeviceReduce::TransformReduce(nullptr, tb, x.as<float>(), out.as<float>(), nn, cuda::std::plus<>{},
                                          Square{}, 0.0f, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceReduce::TransformReduce(tmp.get(), tb, x.as<float>(), out.as<float>(), nn,
                                            cuda::std::plus<>{}, Square{}, 0.0f, g_stream));
    });
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    double ref = 0.0;
    for (float v : h) ref += static_cast<double>(v) * v;
    const double dev = download_one(out.as<float>());
    const double tol = 1e-4 * ref + 1e-3;
    print_check(op, std::fabs(dev - ref) <= tol, strf("dev=%.9g ref=%.9g tol=%.3g", dev, ref, tol));
  }
}

// count_gt0_f32: cub::DeviceReduce::TransformReduce(x -> x>0 ? 1 : 0, +), counter type = num_items
// type (int when N fits, else int64). bytes = N*4.
static void op_count_gt0_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), out(sizeof(int64_t));
  fill_f32(x.as<float>(), n, seed_for(o, op));

  double ms = 0.0;
  int64_t dev = -1;
  with_num_items(n, [&](auto nn) {
    using CountT = decltype(nn);
    size_t tb = 0;
    CK(cub::DeviceReduce::TransformReduce(nullptr, tb, x.as<float>(), out.as<CountT>(), nn, cuda::std::plus<>{},
                                          GtZeroTo<CountT>{}, CountT{0}, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceReduce::TransformReduce(tmp.get(), tb, x.as<float>(), out.as<CountT>(), nn,
                                            cuda::std::plus<>{}, GtZeroTo<CountT>{}, CountT{0}, g_stream));
    });
    dev = static_cast<int64_t>(download_one(out.as<CountT>()));
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    int64_t ref = 0;
    for (float v : h) ref += (v > 0.0f) ? 1 : 0;
    print_check(op, dev == ref,
                strf("dev=%lld ref=%lld", static_cast<long long>(dev), static_cast<long long>(ref)));
  }
}

// filter_gt0_f32: cub::DeviceSelect::If(x > 0), count written to a device counter (no host sync).
// ~50% selectivity. bytes = N*4 read + kept*4 written.
static void op_filter_gt0_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), y(static_cast<size_t>(n) * sizeof(float));
  DevBuf count(sizeof(int64_t));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  CK(cudaMemset(count.get(), 0, sizeof(int64_t)));

  const int64_t num_items = n;
  size_t tb = 0;
  CK(cub::DeviceSelect::If(nullptr, tb, x.as<float>(), y.as<float>(), count.as<int64_t>(), num_items, GtZero{},
                           g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceSelect::If(tmp.get(), tb, x.as<float>(), y.as<float>(), count.as<int64_t>(), num_items, GtZero{},
                             g_stream));
  });
  const int64_t kept = download_one(count.as<int64_t>());
  print_peer(op, ms, 4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(kept));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    std::vector<float> ref;
    ref.reserve(static_cast<size_t>(n / 2 + n / 8 + 16));
    for (float v : h) {
      if (v > 0.0f) ref.push_back(v);
    }
    bool ok = kept == static_cast<int64_t>(ref.size());
    if (ok && kept > 0) {
      const auto got = download(y.as<float>(), kept);
      ok = std::memcmp(got.data(), ref.data(), static_cast<size_t>(kept) * sizeof(float)) == 0;
    }
    print_check(op, ok,
                strf("kept=%lld ref_kept=%lld selectivity=%.4f", static_cast<long long>(kept),
                     static_cast<long long>(ref.size()), n ? static_cast<double>(kept) / n : 0.0));
  }
}

// scan_i32: cub::DeviceScan::InclusiveSum on int32 (wrapping). bytes = 2*N*4.
static void op_scan_i32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(int)), y(static_cast<size_t>(n) * sizeof(int));
  fill_i32(x.as<int>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    size_t tb = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, x.as<int>(), y.as<int>(), nn, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceScan::InclusiveSum(tmp.get(), tb, x.as<int>(), y.as<int>(), nn, g_stream));
    });
  });
  print_peer(op, ms, 8.0 * static_cast<double>(n));

  if (o.check) {
    const auto hx = download(x.as<int>(), n);
    const auto hy = download(y.as<int>(), n);
    uint32_t run = 0;  // wrapping int32 arithmetic, done in uint32 to avoid UB
    int64_t bad = 0, first_bad = -1;
    for (int64_t i = 0; i < n; ++i) {
      run += static_cast<uint32_t>(hx[static_cast<size_t>(i)]);
      if (static_cast<uint32_t>(hy[static_cast<size_t>(i)]) != run) {
        if (first_bad < 0) first_bad = i;
        ++bad;
      }
    }
    print_check(op, bad == 0,
                strf("mismatches=%lld first_bad=%lld last=%d", static_cast<long long>(bad),
                     static_cast<long long>(first_bad), n ? hy.back() : 0));
  }
}

// rowsum_f32_C: cub::DeviceSegmentedReduce::Sum over the N/C rows of a row-major (N/C) x C matrix.
// Segment offsets come from a counting+transform iterator (r*C), so no offsets array is read.
// bytes = N*4 + (N/C)*4.
// Checks an f32 inclusive scan of `h` (restarting every `cols` elements) on a few stretches
// against a running double sum.
static void check_scan_f32(const std::string& op, const std::vector<float>& h, const std::vector<float>& got,
                           int64_t cols) {
  const int64_t n = static_cast<int64_t>(h.size());
  int64_t bad = 0, first_bad = -1;
  double ref = 0.0, abs_sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % cols == 0) ref = abs_sum = 0.0;
    ref += h[static_cast<size_t>(i)];
    abs_sum += std::fabs(h[static_cast<size_t>(i)]);
    if (std::fabs(got[static_cast<size_t>(i)] - ref) > 1e-5 * abs_sum + 1e-3) {
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
  }
  print_check(op, bad == 0, strf("bad=%lld first_bad=%lld", static_cast<long long>(bad), static_cast<long long>(first_bad)));
}

// scan_f32: cub::DeviceScan::InclusiveSum on f32 (single pass, decoupled look-back: how it
// groups tiles depends on timing). bytes = 2*N*4.
static void op_scan_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), y(static_cast<size_t>(n) * sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    size_t tb = 0;
    CK(cub::DeviceScan::InclusiveSum(nullptr, tb, x.as<float>(), y.as<float>(), nn, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceScan::InclusiveSum(tmp.get(), tb, x.as<float>(), y.as<float>(), nn, g_stream));
    });
  });
  print_peer(op, ms, 8.0 * static_cast<double>(n));
  if (o.check) check_scan_f32(op, download(x.as<float>(), n), download(y.as<float>(), n), n);
}

// scan_rows_f32_<C>: the inclusive scan of each row of C elements, by
// cub::DeviceScan::InclusiveSumByKey with the row number as the key (computed, not read).
// bytes = 2*N*4.
static void op_scan_rows_f32(const Opts& o, const std::string& op, int64_t cols) {
  const int64_t n = o.n;
  if (n % cols != 0) {
    print_skip(op, strf("N=%lld not divisible by C=%lld", static_cast<long long>(n), static_cast<long long>(cols)));
    return;
  }
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), y(static_cast<size_t>(n) * sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    using OffT = decltype(nn);
    auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<OffT>(0),
                                                RowOf<OffT>{static_cast<OffT>(cols)});
    size_t tb = 0;
    CK(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, keys, x.as<float>(), y.as<float>(), nn,
                                          cuda::std::equal_to<>{}, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceScan::InclusiveSumByKey(tmp.get(), tb, keys, x.as<float>(), y.as<float>(), nn,
                                            cuda::std::equal_to<>{}, g_stream));
    });
  });
  print_peer(op, ms, 8.0 * static_cast<double>(n));
  if (o.check) check_scan_f32(op, download(x.as<float>(), n), download(y.as<float>(), n), cols);
}

static void op_rowsum_f32(const Opts& o, const std::string& op, int64_t cols) {
  const int64_t n = o.n;
  if (cols <= 0 || n % cols != 0) {
    print_skip(op, strf("N=%lld not divisible by C=%lld", static_cast<long long>(n), static_cast<long long>(cols)));
    return;
  }
  const int64_t rows = n / cols;
  if (rows > static_cast<int64_t>(INT_MAX)) {
    print_skip(op, "too many rows for int num_segments");
    return;
  }
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), out(static_cast<size_t>(rows) * sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    using OffT = decltype(nn);  // int offsets when N fits in int, else int64
    (void)nn;
    auto begin = thrust::make_transform_iterator(thrust::make_counting_iterator<OffT>(0),
                                                 RowStart<OffT>{static_cast<OffT>(cols)});
    auto end = begin + 1;
    const int num_segments = static_cast<int>(rows);
    size_t tb = 0;
    CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, x.as<float>(), out.as<float>(), num_segments, begin, end,
                                       g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceSegmentedReduce::Sum(tmp.get(), tb, x.as<float>(), out.as<float>(), num_segments, begin, end,
                                         g_stream));
    });
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(rows));

  if (o.check) {
    const auto h = download(x.as<float>(), n);
    const auto got = download(out.as<float>(), rows);
    int64_t bad = 0, first_bad = -1;
    double first_dev = 0.0, first_ref = 0.0;
    for (int64_t r = 0; r < rows; ++r) {
      double ref = 0.0, abs_sum = 0.0;
      const float* row = h.data() + static_cast<size_t>(r * cols);
      for (int64_t c = 0; c < cols; ++c) {
        ref += row[c];
        abs_sum += std::fabs(row[c]);
      }
      const double dev = got[static_cast<size_t>(r)];
      if (std::fabs(dev - ref) > 1e-5 * abs_sum + 1e-5) {
        if (first_bad < 0) {
          first_bad = r;
          first_dev = dev;
          first_ref = ref;
        }
        ++bad;
      }
    }
    std::string detail = strf("rows=%lld bad_rows=%lld", static_cast<long long>(rows), static_cast<long long>(bad));
    if (bad > 0) {
      detail += strf(" first_bad=%lld dev=%.9g ref=%.9g", static_cast<long long>(first_bad), first_dev, first_ref);
    }
    print_check(op, bad == 0, detail);
  }
}

// ------------------------------------------------------------------------------------------------
// Sorts: cub::DeviceRadixSort in its plain form, keys_in -> keys_out (not the DoubleBuffer form: the
// product under test writes a separate output too; CUB then keeps its alternate buffer in the
// temporary storage), over the full key (begin_bit 0, end_bit the key's bits: CUB's defaults,
// passed because the stream comes after them). Temporary storage allocated once per op.
// ------------------------------------------------------------------------------------------------

// The bits of a key, widened: their wrapping sum over all keys is a checksum of the multiset.
template <class K>
static uint64_t key_bits(K k) {
  std::conditional_t<sizeof(K) == 8, uint64_t, uint32_t> u;
  static_assert(sizeof(u) == sizeof(K), "4- or 8-byte keys");
  std::memcpy(&u, &k, sizeof(K));
  return u;
}

// Checks a sort on the host: `out` in order (non-decreasing; non-increasing if `descending`) with
// the checksum of `in`. With `vals` (the values sorted along, which were 0..N-1) also: that they sum
// to N(N-1)/2, that equal keys kept their input order (CUB's radix sort is stable) and that
// out[i] == in[vals[i]] at 1000 random positions i.
template <class K>
static void check_sort(const std::string& op, uint64_t seed, const std::vector<K>& in, const std::vector<K>& out,
                       bool descending, const std::vector<uint32_t>* vals = nullptr) {
  const int64_t n = static_cast<int64_t>(out.size());
  int64_t disorder = 0, first_bad = -1, unstable = 0;
  uint64_t sum_in = 0, sum_out = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    sum_in += key_bits(in[i]);
    sum_out += key_bits(out[i]);
    if (i == 0) continue;
    if (descending ? out[i - 1] < out[i] : out[i] < out[i - 1]) {
      if (first_bad < 0) first_bad = static_cast<int64_t>(i);
      ++disorder;
    }
    if (vals && key_bits(out[i - 1]) == key_bits(out[i]) && (*vals)[i - 1] >= (*vals)[i]) ++unstable;
  }
  bool ok = disorder == 0 && sum_in == sum_out;
  std::string detail = strf("out_of_order=%lld first_bad=%lld checksum=%s", static_cast<long long>(disorder),
                            static_cast<long long>(first_bad), sum_in == sum_out ? "match" : "MISMATCH");
  if (vals) {
    uint64_t vsum = 0;
    for (uint32_t v : *vals) vsum += v;
    const uint64_t vref = static_cast<uint64_t>(n) * static_cast<uint64_t>(n - 1) / 2;  // N <= 2^32
    int mismatched = 0;
    for (uint64_t j = 0; j < 1000 && n > 0; ++j) {
      const size_t i = static_cast<size_t>(mix64(seed + j) % static_cast<uint64_t>(n));
      const uint32_t v = (*vals)[i];
      if (static_cast<int64_t>(v) >= n || key_bits(in[v]) != key_bits(out[i])) ++mismatched;
    }
    ok = ok && vsum == vref && unstable == 0 && mismatched == 0;
    detail += strf(" value_sum=%s unstable=%lld sampled_mismatches=%d/1000", vsum == vref ? "ok" : "WRONG",
                   static_cast<long long>(unstable), mismatched);
  }
  print_check(op, ok, detail);
}

// sort_u32, sort_f32, sort_u64 (K = uint32_t, float, uint64_t): cub::DeviceRadixSort::SortKeys;
// sort_desc_f32: SortKeysDescending<float>. bytes = 2*N*sizeof(K).
template <class K>
static void op_sort_keys(const Opts& o, const std::string& op, bool descending) {
  const int64_t n = o.n;
  const size_t nbytes = static_cast<size_t>(n) * sizeof(K);
  DevBuf in(nbytes), out(nbytes);
  fill_keys(in.as<K>(), n, seed_for(o, op));

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    constexpr int kEndBit = static_cast<int>(sizeof(K) * 8);
    const auto sort = [&](void* tmp, size_t& tb) {
      return descending
                 ? cub::DeviceRadixSort::SortKeysDescending(tmp, tb, in.as<K>(), out.as<K>(), nn, 0, kEndBit, g_stream)
                 : cub::DeviceRadixSort::SortKeys(tmp, tb, in.as<K>(), out.as<K>(), nn, 0, kEndBit, g_stream);
    };
    size_t tb = 0;
    CK(sort(nullptr, tb));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] { CK(sort(tmp.get(), tb)); });
  });
  print_peer(op, ms, 2.0 * static_cast<double>(nbytes));

  if (o.check) check_sort(op, seed_for(o, op), download(in.as<K>(), n), download(out.as<K>(), n), descending);
}

// argsort_f32 (K = float), pairs_u32 (K = uint32_t): cub::DeviceRadixSort::SortPairs<K, uint32_t>
// with the values 0..N-1 (filled before, not timed), so the sorted values are the argsort.
// bytes = 2*N*(sizeof(K) + 4).
template <class K>
static void op_sort_pairs(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  if (n > (int64_t{1} << 32)) {
    print_skip(op, "N>2^32: u32 values cannot index N keys");
    return;
  }
  const size_t kbytes = static_cast<size_t>(n) * sizeof(K), vbytes = static_cast<size_t>(n) * sizeof(uint32_t);
  DevBuf kin(kbytes), kout(kbytes), vin(vbytes), vout(vbytes);
  fill_keys(kin.as<K>(), n, seed_for(o, op));
  fill_bits(vin.as<uint32_t>(), n, 0, /*iota=*/true);

  double ms = 0.0;
  with_num_items(n, [&](auto nn) {
    constexpr int kEndBit = static_cast<int>(sizeof(K) * 8);
    size_t tb = 0;
    CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, kin.as<K>(), kout.as<K>(), vin.as<uint32_t>(),
                                       vout.as<uint32_t>(), nn, 0, kEndBit, g_stream));
    DevBuf tmp(tb);
    ms = median_ms(o.reps, [&] {
      CK(cub::DeviceRadixSort::SortPairs(tmp.get(), tb, kin.as<K>(), kout.as<K>(), vin.as<uint32_t>(),
                                         vout.as<uint32_t>(), nn, 0, kEndBit, g_stream));
    });
  });
  print_peer(op, ms, 2.0 * static_cast<double>(kbytes + vbytes));

  if (o.check) {
    const auto vals = download(vout.as<uint32_t>(), n);
    check_sort(op, seed_for(o, op), download(kin.as<K>(), n), download(kout.as<K>(), n), false, &vals);
  }
}

// The segmented sort of N f32 keys cut by the CSR offsets `h` (from 0 to n), by
// cub::DeviceSegmentedSort::SortKeys. bytes = 2*N*4. Checked: every segment in order, and the
// checksum of each segment's keys.
static void segmented_sort(const Opts& o, const std::string& op, int64_t n, const std::vector<int>& h) {
  const int64_t segs = static_cast<int64_t>(h.size()) - 1;
  const size_t nbytes = static_cast<size_t>(n) * sizeof(float);
  DevBuf in(nbytes), out(nbytes), offs(h.size() * sizeof(int));
  fill_keys(in.as<float>(), n, seed_for(o, op));
  CK(cudaMemcpy(offs.get(), h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  const int* begin = offs.as<int>();
  size_t tb = 0;
  CK(cub::DeviceSegmentedSort::SortKeys(nullptr, tb, in.as<float>(), out.as<float>(), static_cast<int>(n),
                                        static_cast<int>(segs), begin, begin + 1, g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceSegmentedSort::SortKeys(tmp.get(), tb, in.as<float>(), out.as<float>(), static_cast<int>(n),
                                          static_cast<int>(segs), begin, begin + 1, g_stream));
  });
  print_peer(op, ms, 2.0 * static_cast<double>(nbytes));
  if (o.check) {
    const auto a = download(in.as<float>(), n), b = download(out.as<float>(), n);
    int64_t bad = 0;
    for (int64_t s = 0; s < segs; ++s) {
      uint64_t sa = 0, sb = 0;
      bool ordered = true;
      for (int64_t i = h[s]; i < h[s + 1]; ++i) {
        sa += key_bits(a[i]);
        sb += key_bits(b[i]);
        if (i > h[s] && b[i] < b[i - 1]) ordered = false;
      }
      if (!ordered || sa != sb) ++bad;
    }
    print_check(op, bad == 0, strf("bad_segments=%lld of %lld", static_cast<long long>(bad), static_cast<long long>(segs)));
  }
}

// sort_rows_f32_<C>: each row of C f32 keys (N/C rows) sorted, the rows as segments (int
// offsets 0, C, 2C, ...).
static void op_sort_rows(const Opts& o, const std::string& op, int64_t cols) {
  const int64_t n = o.n / cols * cols, rows = n / cols;
  if (n > INT_MAX) {
    print_skip(op, "N>2^31: DeviceSegmentedSort takes int item counts");
    return;
  }
  std::vector<int> h(rows + 1);
  for (int64_t r = 0; r <= rows; ++r) h[r] = static_cast<int>(r * cols);
  segmented_sort(o, op, n, h);
}

// sort_segments_f32: N f32 keys in CSR segments of random lengths, segment i of
// 1 + mix64(i) % 400 keys (the last cut at N), as the warp-dsl bench cuts them.
static void op_sort_segments(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  if (n > INT_MAX) {
    print_skip(op, "N>2^31: DeviceSegmentedSort takes int item counts");
    return;
  }
  std::vector<int> h = {0};
  for (int64_t at = 0, i = 0; at < n; ++i) {
    at = std::min<int64_t>(n, at + 1 + static_cast<int64_t>(mix64(static_cast<uint64_t>(i)) % 400));
    h.push_back(static_cast<int>(at));
  }
  segmented_sort(o, op, n, h);
}

// The merge sort's order: by magnitude.
struct AbsLess {
  __device__ bool operator()(float a, float b) const { return fabsf(a) < fabsf(b); }
};

// sort_by_abs_f32: N f32 keys sorted by magnitude, cub::DeviceMergeSort::SortKeysCopy with a
// comparator (what warp-dsl's sort_by does with a #[predicate(inputs = 2)]). bytes = 2*N*4.
// Checked: magnitudes non-decreasing, and the checksum of the keys.
static void op_sort_by_abs(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  if (n > INT_MAX) {
    print_skip(op, "N>2^31: int item counts");
    return;
  }
  const size_t nbytes = static_cast<size_t>(n) * sizeof(float);
  DevBuf in(nbytes), out(nbytes);
  fill_keys(in.as<float>(), n, seed_for(o, op));
  size_t tb = 0;
  CK(cub::DeviceMergeSort::SortKeysCopy(nullptr, tb, in.as<float>(), out.as<float>(), static_cast<int>(n), AbsLess{},
                                        g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceMergeSort::SortKeysCopy(tmp.get(), tb, in.as<float>(), out.as<float>(), static_cast<int>(n),
                                          AbsLess{}, g_stream));
  });
  print_peer(op, ms, 2.0 * static_cast<double>(nbytes));
  if (o.check) {
    const auto a = download(in.as<float>(), n), b = download(out.as<float>(), n);
    uint64_t sa = 0, sb = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      sa += key_bits(a[i]);
      sb += key_bits(b[i]);
      if (i && std::fabs(b[i]) < std::fabs(b[i - 1])) ++bad;
    }
    print_check(op, bad == 0 && sa == sb, strf("out_of_order=%lld checksum=%s", static_cast<long long>(bad),
                                               sa == sb ? "match" : "differ"));
  }
}

// The merge sort's order of points: by distance from the origin (no fused multiply-add, as
// warp-dsl's --fmad=false).
struct RadiusLess {
  __device__ bool operator()(float2 a, float2 b) const {
    return __fadd_rn(__fmul_rn(a.x, a.x), __fmul_rn(a.y, a.y)) < __fadd_rn(__fmul_rn(b.x, b.x), __fmul_rn(b.y, b.y));
  }
};

// sort_by_radius_point: N points {x, y} (f32 in [-1, 1)) sorted by radius,
// cub::DeviceMergeSort::SortKeysCopy of float2 with a comparator (what warp-dsl's sort_by does
// over a DeviceTuples of #[derive(DeviceValue)] structs). bytes = 2*N*8. Checked: radii
// non-decreasing, and the checksum of the coordinates.
static void op_sort_by_radius(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  if (n > INT_MAX) {
    print_skip(op, "N>2^31: int item counts");
    return;
  }
  const size_t nbytes = static_cast<size_t>(n) * sizeof(float2);
  DevBuf in(nbytes), out(nbytes);
  fill_keys(in.as<float>(), 2 * n, seed_for(o, op));
  size_t tb = 0;
  CK(cub::DeviceMergeSort::SortKeysCopy(nullptr, tb, in.as<float2>(), out.as<float2>(), static_cast<int>(n),
                                        RadiusLess{}, g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceMergeSort::SortKeysCopy(tmp.get(), tb, in.as<float2>(), out.as<float2>(), static_cast<int>(n),
                                          RadiusLess{}, g_stream));
  });
  print_peer(op, ms, 2.0 * static_cast<double>(nbytes));
  if (o.check) {
    const auto a = download(in.as<float>(), 2 * n), b = download(out.as<float>(), 2 * n);
    uint64_t sa = 0, sb = 0;
    int64_t bad = 0;
    for (int64_t i = 0; i < 2 * n; ++i) {
      sa += key_bits(a[i]);
      sb += key_bits(b[i]);
    }
    for (int64_t i = 1; i < n; ++i) {
      const float r0 = b[2 * i - 2] * b[2 * i - 2] + b[2 * i - 1] * b[2 * i - 1];
      const float r1 = b[2 * i] * b[2 * i] + b[2 * i + 1] * b[2 * i + 1];
      if (r1 < r0) ++bad;
    }
    print_check(op, bad == 0 && sa == sb, strf("out_of_order=%lld checksum=%s", static_cast<long long>(bad),
                                               sa == sb ? "match" : "differ"));
  }
}

// lower_bound_f32 / lower_bound_sorted_f32: N/16 f32 queries (random, or sorted) searched in N
// sorted f32 keys, thrust::lower_bound (vectorized, u32 answers) on the stream. bytes = 8 per
// query (each read once, each answer written once). Checked: every answer against its
// neighbours in the sorted keys.
static void op_lower_bound(const Opts& o, const std::string& op, bool sorted_queries) {
  const int64_t n = o.n, m = n / 16;
  DevBuf keys(static_cast<size_t>(n) * 4), tmp(static_cast<size_t>(n) * 4), qs(static_cast<size_t>(m) * 4),
      out(static_cast<size_t>(m) * 4);
  const uint64_t seed = seed_for(o, op);
  fill_keys(tmp.as<float>(), n, seed);
  fill_keys(qs.as<float>(), m, seed + 1);
  size_t tb = 0;
  CK(cub::DeviceRadixSort::SortKeys(nullptr, tb, tmp.as<float>(), keys.as<float>(), n, 0, 32, g_stream));
  {
    DevBuf t(tb);
    CK(cub::DeviceRadixSort::SortKeys(t.get(), tb, tmp.as<float>(), keys.as<float>(), n, 0, 32, g_stream));
    if (sorted_queries) {
      CK(cub::DeviceRadixSort::SortKeys(t.get(), tb, qs.as<float>(), tmp.as<float>(), m, 0, 32, g_stream));
      CK(cudaMemcpyAsync(qs.get(), tmp.get(), static_cast<size_t>(m) * 4, cudaMemcpyDeviceToDevice, g_stream));
    }
    CK(cudaStreamSynchronize(g_stream));
  }
  const float* k = keys.as<float>();
  const float* q = qs.as<float>();
  uint32_t* r = out.as<uint32_t>();
  const double ms = median_ms(o.reps, [&] { thrust::lower_bound(thrust::cuda::par.on(g_stream), k, k + n, q, q + m, r); });
  print_peer(op, ms, 8.0 * static_cast<double>(m));
  if (o.check) {
    const auto kh = download(keys.as<float>(), n), qh = download(qs.as<float>(), m);
    const auto rh = download(out.as<uint32_t>(), m);
    int64_t bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t at = rh[i];
      if (at > n || (at > 0 && !(kh[at - 1] < qh[i])) || (at < n && kh[at] < qh[i])) ++bad;
    }
    print_check(op, bad == 0, strf("bad=%lld of %lld", static_cast<long long>(bad), static_cast<long long>(m)));
  }
}

// argwhere_f32: the positions i with x[i] > 0.8 (x uniform in [-1, 1): 10% kept), as CUB
// selects them: cub::DeviceSelect::If over a counting iterator, the selector reading x[i]; int32
// positions, count to a device counter. bytes = N*4 read + kept*4 written. Checked in full.
struct AboveAt {
  const float* x;
  __device__ bool operator()(int i) const { return x[i] > 0.8f; }
};

static void op_argwhere_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), y(static_cast<size_t>(n) * sizeof(int));
  DevBuf count(sizeof(int64_t));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  const thrust::counting_iterator<int> first(0);
  const AboveAt sel{x.as<float>()};
  size_t tb = 0;
  CK(cub::DeviceSelect::If(nullptr, tb, first, y.as<int>(), count.as<int64_t>(), n, sel, g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceSelect::If(tmp.get(), tb, first, y.as<int>(), count.as<int64_t>(), n, sel, g_stream));
  });
  const int64_t kept = download_one(count.as<int64_t>());
  print_peer(op, ms, 4.0 * static_cast<double>(n) + 4.0 * static_cast<double>(kept));
  if (o.check) {
    const auto h = download(x.as<float>(), n);
    std::vector<int> ref;
    for (int64_t i = 0; i < n; ++i) {
      if (h[i] > 0.8f) ref.push_back(static_cast<int>(i));
    }
    bool ok = kept == static_cast<int64_t>(ref.size());
    if (ok && kept > 0) {
      const auto got = download(y.as<int>(), kept);
      ok = std::memcmp(got.data(), ref.data(), static_cast<size_t>(kept) * sizeof(int)) == 0;
    }
    print_check(op, ok, strf("kept=%lld ref_kept=%lld", static_cast<long long>(kept), static_cast<long long>(ref.size())));
  }
}

// The Monte-Carlo hit of index i (warp-dsl's tests/src/ops.rs `pi_hit`, its f32 arithmetic
// unfused as warp-dsl's --fmad=false): 1 when the point of the unit square hashed from i lies
// inside the quarter disc.
struct PiHit {
  __host__ __device__ uint32_t operator()(uint64_t i) const {
    uint64_t h = i * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    const float s = 1.0f / 16777216.0f;
    const float x = static_cast<float>(h >> 40) * s, y = static_cast<float>((h >> 16) & 0xffffffull) * s;
#ifdef __CUDA_ARCH__
    return __fadd_rn(__fmul_rn(x, x), __fmul_rn(y, y)) < 1.0f ? 1u : 0u;
#else
    return x * x + y * y < 1.0f ? 1u : 0u;
#endif
  }
};

// The midpoint rule's step i of the Gauss integral over [0, 1) in N steps of width h (`gauss_step`).
struct GaussStep {
  double h;
  __host__ __device__ double operator()(uint64_t i) const {
    const double x = (static_cast<double>(i) + 0.5) * h;
    return exp(-(x * x)) * h;
  }
};

// range_pi_u32: the Monte-Carlo hits of N generated indices, cub::DeviceReduce::TransformReduce
// over a counting iterator (nothing read; bytes = 0). Checked: the count against the host's.
static void op_range_pi(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf out(sizeof(uint32_t));
  const thrust::counting_iterator<uint64_t> first(0);
  size_t tb = 0;
  CK(cub::DeviceReduce::TransformReduce(nullptr, tb, first, out.as<uint32_t>(), n, cuda::std::plus<>{}, PiHit{}, 0u,
                                        g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceReduce::TransformReduce(tmp.get(), tb, first, out.as<uint32_t>(), n, cuda::std::plus<>{}, PiHit{},
                                          0u, g_stream));
  });
  print_peer(op, ms, 0.0);
  if (o.check) {
    const uint32_t got = download_one(out.as<uint32_t>());
    uint64_t want = 0;
    for (int64_t i = 0; i < n; ++i) want += PiHit{}(static_cast<uint64_t>(i));
    print_check(op, got == static_cast<uint32_t>(want),
                strf("hits=%u host=%llu", got, static_cast<unsigned long long>(want)));
  }
}

// range_gauss_f64: the midpoint rule over N generated indices, the same TransformReduce with an
// f64 step (nothing read; bytes = 0). Checked: within 1e-9 of sqrt(pi)/2 * erf(1).
static void op_range_gauss(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf out(sizeof(double));
  const thrust::counting_iterator<uint64_t> first(0);
  const GaussStep step{1.0 / static_cast<double>(n)};
  size_t tb = 0;
  CK(cub::DeviceReduce::TransformReduce(nullptr, tb, first, out.as<double>(), n, cuda::std::plus<>{}, step, 0.0,
                                        g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceReduce::TransformReduce(tmp.get(), tb, first, out.as<double>(), n, cuda::std::plus<>{}, step, 0.0,
                                          g_stream));
  });
  print_peer(op, ms, 0.0);
  if (o.check) {
    const double got = download_one(out.as<double>()), want = std::sqrt(M_PI) / 2.0 * std::erf(1.0);
    print_check(op, std::fabs(got - want) < 1e-9, strf("integral=%.15f exact=%.15f", got, want));
  }
}

// Random gather indices: idx[i] uniform over [0, n) from the op's seed.
__global__ void gather_indices_kernel(uint32_t* idx, int64_t n, uint64_t seed) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    idx[i] = static_cast<uint32_t>(mix64(seed + static_cast<uint64_t>(i)) % static_cast<uint64_t>(n));
  }
}

// gather_sum_f32: the sum of x[idx[i]] over N random u32 indices into N f32 in [-1, 1) (thrust's
// reduce over a permutation iterator, called here as the CUB it runs:
// cub::DeviceReduce::Sum over thrust::make_permutation_iterator). bytes = 8*N (each index and the
// element it names read once). Checked: within 1e-3 of the host's f64 sum.
static void op_gather_sum_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), idx(static_cast<size_t>(n) * sizeof(uint32_t));
  DevBuf out(sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  gather_indices_kernel<<<fill_grid(n), 256, 0, g_stream>>>(idx.as<uint32_t>(), n, seed_for(o, op) + 1);
  CK(cudaGetLastError());
  const auto first = thrust::make_permutation_iterator(x.as<float>(), idx.as<uint32_t>());
  size_t tb = 0;
  CK(cub::DeviceReduce::Sum(nullptr, tb, first, out.as<float>(), n, g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceReduce::Sum(tmp.get(), tb, first, out.as<float>(), n, g_stream));
  });
  print_peer(op, ms, 8.0 * static_cast<double>(n));
  if (o.check) {
    const auto hx = download(x.as<float>(), n);
    const auto hi = download(idx.as<uint32_t>(), n);
    double want = 0.0;
    for (int64_t i = 0; i < n; ++i) want += hx[hi[i]];
    const double got = download_one(out.as<float>());
    print_check(op, std::fabs(got - want) < 1e-3 * std::sqrt(static_cast<double>(n)) + 1.0,
                strf("sum=%.6f host=%.6f", got, want));
  }
}

// strided_sum_f32: the sum of every 4th of N f32 in [-1, 1) (x[::4]): cub::DeviceReduce::Sum over
// a transform iterator that reads x[4 * i] for a counting iterator i (what thrust's strided
// range does). bytes = 4*N (every 32-byte sector holds two of the elements read, so all of x is
// fetched). Checked: within 1e-3*sqrt(N/4)+1 of the host's f64 sum.
struct StridedRead {
  const float* x;
  int64_t step;
  __host__ __device__ float operator()(int64_t i) const { return x[i * step]; }
};

static void op_strided_sum_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n, step = 4, m = (n + step - 1) / step;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), out(sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  const auto first = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                     StridedRead{x.as<float>(), step});
  size_t tb = 0;
  CK(cub::DeviceReduce::Sum(nullptr, tb, first, out.as<float>(), m, g_stream));
  DevBuf tmp(tb);
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceReduce::Sum(tmp.get(), tb, first, out.as<float>(), m, g_stream));
  });
  print_peer(op, ms, 4.0 * static_cast<double>(n));
  if (o.check) {
    const auto hx = download(x.as<float>(), n);
    double want = 0.0;
    for (int64_t i = 0; i < n; i += step) want += hx[i];
    const double got = download_one(out.as<float>());
    print_check(op, std::fabs(got - want) < 1e-3 * std::sqrt(static_cast<double>(m)) + 1.0,
                strf("sum=%.6f host=%.6f", got, want));
  }
}

// gather_f32: out[i] = x[idx[i]] for N random u32 indices into N f32 (x[idx] materialised),
// thrust::gather. bytes = 12*N (each index and the element it names read, each written).
// Checked: every element against the host's gather.
static void op_gather_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf x(static_cast<size_t>(n) * sizeof(float)), idx(static_cast<size_t>(n) * sizeof(uint32_t));
  DevBuf out(static_cast<size_t>(n) * sizeof(float));
  fill_f32(x.as<float>(), n, seed_for(o, op));
  gather_indices_kernel<<<fill_grid(n), 256, 0, g_stream>>>(idx.as<uint32_t>(), n, seed_for(o, op) + 1);
  CK(cudaGetLastError());
  const double ms = median_ms(o.reps, [&] {
    thrust::gather(thrust::cuda::par.on(g_stream), idx.as<uint32_t>(), idx.as<uint32_t>() + n,
                   x.as<float>(), out.as<float>());
  });
  print_peer(op, ms, 12.0 * static_cast<double>(n));
  if (o.check) {
    const auto hx = download(x.as<float>(), n);
    const auto hi = download(idx.as<uint32_t>(), n);
    const auto ho = download(out.as<float>(), n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += ho[i] != hx[hi[i]];
    print_check(op, bad == 0, strf("%lld elements differ", static_cast<long long>(bad)));
  }
}

// scatter_f32: N f32 values written to the places N random u32 indices in [0, N) name (repeats
// among them), thrust::scatter. bytes = 12*N (each index and value read, each value written).
// Checked: at 8 sampled places an index names, the place holds one of the values scattered
// to it.
static void op_scatter_f32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  DevBuf v(static_cast<size_t>(n) * sizeof(float)), idx(static_cast<size_t>(n) * sizeof(uint32_t));
  DevBuf out(static_cast<size_t>(n) * sizeof(float));
  fill_f32(v.as<float>(), n, seed_for(o, op));
  gather_indices_kernel<<<fill_grid(n), 256, 0, g_stream>>>(idx.as<uint32_t>(), n, seed_for(o, op) + 1);
  CK(cudaGetLastError());
  const double ms = median_ms(o.reps, [&] {
    thrust::scatter(thrust::cuda::par.on(g_stream), v.as<float>(), v.as<float>() + n,
                    idx.as<uint32_t>(), out.as<float>());
  });
  print_peer(op, ms, 12.0 * static_cast<double>(n));
  if (o.check) {
    const auto hv = download(v.as<float>(), n);
    const auto hi = download(idx.as<uint32_t>(), n);
    const auto ho = download(out.as<float>(), n);
    // 8 sampled places; one pass collects every value scattered to each.
    std::vector<uint32_t> places;
    for (int64_t s = 0; s < 8 && s < n; ++s) places.push_back(hi[(s * 2654435761LL) % n]);
    std::vector<bool> found(places.size(), false);
    for (int64_t j = 0; j < n; ++j)
      for (size_t k = 0; k < places.size(); ++k)
        if (hi[j] == places[k] && hv[j] == ho[places[k]]) found[k] = true;
    bool ok = true;
    for (bool f : found) ok = ok && f;
    print_check(op, ok, "8 places hold a value scattered to them");
  }
}

// The group-by's input: keys uniform over [0, 2^20), values in [-100, 100].
__global__ void group_inputs_kernel(uint32_t* keys, uint32_t* vals, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    keys[i] &= 0xFFFFFu;
    vals[i] = static_cast<uint32_t>(static_cast<int>(vals[i] % 201u) - 100);
  }
}

// group_sum_i32: the sum per distinct key of N unsorted i32 keys in [0, 2^20) with i32 values:
// cub::DeviceRadixSort::SortPairs over the keys' 20 low bits, then cub::DeviceReduce::ReduceByKey
// (sum), both timed. bytes = 8*N (each key and value read once). Checked: the number of groups,
// their keys and every group's sum against the host.
static void op_group_sum_i32(const Opts& o, const std::string& op) {
  const int64_t n = o.n;
  if (n > INT_MAX) {
    print_skip(op, "N>2^31: int item counts");
    return;
  }
  const size_t b = static_cast<size_t>(n) * 4;
  DevBuf kin(b), vin(b), kout(b), vout(b), ukeys(b), sums(b), runs(sizeof(int));
  const uint64_t seed = seed_for(o, op);
  fill_bits(kin.as<uint32_t>(), n, seed);
  fill_bits(vin.as<uint32_t>(), n, seed + 1);
  group_inputs_kernel<<<fill_grid(n), 256, 0, g_stream>>>(kin.as<uint32_t>(), vin.as<uint32_t>(), n);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(g_stream));
  const int items = static_cast<int>(n);
  size_t t1 = 0, t2 = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, t1, kin.as<int>(), kout.as<int>(), vin.as<int>(), vout.as<int>(), items,
                                     0, 20, g_stream));
  CK(cub::DeviceReduce::ReduceByKey(nullptr, t2, kout.as<int>(), ukeys.as<int>(), vout.as<int>(), sums.as<int>(),
                                    runs.as<int>(), cuda::std::plus<int>{}, items, g_stream));
  DevBuf tmp(std::max(t1, t2));
  const double ms = median_ms(o.reps, [&] {
    CK(cub::DeviceRadixSort::SortPairs(tmp.get(), t1, kin.as<int>(), kout.as<int>(), vin.as<int>(), vout.as<int>(),
                                       items, 0, 20, g_stream));
    CK(cub::DeviceReduce::ReduceByKey(tmp.get(), t2, kout.as<int>(), ukeys.as<int>(), vout.as<int>(), sums.as<int>(),
                                      runs.as<int>(), cuda::std::plus<int>{}, items, g_stream));
  });
  print_peer(op, ms, static_cast<double>(2 * b));
  if (o.check) {
    const auto k = download(kin.as<int>(), n), v = download(vin.as<int>(), n);
    std::vector<int64_t> want(1 << 20, 0);
    std::vector<char> seen(1 << 20, 0);
    for (int64_t i = 0; i < n; ++i) {
      want[k[i]] += v[i];
      seen[k[i]] = 1;
    }
    const int groups = download(runs.as<int>(), 1)[0];
    const auto uk = download(ukeys.as<int>(), groups), us = download(sums.as<int>(), groups);
    int64_t expected = 0, bad = 0;
    for (int key = 0; key < (1 << 20); ++key) {
      if (!seen[key]) continue;
      if (expected < groups && (uk[expected] != key || us[expected] != static_cast<int>(want[key]))) ++bad;
      ++expected;
    }
    print_check(op, expected == groups && bad == 0,
                strf("groups=%d expected=%lld bad=%lld", groups, static_cast<long long>(expected),
                     static_cast<long long>(bad)));
  }
}

// ------------------------------------------------------------------------------------------------
// Op dispatch and argument parsing
// ------------------------------------------------------------------------------------------------

// Parses "<prefix><C>" with C a positive integer; returns C or -1.
static int64_t parse_suffix(const std::string& op, const std::string& prefix) {
  if (op.size() <= prefix.size() || op.compare(0, prefix.size(), prefix) != 0) return -1;
  const std::string rest = op.substr(prefix.size());
  for (char c : rest) {
    if (c < '0' || c > '9') return -1;
  }
  if (rest.size() > 15) return -1;
  const long long v = std::strtoll(rest.c_str(), nullptr, 10);
  return v > 0 ? static_cast<int64_t>(v) : -1;
}

static void run_op(const Opts& o, const std::string& op) {
  if (op == "copy") return op_copy(o, op);
  if (op == "sum_f32") return op_sum_f32(o, op);
  if (op == "sum_i32") return op_sum_i32(o, op);
  if (op == "max_f32") return op_max_f32(o, op);
  if (op == "argmax_f32") return op_argmax_f32(o, op);
  if (op == "sumsq_f32") return op_sumsq_f32(o, op);
  if (op == "count_gt0_f32") return op_count_gt0_f32(o, op);
  if (op == "filter_gt0_f32") return op_filter_gt0_f32(o, op);
  if (op == "scan_i32") return op_scan_i32(o, op);
  if (op == "scan_f32") return op_scan_f32(o, op);
  if (op == "sort_u32") return op_sort_keys<uint32_t>(o, op, false);
  if (op == "sort_f32") return op_sort_keys<float>(o, op, false);
  if (op == "sort_u64") return op_sort_keys<uint64_t>(o, op, false);
  if (op == "sort_desc_f32") return op_sort_keys<float>(o, op, true);
  if (op == "argsort_f32") return op_sort_pairs<float>(o, op);
  if (op == "pairs_u32") return op_sort_pairs<uint32_t>(o, op);
  if (const int64_t c = parse_suffix(op, "sort_rows_f32_"); c > 0) return op_sort_rows(o, op, c);
  if (op == "sort_segments_f32") return op_sort_segments(o, op);
  if (op == "sort_by_abs_f32") return op_sort_by_abs(o, op);
  if (op == "sort_by_radius_point") return op_sort_by_radius(o, op);
  if (op == "lower_bound_f32") return op_lower_bound(o, op, false);
  if (op == "lower_bound_sorted_f32") return op_lower_bound(o, op, true);
  if (op == "argwhere_f32") return op_argwhere_f32(o, op);
  if (op == "range_pi_u32") return op_range_pi(o, op);
  if (op == "range_gauss_f64") return op_range_gauss(o, op);
  if (op == "gather_sum_f32") return op_gather_sum_f32(o, op);
  if (op == "strided_sum_f32") return op_strided_sum_f32(o, op);
  if (op == "scatter_f32") return op_scatter_f32(o, op);
  if (op == "gather_f32") return op_gather_f32(o, op);
  if (op == "group_sum_i32") return op_group_sum_i32(o, op);
  if (const int64_t c = parse_suffix(op, "scan_rows_f32_"); c > 0) return op_scan_rows_f32(o, op, c);
  if (op == "any_gt0_first" || op == "any_gt0_none") return print_skip(op, "no CUB primitive (torch/cupy only)");
  if (op == "transpose_f32") return print_skip(op, "no CUB primitive");
  if (const int64_t c = parse_suffix(op, "rowsum_f32_"); c > 0) return op_rowsum_f32(o, op, c);
  if (parse_suffix(op, "colsum_f32_") > 0) return print_skip(op, "no CUB primitive");
  print_skip(op, "unknown");
}

static void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s --n N --reps R --ops op1,op2,... [--seed S] [--no-check]\n"
               "  N: integer, 2^K or 1<<K (default 2^28); R >= 1 (default 20); --ops all = every op\n"
               "  but the sorts, --ops sort = the sorts\n"
               "  ops: copy sum_f32 sum_i32 max_f32 argmax_f32 sumsq_f32 count_gt0_f32 any_gt0_first\n"
               "       any_gt0_none filter_gt0_f32 scan_i32 scan_f32 scan_rows_f32_<C> rowsum_f32_<C>\n"
               "       colsum_f32_<C> transpose_f32\n"
               "  sort: sort_u32 sort_f32 sort_u64 argsort_f32 pairs_u32 sort_desc_f32 sort_rows_f32_<C>\n"
               "        group_sum_i32\n",
               argv0);
}

// Parses a full-string decimal integer (no trailing junk).
static bool parse_ll(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* endp = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &endp, 10);
  if (errno != 0 || endp == s.c_str() || *endp != '\0') return false;
  *out = v;
  return true;
}

// Element count: "268435456", "2^28" or "1<<28" (underscores ignored).
static bool parse_count(const std::string& s, int64_t* out) {
  std::string t;
  for (char c : s) {
    if (c != '_' && c != ' ') t.push_back(c);
  }
  long long a = 0, b = 0;
  size_t pos;
  if ((pos = t.find('^')) != std::string::npos) {
    if (!parse_ll(t.substr(0, pos), &a) || !parse_ll(t.substr(pos + 1), &b) || a < 1 || b < 0) return false;
    if (a == 1) {
      *out = 1;
      return true;
    }
    long long v = 1;
    for (long long i = 0; i < b; ++i) {
      if (v > LLONG_MAX / a) return false;
      v *= a;
    }
    *out = v;
    return true;
  }
  if ((pos = t.find("<<")) != std::string::npos) {
    if (!parse_ll(t.substr(0, pos), &a) || !parse_ll(t.substr(pos + 2), &b) || a < 1 || b < 0 || b > 62) return false;
    if (a > (LLONG_MAX >> b)) return false;
    *out = a << b;
    return true;
  }
  if (!parse_ll(t, &a)) return false;
  *out = a;
  return true;
}

static Opts parse_args(int argc, char** argv) {
  Opts o;
  std::string ops_arg = "all";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", a.c_str());
        usage(argv[0]);
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (a == "--n") {
      if (!parse_count(value(), &o.n) || o.n < 1) {
        std::fprintf(stderr, "bad --n\n");
        std::exit(2);
      }
    } else if (a == "--reps") {
      o.reps = std::atoi(value().c_str());
      if (o.reps < 1) {
        std::fprintf(stderr, "bad --reps\n");
        std::exit(2);
      }
    } else if (a == "--ops") {
      ops_arg = value();
    } else if (a == "--seed") {
      o.seed = std::strtoull(value().c_str(), nullptr, 0);
    } else if (a == "--no-check") {
      o.check = false;
    } else if (a == "--help" || a == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      usage(argv[0]);
      std::exit(2);
    }
  }
  size_t start = 0;
  while (start <= ops_arg.size()) {
    const size_t comma = ops_arg.find(',', start);
    const std::string tok = ops_arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (tok == "all") {
      for (const char* op : kAllOps) o.ops.emplace_back(op);
    } else if (tok == "sort") {
      for (const char* op : kSortOps) o.ops.emplace_back(op);
    } else if (!tok.empty()) {
      o.ops.push_back(tok);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return o;
}

int main(int argc, char** argv) {
  const Opts o = parse_args(argc, argv);

  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  std::string name = prop.name;
  std::replace(name.begin(), name.end(), ' ', '_');
  std::printf("INFO cub device=%s cc=%d.%d cub_version=%d.%d.%d n=%lld reps=%d warmup=%d check=%d\n", name.c_str(),
              prop.major, prop.minor, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION,
              static_cast<long long>(o.n), o.reps, kWarmup, o.check ? 1 : 0);
  std::fflush(stdout);

  for (const std::string& op : o.ops) run_op(o, op);
  CK(cudaDeviceSynchronize());
  return 0;
}
