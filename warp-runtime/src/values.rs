//! Value types: the scalars a `DeviceVec` holds ([`Element`]), the elements of zipped arrays
//! ([`Row`]) and the values operators produce ([`DeviceValue`], scalars and tuples), with the
//! C layout the GPU writes them in.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use warp_kernels::Scalar;

mod sealed {
    /// Implemented by the value types warp-dsl knows: its scalars and tuples, and the structs
    /// of `#[derive(DeviceValue)]`.
    pub trait Sealed {}
}
pub use sealed::Sealed;

/// A value an operator works on: a scalar or a tuple of scalars. Its bytes on the GPU follow
/// C's struct layout (each field aligned to its size).
pub trait DeviceValue:
    Copy + Send + Sync + PartialEq + std::fmt::Debug + 'static + sealed::Sealed
{
    /// Whether the value holds no floats: operators on it are exact, so the order in which a
    /// scan groups values cannot change its result.
    const EXACT: bool;
    /// Size of the C layout in bytes.
    const C_SIZE: usize;
    /// Alignment of the C layout.
    const C_ALIGN: usize;
    /// Reads a value from its C layout.
    fn read_c(bytes: &[u8]) -> Self;
    /// Writes the value in its C layout.
    fn write_c(&self, out: &mut [u8]);
}

/// A scalar that a `DeviceVec` can hold: `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `bool`, and
/// the `half` crate's `f16` and `bf16` (re-exported as `warp_runtime::half`).
pub trait Element: DeviceValue + DeviceRepr + ValidAsZeroBits + Default {
    /// The Rust name.
    const NAME: &'static str;
    /// The DSL type.
    #[doc(hidden)]
    const SCALAR: Scalar;
}

/// An integer type usable as the index of an indexed reduction.
pub trait IndexInt: Element {
    /// Largest index representable.
    const MAX_INDEX: u64;
    /// `i as Self` (the GPU does the same conversion).
    fn from_index(i: u64) -> Self;
}

macro_rules! scalar {
    ($($t:ty: $s:ident, $exact:expr);*) => {$(
        impl sealed::Sealed for $t {}
        impl DeviceValue for $t {
            const EXACT: bool = $exact;
            const C_SIZE: usize = std::mem::size_of::<$t>();
            const C_ALIGN: usize = std::mem::size_of::<$t>();
            fn read_c(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(&bytes[..std::mem::size_of::<$t>()]);
                <$t>::from_ne_bytes(b)
            }
            fn write_c(&self, out: &mut [u8]) {
                out[..std::mem::size_of::<$t>()].copy_from_slice(&self.to_ne_bytes());
            }
        }
        impl Element for $t {
            const NAME: &'static str = stringify!($t);
            const SCALAR: Scalar = Scalar::$s;
        }
    )*};
}
scalar!(
    i8: I8, true; i16: I16, true; i32: I32, true; i64: I64, true;
    u8: U8, true; u16: U16, true; u32: U32, true; u64: U64, true;
    f32: F32, false; f64: F64, false;
    half::f16: F16, false; half::bf16: BF16, false
);

macro_rules! index_int {
    ($($t:ty),*) => {$(
        impl IndexInt for $t {
            const MAX_INDEX: u64 = <$t>::MAX as u64;
            fn from_index(i: u64) -> Self {
                i as $t
            }
        }
    )*};
}
index_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl sealed::Sealed for bool {}
impl DeviceValue for bool {
    const EXACT: bool = true;
    const C_SIZE: usize = 1;
    const C_ALIGN: usize = 1;
    fn read_c(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    fn write_c(&self, out: &mut [u8]) {
        out[0] = *self as u8;
    }
}
impl Element for bool {
    const NAME: &'static str = "bool";
    const SCALAR: Scalar = Scalar::Bool;
}

const fn align_up(x: usize, a: usize) -> usize {
    x.div_ceil(a) * a
}

macro_rules! tuple {
    ($($name:ident : $idx:tt),+) => {
        impl<$($name: Element),+> sealed::Sealed for ($($name,)+) {}
        impl<$($name: Element),+> DeviceValue for ($($name,)+) {
            const EXACT: bool = $($name::EXACT &&)+ true;
            const C_SIZE: usize = {
                let mut off = 0;
                let mut align = 1;
                $(
                    off = align_up(off, $name::C_ALIGN) + $name::C_SIZE;
                    if $name::C_ALIGN > align { align = $name::C_ALIGN; }
                )+
                align_up(off, align)
            };
            const C_ALIGN: usize = {
                let mut align = 1;
                $( if $name::C_ALIGN > align { align = $name::C_ALIGN; } )+
                align
            };
            #[allow(unused_assignments)] // the last field's end is not needed
            fn read_c(bytes: &[u8]) -> Self {
                let mut next = 0;
                ($({
                    let off = align_up(next, $name::C_ALIGN);
                    next = off + $name::C_SIZE;
                    $name::read_c(&bytes[off..])
                },)+)
            }
            #[allow(unused_assignments)] // the last field's end is not needed
            fn write_c(&self, out: &mut [u8]) {
                let mut next = 0;
                $(
                    let off = align_up(next, $name::C_ALIGN);
                    self.$idx.write_c(&mut out[off..]);
                    next = off + $name::C_SIZE;
                )+
            }
        }
    };
}
tuple!(A: 0, B: 1);
tuple!(A: 0, B: 1, C: 2);
tuple!(A: 0, B: 1, C: 2, D: 3);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, G: 6);
tuple!(A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, G: 6, H: 7);

/// One element of each array an operation reads: a scalar [`Element`] (one array), or a
/// tuple of 2 to 4 of them (that many equally long arrays, zipped: `(&xs, &ys)`). The element
/// type of a map or predicate with `inputs = N`.
pub trait Row: DeviceValue {
    /// The element type of each array, in order.
    #[doc(hidden)]
    const COLUMNS: &'static [Scalar];
}

impl<T: Element> Row for T {
    const COLUMNS: &'static [Scalar] = &[T::SCALAR];
}

macro_rules! row {
    ($($name:ident),+) => {
        impl<$($name: Element),+> Row for ($($name,)+) {
            const COLUMNS: &'static [Scalar] = &[$($name::SCALAR),+];
        }
    };
}
row!(A, B);
row!(A, B, C);
row!(A, B, C, D);

/// An element type with the orders that `Device::top_k` / `Device::bottom_k` and the sorts
/// (`Device::sort`, ...) use: every [`Element`].
///
/// Top-k selects by [`Ordered::order_key`]: integers and `bool` (`false < true`) in their usual
/// order; floats (`f32`, `f64`, `f16`, `bf16`) in IEEE order with `-0.0 == +0.0` and every NaN
/// (any sign or payload) equal to every other NaN and above `+inf`. Equal elements are told
/// apart by their index (the smaller first).
///
/// The sorts order by [`Ordered::sort_key`]: the same for integers and `bool`; floats in the
/// order of Rust's `total_cmp` (negative NaNs first, then `-inf` .. `-0.0`, `+0.0` .. `+inf`,
/// positive NaNs last; `-0.0` before `+0.0`; NaNs by their payload bits).
///
/// ```
/// use warp_runtime::Ordered;
/// assert!(f32::NAN.order_key() > f32::INFINITY.order_key());
/// assert_eq!((-0.0f32).order_key(), 0.0f32.order_key());
/// assert!((-1i8).order_key() < 0i8.order_key());
/// assert!((-0.0f32).sort_key() < 0.0f32.sort_key());
/// assert!((-f32::NAN).sort_key() < f32::NEG_INFINITY.sort_key());
/// ```
pub trait Ordered: Element {
    /// Bits of [`Ordered::order_key`] (the element's width; 8 for `bool`).
    const KEY_BITS: u32;
    /// An unsigned key of [`Ordered::KEY_BITS`] bits whose order is the element's: the GPU
    /// computes the same key (topk.cuh's `wd_topk_key`).
    fn order_key(self) -> u64;
    /// An unsigned key of [`Ordered::KEY_BITS`] bits whose order is the sorts' (`total_cmp`
    /// for floats): the GPU computes the same key (sort.cuh's `wd_sort_bits`).
    fn sort_key(self) -> u64;
}

/// The key of float bits `b` of `bits` bits in `total_cmp` order: the sign bit set for
/// positives, every bit flipped for negatives.
const fn float_sort_key(b: u64, bits: u32) -> u64 {
    let sign = 1u64 << (bits - 1);
    let all = sign | (sign - 1);
    if b & sign != 0 { !b & all } else { b | sign }
}

/// The key of float bits `b` of `bits` bits with exponent mask `exp`: NaN the largest, both
/// zeros the key of +0.0.
const fn float_key(b: u64, bits: u32, exp: u64) -> u64 {
    let sign = 1u64 << (bits - 1);
    let all = sign | (sign - 1);
    let mag = b & (sign - 1);
    if mag > exp {
        all
    } else if mag == 0 {
        sign
    } else if b & sign != 0 {
        !b & all
    } else {
        b | sign
    }
}

macro_rules! ordered_int {
    ($($t:ty: $u:ty, $flip:expr);*) => {$(
        impl Ordered for $t {
            const KEY_BITS: u32 = <$t>::BITS;
            fn order_key(self) -> u64 {
                (self as $u as u64) ^ $flip
            }
            fn sort_key(self) -> u64 {
                self.order_key()
            }
        }
    )*};
}
ordered_int!(
    u8: u8, 0; u16: u16, 0; u32: u32, 0; u64: u64, 0;
    i8: u8, 1 << 7; i16: u16, 1 << 15; i32: u32, 1 << 31; i64: u64, 1 << 63
);

impl Ordered for bool {
    const KEY_BITS: u32 = 8;
    fn order_key(self) -> u64 {
        self as u64
    }
    fn sort_key(self) -> u64 {
        self as u64
    }
}
impl Ordered for f32 {
    const KEY_BITS: u32 = 32;
    fn order_key(self) -> u64 {
        float_key(self.to_bits() as u64, 32, 0x7F80_0000)
    }
    fn sort_key(self) -> u64 {
        float_sort_key(self.to_bits() as u64, 32)
    }
}
impl Ordered for f64 {
    const KEY_BITS: u32 = 64;
    fn order_key(self) -> u64 {
        float_key(self.to_bits(), 64, 0x7FF0_0000_0000_0000)
    }
    fn sort_key(self) -> u64 {
        float_sort_key(self.to_bits(), 64)
    }
}
impl Ordered for half::f16 {
    const KEY_BITS: u32 = 16;
    fn order_key(self) -> u64 {
        float_key(self.to_bits() as u64, 16, 0x7C00)
    }
    fn sort_key(self) -> u64 {
        float_sort_key(self.to_bits() as u64, 16)
    }
}
impl Ordered for half::bf16 {
    const KEY_BITS: u32 = 16;
    fn order_key(self) -> u64 {
        float_key(self.to_bits() as u64, 16, 0x7F80)
    }
    fn sort_key(self) -> u64 {
        float_sort_key(self.to_bits() as u64, 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_layout_of_tuples() {
        assert_eq!(<(f32, u32)>::C_SIZE, 8);
        assert_eq!(<(u8, f64)>::C_SIZE, 16);
        assert_eq!(<(u8, u16, u8)>::C_SIZE, 6);
        let v = (1.5f64, 7u8, -3i32);
        let mut buf = vec![0u8; <(f64, u8, i32)>::C_SIZE];
        v.write_c(&mut buf);
        assert_eq!(<(f64, u8, i32)>::read_c(&buf), v);
    }

    #[test]
    fn exact_values_hold_no_floats() {
        let exact = [i32::EXACT, u8::EXACT, bool::EXACT, <(u64, i8)>::EXACT];
        let inexact = [
            f32::EXACT,
            f64::EXACT,
            <(f32, u32)>::EXACT,
            <(u8, f64)>::EXACT,
            half::f16::EXACT,
            half::bf16::EXACT,
        ];
        assert_eq!((exact, inexact), ([true; 4], [false; 6]));
    }

    #[test]
    fn order_keys_follow_the_order() {
        let f = [
            f32::NEG_INFINITY,
            -1.5,
            -f32::MIN_POSITIVE / 2.0,
            0.0,
            f32::MIN_POSITIVE / 2.0,
            1.0,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
        ];
        assert!(f.windows(2).all(|w| w[0].order_key() < w[1].order_key()));
        assert_eq!((-0.0f32).order_key(), 0.0f32.order_key());
        assert_eq!((-f32::NAN).order_key(), f32::NAN.order_key());
        assert_eq!(f32::NAN.order_key(), u32::MAX as u64);
        let d = [f64::NEG_INFINITY, -2.0, 0.0, 3.0, f64::INFINITY, f64::NAN];
        assert!(d.windows(2).all(|w| w[0].order_key() < w[1].order_key()));
        let h = [
            -half::f16::INFINITY,
            half::f16::from_f32(-1.0),
            half::f16::ZERO,
            half::f16::MAX,
            half::f16::INFINITY,
            half::f16::NAN,
        ];
        assert!(h.windows(2).all(|w| w[0].order_key() < w[1].order_key()));
        assert_eq!(half::bf16::NAN.order_key(), 0xFFFF);
        let i = [i8::MIN, -1, 0, 1, i8::MAX];
        assert!(i.windows(2).all(|w| w[0].order_key() < w[1].order_key()));
        assert_eq!((i64::MIN.order_key(), i64::MAX.order_key()), (0, u64::MAX));
        assert!(false.order_key() < true.order_key());
    }
}
