// Probe: a conflict-free padded tile whose results leave through shared memory and a TMA bulk
// copy (cp.async.bulk) instead of STG: does the LSU bank-conflict counter stay at zero?
#include <cstdio>
#include <cuda_runtime.h>
__device__ __forceinline__ void bulk_store(float* g, const float* s, unsigned bytes) {
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g), "r"(sa), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_commit_wait_read() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// MODE 0: STG of each LDS result; 1: LDS -> STS staging -> one bulk copy per 32-float row
// (32 rows per tile, issued by lane 0 of warps); 2: the same with one 4 KiB bulk copy.
template <int MODE>
__global__ void __launch_bounds__(256) k_tile(const float* in, float* out, size_t n) {
    __shared__ float tile[32][33];
    __shared__ alignas(128) float staging[32][32];
    const unsigned tx = threadIdx.x & 31u, ty = threadIdx.x >> 5;
    for (size_t b = blockIdx.x; b * 1024 < n; b += gridDim.x) {
        for (int k = 0; k < 4; ++k) tile[ty + 8 * k][tx] = __ldcg(in + b * 1024 + (ty + 8 * k) * 32 + tx);
        __syncthreads();
        if constexpr (MODE == 0) {
            for (int k = 0; k < 4; ++k) out[b * 1024 + (ty + 8 * k) * 32 + tx] = tile[tx][ty + 8 * k];
        } else {
            for (int k = 0; k < 4; ++k) staging[ty + 8 * k][tx] = tile[tx][ty + 8 * k];
            fence_proxy_async();
            __syncthreads();
            if constexpr (MODE == 1) {
                if (tx == 0)
                    for (int k = 0; k < 4; ++k) bulk_store(out + b * 1024 + (ty + 8 * k) * 32, staging[ty + 8 * k], 128);
            } else if (threadIdx.x == 0) {
                bulk_store(out + b * 1024, &staging[0][0], 4096);
            }
            if (tx == 0) bulk_commit_wait_read();  // the staging rows may be rewritten
        }
        __syncthreads();
    }
}
int main() {
    size_t n = 1 << 26;
    float *in, *out;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, n * 4);
    cudaMemset(in, 0x3f, n * 4);
    for (int rep = 0; rep < 2; ++rep) {
        k_tile<0><<<1056, 256>>>(in, out, n);
        k_tile<1><<<1056, 256>>>(in, out, n);
        k_tile<2><<<1056, 256>>>(in, out, n);
    }
    cudaError_t e = cudaDeviceSynchronize();
    // Check the copy: out[b*1024 + r*32 + c] == in[b*1024 + c*32 + r] (constant data: all equal).
    float h[4]; cudaMemcpy(h, out + 12345, 16, cudaMemcpyDeviceToHost);
    printf("%s %08x\n", cudaGetErrorString(e), *(unsigned*)h);
}
