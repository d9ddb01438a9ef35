// Probe: the padded transpose's hardware bank-conflict count, as launched by the runtime and not.
#include <cstdio>
#include <cuda_runtime.h>
#include "transpose_f32.cuh"
#include "fill.cuh"
int main() {
    size_t n = 1 << 26;
    float *in, *out;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, n * 4);
    cudaMemset(in, 0x3f, n * 4);
    for (int rep = 0; rep < 3; ++rep) {
        fill_random<<<512, 256>>>(in, n, 5 + rep);
        wd_k_transpose<<<dim3(16, 32), 256>>>(in, out, 2048, 1000, 1);
    }
    cudaMemset(in, 0x3f, n * 4);
    wd_k_transpose<<<dim3(16, 32), 256>>>(in, out, 2048, 1000, 1);
    // The same at one block per SM (dynamic shared memory fills the SM): no other block's stores.
    cudaFuncSetAttribute(wd_k_transpose, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
    wd_k_transpose<<<dim3(16, 32), 256, 200 * 1024>>>(in, out, 2048, 1000, 1);
    // A large square one (many blocks' stores in flight on every SM).
    fill_random<<<512, 256>>>(in, n, 9);
    wd_k_transpose<<<dim3(128, 128), 256>>>(in, out, 8192, 8192, 1);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
