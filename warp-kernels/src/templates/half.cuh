// ---- warp-dsl half precision: f16 and bf16 (included only in modules that use them) ----
// ---- f16 and bf16, the `half` crate's types: 16 bits in memory and in registers ----
// Arithmetic goes through f32 and rounds back, comparisons compare the f32 values (exact), and
// the conversions give the bits of `half` 2.x's (round to nearest, ties to even; a NaN keeps its
// payload's high bits and gets its quiet bit set; its F16C path gives the same): the f16 ones
// with the hardware instructions and NaNs fixed up, the others ports of `half`'s software.
struct wd_f16 {
    wd_u16 bits;
};
struct wd_bf16 {
    wd_u16 bits;
};
template <class H> WD_DEV H wd_half_bits(wd_u32 b) {
    H h;
    h.bits = (wd_u16)b;
    return h;
}
// f16 -> f32: the hardware conversion (exact for every number, subnormals included), with NaNs
// made as `half` makes them (the instruction returns its canonical NaN).
WD_DEV wd_f32 wd_f16_bits_to_f32(wd_u32 i) {
    wd_f32 f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)i));
    const wd_u32 nan = ((i & 0x8000u) << 16) | 0x7FC00000u | ((i & 0x03FFu) << 13);
    return (i & 0x7FFFu) > 0x7C00u ? __uint_as_float(nan) : f;
}
WD_DEV wd_f64 wd_f16_bits_to_f64(wd_u32 i) {
    if ((i & 0x7FFFu) == 0) return __longlong_as_double((wd_i64)((wd_u64)i << 48));
    const wd_u64 sign = (wd_u64)(i & 0x8000u) << 48, exp = i & 0x7C00u, man = i & 0x03FFu;
    if (exp == 0x7C00u)
        return __longlong_as_double((wd_i64)(man == 0 ? (sign | 0x7FF0000000000000ull) : (sign | 0x7FF8000000000000ull | (man << 42))));
    if (exp == 0) {
        const int e = (__clz((int)man) - 16) - 6;
        return __longlong_as_double((wd_i64)(sign | ((wd_u64)(1023 - 15 - e) << 52) | ((man << (43 + e)) & 0xFFFFFFFFFFFFFull)));
    }
    return __longlong_as_double((wd_i64)(sign | ((wd_u64)((wd_i64)(exp >> 10) - 15 + 1023) << 52) | (man << 42)));
}
// f32 -> f16: the hardware conversion (round to nearest even, overflow to infinity, the same
// bits as `half`'s software rounding), with NaNs made as `half` makes them.
WD_DEV wd_u32 wd_f32_to_f16_bits(wd_f32 value) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(value));
    const wd_u32 x = __float_as_uint(value);
    const wd_u32 nan = ((x >> 16) & 0x8000u) | 0x7E00u | ((x & 0x007FFFFFu) >> 13);
    return (x & 0x7FFFFFFFu) > 0x7F800000u ? nan : (wd_u32)h;
}
WD_DEV wd_f32 wd_bf16_bits_to_f32(wd_u32 i) {
    return __uint_as_float(((i & 0x7FFFu) > 0x7F80u ? (i | 0x0040u) : i) << 16);
}
WD_DEV wd_f64 wd_bf16_bits_to_f64(wd_u32 i) {
    if ((i & 0x7FFFu) == 0) return __longlong_as_double((wd_i64)((wd_u64)i << 48));
    const wd_u64 sign = (wd_u64)(i & 0x8000u) << 48, exp = i & 0x7F80u, man = i & 0x007Fu;
    if (exp == 0x7F80u)
        return __longlong_as_double((wd_i64)(man == 0 ? (sign | 0x7FF0000000000000ull) : (sign | 0x7FF8000000000000ull | (man << 45))));
    if (exp == 0) {
        const int e = (__clz((int)man) - 16) - 9;
        return __longlong_as_double((wd_i64)(sign | ((wd_u64)(1023 - 127 - e) << 52) | ((man << (46 + e)) & 0xFFFFFFFFFFFFFull)));
    }
    return __longlong_as_double((wd_i64)(sign | ((wd_u64)((wd_i64)(exp >> 7) - 127 + 1023) << 52) | (man << 45)));
}
WD_DEV wd_u32 wd_f32_to_bf16_bits(wd_f32 value) {
    const wd_u32 x = __float_as_uint(value);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return ((x >> 16) | 0x0040u) & 0xFFFFu;
    const wd_u32 round_bit = 0x00008000u;
    return (((x & round_bit) != 0 && (x & (3u * round_bit - 1u)) != 0) ? (x >> 16) + 1u : (x >> 16)) & 0xFFFFu;
}
WD_DEV wd_u32 wd_f64_to_bf16_bits(wd_f64 value) {
    const wd_u64 val = (wd_u64)__double_as_longlong(value);
    const wd_u32 x = (wd_u32)(val >> 32);
    const wd_u32 sign = x & 0x80000000u, exp = x & 0x7FF00000u, man = x & 0x000FFFFFu;
    const wd_u32 half_sign = sign >> 16;
    if (exp == 0x7FF00000u) {
        const wd_u32 nan_bit = (man == 0 && (wd_u32)val == 0) ? 0u : 0x0040u;
        return (half_sign | 0x7F80u | nan_bit | (man >> 13)) & 0xFFFFu;
    }
    const wd_i64 half_exp = (wd_i64)(exp >> 20) - 1023 + 127;
    if (half_exp >= 0xFF) return half_sign | 0x7F80u;
    if (half_exp <= 0) {
        if (7 - half_exp > 21) return half_sign;
        const wd_u32 m = man | 0x00100000u;
        wd_u32 half_man = m >> (14 - half_exp);
        const wd_u32 round_bit = 1u << (13 - half_exp);
        if ((m & round_bit) != 0 && (m & (3u * round_bit - 1u)) != 0) half_man += 1u;
        return half_sign | half_man;
    }
    const wd_u32 h = half_sign | ((wd_u32)half_exp << 7) | (man >> 13);
    const wd_u32 round_bit = 0x00001000u;
    return (((man & round_bit) != 0 && (man & (3u * round_bit - 1u)) != 0) ? h + 1u : h) & 0xFFFFu;
}
WD_DEV wd_f32 wd_to_f32(wd_f16 h) { return wd_f16_bits_to_f32(h.bits); }
WD_DEV wd_f32 wd_to_f32(wd_bf16 h) { return wd_bf16_bits_to_f32(h.bits); }
WD_DEV wd_f64 wd_to_f64(wd_f16 h) { return wd_f16_bits_to_f64(h.bits); }
WD_DEV wd_f64 wd_to_f64(wd_bf16 h) { return wd_bf16_bits_to_f64(h.bits); }
template <class H> WD_DEV H wd_from_f32(wd_f32 x);
template <> __device__ __forceinline__ wd_f16 wd_from_f32<wd_f16>(wd_f32 x) { return wd_half_bits<wd_f16>(wd_f32_to_f16_bits(x)); }
template <> __device__ __forceinline__ wd_bf16 wd_from_f32<wd_bf16>(wd_f32 x) { return wd_half_bits<wd_bf16>(wd_f32_to_bf16_bits(x)); }
template <class H> WD_DEV H wd_from_f64(wd_f64 x);
template <> __device__ __forceinline__ wd_bf16 wd_from_f64<wd_bf16>(wd_f64 x) { return wd_half_bits<wd_bf16>(wd_f64_to_bf16_bits(x)); }
#define WD_HALF_OPS(H, EXP_MASK)                                                                       \
    WD_DEV H operator+(H a, H b) { return wd_from_f32<H>(wd_to_f32(a) + wd_to_f32(b)); }              \
    WD_DEV H operator-(H a, H b) { return wd_from_f32<H>(wd_to_f32(a) - wd_to_f32(b)); }              \
    WD_DEV H operator*(H a, H b) { return wd_from_f32<H>(wd_to_f32(a) * wd_to_f32(b)); }              \
    WD_DEV H operator/(H a, H b) { return wd_from_f32<H>(wd_to_f32(a) / wd_to_f32(b)); }              \
    WD_DEV H operator%(H a, H b) { return wd_from_f32<H>(fmodf(wd_to_f32(a), wd_to_f32(b))); }        \
    WD_DEV H operator-(H a) { return wd_half_bits<H>(a.bits ^ 0x8000u); }                              \
    WD_DEV bool operator==(H a, H b) { return wd_to_f32(a) == wd_to_f32(b); }                         \
    WD_DEV bool operator!=(H a, H b) { return wd_to_f32(a) != wd_to_f32(b); }                         \
    WD_DEV bool operator<(H a, H b) { return wd_to_f32(a) < wd_to_f32(b); }                           \
    WD_DEV bool operator<=(H a, H b) { return wd_to_f32(a) <= wd_to_f32(b); }                         \
    WD_DEV bool operator>(H a, H b) { return wd_to_f32(a) > wd_to_f32(b); }                           \
    WD_DEV bool operator>=(H a, H b) { return wd_to_f32(a) >= wd_to_f32(b); }                         \
    WD_DEV bool wd_is_nan(H a) { return (a.bits & 0x7FFFu) > EXP_MASK; }                              \
    WD_DEV bool wd_is_infinite(H a) { return (a.bits & 0x7FFFu) == EXP_MASK; }                        \
    WD_DEV bool wd_is_finite(H a) { return (a.bits & EXP_MASK) != EXP_MASK; }                         \
    WD_DEV bool wd_is_normal(H a) { return (a.bits & EXP_MASK) != 0 && (a.bits & EXP_MASK) != EXP_MASK; } \
    /* `half`'s max/min: a NaN receiver gives the other operand; ties keep the receiver */            \
    WD_DEV H wd_max(H a, H b) { return (wd_is_nan(a) || b > a) ? b : a; }                             \
    WD_DEV H wd_min(H a, H b) { return (wd_is_nan(a) || b < a) ? b : a; }                             \
    WD_DEV H wd_clamp(H x, H lo, H hi) { return x < lo ? lo : (x > hi ? hi : x); }                    \
    WD_DEV H wd_signum(H a) { return wd_is_nan(a) ? a : wd_from_f32<H>((a.bits & 0x8000u) ? -1.0f : 1.0f); } \
    WD_DEV H wd_copysign(H a, H s) { return wd_half_bits<H>((s.bits & 0x8000u) | (a.bits & 0x7FFFu)); } \
    WD_DEV H wd_shfl_down(H v, unsigned x) { return wd_half_bits<H>(wd_shfl_down((wd_u32)v.bits, x)); } \
    WD_DEV H wd_shfl_up(H v, unsigned x) { return wd_half_bits<H>(wd_shfl_up((wd_u32)v.bits, x)); }   \
    WD_DEV H wd_shfl_xor(H v, int x) { return wd_half_bits<H>(wd_shfl_xor((wd_u32)v.bits, x)); }      \
    WD_DEV H wd_shfl_idx(H v, int x) { return wd_half_bits<H>(wd_shfl_idx((wd_u32)v.bits, x)); }      \
    WD_DEV H wd_ldcg(const H* p) { return wd_half_bits<H>(__ldcg((const unsigned short*)p)); }        \
    WD_DEV H wd_ldcs(const H* p) { return wd_half_bits<H>(__ldcs((const unsigned short*)p)); }
WD_HALF_OPS(wd_f16, 0x7C00u)
WD_HALF_OPS(wd_bf16, 0x7F80u)

// Bound arguments of half types.
template <> struct wd_arg_decode<wd_f16> {
    static __device__ __forceinline__ wd_f16 get(wd_u64 x) { return wd_half_bits<wd_f16>((wd_u32)x); }
    static __device__ __forceinline__ wd_f16 load(wd_u64 p) { return *(const wd_f16*)p; }
};
template <> struct wd_arg_decode<wd_bf16> {
    static __device__ __forceinline__ wd_bf16 get(wd_u64 x) { return wd_half_bits<wd_bf16>((wd_u32)x); }
    static __device__ __forceinline__ wd_bf16 load(wd_u64 p) { return *(const wd_bf16*)p; }
};
