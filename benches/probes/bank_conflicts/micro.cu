// Probe: does ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_* count anything for a
// conflict-free [32][33] tile, and what makes it? (See docs/benchmarks/2026-11-30.md; run.sh builds and runs it.)
#include <cstdio>
#include <cuda_runtime.h>
template <int PAD>
__device__ float combine(float (&tile)[32][32 + PAD], float v) {
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    tile[w][lane] = v;
    __syncthreads();
    v = tile[lane][w];
    __syncthreads();
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
    return v;
}
template <int PAD>
__global__ void __launch_bounds__(1024) k_regs(float* out, int iters) {
    __shared__ float tile[32][32 + PAD];
    float acc = 0.f, v = threadIdx.x * 0.5f;
    for (int i = 0; i < iters; ++i) { v = combine<PAD>(tile, v + i); acc += v; }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
template <int PAD>
__global__ void __launch_bounds__(1024) k_loads(const float* in, float* out, size_t n, int per) {
    __shared__ float tile[32][32 + PAD];
    float acc = 0.f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        float v = 0.f;
        for (int k = 0; k < per && i < n; ++k, i += stride) v += __ldcg(in + i);
        acc += combine<PAD>(tile, v);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
// Loads only, then one combine at the end.
template <int PAD>
__global__ void __launch_bounds__(1024) k_loads_then(const float* in, float* out, size_t n) {
    __shared__ float tile[32][32 + PAD];
    float acc = 0.f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) acc += __ldcg(in + i);
    acc = combine<PAD>(tile, acc);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
// E: k_regs with a fence per iteration; F: with a lane-0 store per iteration; G: both + atomic.
template <int PAD, int MODE>
__global__ void __launch_bounds__(1024) k_regs_x(float* out, unsigned* ticket, int iters) {
    __shared__ float tile[32][32 + PAD];
    float acc = 0.f, v = threadIdx.x * 0.5f;
    for (int i = 0; i < iters; ++i) {
        v = combine<PAD>(tile, v + i);
        acc += v;
        if ((MODE & 2) && (threadIdx.x & 31) == 0) out[blockIdx.x * 32 + (threadIdx.x >> 5)] = acc;
        if (MODE & 1) __threadfence();
        if ((MODE & 4) && threadIdx.x == 0) atomicAdd(ticket, 1u);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}
template <int HINT> __device__ __forceinline__ void put(float* p, float v) {
    if (HINT == 0) *p = v; else if (HINT == 1) __stcg(p, v); else if (HINT == 2) __stcs(p, v); else __stwt(p, v);
}
template <int HINT>
__global__ void __launch_bounds__(256) k_tile_st(const float* in, float* out, size_t n) {
    __shared__ float tile[32][33];
    const unsigned tx = threadIdx.x & 31u, ty = threadIdx.x >> 5;
    for (size_t b = blockIdx.x; b * 1024 < n; b += gridDim.x) {
        for (int k = 0; k < 4; ++k) tile[ty + 8 * k][tx] = __ldcg(in + b * 1024 + (ty + 8 * k) * 32 + tx);
        __syncthreads();
        for (int k = 0; k < 4; ++k) put<HINT>(out + b * 1024 + (ty + 8 * k) * 32 + tx, tile[tx][ty + 8 * k]);
        __syncthreads();
    }
}
template <int HINT>
__global__ void __launch_bounds__(1024) k_lane0_st(float* out, int iters) {
    __shared__ float tile[32][33];
    const unsigned lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    float acc = 0.f, v = threadIdx.x * 0.5f;
    for (int i = 0; i < iters; ++i) {
        tile[w][lane] = v + i;
        __syncthreads();
        v = tile[lane][w];
        __syncthreads();
        for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
        acc += v;
        if (lane == 0) put<HINT>(out + blockIdx.x * 32 + w, acc);
    }
}
int main() {
    size_t n = 1 << 26;
    float *in, *out;
    unsigned* ticket;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, n * 4); cudaMalloc(&ticket, 4);
    cudaMemset(in, 0x3f, n * 4);
    // The tile combine alone, after global loads, and with only loads before it; padded and not.
    k_regs<1><<<264, 1024>>>(out, 1000);
    k_regs<0><<<264, 1024>>>(out, 1000);
    k_loads<1><<<264, 1024>>>(in, out, n, 8);
    k_loads<0><<<264, 1024>>>(in, out, n, 8);
    k_loads_then<1><<<264, 1024>>>(in, out, n);
    k_loads_then<0><<<264, 1024>>>(in, out, n);
    // The combine with a fence (1), a lane-0 store (2), or fence + store + atomic (7) per iteration.
    k_regs_x<1, 1><<<264, 1024>>>(out, ticket, 1000);
    k_regs_x<1, 2><<<264, 1024>>>(out, ticket, 1000);
    k_regs_x<1, 7><<<264, 1024>>>(out, ticket, 1000);
    // A padded tile whose loads are stored to global memory: plain, .cg, .cs, .wt stores.
    k_tile_st<0><<<1056, 256>>>(in, out, n); k_tile_st<1><<<1056, 256>>>(in, out, n);
    k_tile_st<2><<<1056, 256>>>(in, out, n); k_tile_st<3><<<1056, 256>>>(in, out, n);
    k_lane0_st<0><<<264, 1024>>>(out, 1000); k_lane0_st<1><<<264, 1024>>>(out, 1000);
    k_lane0_st<2><<<264, 1024>>>(out, 1000); k_lane0_st<3><<<264, 1024>>>(out, 1000);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
