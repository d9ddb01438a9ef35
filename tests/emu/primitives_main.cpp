// Runs one test kernel of the warp and block primitives (tests/emu/primitives.cuh) on the CPU
// (shim.h): one block of 256 threads. Built by tests/tests/emu_primitives.rs with MODULE (the
// primitives' source and the test kernels).
//
//     emu KERNEL N ARG IN OUT OUT_WORDS
//
// KERNEL: a test kernel's name; N, ARG: its arguments; IN: a file of 32-bit words (the kernel's
// `in`, 16-byte aligned); OUT: the file its OUT_WORDS words of `out` are written to (filled with
// 0xDEADBEEF before the launch, 16-byte aligned).
#include <cstdio>
#include <cstdlib>
#include <string>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;

int main(int argc, char** argv) {
    if (argc != 7) {
        std::fprintf(stderr, "usage: emu KERNEL N ARG IN OUT OUT_WORDS\n");
        return 2;
    }
    const std::string kernel = argv[1];
    const wd_u32 n = (wd_u32)std::strtoul(argv[2], nullptr, 10), arg = (wd_u32)std::strtoul(argv[3], nullptr, 10);
    const size_t out_words = std::strtoull(argv[6], nullptr, 10);
    const std::vector<uint4> in = wd_emu_read(argv[4]);
    std::vector<uint4> out(out_words / 4 + 1, uint4{0xDEADBEEFu, 0xDEADBEEFu, 0xDEADBEEFu, 0xDEADBEEFu});
    const wd_u32* ip = (const wd_u32*)in.data();
    wd_u32* op = (wd_u32*)out.data();
    bool found = false;
#define WD_T_RUN(NAME)                                                                             \
    if (kernel == #NAME) {                                                                         \
        found = true;                                                                              \
        wd_emu_launch(1, [&] { NAME(ip, op, n, arg); });                                           \
    }
    WD_T_KERNELS(WD_T_RUN)
    if (!found) {
        std::fprintf(stderr, "no kernel %s\n", kernel.c_str());
        return 2;
    }
    wd_emu_write(argv[5], op, out_words * 4);
    return 0;
}
