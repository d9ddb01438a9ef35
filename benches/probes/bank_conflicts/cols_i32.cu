// Probe: the padded i32 column reduce (its warp reduce is redux.sync, no shuffles), same launches.
#include <cstdio>
#include <cuda_runtime.h>
#include "axis_add_i32.cuh"
int main() {
    size_t rows = 2048, cols = 1000, n = rows * cols;
    int *in, *part, *out; unsigned* tickets;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, 1 << 20); cudaMalloc(&part, 64 << 20); cudaMalloc(&tickets, 1 << 20);
    cudaMemset(in, 0x3f, n * 4); cudaMemset(tickets, 0, 1 << 20);
    wd_args a = {};
    // As the runtime launches it (grid 32 x 32: partials and tickets), then one block per column tile.
    wd_k_cols<<<dim3(32, 32), 1024>>>(in, n, a, rows, cols, (rows + 31) / 32, part, tickets, out);
    wd_k_cols<<<dim3(32, 1), 1024>>>(in, n, a, rows, cols, 0, part, tickets, out);
    cudaFuncSetAttribute(wd_k_cols, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
    wd_k_cols<<<dim3(32, 32), 1024, 200 * 1024>>>(in, n, a, rows, cols, (rows + 31) / 32, part, tickets, out);
    printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
