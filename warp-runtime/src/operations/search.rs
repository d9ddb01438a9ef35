//! Binary search: the lower and upper bounds of many queries in a sorted array, in the sort's
//! order (`slice::partition_point`, `thrust::lower_bound`, `torch.searchsorted`).

use std::any::TypeId;

use warp_kernels::catalogue::{SEARCH_SORT_MIN_BYTES, SEARCH_SORT_MIN_QUERIES};
use warp_kernels::module;

use super::sort::{Moved, SortOrder};
use super::{composed, gpu_bytes, location};
use crate::OutputArray;
use crate::arrays::{DeviceVec, write_host};
use crate::backend::Backend;
use crate::backend::cuda::{ModuleKey, ModuleKind, SortedQueries};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::toolchain::ModuleSource;
use crate::values::{IndexInt, Ordered};

/// The key of the search module of keys `K` with answers of type `I`.
fn search_key<K: Ordered, I: IndexInt>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Search,
        [TypeId::of::<K>(), TypeId::of::<I>(), TypeId::of::<()>()],
    )
}

/// The CUDA module of [`Device::lower_bound`] and [`Device::upper_bound`] over keys `K` with
/// answers of the integer type `I`.
///
/// ```
/// use warp_runtime::impl_::search_module;
/// assert!(search_module::<f32, u32>().source.contains("wd_k_search("));
/// ```
pub fn search_module<K: Ordered, I: IndexInt>() -> ModuleSource {
    composed(
        location(&format!("search_{}_{}", K::NAME, I::NAME), file!(), line!()),
        module::search_module(K::SCALAR, I::SCALAR),
        false,
    )
}

impl Device {
    /// For each query, the number of keys of `sorted` that come before it: the first place
    /// where the query could be inserted with the array kept sorted (before equal keys), as
    /// `u32` (`slice::partition_point(|k| k < q)`, C++'s `std::lower_bound`, NumPy's
    /// `searchsorted(side="left")`). `sorted` must be sorted in `order`, in
    /// [`Ordered::sort_key`]'s order, as [`Device::sort`] leaves it: floats in `total_cmp`
    /// order, so `-0.0` comes before `+0.0` and NaNs have places (negative NaNs first,
    /// positive last). An array not sorted so is not an error: each answer is then some place
    /// from 0 to its length. An array of more than `u32::MAX` keys is an [`Error::Shape`]
    /// (use [`Device::lower_bound_into`] with `u64`). Returns without waiting for the kernel.
    ///
    /// On a GPU: each block holds a sample of the array in shared memory (up to 2,048 keys,
    /// evenly spaced), which narrows each query to a stretch of the array; a branch-free binary
    /// search of the stretch (the same number of steps for every query) finishes it, four
    /// queries a thread at once. Queries in sorted order read the same memory as their
    /// neighbours and run about ten times faster than random ones, so at least 65,536 queries
    /// into an array of at least 32 MB are first sorted (the radix sort, with their positions,
    /// into new arrays as large as the queries and the positions), then searched, each answer
    /// written to its query's place. A pass over the queries first checks whether they are
    /// already in the array's order; if so the sort runs no pass (decided on the device,
    /// without waiting) and the queries are searched in place. Queries in order that are
    /// dense in the array (256 of them spanning on average no more keys than a sample's
    /// stretch) are searched by tiles of 256: each tile's first answer is found as above,
    /// then the keys between one tile's first answer and the next's are read once,
    /// coalesced, into shared memory (up to 8,192 keys, 4,096 of 8 bytes) and the tile's
    /// queries searched there, so the array is read about once in all.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let sorted = dev.upload(&[1.0f32, 2.0, 2.0, 5.0])?;
    /// let queries = dev.upload(&[2.0f32, 0.0, 9.0, 3.0])?;
    /// let at = dev.lower_bound(&sorted, &queries, SortOrder::Ascending)?;
    /// assert_eq!(at.download()?, [1, 0, 4, 3]);
    /// # Ok(()) }
    /// ```
    pub fn lower_bound<K, S, Q>(
        &self,
        sorted: &S,
        queries: &Q,
        order: SortOrder,
    ) -> Result<DeviceVec<u32>>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        Q: AsSlice<K> + ?Sized,
    {
        let mut out = self.new_array::<u32>(queries.elements().len())?;
        self.lower_bound_into(sorted, queries, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::lower_bound`] into `out` (as long as `queries`: else [`Error::Shape`]), of
    /// any integer type that holds the array's length (else [`Error::Shape`]; `u64` for any).
    pub fn lower_bound_into<K, S, Q, I, O>(
        &self,
        sorted: &S,
        queries: &Q,
        out: &mut O,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        Q: AsSlice<K> + ?Sized,
        I: IndexInt,
        O: OutputArray<I> + ?Sized,
    {
        self.search_into(sorted, queries, out, order, false)
    }

    /// For each query, the number of keys of `sorted` that come before it or are equal to it
    /// (the same order word): the last place where it could be inserted with the array kept
    /// sorted (after equal keys), as `u32` (`slice::partition_point(|k| k <= q)`,
    /// `std::upper_bound`, `searchsorted(side="right")`). Otherwise as [`Device::lower_bound`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let sorted = dev.upload(&[9i32, 7, 7, 3])?; // descending
    /// let queries = dev.upload(&[7i32, 10, 0])?;
    /// let lo = dev.lower_bound(&sorted, &queries, SortOrder::Descending)?;
    /// let hi = dev.upper_bound(&sorted, &queries, SortOrder::Descending)?;
    /// assert_eq!((lo.download()?, hi.download()?), (vec![1, 0, 4], vec![3, 0, 4]));
    /// # Ok(()) }
    /// ```
    pub fn upper_bound<K, S, Q>(
        &self,
        sorted: &S,
        queries: &Q,
        order: SortOrder,
    ) -> Result<DeviceVec<u32>>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        Q: AsSlice<K> + ?Sized,
    {
        let mut out = self.new_array::<u32>(queries.elements().len())?;
        self.upper_bound_into(sorted, queries, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::upper_bound`] into `out`, as [`Device::lower_bound_into`].
    pub fn upper_bound_into<K, S, Q, I, O>(
        &self,
        sorted: &S,
        queries: &Q,
        out: &mut O,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        Q: AsSlice<K> + ?Sized,
        I: IndexInt,
        O: OutputArray<I> + ?Sized,
    {
        self.search_into(sorted, queries, out, order, true)
    }

    /// Both bounds: `upper` chooses.
    fn search_into<K, S, Q, I, O>(
        &self,
        sorted: &S,
        queries: &Q,
        out: &mut O,
        order: SortOrder,
        upper: bool,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        Q: AsSlice<K> + ?Sized,
        I: IndexInt,
        O: OutputArray<I> + ?Sized,
    {
        let (keys, qs) = (sorted.elements(), queries.elements());
        self.check_elements(&keys)?;
        self.check_elements(&qs)?;
        let (n, m) = (keys.len(), qs.len());
        if n as u64 > I::MAX_INDEX {
            return Err(Error::Shape(format!(
                "places in {n} keys cannot be counted with `{}` (largest {}); use a wider type",
                I::NAME,
                I::MAX_INDEX
            )));
        }
        let what = if upper { "upper_bound" } else { "lower_bound" };
        let target = self.output(out, m, what)?;
        if m == 0 {
            return Ok(());
        }
        let descending = order == SortOrder::Descending;
        match &*self.backend {
            Backend::Cpu => {
                let (data, q) = (keys.cpu()?, qs.cpu()?);
                let word = |x: K| {
                    let k = K::sort_key(x);
                    if descending { !k } else { k }
                };
                let answers: Vec<I> = q
                    .iter()
                    .map(|&x| {
                        let w = word(x);
                        let at = data
                            .partition_point(|&k| if upper { word(k) <= w } else { word(k) < w });
                        I::from_index(at as u64)
                    })
                    .collect();
                match target {
                    crate::arrays::Target::Cpu(bytes, _) => write_host(bytes, &answers),
                    _ => unreachable!("a CPU device's output is on the host"),
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                let out = gpu_bytes(target)?;
                let module = g.module(search_key::<K, I>(), search_module::<K, I>)?;
                let sort_first = m >= SEARCH_SORT_MIN_QUERIES
                    && n * size_of::<K>() >= SEARCH_SORT_MIN_BYTES
                    && m <= u32::MAX as usize;
                if !sort_first {
                    return g.search(
                        &module,
                        keys.gpu()?,
                        qs.gpu()?,
                        None,
                        out,
                        upper,
                        descending,
                    );
                }
                // Many queries into a large array: sorted first (in the array's order, with
                // their positions), so that neighbouring queries read the same lines; the
                // answers go back to the queries' places. Queries already in order (a word
                // set on the device when they are not) are not sorted: the sort then runs no
                // pass and the search reads them in place, all without waiting.
                let mut unsorted = self.upload(&[0u32])?;
                {
                    let mut word = unsorted.gpu_bytes_mut()?;
                    // SAFETY: the array's 4 bytes viewed as its one `u32` again.
                    let word = unsafe { word.transmute_mut::<u32>(1) }
                        .ok_or_else(|| Error::Shape("a search's order word".into()))?;
                    g.search_order(&module, qs.gpu()?, word, descending)?;
                }
                let mut sorted_qs = self.new_array::<K>(m)?;
                let mut perm = self.new_array::<u32>(m)?;
                {
                    let kt = self.output(&mut sorted_qs, m, what)?;
                    let pt = self.output(&mut perm, m, what)?;
                    self.sort_with_if(
                        queries,
                        Some(kt),
                        Moved::Positions(pt, u32::from_index),
                        order,
                        Some(&unsorted.elements().gpu()?),
                    )?;
                }
                g.search(
                    &module,
                    keys.gpu()?,
                    qs.gpu()?,
                    Some(SortedQueries {
                        queries: sorted_qs.elements().gpu()?,
                        perm: perm.elements().gpu()?,
                        unsorted: unsorted.elements().gpu()?,
                    }),
                    out,
                    upper,
                    descending,
                )
            }
        }
    }
}
