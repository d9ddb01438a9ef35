// Runs the generated search module's kernel (wd_k_search) on the CPU (shim.h) as Gpu::search
// launches it (a few blocks, grid-stride) and checks every answer against std::lower_bound /
// std::upper_bound by the order words. Built by tests/tests/emu/search.rs with MODULE (the
// module file) and ELEM (its C key type); answers are u32.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;
typedef ELEM E;
typedef wd_sort_bits<E>::T U;

static unsigned long long mix(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int run(size_t n, size_t m, unsigned long long spread, bool desc, const char* what) {
    std::vector<E> xs(n), qs(m);
    for (size_t i = 0; i < n; ++i) {
        const unsigned long long r = mix(i * 31 + n) % spread;
        std::memcpy(&xs[i], &r, sizeof(E));
    }
    for (size_t i = 0; i < m; ++i) {
        const unsigned long long r = mix(i * 17 + 5) % (spread + 2);
        std::memcpy(&qs[i], &r, sizeof(E));
    }
    auto word = [&](E x) { return wd_sort_word<E>(x, desc); };
    std::sort(xs.begin(), xs.end(), [&](E a, E b) { return word(a) < word(b); });
    wd_u32 p = 0;
    while (((size_t)WD_SEARCH_SAMPLES << p) < n) ++p;
    // Answers in place, then scattered to the places of a permutation (as after the runtime
    // sorts the queries: query i's answer goes to perm[i]).
    // Runs 4 and 5 give a permutation but an `unsorted` word of 0 (the queries were in order,
    // the sort ran no pass): the queries are read in place, the sorted copy (here reversed, so
    // reading it would fail) ignored.
    std::vector<wd_u32> perm(m);
    for (size_t i = 0; i < m; ++i) perm[i] = (wd_u32)(m - 1 - i);
    std::vector<E> reversed(qs.rbegin(), qs.rend());
    const wd_u32 in_order = 0u, out_of_order = 1u;
    for (int run = 0; run < 6; ++run) {
        const int upper = run & 1;
        const wd_u32* pm = run >= 2 ? perm.data() : nullptr;
        const wd_u32* unsorted = run >= 4 ? &in_order : (run >= 2 && upper ? &out_of_order : nullptr);
        const E* copy = run >= 4 ? reversed.data() : qs.data();
        std::vector<wd_u32> got(m, ~0u), out(m);
        wd_emu_launch(3, [&] {
            wd_k_search(xs.data(), n, qs.data(), copy, m, pm, unsorted, p, upper, desc, got.data());
        });
        for (size_t i = 0; i < m; ++i) out[i] = got[pm && run < 4 ? pm[i] : i];
        for (size_t i = 0; i < m; ++i) {
            const U w = word(qs[i]);
            size_t want = 0;
            while (want < n && (upper ? word(xs[want]) <= w : word(xs[want]) < w)) ++want;
            if (out[i] != want) {
                printf("FAIL %s n=%zu desc=%d upper=%d query %zu: got %u want %zu\n", what, n, desc, upper, i, out[i], want);
                return 1;
            }
        }
    }
    // The order check: the random queries are out of order, sorted ones (and one) in order.
    std::vector<E> ordered = qs;
    std::sort(ordered.begin(), ordered.end(), [&](E a, E b) { return word(a) < word(b); });
    for (int k = 0; k < 3; ++k) {
        const std::vector<E>& q = k == 0 ? qs : ordered;
        const size_t len = k == 2 ? 1 : m;
        wd_u32 flag = 0;
        wd_emu_launch(2, [&] { wd_k_search_order(q.data(), len, desc, &flag); });
        bool want = false;
        for (size_t i = 0; i + 1 < len; ++i) want |= word(q[i]) > word(q[i + 1]);
        if (flag != (wd_u32)want) {
            printf("FAIL %s n=%zu desc=%d order check %d: got %u want %d\n", what, n, desc, k, flag, want);
            return 1;
        }
    }
    return 0;
}

// Queries in order searched by tiles (wd_k_search_bounds, then wd_k_search_tiles), as
// Gpu::search launches them for queries it knows are in order: in place, and as the sorted
// copy with the positions to write to. Queries spread over the array (tiles searched in shared
// memory) or in two clusters at its ends (a tile spanning the array: searched in global
// memory). Then an array out of order: every answer is still a place from 0 to n.
static int tiles(size_t n, size_t m, unsigned long long spread, bool desc, bool clustered, const char* what, size_t off = 0) {
    std::vector<E> xs(n), qs(m);
    for (size_t i = 0; i < n; ++i) {
        const unsigned long long r = mix(i * 29 + n) % spread;
        std::memcpy(&xs[i], &r, sizeof(E));
    }
    for (size_t i = 0; i < m; ++i) {
        unsigned long long r = mix(i * 13 + 3) % (spread + 2);
        if (clustered) r = i < m / 2 ? r % 3 : spread + 1 - r % 3;
        std::memcpy(&qs[i], &r, sizeof(E));
    }
    auto word = [&](E x) { return wd_sort_word<E>(x, desc); };
    auto by_word = [&](E a, E b) { return word(a) < word(b); };
    std::sort(xs.begin(), xs.end(), by_word);
    std::sort(qs.begin(), qs.end(), by_word);
    // The array the kernels read starts `off` keys into its allocation (a view: its first key
    // not aligned to 16 bytes when off is not 0).
    std::vector<E> store(off + n);
    std::copy(xs.begin(), xs.end(), store.begin() + off);
    const E* keys = store.data() + off;
    wd_u32 p = 0;
    while (((size_t)WD_SEARCH_SAMPLES << p) < n) ++p;
    const size_t ntiles = (m + WD_BLOCK - 1) / WD_BLOCK;
    std::vector<wd_u32> perm(m);
    for (size_t i = 0; i < m; ++i) perm[i] = (wd_u32)((i * 7919) % m);
    std::vector<E> reversed(qs.rbegin(), qs.rend());
    const wd_u32 out_of_order = 1u;
    for (int run = 0; run < 4; ++run) {
        const int upper = run & 1;
        // Runs 2 and 3: the sorted copy with positions (`queries` reversed: reading it fails).
        const bool copy = run >= 2;
        const E* in_place = copy ? reversed.data() : qs.data();
        const wd_u32* pm = copy ? perm.data() : nullptr;
        const wd_u32* unsorted = copy ? &out_of_order : nullptr;
        std::vector<wd_u64> bounds(ntiles + 1, ~0ull);
        std::vector<wd_u32> got(m, ~0u);
        wd_emu_launch(2, [&] {
            wd_k_search_bounds(keys, n, in_place, qs.data(), m, pm, unsorted, p, upper, desc, bounds.data());
        });
        wd_emu_launch(3, [&] {
            wd_k_search_tiles(keys, in_place, qs.data(), m, pm, unsorted, bounds.data(), upper, desc, got.data());
        });
        for (size_t i = 0; i < m; ++i) {
            const U w = word(qs[i]);
            const size_t want = std::partition_point(xs.begin(), xs.end(), [&](E x) {
                                    return upper ? word(x) <= w : word(x) < w;
                                }) - xs.begin();
            const wd_u32 at = got[copy ? perm[i] : i];
            if (at != want) {
                printf("FAIL tiles %s n=%zu m=%zu off=%zu desc=%d upper=%d query %zu: got %u want %zu\n", what, n, m, off, desc, upper,
                       i, at, want);
                return 1;
            }
        }
    }
    // The array out of order (reversed): no answer past n.
    std::reverse(xs.begin(), xs.end());
    std::vector<wd_u64> bounds(ntiles + 1);
    std::vector<wd_u32> got(m, ~0u);
    wd_emu_launch(2, [&] {
        wd_k_search_bounds(xs.data(), n, qs.data(), qs.data(), m, nullptr, nullptr, p, 0, desc, bounds.data());
    });
    wd_emu_launch(3, [&] {
        wd_k_search_tiles(xs.data(), qs.data(), qs.data(), m, nullptr, nullptr, bounds.data(), 0, desc, got.data());
    });
    for (size_t i = 0; i < m; ++i) {
        if (got[i] > n) {
            printf("FAIL tiles %s n=%zu, array out of order: query %zu answered %u\n", what, n, i, got[i]);
            return 1;
        }
    }
    return 0;
}

int main() {
    int failed = 0;
    const size_t s = WD_SEARCH_SAMPLES;
    for (size_t n : {1ul, 2ul, 7ul, s - 1, s, s + 1, 3 * s + 5, 8 * s + 1}) {
        for (bool desc : {false, true}) {
            failed += run(n, 3000, 1ull << 40, desc, "random");
            failed += run(n, 3000, 5, desc, "few values");
        }
    }
    const size_t cap = WD_SEARCH_TILE_BYTES / sizeof(U);
    for (size_t n : {1ul, 300ul, cap - 1, cap + 1, 3 * cap + 7}) {
        for (bool desc : {false, true}) {
            for (size_t m : {1ul, 255ul, 256ul, 257ul, 2000ul}) {
                failed += tiles(n, m, 1ull << 40, desc, false, "random");
                failed += tiles(n, m, 5, desc, false, "few values");
                failed += tiles(n, m, 1ull << 40, desc, true, "clustered");
            }
            for (size_t off : {1ul, 3ul}) failed += tiles(n, 2000, 1ull << 40, desc, false, "random, a view", off);
        }
    }
    if (failed == 0) printf("ALL OK\n");
    return failed != 0;
}
