// Runs a generated runs module's wd_k_runs (unique, run-length encode or reduce-by-key) on the
// CPU (shim.h) as Gpu::runs launches it: one block per block tile, tiles in blockIdx order,
// the blocks one after another, zeroed look-back status. Built by tests/tests/emu/runs.rs with
// MODULE (the module file).
//
//     emu N VALUES ARGS OUT COL...
//
// N: the number of elements; VALUES: 1 when the runs carry values (else `vals` is null, as
// for unique); ARGS: the 8 bound-argument words, comma-separated hex; OUT: the output prefix
// (OUT.keys, OUT.vals: N slots each, as many bytes as the kernel's types; OUT.count: the
// number of runs, a little-endian u64); COL: one file of N elements per stage column.
#include <cstdio>
#include <cstdlib>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;

template <class K, class V>
static int run(void (*kernel)(wd_in, wd_u64, wd_args, K*, V*, unsigned char*, unsigned int*, wd_u64*), int argc, char** argv) {
    const wd_u64 n = std::strtoull(argv[1], nullptr, 10);
    const bool values = std::string(argv[2]) == "1";
    const wd_args a = wd_emu_args<wd_args>(argv[3]);
    const std::string out = argv[4];
    std::vector<std::vector<uint4>> cols;
    wd_in in{};
    for (int c = 5; c < argc; ++c) cols.push_back(wd_emu_read(argv[c]));
    for (size_t c = 0; c < cols.size(); ++c) in.p[c] = cols[c].data();
    std::vector<K> keys(n + 1);
    std::vector<V> vals(n + 1);
    // Unique's warps take wd_unique_span<K> warp tiles each (catalogue::runs_block_tile).
    const wd_u64 block_tile = (wd_u64)WD_BLOCK / 32u * WD_TILE * (values ? 1u : wd_unique_span<K>);
    // The runtime's block tile (catalogue::runs_block_tile), which sizes its grid, must be the
    // kernel's.
    if (const char* rt = std::getenv("WD_EMU_RUNTIME_BLOCK_TILE"); rt && std::strtoull(rt, nullptr, 10) != block_tile) {
        std::fprintf(stderr, "the runtime's block tile %s is not the kernel's %llu\n", rt, (unsigned long long)block_tile);
        return 3;
    }
    const wd_u64 tiles = (n + block_tile - 1) / block_tile;
    std::vector<uint4> status(tiles * 4 + 4);  // 64 bytes a tile: more than any layout needs
    wd_u64 count = ~0ull;
    wd_emu_launch((unsigned)tiles, [&] {
        kernel(in, n, a, keys.data(), values ? vals.data() : nullptr, (unsigned char*)status.data(), nullptr, &count);
    });
    wd_emu_write(out + ".keys", keys.data(), n * sizeof(K));
    wd_emu_write(out + ".vals", vals.data(), n * sizeof(V));
    wd_emu_write(out + ".count", &count, 8);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 6) {
        std::fprintf(stderr, "usage: emu N VALUES ARGS OUT COL...\n");
        return 2;
    }
    return run(&wd_k_runs, argc, argv);
}
