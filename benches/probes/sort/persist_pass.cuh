    // (experiment) persistent blocks: tiles from the queue until none is left; the next
    // tile's keys are loaded while this one looks back and writes out.
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    __shared__ wd_u64 next_s;
    wd_u64 tile = wd_tile_index(queue + pass);
    if (tile * TILE >= n) return;
    U w[ITEMS];
    auto load = [&](wd_u64 t) {
        const wd_u64 wb = t * TILE + (wd_u64)warp * 32u * ITEMS;
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const wd_u64 i = wb + (wd_u64)j * 32u + lane;
            w[j] = i < n ? wd_sort_word(ksrc[i], descending) : (U)~(U)0;
        }
    };
    load(tile);
    const wd_u64 epoch = pass + 1u;
    for (;;) {
    const wd_u64 base = tile * TILE;
    auto digit_of = [&](int j) { return wd_sort_digit(w[j], pass); };
    if (crowded) {
        wd_sort_warp_counts_match<ITEMS>(digit_of, whist);
    } else {
        wd_sort_warp_counts<ITEMS>(digit_of, whist, wmask);
    }
    __syncthreads();
    const wd_u32 mine = wd_sort_warp_prefix<THREADS>(whist);
    if (threadIdx.x < 256u)
        wd_sort_publish(status + tile * 256u + threadIdx.x, tile == 0 ? WD_SORT_PREFIX : WD_SORT_COUNT, epoch, mine);
    {
        const wd_u64 start = wd_sort_digit_starts<THREADS>(mine, whist, slots);
        if (threadIdx.x < 256u) shift[threadIdx.x] = offsets[pass * 256u + threadIdx.x] - start;
    }
    wd_sort_ranks<ITEMS> rank;
    if (crowded) {
        wd_sort_warp_rank_match<ITEMS>(digit_of, rank, whist);
    } else {
        wd_sort_warp_rank<ITEMS>(digit_of, rank, whist, wmask);
    }
    if (threadIdx.x == 0) next_s = atomicAdd(queue + pass, 1u);
    __syncthreads();  // every warp ranked: the counts' memory becomes the tile's
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) tile_words[rank[j]] = w[j];
    const wd_u64 next = next_s;
    const bool more = next * TILE < n;
    if (more) load(next);
    if (threadIdx.x < 256u && tile != 0) {
        const wd_u64 before = wd_sort_look_back(status, tile, threadIdx.x, epoch);
        wd_sort_publish(status + tile * 256u + threadIdx.x, WD_SORT_PREFIX, epoch, before + mine);
        shift[threadIdx.x] += before;
    }
    __syncthreads();
    const wd_u64 left = n - base;
    const unsigned valid = left < TILE ? (unsigned)left : TILE;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const unsigned i = threadIdx.x + (unsigned)j * THREADS;
        const U x = tile_words[i];
        const wd_u32 d = wd_sort_digit(x, pass);
        if (i < valid) kdst[shift[d] + i] = wd_sort_key<K>(x, descending);
    }
    if (!more) return;
    tile = next;
    __syncthreads();  // the tile's memory and shift are read before the next counts reuse them
    }
}

