//! Generated ranges: the indices `start..end` made where they are read (CUB's counting
//! iterator), and maps of them, as inputs of every operation that takes elements.

use std::marker::PhantomData;

use crate::arrays::Elements;
use crate::device::Device;
use crate::inputs::{Chained, Column, ElementInput, Generated, Origin, Sealed};
use crate::operators::{BoundArgs, FnMeta, MapOp};
use crate::values::IndexInt;

mod sealed {
    pub trait Sealed {}
}

/// The index types of a generated range ([`Device::range`]) and of a gather's indices
/// ([`Gathered`](crate::Gathered)): `u32` and `u64`.
pub trait RangeIndex: IndexInt + Into<u64> + sealed::Sealed {
    /// The index as a `u64`.
    #[doc(hidden)]
    fn to_u64(self) -> u64;
}

impl sealed::Sealed for u32 {}
impl RangeIndex for u32 {
    fn to_u64(self) -> u64 {
        self as u64
    }
}
impl sealed::Sealed for u64 {}
impl RangeIndex for u64 {
    fn to_u64(self) -> u64 {
        self
    }
}

/// The indices `start..end` of a range on a device, generated where an operation reads them:
/// an input of every operation that takes elements (reductions, scans, axis reductions,
/// predicates, compaction, histograms) that reads no memory (CUB's and thrust's counting
/// iterator, PyTorch's `arange` without the array). Made by [`Device::range`];
/// [`DeviceRange::map`] maps each index, fused into the same kernel.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[reduce(identity = 0)]
/// fn add(a: u64, b: u64) -> u64 { a.wrapping_add(b) }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let r = dev.range(10u64..20);
/// assert_eq!(r.len(), 10);
/// assert_eq!(dev.reduce(add, &r)?, (10..20).sum::<u64>());
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DeviceRange<'d, T: RangeIndex> {
    device: &'d Device,
    start: T,
    len: usize,
}

/// A [`DeviceRange`] whose indices are mapped by `M` (`range.map(f)`): nothing is read or
/// stored; each kernel thread makes its indices and maps them in registers.
#[derive(Clone, Copy, Debug)]
pub struct RangeMap<'d, T: RangeIndex, M: MapOp<Input = T>> {
    range: DeviceRange<'d, T>,
    map: M,
}

/// The key part of a generated range's modules (its map's, or `()`).
#[doc(hidden)]
pub struct RangeKey<K>(PhantomData<K>);

impl Device {
    /// The indices of `range` on this device, generated where an operation reads them: an
    /// input of [`Device::reduce`] (and `reduce_on_device`), the scans ([`Device::scan`],
    /// ...), the axis reductions ([`Device::reduce_rows`], ...), the predicates
    /// ([`Device::count`], [`Device::find_first`], ...), compaction ([`Device::filter`],
    /// [`Device::argwhere`], ...) and the histograms ([`Device::histogram`], ...), which read
    /// no memory for it. `range.map(f)` maps each index (a `#[map]` from the index type), fused into the
    /// same kernel: a Monte-Carlo estimate or an integral over `0..n` is one pass that reads
    /// nothing. An empty or reversed range (`end <= start`) has no indices. Index `i` of the
    /// range is `start + i`. On the CPU backend the indices are made into a host array when
    /// an operation reads them.
    ///
    /// A range is also a column of a zip with arrays ([`Zip`](crate::Zip)): `(&dev.range(0..n),
    /// &xs)` has the elements `(i, xs[i])`, its `.map(f)` and `.keep::<K>()` are inputs of the
    /// same operations, and the kernels make `i` where they read `xs[i]` (a range of another
    /// length than the arrays is an [`Error::Shape`](crate::Error::Shape)).
    ///
    /// Not an input of the operations that take arrays (`map`, `map_reduce`, `copy`, sorts,
    /// searches, top-k, `transpose`), alone or zipped, nor the values of `reduce_by_key` (an
    /// [`Error::Unsupported`](crate::Error::Unsupported)).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn inside(i: u64) -> f64 {
    ///     // a point of the unit square from the index's hash, 1.0 inside the quarter disc
    ///     let h = i.wrapping_mul(0x9e3779b97f4a7c15);
    ///     let x = (h >> 40) as f64 / 16777216.0;
    ///     let y = ((h >> 16) & 0xffffff) as f64 / 16777216.0;
    ///     if x * x + y * y < 1.0 { 1.0 } else { 0.0 }
    /// }
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f64, b: f64) -> f64 { a + b }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let n = 100_000u64;
    /// let pi = 4.0 * dev.reduce(sum, &dev.range(0..n).map(inside))? / n as f64;
    /// assert!((pi - std::f64::consts::PI).abs() < 0.05);
    /// # Ok(()) }
    /// ```
    pub fn range<T: RangeIndex>(&self, range: std::ops::Range<T>) -> DeviceRange<'_, T> {
        let (start, end) = (range.start.to_u64(), range.end.to_u64());
        DeviceRange {
            device: self,
            start: range.start,
            len: end.saturating_sub(start) as usize,
        }
    }
}

impl<'d, T: RangeIndex> DeviceRange<'d, T> {
    /// Number of indices.
    pub fn len(&self) -> usize {
        self.len
    }
    /// `true` when there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The first index.
    pub fn start(&self) -> T {
        self.start
    }
    /// The indices mapped by `map`, lazily: `dev.reduce(op, &range.map(f))` runs one kernel
    /// that reads no memory.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> RangeMap<'d, T, M> {
        RangeMap { range: *self, map }
    }
    fn elements(&self) -> Elements<'d, T> {
        Elements::counting(self.device, self.start.to_u64(), self.len)
    }
}

impl<'d, T: RangeIndex, M: MapOp<Input = T>> RangeMap<'d, T, M> {
    /// The mapped indices mapped again by `map`, lazily: see [`Chained`].
    pub fn map<G: MapOp<Input = M::Output>>(&self, map: G) -> Chained<RangeMap<'d, T, M>, G> {
        Chained {
            inner: self.clone(),
            map,
        }
    }
}

impl<T: RangeIndex> Sealed for DeviceRange<'_, T> {}

/// A range is a column of a zip (`(&dev.range(0..n), &xs)`): the kernels make its indices
/// where they read the arrays beside it.
impl<T: RangeIndex> Column for DeviceRange<'_, T> {
    type Elem = T;
    type Kind = Generated;
    fn column(&self) -> Elements<'_, T> {
        DeviceRange::elements(self)
    }
}
impl<T: RangeIndex, M: MapOp<Input = T>> Sealed for RangeMap<'_, T, M> {}

impl<T: RangeIndex> ElementInput for DeviceRange<'_, T> {
    type Elem = T;
    type Value = T;
    type Kept = T;
    type Map = RangeKey<()>;
    const MAP: Option<&'static FnMeta> = None;
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Origin::Range(T::SCALAR);
    fn elements(&self) -> Elements<'_, T> {
        DeviceRange::elements(self)
    }
    fn args(&self) -> BoundArgs {
        BoundArgs::default()
    }
    fn value(&self, e: T) -> T {
        e
    }
    fn kept(v: T) -> T {
        v
    }
}

impl<T: RangeIndex, M: MapOp<Input = T>> ElementInput for RangeMap<'_, T, M> {
    type Elem = T;
    type Value = M::Output;
    type Kept = M::Output;
    type Map = RangeKey<M::Key>;
    const MAP: Option<&'static FnMeta> = Some(&M::META);
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Origin::Range(T::SCALAR);
    fn elements(&self) -> Elements<'_, T> {
        self.range.elements()
    }
    fn args(&self) -> BoundArgs {
        self.map.args()
    }
    fn value(&self, e: T) -> M::Output {
        self.map.apply(e)
    }
    fn kept(v: M::Output) -> M::Output {
        v
    }
}
