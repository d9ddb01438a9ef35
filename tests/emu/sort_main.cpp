// Runs the generated sort module's kernels on the CPU (shim.h) as Gpu::sort launches them (the
// histogram, the plan, one launch per pass, the blocks of a pass one after another; a
// keys-only module's persistent pass on a grid of 3 blocks) and checks
// keys, pairs and argsort against std::stable_sort by the order word, keys partitioned by one byte of it
// (Gpu::partition_by_byte), the rows' and the segments' sorts. Built by
// tests/tests/emu/sort.rs with MODULE (the module file), ELEM (its C key type) and VAL (the C
// type of the values moved: the module's value word).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include MODULE
thread_local dim3 threadIdx, blockIdx;
dim3 gridDim;
Emu* emu;
typedef ELEM E;
typedef VAL V;
typedef wd_sort_bits<E>::T U;

static unsigned long long mix(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// The passes the last run's plan marked crowded (ranked by __match_any_sync).
static unsigned crowded_passes = 0;

// mode 0: keys alone (a keys-only module); 1: pairs (values v[i] = mix(i)); 2: argsort
// (positions). With `low` >= 0, only the byte of the order words from that bit (clamped to the
// top byte), as Gpu::partition_by_byte launches it: the plan and the passes see one pass.
static int run(const std::vector<E>& xs, bool desc, int mode, const char* what, int low = -1) {
    const size_t n = xs.size();
    const unsigned digits = sizeof(E), passes = low < 0 ? digits : 1u;
    const unsigned from = low < 0 ? 0u : (unsigned)low;
    const size_t tiles = (n + WD_SORT_TILE - 1) / WD_SORT_TILE;
    std::vector<unsigned long long> status(tiles * 256, 0), hist(digits * 256, 0), offsets(passes * 256);
    std::vector<unsigned> queue(passes, 0), plan(passes, 0);
    std::vector<E> out(n), tmp(n);
    std::vector<V> vin(n), vout(n, 0), vtmp(n);
    for (size_t i = 0; i < n; ++i) vin[i] = (V)mix(i);
    wd_emu_launch(3, [&] { wd_k_sort_histogram(xs.data(), n, desc, from, nullptr, hist.data()); });
    wd_emu_launch(1, [&] { wd_k_sort_plan(hist.data(), n, passes, nullptr, offsets.data(), plan.data()); });
    crowded_passes = 0;
    for (unsigned p = 0; p < passes; ++p) crowded_passes += (plan[p] >> 12) & 1u;
    // A persistent pass (WD_SORT_PERSIST: keys alone) runs a resident grid: here 3 blocks one
    // after another, the first taking every tile in queue order, loading each next tile's keys
    // before its current one writes out (the others find the queue empty).
    const unsigned grid = WD_SORT_PERSIST && mode == 0 ? (unsigned)std::min<size_t>(tiles, 3) : (unsigned)tiles;
    for (unsigned p = 0; p < passes; ++p) {
        wd_emu_launch(grid, [&] {
            wd_k_sort_pass(xs.data(), out.data(), tmp.data(), mode == 1 ? vin.data() : nullptr, mode ? vout.data() : nullptr,
                           mode ? vtmp.data() : nullptr, mode == 2, n, p, from, desc, plan.data(), offsets.data(),
                           status.data(), queue.data());
        }, WD_SORT_BLOCK);
    }
    if (low >= 0) {
        const unsigned top = 8u * (unsigned)sizeof(U) - 8u, bit = from < top ? from : top;
        std::vector<size_t> ref(n);
        for (size_t i = 0; i < n; ++i) ref[i] = i;
        auto digit = [&](size_t i) { return (unsigned)(wd_sort_word<E>(xs[i], desc) >> bit) & 255u; };
        std::stable_sort(ref.begin(), ref.end(), [&](size_t a, size_t b) { return digit(a) < digit(b); });
        for (size_t j = 0; j < n; ++j) {
            if (std::memcmp(&out[j], &xs[ref[j]], sizeof(E)) != 0) {
                printf("FAIL %s n=%zu desc=%d partition by the byte from bit %d at %zu: want position %zu\n", what, n, desc,
                       low, j, ref[j]);
                return 1;
            }
        }
        return 0;
    }
    std::vector<size_t> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = i;
    auto word = [&](size_t i) { return wd_sort_word<E>(xs[i], desc); };
    std::stable_sort(ref.begin(), ref.end(), [&](size_t a, size_t b) { return word(a) < word(b); });
    for (size_t j = 0; j < n; ++j) {
        const bool key_ok = std::memcmp(&out[j], &xs[ref[j]], sizeof(E)) == 0;
        const bool val_ok = mode == 0 || (mode == 1 ? vout[j] == vin[ref[j]] : vout[j] == (V)ref[j]);
        if (!key_ok || !val_ok) {
            printf("FAIL %s n=%zu desc=%d mode=%d at %zu: want position %zu\n", what, n, desc, mode, j, ref[j]);
            return 1;
        }
    }
    return 0;
}

// The rows' sort (wd_k_sort_rows, as Gpu::sort_rows launches it, and for a row a block the keys'
// wd_k_sort_rows_keys, or with `warp` the bitonic networks of rows of at most 32 keys,
// wd_k_sort_rows_warp and the keys' wd_k_sort_rows_warp_keys, on one block) of `rows` rows of `cols` keys against std::stable_sort of each row by the order
// word: keys, columns and the values (v[i] = mix(i)) at the keys' places.
static int rows_run(const std::vector<E>& xs, size_t cols, bool desc, const char* what, bool warp = false) {
    const size_t n = xs.size(), rows = n / cols;
    const size_t rpb = std::min<size_t>(255, WD_SORT_ROW_TILE / cols);
    std::vector<E> out(n);
    std::vector<wd_u32> col(n, ~0u);
    std::vector<V> vin(n), vout(n, 0);
    for (size_t i = 0; i < n; ++i) vin[i] = (V)mix(i);
    if (warp) {
        // One block: its 8 warps take the 32-row groups in turns, so each reuses its stage.
        wd_emu_launch(1, [&] {
            wd_k_sort_rows_warp(xs.data(), out.data(), col.data(), vin.data(), vout.data(), rows, (wd_u32)cols, desc);
        });
        // The keys alone (a network of words): the same keys.
        std::vector<E> keys_only(n);
        wd_emu_launch(1, [&] { wd_k_sort_rows_warp_keys(xs.data(), keys_only.data(), rows, (wd_u32)cols, desc); });
        if (std::memcmp(keys_only.data(), out.data(), n * sizeof(E)) != 0) {
            printf("FAIL rows %s %zu x %zu desc=%d: the keys' kernel differs\n", what, rows, cols, desc);
            return 1;
        }
    } else {
        wd_emu_launch((unsigned)((rows + rpb - 1) / rpb), [&] {
            wd_k_sort_rows(xs.data(), out.data(), col.data(), vin.data(), vout.data(), rows, (wd_u32)cols, (wd_u32)rpb, desc);
        });
        if (rpb == 1) {
            // A row a block: the keys alone by words without tags, the same keys.
            std::vector<E> keys_only(n);
            wd_emu_launch((unsigned)rows, [&] { wd_k_sort_rows_keys(xs.data(), keys_only.data(), (wd_u32)cols, desc); }, WD_SORT_ROW_KEYS_BLOCK);
            if (std::memcmp(keys_only.data(), out.data(), n * sizeof(E)) != 0) {
                printf("FAIL rows %s %zu x %zu desc=%d: the keys' kernel (a row a block) differs\n", what, rows, cols, desc);
                return 1;
            }
        }
    }
    for (size_t r = 0; r < rows; ++r) {
        std::vector<size_t> ref(cols);
        for (size_t c = 0; c < cols; ++c) ref[c] = c;
        auto word = [&](size_t c) { return wd_sort_word<E>(xs[r * cols + c], desc); };
        std::stable_sort(ref.begin(), ref.end(), [&](size_t a, size_t b) { return word(a) < word(b); });
        for (size_t j = 0; j < cols; ++j) {
            if (std::memcmp(&out[r * cols + j], &xs[r * cols + ref[j]], sizeof(E)) != 0 || col[r * cols + j] != ref[j] ||
                vout[r * cols + j] != vin[r * cols + ref[j]]) {
                printf("FAIL rows %s %zu x %zu desc=%d warp=%d at row %zu column %zu: want column %zu\n", what, rows, cols, desc,
                       warp, r, j, ref[j]);
                return 1;
            }
        }
    }
    return 0;
}

// The segments' sort (wd_k_sort_segments_plan, then wd_k_sort_segments, as Gpu::sort_segments
// launches them) of `xs` cut by `offsets` against std::stable_sort of each segment: keys,
// positions and values of the short and medium segments; the long ones listed by the plan (the
// host's) and left alone.
static int segments_run(const std::vector<E>& xs, const std::vector<wd_u64>& offsets, bool desc, const char* what) {
    const size_t n = xs.size(), segments = offsets.size() - 1;
    const size_t windows = (n + WD_SORT_SEGMENT_WINDOW - 1) / WD_SORT_SEGMENT_WINDOW;
    std::vector<wd_u64> win_first(windows + 1), medium(segments), longs(2 * segments), counts(3, 0);
    wd_emu_launch(2, [&] {
        wd_k_sort_segments_plan(offsets.data(), segments, n, windows, win_first.data(), medium.data(), segments, longs.data(),
                                segments, counts.data());
    });
    if (counts[2] != 0) {
        printf("FAIL segments %s: the plan found good offsets bad\n", what);
        return 1;
    }
    const E mark = xs.empty() ? E() : xs[0];
    std::vector<E> out(n, mark);
    std::vector<wd_u32> pos(n, ~0u);
    std::vector<V> vin(n), vout(n, 0);
    for (size_t i = 0; i < n; ++i) vin[i] = (V)mix(i + 5);
    wd_emu_launch((unsigned)(windows + counts[0]), [&] {
        wd_k_sort_segments(xs.data(), out.data(), pos.data(), vin.data(), vout.data(), offsets.data(), win_first.data(), windows,
                           medium.data(), desc);
    });
    size_t n_long = 0;
    for (size_t s = 0; s < segments; ++s) {
        const size_t a = offsets[s], len = offsets[s + 1] - a;
        if (len > WD_SORT_ROW_TILE) {
            ++n_long;
            bool listed = false;
            for (size_t k = 0; k < counts[1]; ++k) listed |= longs[2 * k] == a && longs[2 * k + 1] == a + len;
            bool alone = true;
            for (size_t j = 0; j < len; ++j) alone &= pos[a + j] == ~0u;
            if (!listed || !alone) {
                printf("FAIL segments %s: long segment %zu (%zu keys) listed=%d untouched=%d\n", what, s, len, listed, alone);
                return 1;
            }
            continue;
        }
        std::vector<size_t> ref(len);
        for (size_t c = 0; c < len; ++c) ref[c] = c;
        auto word = [&](size_t c) { return wd_sort_word<E>(xs[a + c], desc); };
        std::stable_sort(ref.begin(), ref.end(), [&](size_t x, size_t y) { return word(x) < word(y); });
        for (size_t j = 0; j < len; ++j) {
            if (std::memcmp(&out[a + j], &xs[a + ref[j]], sizeof(E)) != 0 || pos[a + j] != ref[j] ||
                vout[a + j] != vin[a + ref[j]]) {
                printf("FAIL segments %s desc=%d at segment %zu (%zu keys) position %zu: want %zu\n", what, desc, s, len, j,
                       ref[j]);
                return 1;
            }
        }
    }
    if (n_long != counts[1]) {
        printf("FAIL segments %s: %zu long segments, the plan listed %llu\n", what, n_long, (unsigned long long)counts[1]);
        return 1;
    }
    return 0;
}

// The look-back (wd_sort_look_back, read in windows) against the plain sum of the counts
// before a tile, while another thread publishes the words it has not reached yet (some first
// as a count, then as an inclusive prefix), words of an earlier pass (epoch) in their place
// until then.
static int look_back_check() {
    const int T = 300;
    const wd_u32 digit = 5;
    const wd_u64 epoch = 3;
    std::vector<unsigned long long> status((T + 1) * 256, 0), count(T), incl(T);
    for (int t = 0; t < T; ++t) {
        count[t] = mix(t) % 1000;
        incl[t] = count[t] + (t ? incl[t - 1] : 0);
    }
    auto word = [&](int t) { return &status[(size_t)t * 256 + digit]; };
    std::vector<int> late;
    for (int t = 0; t < T; ++t) {
        const unsigned long long r = mix(t + 77) % 4;
        if (t == 0 || r == 0) wd_sort_publish(word(t), WD_SORT_PREFIX, epoch, incl[t]);
        else if (r == 1) wd_sort_publish(word(t), WD_SORT_COUNT, epoch, count[t]);
        else {
            wd_sort_publish(word(t), WD_SORT_PREFIX, epoch - 1, 999);  // an earlier pass's
            late.push_back(t);
        }
    }
    std::reverse(late.begin(), late.end());  // the nearest last
    std::thread publisher([&] {
        for (int t : late) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            wd_sort_publish(word(t), WD_SORT_COUNT, epoch, count[t]);
            if (mix(t) % 2) wd_sort_publish(word(t), WD_SORT_PREFIX, epoch, incl[t]);
        }
    });
    const wd_u64 got = wd_sort_look_back(status.data(), T, digit, epoch);
    publisher.join();
    if (got != incl[T - 1]) {
        printf("FAIL look-back: got %llu want %llu\n", (unsigned long long)got, incl[T - 1]);
        return 1;
    }
    return 0;
}

// The gather of zipped values (wd_k_sort_gather): arrays of 1, 2, 4 and 8 bytes moved by a
// permutation into their fields of 24-byte rows (offsets 0, 2, 4, 8, then 16), the bytes
// between and after the fields untouched.
static int gather_check() {
    const size_t n = 1000;
    std::vector<wd_u32> perm(n);
    for (size_t i = 0; i < n; ++i) perm[i] = (wd_u32)((i * 389 + 17) % n);
    std::vector<unsigned char> rows(n * 24, 0xEE);
    const unsigned widths[] = {1, 2, 4, 8, 8}, offsets[] = {0, 2, 4, 8, 16};
    std::vector<std::vector<unsigned char>> cols;
    for (int c = 0; c < 5; ++c) {
        std::vector<unsigned char> col(n * widths[c]);
        for (size_t b = 0; b < col.size(); ++b) col[b] = (unsigned char)mix(b * 5 + c);
        wd_emu_launch(2, [&] { wd_k_sort_gather(col.data(), widths[c], perm.data(), n, rows.data(), 24, offsets[c]); });
        cols.push_back(col);
    }
    for (size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 5; ++c) {
            if (std::memcmp(&rows[i * 24 + offsets[c]], &cols[c][perm[i] * widths[c]], widths[c]) != 0) {
                printf("FAIL gather: row %zu field %d\n", i, c);
                return 1;
            }
        }
        if (rows[i * 24 + 1] != 0xEE) {
            printf("FAIL gather: row %zu padding written\n", i);
            return 1;
        }
    }
    return 0;
}

int main() {
    int failed = look_back_check() + gather_check();
    for (size_t n : {37ul, 4097ul, 3ul * 4096 + 5}) {
        std::vector<E> random(n), few(n), crowded(n);
        for (size_t i = 0; i < n; ++i) {
            const unsigned long long r = mix(i * 31 + n);
            std::memcpy(&random[i], &r, sizeof(E));
            const unsigned long long f = mix(r % 3);
            std::memcpy(&few[i], &f, sizeof(E));
            // The top byte one of five values, the others random: crowded passes (ranked by
            // __match_any_sync) and uniform ones in one sort.
            const int top = 8 * ((int)sizeof(E) - 1);
            const unsigned long long c = (r & ~(0xffull << top)) | ((mix(r % 5) & 0xffull) << top);
            std::memcpy(&crowded[i], &c, sizeof(E));
        }
        const std::vector<E> same(n, few[0]);
        // A keys-only module (WD_SORT_VALUE_BYTES 0) sorts keys; one with values, pairs and
        // argsort.
        const bool values = WD_SORT_VALUE_BYTES > 0;
        for (bool desc : {false, true}) {
            for (int mode : {0, 1, 2}) {
                if ((mode > 0) != values) continue;
                failed += run(random, desc, mode, "random");
                // Random keys crowd no digit (those of a short input may).
                if (n > 4096 && crowded_passes != 0) {
                    printf("FAIL random n=%zu: %u crowded passes\n", n, crowded_passes);
                    ++failed;
                }
            }
            // Argsort shows any instability.
            failed += run(few, desc, values ? 2 : 0, "three values");
            failed += run(crowded, desc, values ? 2 : 0, "crowded top byte");
            if (crowded_passes == 0) {
                printf("FAIL crowded top byte n=%zu: no pass ranked as crowded\n", n);
                ++failed;
            }
            failed += run(same, desc, values ? 2 : 0, "all equal");
            // Partitions by one byte (keys alone): from bit 3, the top byte, and past it.
            if (!values) {
                for (int low : {3, 8 * (int)sizeof(E) - 8, 8 * (int)sizeof(E) - 4}) {
                    failed += run(random, desc, 0, "random", low);
                    failed += run(few, desc, 0, "three values", low);
                }
            }
        }
    }
    for (size_t cols : {1ul, 2ul, 3ul, 4ul, 5ul, 8ul, 16ul, 17ul, 24ul, 31ul, 32ul, 33ul, (size_t)WD_SORT_ROW_TILE / 2 + 1, (size_t)WD_SORT_ROW_TILE}) {
        const size_t rows = cols == 1 ? 600 : cols < 100 ? 300 : 2;
        std::vector<E> random(rows * cols), few(rows * cols);
        for (size_t i = 0; i < random.size(); ++i) {
            const unsigned long long r = mix(i * 17 + cols);
            std::memcpy(&random[i], &r, sizeof(E));
            const unsigned long long f = mix(r % 3);
            std::memcpy(&few[i], &f, sizeof(E));
        }
        for (bool desc : {false, true}) {
            failed += rows_run(random, cols, desc, "random");
            failed += rows_run(few, cols, desc, "three values");
            if (cols <= 32) {
                failed += rows_run(random, cols, desc, "random", true);
                failed += rows_run(few, cols, desc, "three values", true);
            }
        }
    }
    // Segments of lengths drawn from each set: empty and tiny ones many to a window, lengths
    // about the short limit, medium ones, long ones (the host's), and runs of empty segments.
    const size_t small = WD_SORT_SEGMENT_SMALL, tile = WD_SORT_ROW_TILE;
    const std::vector<std::vector<size_t>> sets = {
        {0, 1, 2, 3},     {0, 0, 0, 0, 0, 5}, {1, 31, 32, 33, 100}, {small - 1, small, small + 1},
        {tile - 1, tile}, {tile + 1, 7, 0},   {1, 500, small, 2000, tile + 50},
    };
    for (size_t k = 0; k < sets.size(); ++k) {
        const size_t n = 3 * tile + 77;
        std::vector<wd_u64> offsets = {0};
        for (size_t at = 0, i = 0; at < n; ++i) {
            at += std::min(sets[k][mix(i * 7 + k) % sets[k].size()], n - at);
            offsets.push_back(at);
        }
        std::vector<E> random(n), few(n);
        for (size_t i = 0; i < n; ++i) {
            const unsigned long long r = mix(i * 13 + k);
            std::memcpy(&random[i], &r, sizeof(E));
            const unsigned long long f = mix(r % 3);
            std::memcpy(&few[i], &f, sizeof(E));
        }
        for (bool desc : {false, true}) {
            failed += segments_run(random, offsets, desc, "random");
            failed += segments_run(few, offsets, desc, "three values");
        }
    }
    if (failed == 0) printf("ALL OK\n");
    return failed != 0;
}
