//! Inputs of the operations: arrays and views, `(element, index)` pairs and mapped views made
//! on the fly, and the traits that say which inputs each operation family takes.

use std::marker::PhantomData;

use warp_kernels::Scalar;

use crate::arrays::{DeviceSlice, DeviceVec};
use crate::error::{Error, Result};
use crate::operators::{FnMeta, MapOp, ReduceOp};
use crate::values::{DeviceValue, Element, IndexInt};

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// `(element, index)` pairs of a view, made on the fly (nothing is materialised).
#[derive(Clone, Copy, Debug)]
pub struct Indexed<'a, T: Element> {
    pub(crate) slice: DeviceSlice<'a, T>,
}

/// A map applied on the fly to the elements of a view: `xs.map(f)`. Nothing is materialised;
/// the operation consuming it reads each element once and applies `f` in registers.
#[derive(Clone, Copy, Debug)]
pub struct Mapped<'a, M: MapOp> {
    pub(crate) slice: DeviceSlice<'a, M::Input>,
    pub(crate) map: M,
}

impl<T: Element> DeviceVec<T> {
    /// The `(element, index)` pairs of the array, for `(value, index)` operators (argmax,
    /// argmin, ...). Indices count from 0.
    pub fn indexed(&self) -> Indexed<'_, T> {
        self.as_slice().indexed()
    }

    /// The elements mapped by `map`, lazily: `dev.count(p, &xs.map(f))` and
    /// `dev.reduce(op, &xs.map(f))` run one fused kernel.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'_, M> {
        self.as_slice().map(map)
    }
}

impl<'a, T: Element> DeviceSlice<'a, T> {
    /// The `(element, index)` pairs of the view; indices count from the view's start.
    pub fn indexed(&self) -> Indexed<'a, T> {
        Indexed { slice: *self }
    }

    /// The elements of the view mapped by `map`, lazily.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'a, M> {
        Mapped { slice: *self, map }
    }
}

impl<T: Element> Sealed for DeviceVec<T> {}
impl<T: Element> Sealed for DeviceSlice<'_, T> {}
impl<T: Element> Sealed for Indexed<'_, T> {}
impl<M: MapOp> Sealed for Mapped<'_, M> {}

/// How an input's values are made from its elements (what the stage of its kernels does).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Stage {
    /// The elements themselves.
    Plain,
    /// A map of each element.
    Map(&'static FnMeta),
    /// `(element, index)` pairs, the index of this type, with this largest value.
    Indexed(Scalar, u64),
}

/// An input of the element operations (predicates, `map_reduce`): an array, a view, or a
/// mapped view. Its values are `Value`s made from stored `Elem`s.
pub trait ElementInput: Sealed + Sync {
    /// The stored element type.
    type Elem: Element;
    /// The type of the values the operations see (the map's result, or the element).
    type Value: DeviceValue;
    /// The map's type (`()` without one): part of the key of the kernels' module.
    #[doc(hidden)]
    type Map: 'static;
    /// The map's generated code, if any.
    #[doc(hidden)]
    const MAP: Option<&'static FnMeta>;
    /// The stored elements.
    #[doc(hidden)]
    fn elements(&self) -> DeviceSlice<'_, Self::Elem>;
    /// The map's bound arguments, as the bits the kernel decodes.
    #[doc(hidden)]
    fn args(&self) -> [u64; 8];
    /// The value of an element (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem) -> Self::Value;
}

impl<T: Element> ElementInput for DeviceVec<T> {
    type Elem = T;
    type Value = T;
    type Map = ();
    const MAP: Option<&'static FnMeta> = None;
    fn elements(&self) -> DeviceSlice<'_, T> {
        self.as_slice()
    }
    fn args(&self) -> [u64; 8] {
        [0; 8]
    }
    fn value(&self, e: T) -> T {
        e
    }
}

impl<T: Element> ElementInput for DeviceSlice<'_, T> {
    type Elem = T;
    type Value = T;
    type Map = ();
    const MAP: Option<&'static FnMeta> = None;
    fn elements(&self) -> DeviceSlice<'_, T> {
        *self
    }
    fn args(&self) -> [u64; 8] {
        [0; 8]
    }
    fn value(&self, e: T) -> T {
        e
    }
}

impl<M: MapOp> ElementInput for Mapped<'_, M> {
    type Elem = M::Input;
    type Value = M::Output;
    type Map = M;
    const MAP: Option<&'static FnMeta> = Some(&M::META);
    fn elements(&self) -> DeviceSlice<'_, M::Input> {
        self.slice
    }
    fn args(&self) -> [u64; 8] {
        self.map.args()
    }
    fn value(&self, e: M::Input) -> M::Output {
        self.map.apply(e)
    }
}

/// The key part of `(element, index)` pairs with index type `I`.
#[doc(hidden)]
pub struct IndexKey<I>(PhantomData<I>);

/// An input of reductions, scans and axis reductions with `Op`: a `DeviceVec<Op::Value>` or
/// a view of one, a mapped view `xs.map(f)` whose map returns `Op::Value`, or `xs.indexed()`
/// when `Op::Value` is `(V, I)` (argmax, ...; the index is the position in the input).
pub trait ReduceInput<Op: ReduceOp>: Sealed + Sync {
    /// The stored element type.
    type Elem: Element;
    /// What the values are made of, beyond the element type: part of the key of the
    /// kernels' module (`()`, the map's type, or the index type).
    #[doc(hidden)]
    type Key: 'static;
    /// How values are made from elements.
    #[doc(hidden)]
    const STAGE: Stage;
    /// The stored elements.
    #[doc(hidden)]
    fn elements(&self) -> DeviceSlice<'_, Self::Elem>;
    /// The bound arguments of the map, as the bits the kernel decodes.
    #[doc(hidden)]
    fn args(&self) -> [u64; 8];
    /// The value of element `e` at position `i` (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem, i: u64) -> Op::Value;
    /// Checks what the operations cannot check from the types (an index type wide enough).
    #[doc(hidden)]
    fn validate(&self) -> Result<()> {
        Ok(())
    }
}

/// The inputs of scans and axis reductions are those of reductions.
pub use ReduceInput as AxisInput;

impl<In, Op> ReduceInput<Op> for In
where
    In: ElementInput + ?Sized,
    Op: ReduceOp<Value = In::Value>,
{
    type Elem = In::Elem;
    type Key = In::Map;
    const STAGE: Stage = match In::MAP {
        Some(m) => Stage::Map(m),
        None => Stage::Plain,
    };
    fn elements(&self) -> DeviceSlice<'_, In::Elem> {
        ElementInput::elements(self)
    }
    fn args(&self) -> [u64; 8] {
        ElementInput::args(self)
    }
    fn value(&self, e: In::Elem, _: u64) -> Op::Value {
        ElementInput::value(self, e)
    }
}

impl<V: Element, I: IndexInt, Op: ReduceOp<Value = (V, I)>> ReduceInput<Op> for Indexed<'_, V> {
    type Elem = V;
    type Key = IndexKey<I>;
    const STAGE: Stage = Stage::Indexed(I::SCALAR, I::MAX_INDEX);
    fn elements(&self) -> DeviceSlice<'_, V> {
        self.slice
    }
    fn args(&self) -> [u64; 8] {
        [0; 8]
    }
    fn value(&self, e: V, i: u64) -> (V, I) {
        (e, I::from_index(i))
    }
    fn validate(&self) -> Result<()> {
        let n = self.slice.len();
        if n > 0 && (n - 1) as u64 > I::MAX_INDEX {
            return Err(Error::Shape(format!(
                "{n} elements cannot be indexed with `{}` (largest index {}); use a wider index type",
                I::NAME,
                I::MAX_INDEX
            )));
        }
        Ok(())
    }
}

/// Arrays and views (what `map_reduce` and `transpose` take).
pub trait AsSlice<T: Element>: Sealed {
    /// The view.
    fn as_view(&self) -> DeviceSlice<'_, T>;
}
impl<T: Element> AsSlice<T> for DeviceVec<T> {
    fn as_view(&self) -> DeviceSlice<'_, T> {
        self.as_slice()
    }
}
impl<T: Element> AsSlice<T> for DeviceSlice<'_, T> {
    fn as_view(&self) -> DeviceSlice<'_, T> {
        *self
    }
}
