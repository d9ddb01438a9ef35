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

// ---- streaming loads (evict-first: data read once) of any scalar ----
template <class T> WD_DEV T wd_ldcs(const T* p) { return __ldcs(p); }
WD_DEV bool wd_ldcs(const bool* p) { return __ldcs((const wd_u8*)p) != 0; }

// Whether this block is the last of `blocks` to get here (`ticket`: a counter zeroed before
// the launch), for the patterns where that block goes on with what the others wrote: a
// barrier, then thread 0 fences the block's writes and takes a ticket; the last block fences
// again before reading. All threads call it; the answer is the block's.
WD_DEV bool wd_last_block(unsigned int* ticket, unsigned int blocks) {
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last = atomicAdd(ticket, 1u) == blocks - 1;
    }
    __syncthreads();
    if (last) __threadfence();
    return last;
}

// ---- a hint: ask L2 to fetch the 128-byte line holding *p ahead of its loads (no effect on
// any value; nothing on the host emulation of the tests) ----
WD_DEV void wd_prefetch_l2(const void* p) {
#ifdef __CUDA_ARCH__
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}

// ---- copies from global to shared memory that complete later (cp.async from sm_80; a plain
// copy before, and on the host emulation of the tests): each thread's copies are its own to
// wait for (wd_copy_async_wait), after which it alone may read them (other threads after a
// barrier). T: 4 or 8 bytes. ----
template <class T> WD_DEV void wd_copy_async(T* shared_dst, const T* src) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "wd_copy_async copies 4 or 8 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(shared_dst);
    if constexpr (sizeof(T) == 8) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(s), "l"(src) : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(src) : "memory");
    }
#else
    *shared_dst = *src;
#endif
}
WD_DEV void wd_copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// The same hint for the lines of elements [first, first + count) of every array of stage `st`
// (one thread per 128-byte line of its widest array; all threads call it).
template <class St> WD_DEV void wd_prefetch_range(const St& st, wd_u64 first, wd_u64 count) {
    constexpr wd_u64 LINE = 8u * St::VEC;
    for (wd_u64 j = threadIdx.x; j * LINE < count; j += WD_BLOCK) {
        const wd_u64 i = first + j * LINE;
        if (i < st.n) st.prefetch_l2(i);
    }
}

// ---- vectors: VEC consecutive elements of one array moved by one load of VEC * sizeof(E)
// bytes (16 at most), from an address aligned to that size ----
template <int B> struct wd_raw;
template <> struct wd_raw<16> { typedef uint4 t; };
template <> struct wd_raw<8> { typedef uint2 t; };
template <> struct wd_raw<4> { typedef unsigned int t; };
template <> struct wd_raw<2> { typedef unsigned short t; };
template <> struct wd_raw<1> { typedef unsigned char t; };
template <class E, int VEC> union wd_vec {
    typename wd_raw<VEC * (int)sizeof(E)>::t raw;
    E e[VEC];
};
// A streaming load of the vector at p.
template <class E, int VEC> WD_DEV wd_vec<E, VEC> wd_ldcs_vec(const E* p) {
    wd_vec<E, VEC> v;
    v.raw = __ldcs(reinterpret_cast<const typename wd_raw<VEC * (int)sizeof(E)>::t*>(p));
    return v;
}
// Whether a vector can start at p.
template <class E, int VEC> WD_DEV bool wd_vec_aligned(const E* p) {
    return ((wd_u64)p & (wd_u64)(VEC * sizeof(E) - 1)) == 0;
}
// Elements from p to the first address where a vector can start.
template <class E, int VEC> WD_DEV wd_u64 wd_vec_head(const E* p) {
    constexpr wd_u64 B = VEC * sizeof(E);
    return ((B - ((wd_u64)p & (B - 1))) & (B - 1)) / sizeof(E);
}
// What a stage's head() returns when its arrays cannot be read as vectors together (zipped
// arrays whose alignments differ): the templates then read element by element.
#define WD_NO_VEC (~0ull)

// ---- the arrays a stage reads: up to four device addresses (one per zipped array) ----
// `len`, when not null, is a device-resident length: the stage reads the first *len elements
// (at most the kernel's `n`, the capacity its grid is sized for).
struct wd_in {
    const void* p[WD_MAX_INPUTS];
    const wd_u64* len;
};

// ---- integer arithmetic with Rust's (release-build) semantics ----
// Every integer lives in a register of at least 32 bits: `wd_int<T>::reg` (int or unsigned int
// for the 8- and 16-bit types, canonical: sign- or zero-extended from the type's width). The
// helpers take the Rust type as their template argument, compute in a wide unsigned type (so
// arithmetic wraps instead of overflowing a signed C int, which is undefined) and bring the
// result back to canonical form with shifts and masks: the code never uses 8- or 16-bit
// registers, which ptxas (CUDA 13.0, sm_90) miscompiles in some patterns (found by the
// fidelity fuzzer: `neg.s16` of -32768 sign-extended as +32768).
template <class T> struct wd_int;
#define WD_INT_TRAITS(T, REG, UWIDE, UNARROW, MINV, MAXV, SIGNED)                            \
    template <> struct wd_int<T> {                                                           \
        typedef REG reg;                                                                     \
        typedef UWIDE wide;                                                                  \
        typedef UNARROW unsigned_t;                                                          \
        static constexpr int bits = (int)sizeof(T) * 8;                                      \
        static constexpr bool is_signed = SIGNED;                                            \
        static __device__ __forceinline__ REG min_value() { return (REG)(MINV); }            \
        static __device__ __forceinline__ REG max_value() { return (REG)(MAXV); }            \
    };
WD_INT_TRAITS(wd_i8, wd_i32, wd_u32, wd_u8, -128, 127, true)
WD_INT_TRAITS(wd_i16, wd_i32, wd_u32, wd_u16, -32768, 32767, true)
WD_INT_TRAITS(wd_i32, wd_i32, wd_u32, wd_u32, -2147483647 - 1, 2147483647, true)
WD_INT_TRAITS(wd_i64, wd_i64, wd_u64, wd_u64, -9223372036854775807ll - 1, 9223372036854775807ll, true)
WD_INT_TRAITS(wd_u8, wd_u32, wd_u32, wd_u8, 0, 255u, false)
WD_INT_TRAITS(wd_u16, wd_u32, wd_u32, wd_u16, 0, 65535u, false)
WD_INT_TRAITS(wd_u32, wd_u32, wd_u32, wd_u32, 0, 4294967295u, false)
WD_INT_TRAITS(wd_u64, wd_u64, wd_u64, wd_u64, 0, 18446744073709551615ull, false)
#define WD_REG(T) typename wd_int<T>::reg

// An opaque copy of a 32-bit register: the compiler cannot see that the value fits in 8 or 16
// bits, so it cannot move the computations that use it into 16-bit registers.
WD_DEV wd_i32 wd_opaque(wd_i32 x) {
    asm("" : "+r"(x));
    return x;
}
WD_DEV wd_u32 wd_opaque(wd_u32 x) {
    asm("" : "+r"(x));
    return x;
}
// The canonical register value of the low `bits` bits of `x` (two's complement wrap).
template <class T> WD_DEV WD_REG(T) wd_canon(typename wd_int<T>::wide x) {
    constexpr int bits = wd_int<T>::bits;
    if constexpr (bits >= 32) {
        return (WD_REG(T))x;
    } else if constexpr (wd_int<T>::is_signed) {
        return wd_opaque((wd_i32)(x << (32 - bits)) >> (32 - bits));
    } else {
        return wd_opaque((wd_u32)(x & ((1u << bits) - 1u)));
    }
}
// `x as T` from any integer or bool value.
template <class T, class F> WD_DEV WD_REG(T) wd_cast(F x) {
    return wd_canon<T>((typename wd_int<T>::wide)x);
}
template <class T> WD_DEV WD_REG(T) wd_add(WD_REG(T) a, WD_REG(T) b) {
    typedef typename wd_int<T>::wide U;
    return wd_canon<T>((U)a + (U)b);
}
template <class T> WD_DEV WD_REG(T) wd_sub(WD_REG(T) a, WD_REG(T) b) {
    typedef typename wd_int<T>::wide U;
    return wd_canon<T>((U)a - (U)b);
}
template <class T> WD_DEV WD_REG(T) wd_mul(WD_REG(T) a, WD_REG(T) b) {
    typedef typename wd_int<T>::wide U;
    return wd_canon<T>((U)a * (U)b);
}
template <class T> WD_DEV WD_REG(T) wd_neg(WD_REG(T) a) {
    typedef typename wd_int<T>::wide U;
    return wd_canon<T>((U)0 - (U)a);
}
template <class T> WD_DEV WD_REG(T) wd_not(WD_REG(T) a) {
    typedef typename wd_int<T>::wide U;
    return wd_canon<T>(~(U)a);
}
// Division by zero panics in Rust; here (and on the CPU backend: warp_runtime::semantics) it
// gives 0, as does the remainder. MIN / -1 wraps to MIN and MIN % -1 is 0 (C leaves both
// undefined: neither reaches a C division).
template <class T> WD_DEV WD_REG(T) wd_div(WD_REG(T) a, WD_REG(T) b) {
    if (b == 0) return 0;
    if (wd_int<T>::is_signed && b == (WD_REG(T))-1) return wd_neg<T>(a);
    return a / b;
}
template <class T> WD_DEV WD_REG(T) wd_rem(WD_REG(T) a, WD_REG(T) b) {
    if (b == 0) return 0;
    if (wd_int<T>::is_signed && b == (WD_REG(T))-1) return 0;
    return a % b;
}
// Shifts mask the amount to the width, as `wrapping_shl` / release-build `<<` do; `>>` is
// arithmetic on signed types (the register is sign-extended, so this is exact).
template <class T> WD_DEV WD_REG(T) wd_shl(WD_REG(T) a, wd_u32 s) {
    typedef typename wd_int<T>::wide U;
    return wd_canon<T>((U)a << (s & (wd_int<T>::bits - 1)));
}
template <class T> WD_DEV WD_REG(T) wd_shr(WD_REG(T) a, wd_u32 s) { return a >> (s & (wd_int<T>::bits - 1)); }
template <class T> WD_DEV T wd_min(T a, T b) { return b < a ? b : a; }
template <class T> WD_DEV T wd_max(T a, T b) { return a <= b ? b : a; }
template <class T> WD_DEV T wd_clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
// `abs` wraps at MIN (MIN.abs() == MIN in a release build). The negation passes through an
// opaque register so that the compiler does not form `abs.s32`/`abs.s64`, whose result ptxas
// (CUDA 13.0, sm_90) takes to be non-negative: `0 <= i64::MIN.abs()` came out true (found by the
// fidelity fuzzer, fz_6333).
WD_DEV wd_u64 wd_opaque(wd_u64 x) {
    asm("" : "+l"(x));
    return x;
}
template <class T> WD_DEV WD_REG(T) wd_abs(WD_REG(T) a) {
    if constexpr (wd_int<T>::bits == 64) {
        const WD_REG(T) n = (WD_REG(T))wd_opaque((wd_u64)0 - (wd_u64)a);
        return a < 0 ? n : a;
    } else if constexpr (wd_int<T>::bits == 32) {
        const WD_REG(T) n = (WD_REG(T))wd_opaque((wd_u32)0 - (wd_u32)a);
        return a < 0 ? n : a;
    } else {
        return a < 0 ? wd_neg<T>(a) : a;
    }
}
template <class T> WD_DEV WD_REG(T) wd_signum(WD_REG(T) a) { return (WD_REG(T))((a > 0) - (a < 0)); }
template <class T> WD_DEV WD_REG(T) wd_saturating_add(WD_REG(T) a, WD_REG(T) b) {
    WD_REG(T) r = wd_add<T>(a, b);
    if (wd_int<T>::is_signed) {
        bool overflow = ((a < 0) == (b < 0)) && ((r < 0) != (a < 0));
        return overflow ? (a < 0 ? wd_int<T>::min_value() : wd_int<T>::max_value()) : r;
    }
    return r < a ? wd_int<T>::max_value() : r;
}
template <class T> WD_DEV WD_REG(T) wd_saturating_sub(WD_REG(T) a, WD_REG(T) b) {
    WD_REG(T) r = wd_sub<T>(a, b);
    if (wd_int<T>::is_signed) {
        bool overflow = ((a < 0) != (b < 0)) && ((r < 0) != (a < 0));
        return overflow ? (a < 0 ? wd_int<T>::min_value() : wd_int<T>::max_value()) : r;
    }
    return a < b ? (WD_REG(T))0 : r;
}
// The type's bits, zero-extended into a 32- or 64-bit unsigned value.
template <class T> WD_DEV typename wd_int<T>::wide wd_bits(WD_REG(T) a) {
    if constexpr (wd_int<T>::bits >= 32) {
        return (typename wd_int<T>::wide)a;
    } else {
        return (wd_u32)a & ((1u << wd_int<T>::bits) - 1u);
    }
}
template <class T> WD_DEV wd_u32 wd_count_ones(WD_REG(T) a) {
    if constexpr (wd_int<T>::bits == 64) return (wd_u32)__popcll((wd_u64)a);
    else return (wd_u32)__popc(wd_bits<T>(a));
}
template <class T> WD_DEV wd_u32 wd_count_zeros(WD_REG(T) a) { return (wd_u32)wd_int<T>::bits - wd_count_ones<T>(a); }
template <class T> WD_DEV wd_u32 wd_leading_zeros(WD_REG(T) a) {
    if constexpr (wd_int<T>::bits == 64) return (wd_u32)__clzll((wd_i64)a);
    else return (wd_u32)__clz((wd_i32)wd_bits<T>(a)) - (wd_u32)(32 - wd_int<T>::bits);
}
template <class T> WD_DEV wd_u32 wd_trailing_zeros(WD_REG(T) a) {
    if (a == 0) return (wd_u32)wd_int<T>::bits;
    if constexpr (wd_int<T>::bits == 64) return (wd_u32)(__ffsll((wd_i64)a) - 1);
    else return (wd_u32)(__ffs((wd_i32)wd_bits<T>(a)) - 1);
}
template <class T> WD_DEV WD_REG(T) wd_rotate_left(WD_REG(T) a, wd_u32 s) {
    typedef typename wd_int<T>::wide U;
    const wd_u32 b = (wd_u32)wd_int<T>::bits;
    s &= b - 1;
    const U x = wd_bits<T>(a);
    return wd_canon<T>((x << s) | (x >> ((b - s) & (b - 1))));
}
template <class T> WD_DEV WD_REG(T) wd_rotate_right(WD_REG(T) a, wd_u32 s) {
    return wd_rotate_left<T>(a, ((wd_u32)wd_int<T>::bits - (s & (wd_int<T>::bits - 1))) & (wd_int<T>::bits - 1));
}
template <class T> WD_DEV WD_REG(T) wd_pow(WD_REG(T) base, wd_u32 e) {
    WD_REG(T) acc = 1;
    while (e) {
        if (e & 1u) acc = wd_mul<T>(acc, base);
        e >>= 1;
        base = wd_mul<T>(base, base);
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
// `copysign` by bit operations: the GPU computed `f64::copysign(x, x)` as `|x|` when it was the
// `copysign.f64` instruction with one register for both operands (found by the fidelity fuzzer,
// fz_4536). The sign word passes through an opaque register so the pattern is not turned back
// into that instruction.
WD_DEV wd_f32 wd_copysign(wd_f32 x, wd_f32 s) {
    const wd_u32 sign = wd_opaque(__float_as_uint(s) & 0x80000000u);
    return __uint_as_float((__float_as_uint(x) & 0x7FFFFFFFu) | sign);
}
WD_DEV wd_f64 wd_copysign(wd_f64 x, wd_f64 s) {
    const wd_u64 sign = wd_opaque((wd_u64)__double_as_longlong(s) & 0x8000000000000000ull);
    return __longlong_as_double((wd_i64)(((wd_u64)__double_as_longlong(x) & 0x7FFFFFFFFFFFFFFFull) | sign));
}
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
// 8- and 16-bit targets: the i32 conversion, clamped to the range (a canonical register value).
#define WD_FTOI_NARROW(NAME, REG, LO, HI)                                                      \
    WD_DEV REG NAME(wd_f32 x) { return wd_opaque((REG)wd_clamp(wd_ftoi_i32(x), (wd_i32)(LO), (wd_i32)(HI))); } \
    WD_DEV REG NAME(wd_f64 x) { return wd_opaque((REG)wd_clamp(wd_ftoi_i32(x), (wd_i32)(LO), (wd_i32)(HI))); }
WD_FTOI_NARROW(wd_ftoi_i8, wd_i32, -128, 127)
WD_FTOI_NARROW(wd_ftoi_i16, wd_i32, -32768, 32767)
WD_FTOI_NARROW(wd_ftoi_u8, wd_u32, 0, 255)
WD_FTOI_NARROW(wd_ftoi_u16, wd_u32, 0, 65535)

// ---- arguments bound at call time: each scalar travels as the 64 bits of a u64, or, when
// its bit of `indirect` is set, as the device address of a result slot holding it (a result
// another kernel left on the device) ----
struct wd_args {
    wd_u64 v[WD_BOUND_ARGS];
    wd_u32 indirect;
};
template <class T> struct wd_arg_decode {
    static __device__ __forceinline__ WD_REG(T) get(wd_u64 x) { return wd_cast<T>(x); }
    static __device__ __forceinline__ WD_REG(T) load(wd_u64 p) { return (WD_REG(T))(*(const T*)p); }
};
template <> struct wd_arg_decode<bool> {
    static __device__ __forceinline__ bool get(wd_u64 x) { return (x & 0xffu) != 0; }
    static __device__ __forceinline__ bool load(wd_u64 p) { return *(const wd_u8*)p != 0; }
};
template <> struct wd_arg_decode<wd_f32> {
    static __device__ __forceinline__ wd_f32 get(wd_u64 x) { return __uint_as_float((wd_u32)x); }
    static __device__ __forceinline__ wd_f32 load(wd_u64 p) { return *(const wd_f32*)p; }
};
template <> struct wd_arg_decode<wd_f64> {
    static __device__ __forceinline__ wd_f64 get(wd_u64 x) { return __longlong_as_double((wd_i64)x); }
    static __device__ __forceinline__ wd_f64 load(wd_u64 p) { return *(const wd_f64*)p; }
};
// Bound argument `i` of type T.
template <class T>
static __device__ __forceinline__ decltype(wd_arg_decode<T>::get(0ull)) wd_arg(const wd_args& a, int i) {
    return ((a.indirect >> i) & 1u) ? wd_arg_decode<T>::load(a.v[i]) : wd_arg_decode<T>::get(a.v[i]);
}
// The arguments with each indirect one read once, as the first 8 bytes of its result slot (a
// slot holds 64; `get` decodes a value from its low bytes), and none left indirect: the stage
// keeps these, so the reads happen at the kernel's start, not again at every use behind the
// kernel's own memory operations (which the compiler cannot prove do not alias them).
static __device__ __forceinline__ wd_args wd_resolve_args(const wd_args& a) {
    wd_args r;
#pragma unroll
    for (int i = 0; i < WD_BOUND_ARGS; ++i) r.v[i] = ((a.indirect >> i) & 1u) ? *(const wd_u64*)a.v[i] : a.v[i];
    r.indirect = 0u;
    return r;
}
