// ---- warp-dsl order words: every key as an unsigned word of its width whose order is the
// sort's ----
// Integers with the sign bit flipped, floats in Rust's `total_cmp` order (the sign bit set for
// positives, every bit flipped for negatives: -NaN first, then -inf .. -0.0, +0.0 .. +inf, +NaN
// last), bool as 0 / 1; a descending order complements the word. The radix sort moves keys as
// these words, the binary search compares them.

template <class E> struct wd_sort_bits;
#define WD_SORT_UINT(E)                                                              \
    template <> struct wd_sort_bits<E> {                                             \
        typedef E T;                                                                 \
        static __device__ __forceinline__ T of(E x) { return x; }                    \
        static __device__ __forceinline__ E back(T b) { return b; }                  \
    };
#define WD_SORT_SINT(E, U)                                                           \
    template <> struct wd_sort_bits<E> {                                             \
        typedef U T;                                                                 \
        static constexpr U SIGN = (U)((U)1 << (sizeof(U) * 8 - 1));                  \
        static __device__ __forceinline__ T of(E x) { return (U)((U)x ^ SIGN); }     \
        static __device__ __forceinline__ E back(T b) { return (E)(U)(b ^ SIGN); }   \
    };
WD_SORT_UINT(wd_u8)
WD_SORT_UINT(wd_u16)
WD_SORT_UINT(wd_u32)
WD_SORT_UINT(wd_u64)
WD_SORT_SINT(wd_i8, wd_u8)
WD_SORT_SINT(wd_i16, wd_u16)
WD_SORT_SINT(wd_i32, wd_u32)
WD_SORT_SINT(wd_i64, wd_u64)
template <> struct wd_sort_bits<bool> {
    typedef wd_u8 T;
    static __device__ __forceinline__ T of(bool x) { return x ? 1 : 0; }
    static __device__ __forceinline__ bool back(T b) { return b != 0; }
};
// Float bits in total order: positives get the sign bit, negatives every bit flipped.
template <class U> static __device__ __forceinline__ U wd_sort_float(U b) {
    const U sign = (U)((U)1 << (sizeof(U) * 8 - 1));
    return (b & sign) ? (U)~b : (U)(b | sign);
}
template <class U> static __device__ __forceinline__ U wd_sort_float_back(U t) {
    const U sign = (U)((U)1 << (sizeof(U) * 8 - 1));
    return (t & sign) ? (U)(t & (U)~sign) : (U)~t;
}
template <> struct wd_sort_bits<wd_f32> {
    typedef wd_u32 T;
    static __device__ __forceinline__ T of(wd_f32 x) { return wd_sort_float(__float_as_uint(x)); }
    static __device__ __forceinline__ wd_f32 back(T b) { return __uint_as_float(wd_sort_float_back(b)); }
};
template <> struct wd_sort_bits<wd_f64> {
    typedef wd_u64 T;
    static __device__ __forceinline__ T of(wd_f64 x) { return wd_sort_float((wd_u64)__double_as_longlong(x)); }
    static __device__ __forceinline__ wd_f64 back(T b) { return __longlong_as_double((long long)wd_sort_float_back(b)); }
};
#define WD_SORT_HALF(H)                                                                               \
    template <> struct wd_sort_bits<H> {                                                              \
        typedef wd_u16 T;                                                                             \
        static __device__ __forceinline__ T of(H x) { return wd_sort_float(x.bits); }                 \
        static __device__ __forceinline__ H back(T b) { H h; h.bits = wd_sort_float_back(b); return h; } \
    };
WD_SORT_HALF(wd_f16)
WD_SORT_HALF(wd_bf16)

// The byte of an order word from bit `bit` up (bit at most the word's bits less 8).
template <class U> static __device__ __forceinline__ wd_u32 wd_sort_digit_at(U b, wd_u32 bit) {
    return (wd_u32)(b >> bit) & 255u;
}

// The digit of pass `pass` (0: the lowest byte) of an order word.
template <class U> static __device__ __forceinline__ wd_u32 wd_sort_digit(U b, wd_u32 pass) {
    return wd_sort_digit_at(b, 8u * pass);
}

// The first bit of pass `pass`'s digit in a sort that orders words of type U by their bits
// from `low` up (low < the word's bits): 8 * pass + low, but at most the top byte's, so that
// the passes past the word's end sort by its top byte again (the plan skips them: that digit
// is then the same in every key, or they repeat a sort that changes nothing).
template <class U> static __device__ __forceinline__ wd_u32 wd_sort_pass_bit(wd_u32 pass, wd_u32 low) {
    const wd_u32 bit = 8u * pass + low, top = 8u * (wd_u32)sizeof(U) - 8u;
    return bit < top ? bit : top;
}

// The order word of key `x`: complemented for a descending sort.
template <class K> static __device__ __forceinline__ typename wd_sort_bits<K>::T wd_sort_word(K x, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    const U b = wd_sort_bits<K>::of(x);
    return descending ? (U)~b : b;
}
template <class K> static __device__ __forceinline__ K wd_sort_key(typename wd_sort_bits<K>::T w, bool descending) {
    typedef typename wd_sort_bits<K>::T U;
    return wd_sort_bits<K>::back(descending ? (U)~w : w);
}
