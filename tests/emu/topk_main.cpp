// Runs the generated top-k module's levels on the CPU (shim.h) as Gpu::top_k launches them,
// the blocks of a level one after another, and checks every answer against a sort of (oriented
// key, index). Built by tests/tests/emu_topk.rs with MODULE (the module file), ELEM (its C
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

static void launch(unsigned grid, const std::function<void()>& body) {
    gridDim.x = grid;
    for (unsigned b = 0; b < grid; ++b) {
        std::barrier<> block(256);
        Emu e;
        e.block = &block;
        for (int w = 0; w < 8; ++w) e.warp[w] = new std::barrier<>(32);
        emu = &e;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < 256; ++t)
            ts.emplace_back([&, t, b] { threadIdx.x = t; blockIdx.x = b; body(); });
        for (auto& t : ts) t.join();
        for (int w = 0; w < 8; ++w) delete e.warp[w];
    }
}

static std::vector<unsigned> levels(unsigned first) {
    std::vector<unsigned> l{first};
    while (l.back() > 1) l.push_back((l.back() + WD_TOPK_FANIN - 1) / WD_TOPK_FANIN);
    return l;
}

// Returns 0 when the emulated kernel equals the reference.
static int run(const std::vector<E>& xs, unsigned k, bool largest, unsigned grid0, const char* what) {
    const size_t n = xs.size();
    auto lv = levels(grid0);
    size_t b0 = lv[0], b1 = lv.size() > 1 ? lv[1] : 0;
    std::vector<unsigned long long> keys[2] = {std::vector<unsigned long long>(b0 * k), std::vector<unsigned long long>(b1 * k + 1)};
    std::vector<unsigned> idx[2] = {std::vector<unsigned>(b0 * k), std::vector<unsigned>(b1 * k + 1)};
    std::vector<unsigned> counts[2] = {std::vector<unsigned>(b0), std::vector<unsigned>(b1 + 1)};
    unsigned long long bound = 0;
    std::vector<E> values(k);
    std::vector<unsigned long long> indices(k, ~0ull);
    wd_in in{};
    in.p[0] = xs.data();
    wd_args a{};
    for (size_t level = 0; level < lv.size(); ++level) {
        const unsigned long long* ck = nullptr; const unsigned* ci = nullptr; const unsigned* cc = nullptr;
        unsigned long long slots = 0;
        if (level > 0) {
            int p = (level - 1) % 2;
            ck = keys[p].data(); ci = idx[p].data(); cc = counts[p].data(); slots = (unsigned long long)lv[level - 1] * k;
        }
        int o = level % 2;
        launch(lv[level], [&] {
            wd_k_topk(in, n, a, k, largest, ck, ci, cc, slots, keys[o].data(), idx[o].data(), counts[o].data(), &bound, values.data(), indices.data());
        });
    }
    // Reference: sort by (oriented key desc, index asc).
    std::vector<std::pair<unsigned long long, unsigned>> ref(n);
    for (size_t i = 0; i < n; ++i) {
        K key = wd_topk_key<E>::of(xs[i]);
        K mask = (K)~(K)0 >> (sizeof(K) * 8 - wd_topk_key<E>::BITS);
        ref[i] = {largest ? key : (K)(~key & mask), (unsigned)i};
    }
    std::sort(ref.begin(), ref.end(), [](auto& x, auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    for (unsigned j = 0; j < k; ++j) {
        if (indices[j] != ref[j].second || std::memcmp(&values[j], &xs[ref[j].second], sizeof(E)) != 0) {
            printf("FAIL %s n=%zu k=%u largest=%d grid0=%u at %u: got %llu want %u\n", what, n, k, largest, grid0, j, indices[j], ref[j].second);
            return 1;
        }
    }
    printf("ok %s n=%zu k=%u largest=%d grid0=%u levels=%zu\n", what, n, k, largest, grid0, lv.size());
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
                    for (unsigned g : {1u, 3u, 9u})
                        if (k <= n) bad += run(xs, k, largest, g, what);
    }
    printf(bad ? "FAILURES %d\n" : "ALL OK\n", bad);
    return bad != 0;
}
