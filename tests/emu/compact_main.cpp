// Runs a generated predicate module's wd_k_compact (filter and partition) on the CPU (shim.h)
// as Gpu::compact launches it: one block per block tile of the capacity N, tiles in blockIdx
// order, the blocks one after another, zeroed look-back status, with or without a
// device-resident length. Built by tests/tests/emu/compact.rs with MODULE (the module file).
//
//     emu N LEN ARGS OUT IN
//
// N: the capacity (the kernel's `n`, which sizes the grid); LEN: the device-resident length
// (`wd_in.len`), or `-` for none; ARGS: the 8 bound-argument words, comma-separated hex; OUT:
// the output prefix (OUT.kept, OUT.rejected: N values each; OUT.count and OUT.mirror: the
// count and its mirror, little-endian u64s); IN: a file of N elements.
#include <cstdio>
#include <cstdlib>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: emu N LEN ARGS OUT IN\n");
        return 2;
    }
    const wd_u64 n = std::strtoull(argv[1], nullptr, 10);
    const bool has_len = std::string(argv[2]) != "-";
    const wd_u64 len = has_len ? std::strtoull(argv[2], nullptr, 10) : 0;
    const wd_args a = wd_emu_args<wd_args>(argv[3]);
    const std::string out = argv[4];
    const std::vector<uint4> in_v = wd_emu_read(argv[5]);
    wd_in in{};
    in.p[0] = in_v.data();
    in.len = has_len ? &len : nullptr;
    typedef wd_stage::out_t V;
    // Poisoned outputs: a place the kernel writes and should not shows in the comparison.
    std::vector<V> kept(n + 1), rejected(n + 1);
    std::memset((void*)kept.data(), 0xa5, kept.size() * sizeof(V));
    std::memset((void*)rejected.data(), 0xa5, rejected.size() * sizeof(V));
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE;
    const wd_u64 tiles = (n + block_tile - 1) / block_tile;
    std::vector<uint4> status(tiles + 8);  // 16 bytes a tile: more than the 8 the runtime zeroes
    wd_u64 count = ~0ull, mirror = ~0ull;
    unsigned int done = 0;
    wd_emu_launch((unsigned)tiles, [&] {
        wd_k_compact(in, n, a, kept.data(), rejected.data(), (unsigned char*)status.data(), nullptr, &count,
                     &mirror, &done);
    });
    wd_emu_write(out + ".kept", kept.data(), n * sizeof(V));
    wd_emu_write(out + ".rejected", rejected.data(), n * sizeof(V));
    wd_emu_write(out + ".count", &count, 8);
    wd_emu_write(out + ".mirror", &mirror, 8);
    return 0;
}
