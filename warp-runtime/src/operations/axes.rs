//! Axis reductions: along the rows and the columns of a row-major matrix, along any axis of
//! an N-d array, and over CSR segments, with any `#[reduce]` operator, into a new array or the
//! caller's (`_into`); and scans along any axis.

use super::keys::*;
use super::scans::Segments;
use super::{Array, check_offsets, gpu_bytes, rows_of};
use crate::arrays::{ArrayOf, OutputArray, Target, write_host};
use crate::backend::cpu;
use crate::backend::cuda::{Rows, Staged, ValuesOut};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{AsSlice, ReduceInput};
use crate::operators::ReduceOp;
use crate::values::DeviceValue;

/// Which axis of a matrix to reduce.
#[derive(Clone, Copy)]
enum Axis {
    Rows,
    Cols { padded: bool },
}

/// An axis of a row-major array seen as `outer` x `n` x `inner` elements: the `n` elements of
/// each line along it are `inner` apart.
#[derive(Clone, Copy, Debug)]
pub(super) struct Along {
    pub(super) outer: usize,
    pub(super) n: usize,
    pub(super) inner: usize,
}

impl Along {
    /// Axis `axis` of the row-major shape `shape` of an input of `len` elements.
    pub(super) fn of(shape: &[usize], axis: usize, len: usize) -> Result<Along> {
        if axis >= shape.len() {
            return Err(Error::Shape(format!(
                "axis {axis} of a shape of {} dimensions ({shape:?})",
                shape.len()
            )));
        }
        let product = |dims: &[usize]| {
            dims.iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .ok_or_else(|| Error::Shape(format!("the shape {shape:?} overflows")))
        };
        let (outer, inner) = (product(&shape[..axis])?, product(&shape[axis + 1..])?);
        let n = shape[axis];
        let total = outer
            .checked_mul(n)
            .and_then(|x| x.checked_mul(inner))
            .ok_or_else(|| Error::Shape(format!("the shape {shape:?} overflows")))?;
        if total != len {
            return Err(Error::Shape(format!(
                "the shape {shape:?} holds {total} elements; the input has {len}"
            )));
        }
        Ok(Along { outer, n, inner })
    }
}

impl Device {
    /// Reduces each row of the row-major matrix `input` (`cols` columns; its length must be a
    /// whole number of rows, else [`Error::Shape`]; `cols = 0` too, even for an empty input)
    /// with `op`: one value per row. The kernel is chosen by shape: several rows per warp with
    /// width-limited shuffles for short rows, a warp per row, a block per row, or several
    /// blocks per row for very long rows. Returns without waiting for the kernels.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f32, b: f32) -> f32 { a + b }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3
    /// assert_eq!(dev.reduce_rows(sum, &m, 3)?.download()?, vec![6.0, 15.0]);
    /// assert_eq!(dev.reduce_cols(sum, &m, 3)?.download()?, vec![5.0, 7.0, 9.0]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_rows<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let rows = rows_of(input.elements().len(), cols)?;
        let mut out = self.value_array::<Op::Value>(rows)?;
        self.reduce_matrix(op, input, cols, Axis::Rows, &mut out)?;
        Ok(out)
    }

    /// [`Device::reduce_rows`] into `out` (a value per row), allocating nothing.
    pub fn reduce_rows_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        cols: usize,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.reduce_matrix(op, input, cols, Axis::Rows, out)
    }

    /// Reduces each column of the row-major matrix `input` (`cols` columns) with `op`: one
    /// value per column (an empty input gives the identity in each; `cols = 0` is an
    /// [`Error::Shape`], and a column count no memory holds an [`Error::OutOfMemory`]).
    /// Loads are coalesced along rows: in a wide matrix (at least 4096 columns, rows of whole
    /// aligned 16-byte vectors) each thread folds a vector's columns down a chunk of rows;
    /// otherwise the threads sharing a column combine through a `[32][33]` padded shared tile
    /// (no bank conflicts). Each column's fold order is fixed by the shape and the GPU (the
    /// same bits every run). Returns without waiting.
    pub fn reduce_cols<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.reduce_cols_as(op, input, cols, true)
    }

    /// [`Device::reduce_cols`] into `out` (a value per column), allocating nothing.
    pub fn reduce_cols_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        cols: usize,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        self.reduce_matrix(op, input, cols, Axis::Cols { padded: true }, out)
    }

    /// [`Device::reduce_cols`] through an unpadded `[32][32]` tile: 32-way shared-memory bank
    /// conflicts. It exists only to measure what the padding saves (see docs/benchmarks/2026-11-30.md); the
    /// results are the same.
    #[doc(hidden)]
    pub fn reduce_cols_unpadded<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.reduce_cols_as(op, input, cols, false)
    }

    fn reduce_cols_as<Op, I>(
        &self,
        op: Op,
        input: &I,
        cols: usize,
        padded: bool,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        rows_of(input.elements().len(), cols)?;
        let mut out = self.value_array::<Op::Value>(cols)?;
        self.reduce_matrix(op, input, cols, Axis::Cols { padded }, &mut out)?;
        Ok(out)
    }

    /// The rows' or the columns' reduction of a row-major matrix of `cols` columns.
    fn reduce_matrix<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        cols: usize,
        axis: Axis,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let rows = rows_of(input.elements().len(), cols)?;
        let (along, what) = match axis {
            Axis::Rows => (
                Along {
                    outer: rows,
                    n: cols,
                    inner: 1,
                },
                "reduce_rows",
            ),
            Axis::Cols { .. } => (
                Along {
                    outer: 1,
                    n: rows,
                    inner: cols,
                },
                "reduce_cols",
            ),
        };
        let padded = !matches!(axis, Axis::Cols { padded: false });
        self.reduce_along(op, input, along, padded, what, out)
    }

    /// Reduces each line along an axis of `input`, an array of `outer` x `n` x `inner`
    /// elements, into `out` (`outer` x `inner` values: line `(o, i)` is the elements
    /// `o * n * inner + k * inner + i` for `k` in `0..n`): the rows' kernels when `inner` is
    /// 1, else the column kernels over `outer` batches.
    fn reduce_along<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        along: Along,
        padded: bool,
        what: &str,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let Along { outer, n, inner } = along;
        let Checked { elems, args } = self.reduce_prologue(input)?;
        let len = outer * inner;
        let target = self.output(out, len, what)?;
        if len == 0 {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                let v = if n == 0 {
                    vec![op.identity(); len]
                } else {
                    let (data, value) = (elems.cpu()?, values_of(&op, input));
                    if inner == 1 {
                        cpu::reduce_rows(&op, data, value, n)
                    } else {
                        cpu::reduce_cols(&op, data, value, inner, outer)
                    }
                };
                write_host(bytes, &v);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let mut bytes = gpu_bytes(t)?;
                if n == 0 {
                    // Nothing to fold: the identity in every place.
                    let mut one = vec![0u8; Op::Value::C_SIZE];
                    op.identity().write_c(&mut one);
                    let all = one.repeat(len);
                    return g
                        .stream()
                        .memcpy_htod(&all, &mut bytes)
                        .map_err(|e| Error::driver("writing a result", e));
                }
                let module = g.module(axis_key::<Op, I>(), axis_module::<Op, I>)?;
                let o = ValuesOut {
                    bytes,
                    value_size: Op::Value::C_SIZE,
                };
                self.with_input(g, &elems, &args, |input, args| {
                    let s = Staged {
                        module: &module,
                        input,
                        args,
                    };
                    if inner == 1 {
                        g.reduce_rows(
                            s,
                            Rows {
                                rows: outer,
                                cols: n,
                            },
                            o,
                        )
                    } else {
                        g.reduce_cols(
                            s,
                            Rows {
                                rows: n,
                                cols: inner,
                            },
                            outer,
                            o,
                            padded,
                        )
                    }
                })
            }
        }
    }

    /// Reduces `input`, a row-major array of shape `shape` (its length must be the product of
    /// the dimensions, else [`Error::Shape`]), along axis `axis` (counted from 0, the
    /// outermost; at least one dimension, `axis < shape.len()`) with `op`: the result has
    /// the shape without that axis, row-major (NumPy's and PyTorch's `sum(dim = axis)` for an
    /// operator). Along the last axis it is [`Device::reduce_rows`], along the first
    /// [`Device::reduce_cols`]; along a middle axis of a shape `(.., n, ..)` the column
    /// reduction runs over every outer index at once, in one launch (the middle axis of a
    /// `(B, N, D)` array read at the bandwidth of a column sum). An axis of length 0 gives the
    /// identity in each place. Each result's fold order is fixed by the shape and the GPU (the
    /// same bits every run). Returns without waiting.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let x = dev.upload(&(0..24).collect::<Vec<i32>>())?; // shape (2, 3, 4)
    /// let shape = [2, 3, 4];
    /// // axis 0: x[0][j][k] + x[1][j][k], shape (3, 4)
    /// assert_eq!(
    ///     dev.reduce_axis(add, &x, &shape, 0)?.download()?,
    ///     [12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34]
    /// );
    /// // axis 1 (the middle one): shape (2, 4)
    /// assert_eq!(dev.reduce_axis(add, &x, &shape, 1)?.download()?, [12, 15, 18, 21, 48, 51, 54, 57]);
    /// // axis 2: shape (2, 3)
    /// assert_eq!(dev.reduce_axis(add, &x, &shape, 2)?.download()?, [6, 22, 38, 54, 70, 86]);
    /// assert!(matches!(dev.reduce_axis(add, &x, &[5, 5], 0), Err(Error::Shape(_))));
    /// assert!(matches!(dev.reduce_axis(add, &x, &shape, 3), Err(Error::Shape(_))));
    /// # Ok(()) }
    /// ```
    pub fn reduce_axis<Op, I>(
        &self,
        op: Op,
        input: &I,
        shape: &[usize],
        axis: usize,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let along = Along::of(shape, axis, input.elements().len())?;
        let mut out = self.value_array::<Op::Value>(along.outer * along.inner)?;
        self.reduce_along(op, input, along, true, "reduce_axis", &mut out)?;
        Ok(out)
    }

    /// [`Device::reduce_axis`] into `out` (the product of the other dimensions' values),
    /// allocating nothing.
    pub fn reduce_axis_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        shape: &[usize],
        axis: usize,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let along = Along::of(shape, axis, input.elements().len())?;
        self.reduce_along(op, input, along, true, "reduce_axis_into", out)
    }

    /// The inclusive scan of `input`, a row-major array of shape `shape` (as
    /// [`Device::reduce_axis`]: its length the product of the dimensions, `axis <
    /// shape.len()`, else [`Error::Shape`]), along axis `axis`: each line along the axis is
    /// scanned on its own, in its order, and the result has the input's shape (PyTorch's
    /// `cumsum(dim = axis)` for an operator). Along the last axis it is
    /// [`Device::scan_rows`] (the scan at bandwidth, any number of rows). Along another axis
    /// one thread scans each line, its elements in order (exact in that order for every
    /// operator, the same bits every run), consecutive threads on consecutive columns: fast
    /// when there are many lines (the product of the other dimensions in the tens of
    /// thousands), a fraction of the bandwidth with few (a `(n, 4)` array along axis 0 has
    /// four threads). Returns without waiting.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let x = dev.upload(&(0..12).collect::<Vec<i32>>())?; // shape (2, 3, 2)
    /// let shape = [2, 3, 2];
    /// // axis 1: x[i][0][k], x[i][0][k] + x[i][1][k], ...
    /// assert_eq!(
    ///     dev.scan_axis(add, &x, &shape, 1)?.download()?,
    ///     [0, 1, 2, 4, 6, 9, 6, 7, 14, 16, 24, 27]
    /// );
    /// assert_eq!(
    ///     dev.exclusive_scan_axis(add, &x, &shape, 0)?.download()?,
    ///     [0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5]
    /// );
    /// assert!(matches!(dev.scan_axis(add, &x, &shape, 3), Err(Error::Shape(_))));
    /// # Ok(()) }
    /// ```
    pub fn scan_axis<Op, I>(
        &self,
        op: Op,
        input: &I,
        shape: &[usize],
        axis: usize,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let along = Along::of(shape, axis, input.elements().len())?;
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.scan_along(op, input, along, false, "scan_axis", &mut out)?;
        Ok(out)
    }

    /// The exclusive scan along axis `axis`: the identity at each line's first element, then
    /// the fold of the line's elements before each. As [`Device::scan_axis`].
    pub fn exclusive_scan_axis<Op, I>(
        &self,
        op: Op,
        input: &I,
        shape: &[usize],
        axis: usize,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let along = Along::of(shape, axis, input.elements().len())?;
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.scan_along(op, input, along, true, "exclusive_scan_axis", &mut out)?;
        Ok(out)
    }

    /// [`Device::scan_axis`] into `out` (as long as the input), allocating nothing.
    pub fn scan_axis_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        shape: &[usize],
        axis: usize,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let along = Along::of(shape, axis, input.elements().len())?;
        self.scan_along(op, input, along, false, "scan_axis_into", out)
    }

    /// [`Device::exclusive_scan_axis`] into `out` (as long as the input), allocating nothing.
    pub fn exclusive_scan_axis_into<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        shape: &[usize],
        axis: usize,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let along = Along::of(shape, axis, input.elements().len())?;
        self.scan_along(op, input, along, true, "exclusive_scan_axis_into", out)
    }

    /// The scans along an axis: the rows' scan for the last axis, else a thread a line.
    fn scan_along<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        along: Along,
        exclusive: bool,
        what: &str,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let Along { n, inner, .. } = along;
        if inner == 1 && n > 0 {
            return self.run_segmented_scan(op, input, out, exclusive, Segments::Rows(n), what);
        }
        let Checked { elems, args } = self.reduce_prologue(input)?;
        let len = elems.len();
        let target = self.output(out, len, what)?;
        if len == 0 {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                let (data, value) = (elems.cpu()?, values_of(&op, input));
                write_host(
                    bytes,
                    &cpu::scan_cols(&op, data, value, (n, inner), exclusive),
                );
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(axis_key::<Op, I>(), axis_module::<Op, I>)?;
                let bytes = gpu_bytes(t)?;
                self.with_input(g, &elems, &args, |input, args| {
                    g.scan_cols(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        ValuesOut {
                            bytes,
                            value_size: Op::Value::C_SIZE,
                        },
                        n,
                        inner,
                        exclusive,
                    )
                })
            }
        }
    }

    /// Reduces each segment of `input` with `op`: segment `s` is the elements
    /// `offsets[s]..offsets[s + 1]` (CSR offsets, a `DeviceVec<u64>`, a view, or the caller's
    /// `CudaSlice<u64>`: non-decreasing, the last at most the input's length). Empty segments give the identity. Bad offsets are an [`Error::Shape`] (so the
    /// GPU form waits for its kernels, to check them).
    ///
    /// On a GPU, one warp reduces each segment of up to 8192 elements (several of up to 32
    /// together); longer ones are then split into chunks over the whole grid, so one huge
    /// segment still runs at close to the full read bandwidth.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = i64::MIN)]
    /// fn max(a: i64, b: i64) -> i64 { a.max(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[4i64, 1, 9, 2, 7])?;
    /// let offsets = dev.upload(&[0u64, 2, 2, 5])?; // [4, 1], [], [9, 2, 7]
    /// assert_eq!(dev.reduce_segments(max, &xs, &offsets)?.download()?, vec![4, i64::MIN, 9]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_segments<Op, I, S>(&self, op: Op, input: &I, offsets: &S) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
        S: AsSlice<u64> + ?Sized,
    {
        let segments = offsets.elements().len().saturating_sub(1);
        let mut out = self.value_array::<Op::Value>(segments)?;
        self.reduce_segments_into(op, input, offsets, &mut out)?;
        Ok(out)
    }

    /// [`Device::reduce_segments`] into `out` (a value per segment), allocating nothing.
    pub fn reduce_segments_into<Op, I, S, O>(
        &self,
        op: Op,
        input: &I,
        offsets: &S,
        out: &mut O,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        S: AsSlice<u64> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let Checked { elems, args } = self.reduce_prologue(input)?;
        let offs = offsets.elements();
        self.check_elements(&offs)?;
        let n = elems.len();
        if offs.is_empty() {
            return Err(Error::Shape(
                "CSR offsets need at least one entry (segments + 1)".into(),
            ));
        }
        let nseg = offs.len() - 1;
        let target = self.output(out, nseg, "reduce_segments")?;
        match target {
            Target::Cpu(bytes, _) => {
                let o = offs.cpu()?;
                check_offsets(o, n)?;
                let v = cpu::reduce_segments(&op, elems.cpu()?, values_of(&op, input), o);
                write_host(bytes, &v);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                if nseg == 0 {
                    // No segment, no kernel: the one offset is checked as the CPU does.
                    return check_offsets(&g.download(&offs.gpu()?)?, n);
                }
                let module = g.module(axis_key::<Op, I>(), axis_module::<Op, I>)?;
                let o = ValuesOut {
                    bytes: gpu_bytes(t)?,
                    value_size: Op::Value::C_SIZE,
                };
                let bad = self.with_input(g, &elems, &args, |input, args| {
                    g.reduce_segments(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        offs.gpu()?,
                        o,
                    )
                })?;
                if bad {
                    // The kernel found them bad: say how.
                    check_offsets(&g.download(&offs.gpu()?)?, n)?;
                }
                Ok(())
            }
        }
    }
}

/// The key of the scan and axis module of `Op` over inputs `I`.
pub(crate) fn axis_key<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Axis,
        [
            TypeId::of::<Op>(),
            TypeId::of::<I::Key>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of the scans and axis reductions (`scan`, `exclusive_scan`,
/// `reduce_rows`, `reduce_cols`, `reduce_segments`) of an operator of type `Op` over inputs of
/// type `I`.
pub fn axis_module<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleSource {
    let op: &OpMeta = &Op::META;
    let cols = <I::Elem as Row>::COLUMNS;
    let text = input_source(I::STAGE, cols, I::THEN, I::MASK, |s| {
        module::axis_module(&op.fragment, s)
    });
    composed(
        location(
            &format!("axis_{}", &op.fragment.name),
            &op.fragment.file,
            op.fragment.line,
        ),
        text,
        Style::Intrinsics.needs_cuda_headers(),
    )
}
