//! Scans: inclusive and exclusive, with any `#[reduce]` operator, over the inputs of
//! reductions, into a new array or the caller's (`_into`).

use super::axes::{axis_key, axis_module};
use super::{Array, check_offsets, gpu_bytes, input_args, rows_of, uncounted, values_of};
use crate::arrays::{ArrayOf, Elements, OutputArray, Target, ValueArray, write_host};
use crate::backend::cpu;
use crate::backend::cuda::{Heads, ScanShape, Staged, ValuesOut};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::ReduceInput;
use crate::operators::ReduceOp;
use crate::values::DeviceValue;

/// The device array of an operator's values.
impl Device {
    /// The inclusive scan of `input` with `op`: `out[i] = x[0] + ... + x[i]`, combined in
    /// order. On the GPU: a thread scan, a Kogge-Stone warp scan (`__shfl_up_sync`), a block
    /// scan of warp totals, and one pass over the data, a tile per block (8192 elements when
    /// it reads one array of elements of at most 4 bytes into values of at most 4 bytes, else
    /// 4096). Exact values (no floats) chain tiles by decoupled look-back. Values holding
    /// floats, whose rounding would depend on how the look-back happens to group tiles, chain
    /// them deterministically instead, still in one pass:
    ///
    /// - an f32 sum (an operator whose body is `a + b` on `f32`, identity `0.0` or `-0.0`)
    ///   by the same look-back over exact sums: each tile's aggregate (its elements summed in a
    ///   fixed order, in f32) enters a 320-bit fixed-point sum that holds every f32 exactly,
    ///   and a tile's prefix is the exact sum of the aggregates before it rounded once to the
    ///   nearest f32 (ties to even; an infinity beyond the f32 range; NaN after a NaN or after
    ///   both infinities; `-0.0` only when every aggregate before it was `-0.0`);
    /// - any other float operator through a fixed tree: each tile publishes its aggregate and
    ///   the aggregate of every aligned power-of-two range of tiles it completes (from the
    ///   range's two halves), and tile `t`'s prefix folds the ranges of `t`'s binary
    ///   decomposition, in order; every grouping is a function of the length only.
    ///
    /// Either way the result has the same bits every run; it may differ from the CPU's left
    /// fold in the last bits (they agree exactly where the partial results are exact). Returns a
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
        self.scanned(op, input, false, None, "scan")
    }

    /// The exclusive scan of `input` with `op`: `out[0]` is the identity and
    /// `out[i] = x[0] + ... + x[i - 1]`. Same machinery as [`Device::scan`].
    pub fn exclusive_scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.scanned(op, input, true, None, "exclusive_scan")
    }

    /// [`Device::scan`] into `out` (as long as the input), allocating nothing.
    pub fn scan_into<Op, I, O>(&self, op: Op, input: &I, out: &mut O) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_scan(op, input, out, false, None)
    }

    /// [`Device::exclusive_scan`] into `out` (as long as the input), allocating nothing.
    pub fn exclusive_scan_into<Op, I, O>(&self, op: Op, input: &I, out: &mut O) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_scan(op, input, out, true, None)
    }

    /// The inclusive scan of `input` continued from `init`: `out[i] = op(init, x[0] + ... +
    /// x[i])`, where `x[0] + ... + x[i]` is [`Device::scan`]'s value (`init` then the input, for
    /// an associative operator: the scan of a longer input whose earlier part reduced to
    /// `init`, as when an input too long for one call is scanned in chunks, or across the ranks
    /// of a [`DeviceGroup`](crate::DeviceGroup)). CUB's `DeviceScan::InclusiveScanInit`. Same
    /// machinery as [`Device::scan`], `op(init, ..)` applied as each output is written: same
    /// bits every run, and for floats the CPU backend's bits wherever [`Device::scan`]'s agree.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let (first, second) = (dev.upload(&[1i64, 2, 3])?, dev.upload(&[4i64, 5])?);
    /// let head = dev.scan(add, &first)?;
    /// let carry = head.download()?[2]; // 6: what the first chunk adds up to
    /// assert_eq!(dev.scan_from(add, &second, carry)?.download()?, vec![10, 15]);
    /// assert_eq!(dev.exclusive_scan_from(add, &second, carry)?.download()?, vec![6, 10]);
    /// # Ok(()) }
    /// ```
    pub fn scan_from<Op, I>(&self, op: Op, input: &I, init: Op::Value) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.scanned(op, input, false, Some(init), "scan_from")
    }

    /// The exclusive scan of `input` continued from `init`: `out[0] = op(init, identity)` and
    /// `out[i] = op(init, x[0] + ... + x[i - 1])` (CUB's `DeviceScan::ExclusiveScan` with an
    /// initial value). As [`Device::scan_from`].
    pub fn exclusive_scan_from<Op, I>(
        &self,
        op: Op,
        input: &I,
        init: Op::Value,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.scanned(op, input, true, Some(init), "exclusive_scan_from")
    }

    /// [`Device::scan_from`] into `out` (as long as the input), allocating nothing. A
    /// device-resident length (`input.take(&count)`) writes the first `count` places, as
    /// [`Device::scan_into`] does.
    pub fn scan_from_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        init: Op::Value,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_scan(op, input, out, false, Some(init))
    }

    /// [`Device::exclusive_scan_from`] into `out` (as long as the input), allocating nothing.
    pub fn exclusive_scan_from_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        init: Op::Value,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_scan(op, input, out, true, Some(init))
    }

    /// The allocating scans: a new array as long as the input (a device-resident length
    /// refused: see `uncounted`), scanned into.
    fn scanned<Op, I>(
        &self,
        op: Op,
        input: &I,
        exclusive: bool,
        init: Option<Op::Value>,
        what: &str,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(uncounted(&input.elements(), what)?)?;
        self.run_scan(op, input, &mut out, exclusive, init)?;
        Ok(out)
    }

    /// Every plain scan: `input` scanned into `out`, continued from `init` when given (the
    /// group's and the ranks' scans call it with the fold of the ranks before).
    pub(crate) fn run_scan<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        out: &mut O,
        exclusive: bool,
        init: Option<Op::Value>,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.run_segmented_scan(op, input, out, exclusive, Segments::One(init), "scan")
    }

    /// Every scan: validates once, then scans `input` into `out` (as long as the input),
    /// restarting at the heads of `segments`.
    pub(super) fn run_segmented_scan<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        out: &mut O,
        exclusive: bool,
        segments: Segments<'_, Op::Value>,
        what: &str,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let mut elems = input.elements();
        self.check_elements(&elems)?;
        // The plain scan's tiles stop at a device-resident length (`input.take(&count)`):
        // it writes the first `count` places. The segmented scans' heads do not.
        if let Segments::One(_) = segments {
            elems.admit_count();
        }
        if let Segments::Csr(offs) = &segments {
            self.check_elements(offs)?;
            if offs.is_empty() {
                return Err(Error::Shape(
                    "CSR offsets need at least one entry (segments + 1)".into(),
                ));
            }
        }
        input.validate()?;
        let args = input_args::<Op, I>(input);
        self.check_bound(&args)?;
        let n = elems.len();
        if let Segments::Rows(cols) = segments {
            rows_of(n, cols)?;
        }
        let target = self.output(out, n, what)?;
        match target {
            Target::Cpu(bytes, _) => {
                let (data, value) = (elems.cpu()?, values_of(&op, input));
                let v = match &segments {
                    Segments::One(init) => cpu::scan(&op, data, value, exclusive, *init),
                    Segments::Rows(cols) => cpu::scan_rows(&op, data, value, *cols, exclusive),
                    Segments::Csr(offs) => {
                        let o = offs.cpu()?;
                        check_cover(o, n)?;
                        cpu::scan_segments(&op, data, value, o, exclusive)
                    }
                };
                write_host(bytes, &v);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                if n == 0 {
                    if let Segments::Csr(offs) = &segments {
                        // Nothing to scan: the offsets (all zero when valid) checked here.
                        check_cover(&g.download(&offs.gpu()?)?, 0)?;
                    }
                    return Ok(());
                }
                let module = g.module(axis_key::<Op, I>(), axis_module::<Op, I>)?;
                let bytes = gpu_bytes(t)?;
                let offsets = match &segments {
                    Segments::Csr(offs) => Some(offs.gpu()?),
                    _ => None,
                };
                // The initial value's C bytes, for the kernel.
                let mut init = vec![0u8; Op::Value::C_SIZE];
                let heads = match (&segments, &offsets) {
                    (Segments::Rows(cols), _) => Heads::Rows(*cols),
                    (Segments::Csr(_), Some(o)) => Heads::Csr(o.slice(..)),
                    (Segments::One(Some(v)), _) => {
                        v.write_c(&mut init);
                        Heads::Whole { init: Some(&init) }
                    }
                    _ => Heads::Whole { init: None },
                };
                let bad = self.with_input(g, &elems, &args, |input, args| {
                    g.scan(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        ValuesOut {
                            bytes,
                            value_size: Op::Value::C_SIZE,
                        },
                        ScanShape {
                            exact: Op::Value::EXACT,
                            f32_sum: Op::META.fragment.f32_sum,
                            exclusive,
                        },
                        heads,
                    )
                })?;
                if let (true, Some(o)) = (bad, &offsets) {
                    // The kernel found them bad: say how.
                    check_cover(&g.download(o)?, n)?;
                    return Err(Error::Shape("bad CSR offsets".into()));
                }
                Ok(())
            }
        }
    }

    /// A new array of `len` values for an operation to write.
    pub(super) fn value_array<V: ArrayOf>(&self, len: usize) -> Result<V::Array> {
        V::Array::alloc(self, len)
    }
}

/// Where a scan restarts.
pub(super) enum Segments<'a, V> {
    /// Nowhere: one segment, the whole input, continued from the initial value when given
    /// (each output is `op(init, its scan)`).
    One(Option<V>),
    /// At every row of a row-major matrix of this many columns.
    Rows(usize),
    /// At every CSR offset.
    Csr(Elements<'a, u64>),
}

/// Checks that CSR offsets cover an input of `n` elements: non-decreasing (as
/// `reduce_segments` requires), from 0 to `n`.
fn check_cover(o: &[u64], n: usize) -> Result<()> {
    check_offsets(o, n)?;
    match (o.first(), o.last()) {
        (Some(&first), _) if first != 0 => Err(Error::Shape(format!(
            "the first CSR offset of a segmented scan must be 0, not {first}"
        ))),
        (_, Some(&last)) if last != n as u64 => Err(Error::Shape(format!(
            "the last CSR offset of a segmented scan must be the input's length {n}, not {last}"
        ))),
        _ => Ok(()),
    }
}
