// Runs the generated top-k module's rows kernel (wd_k_topk_rows) on the CPU (shim.h) as
// Gpu::top_k_rows launches it, a block per row (or per piece of a row, then over the pieces'
// candidates), one after another, and checks every row's
// answer against a sort of (oriented key, column). Built by tests/tests/emu/topk_rows.rs with
// MODULE (the module file) and ELEM (its C element type).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;
typedef ELEM E;
typedef wd_topk_key<E>::T K;

static unsigned long long mix(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// The oriented key: the key, complemented within its bits for the smallest.
static unsigned long long oriented(E x, bool largest) {
    K key = wd_topk_key<E>::of(x);
    K mask = (K)~(K)0 >> (sizeof(K) * 8 - wd_topk_key<E>::BITS);
    return largest ? key : (K)(~key & mask);
}

// `stream`: the kernel that reads each piece once (wd_k_topk_rows_stream), else the radix
// select (wd_k_topk_rows); the runtime picks by the pieces' length, both must give the answer.
static int run(const std::vector<E>& xs, unsigned cols, unsigned k, bool largest, bool stream, const char* what) {
    const auto kernel = stream ? wd_k_topk_rows_stream : wd_k_topk_rows;
    const unsigned rows = (unsigned)(xs.size() / cols);
    std::vector<E> values(rows * k);
    std::vector<wd_u32> columns(rows * k, ~0u);
    // In pieces (as Gpu::top_k_rows splits few long rows): each piece's k candidates, then
    // the rows' k of them, the candidates' columns mapped back; else a block per row.
    const unsigned pieces = cols >= 8 * k && cols >= 16 ? 3 : 1;
    if (pieces > 1) {
        const unsigned wide = pieces * k;
        std::vector<E> cv(rows * wide);
        std::vector<wd_u32> cc(rows * wide, ~0u);
        wd_emu_launch(rows * pieces, [&] {
            kernel(xs.data(), cols, pieces, cols / pieces, nullptr, k, largest, cv.data(), cc.data());
        });
        wd_emu_launch(rows, [&] {
            kernel(cv.data(), wide, 1, wide, cc.data(), k, largest, values.data(), columns.data());
        });
    } else {
        wd_emu_launch(rows, [&] {
            kernel(xs.data(), cols, 1, cols, nullptr, k, largest, values.data(), columns.data());
        });
    }
    for (unsigned r = 0; r < rows; ++r) {
        std::vector<std::pair<unsigned long long, unsigned>> ref;
        for (unsigned c = 0; c < cols; ++c) ref.push_back({oriented(xs[(size_t)r * cols + c], largest), c});
        std::stable_sort(ref.begin(), ref.end(), [](auto& a, auto& b) { return a.first > b.first; });
        for (unsigned j = 0; j < k; ++j) {
            const size_t at = (size_t)r * k + j;
            const E want = xs[(size_t)r * cols + ref[j].second];
            if (columns[at] != ref[j].second || std::memcmp(&values[at], &want, sizeof(E)) != 0) {
                printf("FAIL %s %s %u x %u k=%u largest=%d row %u entry %u: column %u, want %u\n", stream ? "stream" : "radix", what,
                       rows, cols, k, largest, r, j, columns[at], ref[j].second);
                return 1;
            }
        }
    }
    return 0;
}

int main() {
    int failed = 0;
    const unsigned shapes[][3] = {{3, 1, 1}, {4, 37, 5}, {3, 300, 300}, {3, 1001, 10}, {2, 2000, 64}, {2, 5000, 1024}, {2, 40000, 50}, {1, 33339, 7}, {2, 3000, 255}, {1, 20000, 256}};
    for (auto& s : shapes) {
        const unsigned rows = s[0], cols = s[1], k = s[2];
        std::vector<E> random(rows * cols), few(rows * cols), same(rows * cols);
        for (size_t i = 0; i < random.size(); ++i) {
            const unsigned long long r = mix(i * 13 + cols);
            std::memcpy(&random[i], &r, sizeof(E));
            const unsigned long long f = mix(r % 3);
            std::memcpy(&few[i], &f, sizeof(E));
            std::memcpy(&same[i], &f, sizeof(E));
        }
        same.assign(same.size(), few[0]);
        for (bool stream : {false, true}) {
            for (bool largest : {true, false}) {
                failed += run(random, cols, k, largest, stream, "random");
                failed += run(few, cols, k, largest, stream, "three values");  // ties by column
                failed += run(same, cols, k, largest, stream, "all equal");
            }
        }
    }
    if (failed == 0) printf("ALL OK\n");
    return failed != 0;
}
