// Host emulation of the CUDA subset the top-k, runs, scan and compaction modules and the warp
// and block primitives use (tests/tests/emu/: topk.rs, runs.rs, scan.rs, compact.rs,
// primitives.rs), and the file and argument helpers the drivers share: one block at a
// time as 256 std::threads, `__shared__` as function
// statics, std::barrier for __syncthreads, per-warp barriers and an exchange table for the
// warp intrinsics, GCC atomics. The PTX `asm` of the prelude sits in functions these kernels
// never call (never emitted).
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>
#include <functional>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
struct dim3 { unsigned x = 0, y = 0, z = 0; };
extern thread_local dim3 threadIdx, blockIdx;
extern dim3 gridDim;
inline const dim3 blockDim{256, 1, 1};
struct uint4 { unsigned x, y, z, w; };
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
struct uint2 { unsigned x, y; };
struct Emu {
    std::barrier<> *block;
    std::barrier<> *warp[16];
    unsigned long long slot[16][32];
};
extern Emu* emu;
inline void __syncthreads() { emu->block->arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned long long wd_emu_exchange(unsigned long long v, int src) {
    unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
    emu->slot[w][l] = v;
    emu->warp[w]->arrive_and_wait();
    unsigned long long r = emu->slot[w][src & 31];
    emu->warp[w]->arrive_and_wait();
    return r;
}
inline unsigned __ballot_sync(unsigned, bool p) {
    unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
    emu->slot[w][l] = p;
    emu->warp[w]->arrive_and_wait();
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= (emu->slot[w][i] ? 1u : 0u) << i;
    emu->warp[w]->arrive_and_wait();
    return r;
}
inline bool __any_sync(unsigned m, bool p) { return __ballot_sync(m, p) != 0; }
// The lanes whose value equals this lane's.
inline unsigned __match_any_sync(unsigned, unsigned v) {
    unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
    emu->slot[w][l] = v;
    emu->warp[w]->arrive_and_wait();
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((unsigned)emu->slot[w][i] == v ? 1u : 0u) << i;
    emu->warp[w]->arrive_and_wait();
    return r;
}
// The warp's sum (or bitwise or) of 32-bit values, to every lane (redux.sync).
inline unsigned wd_emu_fold(unsigned v, bool add) {
    unsigned w = threadIdx.x >> 5, l = threadIdx.x & 31;
    emu->slot[w][l] = v;
    emu->warp[w]->arrive_and_wait();
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r = add ? r + (unsigned)emu->slot[w][i] : r | (unsigned)emu->slot[w][i];
    emu->warp[w]->arrive_and_wait();
    return r;
}
inline unsigned __reduce_add_sync(unsigned, unsigned v) { return wd_emu_fold(v, true); }
inline unsigned __reduce_or_sync(unsigned, unsigned v) { return wd_emu_fold(v, false); }
inline bool __all_sync(unsigned m, bool p) { return __ballot_sync(m, p) == 0xffffffffu; }
inline void __syncwarp(unsigned = 0xffffffffu) { emu->warp[threadIdx.x >> 5]->arrive_and_wait(); }
inline std::atomic<int> wd_emu_or{0};
inline int __syncthreads_or(int p) {
    __syncthreads();
    if (threadIdx.x == 0) wd_emu_or.store(0);
    __syncthreads();
    if (p) wd_emu_or.store(1);
    __syncthreads();
    return wd_emu_or.load();
}
template <class T> T wd_emu_from(unsigned long long b) { T t; std::memcpy(&t, &b, sizeof(T)); return t; }
template <class T> unsigned long long wd_emu_to(T v) { unsigned long long b = 0; std::memcpy(&b, &v, sizeof(T)); return b; }
template <class T> T __shfl_sync(unsigned, T v, int src) { return wd_emu_from<T>(wd_emu_exchange(wd_emu_to(v), src)); }
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d) {
    int l = threadIdx.x & 31; int s = l - (int)d; return wd_emu_from<T>(wd_emu_exchange(wd_emu_to(v), s < 0 ? l : s));
}
template <class T> T __shfl_down_sync(unsigned, T v, unsigned d) {
    int l = threadIdx.x & 31; int s = l + (int)d; return wd_emu_from<T>(wd_emu_exchange(wd_emu_to(v), s > 31 ? l : s));
}
template <class T> T __shfl_xor_sync(unsigned, T v, int m) { int l = threadIdx.x & 31; return wd_emu_from<T>(wd_emu_exchange(wd_emu_to(v), l ^ m)); }
template <class T> T __ldcg(const T* p) { return *(const volatile T*)p; }
template <class T> T __ldcs(const T* p) { return *p; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline float __int_as_float(int u) { float f; std::memcpy(&f, &u, 4); return f; }
inline int __float_as_int(float f) { int u; std::memcpy(&u, &f, 4); return u; }
inline long long __double_as_longlong(double d) { long long u; std::memcpy(&u, &d, 8); return u; }
inline double __longlong_as_double(long long u) { double d; std::memcpy(&d, &u, 8); return d; }
inline int __float2int_rz(float x) { return (int)x; }
inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
inline long long __float2ll_rz(float x) { return (long long)x; }
inline unsigned long long __float2ull_rz(float x) { return (unsigned long long)x; }
inline int __double2int_rz(double x) { return (int)x; }
inline unsigned __double2uint_rz(double x) { return (unsigned)x; }
inline long long __double2ll_rz(double x) { return (long long)x; }
inline unsigned long long __double2ull_rz(double x) { return (unsigned long long)x; }
template <class T> T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
template <class T> T atomicMax(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
template <class T> T atomicMin(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    return old;
}
inline void __nanosleep(unsigned) {}
template <class T> T atomicCAS(T* p, T c, T v) { __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return c; }
inline void __stcs(uint4* p, uint4 v) { *p = v; }

// Launches `grid` blocks of `body`, one after another, each as `threads` threads (256 unless
// said, at most 512; blockDim says 256 whatever the launch) with fresh barriers (the blocks of
// a look-back kernel then find their predecessors finished).
inline void wd_emu_launch(unsigned grid, const std::function<void()>& body, unsigned threads = 256) {
    gridDim.x = grid;
    const unsigned warps = threads / 32;
    for (unsigned b = 0; b < grid; ++b) {
        std::barrier<> block(threads);
        Emu e;
        e.block = &block;
        for (unsigned w = 0; w < warps; ++w) e.warp[w] = new std::barrier<>(32);
        emu = &e;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < threads; ++t)
            ts.emplace_back([&, t, b] { threadIdx.x = t; blockIdx.x = b; body(); });
        for (auto& t : ts) t.join();
        for (unsigned w = 0; w < warps; ++w) delete e.warp[w];
    }
}

// ---- what the drivers (tests/emu/*_main.cpp) share ----
// The bytes of the file `path`.
inline std::vector<char> wd_emu_bytes(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
// The file `path` in 16-byte aligned storage (the kernels' vector loads), with a spare
// vector after it.
inline std::vector<uint4> wd_emu_read(const char* path) {
    const std::vector<char> bytes = wd_emu_bytes(path);
    std::vector<uint4> v(bytes.size() / 16 + 2);
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
}
// Writes `bytes` bytes from `p` to the file `path`.
inline void wd_emu_write(const std::string& path, const void* p, size_t bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write((const char*)p, (std::streamsize)bytes);
}
// Bound-argument words (`wd_args`, defined by the module after this file) from up to 8
// comma-separated hex words.
template <class Args> inline Args wd_emu_args(std::string words) {
    Args a{};
    for (int i = 0; i < 8 && !words.empty(); ++i) {
        const size_t comma = words.find(',');
        a.v[i] = std::strtoull(words.substr(0, comma).c_str(), nullptr, 16);
        words = comma == std::string::npos ? "" : words.substr(comma + 1);
    }
    return a;
}
