//! Scans: inclusive and exclusive, with any `#[reduce]` operator, over the inputs of
//! reductions.

use super::{axis_key, axis_module, map_args};
use crate::arrays::{ArrayOf, ValueArray};
use crate::backend::Backend;
use crate::backend::cpu;
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
    /// [`DeviceTuples`](crate::DeviceTuples) for tuple ones.
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
    /// # Ok(()) }
    /// ```
    pub fn scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.run_scan(op, input, false)
    }

    /// The exclusive scan of `input` with `op`: `out[0]` is the identity and
    /// `out[i] = x[0] + ... + x[i - 1]`. Same machinery as [`Device::scan`].
    pub fn exclusive_scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.run_scan(op, input, true)
    }

    fn run_scan<Op, I>(&self, op: Op, input: &I, exclusive: bool) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let view = input.elements();
        self.check_owner(&view)?;
        input.validate()?;
        match &*self.backend {
            Backend::Cpu => {
                let out = cpu::scan(op, view.cpu()?, |e, i| input.value(e, i), exclusive);
                Array::<Op>::from_values(self, &out)
            }
            Backend::Gpu(g) => {
                let mut out = Array::<Op>::alloc_gpu(self, view.len())?;
                if !view.is_empty() {
                    let module = g.module(axis_key::<Op, I>(), axis_module::<Op, I>)?;
                    g.scan(
                        Staged {
                            module: &module,
                            input: view.gpu()?,
                            args: map_args(I::STAGE, input.args())?,
                        },
                        ValuesOut {
                            bytes: out.gpu_bytes()?,
                            value_size: Op::Value::C_SIZE,
                        },
                        ScanShape {
                            exact: Op::Value::EXACT,
                            exclusive,
                        },
                    )?;
                }
                Ok(out)
            }
        }
    }
}
