// Host-visible latency of CUB calls with the result on the host, timed as warp-dsl's latency
// bench times its own calls: host clock around one call (the CUB call, then the copy of the
// result to the host), 20 warm-up calls, median of REPS calls. Each peer at its best: the
// temporary storage is allocated once, outside the timing, and the result is copied into
// pinned host memory (cudaMemcpy to pinned memory is the faster of the two copies; both are
// timed and the faster median is printed).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I/usr/local/cuda/include/cccl -o latency_peers latency_peers.cu
//   ./latency_peers --sizes 1,1000,100000,1000000,16000000 --reps 301
// Output lines: `LAT cub <op> <n> <median us>`; `CHECK cub <op> ok|FAIL n=<n> dev=<got> ref=<expected>`
// lines verify each result against the host (outside the timing): the count, any and filter
// exactly (the filter's kept elements too, in order), the sum within 1e-5 of the sum of the
// magnitudes (CUB's f32 tree; the reference, of multiples of 2^-23 below 1, is exact in double).
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                 \
    do {                                                                                      \
        cudaError_t e_ = (x);                                                                 \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

struct Positive {
    __host__ __device__ bool operator()(float x) const { return x > 0.0f; }
};
struct PositiveCount {
    __host__ __device__ unsigned long long operator()(float x) const { return x > 0.0f ? 1ull : 0ull; }
};

template <class F> static double median_us(int reps, F&& call) {
    for (int i = 0; i < 20; ++i) call();
    std::vector<double> t(reps);
    for (int i = 0; i < reps; ++i) {
        auto a = std::chrono::steady_clock::now();
        call();
        auto b = std::chrono::steady_clock::now();
        t[i] = std::chrono::duration<double, std::micro>(b - a).count();
    }
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}

int main(int argc, char** argv) {
    std::vector<size_t> sizes = {1, 1000, 100000, 1000000, 16000000};
    int reps = 301;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--sizes")) {
            sizes.clear();
            std::string s = argv[i + 1];
            size_t p = 0;
            while (p < s.size()) {
                size_t q = s.find(',', p);
                if (q == std::string::npos) q = s.size();
                sizes.push_back(strtoull(s.substr(p, q - p).c_str(), nullptr, 10));
                p = q + 1;
            }
        }
    }
    size_t nmax = *std::max_element(sizes.begin(), sizes.end());
    std::vector<float> h(nmax), hneg(nmax);
    unsigned long long x = 0x9e3779b97f4a7c15ull ^ (unsigned long long)time(nullptr);
    for (size_t i = 0; i < nmax; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h[i] = (float)((x >> 40) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;  // [-1, 1)
        hneg[i] = -std::max(std::abs(h[i]), 1e-3f);                          // all negative
    }
    float *d, *dneg, *dsel;
    float* dsum;
    unsigned long long *dcount, *dnum;
    CK(cudaMalloc(&d, nmax * 4));
    CK(cudaMalloc(&dneg, nmax * 4));
    CK(cudaMalloc(&dsel, nmax * 4));
    CK(cudaMalloc(&dsum, 64));
    CK(cudaMalloc(&dcount, 64));
    CK(cudaMalloc(&dnum, 64));
    CK(cudaMemcpy(d, h.data(), nmax * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dneg, hneg.data(), nmax * 4, cudaMemcpyHostToDevice));
    size_t tb = 0, t1 = 0;
    CK(cub::DeviceReduce::Sum(nullptr, t1, d, dsum, (int)nmax));
    tb = std::max(tb, t1);
    CK(cub::DeviceReduce::TransformReduce(nullptr, t1, d, dcount, (int)nmax, ::cuda::std::plus<unsigned long long>(), PositiveCount(), 0ull));
    tb = std::max(tb, t1);
    CK(cub::DeviceSelect::If(nullptr, t1, d, dsel, dnum, (int)nmax, Positive()));
    tb = std::max(tb, t1);
    void* temp;
    CK(cudaMalloc(&temp, tb));
    float* hsum_pinned;
    unsigned long long* hcount_pinned;
    CK(cudaMallocHost(&hsum_pinned, 64));
    CK(cudaMallocHost(&hcount_pinned, 64));
    float hsum_pageable;
    unsigned long long hcount_pageable;
    // A warm-up of every call before any is timed (as warp-dsl's latency bench does).
    for (int i = 0; i < 500; ++i) {
        size_t tbytes = tb;
        CK(cub::DeviceReduce::Sum(temp, tbytes, d, dsum, 1000));
        CK(cudaMemcpy(hsum_pinned, dsum, 4, cudaMemcpyDeviceToHost));
        tbytes = tb;
        CK(cub::DeviceReduce::TransformReduce(temp, tbytes, d, dcount, 1000, ::cuda::std::plus<unsigned long long>(), PositiveCount(), 0ull));
        CK(cudaMemcpy(hcount_pinned, dcount, 8, cudaMemcpyDeviceToHost));
        tbytes = tb;
        CK(cub::DeviceSelect::If(temp, tbytes, d, dsel, dnum, 1000, Positive()));
        CK(cudaMemcpy(hcount_pinned, dnum, 8, cudaMemcpyDeviceToHost));
    }
    for (size_t n : sizes) {
        size_t tbytes;
        // Sum, result copied to pinned and to pageable memory: the faster median counts.
        auto sum = [&](float* dst) {
            tbytes = tb;
            CK(cub::DeviceReduce::Sum(temp, tbytes, d, dsum, (int)n));
            CK(cudaMemcpy(dst, dsum, 4, cudaMemcpyDeviceToHost));
        };
        double s1 = median_us(reps, [&] { sum(hsum_pinned); });
        double s2 = median_us(reps, [&] { sum(&hsum_pageable); });
        double ref = 0, abs_sum = 0;
        for (size_t i = 0; i < n; ++i) {
            ref += h[i];
            abs_sum += std::fabs((double)h[i]);
        }
        const double tol = 1e-5 * abs_sum;
        printf("CHECK cub reduce %s n=%zu dev=%.9g ref=%.9g tol=%.3g\n",
               std::fabs((double)*hsum_pinned - ref) <= tol ? "ok" : "FAIL", n, *hsum_pinned, ref, tol);
        printf("LAT cub reduce %zu %.2f\n", n, std::min(s1, s2));
        // Count (TransformReduce: predicate to 0/1, sum).
        auto count = [&](const float* in, unsigned long long* dst) {
            tbytes = tb;
            CK(cub::DeviceReduce::TransformReduce(temp, tbytes, in, dcount, (int)n, ::cuda::std::plus<unsigned long long>(), PositiveCount(), 0ull));
            CK(cudaMemcpy(dst, dcount, 8, cudaMemcpyDeviceToHost));
        };
        double c1 = median_us(reps, [&] { count(d, hcount_pinned); });
        double c2 = median_us(reps, [&] { count(d, &hcount_pageable); });
        unsigned long long cref = 0;
        for (size_t i = 0; i < n; ++i) cref += h[i] > 0.0f;
        printf("CHECK cub count %s n=%zu dev=%llu ref=%llu\n", *hcount_pinned == cref ? "ok" : "FAIL", n,
               *hcount_pinned, cref);
        printf("LAT cub count %zu %.2f\n", n, std::min(c1, c2));
        // Any: the same TransformReduce over data no element of which satisfies the predicate
        // (CUB has no early-exit any; warp-dsl's any is timed over the same all-negative data).
        double a1 = median_us(reps, [&] { count(dneg, hcount_pinned); });
        double a2 = median_us(reps, [&] { count(dneg, &hcount_pageable); });
        printf("CHECK cub any %s n=%zu dev=%llu ref=0\n", *hcount_pinned == 0 ? "ok" : "FAIL", n, *hcount_pinned);
        printf("LAT cub any %zu %.2f\n", n, std::min(a1, a2));
        // Filter: DeviceSelect::If, then the count copied to the host.
        auto filter = [&](unsigned long long* dst) {
            tbytes = tb;
            CK(cub::DeviceSelect::If(temp, tbytes, d, dsel, dnum, (int)n, Positive()));
            CK(cudaMemcpy(dst, dnum, 8, cudaMemcpyDeviceToHost));
        };
        double f1 = median_us(reps, [&] { filter(hcount_pinned); });
        double f2 = median_us(reps, [&] { filter(&hcount_pageable); });
        {
            // The count, then the kept elements in input order.
            bool ok = *hcount_pinned == cref;
            size_t bad = 0;
            if (ok) {
                std::vector<float> kept(cref);
                if (cref > 0) CK(cudaMemcpy(kept.data(), dsel, cref * 4, cudaMemcpyDeviceToHost));
                size_t k = 0;
                for (size_t i = 0; i < n; ++i)
                    if (h[i] > 0.0f && kept[k++] != h[i]) ++bad;
                ok = bad == 0;
            }
            printf("CHECK cub filter %s n=%zu dev=%llu ref=%llu wrong_elements=%zu\n", ok ? "ok" : "FAIL", n,
                   *hcount_pinned, cref, bad);
        }
        printf("LAT cub filter %zu %.2f\n", n, std::min(f1, f2));
        fflush(stdout);
    }
    return 0;
}
