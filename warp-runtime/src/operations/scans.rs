//! Scans: inclusive and exclusive, with any `#[reduce]` operator, over the inputs of
//! reductions, into a new array or the caller's (`_into`).

use super::{axis_key, axis_module, gpu_bytes, map_args};
use crate::arrays::{ArrayOf, OutputArray, Target, ValueArray, write_host};
use crate::backend::cpu;
use crate::backend::cuda::memory::SLOT_BYTES;
use crate::backend::cuda::{ScanShape, Staged, ValuesOut};
use crate::device::Device;
use crate::error::Result;
use crate::inputs::ReduceInput;
use crate::operators::ReduceOp;
use crate::values::DeviceValue;

/// The device array of an operator's values.
pub(super) type Array<Op> = <<Op as ReduceOp>::Value as ArrayOf>::Array;

impl Device {
    /// The inclusive scan of `input` with `op`: `out[i] = x[0] + ... + x[i]`, combined in
    /// order. On the GPU: a thread scan, a Kogge-Stone warp scan (`__shfl_up_sync`), a block
    /// scan of warp totals, and one pass over the data with decoupled look-back between
    /// blocks. Deterministic (the same bits every run): values holding floats, whose rounding
    /// would depend on how the look-back happens to group tiles, take three passes instead
    /// (tile aggregates, their scan in a fixed order, then the tiles). Returns a
    /// [`DeviceVec`](crate::DeviceVec) for scalar operators and a
    /// [`DeviceTuples`](crate::DeviceTuples) for tuple ones, without waiting for the kernels.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1, 2, 3, 4])?;
    /// assert_eq!(dev.scan(add, &xs)?.download()?, vec![1, 3, 6, 10]);
    /// assert_eq!(dev.exclusive_scan(add, &xs)?.download()?, vec![0, 1, 3, 6]);
    /// let mut out = dev.upload(&[0; 4])?;
    /// dev.scan_into(add, &xs, &mut out)?; // into the caller's array: allocates nothing
    /// assert_eq!(out.download()?, vec![1, 3, 6, 10]);
    /// # Ok(()) }
    /// ```
    pub fn scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.run_scan(op, input, &mut out, false)?;
        Ok(out)
    }

    /// The exclusive scan of `input` with `op`: `out[0]` is the identity and
    /// `out[i] = x[0] + ... + x[i - 1]`. Same machinery as [`Device::scan`].
    pub fn exclusive_scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.run_scan(op, input, &mut out, true)?;
        Ok(out)
    }

    /// [`Device::scan`] into `out` (as long as the input), allocating nothing.
    pub fn scan_into<Op, I, O>(&self, op: Op, input: &I, out: &mut O) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_scan(op, input, out, false)
    }

    /// [`Device::exclusive_scan`] into `out` (as long as the input), allocating nothing.
    pub fn exclusive_scan_into<Op, I, O>(&self, op: Op, input: &I, out: &mut O) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_scan(op, input, out, true)
    }

    fn run_scan<Op, I, O>(&self, op: Op, input: &I, out: &mut O, exclusive: bool) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let elems = input.elements();
        self.check_elements(&elems)?;
        input.validate()?;
        let args = map_args(I::STAGE, input.args());
        self.check_bound(&args)?;
        let target = self.output(out, elems.len(), "scan")?;
        if elems.is_empty() {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                let v = cpu::scan(&op, elems.cpu()?, |e, i| input.value(e, i), exclusive);
                write_host(bytes, &v);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(axis_key::<Op, I>(), axis_module::<Op, I>)?;
                let bytes = gpu_bytes(t)?;
                self.with_bound(g, &args, |args| {
                    g.scan(
                        Staged {
                            module: &module,
                            input: elems.columns()?,
                            args,
                        },
                        ValuesOut {
                            bytes,
                            value_size: Op::Value::C_SIZE,
                        },
                        ScanShape {
                            exact: Op::Value::EXACT,
                            exclusive,
                        },
                    )
                })
            }
        }
    }

    /// A new array of `len` values for an operation to write.
    pub(super) fn value_array<V: ArrayOf>(&self, len: usize) -> Result<V::Array> {
        if self.is_gpu() {
            V::Array::alloc_gpu(self, len)
        } else {
            V::Array::from_values(self, &vec![V::read_c(&[0u8; SLOT_BYTES]); len])
        }
    }
}
