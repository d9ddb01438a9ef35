// Runs the generated merge sort module's kernels on the CPU (shim.h) as Gpu::merge_sort
// launches them (the block sort, then a two-way pass (partition and merge) when the doublings
// are odd, then four-way passes (pivots and merge); with positions two-way passes alone;
// blocks one after another) and checks keys and positions against std::stable_sort by the module's
// wd_less; and the keys alone, with null positions, as a sort without an argsort runs, then
// searches each input key and neighbours of it in them by the same comparator (wd_k_merge_search). Built by tests/tests/emu/merge.rs with MODULE (the module file), ELEM (its C key
// type) and ARG (the comparator's bound argument, 0 for none).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;
typedef ELEM E;

static unsigned long long mix(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int run_one(const std::vector<E>& xs, const char* what, bool with_pos) {
    const size_t n = xs.size(), tile = WD_MERGE_TILE, tiles = (n + tile - 1) / tile;
    wd_args a{};
    a.v[0] = ARG;
    unsigned doublings = 0;
    while ((tile << doublings) < n) ++doublings;
    // Two-way passes: every one with positions, else the first when the doublings are odd.
    const unsigned two_way = with_pos ? doublings : doublings % 2;
    const unsigned passes = two_way + (doublings - two_way) / 2;
    std::vector<E> out(n), tmp(n);
    std::vector<wd_u32> pos(n, ~0u), ptmp(n);
    wd_u32* po = with_pos ? pos.data() : nullptr;
    wd_u32* pt = with_pos ? ptmp.data() : nullptr;
    std::vector<wd_u64> part(tiles + 1);
    wd_u32 src = passes % 2 == 0 ? 1u : 0u;
    wd_emu_launch((unsigned)tiles, [&] {
        if (with_pos) wd_k_merge_block_sort(xs.data(), n, a, out.data(), tmp.data(), po, pt, src);
        else wd_k_merge_block_sort_keys(xs.data(), n, a, out.data(), tmp.data(), po, pt, src);
    });
    for (unsigned p = 0; p < two_way; ++p) {
        src ^= 1u;
        const wd_u64 width = (wd_u64)tile << p;
        wd_emu_launch((unsigned)((tiles + 256) / 256), [&] { wd_k_merge_partition(out.data(), tmp.data(), src, n, width, tiles, a, part.data()); });
        wd_emu_launch((unsigned)tiles, [&] {
            if (with_pos) wd_k_merge_pass(out.data(), tmp.data(), po, pt, src, n, width, part.data(), a);
            else wd_k_merge_pass_keys(out.data(), tmp.data(), po, pt, src, n, width, part.data(), a);
        });
    }
    for (unsigned d = two_way; d < doublings; d += 2) {
        src ^= 1u;
        const wd_u64 width = (wd_u64)tile << d, group = 4 * width, groups = (n + group - 1) / group;
        const wd_u64 per = (group + WD_MERGE4_SPAN - 1) / WD_MERGE4_SPAN, last = n - (groups - 1) * group;
        const wd_u64 blocks = (groups - 1) * per + (last + WD_MERGE4_SPAN - 1) / WD_MERGE4_SPAN;
        const wd_u64 total = groups * (group / WD_MERGE4_SPACING);
        std::vector<wd_u32> table(4 * total, ~0u);
        std::vector<wd_u64> slots(groups * per, 0);
        wd_emu_launch((unsigned)((total + 255) / 256), [&] { wd_k_merge4_pivots(out.data(), tmp.data(), src, n, width, total, a, table.data(), slots.data()); });
        wd_emu_launch((unsigned)blocks, [&] { wd_k_merge4_pass_keys(out.data(), tmp.data(), src, n, width, table.data(), slots.data(), a); });
    }
    std::vector<size_t> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = i;
    std::stable_sort(ref.begin(), ref.end(), [&](size_t x, size_t y) { return wd_less(a, xs[x], xs[y]); });
    for (size_t j = 0; j < n; ++j) {
        if (std::memcmp(&out[j], &xs[ref[j]], sizeof(E)) != 0 || (with_pos && pos[j] != ref[j])) {
            printf("FAIL %s n=%zu (positions: %d) at %zu: want position %zu, got %u\n", what, n, (int)with_pos, j, ref[j],
                   pos[j]);
            return 1;
        }
    }
    // The search by the same comparator: every input key as a query into the sorted keys, and
    // a neighbour of each that is mostly absent from them (in turn one more, a half more, its
    // negation less one: below or past every key), lower and upper bounds, against
    // std::partition_point.
    if (!with_pos) {
        std::vector<E> queries;
        for (size_t j = 0; j < n; ++j) {
            const E x = xs[j];
            queries.push_back(x);
            queries.push_back(j % 3 == 0 ? (E)(x + (E)1) : j % 3 == 1 ? (E)(x + (E)0.5) : (E)((E)0 - x - (E)1));
        }
        const size_t m = queries.size();
        std::vector<wd_u32> found(m);
        for (wd_u32 upper = 0; upper < 2; ++upper) {
            wd_emu_launch((unsigned)((m + 255) / 256), [&] { wd_k_merge_search(out.data(), n, queries.data(), m, a, upper, found.data()); });
            for (size_t j = 0; j < m; ++j) {
                const E q = queries[j];
                const size_t want = std::partition_point(out.begin(), out.end(), [&](const E& x) {
                                        return upper ? !wd_less(a, q, x) : wd_less(a, x, q);
                                    }) - out.begin();
                if (found[j] != want) {
                    printf("FAIL %s n=%zu search (upper: %u) of query %zu: want %zu, got %u\n", what, n, upper, j, want, found[j]);
                    return 1;
                }
            }
        }
    }
    return 0;
}

static int run(const std::vector<E>& xs, const char* what) { return run_one(xs, what, true) + run_one(xs, what, false); }

int main() {
    int failed = 0;
    const size_t t = WD_MERGE_TILE;
    // Sizes: within a tile, a two-way pass alone, a four-way one alone (one group, and one
    // with the fourth run clipped), a two-way and a four-way pass (the last group short of its
    // third run), two four-way passes, and a two-way and two four-way passes.
    for (size_t n : {1ul, 2ul, 9ul, 16ul, 17ul, 18ul, 255ul, t - 1, t, t + 1, 2 * t + 3, 3 * t + 1, 4 * t, 5 * t + 77,
                     16 * t, 17 * t + 5}) {
        std::vector<E> random(n), few(n);
        for (size_t i = 0; i < n; ++i) {
            const unsigned long long r = mix(i * 31 + n);
            random[i] = (E)(r % 100000);
            few[i] = (E)(r % 3);
        }
        std::vector<E> reversed(random);
        std::sort(reversed.begin(), reversed.end(), [&](E x, E y) { return wd_less(wd_args{}, y, x); });
        failed += run(random, "random");
        failed += run(few, "three values");
        failed += run(reversed, "reversed");
        std::vector<E> sorted(random);
        std::stable_sort(sorted.begin(), sorted.end(), [&](E x, E y) { return wd_less(wd_args{}, x, y); });
        failed += run(sorted, "sorted");
    }
    if (failed == 0) printf("ALL OK\n");
    return failed != 0;
}
