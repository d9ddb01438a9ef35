//! Predicates: `count`, `any`, `all`, `find_first` (and their `_on_device` forms), `mask`, `argwhere`,
//! `filter` and `partition` (and their `_into` forms) over arrays, views, the caller's cudarc
//! memory and mapped views (votes, ballot counting, single-pass compaction).

use std::sync::Arc;

use super::gpu_bytes;
use super::keys::*;
use crate::arrays::{DeviceScalar, DeviceVec, OutputArray, Readout, Target};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{CompactOut, Gpu, Module, Staged};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{ElementInput, element_stage};
use crate::operators::Predicate;
use crate::values::{DeviceValue, Element, IndexInt};

/// The two halves of a partition: (kept, rejected), each in input order.
pub type Split<T> = (DeviceVec<T>, DeviceVec<T>);

/// The three parts of a three-way partition: (first, second, rest), each in input order.
pub type Split3<T> = (DeviceVec<T>, DeviceVec<T>, DeviceVec<T>);

/// Which vote.
#[derive(Clone, Copy)]
enum Vote {
    Any,
    All,
}

impl Device {
    /// Validates a predicate's input once.
    fn pred_input<'a, I, P>(&self, pred: &P, input: &'a I) -> Result<Checked<'a, I::Elem>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        Ok(self
            .element_prologue(input, &[pred.args()])?
            .admitting_count())
    }

    /// Runs `launch` with the predicate module of `P` over `I` on GPU `g`.
    fn pred_launch<I, P, R>(
        &self,
        g: &Gpu,
        p: &Checked<'_, I::Elem>,
        launch: impl FnOnce(Staged<'_, '_>) -> Result<R>,
    ) -> Result<R>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.pred_launch_with::<I, P, (), R>(g, p, launch)
    }

    /// [`Device::pred_launch`] with the module whose compaction writes what `Pos` says: `()`,
    /// the input's kept values; an index type, the values' positions (`argwhere`).
    fn pred_launch_with<I, P, Pos, R>(
        &self,
        g: &Gpu,
        p: &Checked<'_, I::Elem>,
        launch: impl FnOnce(Staged<'_, '_>) -> Result<R>,
    ) -> Result<R>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        Pos: PositionsOf,
    {
        let module: Arc<Module> = g.module(predicate_key::<P, I, Pos>(), || {
            predicate_module_with::<P, I>(Pos::PICK)
        })?;
        self.with_input(g, &p.elems, &p.args, |input, args| {
            launch(Staged {
                module: &module,
                input,
                args,
            })
        })
    }

    /// How many values satisfy `pred`: ballot + popc per warp, then the block and grid
    /// combine; one pass over the input. Waits for the result
    /// ([`Device::count_on_device`] does not).
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
        self.count_scalar(pred, input, true)?.get()
    }

    /// [`Device::count`], the result left on the device without waiting (see
    /// [`DeviceScalar`]).
    pub fn count_on_device<I, P>(&self, pred: P, input: &I) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.count_scalar(pred, input, false)
    }

    /// The count into a result slot: `wait`: one in mapped host memory (the host reads it
    /// next), else one in device memory.
    fn count_scalar<I, P>(&self, pred: P, input: &I, wait: bool) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let p = self.pred_input(&pred, input)?;
        if p.elems.is_empty() {
            return self.scalar_of(0u64);
        }
        match &*self.backend {
            Backend::Cpu => {
                let c = cpu::count(p.elems.cpu()?, |e, _| input.value(e), |v| pred.test(v));
                self.scalar_of(c)
            }
            Backend::Gpu(g) => {
                let slot = if wait { g.signalled_slot()? } else { g.slot()? };
                self.pred_launch::<I, P, _>(g, &p, |s| g.count(s, &slot))?;
                Ok(DeviceScalar::on_gpu(self, slot))
            }
        }
    }

    /// Whether any value satisfies `pred` (warp votes; every warp stops reading once the
    /// answer is known). False for an empty input. Waits for the result.
    pub fn any<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, Vote::Any, false)?.value()
    }

    /// [`Device::any`], the result left on the device without waiting.
    pub fn any_on_device<I, P>(&self, pred: P, input: &I) -> Result<DeviceScalar<bool>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, Vote::Any, true)?.scalar(self)
    }

    /// Whether every value satisfies `pred` (true for an empty input); stops early at the
    /// first value that does not. Waits for the result.
    pub fn all<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, Vote::All, false)?.value()
    }

    /// [`Device::all`], the result left on the device without waiting.
    pub fn all_on_device<I, P>(&self, pred: P, input: &I) -> Result<DeviceScalar<bool>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, Vote::All, true)?.scalar(self)
    }

    /// A vote; `on_device`: the result left in device memory, else in mapped host memory (read
    /// next, without a copy).
    fn vote<I, P>(&self, pred: P, input: &I, vote: Vote, on_device: bool) -> Result<Answer<bool>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let p = self.pred_input(&pred, input)?;
        // `all` is "no value fails": a vote for a value that does not satisfy `pred`.
        let negate = matches!(vote, Vote::All);
        if p.elems.is_empty() {
            return Ok(Answer::Host(negate));
        }
        match &*self.backend {
            Backend::Cpu => {
                let hit = cpu::any(
                    p.elems.cpu()?,
                    |e, _| input.value(e),
                    |v| pred.test(v) != negate,
                );
                Ok(Answer::Host(hit != negate))
            }
            Backend::Gpu(g) => {
                let slot = if on_device {
                    g.slot()?
                } else {
                    g.signalled_slot()?
                };
                self.pred_launch::<I, P, _>(g, &p, |s| g.any(s, negate, &slot))?;
                Ok(Answer::Device(DeviceScalar::on_gpu(self, slot)))
            }
        }
    }

    /// The index of the first value satisfying `pred`, if any (ballot + ffs; warps stop once a
    /// lower index is known). Waits for the result.
    pub fn find_first<I, P>(&self, pred: P, input: &I) -> Result<Option<usize>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.first(pred, input, false)?.value()
    }

    /// [`Device::find_first`], the result left on the device without waiting.
    pub fn find_first_on_device<I, P>(
        &self,
        pred: P,
        input: &I,
    ) -> Result<DeviceScalar<Option<usize>>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.first(pred, input, true)?.scalar(self)
    }

    /// `find_first`; `on_device`: the result left in device memory, else in mapped host memory.
    fn first<I, P>(&self, pred: P, input: &I, on_device: bool) -> Result<Answer<Option<usize>>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let p = self.pred_input(&pred, input)?;
        if p.elems.is_empty() {
            return Ok(Answer::Host(None));
        }
        match &*self.backend {
            Backend::Cpu => Ok(Answer::Host(cpu::find_first(
                p.elems.cpu()?,
                |e, _| input.value(e),
                |v| pred.test(v),
            ))),
            Backend::Gpu(g) => {
                let slot = if on_device { g.slot()? } else { g.host_slot()? };
                self.pred_launch::<I, P, _>(g, &p, |s| g.find_first(s, &slot))?;
                Ok(Answer::Device(DeviceScalar::on_gpu(self, slot)))
            }
        }
    }

    /// One bit per value, set where `pred` holds: word `w` holds values `32w..32w+32`, bit `j`
    /// value `32w + j` (written straight from the warp ballots); bits past the last value are
    /// 0. Returns without waiting for the kernel.
    pub fn mask<I, P>(&self, pred: P, input: &I) -> Result<DeviceVec<u32>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let words = input.elements().len().div_ceil(32);
        let mut out = self.new_array::<u32>(words)?;
        self.mask_into(pred, input, &mut out)?;
        Ok(out)
    }

    /// [`Device::mask`] into `out` (`ceil(n / 32)` words), allocating nothing.
    pub fn mask_into<I, P, O>(&self, pred: P, input: &I, out: &mut O) -> Result<()>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        O: OutputArray<u32> + ?Sized,
    {
        // Not through `pred_input`: the mask's words cover the whole input, so a device-resident
        // length is refused (`columns` and `cpu` say so).
        let p = self.element_prologue(input, &[pred.args()])?;
        let words = p.elems.len().div_ceil(32);
        let target = self.output(out, words, "mask")?;
        if p.elems.is_empty() {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                let m = cpu::mask(p.elems.cpu()?, |e, _| input.value(e), |v| pred.test(v));
                crate::arrays::write_host(bytes, &m);
                Ok(())
            }
            Target::Gpu(mut bytes, _) => {
                let g = self.gpu()?;
                // SAFETY: the words' bytes viewed as words again (the view is 4-byte aligned,
                // `words` of them).
                let view = unsafe { bytes.transmute_mut::<u32>(words) }
                    .ok_or_else(|| Error::Shape("mask output too small".into()))?;
                self.pred_launch::<I, P, _>(g, &p, |s| g.mask(s, view))
            }
        }
    }

    /// The positions of the values satisfying `pred`, in increasing order, as `u32` indices
    /// (NumPy's `flatnonzero`, PyTorch's `nonzero` of a mask, `filter` of `indexed()` keeping
    /// the index): one pass, the positions made in registers (nothing else is written), the
    /// compaction of [`Device::filter`]. Positions count from the input's start (a view's
    /// first element is 0). Waits for the count. Inputs with a position above `u32::MAX`
    /// (more than 2^32 elements) are an [`Error::Shape`]: use [`Device::argwhere_into`] with
    /// `u64` positions.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate]
    /// fn above(x: f32, t: f32) -> bool { x > t }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[0.95f32, 0.2, f32::NAN, 0.91, 0.5])?;
    /// assert_eq!(dev.argwhere(above.with(0.9), &xs)?.download()?, [0, 3]); // NaN > t is false
    /// let tail = xs.slice(2..)?;
    /// assert_eq!(dev.argwhere(above.with(0.9), &tail)?.download()?, [1]);
    /// # Ok(()) }
    /// ```
    pub fn argwhere<I, P>(&self, pred: P, input: &I) -> Result<DeviceVec<u32>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let n = input.elements().len();
        let mut out = self.new_array::<u32>(n)?;
        let count = self.argwhere_into(pred, input, &mut out)?.get()? as usize;
        out.truncate(count);
        Ok(out)
    }

    /// [`Device::argwhere`] into `out` (room for every input position: at least as many as
    /// the input, else [`Error::Shape`]), positions of any index type `Ix` (`u32`, `u64`,
    /// `i32`, `i64`, ...; an input with a position above `Ix`'s largest value is an
    /// [`Error::Shape`]): the positions are the first `count` of `out`, `count` a result left
    /// on the device (the rest of `out` is unspecified). Allocates nothing, waits for nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate]
    /// fn odd(x: i32) -> bool { x % 2 != 0 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[3i32, 4, -5, 8, 9])?;
    /// let mut at = dev.upload(&vec![0u64; xs.len()])?;
    /// let count = dev.argwhere_into(odd, &xs, &mut at)?.get()? as usize;
    /// assert_eq!(&at.download()?[..count], [0, 2, 4]);
    /// # Ok(()) }
    /// ```
    pub fn argwhere_into<I, P, Ix, O>(
        &self,
        pred: P,
        input: &I,
        out: &mut O,
    ) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        Ix: IndexInt,
        O: OutputArray<Ix> + ?Sized,
    {
        let n = input.elements().len() as u64;
        if n > 0 && n - 1 > Ix::MAX_INDEX {
            return Err(Error::Shape(format!(
                "argwhere: {n} positions do not fit `{}` (at most {})",
                Ix::NAME,
                Ix::MAX_INDEX
            )));
        }
        self.compact_with::<I, P, Ix, Ix, O>(pred, input, out, None, |_, i| Ix::from_index(i))
    }

    /// The values satisfying `pred`, in input order, as a new array of exactly their number:
    /// single-pass compaction (ballot + popc for each lane's slot, a block scan of warp counts,
    /// decoupled look-back between blocks). Waits for the count. Over zipped arrays made by
    /// [`Zip::keep`](crate::Zip::keep), `(&a, &b).keep::<K>()`, it keeps array `K`'s elements
    /// of the rows that satisfy `pred`.
    pub fn filter<I, P>(&self, pred: P, input: &I) -> Result<DeviceVec<I::Kept>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Kept: Element,
    {
        let n = input.elements().len();
        let mut kept = self.new_array::<I::Kept>(n)?;
        let count = self.compact_into(pred, input, &mut kept, None)?.get()? as usize;
        kept.truncate(count);
        Ok(kept)
    }

    /// The values satisfying `pred` and the others, each in input order, in one pass. Waits
    /// for the count.
    pub fn partition<I, P>(&self, pred: P, input: &I) -> Result<Split<I::Kept>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Kept: Element,
    {
        let n = input.elements().len();
        let mut kept = self.new_array::<I::Kept>(n)?;
        let mut rejected = self.new_array::<I::Kept>(n)?;
        let count = self
            .compact_into(pred, input, &mut kept, Some(&mut rejected))?
            .get()? as usize;
        kept.truncate(count);
        rejected.truncate(n - count);
        Ok((kept, rejected))
    }

    /// [`Device::filter`] into `out`, which has room for every input value (at least as many
    /// as the input): the kept values are its first `count` ones, `count` a result left on the
    /// device (the rest of `out` is unspecified). Allocates nothing, waits for nothing.
    pub fn filter_into<I, P, O>(&self, pred: P, input: &I, out: &mut O) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Kept: Element,
        O: OutputArray<I::Kept> + ?Sized,
    {
        self.compact_into(pred, input, out, None)
    }

    /// [`Device::partition`] into `kept` and `rejected`, each with room for every input value:
    /// the kept values are the first `count` of `kept`, the others the first `n - count` of
    /// `rejected`, `count` a result left on the device. Allocates nothing, waits for nothing.
    pub fn partition_into<I, P, O>(
        &self,
        pred: P,
        input: &I,
        kept: &mut O,
        rejected: &mut O,
    ) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Kept: Element,
        O: OutputArray<I::Kept> + ?Sized,
    {
        self.compact_into(pred, input, kept, Some(rejected))
    }

    /// Three-way partition, order-preserving, in one pass (CUB's `DevicePartition::If` with
    /// two selectors): the values `first` keeps, then those it rejects and `second` keeps,
    /// then the others, each part in input order and exactly as long as its values. Ballots
    /// rank each value within its warp's part; one look-back word per tile carries both
    /// counts. Inputs of 2^31 elements or more are [`Error::Unsupported`]. Over zipped arrays
    /// made by [`Zip::keep`](crate::Zip::keep) it keeps that array's elements. Waits for the
    /// counts.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate]
    /// fn below(x: f32, t: f32) -> bool { x < t }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[0.5f32, -2.0, 3.0, -0.5, 1.5, f32::NAN])?;
    /// let (low, mid, high) = dev.partition3(below.with(0.0), below.with(1.0), &xs)?;
    /// assert_eq!(low.download()?, [-2.0, -0.5]);
    /// assert_eq!(mid.download()?, [0.5]);
    /// assert_eq!(high.download()?.len(), 3); // 3.0, 1.5 and NaN (below nothing)
    /// # Ok(()) }
    /// ```
    pub fn partition3<I, P1, P2>(&self, first: P1, second: P2, input: &I) -> Result<Split3<I::Kept>>
    where
        I: ElementInput + ?Sized,
        P1: Predicate<Input = I::Value>,
        P2: Predicate<Input = I::Value>,
        I::Kept: Element,
    {
        let Checked { elems, args } =
            self.element_prologue(input, &[first.args(), second.args()])?;
        let n = elems.len();
        let limit = 1usize << warp_kernels::catalogue::PARTITION3_SHIFT;
        if n >= limit {
            return Err(Error::Unsupported(format!(
                "partition3 takes inputs below 2^31 elements; this one has {n}"
            )));
        }
        match &*self.backend {
            Backend::Cpu => {
                let [a, b, c] = cpu::partition3(
                    elems.cpu()?,
                    |e, _| input.value(e),
                    |v| first.test(v),
                    |v| second.test(v),
                    I::kept,
                );
                Ok((self.upload(&a)?, self.upload(&b)?, self.upload(&c)?))
            }
            Backend::Gpu(g) => {
                let mut parts = [
                    self.new_array::<I::Kept>(n)?,
                    self.new_array::<I::Kept>(n)?,
                    self.new_array::<I::Kept>(n)?,
                ];
                if n == 0 {
                    let [a, b, c] = parts;
                    return Ok((a, b, c));
                }
                let module = g.module(
                    partition3_key::<P1, P2, I>(),
                    partition3_module::<P1, P2, I>,
                )?;
                let slot = g.host_slot()?;
                {
                    let [a, b, c] = &mut parts;
                    let bytes = [a.gpu_bytes_mut()?, b.gpu_bytes_mut()?, c.gpu_bytes_mut()?];
                    self.with_input(g, &elems, &args, |input, args| {
                        g.partition3(
                            Staged {
                                module: &module,
                                input,
                                args,
                            },
                            bytes,
                            &slot,
                        )
                    })?;
                }
                let packed = DeviceScalar::<u64>::on_gpu(self, slot).get()?;
                let low = (1u64 << warp_kernels::catalogue::PARTITION3_SHIFT) - 1;
                let (c1, c2) = (
                    (packed & low) as usize,
                    (packed >> warp_kernels::catalogue::PARTITION3_SHIFT) as usize,
                );
                let [mut a, mut b, mut c] = parts;
                a.truncate(c1);
                b.truncate(c2);
                c.truncate(n - c1 - c2);
                Ok((a, b, c))
            }
        }
    }

    fn compact_into<I, P, O>(
        &self,
        pred: P,
        input: &I,
        kept: &mut O,
        rejected: Option<&mut O>,
    ) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Kept: Element,
        O: OutputArray<I::Kept> + ?Sized,
    {
        self.compact_with::<I, P, (), I::Kept, O>(pred, input, kept, rejected, |v, _| I::kept(v))
    }

    /// The one body of the compactions: what `Pos` says (the kept values, or their positions)
    /// into `kept` (and the others' into `rejected`), `out` making it on the CPU.
    fn compact_with<I, P, Pos, K, O>(
        &self,
        pred: P,
        input: &I,
        kept: &mut O,
        rejected: Option<&mut O>,
        out: impl Fn(I::Value, u64) -> K + Sync,
    ) -> Result<DeviceScalar<u64>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        Pos: PositionsOf,
        K: Element,
        O: OutputArray<K> + ?Sized,
    {
        let p = self.pred_input(&pred, input)?;
        let n = p.elems.len();
        let room = |o: &O| {
            if o.len() < n {
                Err(Error::Shape(format!(
                    "a compaction output holds {} values; the input has {n}",
                    o.len()
                )))
            } else {
                Ok(o.len())
            }
        };
        let kept_t = {
            let len = room(kept)?;
            self.output(kept, len, "filter")?
        };
        let rejected_t = match rejected {
            Some(r) => {
                let len = room(r)?;
                Some(self.output(r, len, "partition")?)
            }
            None => None,
        };
        if n == 0 {
            return self.scalar_of(0u64);
        }
        match &*self.backend {
            Backend::Cpu => {
                let (k, r) = cpu::compact(
                    p.elems.cpu()?,
                    |e, i| (input.value(e), i),
                    |(v, _)| pred.test(v),
                    |(v, i)| out(v, i),
                    rejected_t.is_some(),
                );
                write_values(kept_t, &k)?;
                if let (Some(t), Some(r)) = (rejected_t, r) {
                    write_values(t, &r)?;
                }
                self.scalar_of(k.len() as u64)
            }
            Backend::Gpu(g) => {
                let out = CompactOut {
                    kept: gpu_bytes(kept_t)?,
                    rejected: rejected_t.map(gpu_bytes).transpose()?,
                };
                // In device memory for later kernels, mirrored to the host for `get`.
                let slot = g.mirrored_slot()?;
                self.pred_launch_with::<I, P, Pos, _>(g, &p, |s| g.compact(s, out, &slot))?;
                Ok(DeviceScalar::on_gpu(self, slot))
            }
        }
    }
}

/// What a compaction module writes of the values it keeps: `()` the values themselves (or the
/// field its input keeps), an index type their positions.
#[doc(hidden)]
pub trait PositionsOf: 'static {
    /// The module's pick, given the input's own (`None`: the value, `Some(k)`: field `k`).
    const PICK: Option<warp_kernels::Scalar>;
}

impl PositionsOf for () {
    const PICK: Option<warp_kernels::Scalar> = None;
}

impl<Ix: IndexInt> PositionsOf for Ix {
    const PICK: Option<warp_kernels::Scalar> = Some(Ix::SCALAR);
}

/// Writes values computed on the CPU at the start of a CPU target.
pub(super) fn write_values<V: DeviceValue>(t: Target<'_>, values: &[V]) -> Result<()> {
    match t {
        Target::Cpu(bytes, _) => {
            crate::arrays::write_host(bytes, values);
            Ok(())
        }
        Target::Gpu(..) => Err(Error::DeviceMismatch),
    }
}

/// A result read back, or left on the device.
enum Answer<T> {
    Host(T),
    Device(DeviceScalar<T>),
}

impl<T: Readout + DeviceValue> Answer<T> {
    fn value(self) -> Result<T> {
        match self {
            Answer::Host(v) => Ok(v),
            Answer::Device(s) => s.get(),
        }
    }

    fn scalar(self, device: &Device) -> Result<DeviceScalar<T>> {
        match self {
            Answer::Host(v) => device.scalar_of(v),
            Answer::Device(s) => Ok(s),
        }
    }
}

impl Answer<Option<usize>> {
    fn value(self) -> Result<Option<usize>> {
        match self {
            Answer::Host(v) => Ok(v),
            Answer::Device(s) => s.get(),
        }
    }

    fn scalar(self, device: &Device) -> Result<DeviceScalar<Option<usize>>> {
        match self {
            // The device form is the complement of the index, 0 for none.
            Answer::Host(v) => Ok(device.scalar_of(v.map_or(0u64, |i| !(i as u64)))?.retype()),
            Answer::Device(s) => Ok(s),
        }
    }
}

/// The key of the predicate module of `P` over inputs `I` whose compaction writes what `Pos`
/// says (`()`: the values; an index type: their positions).
pub(crate) fn predicate_key<P: Predicate, I: ElementInput + ?Sized, Pos: PositionsOf>() -> ModuleKey
{
    ModuleKey::new(
        ModuleKind::Predicate,
        [
            TypeId::of::<P>(),
            TypeId::of::<(I::Map, Pos)>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of the predicate operations (`count`, `any`, `all`, `find_first`, `mask`,
/// `filter`, `partition`) of a predicate of type `P` over inputs of type `I`.
pub fn predicate_module<P: Predicate, I: ElementInput<Value = P::Input> + ?Sized>() -> ModuleSource
{
    predicate_module_with::<P, I>(None)
}

/// The CUDA module of `argwhere` with a predicate of type `P` over inputs of type `I`, the
/// positions of type `Ix`: the predicate module whose compaction writes positions.
pub fn argwhere_module<P, I, Ix>() -> ModuleSource
where
    P: Predicate,
    I: ElementInput<Value = P::Input> + ?Sized,
    Ix: IndexInt,
{
    predicate_module_with::<P, I>(Some(Ix::SCALAR))
}

/// [`predicate_module`] whose compaction writes the kept values' positions as `positions`
/// (`argwhere`), or the values (`None`).
pub(crate) fn predicate_module_with<P, I>(positions: Option<warp_kernels::Scalar>) -> ModuleSource
where
    P: Predicate,
    I: ElementInput<Value = P::Input> + ?Sized,
{
    let p: &FnMeta = &P::META;
    let stage = element_stage(I::MAP, I::ORIGIN);
    let text = input_source(stage, <I::Elem as Row>::COLUMNS, I::THEN, None, |s| {
        module::predicate_module(&p.fragment, s, pick(I::KEEP, positions))
    });
    let name = match I::MAP {
        Some(m) => format!("{}_{}", &m.fragment.name, &p.fragment.name),
        None => p.fragment.name.to_string(),
    };
    composed(
        location(&name, &p.fragment.file, p.fragment.line),
        text,
        false,
    )
}

/// The key of the three-way partition module of `P1` and `P2` over inputs `I`.
pub(crate) fn partition3_key<P1: Predicate, P2: Predicate, I: ElementInput + ?Sized>() -> ModuleKey
{
    ModuleKey::new(
        ModuleKind::Partition3,
        [
            TypeId::of::<(P1, P2)>(),
            TypeId::of::<I::Map>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of `partition3` with predicates of types `P1` (the first part) and `P2`
/// (the second) over inputs of type `I`.
pub fn partition3_module<P1, P2, I>() -> ModuleSource
where
    P1: Predicate,
    P2: Predicate<Input = P1::Input>,
    I: ElementInput<Value = P1::Input> + ?Sized,
{
    let (p, q): (&FnMeta, &FnMeta) = (&P1::META, &P2::META);
    let stage = element_stage(I::MAP, I::ORIGIN);
    let text = input_source(stage, <I::Elem as Row>::COLUMNS, I::THEN, None, |s| {
        module::partition3_module(&p.fragment, &q.fragment, s, pick(I::KEEP, None))
    });
    composed(
        location(
            &format!("partition3_{}_{}", &p.fragment.name, &q.fragment.name),
            &p.fragment.file,
            p.fragment.line,
        ),
        text,
        false,
    )
}

/// What a compaction module writes: the positions (`argwhere`), else field `keep` of a
/// zipped element, else the value.
fn pick(keep: Option<usize>, positions: Option<warp_kernels::Scalar>) -> module::Pick {
    match (positions, keep) {
        (Some(ix), _) => module::Pick::Position(ix),
        (None, Some(k)) => module::Pick::Field(k),
        (None, None) => module::Pick::Value,
    }
}
