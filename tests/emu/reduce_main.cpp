// Runs a generated reduction module over a generated range (wd_k_reduce with a stage that reads
// no memory: reduce.cuh's wd_thread_reduce_generated) on the CPU (shim.h), grids of 1 to 7
// blocks, and checks each result against the module's own map and operator folded over the
// indices on the host. Lengths around the tile (WD_BLOCK x WD_ITEMS indices), starts 0 and
// high, with and without a device-resident length. Built by tests/tests/emu/reduce.rs with
// MODULE (a module of an exact operator: results are compared with ==).
#include <cstdio>
#include <vector>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;

int main() {
    typedef wd_op::T T;
    const wd_u64 tile = (wd_u64)WD_BLOCK * WD_ITEMS;
    int failed = 0;
    for (wd_u64 start : {0ull, 123456789ull, (1ull << 40) + 5}) {
        for (wd_u64 n : {0ull, 1ull, 255ull, tile - 1, tile, tile + 1, 3 * tile + 17, 9 * tile}) {
            for (unsigned grid : {1u, 2u, 7u}) {
                for (int counted = 0; counted < 2; ++counted) {
                    const wd_u64 len = n / 3 + 1;  // a device length (counted runs)
                    const wd_u64 upto = counted && len < n ? len : n;
                    T want = wd_op::identity();
                    for (wd_u64 i = 0; i < upto; ++i) want = wd_op::combine(want, wd_map(start + i));
                    std::vector<T> partials(grid);
                    unsigned ticket = 0;
                    T out{};
                    wd_in in{};
                    in.p[0] = (const void*)start;
                    in.len = counted ? &len : nullptr;
                    wd_args a{};
                    wd_emu_launch(grid, [&] { wd_k_reduce(in, n, a, partials.data(), &ticket, &out, nullptr); });
                    if (!(out == want) || ticket != 0) {
                        std::printf("FAIL start=%llu n=%llu grid=%u counted=%d: got %llu want %llu ticket %u\n",
                                    (unsigned long long)start, (unsigned long long)n, grid, counted,
                                    (unsigned long long)out, (unsigned long long)want, ticket);
                        ++failed;
                    }
                }
            }
        }
    }
    if (failed == 0) std::printf("ALL OK\n");
    return failed != 0;
}
