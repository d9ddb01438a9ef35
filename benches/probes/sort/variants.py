#!/usr/bin/env python3
"""Experiment variants of the dumped radix sort modules for the sort probe (run.sh): each reads
DIR/<module>.cu (written by `cargo run -p warp-tests --example dump_sort -- DIR`) and writes
DIR/<module>_<variant>.cu. Not product code: the records in docs/benchmarks/ say what each
measured.

  timed    clock64() at the pass's phase boundaries (threads 0 and 352), summed per phase in
           wd_x_timers (the probe built with -DTIMED prints cycles a tile), and the look-back's
           rounds and steps for thread 0;
  tile     keys alone: a block a tile (WD_SORT_PERSIST 0), against the module's persistent
           blocks (a resident grid taking tiles from the queue: the probe launches that grid
           for modules whose WD_SORT_PERSIST is 1).
  late     keys alone, persistent: the next tile taken after the look-back (not before the
           ranking's barrier), its keys loaded while the current tile's are written out, so
           that a tile's successors wait less for its counts;
  persist  a module that runs a block a tile made persistent (WD_SORT_PERSIST 1): 8-byte keys
           as the keys-only pass is; a pass that moves values loads its next tile's keys once
           the tile's values are in shared memory (their registers free), before it writes
           them out.
  xfirst   a staged pass (values in the stash): the tile's values put in tile order in the
           stash right after the keys' (a barrier between the reads of each thread's own
           values and the writes), before the look-back; then one loop writes each key and its
           value out (one barrier and the digits' registers fewer than the pass's tail).
           Measured 12% slower a pass (2026-12-07-staged-floats-bench.md);
  xsplit   as xfirst, each thread's values read before the look-back and put in tile order
           after it (the look-back's barrier parts reads from writes; one barrier more after).
           Measured 13% slower.
usage: variants.py DIR
"""
import sys

def rep(t, a, b):
    assert t.count(a) == 1, (a[:80], t.count(a))
    return t.replace(a, b)

def timed(t):
    # Per tile: phases from the loop's top (the first tile: from the plan's read) to its end.
    t = rep(t, '// ---- one digit pass ----\n', '// ---- one digit pass ----\n__device__ unsigned long long wd_x_timers[16];\n')
    t = rep(t, '''    wd_i64 t = (wd_i64)tile - 1;
    int width = 1;
    for (;;) {''', '''    wd_i64 t = (wd_i64)tile - 1;
    int width = 1;
    const wd_i64 t_first = t;
    for (;;) {
        if (threadIdx.x == 0) atomicAdd(&wd_x_timers[14], 1ull);''')
    t = rep(t, '''            if ((w[k] >> 62) == WD_SORT_PREFIX) return prefix;''', '''            if ((w[k] >> 62) == WD_SORT_PREFIX) {
                if (threadIdx.x == 0) atomicAdd(&wd_x_timers[15], (unsigned long long)(t_first - t + 1));
                return prefix;
            }''')
    t = rep(t, '''    const wd_u32 pl = plan[pass];
    if ((pl & 1u) == 0u) return;  // the same in every block''', '''    long long tt[8];
    tt[0] = clock64();
    const wd_u32 pl = plan[pass];
    if ((pl & 1u) == 0u) return;  // the same in every block''')
    t = rep(t, '''    for (;;) {
        const wd_u64 base = tile * TILE;''', '''    for (;;) {
        tt[1] = clock64();
        const wd_u64 base = tile * TILE;''')
    t = rep(t, '''            wd_sort_warp_counts<ITEMS>(digit_of, whist, wmask);
        }
        __syncthreads();
        const wd_u32 mine''', '''            wd_sort_warp_counts<ITEMS>(digit_of, whist, wmask);
        }
        __syncthreads();
        tt[2] = clock64();
        const wd_u32 mine''')
    t = rep(t, '''            if (threadIdx.x < 256u) shift[threadIdx.x] = offsets[pass * 256u + threadIdx.x] - start;
        }
        static_assert''', '''            if (threadIdx.x < 256u) shift[threadIdx.x] = offsets[pass * 256u + threadIdx.x] - start;
        }
        tt[3] = clock64();
        static_assert''')
    t = rep(t, '''        __syncthreads();  // every warp ranked: the counts' memory becomes the tile's''',
            '''        __syncthreads();  // every warp ranked: the counts' memory becomes the tile's
        tt[4] = clock64();''')
    t = rep(t, '''            shift[threadIdx.x] += before;
        }
        __syncthreads();
''', '''            shift[threadIdx.x] += before;
        }
        __syncthreads();
        tt[5] = clock64();
''')
    t = rep(t, '''            if (i < valid) kdst[shift[d] + i] = wd_sort_key<K>(x, descending);
        }
''', '''            if (i < valid) kdst[shift[d] + i] = wd_sort_key<K>(x, descending);
        }
        tt[6] = clock64();
''')
    t = rep(t, '''        if (!more) return;
        tile = next;''', '''        tt[7] = clock64();
        if (threadIdx.x == 0 || threadIdx.x == 352) {
            const int o = threadIdx.x == 0 ? 0 : 7;
            for (int k = 0; k < 7; ++k) atomicAdd(&wd_x_timers[o + k], (unsigned long long)(tt[k + 1] - tt[k]));
        }
        tt[0] = clock64();
        if (!more) return;
        tile = next;''')
    return t

# The persistent pass's step to its next tile (as the product's template writes it), at the
# given indent: `persist` and `late` move it.
def next_tile_load(indent):
    body = """wd_u64 next = 0;
bool more = false;
// Persistent blocks: the next tile's keys into w, `first` moved to it.
if constexpr (persistent) {
    next = next_tile;
    more = next < (n + TILE - 1) / TILE;
    first = next * TILE + (wd_u64)warp * 32u * ITEMS + lane;
    if (more) wd_sort_load_tile<ITEMS>(w, ksrc, first, n, descending);
}
"""
    return ''.join(' ' * indent + line if line.strip() else line for line in body.splitlines(True))

def persist(t):
    # Persistent blocks where the product runs a block a tile, for the A/B.
    t = rep(t, '#define WD_SORT_PERSIST 0\n', '#define WD_SORT_PERSIST 1\n')
    if '#define WD_SORT_VALUE_BYTES 0\n' in t:
        return t
    t = rep(t, 'constexpr bool persistent = WD_SORT_PERSIST != 0 && !moves_values;', 'constexpr bool persistent = WD_SORT_PERSIST != 0;')
    t = rep(t, """        if constexpr (persistent) {
            next = next_tile;""", """        if constexpr (persistent && !moves_values) {
            next = next_tile;""")
    load = next_tile_load(12).split('// Persistent blocks: the next tile\'s keys into w, `first` moved to it.\n')[1]
    return rep(t, """            for (int j = 0; j < ITEMS; ++j) tile_vals[rank[j]] = v[j];
            __syncthreads();
""", """            for (int j = 0; j < ITEMS; ++j) tile_vals[rank[j]] = v[j];
            __syncthreads();
""" + load)

def late(t):
    # The persistent pass's next tile taken after the look-back.
    t = rep(t, """        if (persistent && threadIdx.x == 0) next_tile = queue != nullptr ? atomicAdd(queue + pass, 1u) : ~(wd_u64)0;
""", "")
    block = next_tile_load(8)
    t = rep(t, block, "")
    t = rep(t, """            shift[threadIdx.x] += before;
        }
        __syncthreads();
""", """            shift[threadIdx.x] += before;
        }
        if (persistent && threadIdx.x == 0) next_tile = queue != nullptr ? atomicAdd(queue + pass, 1u) : ~(wd_u64)0;
        __syncthreads();
""")
    return rep(t, """        const wd_u64 left = n - base;
""", block + """        const wd_u64 left = n - base;
""")

def late_timed(t):
    return late(timed(t))

def tile(t):
    # A block a tile (the pass before persistent blocks), for the A/B: WD_SORT_PERSIST 0.
    return rep(t, '#define WD_SORT_PERSIST 1\n', '#define WD_SORT_PERSIST 0\n')

# The staged pass's tail: the keys out, then the values (as the product's template writes it).
KEYS_OUT = """        const wd_u64 left = n - base;
        const unsigned valid = left < TILE ? (unsigned)left : TILE;
        wd_sort_digits<ITEMS, sizeof(U) <= 4> digit;  // the values' write needs them again
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned i = threadIdx.x + (unsigned)j * THREADS;
            const U x = tile_words[i];
            const wd_u32 d = wd_sort_digit_at(x, bit);
            digit.set(j, d);
            if (i < valid) kdst[shift[d] + i] = wd_sort_key<K>(x, descending);
        }
        if constexpr (moves_values) {
"""
BOTH_OUT = """        const wd_u64 left = n - base;
        const unsigned valid = left < TILE ? (unsigned)left : TILE;
        V* tile_stash = reinterpret_cast<V*>(wd_sort_stash);
        if constexpr (staged) {
            SPLIT_WRITE
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const unsigned i = threadIdx.x + (unsigned)j * THREADS;
                const U x = tile_words[i];
                const wd_u64 o = shift[wd_sort_digit_at(x, bit)] + i;
                if (i < valid) {
                    kdst[o] = wd_sort_key<K>(x, descending);
                    vdst[o] = tile_stash[i];
                }
            }
        }
        wd_sort_digits<ITEMS, sizeof(U) <= 4> digit;
        if constexpr (!staged) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const unsigned i = threadIdx.x + (unsigned)j * THREADS;
            const U x = tile_words[i];
            const wd_u32 d = wd_sort_digit_at(x, bit);
            digit.set(j, d);
            if (i < valid) kdst[shift[d] + i] = wd_sort_key<K>(x, descending);
        }
        }
        if constexpr (moves_values && !staged) {
"""
KEYS_IN = """        for (int j = 0; j < ITEMS; ++j) tile_words[rank[j]] = w[j];
        wd_u64 next = 0;
"""

def xfirst(t):
    t = rep(t, KEYS_IN, """        for (int j = 0; j < ITEMS; ++j) tile_words[rank[j]] = w[j];
        if constexpr (staged) {
            V* tile_stash = reinterpret_cast<V*>(wd_sort_stash);
            if (make_index) {
#pragma unroll
                for (int j = 0; j < ITEMS; ++j) tile_stash[rank[j]] = (V)(first + (wd_u64)j * 32u);
            } else {
                wd_copy_async_wait();
                V v[ITEMS];
#pragma unroll
                for (int j = 0; j < ITEMS; ++j) v[j] = stash[j * 32];
                __syncthreads();
#pragma unroll
                for (int j = 0; j < ITEMS; ++j) tile_stash[rank[j]] = v[j];
            }
        }
        wd_u64 next = 0;
""")
    return rep(t, KEYS_OUT, BOTH_OUT.replace('SPLIT_WRITE', ''))

def xsplit(t):
    t = rep(t, KEYS_IN, """        for (int j = 0; j < ITEMS; ++j) tile_words[rank[j]] = w[j];
        V vv[staged ? ITEMS : 1];
        if constexpr (staged) {
            if (!make_index) wd_copy_async_wait();
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) vv[j] = make_index ? (V)(first + (wd_u64)j * 32u) : stash[j * 32];
        }
        wd_u64 next = 0;
""")
    return rep(t, KEYS_OUT, BOTH_OUT.replace('SPLIT_WRITE', """#pragma unroll
            for (int j = 0; j < ITEMS; ++j) tile_stash[rank[j]] = vv[j];
            __syncthreads();"""))

if __name__ == '__main__':
    d = sys.argv[1]
    for mod, kinds in [('sort_u32_v0', ['timed', 'tile', 'late', 'late_timed']), ('sort_f32_v0', ['timed', 'tile', 'late', 'late_timed']),
                       ('sort_u32_v4', ['timed', 'persist']), ('sort_f32_v4', ['timed', 'persist']),
                       ('sort_u32_v4_staged', ['timed', 'xfirst', 'xsplit']), ('sort_f32_v4_staged', ['timed', 'xfirst', 'xsplit']),
                       ('sort_u64_v0', ['persist'])]:
        src = open(f'{d}/{mod}.cu').read()
        for k in kinds:
            open(f'{d}/{mod}_{k}.cu', 'w').write(globals()[k](src))
