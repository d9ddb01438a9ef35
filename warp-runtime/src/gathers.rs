//! Gathers: one array read through an array of indices (`xs.gather(&idx)`, thrust's
//! permutation iterator), and maps of them, as inputs of every operation that takes elements.

use std::marker::PhantomData;

use crate::arrays::{DeviceVec, DeviceView, Elements};
use crate::inputs::{Array, Chained, ElementInput, Origin, Sealed};
use crate::operators::{BoundArgs, FnMeta, MapOp};
use crate::ranges::RangeIndex;
use crate::values::Element;

/// The elements of one array at the positions an array of `u32` or `u64` indices names, in the
/// indices' order: element `i` is `xs[idx[i]]` (thrust's permutation iterator, PyTorch's
/// `x[idx]` without the copy). An input of every operation that takes elements (reductions,
/// scans, row, column and segment reductions, predicates, compaction, histograms); the kernels
/// read each index and then the element it names, so nothing is materialised. Made by
/// [`DeviceVec::gather`], [`DeviceView::gather`] or [`Gather::gather`] (the caller's cudarc
/// memory); `.map(f)` maps each element in the same kernel.
///
/// Indices may repeat and come in any order. An index at or past the array's length is an
/// [`Error::IndexOutOfRange`](crate::Error::IndexOutOfRange) of the operation that reads it,
/// naming the smallest such position: on a GPU every index is checked in the kernels and the
/// fault is read after them (so an operation over a gather waits for its kernels, also the
/// `_on_device` and `_into` forms; what it wrote is then not meaningful); on the CPU backend
/// the indices are checked before the operation. The array and the indices must be on the
/// operation's device.
///
/// Reductions (`reduce`, `reduce_on_device`, `reduce_into`) of a gather (or a map of one) of an
/// array of more than four times the GPU's L2 cache, through at least 2^22 indices that look
/// scattered (in a sample of 4,096 from the middle, most groups of 256 neighbours span more
/// than a quarter of the L2), on a GPU first copy the indices partitioned by the window of
/// the array each names (a window at most an eighth of the L2; one radix pass, stable), and
/// then read them in that order: the blocks in flight read a few windows at a time, which
/// mostly stay in the L2, instead of a DRAM sector for every element (on an H100, 2026-12-07,
/// the sum of 2^28 `f32` through 2^28 random `u32` indices: 6.2 ms, against 8.6 for CUB's sum
/// over thrust's permutation iterator). That takes memory for a
/// second array of the indices (freed when the operation returns; when it cannot be had,
/// the indices are read in their own order). The result is the same bits on every run (and
/// from each of the three forms); a float sum rounds as the partitioned order adds, which is
/// not the order of the indices. Indices in order, or near each other, are read as they are.
///
/// Not an input of the operations that take arrays (`map`, `copy`, sorts, searches, top-k,
/// `transpose`, zips), nor the values of `reduce_by_key` (an
/// [`Error::Unsupported`](crate::Error::Unsupported)); [`Device::collect`](crate::Device::collect)
/// writes its values into an array (PyTorch's `x[idx]`), which those take.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[map]
/// fn square(x: f32) -> f32 { x * x }
/// #[predicate]
/// fn big(x: f32) -> bool { x > 2.5 }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let idx = dev.upload(&[3u32, 3, 0])?;
/// assert_eq!(dev.reduce(sum, &xs.gather(&idx))?, 9.0);               // 4 + 4 + 1
/// assert_eq!(dev.reduce(sum, &xs.gather(&idx).map(square))?, 33.0);  // 16 + 16 + 1
/// assert_eq!(dev.filter(big, &xs.gather(&idx))?.download()?, [4.0, 4.0]);
/// let bad = dev.upload(&[0u32, 4])?;                                  // 4 is past the end
/// assert!(matches!(
///     dev.reduce(sum, &xs.gather(&bad)),
///     Err(Error::IndexOutOfRange { position: 1, index: 4, len: 4 })
/// ));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Gathered<'a, T: Element, I: RangeIndex> {
    elems: Elements<'a, T>,
    index: PhantomData<I>,
}

/// A [`Gathered`] input whose elements are mapped by `M` (`xs.gather(&idx).map(f)`): each
/// kernel thread reads an index, the element it names, and maps it in registers.
#[derive(Clone, Debug)]
pub struct GatherMap<'a, M: MapOp, I: RangeIndex> {
    elems: Elements<'a, M::Input>,
    map: M,
    index: PhantomData<I>,
}

/// The key part of a gather's modules (its index type and its map's, or `()`).
#[doc(hidden)]
pub struct GatherKey<I, K>(PhantomData<(I, K)>);

/// `gather` for every array an input can read (a `DeviceVec`, a view, the caller's
/// `CudaSlice` or `CudaView`; in the prelude): `xs.gather(&idx)` is a [`Gathered`] input.
pub trait Gather: Array {
    /// The elements at the positions `idx` names (`u32` or `u64` indices: a `DeviceVec`, a
    /// view, a `CudaSlice` or a `CudaView`), lazily.
    fn gather<'a, X>(&'a self, idx: &'a X) -> Gathered<'a, Self::Elem, X::Elem>
    where
        X: Array,
        X::Elem: RangeIndex;
}

impl<A: Array> Gather for A {
    fn gather<'a, X>(&'a self, idx: &'a X) -> Gathered<'a, A::Elem, X::Elem>
    where
        X: Array,
        X::Elem: RangeIndex,
    {
        Gathered::new(self.array(), idx.array())
    }
}

impl<T: Element> DeviceVec<T> {
    /// The elements at the positions `idx` names (`u32` or `u64` indices), lazily: see
    /// [`Gathered`].
    pub fn gather<'a, X>(&'a self, idx: &'a X) -> Gathered<'a, T, X::Elem>
    where
        X: Array,
        X::Elem: RangeIndex,
    {
        Gathered::new(self.as_slice().elements(), idx.array())
    }
}

impl<'v, T: Element> DeviceView<'v, T> {
    /// The elements of the view at the positions `idx` names (counted from the view's start),
    /// lazily: see [`Gathered`].
    pub fn gather<'a, X>(&'a self, idx: &'a X) -> Gathered<'a, T, X::Elem>
    where
        X: Array,
        X::Elem: RangeIndex,
    {
        Gathered::new(self.array(), idx.array())
    }
}

impl<'a, T: Element, I: RangeIndex> Gathered<'a, T, I> {
    fn new(values: Elements<'a, T>, idx: Elements<'a, I>) -> Self {
        Gathered {
            elems: Elements::gather(values, idx),
            index: PhantomData,
        }
    }
    /// Number of elements: the number of indices.
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// `true` when there are no indices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The gathered elements mapped by `map`, lazily: `dev.reduce(op, &xs.gather(&idx).map(f))`
    /// runs one kernel.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> GatherMap<'a, M, I> {
        GatherMap {
            elems: self.elems.clone(),
            map,
            index: PhantomData,
        }
    }
}

impl<'a, M: MapOp, I: RangeIndex> GatherMap<'a, M, I> {
    /// The mapped elements mapped again by `map`, lazily: see [`Chained`].
    pub fn map<G: MapOp<Input = M::Output>>(&self, map: G) -> Chained<GatherMap<'a, M, I>, G> {
        Chained {
            inner: self.clone(),
            map,
        }
    }
    /// Number of elements: the number of indices.
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// `true` when there are no indices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Element, I: RangeIndex> Sealed for Gathered<'_, T, I> {}
impl<M: MapOp, I: RangeIndex> Sealed for GatherMap<'_, M, I> {}

impl<T: Element, I: RangeIndex> ElementInput for Gathered<'_, T, I> {
    type Elem = T;
    type Value = T;
    type Kept = T;
    type Map = GatherKey<I, ()>;
    const MAP: Option<&'static FnMeta> = None;
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Origin::Gather(I::SCALAR);
    fn elements(&self) -> Elements<'_, T> {
        self.elems.clone()
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

impl<M: MapOp, I: RangeIndex> ElementInput for GatherMap<'_, M, I> {
    type Elem = M::Input;
    type Value = M::Output;
    type Kept = M::Output;
    type Map = GatherKey<I, M::Key>;
    const MAP: Option<&'static FnMeta> = Some(&M::META);
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Origin::Gather(I::SCALAR);
    fn elements(&self) -> Elements<'_, M::Input> {
        self.elems.clone()
    }
    fn args(&self) -> BoundArgs {
        self.map.args()
    }
    fn value(&self, e: M::Input) -> M::Output {
        self.map.apply(e)
    }
    fn kept(v: M::Output) -> M::Output {
        v
    }
}
