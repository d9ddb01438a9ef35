//! Top-k and bottom-k: the k largest or smallest elements of an array with their indices,
//! sorted, read about once (warp votes against a running threshold, then a small candidate set).

use std::any::TypeId;

use warp_kernels::catalogue::TOPK_MAX_K;
use warp_kernels::module;

use super::{composed, location, typed};
use crate::arrays::DeviceVec;
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{ModuleKey, ModuleKind};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::toolchain::ModuleSource;
use crate::values::Ordered;

/// The result of [`Device::top_k`] and [`Device::bottom_k`]: the selected elements, best
/// first, and the index of each in the input. Both arrays live on the device that computed
/// them and are `k` long.
///
/// ```
/// use warp_runtime::prelude::*;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let TopK { values, indices } = dev.top_k(&dev.upload(&[3u8, 9, 1, 9])?, 3)?;
/// assert_eq!((values.download()?, indices.download()?), (vec![9, 9, 3], vec![1, 3, 0]));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct TopK<T: Ordered> {
    /// The selected elements, best first (as stored in the input: a NaN keeps its bits).
    pub values: DeviceVec<T>,
    /// Their indices in the input (`u64`), in the same order.
    pub indices: DeviceVec<u64>,
}

/// The key of the top-k module of `T`.
pub(crate) fn topk_key<T: Ordered>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::TopK,
        [TypeId::of::<T>(), TypeId::of::<()>(), TypeId::of::<()>()],
    )
}

/// The CUDA module of `top_k` and `bottom_k` for elements of type `T`.
///
/// ```
/// use warp_runtime::impl_::topk_module;
/// assert!(topk_module::<f32>().source.contains("wd_k_topk("));
/// ```
pub fn topk_module<T: Ordered>() -> ModuleSource {
    composed(
        location(&format!("topk_{}", T::NAME), file!(), line!()),
        module::topk_module(T::SCALAR),
        false,
    )
}

impl Device {
    /// The `k` largest elements of `input` and their indices, largest first; equal elements
    /// in index order (the smaller index first, so ties keep the earliest). The order is
    /// [`Ordered`]'s: for floats every NaN is larger than `+inf` (as in `torch.topk`), so NaNs
    /// come first, and `-0.0` equals `0.0`. `k = 0` gives empty arrays. Errors, checked in
    /// this order: `k` above 1,024 is [`Error::Unsupported`] (even when the input is shorter
    /// than `k`); then `k` larger than the input is [`Error::KExceedsLength`]; then inputs of
    /// 2^32 - 1 elements or more are [`Error::Unsupported`]. The CPU backend keeps about `k`
    /// candidates per task, so its memory does not grow with the input.
    ///
    /// On a GPU the input is read about once. On large inputs (at least 3,072 groups of one
    /// warp load, about 12.6 million elements of up to 4 bytes; 2,560 groups, 5.2 million, of
    /// 8 bytes) a sample of one element in 16, as the maxima of groups spread over the input,
    /// gives a first bound shared by all blocks: the k-th largest maximum, which at least k
    /// elements reach. Then each warp votes (`__ballot_sync`) on whether its elements beat its
    /// block's running threshold (the k-th best the block has kept so far) and that bound
    /// (first with a cheap test, for `f32` and `f64` a float compare against the threshold, so
    /// that most of the input costs a compare per element), and appends the few that do to
    /// the block's candidate buffer in shared memory, which a radix select refines when it
    /// fills; the blocks' best k go to one list, whose best k the last block to finish sorts
    /// (a long list is first trimmed by the same kernel, 8,192 candidates per block). Exact
    /// for every input (sorted, all equal, all NaN: more refining, never a wrong answer).
    /// Returns without waiting for the kernels.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[0.5f32, f32::NAN, 2.0, -1.0, 2.0])?;
    /// let top = dev.top_k(&xs, 3)?;
    /// assert_eq!(top.indices.download()?, [1, 2, 4]); // NaN, then the two 2.0s in order
    /// assert!(top.values.download()?[0].is_nan());
    /// assert!(matches!(dev.top_k(&xs, 6), Err(Error::KExceedsLength { k: 6, len: 5 })));
    /// # Ok(()) }
    /// ```
    pub fn top_k<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        k: usize,
    ) -> Result<TopK<T>> {
        self.select_k(input, k, true)
    }

    /// The `k` smallest elements of `input` and their indices, smallest first; equal
    /// elements in index order. The order is [`Ordered`]'s, as for [`Device::top_k`]: NaN is
    /// larger than everything, so NaNs come last (only when fewer than `k` other elements
    /// exist). Errors as [`Device::top_k`]'s; the same single read on a GPU (the keys
    /// complemented). Returns without waiting for the kernels.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[4i32, -7, 4, 0, i32::MIN])?;
    /// let low = dev.bottom_k(&xs, 3)?;
    /// assert_eq!(low.values.download()?, [i32::MIN, -7, 0]);
    /// assert_eq!(low.indices.download()?, [4, 1, 3]);
    /// # Ok(()) }
    /// ```
    pub fn bottom_k<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        k: usize,
    ) -> Result<TopK<T>> {
        self.select_k(input, k, false)
    }

    fn select_k<T: Ordered, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        k: usize,
        largest: bool,
    ) -> Result<TopK<T>> {
        let elems = input.elements();
        self.check_elements(&elems)?;
        let len = elems.len();
        if k > TOPK_MAX_K {
            return Err(Error::Unsupported(format!(
                "top-k takes k up to {TOPK_MAX_K}; asked for {k}"
            )));
        }
        if k > len {
            return Err(Error::KExceedsLength { k, len });
        }
        if len >= u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "top-k takes inputs below 2^32 - 1 elements; this one has {len}"
            )));
        }
        match &*self.backend {
            Backend::Cpu => {
                let (values, indices) =
                    cpu::top_k(elems.cpu()?, k, largest, T::order_key, T::KEY_BITS);
                Ok(TopK {
                    values: self.upload(&values)?,
                    indices: self.upload(&indices)?,
                })
            }
            Backend::Gpu(g) => {
                let mut values = self.new_array::<T>(k)?;
                let mut indices = self.new_array::<u64>(k)?;
                if k == 0 {
                    return Ok(TopK { values, indices });
                }
                let module = g.module(topk_key::<T>(), topk_module::<T>)?;
                let (mut vb, mut ib) = (values.gpu_bytes_mut()?, indices.gpu_bytes_mut()?);
                g.top_k(
                    &module,
                    elems.columns()?,
                    k,
                    largest,
                    typed::<T>(&mut vb, k)?,
                    typed::<u64>(&mut ib, k)?,
                )?;
                Ok(TopK { values, indices })
            }
        }
    }
}
