//! The top-k of each row of a row-major matrix, and along any axis of an N-d array: the `k`
//! largest (or smallest) of every row (line) with their columns, best first (batched sampling
//! over vocabulary-sized rows).

use warp_kernels::catalogue::TOPK_MAX_K;

use super::axes::Along;
use super::topk::{topk_key, topk_module};
use super::{rows_of, typed};
use crate::arrays::{DeviceVec, Elements};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::Rows;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::values::Ordered;

/// The result of [`Device::top_k_rows`] and [`Device::bottom_k_rows`]: `k` entries a row,
/// row-major (`rows * k` in all), each row's best first, with each entry's column in its row.
/// Of [`Device::top_k_axis`] and [`Device::bottom_k_axis`]: the input's shape with the axis's
/// length replaced by `k`, each entry's index along the axis in `columns`.
///
/// ```
/// use warp_runtime::prelude::*;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let x = dev.upload(&[3u8, 9, 1, /* row 1 */ 4, 4, 7])?;
/// let TopKRows { values, columns } = dev.top_k_rows(&x, 3, 2)?;
/// assert_eq!(values.download()?, [9, 3, 7, 4]);
/// assert_eq!(columns.download()?, [1, 0, 2, 0]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct TopKRows<T: Ordered> {
    /// The selected elements, `k` a row (a line), best first (as stored in the input: a NaN
    /// keeps its bits).
    pub values: DeviceVec<T>,
    /// The column of each in its row (its index along the axis), in the same order.
    pub columns: DeviceVec<u32>,
}

impl Device {
    /// The `k` largest elements of each row of the row-major matrix `input` (`cols` columns)
    /// and their columns: `k` entries a row, largest first, equal elements by column (the
    /// smaller first), in [`Device::top_k`]'s order (every NaN above `+inf`, `-0.0` equal to
    /// `0.0`): what `torch.topk(x, k, dim=1)` selects, for batched sampling. `k = 0` gives
    /// empty arrays. Errors, in this order: `cols = 0` or a length that is not a whole number
    /// of rows is [`Error::Shape`]; `k` above 1,024 is [`Error::Unsupported`]; `k` above
    /// `cols` is [`Error::KExceedsLength`]; rows of 2^32 columns or more, or 2^31 rows or
    /// more, are [`Error::Unsupported`]. Returns without waiting for the kernels.
    ///
    /// On a GPU a block takes each row (or piece of a row, below). A row of at least 8,192
    /// columns is read once: each warp votes on whether its keys beat the block's running
    /// threshold, passing entries are appended to a buffer in shared memory, and a full buffer
    /// is refined by a radix select over the keys' 8-bit digits (stopping at the first digit
    /// that keeps at most 1.5 `k` entries); the block then keeps exactly its `k` best and
    /// sorts them. A shorter row takes a radix select of the k-th largest over its 8-bit key
    /// digits (one read of the row a digit, stopping at the first digit whose whole bin is
    /// taken; a row of `f32` takes two to four reads, mostly from L2), ties by a radix select
    /// of the columns, then one more read appends the `k` entries to shared memory, where a
    /// bitonic sort orders them. With `k` at most 256, few long rows are split into pieces of
    /// at least `8k` columns (at most 64 a row: as many as one wave of the read-once kernel
    /// holds, or, for fewer rows than twice the SMs too short for it, about four blocks an
    /// SM), a block each, and a second launch selects each row's `k` from its pieces'
    /// candidates (new memory of `pieces * k` values and columns a row).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let logits = dev.upload(&[0.1f32, 0.7, 0.2, 0.7, /* row 1 */ f32::NAN, 0.5, 2.0, -1.0])?;
    /// let best = dev.top_k_rows(&logits, 4, 2)?;
    /// assert_eq!(best.columns.download()?, [1, 3, 0, 2]); // ties by column; NaN first
    /// assert!(matches!(dev.top_k_rows(&logits, 4, 5), Err(Error::KExceedsLength { k: 5, len: 4 })));
    /// # Ok(()) }
    /// ```
    pub fn top_k_rows<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
        k: usize,
    ) -> Result<TopKRows<T>> {
        self.select_k_rows(input, cols, k, true)
    }

    /// The `k` smallest elements of each row of `input` (`cols` columns) and their columns,
    /// smallest first, equal elements by column; [`Device::bottom_k`]'s order (NaNs last).
    /// Errors as [`Device::top_k_rows`]'s.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let x = dev.upload(&[5i32, -2, 5, /* row 1 */ 0, 0, -9])?;
    /// let low = dev.bottom_k_rows(&x, 3, 2)?;
    /// assert_eq!(low.values.download()?, [-2, 5, -9, 0]);
    /// assert_eq!(low.columns.download()?, [1, 0, 2, 0]);
    /// # Ok(()) }
    /// ```
    pub fn bottom_k_rows<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
        k: usize,
    ) -> Result<TopKRows<T>> {
        self.select_k_rows(input, cols, k, false)
    }

    /// The `k` largest elements of each line along `axis` of the N-d row-major array `input`
    /// (`shape`, whose product must be its length) and their positions along the axis: a
    /// result of the input's shape with `shape[axis]` replaced by `k` (row-major, entry `j` of
    /// the line at every other index is its `j`-th largest), `columns` the index along `axis`
    /// of each. [`Device::top_k_rows`]'s order (NaNs above `+inf`, ties by the smaller index)
    /// and its errors, after the shape's: an `axis` past the shape, a shape that overflows or
    /// whose product is not the input's length is [`Error::Shape`]. `torch.topk(x, k, dim)`.
    ///
    /// The last axis is [`Device::top_k_rows`]. Any other axis is moved last (a batched
    /// transpose through the padded tile, into new memory as large as the input), the rows'
    /// top-k runs, and its results are moved back (two more transposes). Returns without
    /// waiting for the kernels.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// // shape (3, 2): the top 2 of each column (axis 0)
    /// let x = dev.upload(&[1.0f32, 6.0, /* */ 5.0, 2.0, /* */ 3.0, 4.0])?;
    /// let best = dev.top_k_axis(&x, &[3, 2], 0, 2)?; // shape (2, 2)
    /// assert_eq!(best.values.download()?, [5.0, 6.0, 3.0, 4.0]);
    /// assert_eq!(best.columns.download()?, [1, 0, 2, 2]);
    /// # Ok(()) }
    /// ```
    pub fn top_k_axis<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        shape: &[usize],
        axis: usize,
        k: usize,
    ) -> Result<TopKRows<T>> {
        self.select_k_axis(input, shape, axis, k, true)
    }

    /// The `k` smallest elements of each line along `axis` of `input` (`shape`) and their
    /// positions along it, smallest first: [`Device::top_k_axis`] in [`Device::bottom_k`]'s
    /// order (NaNs last), with its errors.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let x = dev.upload(&[4i32, 1, 9, /* */ 0, 7, 2])?; // shape (2, 3)
    /// let low = dev.bottom_k_axis(&x, &[2, 3], 0, 1)?; // shape (1, 3)
    /// assert_eq!(low.values.download()?, [0, 1, 2]);
    /// assert_eq!(low.columns.download()?, [1, 0, 1]);
    /// # Ok(()) }
    /// ```
    pub fn bottom_k_axis<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        shape: &[usize],
        axis: usize,
        k: usize,
    ) -> Result<TopKRows<T>> {
        self.select_k_axis(input, shape, axis, k, false)
    }

    fn select_k_axis<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        shape: &[usize],
        axis: usize,
        k: usize,
        largest: bool,
    ) -> Result<TopKRows<T>> {
        let elems = input.elements();
        self.check_elements(&elems)?;
        let Along { outer, n, inner } = Along::of(shape, axis, elems.len())?;
        if n == 0 {
            // Lines of no elements: k = 0 selects nothing from each, more is too many.
            return match k {
                0 => Ok(TopKRows {
                    values: self.new_array::<T>(0)?,
                    columns: self.new_array::<u32>(0)?,
                }),
                _ if k > TOPK_MAX_K => Err(too_large_k(k)),
                _ => Err(Error::KExceedsLength { k, len: 0 }),
            };
        }
        if inner == 1 || elems.is_empty() {
            // The last axis (or nothing to move): the lines are rows. An empty input has
            // rows of its own length `n` as every other shape of it does.
            return self.select_k_lines(&elems, n, k, largest);
        }
        // (outer, n, inner) -> (outer, inner, n): the lines become rows.
        let mut moved = self.new_array::<T>(elems.len())?;
        let rows = Rows {
            rows: n,
            cols: inner,
        };
        self.transpose_batches(&elems, outer, rows, true, &mut moved)?;
        let best = self.select_k_lines(&moved.as_slice().elements(), n, k, largest)?;
        // (outer, inner, k) -> (outer, k, inner).
        let back = Rows {
            rows: inner,
            cols: k,
        };
        let mut values = self.new_array::<T>(best.values.len())?;
        let mut columns = self.new_array::<u32>(best.columns.len())?;
        self.transpose_batches(
            &best.values.as_slice().elements(),
            outer,
            back,
            true,
            &mut values,
        )?;
        self.transpose_batches(
            &best.columns.as_slice().elements(),
            outer,
            back,
            true,
            &mut columns,
        )?;
        Ok(TopKRows { values, columns })
    }

    fn select_k_rows<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
        k: usize,
        largest: bool,
    ) -> Result<TopKRows<T>> {
        let elems = input.elements();
        self.check_elements(&elems)?;
        self.select_k_lines(&elems, cols, k, largest)
    }

    fn select_k_lines<T: Ordered>(
        &self,
        elems: &Elements<'_, T>,
        cols: usize,
        k: usize,
        largest: bool,
    ) -> Result<TopKRows<T>> {
        let rows = rows_of(elems.len(), cols)?;
        if k > TOPK_MAX_K {
            return Err(too_large_k(k));
        }
        if k > cols {
            return Err(Error::KExceedsLength { k, len: cols });
        }
        if cols > u32::MAX as usize || rows >= i32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "top-k of rows takes fewer than 2^32 columns and 2^31 rows; this is {rows} x {cols}"
            )));
        }
        match &*self.backend {
            Backend::Cpu => {
                use rayon::prelude::*;
                let data = elems.cpu()?;
                // Rows in parallel (each row's own selection splits long rows again).
                let per_row: Vec<(Vec<T>, Vec<u64>)> = data
                    .par_chunks(cols)
                    .map(|row| cpu::top_k(row, k, largest, T::order_key, T::KEY_BITS))
                    .collect();
                let values: Vec<T> = per_row.iter().flat_map(|r| r.0.iter().copied()).collect();
                let columns: Vec<u32> = per_row
                    .iter()
                    .flat_map(|r| r.1.iter().map(|&c| c as u32))
                    .collect();
                Ok(TopKRows {
                    values: self.upload(&values)?,
                    columns: self.upload(&columns)?,
                })
            }
            Backend::Gpu(g) => {
                let mut values = self.new_array::<T>(rows * k)?;
                let mut columns = self.new_array::<u32>(rows * k)?;
                if k == 0 || rows == 0 {
                    return Ok(TopKRows { values, columns });
                }
                let module = g.module(topk_key::<T>(), topk_module::<T>)?;
                let (mut vb, mut cb) = (values.gpu_bytes_mut()?, columns.gpu_bytes_mut()?);
                g.top_k_rows(
                    &module,
                    elems.gpu()?,
                    cols,
                    k,
                    largest,
                    (
                        typed::<T>(&mut vb, rows * k)?,
                        typed::<u32>(&mut cb, rows * k)?,
                    ),
                )?;
                Ok(TopKRows { values, columns })
            }
        }
    }
}

/// The error of a `k` above [`TOPK_MAX_K`].
fn too_large_k(k: usize) -> Error {
    Error::Unsupported(format!("top-k takes k up to {TOPK_MAX_K}; asked for {k}"))
}
