// ---- warp-dsl prelude: fixed-width types, warp exchange of any value, Rust semantics ----
typedef signed char wd_i8;
typedef short wd_i16;
typedef int wd_i32;
typedef long long wd_i64;
typedef unsigned char wd_u8;
typedef unsigned short wd_u16;
typedef unsigned int wd_u32;
typedef unsigned long long wd_u64;
typedef float wd_f32;
typedef double wd_f64;

#define WD_FULL_MASK 0xffffffffu
#define WD_DEV static __device__ __forceinline__

// ---- warp exchange: every value moves through registers as 32-bit pieces ----
#define WD_SHFL_FAMILY(NAME, INTRINSIC, ARG)                                                   \
    WD_DEV wd_u32 NAME(wd_u32 v, ARG x) { return INTRINSIC(WD_FULL_MASK, v, x); }              \
    WD_DEV wd_i32 NAME(wd_i32 v, ARG x) { return INTRINSIC(WD_FULL_MASK, v, x); }              \
    WD_DEV wd_f32 NAME(wd_f32 v, ARG x) { return INTRINSIC(WD_FULL_MASK, v, x); }              \
    WD_DEV wd_i8 NAME(wd_i8 v, ARG x) { return (wd_i8)INTRINSIC(WD_FULL_MASK, (wd_i32)v, x); } \
    WD_DEV wd_i16 NAME(wd_i16 v, ARG x) { return (wd_i16)INTRINSIC(WD_FULL_MASK, (wd_i32)v, x); } \
    WD_DEV wd_u8 NAME(wd_u8 v, ARG x) { return (wd_u8)INTRINSIC(WD_FULL_MASK, (wd_u32)v, x); } \
    WD_DEV wd_u16 NAME(wd_u16 v, ARG x) { return (wd_u16)INTRINSIC(WD_FULL_MASK, (wd_u32)v, x); } \
    WD_DEV bool NAME(bool v, ARG x) { return INTRINSIC(WD_FULL_MASK, (wd_u32)v, x) != 0u; }    \
    WD_DEV wd_u64 NAME(wd_u64 v, ARG x) {                                                      \
        wd_u32 lo = INTRINSIC(WD_FULL_MASK, (wd_u32)v, x);                                     \
        wd_u32 hi = INTRINSIC(WD_FULL_MASK, (wd_u32)(v >> 32), x);                             \
        return ((wd_u64)hi << 32) | lo;                                                        \
    }                                                                                          \
    WD_DEV wd_i64 NAME(wd_i64 v, ARG x) { return (wd_i64)NAME((wd_u64)v, x); }                 \
    WD_DEV wd_f64 NAME(wd_f64 v, ARG x) {                                                      \
        return __longlong_as_double((wd_i64)NAME((wd_u64)__double_as_longlong(v), x));         \
    }
WD_SHFL_FAMILY(wd_shfl_down, __shfl_down_sync, unsigned)
WD_SHFL_FAMILY(wd_shfl_up, __shfl_up_sync, unsigned)
WD_SHFL_FAMILY(wd_shfl_xor, __shfl_xor_sync, int)
WD_SHFL_FAMILY(wd_shfl_idx, __shfl_sync, int)

// ---- coherent loads (L2, bypassing L1) of values other blocks wrote in this launch ----
WD_DEV wd_i8 wd_ldcg(const wd_i8* p) { return __ldcg((const signed char*)p); }
WD_DEV wd_i16 wd_ldcg(const wd_i16* p) { return __ldcg(p); }
WD_DEV wd_i32 wd_ldcg(const wd_i32* p) { return __ldcg(p); }
WD_DEV wd_i64 wd_ldcg(const wd_i64* p) { return __ldcg(p); }
WD_DEV wd_u8 wd_ldcg(const wd_u8* p) { return __ldcg(p); }
WD_DEV wd_u16 wd_ldcg(const wd_u16* p) { return __ldcg(p); }
WD_DEV wd_u32 wd_ldcg(const wd_u32* p) { return __ldcg(p); }
WD_DEV wd_u64 wd_ldcg(const wd_u64* p) { return __ldcg(p); }
WD_DEV wd_f32 wd_ldcg(const wd_f32* p) { return __ldcg(p); }
WD_DEV wd_f64 wd_ldcg(const wd_f64* p) { return __ldcg(p); }
WD_DEV bool wd_ldcg(const bool* p) { return __ldcg((const wd_u8*)p) != 0; }

// ---- integer arithmetic with Rust's (release-build) semantics ----
// Arithmetic is done in a wide unsigned type, so it wraps instead of overflowing a signed C int
// (undefined behaviour); results are truncated back to the type.
template <class T> struct wd_int;
#define WD_INT_TRAITS(T, UWIDE, UNARROW, MINV, MAXV, SIGNED)                                 \
    template <> struct wd_int<T> {                                                           \
        typedef UWIDE wide;                                                                  \
        typedef UNARROW unsigned_t;                                                          \
        static constexpr int bits = (int)sizeof(T) * 8;                                      \
        static constexpr bool is_signed = SIGNED;                                            \
        static __device__ __forceinline__ T min_value() { return (T)(MINV); }                \
        static __device__ __forceinline__ T max_value() { return (T)(MAXV); }                \
    };
WD_INT_TRAITS(wd_i8, wd_u32, wd_u8, -128, 127, true)
WD_INT_TRAITS(wd_i16, wd_u32, wd_u16, -32768, 32767, true)
WD_INT_TRAITS(wd_i32, wd_u32, wd_u32, -2147483647 - 1, 2147483647, true)
WD_INT_TRAITS(wd_i64, wd_u64, wd_u64, -9223372036854775807ll - 1, 9223372036854775807ll, true)
WD_INT_TRAITS(wd_u8, wd_u32, wd_u8, 0, 255u, false)
WD_INT_TRAITS(wd_u16, wd_u32, wd_u16, 0, 65535u, false)
WD_INT_TRAITS(wd_u32, wd_u32, wd_u32, 0, 4294967295u, false)
WD_INT_TRAITS(wd_u64, wd_u64, wd_u64, 0, 18446744073709551615ull, false)

template <class T> WD_DEV T wd_add(T a, T b) {
    typedef typename wd_int<T>::wide U;
    return (T)((U)a + (U)b);
}
template <class T> WD_DEV T wd_sub(T a, T b) {
    typedef typename wd_int<T>::wide U;
    return (T)((U)a - (U)b);
}
template <class T> WD_DEV T wd_mul(T a, T b) {
    typedef typename wd_int<T>::wide U;
    return (T)((U)a * (U)b);
}
template <class T> WD_DEV T wd_neg(T a) {
    typedef typename wd_int<T>::wide U;
    return (T)((U)0 - (U)a);
}
template <class T> WD_DEV T wd_not(T a) { return (T)~a; }
// Division by zero panics in Rust; on the GPU it is unspecified (this returns 0). MIN / -1 wraps.
template <class T> WD_DEV T wd_div(T a, T b) {
    if (b == (T)0) return (T)0;
    if (wd_int<T>::is_signed && b == (T)-1) return wd_neg(a);
    return (T)(a / b);
}
template <class T> WD_DEV T wd_rem(T a, T b) {
    if (b == (T)0) return (T)0;
    if (wd_int<T>::is_signed && b == (T)-1) return (T)0;
    return (T)(a % b);
}
// Shifts mask the amount to the width, as `wrapping_shl` / release-build `<<` do.
template <class T> WD_DEV T wd_shl(T a, wd_u32 s) {
    typedef typename wd_int<T>::wide U;
    return (T)((U)a << (s & (wd_int<T>::bits - 1)));
}
template <class T> WD_DEV T wd_shr(T a, wd_u32 s) { return (T)(a >> (s & (wd_int<T>::bits - 1))); }
template <class T> WD_DEV T wd_min(T a, T b) { return b < a ? b : a; }
template <class T> WD_DEV T wd_max(T a, T b) { return a <= b ? b : a; }
template <class T> WD_DEV T wd_clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
template <class T> WD_DEV T wd_abs(T a) { return a < (T)0 ? wd_neg(a) : a; }
template <class T> WD_DEV T wd_signum(T a) { return (T)((a > (T)0) - (a < (T)0)); }
template <class T> WD_DEV T wd_saturating_add(T a, T b) {
    T r = wd_add(a, b);
    if (wd_int<T>::is_signed) {
        bool overflow = ((a < (T)0) == (b < (T)0)) && ((r < (T)0) != (a < (T)0));
        return overflow ? (a < (T)0 ? wd_int<T>::min_value() : wd_int<T>::max_value()) : r;
    }
    return r < a ? wd_int<T>::max_value() : r;
}
template <class T> WD_DEV T wd_saturating_sub(T a, T b) {
    T r = wd_sub(a, b);
    if (wd_int<T>::is_signed) {
        bool overflow = ((a < (T)0) != (b < (T)0)) && ((r < (T)0) != (a < (T)0));
        return overflow ? (a < (T)0 ? wd_int<T>::min_value() : wd_int<T>::max_value()) : r;
    }
    return a < b ? (T)0 : r;
}
template <class T> WD_DEV wd_u32 wd_count_ones(T a) {
    typedef typename wd_int<T>::unsigned_t N;
    return sizeof(T) == 8 ? (wd_u32)__popcll((wd_u64)a) : (wd_u32)__popc((wd_u32)(N)a);
}
template <class T> WD_DEV wd_u32 wd_count_zeros(T a) { return (wd_u32)wd_int<T>::bits - wd_count_ones(a); }
template <class T> WD_DEV wd_u32 wd_leading_zeros(T a) {
    typedef typename wd_int<T>::unsigned_t N;
    if (sizeof(T) == 8) return (wd_u32)__clzll((wd_i64)a);
    return (wd_u32)__clz((wd_i32)(wd_u32)(N)a) - (wd_u32)(32 - wd_int<T>::bits);
}
template <class T> WD_DEV wd_u32 wd_trailing_zeros(T a) {
    typedef typename wd_int<T>::unsigned_t N;
    if (a == (T)0) return (wd_u32)wd_int<T>::bits;
    return sizeof(T) == 8 ? (wd_u32)(__ffsll((wd_i64)a) - 1) : (wd_u32)(__ffs((wd_i32)(wd_u32)(N)a) - 1);
}
template <class T> WD_DEV T wd_rotate_left(T a, wd_u32 s) {
    typedef typename wd_int<T>::unsigned_t N;
    typedef typename wd_int<T>::wide U;
    const wd_u32 b = (wd_u32)wd_int<T>::bits;
    s &= b - 1;
    U x = (U)(N)a;
    return (T)(N)((x << s) | (x >> ((b - s) & (b - 1))));
}
template <class T> WD_DEV T wd_rotate_right(T a, wd_u32 s) {
    return wd_rotate_left(a, ((wd_u32)wd_int<T>::bits - (s & (wd_int<T>::bits - 1))) & (wd_int<T>::bits - 1));
}
template <class T> WD_DEV T wd_pow(T base, wd_u32 e) {
    T acc = (T)1;
    while (e) {
        if (e & 1u) acc = wd_mul(acc, base);
        e >>= 1;
        base = wd_mul(base, base);
    }
    return acc;
}

// ---- float semantics ----
// `min`/`max` ignore a NaN operand, as Rust's do (IEEE maxNum/minNum).
WD_DEV wd_f32 wd_min(wd_f32 a, wd_f32 b) { return fminf(a, b); }
WD_DEV wd_f32 wd_max(wd_f32 a, wd_f32 b) { return fmaxf(a, b); }
WD_DEV wd_f64 wd_min(wd_f64 a, wd_f64 b) { return fmin(a, b); }
WD_DEV wd_f64 wd_max(wd_f64 a, wd_f64 b) { return fmax(a, b); }
// `clamp` passes NaN through, as Rust's does.
WD_DEV wd_f32 wd_clamp(wd_f32 x, wd_f32 lo, wd_f32 hi) { return x < lo ? lo : (x > hi ? hi : x); }
WD_DEV wd_f64 wd_clamp(wd_f64 x, wd_f64 lo, wd_f64 hi) { return x < lo ? lo : (x > hi ? hi : x); }
WD_DEV wd_f32 wd_signum(wd_f32 x) { return x != x ? x : copysignf(1.0f, x); }
WD_DEV wd_f64 wd_signum(wd_f64 x) { return x != x ? x : copysign(1.0, x); }
WD_DEV wd_u32 wd_to_bits(wd_f32 x) { return __float_as_uint(x); }
WD_DEV wd_u64 wd_to_bits(wd_f64 x) { return (wd_u64)__double_as_longlong(x); }
// `powi` by repeated squaring, the algorithm of compiler-rt's __powisf2 that rustc's powi uses.
template <class F> WD_DEV F wd_powi(F a, wd_i32 b) {
    const bool recip = b < 0;
    F r = (F)1;
    while (true) {
        if (b & 1) r *= a;
        b /= 2;
        if (b == 0) break;
        a *= a;
    }
    return recip ? (F)1 / r : r;
}

// ---- float -> integer casts: saturating, NaN -> 0 (Rust's `as`) ----
WD_DEV wd_i32 wd_ftoi_i32(wd_f32 x) { return x != x ? 0 : __float2int_rz(x); }
WD_DEV wd_u32 wd_ftoi_u32(wd_f32 x) { return x != x ? 0u : __float2uint_rz(x); }
WD_DEV wd_i64 wd_ftoi_i64(wd_f32 x) { return x != x ? 0ll : __float2ll_rz(x); }
WD_DEV wd_u64 wd_ftoi_u64(wd_f32 x) { return x != x ? 0ull : __float2ull_rz(x); }
WD_DEV wd_i32 wd_ftoi_i32(wd_f64 x) { return x != x ? 0 : __double2int_rz(x); }
WD_DEV wd_u32 wd_ftoi_u32(wd_f64 x) { return x != x ? 0u : __double2uint_rz(x); }
WD_DEV wd_i64 wd_ftoi_i64(wd_f64 x) { return x != x ? 0ll : __double2ll_rz(x); }
WD_DEV wd_u64 wd_ftoi_u64(wd_f64 x) { return x != x ? 0ull : __double2ull_rz(x); }
#define WD_FTOI_NARROW(NAME, T, LO, HI)                                                      \
    WD_DEV T NAME(wd_f32 x) { return (T)wd_clamp(wd_ftoi_i32(x), (wd_i32)(LO), (wd_i32)(HI)); } \
    WD_DEV T NAME(wd_f64 x) { return (T)wd_clamp(wd_ftoi_i32(x), (wd_i32)(LO), (wd_i32)(HI)); }
WD_FTOI_NARROW(wd_ftoi_i8, wd_i8, -128, 127)
WD_FTOI_NARROW(wd_ftoi_i16, wd_i16, -32768, 32767)
WD_FTOI_NARROW(wd_ftoi_u8, wd_u8, 0, 255)
WD_FTOI_NARROW(wd_ftoi_u16, wd_u16, 0, 65535)
