//! Element operations: predicates (votes, counting, compaction) and maps fused into the
//! reading pass, over arrays, views and mapped arrays; composed into kernels at run time.

use rayon::prelude::*;

use crate::device::{Backend, Device, DeviceSlice, DeviceVec, ReduceInput, Storage, sealed};
use crate::error::{Error, Result};
use crate::gpu::{self, PredKind, PredOut};
use crate::op::{FnMeta, MapOp, OpMeta, Predicate, ReduceOp};
use crate::value::{DeviceValue, Element};

/// A map applied on the fly to the elements of a view: `xs.map(f)`. Nothing is materialised;
/// the operation consuming it reads each element once and applies `f` in registers.
#[derive(Clone, Copy, Debug)]
pub struct Mapped<'a, M: MapOp> {
    pub(crate) slice: DeviceSlice<'a, M::Input>,
    pub(crate) map: M,
}

impl<T: Element> DeviceVec<T> {
    /// The elements mapped by `map`, lazily: `dev.count(p, &xs.map(f))` and
    /// `dev.reduce(op, &xs.map(f))` run one fused kernel.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'_, M> {
        self.as_slice().map(map)
    }
}

impl<'a, T: Element> DeviceSlice<'a, T> {
    /// The elements of the view mapped by `map`, lazily.
    pub fn map<M: MapOp<Input = T>>(&self, map: M) -> Mapped<'a, M> {
        Mapped { slice: *self, map }
    }
}

impl<M: MapOp> sealed::Sealed for Mapped<'_, M> {}

/// An input of the element operations: an array, a view, or a mapped view. Its values are
/// `Value`s made from stored `Elem`s.
pub trait ElementInput: sealed::Sealed + Sync {
    /// The stored element type.
    type Elem: Element;
    /// The type of the values the operations see (the map's result, or the element).
    type Value: DeviceValue;
    /// The stored elements.
    #[doc(hidden)]
    fn elements(&self) -> DeviceSlice<'_, Self::Elem>;
    /// The map, if any: its generated code and bound arguments.
    #[doc(hidden)]
    fn map_meta(&self) -> Option<(&'static FnMeta, [u64; 8])>;
    /// The value of an element (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem) -> Self::Value;
}

impl<T: Element> ElementInput for DeviceVec<T> {
    type Elem = T;
    type Value = T;
    fn elements(&self) -> DeviceSlice<'_, T> {
        self.as_slice()
    }
    fn map_meta(&self) -> Option<(&'static FnMeta, [u64; 8])> {
        None
    }
    fn value(&self, e: T) -> T {
        e
    }
}

impl<T: Element> ElementInput for DeviceSlice<'_, T> {
    type Elem = T;
    type Value = T;
    fn elements(&self) -> DeviceSlice<'_, T> {
        *self
    }
    fn map_meta(&self) -> Option<(&'static FnMeta, [u64; 8])> {
        None
    }
    fn value(&self, e: T) -> T {
        e
    }
}

impl<M: MapOp> ElementInput for Mapped<'_, M> {
    type Elem = M::Input;
    type Value = M::Output;
    fn elements(&self) -> DeviceSlice<'_, M::Input> {
        self.slice
    }
    fn map_meta(&self) -> Option<(&'static FnMeta, [u64; 8])> {
        Some((&M::META, self.map.args()))
    }
    fn value(&self, e: M::Input) -> M::Output {
        self.map.apply(e)
    }
}

pub(crate) fn fragment(m: &'static FnMeta) -> kernels_gen::compose::FnFragment<'static> {
    kernels_gen::compose::FnFragment {
        name: m.name,
        text: m.fragment,
        type_support: m.type_support,
        output: m.output_c,
        extras: m.extras,
    }
}

/// A `#[reduce]` operator as a fragment for compositions.
pub(crate) fn reduce_fragment(o: &'static OpMeta) -> kernels_gen::compose::ReduceFragment<'static> {
    kernels_gen::compose::ReduceFragment {
        name: o.name,
        combine: o.combine_fragment,
        identity: o.identity_fragment,
        type_support: o.type_support,
        value: o.value_c,
        redux: kernels_gen::patterns::Redux::c_const(
            o.redux.and_then(kernels_gen::patterns::Redux::from_name),
        ),
    }
}

/// Bound arguments of a map and a predicate, in the order the kernel decodes them.
pub(crate) fn join_args(
    map: Option<(&'static FnMeta, [u64; 8])>,
    pred: Option<(&FnMeta, [u64; 8])>,
) -> Result<[u64; 8]> {
    let mut out = [0u64; 8];
    let mut i = 0;
    for (meta, args) in [map, pred].into_iter().flatten() {
        for a in args.iter().take(meta.extras.len()) {
            if i == 8 {
                return Err(Error::Unsupported(
                    "more than 8 bound parameters in one composition (map and predicate together)"
                        .into(),
                ));
            }
            out[i] = *a;
            i += 1;
        }
    }
    Ok(out)
}

/// The module of predicate kernels for `P` over elements named `elem` (`"f32"`), mapped by `map`
/// first if any: composed once per combination and kept for the process. Its `source` is the
/// CUDA the GPU runs (for reading; tests compile it with NVRTC).
pub fn predicate_module<P: Predicate>(
    elem: &'static str,
    map: Option<&'static FnMeta>,
) -> &'static OpMeta {
    let key = (
        "predicate",
        map.map(|m| m as *const FnMeta as usize).unwrap_or(0),
        &P::META as *const FnMeta as usize,
        elem,
    );
    gpu::composed(key, || {
        let pred = fragment(&P::META);
        let mapf = map.map(fragment);
        let source = kernels_gen::compose::predicate_module(elem, mapf.as_ref(), &pred);
        let name = match map {
            Some(m) => format!("{}_{}", m.name, P::META.name),
            None => P::META.name.to_string(),
        };
        (name, source, P::META.file.to_string(), P::META.line)
    })
}

impl Device {
    fn run_predicate<I, P, V>(&self, pred: P, input: &I, kind: PredKind) -> Result<PredOut<V>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        V: Element,
    {
        let s = input.elements();
        self.check_owner(s.vec)?;
        let Backend::Gpu(g) = &*self.backend else {
            unreachable!("GPU path only")
        };
        let Storage::Gpu(buf) = &s.vec.storage else {
            return Err(Error::DeviceMismatch);
        };
        let map = input.map_meta();
        let meta = predicate_module::<P>(I::Elem::NAME, map.map(|(m, _)| m));
        let args = join_args(map, Some((&P::META, pred.args())))?;
        g.predicate::<I::Elem, V>(meta, kind, &buf.slice(s.start..s.start + s.len), &args)
    }

    fn cpu_values<I: ElementInput + ?Sized>(&self, input: &I) -> Result<Vec<I::Value>> {
        self.cpu_map(input.elements(), |e, _| input.value(e))
    }

    /// How many values satisfy `pred`: ballot + popc per warp, then the block and grid
    /// combine; one pass over the input.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate]
    /// fn positive(x: f32) -> bool { x > 0.0 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1.0f32, -2.0, 3.0, f32::NAN])?;
    /// assert_eq!(dev.count(positive, &xs)?, 2);
    /// # Ok(()) }
    /// ```
    pub fn count<I, P>(&self, pred: P, input: &I) -> Result<u64>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        if input.elements().is_empty() {
            return Ok(0);
        }
        if !self.is_gpu() {
            return Ok(self
                .cpu_values(input)?
                .par_iter()
                .filter(|&&v| pred.test(v))
                .count() as u64);
        }
        match self.run_predicate::<I, P, u8>(pred, input, PredKind::Count)? {
            PredOut::Count(c) => Ok(c),
            _ => unreachable!("count returns a count"),
        }
    }

    /// Whether any value satisfies `pred` (warp votes; every warp stops reading once the
    /// answer is known).
    pub fn any<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, false)
    }

    /// Whether every value satisfies `pred` (true for an empty input).
    pub fn all<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, true).map(|any_fails| !any_fails)
    }

    fn vote<I, P>(&self, pred: P, input: &I, negate: bool) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        if input.elements().is_empty() {
            return Ok(false);
        }
        if !self.is_gpu() {
            return Ok(self
                .cpu_values(input)?
                .par_iter()
                .any(|&v| pred.test(v) != negate));
        }
        match self.run_predicate::<I, P, u8>(pred, input, PredKind::Any { negate })? {
            PredOut::Any(a) => Ok(a),
            _ => unreachable!("any returns a flag"),
        }
    }

    /// The index of the first value satisfying `pred`, if any (ballot + ffs; warps stop once a
    /// lower index is known).
    pub fn find_first<I, P>(&self, pred: P, input: &I) -> Result<Option<usize>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        if input.elements().is_empty() {
            return Ok(None);
        }
        if !self.is_gpu() {
            return Ok(self
                .cpu_values(input)?
                .par_iter()
                .position_first(|&v| pred.test(v)));
        }
        match self.run_predicate::<I, P, u8>(pred, input, PredKind::FindFirst)? {
            PredOut::First(i) => Ok(i.map(|i| i as usize)),
            _ => unreachable!("find_first returns an index"),
        }
    }

    /// One bit per value, set where `pred` holds: word `w` holds values `32w..32w+32`, bit `j`
    /// value `32w + j` (written straight from the warp ballots).
    pub fn mask<I, P>(&self, pred: P, input: &I) -> Result<DeviceVec<u32>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let n = input.elements().len();
        if n == 0 || !self.is_gpu() {
            let values = if n == 0 {
                Vec::new()
            } else {
                self.cpu_values(input)?
            };
            let words: Vec<u32> = values
                .par_chunks(32)
                .map(|c| {
                    c.iter()
                        .enumerate()
                        .fold(0u32, |w, (j, &v)| w | ((pred.test(v) as u32) << j))
                })
                .collect();
            return self.upload(&words);
        }
        match self.run_predicate::<I, P, u8>(pred, input, PredKind::Mask)? {
            PredOut::Mask(words) => Ok(DeviceVec::from_storage(
                self,
                Storage::Gpu(words),
                n.div_ceil(32),
            )),
            _ => unreachable!("mask returns words"),
        }
    }

    /// The values satisfying `pred`, in input order, as a new array of exactly their number:
    /// single-pass compaction (ballot + popc for each lane's slot, a block scan of warp counts,
    /// decoupled look-back between blocks).
    pub fn filter<I, P>(&self, pred: P, input: &I) -> Result<DeviceVec<I::Value>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Value: Element,
    {
        self.compact(pred, input, false).map(|(kept, _)| kept)
    }

    /// The values satisfying `pred` and the others, each in input order, in one pass.
    pub fn partition<I, P>(&self, pred: P, input: &I) -> Result<Split<I::Value>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Value: Element,
    {
        self.compact(pred, input, true)
            .map(|(kept, rejected)| (kept, rejected.expect("partition returns both")))
    }

    #[allow(clippy::type_complexity)] // (kept, rejected when partitioning)
    fn compact<I, P>(
        &self,
        pred: P,
        input: &I,
        partition: bool,
    ) -> Result<(DeviceVec<I::Value>, Option<DeviceVec<I::Value>>)>
    // (kept, rejected when partitioning)
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Value: Element,
    {
        let n = input.elements().len();
        if n == 0 || !self.is_gpu() {
            let values = if n == 0 {
                Vec::new()
            } else {
                self.cpu_values(input)?
            };
            let kept: Vec<I::Value> = values
                .par_iter()
                .copied()
                .filter(|&v| pred.test(v))
                .collect();
            let rejected = partition.then(|| {
                values
                    .par_iter()
                    .copied()
                    .filter(|&v| !pred.test(v))
                    .collect::<Vec<_>>()
            });
            return Ok((
                self.upload(&kept)?,
                rejected.map(|r| self.upload(&r)).transpose()?,
            ));
        }
        match self.run_predicate::<I, P, I::Value>(pred, input, PredKind::Compact { partition })? {
            PredOut::Compact {
                kept,
                count,
                rejected,
            } => {
                let count = count as usize;
                let kept = DeviceVec::from_storage(self, Storage::Gpu(kept), count);
                let rejected =
                    rejected.map(|r| DeviceVec::from_storage(self, Storage::Gpu(r), n - count));
                Ok((kept, rejected))
            }
            _ => unreachable!("compaction returns arrays"),
        }
    }

    /// `op` over `map` of the input, fused: one kernel, one read (`reduce(op, &xs.map(map))`).
    pub fn map_reduce<M, Op, S>(&self, map: M, op: Op, input: &S) -> Result<Op::Value>
    where
        M: MapOp<Output = Op::Value>,
        Op: ReduceOp,
        S: AsSlice<M::Input> + ?Sized,
    {
        self.reduce(op, &input.as_view().map(map))
    }
}

/// The two halves of a partition: (kept, rejected), each in input order.
pub type Split<T> = (DeviceVec<T>, DeviceVec<T>);

/// Arrays and views, for [`Device::map_reduce`].
pub trait AsSlice<T: Element>: sealed::Sealed {
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

impl<M, Op> ReduceInput<Op> for Mapped<'_, M>
where
    M: MapOp<Output = Op::Value>,
    Op: ReduceOp,
{
    fn run_reduce(&self, device: &Device, op: Op) -> Result<Op::Value> {
        let s = self.slice;
        device.check_owner(s.vec)?;
        if s.is_empty() {
            return Ok(op.identity());
        }
        match (&*device.backend, &s.vec.storage) {
            (Backend::Cpu, Storage::Cpu(v)) => {
                let map = self.map;
                let partials: Vec<Op::Value> = v[s.start..s.start + s.len]
                    .par_chunks(crate::cpu::CHUNK)
                    .map(|c| {
                        c.iter()
                            .fold(op.identity(), |a, &x| op.combine(a, map.apply(x)))
                    })
                    .collect();
                Ok(partials
                    .into_iter()
                    .fold(op.identity(), |a, x| op.combine(a, x)))
            }
            (Backend::Gpu(g), Storage::Gpu(buf)) => {
                let meta = map_reduce_module::<M, Op>();
                let args = join_args(Some((&M::META, self.map.args())), None)?;
                g.reduce_with::<Op::Value, M::Input>(
                    meta,
                    kernels_gen::compose::MAP_REDUCE_KERNEL,
                    &buf.slice(s.start..s.start + s.len),
                    Some(&args),
                )
            }
            _ => Err(Error::DeviceMismatch),
        }
    }
}

/// The fused map-reduce module of `Op` over `M`'s results: composed once per combination.
pub fn map_reduce_module<M: MapOp, Op: ReduceOp>() -> &'static OpMeta {
    let key = (
        "map_reduce",
        &M::META as *const FnMeta as usize,
        &Op::META as *const OpMeta as usize,
        M::Input::NAME,
    );
    gpu::composed(key, || {
        let o = &Op::META;
        let opf = reduce_fragment(o);
        let source =
            kernels_gen::compose::map_reduce_module(M::Input::NAME, &fragment(&M::META), &opf);
        (
            format!("{}_{}", M::META.name, o.name),
            source,
            M::META.file.to_string(),
            M::META.line,
        )
    })
}
