//! The operations of the body language with the results the generated CUDA gives, for the CPU:
//! what the macros' hidden CPU evaluation functions call instead of Rust's operators, so that
//! the CPU backend computes what the GPU computes, without panicking, in every build profile.
//!
//! The rules (the same on both backends):
//!
//! | operation | integers | floats, `f16`, `bf16` |
//! |---|---|---|
//! | `a + b`, `a - b`, `a * b` | wrap (two's complement) | IEEE, as Rust |
//! | `a / b` | `0` when `b == 0`; `MIN / -1 == MIN` | IEEE, as Rust |
//! | `a % b` | `0` when `b == 0`; `MIN % -1 == 0` | as Rust (`fmod`) |
//! | `-a` | wraps: `-MIN == MIN` | flips the sign |
//! | `a << s`, `a >> s` | the amount is masked to the width (`s & (BITS - 1)`); `>>` is arithmetic on signed types | — |
//! | `x.abs()` | wraps: `MIN.abs() == MIN` | as Rust |
//! | `x.pow(e)` | wraps (`wrapping_pow`) | — |
//! | `x.clamp(lo, hi)` | `if x < lo { lo } else if x > hi { hi } else { x }`, also when `lo > hi` (Rust panics) | the same: a NaN bound is never chosen, a NaN `x` stays NaN |
//!
//! Everything else (`as` casts, the other methods) never panics in Rust and is computed by
//! Rust's own operations. Each function here is that rule for one operation:
//!
//! ```
//! use warp_runtime::semantics;
//!
//! assert_eq!(semantics::add(i32::MAX, 1), i32::MIN);
//! assert_eq!(semantics::div(7u8, 0), 0);
//! assert_eq!(semantics::div(i32::MIN, -1), i32::MIN);
//! assert_eq!(semantics::rem(i32::MIN, -1), 0);
//! assert_eq!(semantics::shl(1u32, 33), 2);
//! assert_eq!(semantics::neg(i8::MIN), i8::MIN);
//! assert_eq!(semantics::abs(i64::MIN), i64::MIN);
//! assert_eq!(semantics::pow(3u8, 6), 217);
//! assert_eq!(semantics::clamp(5, 10, 0), 10);
//! assert_eq!(semantics::div(1.0f32, 0.0), f32::INFINITY);
//! ```

use half::{bf16, f16};

/// The arithmetic of a value type of the body language, with the GPU's results (see the
/// [module](self)). Implemented for `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `f16`, `bf16`.
///
/// ```
/// use warp_runtime::semantics::Arith;
///
/// assert_eq!(<u8 as Arith>::add(250, 10), 4);
/// assert_eq!(<f32 as Arith>::add(0.5, 0.25), 0.75);
/// ```
pub trait Arith: Copy + PartialOrd {
    /// `a + b`.
    fn add(a: Self, b: Self) -> Self;
    /// `a - b`.
    fn sub(a: Self, b: Self) -> Self;
    /// `a * b`.
    fn mul(a: Self, b: Self) -> Self;
    /// `a / b`.
    fn div(a: Self, b: Self) -> Self;
    /// `a % b`.
    fn rem(a: Self, b: Self) -> Self;
}

/// Negation and `abs` with the GPU's results: signed integers, floats and (negation only, as
/// the body language has no `abs` of them) `f16`/`bf16`.
///
/// ```
/// use warp_runtime::semantics::Signed;
///
/// assert_eq!(<i16 as Signed>::neg(i16::MIN), i16::MIN);
/// assert_eq!(<f64 as Signed>::abs(-2.0), 2.0);
/// ```
pub trait Signed: Copy {
    /// `-a`.
    fn neg(a: Self) -> Self;
    /// `a.abs()`.
    fn abs(a: Self) -> Self;
}

/// Shifts and `pow` with the GPU's results: the integer types.
///
/// ```
/// use warp_runtime::semantics::Int;
///
/// assert_eq!(<i8 as Int>::shr(-128, 9), -64);
/// assert_eq!(<u16 as Int>::pow(2, 16), 0);
/// ```
pub trait Int: Copy {
    /// `a << s`, the amount masked to the width.
    fn shl(a: Self, s: u32) -> Self;
    /// `a >> s`, the amount masked to the width (arithmetic on signed types).
    fn shr(a: Self, s: u32) -> Self;
    /// `a.pow(e)`, wrapping.
    fn pow(a: Self, e: u32) -> Self;
    /// The low 32 bits, as a shift amount (masked afterwards by the shift).
    fn shift_amount(self) -> u32;
}

macro_rules! int_semantics {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn add(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline]
            fn sub(a: Self, b: Self) -> Self { a.wrapping_sub(b) }
            #[inline]
            fn mul(a: Self, b: Self) -> Self { a.wrapping_mul(b) }
            #[inline]
            fn div(a: Self, b: Self) -> Self { if b == 0 { 0 } else { a.wrapping_div(b) } }
            #[inline]
            fn rem(a: Self, b: Self) -> Self { if b == 0 { 0 } else { a.wrapping_rem(b) } }
        }
        impl Int for $t {
            #[inline]
            fn shl(a: Self, s: u32) -> Self { a.wrapping_shl(s) }
            #[inline]
            fn shr(a: Self, s: u32) -> Self { a.wrapping_shr(s) }
            #[inline]
            fn pow(a: Self, e: u32) -> Self { a.wrapping_pow(e) }
            #[inline]
            fn shift_amount(self) -> u32 { self as u32 }
        }
    )*};
}
int_semantics!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! signed_int {
    ($($t:ty),*) => {$(
        impl Signed for $t {
            #[inline]
            fn neg(a: Self) -> Self { a.wrapping_neg() }
            #[inline]
            fn abs(a: Self) -> Self { a.wrapping_abs() }
        }
    )*};
}
signed_int!(i8, i16, i32, i64);

macro_rules! float_semantics {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn add(a: Self, b: Self) -> Self { a + b }
            #[inline]
            fn sub(a: Self, b: Self) -> Self { a - b }
            #[inline]
            fn mul(a: Self, b: Self) -> Self { a * b }
            #[inline]
            fn div(a: Self, b: Self) -> Self { a / b }
            #[inline]
            fn rem(a: Self, b: Self) -> Self { a % b }
        }
    )*};
}
float_semantics!(f32, f64, f16, bf16);

impl Signed for f32 {
    #[inline]
    fn neg(a: Self) -> Self {
        -a
    }
    #[inline]
    fn abs(a: Self) -> Self {
        a.abs()
    }
}

impl Signed for f64 {
    #[inline]
    fn neg(a: Self) -> Self {
        -a
    }
    #[inline]
    fn abs(a: Self) -> Self {
        a.abs()
    }
}

macro_rules! half_signed {
    ($($t:ty),*) => {$(
        impl Signed for $t {
            #[inline]
            fn neg(a: Self) -> Self { -a }
            #[inline]
            fn abs(a: Self) -> Self { <$t>::from_bits(a.to_bits() & 0x7fff) }
        }
    )*};
}
half_signed!(f16, bf16);

/// `a + b`: integers wrap.
///
/// ```
/// assert_eq!(warp_runtime::semantics::add(u8::MAX, 2), 1);
/// ```
#[inline]
pub fn add<T: Arith>(a: T, b: T) -> T {
    T::add(a, b)
}

/// `a - b`: integers wrap.
///
/// ```
/// assert_eq!(warp_runtime::semantics::sub(0u32, 1), u32::MAX);
/// ```
#[inline]
pub fn sub<T: Arith>(a: T, b: T) -> T {
    T::sub(a, b)
}

/// `a * b`: integers wrap.
///
/// ```
/// assert_eq!(warp_runtime::semantics::mul(i32::MAX, 2), -2);
/// ```
#[inline]
pub fn mul<T: Arith>(a: T, b: T) -> T {
    T::mul(a, b)
}

/// `a / b`: an integer divided by zero gives 0, `MIN / -1` gives `MIN`; floats as IEEE.
///
/// ```
/// use warp_runtime::semantics::div;
/// assert_eq!(div(5i64, 0), 0);
/// assert_eq!(div(i8::MIN, -1), i8::MIN);
/// ```
#[inline]
pub fn div<T: Arith>(a: T, b: T) -> T {
    T::div(a, b)
}

/// `a % b`: an integer remainder by zero gives 0, `MIN % -1` gives 0; floats as Rust.
///
/// ```
/// use warp_runtime::semantics::rem;
/// assert_eq!(rem(5u16, 0), 0);
/// assert_eq!(rem(i64::MIN, -1), 0);
/// assert_eq!(rem(-7, 3), -1);
/// ```
#[inline]
pub fn rem<T: Arith>(a: T, b: T) -> T {
    T::rem(a, b)
}

/// `-a`: integers wrap (`-MIN == MIN`).
///
/// ```
/// assert_eq!(warp_runtime::semantics::neg(i32::MIN), i32::MIN);
/// ```
#[inline]
pub fn neg<T: Signed>(a: T) -> T {
    T::neg(a)
}

/// `a.abs()`: integers wrap (`MIN.abs() == MIN`).
///
/// ```
/// assert_eq!(warp_runtime::semantics::abs(i8::MIN), i8::MIN);
/// ```
#[inline]
pub fn abs<T: Signed>(a: T) -> T {
    T::abs(a)
}

/// `a << s`: the amount (of any integer type) is masked to the width of `a`.
///
/// ```
/// assert_eq!(warp_runtime::semantics::shl(1u8, 9i64), 2);
/// ```
#[inline]
pub fn shl<T: Int, S: Int>(a: T, s: S) -> T {
    T::shl(a, s.shift_amount())
}

/// `a >> s`: the amount (of any integer type) is masked to the width of `a`; arithmetic on
/// signed types.
///
/// ```
/// assert_eq!(warp_runtime::semantics::shr(-8i32, 33u32), -4);
/// ```
#[inline]
pub fn shr<T: Int, S: Int>(a: T, s: S) -> T {
    T::shr(a, s.shift_amount())
}

/// `a.pow(e)`: wraps.
///
/// ```
/// assert_eq!(warp_runtime::semantics::pow(2i32, 31), i32::MIN);
/// ```
#[inline]
pub fn pow<T: Int>(a: T, e: u32) -> T {
    T::pow(a, e)
}

/// `x.clamp(lo, hi)` as the GPU computes it: `lo` when `x < lo`, else `hi` when `x > hi`,
/// else `x`, for any bounds (Rust's panics when `lo > hi` or a float bound is NaN).
///
/// ```
/// use warp_runtime::semantics::clamp;
/// assert_eq!(clamp(7, 0, 5), 5);
/// assert_eq!(clamp(3.0f32, 0.0, f32::NAN), 3.0);
/// assert!(clamp(f32::NAN, 0.0, 1.0).is_nan());
/// ```
#[inline]
pub fn clamp<T: PartialOrd>(x: T, lo: T, hi: T) -> T {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_edges() {
        assert_eq!(add(i8::MAX, 1), i8::MIN);
        assert_eq!(sub(i64::MIN, 1), i64::MAX);
        assert_eq!(mul(u64::MAX, u64::MAX), 1);
        assert_eq!(div(0u8, 0), 0);
        assert_eq!(div(i16::MIN, -1), i16::MIN);
        assert_eq!(rem(i16::MIN, -1), 0);
        assert_eq!(rem(-7i32, 0), 0);
        assert_eq!(shl(1i64, 64), 1);
        assert_eq!(shl(1u16, -1i32), 1 << 15);
        assert_eq!(shr(i32::MIN, 63u8), -1);
        assert_eq!(neg(i64::MIN), i64::MIN);
        assert_eq!(abs(i32::MIN), i32::MIN);
        assert_eq!(pow(10u32, 10), 1_410_065_408);
    }

    #[test]
    fn floats_are_ieee() {
        assert!(div(0.0f64, 0.0).is_nan());
        assert_eq!(div(-1.0f32, 0.0), f32::NEG_INFINITY);
        assert!(rem(1.0f32, 0.0).is_nan());
        assert_eq!(neg(0.0f32).to_bits(), (-0.0f32).to_bits());
        assert_eq!(add(f16::ONE, f16::ONE), f16::from_f32(2.0));
        assert_eq!(abs(bf16::NEG_ONE), bf16::ONE);
    }
}
