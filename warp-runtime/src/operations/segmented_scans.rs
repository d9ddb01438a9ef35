//! Segmented scans: inclusive and exclusive scans of each row of a row-major matrix and of
//! each CSR segment, with any `#[reduce]` operator, into a new array or the caller's (`_into`).

use super::Array;
use super::scans::Segments;
use crate::arrays::{ArrayOf, OutputArray};
use crate::device::Device;
use crate::error::Result;
use crate::inputs::{AsSlice, ReduceInput};
use crate::operators::ReduceOp;

impl Device {
    /// The inclusive scan of each row of the row-major matrix `input` (`cols` columns; its
    /// length must be a whole number of rows, else [`Error::Shape`](crate::Error::Shape)):
    /// `out[r * cols + c] = x[r * cols] + ... + x[r * cols + c]`, combined in element order (the
    /// operator need not commute). One value per element; an empty input gives an empty array
    /// (`cols = 0` is an [`Error::Shape`](crate::Error::Shape), even then).
    /// NaN, overflow and ties are the operator's: each output is what folding the row's
    /// elements in order with the Rust function gives, up to float rounding (the GPU groups
    /// the fold as a tree; exact where the partial results are exact).
    ///
    /// On a GPU: one pass of the scan's tiles ([`Device::scan`]) over (value, head) pairs with
    /// the segmented operator (a head, every `cols`-th element, restarts the fold). Rows of at
    /// most 4096 elements (a block tile) put a head in every tile, so a tile's carry is its
    /// predecessor's aggregate alone; longer rows chain tiles by the look-back (exact
    /// operators) or by the fixed tree of [`Device::scan`] (floats, f32 sums included). The
    /// result has the same bits every run, floats included. Returns without waiting.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f32, b: f32) -> f32 { a + b }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3
    /// assert_eq!(dev.scan_rows(sum, &m, 3)?.download()?, vec![1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
    /// # Ok(()) }
    /// ```
    pub fn scan_rows<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.scan_rows_as(op, input, cols, &mut out, false)?;
        Ok(out)
    }

    /// The exclusive scan of each row: the identity at each row's first element, then
    /// `out[r * cols + c] = x[r * cols] + ... + x[r * cols + c - 1]`. As [`Device::scan_rows`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1, 2, 3, 4, 5, 6])?; // 3 x 2
    /// assert_eq!(dev.exclusive_scan_rows(add, &m, 2)?.download()?, vec![0, 1, 0, 3, 0, 5]);
    /// # Ok(()) }
    /// ```
    pub fn exclusive_scan_rows<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.scan_rows_as(op, input, cols, &mut out, true)?;
        Ok(out)
    }

    /// [`Device::scan_rows`] into `out` (as long as the input), allocating nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1, 2, 3, 4])?;
    /// let mut out = dev.upload(&[0; 4])?;
    /// dev.scan_rows_into(add, &m, 2, &mut out)?;
    /// assert_eq!(out.download()?, vec![1, 3, 3, 7]);
    /// # Ok(()) }
    /// ```
    pub fn scan_rows_into<Op, I, O>(
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
        self.scan_rows_as(op, input, cols, out, false)
    }

    /// [`Device::exclusive_scan_rows`] into `out` (as long as the input), allocating nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1, 2, 3, 4])?;
    /// let mut out = dev.upload(&[9; 4])?;
    /// dev.exclusive_scan_rows_into(add, &m, 2, &mut out)?;
    /// assert_eq!(out.download()?, vec![0, 1, 0, 3]);
    /// # Ok(()) }
    /// ```
    pub fn exclusive_scan_rows_into<Op, I, O>(
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
        self.scan_rows_as(op, input, cols, out, true)
    }

    fn scan_rows_as<Op, I, O>(
        &self,
        op: Op,
        input: &I,
        cols: usize,
        out: &mut O,
        exclusive: bool,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let what = if exclusive {
            "exclusive_scan_rows"
        } else {
            "scan_rows"
        };
        self.run_segmented_scan(op, input, out, exclusive, Segments::Rows(cols), what)
    }

    /// The inclusive scan of each CSR segment of `input`: segment `s` is the elements
    /// `offsets[s]..offsets[s + 1]`, and `out[i]` is the fold of its segment's elements up to
    /// and including `i`, in element order. The offsets (a `DeviceVec<u64>`, a view, or the
    /// caller's `CudaSlice<u64>`) are those of [`Device::reduce_segments`], covering the input:
    /// non-decreasing from 0 to the input's length, empty segments allowed (they hold no
    /// element). Anything else is an [`Error::Shape`](crate::Error::Shape), so the GPU form
    /// waits for its kernel, to check them. One value per element. NaN, overflow and ties are
    /// the operator's, as for [`Device::scan_rows`].
    ///
    /// On a GPU: one pass of the scan's tiles over (value, head) pairs; each block finds the
    /// segments starting in its tile (a 32-way warp search of the offsets) and marks their
    /// heads in shared memory; tiles (4096 elements) chain by the look-back for exact
    /// operators and by the fixed tree of [`Device::scan`] for floats (f32 sums included), so
    /// the result has the same bits every run.
    /// Many empty segments starting at one element cost that element's block a loop over
    /// them.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[4i64, 1, 9, 2, 7])?;
    /// let offsets = dev.upload(&[0u64, 2, 2, 5])?; // [4, 1], [], [9, 2, 7]
    /// assert_eq!(dev.scan_segments(add, &xs, &offsets)?.download()?, vec![4, 5, 9, 11, 18]);
    /// # Ok(()) }
    /// ```
    pub fn scan_segments<Op, I, S>(&self, op: Op, input: &I, offsets: &S) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
        S: AsSlice<u64> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.scan_segments_as(op, input, offsets, &mut out, false)?;
        Ok(out)
    }

    /// The exclusive scan of each CSR segment: the identity at each segment's first element,
    /// then the fold of its segment's elements before `i`. As [`Device::scan_segments`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[4i64, 1, 9, 2, 7])?;
    /// let offsets = dev.upload(&[0u64, 2, 2, 5])?;
    /// assert_eq!(dev.exclusive_scan_segments(add, &xs, &offsets)?.download()?, vec![0, 4, 0, 9, 11]);
    /// # Ok(()) }
    /// ```
    pub fn exclusive_scan_segments<Op, I, S>(
        &self,
        op: Op,
        input: &I,
        offsets: &S,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
        S: AsSlice<u64> + ?Sized,
    {
        let mut out = self.value_array::<Op::Value>(input.elements().len())?;
        self.scan_segments_as(op, input, offsets, &mut out, true)?;
        Ok(out)
    }

    /// [`Device::scan_segments`] into `out` (as long as the input), allocating nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1i64, 1, 1])?;
    /// let mut out = dev.upload(&[0i64; 3])?;
    /// dev.scan_segments_into(add, &xs, &dev.upload(&[0u64, 1, 3])?, &mut out)?;
    /// assert_eq!(out.download()?, vec![1, 1, 2]);
    /// # Ok(()) }
    /// ```
    pub fn scan_segments_into<Op, I, S, O>(
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
        self.scan_segments_as(op, input, offsets, out, false)
    }

    /// [`Device::exclusive_scan_segments`] into `out` (as long as the input), allocating
    /// nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1i64, 1, 1])?;
    /// let mut out = dev.upload(&[9i64; 3])?;
    /// dev.exclusive_scan_segments_into(add, &xs, &dev.upload(&[0u64, 1, 3])?, &mut out)?;
    /// assert_eq!(out.download()?, vec![0, 0, 1]);
    /// # Ok(()) }
    /// ```
    pub fn exclusive_scan_segments_into<Op, I, S, O>(
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
        self.scan_segments_as(op, input, offsets, out, true)
    }

    fn scan_segments_as<Op, I, S, O>(
        &self,
        op: Op,
        input: &I,
        offsets: &S,
        out: &mut O,
        exclusive: bool,
    ) -> Result<()>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        S: AsSlice<u64> + ?Sized,
        O: OutputArray<Op::Value> + ?Sized,
    {
        let what = if exclusive {
            "exclusive_scan_segments"
        } else {
            "scan_segments"
        };
        let segments = Segments::Csr(offsets.elements());
        self.run_segmented_scan(op, input, out, exclusive, segments, what)
    }
}
