//! Inputs of the operations: arrays and views, `(element, index)` pairs and mapped views made
//! on the fly, and the traits that say which inputs each operation family takes.

use std::marker::PhantomData;

use cudarc::driver::{CudaSlice, CudaView};
use warp_kernels::Scalar;

use crate::arrays::{DeviceSlice, DeviceVec, Elements};
use crate::error::{Error, Result};
use crate::operators::{BoundArgs, FnMeta, MapOp, ReduceOp};
use crate::values::{DeviceValue, Element, IndexInt};

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// `(element, index)` pairs of a view, made on the fly (nothing is materialised).
#[derive(Clone, Debug)]
pub struct Indexed<'a, T: Element> {
    pub(crate) elems: Elements<'a, T>,
}

/// A map applied on the fly to the elements of a view: `xs.map(f)`. Nothing is materialised;
/// the operation consuming it reads each element once and applies `f` in registers.
#[derive(Clone, Debug)]
pub struct Mapped<'a, M: MapOp> {
    pub(crate) elems: Elements<'a, M::Input>,
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
        Indexed {
            elems: self.elements(),
        }
    }

    /// The elements of the view mapped by `map`, lazily.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'a, M> {
        Mapped {
            elems: self.elements(),
            map,
        }
    }
}

/// `indexed()` and `map()` for the caller's cudarc memory (`CudaSlice`, `CudaView`), as
/// arrays and views of a `DeviceVec` have them: `dev.reduce(argmax, &slice.indexed())`.
pub trait CudaInput<T: Element> {
    /// The `(element, index)` pairs; indices count from the view's start.
    fn indexed(&self) -> Indexed<'_, T>;
    /// The elements mapped by `map`, lazily.
    fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'_, M>;
}

impl<T: Element> CudaInput<T> for CudaSlice<T> {
    fn indexed(&self) -> Indexed<'_, T> {
        Indexed {
            elems: Elements::cuda(self.as_view()),
        }
    }
    fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'_, M> {
        Mapped {
            elems: Elements::cuda(self.as_view()),
            map,
        }
    }
}

impl<T: Element> CudaInput<T> for CudaView<'_, T> {
    fn indexed(&self) -> Indexed<'_, T> {
        Indexed {
            elems: Elements::cuda(self.slice(..)),
        }
    }
    fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'_, M> {
        Mapped {
            elems: Elements::cuda(self.slice(..)),
            map,
        }
    }
}

impl<T: Element> Sealed for DeviceVec<T> {}
impl<T: Element> Sealed for DeviceSlice<'_, T> {}
impl<T: Element> Sealed for CudaSlice<T> {}
impl<T: Element> Sealed for CudaView<'_, T> {}
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

/// An input of the element operations (predicates, `map`): an array, a view, the caller's
/// cudarc memory (`CudaSlice`, `CudaView`), or a mapped view of any of them. Its values are
/// `Value`s made from stored `Elem`s.
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
    fn elements(&self) -> Elements<'_, Self::Elem>;
    /// The map's bound arguments.
    #[doc(hidden)]
    fn args(&self) -> BoundArgs;
    /// The value of an element (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem) -> Self::Value;
}

/// Arrays, views and the caller's memory: their elements are their values.
macro_rules! plain_input {
    ($($t:ty => |$s:ident| $elems:expr;)*) => {$(
        impl<T: Element> ElementInput for $t {
            type Elem = T;
            type Value = T;
            type Map = ();
            const MAP: Option<&'static FnMeta> = None;
            fn elements(&self) -> Elements<'_, T> {
                let $s = self;
                $elems
            }
            fn args(&self) -> BoundArgs {
                BoundArgs::default()
            }
            fn value(&self, e: T) -> T {
                e
            }
        }
    )*};
}
plain_input! {
    DeviceVec<T> => |s| s.as_slice().elements();
    DeviceSlice<'_, T> => |s| s.elements();
    CudaSlice<T> => |s| Elements::cuda(s.as_view());
    CudaView<'_, T> => |s| Elements::cuda(s.slice(..));
}

impl<M: MapOp> ElementInput for Mapped<'_, M> {
    type Elem = M::Input;
    type Value = M::Output;
    type Map = M::Key;
    const MAP: Option<&'static FnMeta> = Some(&M::META);
    fn elements(&self) -> Elements<'_, M::Input> {
        self.elems.clone()
    }
    fn args(&self) -> BoundArgs {
        self.map.args()
    }
    fn value(&self, e: M::Input) -> M::Output {
        self.map.apply(e)
    }
}

/// The key part of `(element, index)` pairs with index type `I`.
#[doc(hidden)]
pub struct IndexKey<I>(PhantomData<I>);

/// An input of reductions, scans and axis reductions with `Op`: a `DeviceVec<Op::Value>`, a
/// view of one, the caller's `CudaSlice<Op::Value>` or `CudaView`, a mapped view `xs.map(f)`
/// whose map returns `Op::Value`, or `xs.indexed()` when `Op::Value` is `(V, I)` (argmax,
/// ...; the index is the position in the input).
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
    fn elements(&self) -> Elements<'_, Self::Elem>;
    /// The bound arguments of the map.
    #[doc(hidden)]
    fn args(&self) -> BoundArgs;
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
    fn elements(&self) -> Elements<'_, In::Elem> {
        ElementInput::elements(self)
    }
    fn args(&self) -> BoundArgs {
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
    fn elements(&self) -> Elements<'_, V> {
        self.elems.clone()
    }
    fn args(&self) -> BoundArgs {
        BoundArgs::default()
    }
    fn value(&self, e: V, i: u64) -> (V, I) {
        (e, I::from_index(i))
    }
    fn validate(&self) -> Result<()> {
        let n = self.elems.len();
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

/// Arrays and views, and the caller's cudarc memory (what `map_reduce`, `map` and
/// `transpose` take).
pub trait AsSlice<T: Element>: Sealed {
    /// The elements.
    #[doc(hidden)]
    fn elements(&self) -> Elements<'_, T>;
}
impl<T: Element> AsSlice<T> for DeviceVec<T> {
    fn elements(&self) -> Elements<'_, T> {
        self.as_slice().elements()
    }
}
impl<T: Element> AsSlice<T> for DeviceSlice<'_, T> {
    fn elements(&self) -> Elements<'_, T> {
        DeviceSlice::elements(self)
    }
}
impl<T: Element> AsSlice<T> for CudaSlice<T> {
    fn elements(&self) -> Elements<'_, T> {
        Elements::cuda(self.as_view())
    }
}
impl<T: Element> AsSlice<T> for CudaView<'_, T> {
    fn elements(&self) -> Elements<'_, T> {
        Elements::cuda(self.slice(..))
    }
}

/// A mapped view of an [`AsSlice`] input (what `map_reduce` builds).
pub(crate) fn mapped<'a, M: MapOp, S: AsSlice<M::Input> + ?Sized>(
    s: &'a S,
    map: M,
) -> Mapped<'a, M> {
    Mapped {
        elems: s.elements(),
        map,
    }
}
