//! Predicates: `count`, `any`, `all`, `find_first`, `mask`, `filter` and `partition` over
//! arrays, views and mapped views (votes, ballot counting, single-pass compaction).

use std::sync::Arc;

use cudarc::driver::CudaView;

use super::{join_args, predicate_key, predicate_module};
use crate::arrays::{DeviceVec, Storage};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{Gpu, Module, Staged};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::ElementInput;
use crate::operators::Predicate;
use crate::values::Element;

/// A predicate launch: the GPU, the module, the elements, the bound arguments.
struct PredLaunch<'a, E> {
    gpu: &'a Gpu,
    module: Arc<Module>,
    input: CudaView<'a, E>,
    args: [u64; 8],
}

impl<'a, E> PredLaunch<'a, E> {
    fn staged(&self) -> Staged<'_, 'a, E> {
        Staged {
            module: &self.module,
            input: self.input.slice(..),
            args: self.args,
        }
    }
}

/// The two halves of a partition: (kept, rejected), each in input order.
pub type Split<T> = (DeviceVec<T>, DeviceVec<T>);

impl Device {
    /// The GPU, the module and the bound arguments of `pred` over `input`.
    fn staged<'a, I, P>(&'a self, pred: P, input: &'a I) -> Result<PredLaunch<'a, I::Elem>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let gpu = self.gpu()?;
        Ok(PredLaunch {
            gpu,
            module: gpu.module(predicate_key::<P, I>(), predicate_module::<P, I>)?,
            input: input.elements().gpu()?,
            args: join_args(
                I::MAP.map(|m| (m, input.args())),
                Some((&P::META, pred.args())),
            )?,
        })
    }

    /// The elements of `input` on the CPU backend, checked to be this device's: `None` on a
    /// GPU. An error when `input` is another device's.
    fn predicate_input<'a, I: ElementInput + ?Sized>(
        &self,
        input: &'a I,
    ) -> Result<Option<&'a [I::Elem]>> {
        let view = input.elements();
        self.check_owner(&view)?;
        match &*self.backend {
            Backend::Cpu => Ok(Some(view.cpu()?)),
            Backend::Gpu(_) => Ok(None),
        }
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
        let cpu = self.predicate_input(input)?;
        if input.elements().is_empty() {
            return Ok(0);
        }
        if let Some(data) = cpu {
            return Ok(cpu::count(data, |e, _| input.value(e), |v| pred.test(v)));
        }
        let l = self.staged(pred, input)?;
        l.gpu.count(l.staged())
    }

    /// Whether any value satisfies `pred` (warp votes; every warp stops reading once the
    /// answer is known). False for an empty input.
    pub fn any<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, false)
    }

    /// Whether every value satisfies `pred` (true for an empty input); stops early at the
    /// first value that does not.
    pub fn all<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        self.vote(pred, input, true).map(|any_fails| !any_fails)
    }

    /// Whether any value's `pred` differs from `negate`.
    fn vote<I, P>(&self, pred: P, input: &I, negate: bool) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let cpu = self.predicate_input(input)?;
        if input.elements().is_empty() {
            return Ok(false);
        }
        if let Some(data) = cpu {
            return Ok(cpu::any(
                data,
                |e, _| input.value(e),
                |v| pred.test(v) != negate,
            ));
        }
        let l = self.staged(pred, input)?;
        l.gpu.any(l.staged(), negate)
    }

    /// The index of the first value satisfying `pred`, if any (ballot + ffs; warps stop once a
    /// lower index is known).
    pub fn find_first<I, P>(&self, pred: P, input: &I) -> Result<Option<usize>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let cpu = self.predicate_input(input)?;
        if input.elements().is_empty() {
            return Ok(None);
        }
        if let Some(data) = cpu {
            return Ok(cpu::find_first(
                data,
                |e, _| input.value(e),
                |v| pred.test(v),
            ));
        }
        let l = self.staged(pred, input)?;
        Ok(l.gpu.find_first(l.staged())?.map(|i| i as usize))
    }

    /// One bit per value, set where `pred` holds: word `w` holds values `32w..32w+32`, bit `j`
    /// value `32w + j` (written straight from the warp ballots); bits past the last value are
    /// 0.
    pub fn mask<I, P>(&self, pred: P, input: &I) -> Result<DeviceVec<u32>>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let cpu = self.predicate_input(input)?;
        let n = input.elements().len();
        if let Some(data) = cpu {
            return self.upload(&cpu::mask(data, |e, _| input.value(e), |v| pred.test(v)));
        }
        if n == 0 {
            return self.upload(&[]);
        }
        let l = self.staged(pred, input)?;
        let words = l.gpu.mask(l.staged())?;
        Ok(DeviceVec::from_storage(
            self,
            Storage::Gpu(words),
            n.div_ceil(32),
        ))
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
        let (kept, rejected) = self.compact(pred, input, true)?;
        // `compact` returns the rejected values when partitioning.
        let rejected = rejected.ok_or_else(|| {
            Error::Unsupported("internal: a partition without its rejected values".into())
        })?;
        Ok((kept, rejected))
    }

    /// (kept, rejected when partitioning).
    #[allow(clippy::type_complexity)]
    fn compact<I, P>(
        &self,
        pred: P,
        input: &I,
        partition: bool,
    ) -> Result<(DeviceVec<I::Value>, Option<DeviceVec<I::Value>>)>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
        I::Value: Element,
    {
        let cpu = self.predicate_input(input)?;
        let n = input.elements().len();
        if let Some(data) = cpu {
            let (kept, rejected) =
                cpu::compact(data, |e, _| input.value(e), |v| pred.test(v), partition);
            return Ok((
                self.upload(&kept)?,
                rejected.map(|r| self.upload(&r)).transpose()?,
            ));
        }
        if n == 0 {
            return Ok((
                self.upload(&[])?,
                partition.then(|| self.upload(&[])).transpose()?,
            ));
        }
        let l = self.staged(pred, input)?;
        let c = l.gpu.compact::<I::Elem, I::Value>(l.staged(), partition)?;
        let count = c.count as usize;
        let kept = DeviceVec::from_storage(self, Storage::Gpu(c.kept), count);
        let rejected = c
            .rejected
            .map(|r| DeviceVec::from_storage(self, Storage::Gpu(r), n - count));
        Ok((kept, rejected))
    }
}
