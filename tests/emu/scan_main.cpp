// Runs a generated scan module's wd_k_scan on the CPU (shim.h) as Gpu::scan launches it: one
// block per block tile (the kernel's, printed as `block_tile N`), tiles in blockIdx order, the
// blocks one after another, zeroed status.
// Built by tests/tests/emu/scan.rs with MODULE (the module file).
//
//     emu N EXCLUSIVE MODE IN OUT [LEN [INIT]]
//
// N: the number of elements; EXCLUSIVE: 0 or 1; MODE: a ScanMode (0 look-back, 1 tree, 3 exact
// sum); IN: a file of N input elements; OUT: the file the N outputs are written to.
//
// LEN, when given and not `-`, is a device-resident length: the kernel reads the first LEN
// elements and writes their N places no further. INIT, when given, is the scan's initial value
// (an integer, converted to the value type).
//
// Built with ZIPPED_START and ZIPPED_SHIFT (a module over a generated range zipped with one
// array), the range's start is ZIPPED_START and IN holds ZIPPED_SHIFT bytes of padding, then
// the array's N elements.
//
// Built with EXACT_SUMS (an f32 module), it instead tests the exact sums of lookback.cuh:
//
//     emu IN OUT
//
// IN: records of a u32 count and that many f32 terms; OUT: each record's wd_exact32_round of
// the wd_op_exact32 sum of its terms (converted by wd_exact32_of), as f32.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;

#ifdef EXACT_SUMS
int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: emu IN OUT\n");
        return 2;
    }
    const std::vector<char> bytes = wd_emu_bytes(argv[1]);
    std::vector<float> sums;
    for (size_t at = 0; at + 4 <= bytes.size();) {
        unsigned count;
        std::memcpy(&count, bytes.data() + at, 4);
        at += 4;
        wd_exact32 s = wd_op_exact32::identity();
        for (unsigned i = 0; i < count; ++i, at += 4) {
            float x;
            std::memcpy(&x, bytes.data() + at, 4);
            s = wd_op_exact32::combine(s, wd_exact32_of(x));
        }
        sums.push_back(wd_exact32_round(s));
    }
    wd_emu_write(argv[2], sums.data(), sums.size() * 4);
    return 0;
}
#else
int main(int argc, char** argv) {
    if (argc < 6 || argc > 8) {
        std::fprintf(stderr, "usage: emu N EXCLUSIVE MODE IN OUT [LEN [INIT]]\n");
        return 2;
    }
    const wd_u64 n = std::strtoull(argv[1], nullptr, 10);
    const unsigned exclusive = (unsigned)std::atoi(argv[2]), mode = (unsigned)std::atoi(argv[3]);
    const std::vector<uint4> in_v = wd_emu_read(argv[4]);
    wd_in in{};
#ifdef ZIPPED_START
    // A zip of a generated range (column 0, its start in the address's place) with the
    // input's array (column 1), which starts ZIPPED_SHIFT elements into the aligned storage
    // (the test writes the input there).
    in.p[0] = (const void*)(uintptr_t)(ZIPPED_START);
    in.p[1] = (const char*)in_v.data() + ZIPPED_SHIFT;
#else
    in.p[0] = in_v.data();
#endif
    // A device-resident length (`wd_in.len`), when given.
    const bool counted = argc >= 7 && std::strcmp(argv[6], "-") != 0;
    const wd_u64 len = counted ? std::strtoull(argv[6], nullptr, 10) : 0;
    if (counted) in.len = &len;
    typedef wd_stage::value_t V;
    const V init = (V)(argc == 8 ? std::strtoll(argv[7], nullptr, 10) : 0);
    // Poisoned: a place the kernel writes and should not shows in the comparison.
    std::vector<V> out(n + 1);
    std::memset((void*)out.data(), 0xa5, out.size() * sizeof(V));
    // The kernel's block tile (its span), which the driver prints for the test to compare with
    // the runtime's (catalogue::scan_span).
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE * wd_scan_span<wd_stage>::value;
    std::printf("block_tile %llu\n", (unsigned long long)block_tile);
    const wd_u64 tiles = (n + block_tile - 1) / block_tile;
    std::vector<uint4> status(tiles * 8 + 64);  // 128 bytes a tile: more than any layout needs
    wd_emu_launch((unsigned)tiles, [&] {
        wd_k_scan(in, n, wd_args{}, out.data(), exclusive, argc == 8 ? &init : nullptr, mode, (unsigned char*)status.data(),
                  nullptr);
    });
    wd_emu_write(argv[5], out.data(), n * sizeof(V));
    return 0;
}
#endif
