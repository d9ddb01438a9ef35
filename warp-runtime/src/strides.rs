//! Strided views: every `step`-th element of one array (`xs.step_by(step)`, NumPy's
//! `x[::step]`), and maps of them, as inputs of every operation that takes elements.

use crate::arrays::{DeviceVec, DeviceView, Elements};
use crate::error::{Error, Result};
use crate::inputs::{Array, Chained, ElementInput, Origin, Sealed};
use crate::operators::{BoundArgs, FnMeta, MapOp};
use crate::values::Element;

/// Every `step`-th element of one array, from its first (`xs.step_by(step)`: element `i` is
/// `xs[i * step]`, `ceil(len / step)` of them, as `Iterator::step_by` and NumPy's `x[::step]`).
/// An input of every operation that takes elements (reductions, scans, row, column and segment
/// reductions, predicates, compaction, histograms): the kernels read each element where it is,
/// nothing is copied. Start elsewhere with a view first (`xs.slice(c..)?.step_by(cols)?` is
/// column `c` of a row-major matrix of `cols` columns). Made by [`DeviceVec::step_by`],
/// [`DeviceView::step_by`] or [`StepBy::step_by`] (the caller's cudarc memory); `.map(f)` maps
/// each element in the same kernel.
///
/// A step of 0 is an [`Error::Shape`]. Each element read is a separate memory transaction
/// once the step spans 32 bytes or more, so a strided reduction reads up to `32 / size_of::<T>()`
/// times the bytes it uses (a dense one only its own). Not an input of the operations that
/// take arrays (`map`, `copy`, sorts, searches, top-k, `transpose`, zips), nor the values of
/// `reduce_by_key` (an [`Error::Unsupported`]); [`Device::collect`](crate::Device::collect)
/// writes its elements into an array, which those take.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[reduce(identity = 0)]
/// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
/// #[map]
/// fn twice(x: i32) -> i32 { x * 2 }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// // A 3 x 4 row-major matrix; column 1 is every 4th element from element 1.
/// let m = dev.upload(&[1i32, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])?;
/// let col = m.slice(1..)?;
/// assert_eq!(dev.reduce(add, &col.step_by(4)?)?, 2 + 6 + 10);
/// assert_eq!(dev.reduce(add, &m.step_by(5)?.map(twice))?, 2 * (1 + 6 + 11));
/// assert_eq!(m.step_by(5)?.len(), 3);
/// assert!(matches!(m.step_by(0), Err(Error::Shape(_))));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Strided<'a, T: Element> {
    elems: Elements<'a, T>,
}

/// A [`Strided`] view whose elements are mapped by `M` (`xs.step_by(k)?.map(f)`).
#[derive(Clone, Debug)]
pub struct StridedMap<'a, M: MapOp> {
    elems: Elements<'a, M::Input>,
    map: M,
}

/// The key part of a strided view's modules (its map's, or `()`).
#[doc(hidden)]
pub struct StridedKey<K>(std::marker::PhantomData<K>);

/// `step_by` for every array an input can read (a `DeviceVec`, a view, the caller's
/// `CudaSlice` or `CudaView`; in the prelude): `xs.step_by(step)?` is a [`Strided`] input.
pub trait StepBy: Array {
    /// Every `step`-th element from the first, lazily; a `step` of 0 is an
    /// [`Error::Shape`].
    fn step_by(&self, step: usize) -> Result<Strided<'_, Self::Elem>>;
}

impl<A: Array> StepBy for A {
    fn step_by(&self, step: usize) -> Result<Strided<'_, A::Elem>> {
        Strided::new(self.array(), step)
    }
}

impl<T: Element> DeviceVec<T> {
    /// Every `step`-th element from the first, lazily: see [`Strided`]. A `step` of 0 is an
    /// [`Error::Shape`].
    pub fn step_by(&self, step: usize) -> Result<Strided<'_, T>> {
        Strided::new(self.as_slice().elements(), step)
    }
}

impl<'v, T: Element> DeviceView<'v, T> {
    /// Every `step`-th element of the view from its first, lazily: see [`Strided`]. A `step`
    /// of 0 is an [`Error::Shape`].
    pub fn step_by(&self, step: usize) -> Result<Strided<'_, T>> {
        Strided::new(self.array(), step)
    }
}

impl<'a, T: Element> Strided<'a, T> {
    fn new(values: Elements<'a, T>, step: usize) -> Result<Self> {
        if step == 0 {
            return Err(Error::Shape("step_by needs a step of at least 1".into()));
        }
        Ok(Strided {
            elems: Elements::strided(values, step),
        })
    }
    /// Number of elements: `ceil(len / step)` of the array's `len`.
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// `true` when there are no elements (the array is empty).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The elements mapped by `map`, lazily: `dev.reduce(op, &xs.step_by(k)?.map(f))` runs one
    /// kernel.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> StridedMap<'a, M> {
        StridedMap {
            elems: self.elems.clone(),
            map,
        }
    }
}

impl<'a, M: MapOp> StridedMap<'a, M> {
    /// The mapped elements mapped again by `map`, lazily: see [`Chained`].
    pub fn map<G: MapOp<Input = M::Output>>(&self, map: G) -> Chained<StridedMap<'a, M>, G> {
        Chained {
            inner: self.clone(),
            map,
        }
    }
    /// Number of elements: `ceil(len / step)` of the array's `len`.
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// `true` when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Element> Sealed for Strided<'_, T> {}
impl<M: MapOp> Sealed for StridedMap<'_, M> {}

impl<T: Element> ElementInput for Strided<'_, T> {
    type Elem = T;
    type Value = T;
    type Kept = T;
    type Map = StridedKey<()>;
    const MAP: Option<&'static FnMeta> = None;
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Origin::Strided;
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

impl<M: MapOp> ElementInput for StridedMap<'_, M> {
    type Elem = M::Input;
    type Value = M::Output;
    type Kept = M::Output;
    type Map = StridedKey<M::Key>;
    const MAP: Option<&'static FnMeta> = Some(&M::META);
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Origin::Strided;
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
