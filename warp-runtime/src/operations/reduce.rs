//! Reductions: `reduce` over arrays, views, the caller's cudarc memory, `(element, index)`
//! pairs and mapped views, `map_reduce` (its fused spelling), their `_on_device` forms, which
//! leave the result on the device without waiting, and `reduce_into` the caller's memory.

use super::gpu_bytes;
use super::keys::*;
use crate::arrays::{DeviceScalar, OutputArray, Target, write_host};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::Staged;
use crate::backend::cuda::launch::Values;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{AsSlice, ReduceInput, mapped};
use crate::operators::{MapOp, ReduceOp};
use crate::values::DeviceValue;

impl Device {
    /// Reduces `input` with `op`: one pass over the data (warp shuffles, a block combine, a
    /// grid combine in the same launch on the GPU). The input is a `DeviceVec`, a view of one,
    /// the caller's `CudaSlice`/`CudaView`, `xs.indexed()` for `(value, index)` operators
    /// such as argmax, or `xs.map(f)` (the map fused into the same pass). Empty input gives
    /// the identity. Deterministic: the same input gives the same bits on the same device.
    /// Waits for the result ([`Device::reduce_on_device`] does not).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    ///
    /// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
    /// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    ///     // NaN-propagating like NumPy: NaN is the largest; ties go to the smallest index.
    ///     let b_wins = if a.0.is_nan() || b.0.is_nan() {
    ///         b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
    ///     } else {
    ///         b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
    ///     };
    ///     if b_wins { b } else { a }
    /// }
    ///
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[3.0f32, 9.0, 1.0, 9.0])?;
    /// assert_eq!(dev.reduce(argmax, &xs.indexed())?, (9.0, 1));
    /// let ys = dev.upload(&[3.0f32, f32::NAN, 9.0, f32::NAN])?;
    /// assert_eq!(dev.reduce(argmax, &ys.indexed())?.1, 1);      // the first NaN
    /// # Ok(()) }
    /// ```
    pub fn reduce<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>(
        &self,
        op: Op,
        input: &I,
    ) -> Result<Op::Value> {
        self.reduce_scalar(op, input, true)?.get()
    }

    /// [`Device::reduce`], the result left on the device: queues the kernel and returns
    /// without waiting. Read it with [`DeviceScalar::get`], or bind it as a parameter of a
    /// later map or predicate (`above.with(&total)`).
    pub fn reduce_on_device<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>(
        &self,
        op: Op,
        input: &I,
    ) -> Result<DeviceScalar<Op::Value>> {
        self.reduce_scalar(op, input, false)
    }

    /// [`Device::reduce`] written into the caller's memory: `out` holds exactly one value
    /// (a [`DeviceVec`](crate::DeviceVec) or [`DeviceTuples`](crate::DeviceTuples) of
    /// length 1, or a one-element cudarc `CudaSlice`/`CudaViewMut` of this device's context),
    /// so that the result can become a tensor with no host round trip. Queues the kernel and
    /// returns without waiting: work queued later on the device's stream sees the value, and
    /// cudarc's event tracking orders other streams' use of a `CudaSlice`. Empty input writes
    /// the identity. The same bits as [`Device::reduce`]. It allocates nothing, except for a
    /// scattered gather of a large array, whose partitioned copy of the indices it allocates
    /// and frees as [`Gathered`](crate::Gathered) says.
    ///
    /// Errors: [`Error::Shape`] when `out` does not hold exactly one value,
    /// [`Error::DeviceMismatch`] for memory of another device (as every operation's input
    /// errors).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    ///
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f32, b: f32) -> f32 { a + b }
    ///
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::auto()?;
    /// let xs = dev.upload(&[1.0f32, 2.0, 4.5])?;
    /// let mut total = dev.upload(&[0.0f32])?;   // or a one-element CudaSlice<f32>
    /// dev.reduce_into(sum, &xs, &mut total)?;
    /// assert_eq!(total.download()?, vec![7.5]);
    /// let mut two = dev.upload(&[0.0f32; 2])?;
    /// assert!(matches!(dev.reduce_into(sum, &xs, &mut two), Err(Error::Shape(_))));
    /// # Ok(()) }
    /// ```
    pub fn reduce_into<Op, I, O>(&self, op: Op, input: &I, out: &mut O) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let Checked { elems, args } = self.reduce_prologue(input)?.admitting_count();
        let target = self.output(out, 1, "reduce_into")?;
        match target {
            Target::Cpu(bytes, _) => {
                let v = if elems.is_empty() {
                    op.identity()
                } else {
                    cpu::reduce(&op, elems.cpu()?, values_of(&op, input))
                };
                write_host(bytes, &[v]);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let mut bytes = gpu_bytes(t)?;
                if elems.is_empty() {
                    let mut identity = vec![0u8; Op::Value::C_SIZE];
                    op.identity().write_c(&mut identity);
                    return g
                        .stream()
                        .memcpy_htod(&identity, &mut bytes)
                        .map_err(|e| Error::driver("writing a result", e));
                }
                let module = g.module(reduce_key::<Op, I>(), reduce_module::<Op, I>)?;
                self.with_input_any_order(g, &elems, &args, |input, args| {
                    g.reduce_to(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        Values::At(bytes.slice_mut(..)),
                        0,
                    )
                })
            }
        }
    }

    /// The reduction into a result slot: `wait`: one in mapped host memory (the host reads
    /// it next), else one in device memory.
    fn reduce_scalar<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>(
        &self,
        op: Op,
        input: &I,
        wait: bool,
    ) -> Result<DeviceScalar<Op::Value>> {
        let Checked { elems, args } = self.reduce_prologue(input)?.admitting_count();
        if elems.is_empty() {
            return self.scalar_of(op.identity());
        }
        match &*self.backend {
            Backend::Cpu => {
                let v = cpu::reduce(&op, elems.cpu()?, values_of(&op, input));
                let mut bytes = vec![0u8; Op::Value::C_SIZE];
                v.write_c(&mut bytes);
                Ok(DeviceScalar::on_host(self, &bytes))
            }
            Backend::Gpu(g) => {
                let module = g.module(reduce_key::<Op, I>(), reduce_module::<Op, I>)?;
                let slot = if wait { g.signalled_slot()? } else { g.slot()? };
                self.with_input_any_order(g, &elems, &args, |input, args| {
                    g.reduce(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        &slot,
                    )
                })?;
                Ok(DeviceScalar::on_gpu(self, slot))
            }
        }
    }

    /// `op` over `map` of the input, fused: one kernel, one read (`reduce(op, &xs.map(map))`).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn square(x: f32) -> f32 { x * x }
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f32, b: f32) -> f32 { a + b }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(dev.map_reduce(square, sum, &xs)?, 14.0);
    /// # Ok(()) }
    /// ```
    pub fn map_reduce<M, Op, S>(&self, map: M, op: Op, input: &S) -> Result<Op::Value>
    where
        M: MapOp<Output = Op::Value>,
        Op: ReduceOp,
        S: AsSlice<M::Input> + ?Sized,
    {
        self.reduce(op, &mapped(input, map))
    }

    /// [`Device::map_reduce`], the result left on the device (see
    /// [`Device::reduce_on_device`]).
    pub fn map_reduce_on_device<M, Op, S>(
        &self,
        map: M,
        op: Op,
        input: &S,
    ) -> Result<DeviceScalar<Op::Value>>
    where
        M: MapOp<Output = Op::Value>,
        Op: ReduceOp,
        S: AsSlice<M::Input> + ?Sized,
    {
        self.reduce_on_device(op, &mapped(input, map))
    }
}

/// The key of the reduction module of `Op` over inputs `I`.
pub(crate) fn reduce_key<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Reduce,
        [
            TypeId::of::<Op>(),
            TypeId::of::<I::Key>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// What a module name says of a stage without a map (`range`, `gather`, `strided`).
fn stage_word(stage: Stage) -> &'static str {
    match stage {
        Stage::Gather(_) => "gather",
        Stage::Strided => "strided",
        _ => "range",
    }
}

/// The CUDA module `Device::reduce(op, input)` runs for an `op` of type `Op` and an input of
/// type `I`: the operator's own module (`Op::META.source`) for arrays, views and
/// `indexed()` pairs, or a module composed with the input's map for `xs.map(f)`.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{DeviceVec, Mapped};
/// use warp_runtime::impl_::reduce_module;
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[map]
/// fn square(x: f32) -> f32 { x * x }
/// assert_eq!(reduce_module::<sum, DeviceVec<f32>>().source, sum.cuda_source());
/// assert!(reduce_module::<sum, Mapped<'static, square>>().source.contains("wd_map"));
/// ```
pub fn reduce_module<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleSource {
    let op = &Op::META.fragment;
    let cols = <I::Elem as Row>::COLUMNS;
    // A masked input or a map of a map: a module of its own, named after the operator and
    // the mask or the second map.
    if let Some(f) = I::MASK.or(I::THEN) {
        let f = &f.fragment;
        return composed(
            location(&format!("{}_{}", &op.name, &f.name), &f.file, f.line),
            input_source(I::STAGE, cols, I::THEN, I::MASK, |s| {
                module::reduce_module(op, Some(s))
            }),
            op.style.needs_cuda_headers(),
        );
    }
    match I::STAGE {
        Stage::Map(m)
        | Stage::RangeMap(_, m)
        | Stage::GatherMap(_, m)
        | Stage::StridedMap(m)
        | Stage::ZippedMap(_, m) => {
            let text = module::reduce_module(op, Some(&source(I::STAGE, cols)));
            let f = &m.fragment;
            composed(
                location(&format!("{}_{}", &f.name, &op.name), &f.file, f.line),
                text,
                op.style.needs_cuda_headers(),
            )
        }
        // Zipped arrays (some of them generated ranges) reduced as tuples: a module of their
        // own.
        Stage::Plain | Stage::Zipped(_) if cols.len() > 1 => composed(
            location(&op.name, &op.file, op.line),
            module::reduce_module(op, Some(&source(I::STAGE, cols))),
            op.style.needs_cuda_headers(),
        ),
        // A generated range (the stage makes the indices), a gather (it reads through them) or
        // a strided view (it reads every `step`-th element).
        Stage::Range(_) | Stage::Gather(_) | Stage::Strided => composed(
            location(
                &format!("{}_{}", stage_word(I::STAGE), op.name),
                &op.file,
                op.line,
            ),
            module::reduce_module(op, Some(&source(I::STAGE, cols))),
            op.style.needs_cuda_headers(),
        ),
        _ => Op::META.module(),
    }
}
