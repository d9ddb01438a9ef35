//! Sorting each row of a row-major matrix: its keys (`sort_rows`) or the columns that sort it
//! (`argsort_rows`), stable, ascending or descending.

use super::sort::{SortOrder, gpu_sort_module};
use super::{gpu_bytes, rows_of, typed};
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
}
