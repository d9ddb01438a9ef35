//! Sorting each row of a row-major matrix or each CSR segment: its keys (`sort_rows`,
//! `sort_segments`), with values (`sort_pairs_rows`, `sort_pairs_segments`) or the positions
//! that sort it (`argsort_rows`, `argsort_segments`), stable, ascending or descending.

use super::sort::{Moved, SortOrder, gpu_sort_module};
use super::{check_offsets, gpu_bytes, rows_of, typed};
use crate::OutputArray;
use crate::arrays::{DeviceVec, Elements, Target, write_host};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::SortValues;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::values::{Element, Ordered};

impl Device {
    /// Each row of the row-major matrix `keys` (`cols` columns) sorted on its own, as a new
    /// array of the same shape: as [`Device::sort`] sorts (stable, `order`, floats in
    /// `total_cmp` order) within every row. `cols = 0`, or a length that is not a whole number
    /// of rows, is an [`Error::Shape`]; no rows give an empty array. Returns without waiting
    /// for the kernels.
    ///
    /// On a GPU: rows of at most 32 keys are sorted by a bitonic network: in a thread's
    /// registers for keys of up to 4 bytes (the rows staged through shared memory, read and
    /// written coalesced), over the keys' order words alone (equal words are equal keys, so
    /// the order among them cannot be seen; an `argsort_rows` or a sort of pairs sorts
    /// (key, column), so equal keys keep their order); by a group of lanes exchanging
    /// (key, column) with warp shuffles for 8-byte keys. Rows of at most 4,096 keys of 1 to 4
    /// bytes, or 3,072 of 8 bytes, are sorted in shared memory, as many whole rows a block as
    /// fit (at most 255): a ranking per byte of the keys and one by the row, each skipped where
    /// every key of the block has the same digit; the keys are read and written once. A row
    /// that takes a block alone (more than 2,048 keys of 1 to 4 bytes, or 1,536 of 8 bytes)
    /// is sorted, where only the keys are wanted (`sort_rows`, `sort_rows_into`), by a merge
    /// sort of its order words in shared memory, with no column carried. Longer
    /// rows are sorted one at a time by the device-wide sort ([`Device::sort`]), which suits
    /// few long rows (a few launches a row) rather than many.
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
        self.sort_groups_with(
            keys,
            Groups::Rows(cols),
            Some(out),
            Moved::<u8>::None,
            order,
        )
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
        self.sort_groups_with(keys, Groups::Rows(cols), None, positions(out), order)
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
        let groups = Groups::Segments(offsets.elements());
        self.sort_groups_with(keys, groups, Some(out), Moved::<u8>::None, order)
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
        let groups = Groups::Segments(offsets.elements());
        self.sort_groups_with(keys, groups, None, positions(out), order)
    }

    /// Each row of the row-major matrix `keys` (`cols` columns) sorted on its own as
    /// [`Device::sort_rows`] sorts it, with `values` (as long) moved along: the values of
    /// equal keys keep their order. Values are any scalar element type. Returns `(keys,
    /// values)`. Errors as [`Device::sort_rows`]'s, and values not as long as the keys are an
    /// [`Error::Shape`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let scores = dev.upload(&[0.1f32, 0.7, 0.2, /* row 1 */ 0.5, 0.9, 0.4])?;
    /// let tokens = dev.upload(&[10u32, 11, 12, /* row 1 */ 20, 21, 22])?;
    /// let (s, t) = dev.sort_pairs_rows(&scores, &tokens, 3, SortOrder::Descending)?;
    /// assert_eq!(t.download()?, [11, 12, 10, /* row 1 */ 21, 20, 22]);
    /// assert_eq!(s.download()?, [0.7, 0.2, 0.1, 0.9, 0.5, 0.4]);
    /// # Ok(()) }
    /// ```
    pub fn sort_pairs_rows<K, V, SK, SV>(
        &self,
        keys: &SK,
        values: &SV,
        cols: usize,
        order: SortOrder,
    ) -> Result<(DeviceVec<K>, DeviceVec<V>)>
    where
        K: Ordered,
        V: Element,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<V> + ?Sized,
    {
        let n = keys.elements().len();
        rows_of(n, cols)?;
        let (mut k, mut v) = (self.new_array::<K>(n)?, self.new_array::<V>(n)?);
        self.sort_pairs_rows_into(keys, values, cols, &mut k, &mut v, order)?;
        Ok((k, v))
    }

    /// [`Device::sort_pairs_rows`] into `keys_out` and `values_out` (each as long as `keys`:
    /// else [`Error::Shape`]).
    pub fn sort_pairs_rows_into<K, V, SK, SV, OK, OV>(
        &self,
        keys: &SK,
        values: &SV,
        cols: usize,
        keys_out: &mut OK,
        values_out: &mut OV,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        V: Element,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<V> + ?Sized,
        OK: OutputArray<K> + ?Sized,
        OV: OutputArray<V> + ?Sized,
    {
        let n = keys.elements().len();
        rows_of(n, cols)?;
        let moved = self.moved_values(values, n, values_out, "sort_pairs_rows")?;
        let keys_out = self.output(keys_out, n, "sort_pairs_rows")?;
        self.sort_groups_with(keys, Groups::Rows(cols), Some(keys_out), moved, order)
    }

    /// Each CSR segment of `keys` sorted on its own as [`Device::sort_segments`] sorts it,
    /// with `values` (as long) moved along: the values of equal keys keep their order. Values
    /// are any scalar element type. Returns `(keys, values)`. Errors as
    /// [`Device::sort_segments`]'s, and values not as long as the keys are an
    /// [`Error::Shape`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let dist = dev.upload(&[3u32, 1, 2, /* */ 5, 4])?; // the edges' weights
    /// let dest = dev.upload(&[7u64, 8, 9, /* */ 1, 2])?; // and their ends
    /// let offsets = dev.upload(&[0u64, 3, 5])?;
    /// let (d, e) = dev.sort_pairs_segments(&dist, &dest, &offsets, SortOrder::Ascending)?;
    /// assert_eq!((d.download()?, e.download()?), (vec![1, 2, 3, 4, 5], vec![8, 9, 7, 2, 1]));
    /// # Ok(()) }
    /// ```
    pub fn sort_pairs_segments<K, V, SK, SV, SO>(
        &self,
        keys: &SK,
        values: &SV,
        offsets: &SO,
        order: SortOrder,
    ) -> Result<(DeviceVec<K>, DeviceVec<V>)>
    where
        K: Ordered,
        V: Element,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<V> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
    {
        let n = keys.elements().len();
        let (mut k, mut v) = (self.new_array::<K>(n)?, self.new_array::<V>(n)?);
        self.sort_pairs_segments_into(keys, values, offsets, &mut k, &mut v, order)?;
        Ok((k, v))
    }

    /// [`Device::sort_pairs_segments`] into `keys_out` and `values_out` (each as long as
    /// `keys`: else [`Error::Shape`]).
    #[allow(clippy::too_many_arguments)]
    pub fn sort_pairs_segments_into<K, V, SK, SV, SO, OK, OV>(
        &self,
        keys: &SK,
        values: &SV,
        offsets: &SO,
        keys_out: &mut OK,
        values_out: &mut OV,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        V: Element,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<V> + ?Sized,
        SO: AsSlice<u64> + ?Sized,
        OK: OutputArray<K> + ?Sized,
        OV: OutputArray<V> + ?Sized,
    {
        let n = keys.elements().len();
        let moved = self.moved_values(values, n, values_out, "sort_pairs_segments")?;
        let keys_out = self.output(keys_out, n, "sort_pairs_segments")?;
        let groups = Groups::Segments(offsets.elements());
        self.sort_groups_with(keys, groups, Some(keys_out), moved, order)
    }

    /// The values a pairs' sort of `n` keys moves, checked (on this device, as many as the
    /// keys), with their output.
    fn moved_values<'a, 'o, V, SV, OV>(
        &self,
        values: &'a SV,
        n: usize,
        values_out: &'o mut OV,
        what: &str,
    ) -> Result<Moved<'a, 'o, V>>
    where
        V: Element,
        SV: AsSlice<V> + ?Sized,
        OV: OutputArray<V> + ?Sized,
    {
        let values = values.elements();
        self.check_elements(&values)?;
        if values.len() != n {
            return Err(Error::Shape(format!(
                "{what}: {n} keys but {} values",
                values.len()
            )));
        }
        Ok(Moved::Values(values, self.output(values_out, n, what)?))
    }

    /// The groups' sort (rows or CSR segments, each sorted on its own): the sorted keys into
    /// `keys_target` (when given) and, as `moved` says, the values at the keys' places or each
    /// key's position in its group (`u32`).
    fn sort_groups_with<K, S, V>(
        &self,
        keys: &S,
        groups: Groups<'_>,
        keys_target: Option<Target<'_>>,
        moved: Moved<'_, '_, V>,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        V: Element,
    {
        let elems = keys.elements();
        self.check_elements(&elems)?;
        let n = elems.len();
        let descending = order == SortOrder::Descending;
        let positions_wanted = matches!(moved, Moved::Positions(..));
        if let Groups::Segments(offs) = &groups {
            self.check_elements(offs)?;
            if offs.is_empty() {
                return Err(Error::Shape(
                    "CSR offsets need at least one entry (segments + 1)".into(),
                ));
            }
        }
        if let Groups::Rows(cols) = groups
            && positions_wanted
            && cols > u32::MAX as usize + 1
        {
            return Err(Error::Shape(format!(
                "rows of {cols} columns cannot be indexed with `u32`"
            )));
        }
        match &*self.backend {
            Backend::Cpu => {
                let data = elems.cpu()?;
                // Each output place's group start and the permutation within the group.
                let (perm, starts): (Vec<u32>, Vec<usize>) = match &groups {
                    Groups::Rows(cols) => (
                        cpu::sort_rows_permutation(data, *cols, K::sort_key, descending),
                        (0..n).map(|i| i / cols * cols).collect(),
                    ),
                    Groups::Segments(offs) => {
                        let o = offs.cpu()?;
                        check_cover(o, n, positions_wanted)?;
                        let starts = o
                            .windows(2)
                            .flat_map(|w| {
                                std::iter::repeat_n(w[0] as usize, (w[1] - w[0]) as usize)
                            })
                            .collect();
                        (
                            cpu::sort_segments_permutation(data, o, K::sort_key, descending),
                            starts,
                        )
                    }
                };
                let src = |i: usize| starts[i] + perm[i] as usize;
                if let Some(Target::Cpu(bytes, _)) = keys_target {
                    let sorted: Vec<K> = (0..n).map(|i| data[src(i)]).collect();
                    write_host(bytes, &sorted);
                }
                match moved {
                    Moved::Values(v, Target::Cpu(bytes, _)) => {
                        let v = v.cpu()?;
                        let moved: Vec<V> = (0..n).map(|i| v[src(i)]).collect();
                        write_host(bytes, &moved);
                    }
                    Moved::Positions(Target::Cpu(bytes, _), _) => write_host(bytes, &perm),
                    _ => {}
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                if let Groups::Segments(offs) = &groups
                    && (offs.len() == 1 || n == 0)
                {
                    // No segment or no key, no kernel: the offsets are checked as the CPU does.
                    return check_cover(&g.download(&offs.gpu()?)?, n, false);
                }
                if n == 0 {
                    return Ok(());
                }
                let value_size = V::C_SIZE;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| typed::<K>(b, n)).transpose()?;
                let values = match moved {
                    Moved::None => SortValues::None,
                    Moved::Values(input, t) => SortValues::Pairs {
                        input: input.columns()?.views.remove(0),
                        out: gpu_bytes(t)?,
                        size: value_size,
                    },
                    Moved::Positions(t, _) => SortValues::Positions {
                        out: gpu_bytes(t)?,
                        size: 4,
                    },
                };
                // The module whose device-wide sort (long groups) moves what the groups' kernels
                // move: 4-byte positions, the values' words, or nothing.
                let module = gpu_sort_module::<K>(g, values.moves())?;
                match groups {
                    Groups::Rows(cols) => {
                        g.sort_rows(&module, elems.gpu()?, out, values, cols, descending)
                    }
                    Groups::Segments(offs) => {
                        let bad = g.sort_segments(
                            &module,
                            elems.gpu()?,
                            offs.gpu()?,
                            out,
                            values,
                            descending,
                        )?;
                        if bad {
                            // The plan found them bad: say how.
                            check_cover(&g.download(&offs.gpu()?)?, n, positions_wanted)?;
                        }
                        Ok(())
                    }
                }
            }
        }
    }
}

/// How the groups' sort cuts the keys: rows of `cols` keys, or CSR segments.
enum Groups<'a> {
    Rows(usize),
    Segments(Elements<'a, u64>),
}

/// The positions' output of an argsort of groups (`u32`, each key's place in its group).
fn positions(out: Target<'_>) -> Moved<'_, '_, u32> {
    Moved::Positions(out, |i| i as u32)
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
