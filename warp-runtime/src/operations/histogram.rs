//! Histograms: `histogram` (bins given by a `#[map]` to a bin index), `histogram_weighted`
//! (sums of weights per bin) and `histogram_even` (evenly spaced bins over a range, CUB's
//! `HistogramEven`), and their `_into` forms (into the caller's counters), warp-aggregated
//! with `__match_any_sync` into per-block shared bins.

use super::gpu_bytes;
use super::keys::*;
use super::scatter::ScatterIndex;
use crate::arrays::Elements;
use crate::arrays::{DeviceVec, OutputArray, Target, write_host};
use crate::backend::cpu;
use crate::backend::cuda::{Staged, Start};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{Array, ElementInput, element_stage};
use crate::map;
use crate::operators::{MapOp, ReduceOp};
use crate::values::{DeviceValue, Element};

/// The most bins a histogram counts into: 65,536 (more is an [`Error::Shape`]).
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::HISTOGRAM_MAX_BINS;
/// #[map(inputs = 2)]
/// fn pair(hi: u8, lo: u8) -> u32 { (hi as u32) << 8 | lo as u32 }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let (hi, lo) = (dev.upload(&[1u8, 255])?, dev.upload(&[2u8, 255])?);
/// let h: DeviceVec<u32> = dev.histogram(pair, &(&hi, &lo), HISTOGRAM_MAX_BINS)?;
/// assert_eq!((h.download()?[258], h.download()?[65_535]), (1, 1));
/// assert!(dev.histogram::<u32, _, _>(pair, &(&hi, &lo), HISTOGRAM_MAX_BINS + 1).is_err());
/// # Ok(()) }
/// ```
pub const HISTOGRAM_MAX_BINS: usize = warp_kernels::catalogue::HISTOGRAM_MAX_BINS;

/// An integer type a histogram counts in: `u8`, `u16`, `u32`, `u64`, `i8`, `i16`, `i32`,
/// `i64`. Counts wrap as the type does (a `u8` counter of 300 values holds 44; an `i32` one
/// past `i32::MAX` goes negative), on both backends.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[map]
/// fn zero(x: u8) -> u32 { 0 }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&vec![7u8; 300])?;
/// let h: DeviceVec<u8> = dev.histogram(zero, &xs, 1)?;
/// assert_eq!(h.download()?, [44]); // 300 mod 256
/// # Ok(()) }
/// ```
pub trait Counter: Element {
    /// `count` wrapped to the type (`count as Self`).
    #[doc(hidden)]
    fn wrap(count: u64) -> Self;
}

/// A weight type of [`Device::histogram_weighted`]: `f32`, `f64` (sums in the weights' type,
/// added in no fixed order: not deterministic in the last bits, on both backends), `i32`,
/// `u32`, `i64`, `u64` (exact sums that wrap as the type does).
///
/// ```
/// use warp_runtime::prelude::*;
/// #[map]
/// fn first(x: u8) -> u8 { 0 }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let (xs, ws) = (dev.upload(&[1u8, 2])?, dev.upload(&[u32::MAX, 3])?);
/// assert_eq!(dev.histogram_weighted(first, &xs, &ws, 1)?.download()?, [2]); // wrapped
/// # Ok(()) }
/// ```
pub trait Weight: Element {
    /// `a + b` in the type (wrapping for integers).
    #[doc(hidden)]
    fn add(a: Self, b: Self) -> Self;
}

macro_rules! weights {
    ($($t:ty: |$a:ident, $b:ident| $add:expr),*) => {$(
        impl Weight for $t {
            fn add($a: $t, $b: $t) -> $t {
                $add
            }
        }
    )*};
}
weights!(
    f32: |a, b| a + b, f64: |a, b| a + b,
    i32: |a, b| a.wrapping_add(b), u32: |a, b| a.wrapping_add(b),
    i64: |a, b| a.wrapping_add(b), u64: |a, b| a.wrapping_add(b)
);

/// An integer type a bin map may return: `u8` ... `u64`, `i8` ... `i64`. A value outside
/// `0..bins` (a negative one included) is no bin: the element is dropped.
///
/// ```
/// use warp_runtime::BinIndex;
/// assert_eq!(BinIndex::bin(3i32, 4), Some(3));
/// assert_eq!(BinIndex::bin(-1i32, 4), None);
/// assert_eq!(BinIndex::bin(4u64, 4), None);
/// ```
pub trait BinIndex: DeviceValue {
    /// The bin this index names among `bins`, if any.
    fn bin(self, bins: usize) -> Option<usize>;
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Counter for $t {
            fn wrap(count: u64) -> Self {
                count as $t
            }
        }
        impl BinIndex for $t {
            fn bin(self, bins: usize) -> Option<usize> {
                u64::try_from(self).ok().filter(|&i| i < bins as u64).map(|i| i as usize)
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, i8, i16, i32, i64);

/// An element type `histogram_even` bins, and the type of its range's bounds (levels): `f32`
/// and `f64` (bounds of the same type; bins computed in `f64`), and `u8`, `u16`, `u32`, `i8`,
/// `i16`, `i32` (bounds of type `i64`, so that `[0, 256)` covers every byte; bins computed
/// exactly in 64-bit integers). See [`Device::histogram_even`] for the formula.
///
/// ```
/// use warp_runtime::prelude::*;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[0u8, 1, 2, 255])?;
/// let h: DeviceVec<u32> = dev.histogram_even(&xs, 0, 4, 2)?;
/// assert_eq!(h.download()?, [2, 1]); // [0, 2) and [2, 4); 255 dropped
/// let h: DeviceVec<u32> = dev.histogram_even(&xs, 0, 256, 256)?;
/// assert_eq!(h.download()?[255], 1);
/// # Ok(()) }
/// ```
pub trait EvenSample: Element {
    /// The type of the range's bounds.
    type Level: Copy + std::fmt::Debug;
    /// The bin map of evenly spaced bins over a range, bound.
    #[doc(hidden)]
    type Even: MapOp<Input = Self, Output = i32>;
    /// The bin map of `bins` even bins over `[lower, upper)` (checked: `lower < upper`, in
    /// range).
    #[doc(hidden)]
    fn even(lower: Self::Level, upper: Self::Level, bins: usize) -> Result<Self::Even>;
}

/// The most magnitude of an integer `histogram_even` bound: 2^40 (so that `(x - lower) * bins`
/// fits 64 bits).
const EVEN_LEVEL_MAX: i64 = 1 << 40;

/// The bin maps of `histogram_even`, one per element type (kept here so that the CPU and the
/// GPU run the same code: the GPU's is lowered from these bodies).
mod even {
    use super::map;

    /// `floor((x - lower) * scale)` in f64 for `lower <= x < upper` (at most `last`); else -1.
    /// The product is at least 0 and, when finite, about `bins` (at most 65,536) at most, so
    /// converting through `u32` (32-bit, cheaper on a GPU) gives the bin `as i64` would: both
    /// saturate an infinite product past `last` and read NaN (an overflowing width) as 0. The
    /// bin is computed for every `x` (the casts saturate) and then selected, so the GPU code
    /// has no branch.
    #[map]
    pub fn even_f64(x: f64, lower: f64, upper: f64, scale: f64, last: u32) -> i32 {
        let b = ((x - lower) * scale) as u32;
        let b = if b > last { last } else { b };
        if x >= lower && x < upper {
            b as i32
        } else {
            -1
        }
    }

    /// [`even_f64`] of `x as f64`, with `lo` and `hi` the bounds in `f32` (`lower` and
    /// `upper` widened exactly, so comparing in `f32` decides the same).
    #[map]
    pub fn even_f32(x: f32, lo: f32, hi: f32, lower: f64, scale: f64, last: u32) -> i32 {
        let b = ((x as f64 - lower) * scale) as u32;
        let b = if b > last { last } else { b };
        if x >= lo && x < hi { b as i32 } else { -1 }
    }

    macro_rules! even_int {
        ($($name:ident: $t:ty),*) => {$(
            /// `(x - lower) * bins / (upper - lower)` in i64 for `lower <= x < upper` (just
            /// `x - lower` when the bins are one wide); else -1.
            #[map]
            pub fn $name(x: $t, lower: i64, upper: i64, bins: i64, width: i64) -> i32 {
                let y = x as i64;
                if y >= lower && y < upper {
                    // Below `bins` (at most 65,536): an i32 holds it.
                    (if width == bins { y - lower } else { (y - lower) * bins / width }) as i32
                } else {
                    -1
                }
            }
        )*};
    }
    even_int!(even_u8: u8, even_u16: u16, even_u32: u32, even_i8: i8, even_i16: i16, even_i32: i32);
}

fn bad_range(lower: impl std::fmt::Debug, upper: impl std::fmt::Debug) -> Error {
    Error::Shape(format!(
        "histogram_even needs bounds with lower < upper, finite (integers: within +-2^40); got [{lower:?}, {upper:?})"
    ))
}

/// `lower < upper`, both finite (`finite`: the type's `is_finite`).
fn check_float_range<T: PartialOrd + Copy + std::fmt::Debug>(
    lower: T,
    upper: T,
    finite: impl Fn(T) -> bool,
) -> Result<()> {
    if finite(lower) && finite(upper) && lower < upper {
        Ok(())
    } else {
        Err(bad_range(lower, upper))
    }
}

impl EvenSample for f32 {
    type Level = f32;
    type Even = even::even_f32_with;
    fn even(lower: f32, upper: f32, bins: usize) -> Result<Self::Even> {
        check_float_range(lower, upper, f32::is_finite)?;
        let (lo, hi) = (lower as f64, upper as f64);
        Ok(even::even_f32.with(
            lower,
            upper,
            lo,
            bins as f64 / (hi - lo),
            (bins as u32).saturating_sub(1),
        ))
    }
}

impl EvenSample for f64 {
    type Level = f64;
    type Even = even::even_f64_with;
    fn even(lower: f64, upper: f64, bins: usize) -> Result<Self::Even> {
        check_float_range(lower, upper, f64::is_finite)?;
        if !(upper - lower).is_finite() {
            return Err(Error::Shape(format!(
                "histogram_even's range [{lower:?}, {upper:?}) is wider than the largest f64"
            )));
        }
        Ok(even::even_f64.with(
            lower,
            upper,
            bins as f64 / (upper - lower),
            (bins as u32).saturating_sub(1),
        ))
    }
}

macro_rules! even_integer {
    ($($t:ty: $map:ident, $f:ident),*) => {$(
        impl EvenSample for $t {
            type Level = i64;
            type Even = even::$map;
            fn even(lower: i64, upper: i64, bins: usize) -> Result<Self::Even> {
                let within = |v: i64| (-EVEN_LEVEL_MAX..=EVEN_LEVEL_MAX).contains(&v);
                if lower >= upper || !within(lower) || !within(upper) {
                    return Err(bad_range(lower, upper));
                }
                Ok(even::$f.with(lower, upper, bins as i64, upper - lower))
            }
        }
    )*};
}
even_integer!(
    u8: even_u8_with, even_u8, u16: even_u16_with, even_u16, u32: even_u32_with, even_u32,
    i8: even_i8_with, even_i8, i16: even_i16_with, even_i16, i32: even_i32_with, even_i32
);

impl Device {
    /// The histogram of `input`'s values: `bins` counters, counter `k` the number of values
    /// `bin` maps to `k`. `bin` is a `#[map]` from the value to any integer type
    /// ([`BinIndex`]); values it maps outside `0..bins` (negative ones included) are dropped.
    /// `C` is any integer type ([`Counter`]); counts wrap as it does. An empty input gives
    /// zeros. `bins` of 0 or above [`HISTOGRAM_MAX_BINS`] (65,536) is [`Error::Shape`].
    ///
    /// On a GPU: one pass of shared-memory atomics into per-block bins (up to 32 columns per
    /// bin, one per lane, within 33 KiB: the lanes of one atomic hit distinct banks), merged
    /// once into global memory; where bins have few columns, warps group their lanes by bin
    /// with `__match_any_sync` (one atomic per distinct bin per warp row) when a cheap probe
    /// finds bins repeating. Bins that do not fit shared memory (above 12,287) are counted
    /// with the same warp-aggregated adds straight in global memory. Inputs above 2^32
    /// elements are fine. Returns without waiting.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn decade(age: u32) -> u32 { age / 10 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let ages = dev.upload(&[3u32, 17, 12, 45, 99, 120])?;
    /// let h: DeviceVec<u32> = dev.histogram(decade, &ages, 10)?;
    /// assert_eq!(h.download()?, [1, 2, 0, 0, 1, 0, 0, 0, 0, 1]); // 120 dropped
    /// # Ok(()) }
    /// ```
    pub fn histogram<C, M, I>(&self, bin: M, input: &I, bins: usize) -> Result<DeviceVec<C>>
    where
        C: Counter,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
    {
        check_bins(bins)?;
        let mut out = self.new_array::<C>(bins)?;
        self.histogram_into(bin, input, &mut out)?;
        Ok(out)
    }

    /// [`Device::histogram`] into `out` (its length is the number of bins), overwriting it:
    /// the counts stay in the caller's buffer and nothing is allocated once warm.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn parity(x: i32) -> i32 { x & 1 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1i32, 2, 3, 5, -7])?;
    /// let mut h = dev.upload(&[9u64, 9])?;
    /// dev.histogram_into(parity, &xs, &mut h)?;
    /// assert_eq!(h.download()?, [1, 4]); // -7 & 1 is 1
    /// # Ok(()) }
    /// ```
    pub fn histogram_into<C, M, I, O>(&self, bin: M, input: &I, out: &mut O) -> Result<()>
    where
        C: Counter,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
        O: OutputArray<C> + ?Sized,
    {
        let bins = out.len();
        check_bins(bins)?;
        let Checked { elems, args } = self
            .element_prologue(input, &[bin.args()])?
            .admitting_count();
        match self.output(out, bins, "histogram")? {
            Target::Cpu(bytes, _) => {
                let counts = cpu::histogram(
                    elems.cpu()?,
                    |e, _| input.value(e),
                    |v| bin.apply(v).bin(bins),
                    bins,
                );
                let counts: Vec<C> = counts.into_iter().map(C::wrap).collect();
                write_host(bytes, &counts);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(histogram_key::<M, I>(), histogram_module::<M, I>)?;
                let bytes = gpu_bytes(t)?;
                self.with_input(g, &elems, &args, |input, args| {
                    g.histogram(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        bins,
                        C::C_SIZE,
                        bytes,
                    )
                })
            }
        }
    }

    /// The weighted histogram of `input`'s values: `bins` sums, sum `k` the sum of the weights
    /// of the values `bin` maps to `k`, value `i`'s weight `weights[i]` (PyTorch's
    /// `bincount(x, weights)`, TensorFlow's unsorted segment sum): `weights` is one array (or
    /// view) as long as the input, else [`Error::Shape`]. `bin` is as in
    /// [`Device::histogram`]: values it maps outside `0..bins` are dropped, their weights with
    /// them. The sums have the weights' type ([`Weight`]): integer sums are exact and wrap;
    /// float sums are added in no fixed order (atomics on a GPU, parallel chunks on the CPU), so
    /// they may differ in the last bits from run to run, and a NaN weight makes its bin NaN. An
    /// empty input gives zeros; `bins` of 0 or above [`HISTOGRAM_MAX_BINS`] is
    /// [`Error::Shape`].
    ///
    /// On a GPU: the counting histogram's pass with each lane adding its value's weight (read
    /// beside the value) to per-block bins of the weights' type in shared memory (up to 32
    /// columns per bin within 33 KiB), merged once into global memory; bins that do not fit
    /// shared memory are summed straight in global memory. Returns without waiting.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn id(k: u32) -> u32 { k }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[0u32, 2, 2, 7, 1])?;
    /// let ws = dev.upload(&[0.5f32, 1.0, 2.0, 9.0, -1.0])?;
    /// let h = dev.histogram_weighted(id, &keys, &ws, 3)?;
    /// assert_eq!(h.download()?, [0.5, -1.0, 3.0]); // key 7 dropped with its weight
    /// # Ok(()) }
    /// ```
    pub fn histogram_weighted<W, M, I, A>(
        &self,
        bin: M,
        input: &I,
        weights: &A,
        bins: usize,
    ) -> Result<DeviceVec<W>>
    where
        W: Weight,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
        A: Array<Elem = W> + ?Sized,
    {
        check_bins(bins)?;
        let mut out = self.new_array::<W>(bins)?;
        self.histogram_weighted_into(bin, input, weights, &mut out)?;
        Ok(out)
    }

    /// [`Device::histogram_weighted`] into `out` (its length is the number of bins),
    /// overwriting it: nothing is allocated once warm.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn parity(x: i32) -> i32 { x & 1 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1i32, 2, 3, 5, -8])?;
    /// let ws = dev.upload(&[10i64, 20, 30, 40, 50])?;
    /// let mut h = dev.upload(&[7i64, 7])?;
    /// dev.histogram_weighted_into(parity, &xs, &ws, &mut h)?;
    /// assert_eq!(h.download()?, [70, 80]);
    /// # Ok(()) }
    /// ```
    pub fn histogram_weighted_into<W, M, I, A, O>(
        &self,
        bin: M,
        input: &I,
        weights: &A,
        out: &mut O,
    ) -> Result<()>
    where
        W: Weight,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
        A: Array<Elem = W> + ?Sized,
        O: OutputArray<W> + ?Sized,
    {
        let sum = Combine {
            what: "histogram_weighted",
            zero: W::default(),
            add: W::add,
            identity: None,
        };
        self.combine_weights(sum, bin, input, weights, out, || {
            self.gpu()?.module(
                histogram_weighted_key::<M, I, W>(),
                histogram_weighted_module::<M, I, W>,
            )
        })
    }

    /// The histogram of `input`'s weights combined per bin by the `#[reduce]` operator `op`
    /// (a generalisation of [`Device::histogram_weighted`]: bin `k` is `op`'s fold, from its
    /// identity, of the weights of the values `bin` maps to `k`; a bin no value reaches is the
    /// identity). Weights are one array as long as the input (else [`Error::Shape`]) of the
    /// operator's value type, one of [`Weight`]'s (`f32`, `f64`, `i32`, `u32`, `i64`, `u64`).
    /// Bins as in [`Device::histogram`]. On the CPU the weights are folded in input order; on
    /// a GPU each lane combines its weight into shared and then global bins with
    /// compare-and-swap loops, in no fixed order: the result is exact when the operator's
    /// result does not depend on the order (integer sums, min, max, bitwise operators; float
    /// min and max without NaN or signed zeros that tie), and a float sum may differ in the last
    /// bits from run to run. Returns without waiting.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn id(k: u32) -> u32 { k }
    /// #[reduce(identity = f32::NEG_INFINITY)]
    /// fn max(a: f32, b: f32) -> f32 { a.max(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[0u32, 2, 2, 7, 0])?;
    /// let ws = dev.upload(&[0.5f32, 1.0, 2.0, 9.0, -1.0])?;
    /// let h = dev.histogram_reduce(max, id, &keys, &ws, 3)?;
    /// assert_eq!(h.download()?, [0.5, f32::NEG_INFINITY, 2.0]); // key 7 dropped
    /// # Ok(()) }
    /// ```
    pub fn histogram_reduce<Op, M, I, A>(
        &self,
        op: Op,
        bin: M,
        input: &I,
        weights: &A,
        bins: usize,
    ) -> Result<DeviceVec<Op::Value>>
    where
        Op: ReduceOp,
        Op::Value: Weight,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
        A: Array<Elem = Op::Value> + ?Sized,
    {
        check_bins(bins)?;
        let mut out = self.new_array::<Op::Value>(bins)?;
        self.histogram_reduce_into(op, bin, input, weights, &mut out)?;
        Ok(out)
    }

    /// [`Device::histogram_reduce`] into `out` (its length is the number of bins),
    /// overwriting it.
    pub fn histogram_reduce_into<Op, M, I, A, O>(
        &self,
        op: Op,
        bin: M,
        input: &I,
        weights: &A,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        Op::Value: Weight,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
        A: Array<Elem = Op::Value> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let mut identity = vec![0u8; Op::Value::C_SIZE];
        op.identity().write_c(&mut identity);
        let combine = Combine {
            what: "histogram_reduce",
            zero: op.identity(),
            add: |a, b| op.combine(a, b),
            identity: Some(identity),
        };
        self.combine_weights(combine, bin, input, weights, out, || {
            self.gpu()?.module(
                histogram_reduce_key::<Op, M, I>(),
                histogram_reduce_module::<Op, M, I>,
            )
        })
    }

    /// Combines each of `values` into the place of `out` its index names, by the `#[reduce]`
    /// operator `op`: `out[idx[i]] = op(out[idx[i]], values[i])` for every `i` (PyTorch's
    /// `scatter_reduce_` and `index_add_`, TensorFlow's `tensor_scatter_nd_add`). `values` and
    /// `idx` are equally long (else [`Error::Shape`]); indices are `u32` or `u64`, may repeat
    /// and come in any order; places no index names keep their contents. An index at or past
    /// `out`'s length is an [`Error::IndexOutOfRange`] (the smallest such position), found
    /// before anything is written (on a GPU by a `find_first` over the indices, so the form
    /// waits for it). The operator's value is a [`Weight`] type (`f32`, `f64`, `i32`, `u32`,
    /// `i64`, `u64`); `out` holds fewer than 2^32 places ([`Error::Unsupported`] beyond).
    ///
    /// Where indices repeat, the values meet in no fixed order on a GPU (compare-and-swap
    /// loops): the result is exact when the operator's result does not depend on the order
    /// (integer sums, min, max, bitwise operators), and a float sum may differ in the last bits
    /// from run to run. The CPU backend combines in input order. Returns once the indices are
    /// checked, without waiting for the scatter.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// #[reduce(identity = i64::MIN)]
    /// fn max(a: i64, b: i64) -> i64 { a.max(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let values = dev.upload(&[5i64, 1, 7, 2])?;
    /// let idx = dev.upload(&[2u32, 0, 2, 3])?;
    /// let mut out = dev.upload(&[100i64, 100, 100, 100])?;
    /// dev.scatter_reduce_into(add, &values, &idx, &mut out)?;
    /// assert_eq!(out.download()?, [101, 100, 112, 102]);
    /// dev.scatter_reduce_into(max, &values, &idx, &mut out)?;
    /// assert_eq!(out.download()?, [101, 100, 112, 102]);
    /// let past = dev.upload(&[0u32, 9, 1, 4])?;
    /// assert!(matches!(
    ///     dev.scatter_reduce_into(add, &values, &past, &mut out),
    ///     Err(Error::IndexOutOfRange { position: 1, index: 9, len: 4 })
    /// ));
    /// # Ok(()) }
    /// ```
    pub fn scatter_reduce_into<Op, A, X, I, O>(
        &self,
        op: Op,
        values: &A,
        idx: &X,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        Op::Value: Weight,
        A: Array<Elem = Op::Value> + ?Sized,
        I: ScatterIndex,
        X: Array<Elem = I> + ElementInput<Elem = I, Value = I> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let len = out.len();
        if len as u64 > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "scatter_reduce_into writes fewer than 2^32 places; the output has {len}"
            )));
        }
        let (ix, vs) = self.scatter_prologue("scatter_reduce_into", values, idx, len)?;
        if ix.is_empty() {
            return Ok(());
        }
        let bin = I::bin_map();
        let Checked { elems, args } = self.element_prologue(idx, &[bin.args()])?;
        match self.output(out, len, "scatter_reduce_into")? {
            Target::Cpu(bytes, _) => {
                let mut cur: Vec<Op::Value> = (0..len)
                    .map(|k| Op::Value::read_c(&bytes[k * Op::Value::C_SIZE..]))
                    .collect();
                for (&i, &v) in elems.cpu()?.iter().zip(vs.cpu()?) {
                    let k = i.to_u64() as usize;
                    cur[k] = op.combine(cur[k], v);
                }
                write_host(bytes, &cur);
                Ok(())
            }
            t => {
                let module = self.gpu()?.module(
                    histogram_reduce_key::<Op, I::Bin, X>(),
                    histogram_reduce_module::<Op, I::Bin, X>,
                )?;
                let input = Checked { elems, args };
                self.weights_on_gpu(&module, &input, &vs, len, t, Start::Kept)
            }
        }
    }

    /// The weighted histograms: `input`'s weights combined per bin by `how`, with the module
    /// `module` gives on a GPU.
    fn combine_weights<W, M, I, A, O>(
        &self,
        how: Combine<W, impl Fn(W, W) -> W + Sync>,
        bin: M,
        input: &I,
        weights: &A,
        out: &mut O,
        module: impl FnOnce() -> Result<std::sync::Arc<crate::backend::cuda::Module>>,
    ) -> Result<()>
    where
        W: Weight,
        I: ElementInput + ?Sized,
        M: MapOp<Input = I::Value>,
        M::Output: BinIndex,
        A: Array<Elem = W> + ?Sized,
        O: OutputArray<W> + ?Sized,
    {
        let bins = out.len();
        check_bins(bins)?;
        let Checked { elems, args } = self
            .element_prologue(input, &[bin.args()])?
            .admitting_count();
        let ws = weights.array();
        self.check_elements(&ws)?;
        if ws.len() != elems.len() {
            return Err(Error::Shape(format!(
                "{}: {} values but {} weights",
                how.what,
                elems.len(),
                ws.len()
            )));
        }
        match self.output(out, bins, how.what)? {
            Target::Cpu(bytes, _) => {
                let sums = cpu::histogram_weighted(
                    elems.cpu()?,
                    ws.cpu()?,
                    |e, _| input.value(e),
                    |v| bin.apply(v).bin(bins),
                    (bins, how.zero, how.add),
                );
                write_host(bytes, &sums);
                Ok(())
            }
            t => {
                let start = match &how.identity {
                    Some(id) => Start::Identity(id),
                    None => Start::Zero,
                };
                let input = Checked { elems, args };
                let module = module()?;
                self.weights_on_gpu(&module, &input, &ws, bins, t, start)
            }
        }
    }

    /// The GPU's weighted pass of `module` over `input` with `weights` (one per value) into
    /// the `bins` places of target `t`, the bins starting as `start` says: the one launch of
    /// `histogram_weighted`, `histogram_reduce` and `scatter_reduce_into`.
    fn weights_on_gpu<E: Clone, W: Weight>(
        &self,
        module: &crate::backend::cuda::Module,
        input: &Checked<'_, E>,
        weights: &Elements<'_, W>,
        bins: usize,
        t: Target<'_>,
        start: Start<'_>,
    ) -> Result<()> {
        let g = self.gpu()?;
        let bytes = gpu_bytes(t)?;
        let weights = weights.columns()?.views.remove(0);
        self.with_input(g, &input.elems, &input.args, |arrays, args| {
            g.histogram_weighted(
                Staged {
                    module,
                    input: arrays,
                    args,
                },
                bins,
                W::C_SIZE,
                weights,
                bytes,
                start,
            )
        })
    }

    /// The histogram of `input`'s values in `bins` evenly spaced bins over `[lower, upper)`
    /// (CUB's `DeviceHistogram::HistogramEven`): values below `lower`, at or above `upper`,
    /// and NaN are dropped. A value `x` in range falls in bin
    ///
    /// - floats (`f32`, `f64`): `min(floor((x - lower) * scale), bins - 1)`, in `f64` (`x`,
    ///   `lower`, `upper` converted to `f64` exactly), with `scale = bins / (upper - lower)`
    ///   computed once in `f64` on the host: the same rounding on the CPU and the GPU;
    /// - integers (`u8`, `u16`, `u32`, `i8`, `i16`, `i32`; bounds of type `i64`):
    ///   `(x - lower) * bins / (upper - lower)` in exact 64-bit integer arithmetic (just
    ///   `x - lower` when every bin is one value wide, as for `u8` in 256 bins over
    ///   `[0, 256)`).
    ///
    /// `lower < upper`, both finite (integers: within +-2^40; `f64`: `upper - lower` finite
    /// too), or [`Error::Shape`]; bins as [`Device::histogram`]. (64-bit integers and halves
    /// are binned through [`Device::histogram`] with a map of one's own.)
    /// Over a mapped view, the map's results are binned; the bin map takes 5 of a
    /// composition's 8 bound parameters for `f32` (4 for `f64` and integers), so such a map
    /// may bind at most 3 (4) ([`Error::Unsupported`] beyond).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[0.0f32, 0.24, 0.25, 0.99, 1.0, -0.1, f32::NAN])?;
    /// let h: DeviceVec<u32> = dev.histogram_even(&xs, 0.0, 1.0, 4)?;
    /// assert_eq!(h.download()?, [2, 1, 0, 1]); // 1.0, -0.1 and NaN dropped
    /// # Ok(()) }
    /// ```
    pub fn histogram_even<C, T, I>(
        &self,
        input: &I,
        lower: T::Level,
        upper: T::Level,
        bins: usize,
    ) -> Result<DeviceVec<C>>
    where
        C: Counter,
        T: EvenSample,
        I: ElementInput<Value = T> + ?Sized,
    {
        check_bins(bins)?;
        self.histogram(T::even(lower, upper, bins)?, input, bins)
    }

    /// [`Device::histogram_even`] into `out` (its length is the number of bins), overwriting
    /// it.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[-3i32, 0, 9, 10, 11])?;
    /// let mut h = dev.upload(&[0u32; 2])?;
    /// dev.histogram_even_into(&xs, 0, 20, &mut h)?;
    /// assert_eq!(h.download()?, [2, 2]); // [0, 10) and [10, 20); -3 dropped
    /// # Ok(()) }
    /// ```
    pub fn histogram_even_into<C, T, I, O>(
        &self,
        input: &I,
        lower: T::Level,
        upper: T::Level,
        out: &mut O,
    ) -> Result<()>
    where
        C: Counter,
        T: EvenSample,
        I: ElementInput<Value = T> + ?Sized,
        O: OutputArray<C> + ?Sized,
    {
        let bins = out.len();
        check_bins(bins)?;
        self.histogram_into(T::even(lower, upper, bins)?, input, out)
    }
}

/// `bins` is in `1..=HISTOGRAM_MAX_BINS`, or [`Error::Shape`].
fn check_bins(bins: usize) -> Result<()> {
    if bins == 0 || bins > HISTOGRAM_MAX_BINS {
        return Err(Error::Shape(format!(
            "a histogram has 1 to {HISTOGRAM_MAX_BINS} bins; {bins} asked for"
        )));
    }
    Ok(())
}

/// The key of the histogram module of bin map `M` over inputs `I`.
pub(crate) fn histogram_key<M: MapOp, I: ElementInput + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Histogram,
        [
            TypeId::of::<M::Key>(),
            TypeId::of::<I::Map>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of `histogram`, `histogram_into` and `histogram_even` with a bin map of
/// type `M` over inputs of type `I`.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::DeviceVec;
/// use warp_runtime::impl_::histogram_module;
/// #[map]
/// fn low_bits(x: u32) -> u32 { x & 255 }
/// let m = histogram_module::<low_bits, DeviceVec<u32>>();
/// assert!(m.source.contains("__match_any_sync"));
/// ```
pub fn histogram_module<M, I>() -> ModuleSource
where
    M: MapOp,
    M::Output: BinIndex,
    I: ElementInput<Value = M::Input> + ?Sized,
{
    histogram_module_of::<M, I>(None)
}

/// How a weighted histogram combines a bin's weights: from `zero` by `add` on the CPU; on a
/// GPU by atomic sums, or from the operator's `identity` (its bytes) by its module's
/// `wd_op` when given.
struct Combine<W, F> {
    what: &'static str,
    zero: W,
    add: F,
    identity: Option<Vec<u8>>,
}

/// The key of the histogram module of bin map `M` over inputs `I` whose weights `Op` combines.
pub(crate) fn histogram_reduce_key<Op: ReduceOp, M: MapOp, I: ElementInput + ?Sized>() -> ModuleKey
{
    histogram_key_with::<M, I, Op>()
}

/// The CUDA module of `histogram_reduce` with operator `Op`, bin map `M`, over inputs `I`.
///
/// ```
/// use warp_runtime::DeviceVec;
/// use warp_runtime::impl_::histogram_reduce_module;
/// use warp_runtime::prelude::*;
/// #[map]
/// fn low_bits(x: u32) -> u32 { x & 255 }
/// #[reduce(identity = 0)]
/// fn max(a: u64, b: u64) -> u64 { a.max(b) }
/// let m = histogram_reduce_module::<max, low_bits, DeviceVec<u32>>();
/// assert!(m.source.contains("wd_k_histogram_reduce("));
/// ```
pub fn histogram_reduce_module<Op, M, I>() -> ModuleSource
where
    Op: ReduceOp,
    Op::Value: Weight,
    M: MapOp,
    M::Output: BinIndex,
    I: ElementInput<Value = M::Input> + ?Sized,
{
    let f: &FnMeta = &M::META;
    let stage = element_stage(I::MAP, I::ORIGIN);
    composed(
        location(
            &format!("histogram_{}_{}", &Op::META.fragment.name, &f.fragment.name),
            &f.fragment.file,
            f.fragment.line,
        ),
        input_source(stage, <I::Elem as Row>::COLUMNS, I::THEN, None, |s| {
            module::histogram_reduce_module(&f.fragment, s, &Op::META.fragment)
        }),
        Op::META.fragment.style.needs_cuda_headers(),
    )
}

/// The key of the weighted histogram module of bin map `M` over inputs `I`, weights `W`.
pub(crate) fn histogram_weighted_key<M: MapOp, I: ElementInput + ?Sized, W: Weight>() -> ModuleKey {
    histogram_key_with::<M, I, W>()
}

/// The key of a histogram module of bin map `M` over inputs `I` whose bins `X` says how to
/// fill (the weights' type, or the operator that combines them).
fn histogram_key_with<M: MapOp, I: ElementInput + ?Sized, X: 'static>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Histogram,
        [
            TypeId::of::<M::Key>(),
            TypeId::of::<(I::Map, X)>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of `histogram_weighted` with bin map `M` over inputs `I`, weights `W`.
///
/// ```
/// use warp_runtime::DeviceVec;
/// use warp_runtime::impl_::histogram_weighted_module;
/// use warp_runtime::prelude::*;
/// #[map]
/// fn low_bits(x: u32) -> u32 { x & 255 }
/// let m = histogram_weighted_module::<low_bits, DeviceVec<u32>, f32>();
/// assert!(m.source.contains("wd_k_histogram_weighted("));
/// ```
pub fn histogram_weighted_module<M, I, W>() -> ModuleSource
where
    M: MapOp,
    M::Output: BinIndex,
    I: ElementInput<Value = M::Input> + ?Sized,
    W: Weight,
{
    histogram_module_of::<M, I>(Some(W::SCALAR))
}

/// The histogram module, counting or (`weight`) summing weights of that type.
fn histogram_module_of<M, I>(weight: Option<warp_kernels::Scalar>) -> ModuleSource
where
    M: MapOp,
    M::Output: BinIndex,
    I: ElementInput<Value = M::Input> + ?Sized,
{
    let f: &FnMeta = &M::META;
    let stage = element_stage(I::MAP, I::ORIGIN);
    composed(
        location(
            &format!("histogram_{}", &f.fragment.name),
            &f.fragment.file,
            f.fragment.line,
        ),
        input_source(stage, <I::Elem as Row>::COLUMNS, I::THEN, None, |s| {
            module::histogram_module(&f.fragment, s, weight)
        }),
        false,
    )
}
