//! Sorting each row of a row-major matrix or each CSR segment: its keys (`sort_rows`,
//! `sort_segments`) or the positions that sort it (`argsort_rows`, `argsort_segments`),
//! stable, ascending or descending.

use super::sort::{SortOrder, gpu_sort_module};
use super::{check_offsets, gpu_bytes, rows_of, typed};
use crate::OutputArray;
use crate::arrays::{DeviceVec, Target, write_host};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::values::Ordered;

impl Device {
    /// Each row of the row-major matrix `keys` (`cols` columns) sorted on its own, as a new
    /// array of the same shape: as [`Device::sort`] sorts (stable, `order`, floats in
    /// `total_cmp` order) within every row. `cols = 0`, or a length that is not a whole number
    /// of rows, is an [`Error::Shape`]; no rows give an empty array. Returns without waiting
    /// for the kernels.
    ///
    /// On a GPU: rows of at most 4,096 keys of 1 to 4 bytes, or 3,072 of 8 bytes, are sorted
    /// in shared memory, as many whole rows a block as fit (at most 255): a ranking per byte
    /// of the keys and one by the row, each skipped where every key of the block has the same
    /// digit; the keys are read and written once. Longer rows are sorted
    /// one at a time by the device-wide sort ([`Device::sort`]), which suits few long rows (a
    /// few launches a row) rather than many.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[3.0f32, -1.0, 2.0, /* row 1 */ 0.5, f32::NAN, -0.0])?;
    /// let sorted = dev.sort_rows(&xs, 3, SortOrder::Ascending)?.download()?;
    /// assert_eq!(&sorted[..3], &[-1.0, 2.0, 3.0]);
    /// assert_eq!(&sorted[3..5], &[-0.0, 0.5]);
    /// assert!(sorted[5].is_nan());
    /// # Ok(()) }
    /// ```
    pub fn sort_rows<K: Ordered, S: AsSlice<K> + ?Sized>(
        &self,
        keys: &S,
        cols: usize,
        order: SortOrder,
    ) -> Result<DeviceVec<K>> {
        let n = keys.elements().len();
        rows_of(n, cols)?;
        let mut out = self.new_array::<K>(n)?;
        self.sort_rows_into(keys, cols, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::sort_rows`] into `out` (as long as `keys`: else [`Error::Shape`]), allocating
    /// no output.
    pub fn sort_rows_into<K, S, O>(
        &self,
        keys: &S,
        cols: usize,
        out: &mut O,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        O: OutputArray<K> + ?Sized,
    {
        let n = keys.elements().len();
        rows_of(n, cols)?;
        let out = self.output(out, n, "sort_rows")?;
        self.sort_rows_with(keys, cols, Some(out), None, order)
    }

    /// For each row of the row-major matrix `keys` (`cols` columns), the columns that sort it
    /// as [`Device::sort_rows`] does: element `i` of row `r` is the column of the row's `i`-th
    /// key in sorted order (equal keys: the smaller column first), as `u32` (what
    /// `torch.argsort(x, dim=1, stable=True)` gives, and candle's `arg_sort_last_dim`, for
    /// rows of any length). Errors as [`Device::sort_rows`]'s, and rows of more than 2^32
    /// columns (which `u32` cannot index) are an [`Error::Shape`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let logits = dev.upload(&[0.1f32, 0.7, 0.2, /* row 1 */ 0.5, 0.5, 0.9])?;
    /// let best_first = dev.argsort_rows(&logits, 3, SortOrder::Descending)?;
    /// assert_eq!(best_first.download()?, [1, 2, 0, /* row 1 */ 2, 0, 1]);
    /// # Ok(()) }
    /// ```
    pub fn argsort_rows<K: Ordered, S: AsSlice<K> + ?Sized>(
        &self,
        keys: &S,
        cols: usize,
        order: SortOrder,
    ) -> Result<DeviceVec<u32>> {
        let n = keys.elements().len();
        rows_of(n, cols)?;
        let mut out = self.new_array::<u32>(n)?;
        self.argsort_rows_into(keys, cols, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::argsort_rows`] into `out` (as long as `keys`: else [`Error::Shape`]),
    /// allocating no output.
    pub fn argsort_rows_into<K, S, O>(
        &self,
        keys: &S,
        cols: usize,
        out: &mut O,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        let n = keys.elements().len();
        rows_of(n, cols)?;
        if cols > u32::MAX as usize + 1 {
            return Err(Error::Shape(format!(
                "rows of {cols} columns cannot be indexed with `u32`"
            )));
        }
        let out = self.output(out, n, "argsort_rows")?;
        self.sort_rows_with(keys, cols, None, Some(out), order)
    }

    /// The rows' sort: the sorted keys into `keys_target` and each key's column into
    /// `cols_target` (each when given; the shape is checked).
    fn sort_rows_with<K: Ordered, S: AsSlice<K> + ?Sized>(
        &self,
        keys: &S,
        cols: usize,
        keys_target: Option<Target<'_>>,
        cols_target: Option<Target<'_>>,
        order: SortOrder,
    ) -> Result<()> {
        let elems = keys.elements();
        self.check_elements(&elems)?;
        let n = elems.len();
        if n == 0 {
            return Ok(());
        }
        let descending = order == SortOrder::Descending;
        match &*self.backend {
            Backend::Cpu => {
                let data = elems.cpu()?;
                let perm = cpu::sort_rows_permutation(data, cols, K::sort_key, descending);
                if let Some(Target::Cpu(bytes, _)) = keys_target {
                    let sorted: Vec<K> = perm
                        .iter()
                        .enumerate()
                        .map(|(i, &c)| data[i / cols * cols + c as usize])
                        .collect();
                    write_host(bytes, &sorted);
                }
                if let Some(Target::Cpu(bytes, _)) = cols_target {
                    write_host(bytes, &perm);
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                // The module whose device-wide sort moves 4-byte positions when the columns
                // are wanted (long rows), else keys alone; both hold the rows' kernel.
                let value_size = if cols_target.is_some() { 4 } else { 0 };
                let module = gpu_sort_module::<K>(g, value_size)?;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| typed::<K>(b, n)).transpose()?;
                let cols_out = cols_target.map(gpu_bytes).transpose()?;
                g.sort_rows(&module, elems.gpu()?, out, cols_out, cols, descending)
            }
        }
    }

    /// Each CSR segment of `keys` sorted on its own, as a new array as long: segment `s` is
    /// the keys `offsets[s]..offsets[s + 1]`, sorted as [`Device::sort`] sorts (stable,
    /// `order`, floats in `total_cmp` order). `offsets` (a `DeviceVec<u64>`, a view or the
    /// caller's `CudaSlice<u64>`) must cover the keys: non-decreasing from 0 to the keys'
    /// length (empty segments allowed); anything else, or no offset at all, is an
    /// [`Error::Shape`]. The GPU form waits for a first kernel that checks the offsets and
    /// sorts the segments out by length, then returns without waiting for the sort.
    ///
    /// On a GPU: segments of at most 1,024 keys (768 of 8-byte keys) are sorted in shared
    /// memory many to a block (those starting in each window of 3,072 positions, 2,304 for
    /// 8-byte keys), as the rows' sort does ([`Device::sort_rows`]); segments of up to 4,096
    /// keys (3,072) take a block each; longer ones are sorted one at a time by the device-wide
    /// sort (their bounds are read back first).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[5u32, 1, 3, /* */ 9, /* */ 2, 8, 0, 7])?;
    /// let offsets = dev.upload(&[0u64, 3, 4, 4, 8])?; // [5, 1, 3], [9], [], [2, 8, 0, 7]
    /// let sorted = dev.sort_segments(&xs, &offsets, SortOrder::Ascending)?;
    /// assert_eq!(sorted.download()?, [1, 3, 5, 9, 0, 2, 7, 8]);
    /// # Ok(()) }
    /// ```
    pub fn sort_segments<K, S, SO>(
        &self,
        keys: &S,
        offsets: &SO,
        order: SortOrder,
    ) -> Result<DeviceVec<K>>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
    {
        let mut out = self.new_array::<K>(keys.elements().len())?;
        self.sort_segments_into(keys, offsets, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::sort_segments`] into `out` (as long as `keys`: else [`Error::Shape`]),
    /// allocating no output.
    pub fn sort_segments_into<K, S, SO, O>(
        &self,
        keys: &S,
        offsets: &SO,
        out: &mut O,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
        O: OutputArray<K> + ?Sized,
    {
        let n = keys.elements().len();
        let out = self.output(out, n, "sort_segments")?;
        self.sort_segments_with(keys, offsets, Some(out), None, order)
    }

    /// For each CSR segment of `keys` (as [`Device::sort_segments`] takes them), the positions
    /// in the segment that sort it: element `i` of segment `s` is the position in `s` of its
    /// `i`-th key in sorted order (equal keys: the smaller position first), as `u32`. Errors
    /// as [`Device::sort_segments`]'s, and a segment of more than 2^32 keys (which `u32`
    /// cannot index) is an [`Error::Shape`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let scores = dev.upload(&[0.1f32, 0.7, 0.2, /* */ 0.5, 0.5])?;
    /// let offsets = dev.upload(&[0u64, 3, 5])?;
    /// let best_first = dev.argsort_segments(&scores, &offsets, SortOrder::Descending)?;
    /// assert_eq!(best_first.download()?, [1, 2, 0, /* */ 0, 1]);
    /// # Ok(()) }
    /// ```
    pub fn argsort_segments<K, S, SO>(
        &self,
        keys: &S,
        offsets: &SO,
        order: SortOrder,
    ) -> Result<DeviceVec<u32>>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
    {
        let mut out = self.new_array::<u32>(keys.elements().len())?;
        self.argsort_segments_into(keys, offsets, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::argsort_segments`] into `out` (as long as `keys`: else [`Error::Shape`]),
    /// allocating no output.
    pub fn argsort_segments_into<K, S, SO, O>(
        &self,
        keys: &S,
        offsets: &SO,
        out: &mut O,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        let n = keys.elements().len();
        let out = self.output(out, n, "argsort_segments")?;
        self.sort_segments_with(keys, offsets, None, Some(out), order)
    }

    /// The segments' sort: the sorted keys into `keys_target` and each key's position in its
    /// segment into `pos_target` (each when given; their lengths are checked).
    fn sort_segments_with<K, S, SO>(
        &self,
        keys: &S,
        offsets: &SO,
        keys_target: Option<Target<'_>>,
        pos_target: Option<Target<'_>>,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
    {
        let elems = keys.elements();
        let offs = offsets.elements();
        self.check_elements(&elems)?;
        self.check_elements(&offs)?;
        let n = elems.len();
        if offs.is_empty() {
            return Err(Error::Shape(
                "CSR offsets need at least one entry (segments + 1)".into(),
            ));
        }
        let descending = order == SortOrder::Descending;
        match &*self.backend {
            Backend::Cpu => {
                let o = offs.cpu()?;
                check_cover(o, n, pos_target.is_some())?;
                let data = elems.cpu()?;
                let perm = cpu::sort_segments_permutation(data, o, K::sort_key, descending);
                if let Some(Target::Cpu(bytes, _)) = keys_target {
                    let mut sorted = Vec::with_capacity(n);
                    for w in o.windows(2) {
                        let (a, b) = (w[0] as usize, w[1] as usize);
                        sorted.extend(perm[a..b].iter().map(|&c| data[a + c as usize]));
                    }
                    write_host(bytes, &sorted);
                }
                if let Some(Target::Cpu(bytes, _)) = pos_target {
                    write_host(bytes, &perm);
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                if offs.len() == 1 || n == 0 {
                    // No segment or no key, no kernel: the offsets are checked as the CPU does.
                    return check_cover(&g.download(&offs.gpu()?)?, n, false);
                }
                let value_size = if pos_target.is_some() { 4 } else { 0 };
                let module = gpu_sort_module::<K>(g, value_size)?;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| typed::<K>(b, n)).transpose()?;
                let pos_out = pos_target.map(gpu_bytes).transpose()?;
                let wants_pos = pos_out.is_some();
                let bad =
                    g.sort_segments(&module, elems.gpu()?, offs.gpu()?, out, pos_out, descending)?;
                if bad {
                    // The plan found them bad: say how.
                    check_cover(&g.download(&offs.gpu()?)?, n, wants_pos)?;
                }
                Ok(())
            }
        }
    }
}

/// Checks CSR offsets that must cover `n` keys: non-decreasing from 0 to `n`, and (when the
/// positions are wanted) no segment longer than `u32` can index.
fn check_cover(o: &[u64], n: usize, positions: bool) -> Result<()> {
    check_offsets(o, n)?;
    let (first, last) = (o[0], o[o.len() - 1]);
    if first != 0 || last != n as u64 {
        return Err(Error::Shape(format!(
            "CSR offsets must cover the {n} keys: they run from {first} to {last}"
        )));
    }
    match o.windows(2).position(|w| w[1] - w[0] > u32::MAX as u64 + 1) {
        Some(s) if positions => Err(Error::Shape(format!(
            "segment {s} has {} keys, more than `u32` positions can index",
            o[s + 1] - o[s]
        ))),
        _ => Ok(()),
    }
}
