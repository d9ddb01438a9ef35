//! Inputs of the operations: arrays and views, `(element, index)` pairs and mapped views made
//! on the fly, and the traits that say which inputs each operation family takes.

use std::marker::PhantomData;

use cudarc::driver::{CudaSlice, CudaView};
use warp_kernels::Scalar;

use crate::arrays::{DeviceScalar, DeviceVec, DeviceView, Elements};
use crate::error::{Error, Result};
use crate::operators::{BoundArgs, FnMeta, MapOp, Predicate, ReduceOp};
use crate::values::{DeviceValue, Element, IndexInt, Row};

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// `(element, index)` pairs of a view, made on the fly (nothing is materialised).
#[derive(Clone, Debug)]
pub struct Indexed<'a, T: Element> {
    pub(crate) elems: Elements<'a, T>,
}

/// A map applied on the fly to the elements of a view: `xs.map(f)`. Nothing is materialised;
/// the operation consuming it reads each element once and applies `f` in registers. `Z`
/// says which columns of a zip are generated ranges ([`Zip::map`]); `()` for every other
/// input.
#[derive(Clone, Debug)]
pub struct Mapped<'a, M: MapOp, Z: Kinds = ()> {
    pub(crate) elems: Elements<'a, M::Input>,
    pub(crate) map: M,
    pub(crate) kinds: PhantomData<Z>,
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

impl<'a, T: Element> DeviceView<'a, T> {
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
            kinds: PhantomData,
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
            kinds: PhantomData,
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
            kinds: PhantomData,
        }
    }
}

impl<T: Element> Sealed for DeviceVec<T> {}
impl<T: Element> Sealed for DeviceView<'_, T> {}
impl<T: Element> Sealed for CudaSlice<T> {}
impl<T: Element> Sealed for CudaView<'_, T> {}
impl<T: Element> Sealed for Indexed<'_, T> {}
impl<M: MapOp, Z: Kinds> Sealed for Mapped<'_, M, Z> {}
impl<T: DeviceValue> Sealed for crate::arrays::DeviceTuples<T> {}

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
    /// The indices of a generated range, of this type (nothing is read).
    Range(Scalar),
    /// A map of the indices of a generated range.
    RangeMap(Scalar, &'static FnMeta),
    /// Elements gathered by indices of this type.
    Gather(Scalar),
    /// A map of elements gathered by indices of this type.
    GatherMap(Scalar, &'static FnMeta),
    /// Every `step`-th element of one array.
    Strided,
    /// A map of every `step`-th element of one array.
    StridedMap(&'static FnMeta),
    /// Zipped columns of which those whose bit is set are generated ranges.
    Zipped(u8),
    /// A map of zipped columns of which those whose bit is set are generated ranges.
    ZippedMap(u8, &'static FnMeta),
}

/// Where an element input's elements come from (beyond its map).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Origin {
    /// Arrays in memory, read at each position.
    Stored,
    /// A generated range of indices of this type (nothing is read).
    Range(Scalar),
    /// One array read through indices of this type.
    Gather(Scalar),
    /// Every `step`-th element of one array.
    Strided,
    /// Zipped columns, those whose bit is set generated ranges (made, not read), the others
    /// arrays.
    Zipped(u8),
}

/// An input of the element operations (predicates, compaction, histograms): an array, a view,
/// the caller's cudarc memory (`CudaSlice`, `CudaView`), a mapped view of any of them, zipped
/// arrays, a generated range ([`Device::range`](crate::Device::range)) and its map, or a gather
/// (`xs.gather(&idx)`, [`Gathered`](crate::Gathered)) and its map. Its values are `Value`s made
/// from stored (or, for a range, generated) `Elem`s.
pub trait ElementInput: Sealed + Sync {
    /// The stored element type (a tuple, one field per array, for zipped arrays).
    type Elem: Row;
    /// The type of the values the operations see (the map's result, or the element).
    type Value: DeviceValue;
    /// What compaction (`filter`, `partition`) keeps of each value: the value, or one array's
    /// element of zipped arrays made by [`Zip::keep`].
    type Kept: DeviceValue;
    /// The map's type (`()` without one; what compaction keeps for [`Zip::keep`]): part of
    /// the key of the kernels' module.
    #[doc(hidden)]
    type Map: 'static;
    /// The map's generated code, if any.
    #[doc(hidden)]
    const MAP: Option<&'static FnMeta>;
    /// The zipped array whose elements compaction keeps ([`Zip::keep`]), if any.
    #[doc(hidden)]
    const KEEP: Option<usize>;
    /// Where the elements come from: arrays, a generated range (whose elements the kernels
    /// make) or a gather.
    #[doc(hidden)]
    const ORIGIN: Origin = Origin::Stored;
    /// A second map of the values (`xs.map(f).map(g)`: `g`), if any.
    #[doc(hidden)]
    const THEN: Option<&'static FnMeta> = None;
    /// The stored elements.
    #[doc(hidden)]
    fn elements(&self) -> Elements<'_, Self::Elem>;
    /// The map's bound arguments.
    #[doc(hidden)]
    fn args(&self) -> BoundArgs;
    /// The value of an element (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem) -> Self::Value;
    /// What compaction keeps of a value (on the CPU).
    #[doc(hidden)]
    fn kept(v: Self::Value) -> Self::Kept;
}

/// Arrays, views and the caller's memory: their elements are their values.
macro_rules! plain_input {
    ($($t:ty => |$s:ident| $elems:expr;)*) => {$(
        impl<T: Element> ElementInput for $t {
            type Elem = T;
            type Value = T;
            type Kept = T;
            type Map = ();
            const MAP: Option<&'static FnMeta> = None;
            const KEEP: Option<usize> = None;
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
            fn kept(v: T) -> T {
                v
            }
        }
        impl<T: Element> Array for $t {
            type Elem = T;
            fn array(&self) -> Elements<'_, T> {
                let $s = self;
                $elems
            }
        }
    )*};
}
plain_input! {
    DeviceVec<T> => |s| s.as_slice().elements();
    DeviceView<'_, T> => |s| s.elements();
    CudaSlice<T> => |s| Elements::cuda(s.as_view());
    CudaView<'_, T> => |s| Elements::cuda(s.slice(..));
}

/// One array: a `DeviceVec`, a view of one, or the caller's `CudaSlice` or `CudaView` (what
/// the operations that read memory take, and a [`Column`] of a zip).
pub trait Array: Sealed + Sync {
    /// The element type.
    type Elem: Element;
    /// The elements.
    #[doc(hidden)]
    fn array(&self) -> Elements<'_, Self::Elem>;
}

/// One column of a [`Zip`]: an [`Array`], or a generated range
/// ([`DeviceRange`](crate::DeviceRange), made by [`Device::range`](crate::Device::range)),
/// whose indices the kernels make where they read the other columns.
pub trait Column: Sealed + Sync {
    /// The element type.
    type Elem: Element;
    /// What the column is ([`Stored`] or [`Generated`]): part of the key of a zip's modules.
    #[doc(hidden)]
    type Kind: Kind;
    /// The elements (made into a host array by the CPU backend for a range).
    #[doc(hidden)]
    fn column(&self) -> Elements<'_, Self::Elem>;
}

impl<A: Array> Column for A {
    type Elem = A::Elem;
    type Kind = Stored;
    fn column(&self) -> Elements<'_, A::Elem> {
        self.array()
    }
}

/// A zipped column held in memory (an [`Array`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Stored;

/// A zipped column the kernels generate (a [`DeviceRange`](crate::DeviceRange)).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Generated;

/// What one zipped column is: [`Stored`] or [`Generated`].
#[doc(hidden)]
pub trait Kind: Copy + std::fmt::Debug + Send + Sync + 'static {
    /// Whether the kernels make its elements.
    const GENERATED: bool;
}
impl Kind for Stored {
    const GENERATED: bool = false;
}
impl Kind for Generated {
    const GENERATED: bool = true;
}

/// What the columns of an input are: `()` for an input that is not a zip, a tuple of
/// [`Kind`]s for a zip (part of the key of its modules, and where its elements come from).
#[doc(hidden)]
pub trait Kinds: Copy + std::fmt::Debug + Send + Sync + 'static {
    /// Where the elements come from: arrays, or zipped columns some of which are generated.
    const ORIGIN: Origin;
}
impl Kinds for () {
    const ORIGIN: Origin = Origin::Stored;
}

/// The origin of zipped columns whose kinds say `generated` (one flag a column).
const fn zipped_origin(generated: &[bool]) -> Origin {
    let mut mask = 0u8;
    let mut k = 0;
    while k < generated.len() {
        if generated[k] {
            mask |= 1 << k;
        }
        k += 1;
    }
    match mask {
        0 => Origin::Stored,
        m => Origin::Zipped(m),
    }
}

/// Equally long arrays read together, a tuple of references to 2 to 4 [`Column`]s: the
/// element of `(&xs, &ys)` at `i` is `(xs[i], ys[i])`, what a `#[map(inputs = 2)]` or
/// `#[predicate(inputs = 2)]` takes. Arrays of different lengths are an [`Error::Shape`] of the
/// operation. `.map(f)` maps them lazily (as arrays' `.map`), `.keep::<K>()` makes compaction
/// (`filter`, `partition`) keep array `K`'s elements.
///
/// A column may be a generated range ([`Device::range`](crate::Device::range)): the element of
/// `(&dev.range(a..b), &xs)` at `i` is `(a + i, xs[i])`, and the kernels make `a + i` where they
/// read `xs[i]` (a range of another length than the arrays is an [`Error::Shape`] too). Such a
/// zip, its `.map(f)` and its `.keep::<K>()` are inputs of every operation that takes
/// elements (reductions, scans, axis reductions, predicates, compaction, histograms); the
/// operations that take arrays (`map_reduce`, `map`, sorts, ...) take zips of arrays only.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[map(inputs = 2)]
/// fn mul(x: f32, y: f32) -> f32 { x * y }
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[predicate(inputs = 2)]
/// fn above(x: f32, y: f32, t: f32) -> bool { y > t }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 2.0, 3.0])?;
/// let ys = dev.upload(&[4.0f32, 5.0, 6.0])?;
/// assert_eq!(dev.map_reduce(mul, sum, &(&xs, &ys))?, 32.0);          // a dot product
/// assert_eq!(dev.reduce(sum, &(&xs, &ys).map(mul))?, 32.0);          // the same
/// assert_eq!(dev.count(above.with(4.5), &(&xs, &ys))?, 2);
/// let kept = dev.filter(above.with(4.5), &(&xs, &ys).keep::<0>())?; // xs where ys > 4.5
/// assert_eq!(kept.download()?, [2.0, 3.0]);
/// let short = dev.upload(&[1.0f32])?;
/// assert!(matches!(dev.count(above.with(0.0), &(&xs, &short)), Err(Error::Shape(_))));
/// # Ok(()) }
/// ```
///
/// With a generated range: a weighted sum `sum(i * xs[i])` reads only `xs`.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[map(inputs = 2)]
/// fn weighted(i: u32, x: f32) -> f32 { i as f32 * x }
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[predicate(inputs = 2)]
/// fn even_index(i: u32, x: f32) -> bool { i % 2 == 0 }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
/// let at = dev.range(0u32..4);
/// assert_eq!(dev.reduce(sum, &(&at, &xs).map(weighted))?, 20.0); // 0 + 2 + 6 + 12
/// let kept = dev.filter(even_index, &(&at, &xs).keep::<1>())?;   // the elements at even i
/// assert_eq!(kept.download()?, [1.0, 3.0]);
/// let short = dev.range(0u32..3);
/// assert!(matches!(dev.reduce(sum, &(&short, &xs).map(weighted)), Err(Error::Shape(_))));
/// # Ok(()) }
/// ```
pub trait Zip: Sealed + Sync {
    /// One element of each array.
    type Row: Row;
    /// What each column is (stored or generated): part of the key of the zip's modules.
    #[doc(hidden)]
    type Kinds: Kinds;
    /// The zipped elements.
    #[doc(hidden)]
    fn zipped(&self) -> Elements<'_, Self::Row>;
    /// The zipped elements mapped by `map` (which takes one element of each array), lazily:
    /// `dev.reduce(sum, &(&xs, &ys).map(mul))` runs one fused kernel reading each array once.
    fn map<M: MapOp<Input = Self::Row>>(&self, map: M) -> Mapped<'_, M, Self::Kinds> {
        Mapped {
            elems: self.zipped(),
            map,
            kinds: PhantomData,
        }
    }
    /// The zipped elements, of which compaction (`filter`, `partition` and their `_into`
    /// forms) keeps array `K`'s: `dev.filter(p, &(&a, &b).keep::<0>())` is the elements of
    /// `a` whose row `(a[i], b[i])` satisfies `p`. Other operations see the rows.
    fn keep<const K: usize>(&self) -> Keeping<'_, Self::Row, K, Self::Kinds>
    where
        Self::Row: Field<K>,
    {
        Keeping {
            elems: self.zipped(),
            kinds: PhantomData,
        }
    }
}

/// Field `K` of a zipped row (the element of array `K`).
#[diagnostic::on_unimplemented(
    message = "`keep::<{K}>()`: zipped arrays `{Self}` have no array {K}",
    label = "arrays are numbered from 0"
)]
pub trait Field<const K: usize>: Row {
    /// Its type.
    type Out: Element;
    /// The field.
    #[doc(hidden)]
    fn field(self) -> Self::Out;
}

/// Zipped arrays whose compaction keeps array `K`'s elements: made by [`Zip::keep`]. `Z` says
/// which columns are generated ranges.
#[derive(Clone, Debug)]
pub struct Keeping<'a, R: Row, const K: usize, Z: Kinds = ()> {
    pub(crate) elems: Elements<'a, R>,
    pub(crate) kinds: PhantomData<Z>,
}

macro_rules! zipped {
    ($zip:ident: $($a:ident $i:tt),+) => {
        impl<$($a: Kind),+> Kinds for ($($a,)+) {
            const ORIGIN: Origin = zipped_origin(&[$($a::GENERATED),+]);
        }
        impl<'r, $($a: Column),+> Sealed for ($(&'r $a,)+) {}
        impl<'r, $($a: Column),+> Zip for ($(&'r $a,)+) {
            type Row = ($($a::Elem,)+);
            type Kinds = ($($a::Kind,)+);
            fn zipped(&self) -> Elements<'_, Self::Row> {
                crate::arrays::$zip($(self.$i.column()),+)
            }
        }
        impl<'r, $($a: Column),+> ElementInput for ($(&'r $a,)+) {
            type Elem = ($($a::Elem,)+);
            type Value = ($($a::Elem,)+);
            type Kept = ($($a::Elem,)+);
            type Map = ($($a::Kind,)+);
            const MAP: Option<&'static FnMeta> = None;
            const KEEP: Option<usize> = None;
            const ORIGIN: Origin = <($($a::Kind,)+) as Kinds>::ORIGIN;
            fn elements(&self) -> Elements<'_, Self::Elem> {
                self.zipped()
            }
            fn args(&self) -> BoundArgs {
                BoundArgs::default()
            }
            fn value(&self, e: Self::Elem) -> Self::Value {
                e
            }
            fn kept(v: Self::Value) -> Self::Kept {
                v
            }
        }
        // Zips of arrays only: the operations that take `AsSlice` read memory.
        impl<'r, $($a: Array),+> AsSlice<($($a::Elem,)+)> for ($(&'r $a,)+) {
            fn elements(&self) -> Elements<'_, ($($a::Elem,)+)> {
                self.zipped()
            }
        }
    };
}
zipped!(zip2: A 0, B 1);
zipped!(zip3: A 0, B 1, C 2);
zipped!(zip4: A 0, B 1, C 2, D 3);

macro_rules! field {
    ($k:tt => $out:ident of $($a:ident),+) => {
        impl<$($a: Element),+> Field<$k> for ($($a,)+) {
            type Out = $out;
            fn field(self) -> $out {
                self.$k
            }
        }
    };
}
field!(0 => A of A, B);
field!(1 => B of A, B);
field!(0 => A of A, B, C);
field!(1 => B of A, B, C);
field!(2 => C of A, B, C);
field!(0 => A of A, B, C, D);
field!(1 => B of A, B, C, D);
field!(2 => C of A, B, C, D);
field!(3 => D of A, B, C, D);

impl<R: Row, const K: usize, Z: Kinds> Sealed for Keeping<'_, R, K, Z> {}
impl<R: Row + Field<K>, const K: usize, Z: Kinds> ElementInput for Keeping<'_, R, K, Z> {
    type Elem = R;
    type Value = R;
    type Kept = <R as Field<K>>::Out;
    type Map = (KeepKey<K>, Z);
    const MAP: Option<&'static FnMeta> = None;
    const KEEP: Option<usize> = Some(K);
    const ORIGIN: Origin = Z::ORIGIN;
    fn elements(&self) -> Elements<'_, R> {
        self.elems.clone()
    }
    fn args(&self) -> BoundArgs {
        BoundArgs::default()
    }
    fn value(&self, e: R) -> R {
        e
    }
    fn kept(v: R) -> Self::Kept {
        v.field()
    }
}

/// The key part of zipped arrays whose compaction keeps array `K`.
#[doc(hidden)]
pub struct KeepKey<const K: usize>;

impl<M: MapOp, Z: Kinds> ElementInput for Mapped<'_, M, Z> {
    type Elem = M::Input;
    type Value = M::Output;
    type Kept = M::Output;
    type Map = (M::Key, Z);
    const MAP: Option<&'static FnMeta> = Some(&M::META);
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = Z::ORIGIN;
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

/// A map of a mapped input (`xs.map(f).map(g)`, also of a range's or a gather's map): each
/// value of `I` mapped again by `G`, in the same kernel (`wd_map2` after `wd_map`). An input
/// of every operation its first map's input is. Two maps at most: a third is a type error
/// (write one `#[map]` that does the work of two instead).
///
/// ```
/// use warp_runtime::prelude::*;
/// #[map]
/// fn half(x: i32) -> f32 { x as f32 * 0.5 }
/// #[map]
/// fn square(x: f32) -> f32 { x * x }
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[predicate]
/// fn above(x: f32, t: f32) -> bool { x > t }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[2i32, 4, 6])?;
/// assert_eq!(dev.reduce(sum, &xs.map(half).map(square))?, 14.0);   // 1 + 4 + 9
/// assert_eq!(dev.count(above.with(3.0), &xs.map(half).map(square))?, 2);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Chained<I: ElementInput, G: MapOp<Input = I::Value>> {
    pub(crate) inner: I,
    pub(crate) map: G,
}

/// The key part of a map of a map: the first's and the second's.
#[doc(hidden)]
pub struct ChainKey<K, G>(PhantomData<(K, G)>);

impl<I: ElementInput, G: MapOp<Input = I::Value>> Sealed for Chained<I, G> {}

impl<I: ElementInput, G: MapOp<Input = I::Value>> ElementInput for Chained<I, G> {
    type Elem = I::Elem;
    type Value = G::Output;
    type Kept = G::Output;
    type Map = ChainKey<I::Map, G::Key>;
    const MAP: Option<&'static FnMeta> = I::MAP;
    const KEEP: Option<usize> = None;
    const ORIGIN: Origin = I::ORIGIN;
    const THEN: Option<&'static FnMeta> = Some(&G::META);
    fn elements(&self) -> Elements<'_, I::Elem> {
        self.inner.elements()
    }
    fn args(&self) -> BoundArgs {
        BoundArgs::join(self.inner.args(), &self.map.args())
    }
    fn value(&self, e: I::Elem) -> G::Output {
        self.map.apply(self.inner.value(e))
    }
    fn kept(v: G::Output) -> G::Output {
        v
    }
}

impl<'a, M: MapOp, Z: Kinds> Mapped<'a, M, Z> {
    /// The mapped values mapped again by `map`, lazily: see [`Chained`].
    pub fn map<G: MapOp<Input = M::Output>>(&self, map: G) -> Chained<Mapped<'a, M, Z>, G> {
        Chained {
            inner: self.clone(),
            map,
        }
    }
}

/// The key part of `(element, index)` pairs with index type `I`.
#[doc(hidden)]
pub struct IndexKey<I>(PhantomData<I>);

/// An input of reductions, scans and axis reductions with `Op`: a `DeviceVec<Op::Value>`, a
/// view of one, the caller's `CudaSlice<Op::Value>` or `CudaView`, a mapped view `xs.map(f)`
/// whose map returns `Op::Value`, `xs.indexed()` when `Op::Value` is `(V, I)` (argmax, ...;
/// the index is the position in the input), a generated range `dev.range(a..b)` (of
/// `Op::Value` indices) or its map, a gather `xs.gather(&idx)` or its map, or any element
/// input masked by a predicate, `xs.filter(p)` ([`Masked`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an input of the operator `{Op}`",
    label = "not an input of `{Op}`",
    note = "inputs of an operator are an array of its value type, `xs.indexed()` for a `(value, integer index)` operator, `xs.map(f)` whose map returns its value, zipped arrays `(&a, &b)` for a tuple operator of their element types, a generated range `dev.range(a..b)`, a gather `xs.gather(&idx)` (each with its `.map(f)`), or any of these masked, `xs.filter(p)`",
    note = "a `DeviceTuples` is a result here, not an input (only the sorts and searches by a comparator read one): map arrays of scalars into tuples or structs instead"
)]
pub trait ReduceInput<Op: ReduceOp>: Sealed + Sync {
    /// The stored element type (a tuple, one field per array, for zipped arrays).
    type Elem: Row;
    /// What the values are made of, beyond the element type: part of the key of the
    /// kernels' module (`()`, the map's type, or the index type).
    #[doc(hidden)]
    type Key: 'static;
    /// How values are made from elements.
    #[doc(hidden)]
    const STAGE: Stage;
    /// The predicate that masks the values (`xs.filter(p)`: a value it rejects is the
    /// operator's identity), if any.
    #[doc(hidden)]
    const MASK: Option<&'static FnMeta> = None;
    /// A second map of the values (`xs.map(f).map(g)`: `g`), if any.
    #[doc(hidden)]
    const THEN: Option<&'static FnMeta> = None;
    /// The stored elements.
    #[doc(hidden)]
    fn elements(&self) -> Elements<'_, Self::Elem>;
    /// The bound arguments of the map.
    #[doc(hidden)]
    fn args(&self) -> BoundArgs;
    /// The value of element `e` at position `i` (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem, i: u64) -> Op::Value;
    /// Whether value `v` is kept by the input's mask (on the CPU; always without one).
    #[doc(hidden)]
    fn keeps(&self, v: &Op::Value) -> bool {
        let _ = v;
        true
    }
    /// Checks what the operations cannot check from the types (an index type wide enough).
    #[doc(hidden)]
    fn validate(&self) -> Result<()> {
        Ok(())
    }
}

/// An element input whose values a predicate masks: `xs.filter(p)` (made by
/// [`Filter::filter`]) as the input of a reduction, a scan or an axis reduction, where a value
/// `p` rejects counts as the operator's identity: `reduce(sum, &xs.filter(positive))` is the
/// sum of the positive elements, in one kernel that reads each element once. Positions (of
/// `indexed()` operators, scans, rows and columns) are those of the whole input. Not an input
/// of the predicates, compaction or histograms (`count(q, ..)` of a filter is a predicate that
/// tests both), nor the values of `reduce_by_key` (an [`Error::Unsupported`]).
///
/// ```
/// use warp_runtime::prelude::*;
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[reduce(identity = f32::INFINITY)]
/// fn min(a: f32, b: f32) -> f32 { a.min(b) }
/// #[predicate]
/// fn above(x: f32, t: f32) -> bool { x > t }
/// #[map]
/// fn square(x: f32) -> f32 { x * x }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[3.0f32, -1.0, 2.0, -4.0])?;
/// assert_eq!(dev.reduce(sum, &xs.filter(above.with(0.0)))?, 5.0);
/// assert_eq!(dev.reduce(min, &xs.filter(above.with(0.0)))?, 2.0);
/// // Masked values are the identity: the scan carries the last kept total.
/// assert_eq!(dev.scan(sum, &xs.filter(above.with(0.0)))?.download()?, [3.0, 3.0, 5.0, 5.0]);
/// // A predicate over a map: the squares above 5.
/// assert_eq!(dev.reduce(sum, &xs.map(square).filter(above.with(5.0)))?, 25.0);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Masked<'a, I: ElementInput, P: Predicate<Input = I::Value>> {
    input: &'a I,
    pred: P,
}

/// `filter` for every element input (arrays, views, the caller's cudarc memory, maps, zips,
/// ranges, gathers; in the prelude): `xs.filter(p)` is a [`Masked`] input of reductions,
/// scans and axis reductions. (`Device::filter` is the compaction.)
pub trait Filter: ElementInput + Sized {
    /// The values `pred` keeps; the others count as the operator's identity.
    fn filter<P: Predicate<Input = Self::Value>>(&self, pred: P) -> Masked<'_, Self, P> {
        Masked { input: self, pred }
    }
}

impl<I: ElementInput> Filter for I {}

impl<I: ElementInput, P: Predicate<Input = I::Value>> Sealed for Masked<'_, I, P> {}

/// The key part of a masked input: its input's and its predicate's.
#[doc(hidden)]
pub struct MaskKey<K, P>(PhantomData<(K, P)>);

impl<I, P, Op> ReduceInput<Op> for Masked<'_, I, P>
where
    I: ElementInput,
    P: Predicate<Input = I::Value>,
    Op: ReduceOp<Value = I::Value>,
{
    type Elem = I::Elem;
    type Key = MaskKey<I::Map, P::Key>;
    const STAGE: Stage = element_stage(I::MAP, I::ORIGIN);
    const MASK: Option<&'static FnMeta> = Some(&P::META);
    const THEN: Option<&'static FnMeta> = I::THEN;
    fn elements(&self) -> Elements<'_, I::Elem> {
        self.input.elements()
    }
    fn args(&self) -> BoundArgs {
        BoundArgs::join(self.input.args(), &self.pred.args())
    }
    fn value(&self, e: I::Elem, _: u64) -> Op::Value {
        self.input.value(e)
    }
    fn keeps(&self, v: &Op::Value) -> bool {
        self.pred.test(*v)
    }
}

/// The first `count` values of an element input, `count` a result left on the device (a
/// [`DeviceScalar<u64>`](crate::DeviceScalar): what `filter_into`, `argwhere_into`,
/// `partition_into` and `count_on_device` return), read by the kernels themselves: the next
/// operation over a compaction's output runs without a host read. Made by [`Take::take`].
///
/// The kernels read `min(count, n)` values (`n`: the input's own length, which the grid is
/// sized for, as `Iterator::take`). An input of the reductions (`reduce`, `reduce_on_device`,
/// `reduce_into`; also masked, `input.take(&c).filter(p)`), `count`, `any`, `all`,
/// `find_first` (and their `_on_device` forms), compaction (`filter`, `argwhere`, `partition`
/// and their `_into` forms: positions count from the input's start), the histograms,
/// `collect_into`, `scan_into` and `exclusive_scan_into` (which write the first `count`
/// places of their output and leave the others as they were); the other operations (their
/// allocating forms `collect`, `scan`, `exclusive_scan`, whose arrays would end unwritten;
/// row, column, segment and axis reductions and scans, `mask`, `partition3`, the values of
/// `reduce_by_key`, ...) return [`Error::Unsupported`]. A count on another GPU
/// context or backend than the input is an [`Error::DeviceMismatch`]; a count written by
/// another `Device` of the same GPU is waited for (an event), as a bound result is. On the
/// CPU backend the count is read when the input is made and the values cut there.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[predicate]
/// fn positive(x: f32) -> bool { x > 0.0 }
/// #[predicate]
/// fn above(x: f32, t: f32) -> bool { x > t }
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[3.0f32, -1.0, 2.0, -4.0, 5.0])?;
/// let mut kept = dev.upload(&[0.0f32; 5])?;
/// let count = dev.filter_into(positive, &xs, &mut kept)?;    // 3, left on the device
/// // The next operations read the count where it is: no wait, no copy to the host.
/// let total = dev.reduce_on_device(sum, &kept.take(&count))?;
/// let big = dev.count_on_device(above.with(2.5), &kept.take(&count))?;
/// assert_eq!((total.get()?, big.get()?), (10.0, 2));
/// let mut running = dev.upload(&[0.0f32; 5])?;
/// dev.scan_into(sum, &kept.take(&count), &mut running)?;      // the first 3 places
/// assert_eq!(running.download()?, [3.0, 5.0, 10.0, 0.0, 0.0]);
/// assert!(matches!(dev.scan(sum, &kept.take(&count)), Err(Error::Unsupported(_))));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Taken<'a, I: ElementInput> {
    input: &'a I,
    count: DeviceScalar<u64>,
}

// By hand: the input is borrowed, so a `Taken` clones whatever the input's type is.
impl<I: ElementInput> Clone for Taken<'_, I> {
    fn clone(&self) -> Self {
        Taken {
            input: self.input,
            count: self.count.clone(),
        }
    }
}

/// `take` for every element input (arrays, views, the caller's cudarc memory, maps, zips,
/// ranges, gathers, strided views; in the prelude): `xs.take(&count)` is a [`Taken`] input,
/// the first `count` values, `count` on the device.
pub trait Take: ElementInput + Sized {
    /// The first `count` values (at most all of them), `count` read by the kernels.
    fn take(&self, count: &DeviceScalar<u64>) -> Taken<'_, Self> {
        Taken {
            input: self,
            count: count.clone(),
        }
    }
}

impl<I: ElementInput> Take for I {}

impl<I: ElementInput> Sealed for Taken<'_, I> {}

impl<I: ElementInput> ElementInput for Taken<'_, I> {
    type Elem = I::Elem;
    type Value = I::Value;
    type Kept = I::Kept;
    // The same module as the input's: every stage reads a device length when one is given.
    type Map = I::Map;
    const MAP: Option<&'static FnMeta> = I::MAP;
    const KEEP: Option<usize> = I::KEEP;
    const ORIGIN: Origin = I::ORIGIN;
    const THEN: Option<&'static FnMeta> = I::THEN;
    fn elements(&self) -> Elements<'_, I::Elem> {
        self.input.elements().take(&self.count)
    }
    fn args(&self) -> BoundArgs {
        self.input.args()
    }
    fn value(&self, e: I::Elem) -> I::Value {
        self.input.value(e)
    }
    fn kept(v: I::Value) -> I::Kept {
        I::kept(v)
    }
}

/// How the kernels make the values of an element input from its `map` (if any) and its
/// elements' `origin`.
pub(crate) const fn element_stage(map: Option<&'static FnMeta>, origin: Origin) -> Stage {
    match (map, origin) {
        (Some(m), Origin::Stored) => Stage::Map(m),
        (None, Origin::Stored) => Stage::Plain,
        (Some(m), Origin::Range(ix)) => Stage::RangeMap(ix, m),
        (None, Origin::Range(ix)) => Stage::Range(ix),
        (Some(m), Origin::Gather(ix)) => Stage::GatherMap(ix, m),
        (None, Origin::Gather(ix)) => Stage::Gather(ix),
        (Some(m), Origin::Strided) => Stage::StridedMap(m),
        (None, Origin::Strided) => Stage::Strided,
        (Some(m), Origin::Zipped(g)) => Stage::ZippedMap(g, m),
        (None, Origin::Zipped(g)) => Stage::Zipped(g),
    }
}

impl<In, Op> ReduceInput<Op> for In
where
    In: ElementInput + ?Sized,
    Op: ReduceOp<Value = In::Value>,
{
    type Elem = In::Elem;
    type Key = In::Map;
    const STAGE: Stage = element_stage(In::MAP, In::ORIGIN);
    const THEN: Option<&'static FnMeta> = In::THEN;
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

/// Arrays and views, the caller's cudarc memory, and zipped arrays (`(&xs, &ys)`: what
/// `map_reduce` and `map` take; `transpose` and segment offsets take single arrays).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not hold elements of type `{T}`",
    label = "expected arrays of `{T}` (zipped arrays: one array per element of the tuple, in order)",
    note = "a zip holding a generated range (`dev.range(..)`) is an input of the operations that take elements, not of those that take arrays: `dev.collect(&(&range, &xs).map(f))` writes a map of one out"
)]
pub trait AsSlice<T: Row>: Sealed {
    /// The elements.
    #[doc(hidden)]
    fn elements(&self) -> Elements<'_, T>;
}
impl<A: Array> AsSlice<A::Elem> for A {
    fn elements(&self) -> Elements<'_, A::Elem> {
        self.array()
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
        kinds: PhantomData,
    }
}
