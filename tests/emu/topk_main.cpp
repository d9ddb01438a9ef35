// Runs the generated top-k module's sample level and levels on the CPU (shim.h) as Gpu::top_k launches them,
// the blocks of a level one after another, and checks every answer against a sort of (oriented
// key, index). Built by tests/tests/emu/topk.rs with MODULE (the module file), ELEM (its C
// element type) and GEN_UP (fills up[i], an ascending input, from i and u = 7 i).
#include <algorithm>
#include <cstdio>
#include <random>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;
typedef ELEM E;
typedef wd_topk_key<E>::T K;

// The oriented key (wd_topk_oriented).
static unsigned long long oriented(E x, bool largest) {
    K key = wd_topk_key<E>::of(x);
    K mask = (K)~(K)0 >> (sizeof(K) * 8 - wd_topk_key<E>::BITS);
    return largest ? key : (K)(~key & mask);
}

// The runtime's topk_levels.
static std::vector<unsigned> levels(unsigned first, unsigned k) {
    std::vector<unsigned> l{first};
    while ((unsigned long long)l.back() * k > WD_TOPK_LEVEL_SLOTS) l.push_back((l.back() * k + WD_TOPK_LEVEL_SLOTS - 1) / WD_TOPK_LEVEL_SLOTS);
    return l;
}

// Returns 0 when the emulated kernel equals the reference. `groups` > 0: the sample level
// first, with groups of one warp load each.
static int run(const std::vector<E>& xs, unsigned k, bool largest, unsigned grid0, unsigned groups, const char* what) {
    const size_t n = xs.size();
    auto lv = levels(grid0, k);
    size_t most[2] = {0, 0};
    for (size_t l = 0; l < lv.size(); ++l) most[l % 2] = std::max<size_t>(most[l % 2], (size_t)lv[l] * k);
    std::vector<unsigned long long> keys[2] = {std::vector<unsigned long long>(most[0] + 1), std::vector<unsigned long long>(most[1] + 1)};
    std::vector<unsigned> idx[2] = {std::vector<unsigned>(most[0] + 1), std::vector<unsigned>(most[1] + 1)};
    std::vector<unsigned> totals(lv.size(), 0), tickets(lv.size(), 0);
    unsigned done = 0;
    unsigned long long bound = 0;
    std::vector<E> values(k);
    std::vector<unsigned long long> indices(k, ~0ull);
    wd_in in{};
    in.p[0] = xs.data();
    wd_args a{};
    if (groups > 0) {
        const unsigned long long len = 32ull * wd_topk_sizes<K>::ITEMS;
        if (n / groups < len) return 0;
        std::vector<unsigned long long> sample(groups);
        unsigned ticket = 0;
        wd_emu_launch((groups + 7) / 8, [&] { wd_k_topk_sample(in, n, a, k, largest, groups, len, sample.data(), &ticket, &bound); });
        // The bound is the k-th largest group maximum, which at least k elements reach.
        std::vector<unsigned long long> maxima(groups, 0);
        for (unsigned g = 0; g < groups; ++g)
            for (unsigned long long j = 0; j < len; ++j) maxima[g] = std::max(maxima[g], oriented(xs[g * (n / groups) + j], largest));
        std::sort(maxima.rbegin(), maxima.rend());
        if (bound != maxima[k - 1] || ticket != (groups + 7) / 8) {
            printf("FAIL %s n=%zu k=%u: the sample level left bound %llx (want %llx), ticket %u\n", what, n, k, bound, maxima[k - 1], ticket);
            return 1;
        }
    }
    for (size_t level = 0; level < lv.size(); ++level) {
        const unsigned long long* ck = nullptr; const unsigned* ci = nullptr; const unsigned* ct = nullptr;
        if (level > 0) {
            int p = (level - 1) % 2;
            ck = keys[p].data(); ci = idx[p].data(); ct = &totals[level - 1];
        }
        int o = level % 2;
        wd_emu_launch(lv[level], [&] {
            wd_k_topk(in, n, a, k, largest, ck, ci, ct, (unsigned)level, keys[o].data(), idx[o].data(), &totals[level], &tickets[level], &done, &bound,
                      values.data(), indices.data());
        });
    }
    // Reference: sort by (oriented key desc, index asc).
    std::vector<std::pair<unsigned long long, unsigned>> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = {oriented(xs[i], largest), (unsigned)i};
    std::sort(ref.begin(), ref.end(), [](auto& x, auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    for (unsigned j = 0; j < k; ++j) {
        if (indices[j] != ref[j].second || std::memcmp(&values[j], &xs[ref[j].second], sizeof(E)) != 0) {
            printf("FAIL %s n=%zu k=%u largest=%d grid0=%u at %u: got %llu want %u\n", what, n, k, largest, grid0, j, indices[j], ref[j].second);
            return 1;
        }
    }
    printf("ok %s n=%zu k=%u largest=%d grid0=%u groups=%u levels=%zu done=%u bound=%llx\n", what, n, k, largest, grid0, groups, lv.size(), done, bound);
    return 0;
}

int main() {
    std::mt19937_64 rng(42);
    int bad = 0;
    for (size_t n : {1000ul, 5000ul, 40000ul}) {
        std::vector<std::pair<const char*, std::vector<E>>> inputs;
        std::vector<E> r(n), up(n), eq(n), few(n);
        for (size_t i = 0; i < n; ++i) {
            unsigned long long x = rng();
            std::memcpy(&r[i], &x, sizeof(E));
            unsigned long long u = i * 7;
            GEN_UP
            unsigned long long e = 0x3f;
            std::memcpy(&eq[i], &e, sizeof(E));
            unsigned long long f = rng() % 3;
            std::memcpy(&few[i], &f, sizeof(E));
        }
        inputs.push_back({"random bits", r});
        inputs.push_back({"ascending", up});
        inputs.push_back({"all equal", eq});
        inputs.push_back({"few", few});
        for (auto& [what, xs] : inputs)
            for (unsigned k : {1u, 100u, 1024u})
                for (bool largest : {true, false})
                    for (unsigned g : {1u, 3u, 9u}) {
                        if (k <= n) bad += run(xs, k, largest, g, 0, what);
                        if (k <= 100 && g == 9) bad += run(xs, k, largest, g, k == 1 ? 8 : 128, what);
                    }
    }
    printf(bad ? "FAILURES %d\n" : "ALL OK\n", bad);
    return bad != 0;
}
