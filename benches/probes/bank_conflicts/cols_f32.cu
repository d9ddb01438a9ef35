// Probe: the padded f32 column reduce (the example's kernel): as the runtime launches it, with
// no partials, and at one block per SM.
#include <cstdio>
#include <cuda_runtime.h>
#include "axis_sum_f32.cuh"
#include "fill.cuh"
int main() {
    size_t rows = 2048, cols = 1000, n = rows * cols;
    float *in, *part, *out; unsigned* tickets;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, 1 << 20); cudaMalloc(&part, 64 << 20); cudaMalloc(&tickets, 1 << 20);
    cudaMemset(tickets, 0, 1 << 20);
    wd_args a = {};
    fill_random<<<512, 256>>>(in, n, 17);
    // A: as the runtime launches it (grid 32 x 32: partials, tickets, fences).
    wd_k_cols<<<dim3(32, 32), 1024>>>(in, n, a, rows, cols, (rows + 31) / 32, part, tickets, out);
    // C: one block per column tile (no partials path).
    wd_k_cols<<<dim3(32, 1), 1024>>>(in, n, a, rows, cols, 0, part, tickets, out);
    // D: grid 32 x 32 at one block per SM.
    cudaFuncSetAttribute(wd_k_cols, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
    wd_k_cols<<<dim3(32, 32), 1024, 200 * 1024>>>(in, n, a, rows, cols, (rows + 31) / 32, part, tickets, out);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
