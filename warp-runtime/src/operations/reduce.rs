//! Reductions: `reduce` over arrays, views, `(element, index)` pairs and mapped views, and
//! `map_reduce`, its fused spelling.

use super::{map_args, reduce_key, reduce_module};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::launch::Staged;
use crate::device::Device;
use crate::error::Result;
use crate::inputs::{AsSlice, ReduceInput};
use crate::operators::{MapOp, ReduceOp};

impl Device {
    /// Reduces `input` with `op`: one pass over the data (warp shuffles, a block combine, a
    /// grid combine in the same launch on the GPU). The input is a `DeviceVec`, a view of one,
    /// `xs.indexed()` for `(value, index)` operators such as argmax, or `xs.map(f)` (the map
    /// fused into the same pass). Empty input gives the identity. Deterministic: the same
    /// input gives the same bits on the same device.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    ///
    /// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
    /// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    ///     if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }
    /// }
    ///
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[3.0f32, 9.0, 1.0, 9.0])?;
    /// assert_eq!(dev.reduce(argmax, &xs.indexed())?, (9.0, 1));
    /// # Ok(()) }
    /// ```
    pub fn reduce<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>(
        &self,
        op: Op,
        input: &I,
    ) -> Result<Op::Value> {
        let view = input.elements();
        self.check_owner(&view)?;
        input.validate()?;
        if view.is_empty() {
            return Ok(op.identity());
        }
        match &*self.backend {
            Backend::Cpu => Ok(cpu::reduce(op, view.cpu()?, |e, i| input.value(e, i))),
            Backend::Gpu(g) => {
                let module = g.module(reduce_key::<Op, I>(), reduce_module::<Op, I>)?;
                g.reduce(Staged {
                    module: &module,
                    input: view.gpu()?,
                    args: map_args(I::STAGE, input.args())?,
                })
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
        self.reduce(op, &input.as_view().map(map))
    }
}
