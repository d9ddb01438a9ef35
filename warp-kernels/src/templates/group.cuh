// ---- warp-dsl group-by by a table: sums of small integers per integer key of a narrow range ----
// A group-by (Device::group_reduce) whose operator is the wrapping add of integers of at most 4
// bytes, over integer keys whose order words (order.cuh) span at most GROUP_TABLE_MAX_RANGE,
// needs no sort: each pair adds (1 << 32) + its value's low 32 bits (sign-extended) to the
// 64-bit word of its key's slot (word - lo) of a table in global memory (zeroed first). The low
// half ends as the group's sum modulo 2^32, whose low bytes are the sum of any narrower type;
// the high half as the group's count plus the low half's carries, so it is zero exactly when
// no pair has the key (fewer than 2^31 pairs: the half cannot wrap). Addition commutes, so the
// atomics' order does not change a bit of the result. Then the present slots, in key order, are
// compacted a tile of WD_BLOCK * WD_GROUP_ITEMS slots a block: a count per tile
// (wd_group_count), then each tile's place from the counts of the tiles before it and each
// slot's from a block scan (wd_group_write).

// The keys' smallest and largest order words: every thread folds its keys (grid-stride), the
// block reduces (block.cuh), thread 0 lowers range[0] and raises range[1] (set to ~0 and 0 by
// the caller) by atomicMin / atomicMax.
template <class K>
static __device__ __forceinline__ void wd_group_range(const K* keys, wd_u64 n, wd_u64* range) {
    wd_u64 lo = ~0ull, hi = 0ull;
    auto fold = [&](K x) {
        const wd_u64 w = (wd_u64)wd_sort_word(x, false);
        lo = w < lo ? w : lo;
        hi = w > hi ? w : hi;
    };
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        K x[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) x[u] = keys[i + u * stride];
#pragma unroll
        for (int u = 0; u < 4; ++u) fold(x[u]);
    }
    for (; i < n; i += stride) fold(keys[i]);
    // The smallest as the largest complement.
    const wd_u64 not_lo = wd_block_reduce<wd_op_key_max<wd_u64>>(~lo);
    __syncthreads();
    hi = wd_block_reduce<wd_op_key_max<wd_u64>>(hi);
    if (threadIdx.x == 0) {
        atomicMin((unsigned long long*)&range[0], (unsigned long long)~not_lo);
        atomicMax((unsigned long long*)&range[1], (unsigned long long)hi);
    }
}

// Every pair (keys[i], vals[i]) into the table: grid-stride, four pairs' loads in flight.
template <class K, class V>
static __device__ __forceinline__ void wd_group_table(const K* keys, const V* vals, wd_u64 n, wd_u64 lo, wd_u64* table) {
    const wd_u64 stride = (wd_u64)gridDim.x * WD_BLOCK;
    auto add = [&](K k, V v) {
        const wd_u64 slot = (wd_u64)wd_sort_word(k, false) - lo;
        atomicAdd((unsigned long long*)(table + slot), (1ull << 32) + (unsigned long long)(wd_u32)v);
    };
    wd_u64 i = (wd_u64)blockIdx.x * WD_BLOCK + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        K k[4];
        V v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            k[u] = keys[i + u * stride];
            v[u] = vals[i + u * stride];
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) add(k[u], v[u]);
    }
    for (; i < n; i += stride) add(keys[i], vals[i]);
}

// Whether slot s of the table holds a group.
static __device__ __forceinline__ bool wd_group_present(const wd_u64* table, wd_u64 range, wd_u64 s) {
    return s < range && (table[s] >> 32) != 0ull;
}

// Block b: the number of groups among its tile's slots into counts[b], and into *total.
static __device__ __forceinline__ void wd_group_count(const wd_u64* table, wd_u64 range, wd_u32* counts, wd_u64* total) {
    const wd_u64 base = (wd_u64)blockIdx.x * WD_BLOCK * WD_GROUP_ITEMS;
    wd_u64 c = 0;
#pragma unroll
    for (int j = 0; j < WD_GROUP_ITEMS; ++j) c += wd_group_present(table, range, base + (wd_u64)j * WD_BLOCK + threadIdx.x) ? 1u : 0u;
    c = wd_block_reduce<wd_op_count>(c);
    if (threadIdx.x == 0) {
        counts[blockIdx.x] = (wd_u32)c;
        atomicAdd((unsigned long long*)total, (unsigned long long)c);
    }
}

// Block b writes its tile's groups, in slot order, from the number of groups in the tiles
// before it (counts[0 .. b), folded by the block): the key of slot s (the order word lo + s)
// and the value identity + the slot's low half, converted to V (wrapping).
template <class K, class V>
static __device__ __forceinline__ void wd_group_write(const wd_u64* table, wd_u64 range, wd_u64 lo, const wd_u32* counts,
                                                      wd_u32 identity, K* keys_out, V* vals_out) {
    typedef typename wd_sort_bits<K>::T U;
    __shared__ wd_u64 slots[WD_BLOCK / 32];
    wd_u64 before = 0;
    for (wd_u32 t = threadIdx.x; t < blockIdx.x; t += WD_BLOCK) before += counts[t];
    before = wd_block_reduce<wd_op_count>(before);
    if (threadIdx.x == 0) slots[0] = before;
    __syncthreads();
    wd_u64 at = slots[0];
    __syncthreads();
    const wd_u64 base = (wd_u64)blockIdx.x * WD_BLOCK * WD_GROUP_ITEMS;
#pragma unroll 1
    for (int j = 0; j < WD_GROUP_ITEMS; ++j) {
        const wd_u64 s = base + (wd_u64)j * WD_BLOCK + threadIdx.x;
        const bool here = wd_group_present(table, range, s);
        wd_u64 all;
        const wd_u64 ahead = wd_block_scan<wd_op_count, true>(here ? 1ull : 0ull, slots, all);
        if (here) {
            keys_out[at + ahead] = wd_sort_key<K>((U)(lo + s), false);
            vals_out[at + ahead] = (V)(identity + (wd_u32)table[s]);
        }
        at += all;
    }
}
