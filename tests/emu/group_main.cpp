// Runs the generated group module's kernels (wd_k_group_range, wd_k_group_table,
// wd_k_group_count, wd_k_group_write) on the CPU (shim.h) as Gpu::group_table and
// Gpu::group_write launch them, and checks the range, the number of groups and every group's
// key and sum against a std::map of wrapping sums. Built by tests/tests/emu/group.rs with
// MODULE (the module file), KEY and VAL (its C key and value types).
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;
typedef KEY K;
typedef VAL V;
typedef wd_sort_bits<K>::T U;

static unsigned long long mix(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// `n` pairs whose keys' order words are `first` + (a random number below `span`), the two
// ends present, values of random bits.
static int run(size_t n, unsigned long long first, unsigned long long span, wd_u32 identity, const char* what) {
    const unsigned long long top = (U)~(U)0;  // the largest order word
    if (first > top) first = top;
    if (span > top - first + 1 && top - first + 1 != 0) span = top - first + 1;
    std::vector<K> keys(n);
    std::vector<V> vals(n);
    for (size_t i = 0; i < n; ++i) {
        const unsigned long long w = first + (i == 0 ? 0 : i == 1 ? span - 1 : mix(i * 7 + span) % span);
        keys[i] = wd_sort_key<K>((U)w, false);
        const unsigned long long r = mix(i * 13 + 1);
        std::memcpy(&vals[i], &r, sizeof(V));
    }
    std::map<unsigned long long, wd_u32> want;
    for (size_t i = 0; i < n; ++i) want[(unsigned long long)wd_sort_word(keys[i], false)] += (wd_u32)vals[i];
    std::vector<wd_u64> range = {~0ull, 0ull};
    wd_emu_launch(3, [&] { wd_k_group_range(keys.data(), n, range.data()); });
    const unsigned long long lo = want.begin()->first, hi = want.rbegin()->first;
    if (range[0] != lo || range[1] != hi) {
        printf("FAIL %s: range %llu .. %llu, want %llu .. %llu\n", what, (unsigned long long)range[0],
               (unsigned long long)range[1], lo, hi);
        return 1;
    }
    const size_t slots = (size_t)(hi - lo + 1), tile = (size_t)WD_BLOCK * WD_GROUP_ITEMS;
    const size_t tiles = (slots + tile - 1) / tile;
    std::vector<wd_u64> table(slots, 0ull), total(1, 0ull);
    std::vector<wd_u32> counts(tiles, ~0u);
    wd_emu_launch(3, [&] { wd_k_group_table(keys.data(), vals.data(), n, lo, table.data()); });
    wd_emu_launch((unsigned)tiles, [&] { wd_k_group_count(table.data(), slots, counts.data(), total.data()); });
    if (total[0] != want.size()) {
        printf("FAIL %s: %llu groups, want %zu\n", what, (unsigned long long)total[0], want.size());
        return 1;
    }
    std::vector<K> keys_out(want.size());
    std::vector<V> vals_out(want.size());
    wd_emu_launch((unsigned)tiles, [&] {
        wd_k_group_write(table.data(), slots, lo, counts.data(), identity, keys_out.data(), vals_out.data());
    });
    size_t j = 0;
    for (const auto& [w, sum] : want) {
        const V v = (V)(identity + sum);
        if (wd_sort_word(keys_out[j], false) != (U)w || std::memcmp(&vals_out[j], &v, sizeof(V)) != 0) {
            printf("FAIL %s: group %zu\n", what, j);
            return 1;
        }
        ++j;
    }
    return 0;
}

int main() {
    int failed = 0;
    const unsigned long long mid = (unsigned long long)(U)~(U)0 / 2;  // around zero for signed keys
    failed += run(1, mid, 1, 0u, "one pair");
    failed += run(5000, mid - 100, 200, 0u, "dense around the middle");
    failed += run(20000, 0, 3 * WD_BLOCK * WD_GROUP_ITEMS + 5, 0u, "sparse, from the smallest word");
    const unsigned long long top = (U)~(U)0;
    failed += run(3000, top >= 999 ? top - 999 : 0, 1000, 7u, "up to the largest word, identity 7");
    failed += run(4000, mid, 1, 0u, "one key");
    if (failed == 0) printf("ALL OK\n");
    return failed;
}
