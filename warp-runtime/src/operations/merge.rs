//! Sorting by the user's "less than" (a `#[predicate(inputs = 2)]` of two keys): a stable
//! merge sort of the keys (`sort_by`) or of their positions (`argsort_by`).

use std::any::TypeId;

use warp_kernels::module;

use super::{composed, gpu_bytes, location, typed};
use crate::OutputArray;
use crate::arrays::{DeviceVec, Target, write_host};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{ModuleKey, ModuleKind};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::operators::Predicate;
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element};

/// The key of the merge sort module of keys `K` ordered by `L`.
fn merge_key<K: Element, L: Predicate<Input = (K, K)>>() -> ModuleKey
where
    (K, K): DeviceValue,
{
    ModuleKey::new(
        ModuleKind::Merge,
        [
            TypeId::of::<L::Key>(),
            TypeId::of::<K>(),
            TypeId::of::<()>(),
        ],
    )
}

/// The CUDA module of [`Device::sort_by`] and [`Device::argsort_by`] over keys `K` ordered by
/// the predicate `L` (of two keys: whether the first sorts before the second).
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::impl_::merge_module;
/// #[predicate(inputs = 2)]
/// fn closer(a: f32, b: f32) -> bool { a.abs() < b.abs() }
/// assert!(merge_module::<f32, closer>().source.contains("wd_k_merge_pass("));
/// ```
pub fn merge_module<K: Element, L: Predicate<Input = (K, K)>>() -> ModuleSource
where
    (K, K): DeviceValue,
{
    let f = &L::META.fragment;
    composed(
        location(&format!("merge_{}", f.name), &f.file, f.line),
        module::merge_module(K::SCALAR, f),
        false,
    )
}

impl Device {
    /// The keys of `keys` sorted by `less`, as a new array: `less(a, b)` says whether `a`
    /// sorts before `b` (a `#[predicate(inputs = 2)]` of two keys, bound arguments allowed),
    /// as `slice::sort_by` sorts with a comparator. Stable: of keys neither less than the
    /// other, the earlier comes first. `less` should be a strict weak order (irreflexive and
    /// transitive, with transitive incomparability: `f32`'s `<` is not, with NaNs); with any
    /// other the result is some permutation of the keys (never an error, on either backend,
    /// and not necessarily the same on both). Every element type; fewer than 2^32 keys on a
    /// GPU (else [`Error::Unsupported`]). A one-input `#[predicate]` of a `(K, K)` tuple is
    /// refused ([`Error::Unsupported`]): declare it with `inputs = 2`. Returns without
    /// waiting for the kernels.
    ///
    /// On a GPU: a merge sort (CUB's `DeviceMergeSort`): a block sorts each tile of 2,048
    /// keys (1,024 of 8-byte keys) in registers and shared memory, then each pass merges pairs
    /// of sorted runs, a block per output tile, each tile's start on the merge path found by a
    /// binary search; about log2(n / 2,048) passes, each reading and writing every key. For
    /// keys whose order is a key's order ([`Device::sort`], [`Device::sort_by_key`]) the
    /// radix sort is several times faster.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate(inputs = 2)]
    /// fn closer(a: f32, b: f32) -> bool { a.abs() < b.abs() }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[-3.0f32, 1.0, -1.0, 2.0])?;
    /// assert_eq!(dev.sort_by(closer, &xs)?.download()?, [1.0, -1.0, 2.0, -3.0]);
    /// # Ok(()) }
    /// ```
    pub fn sort_by<K, L, S>(&self, less: L, keys: &S) -> Result<DeviceVec<K>>
    where
        K: Element,
        L: Predicate<Input = (K, K)>,
        (K, K): DeviceValue,
        S: AsSlice<K> + ?Sized,
    {
        let mut out = self.new_array::<K>(keys.elements().len())?;
        self.sort_by_into(less, keys, &mut out)?;
        Ok(out)
    }

    /// [`Device::sort_by`] into `out` (as long as `keys`: else [`Error::Shape`]), allocating
    /// no output.
    pub fn sort_by_into<K, L, S, O>(&self, less: L, keys: &S, out: &mut O) -> Result<()>
    where
        K: Element,
        L: Predicate<Input = (K, K)>,
        (K, K): DeviceValue,
        S: AsSlice<K> + ?Sized,
        O: OutputArray<K> + ?Sized,
    {
        let n = keys.elements().len();
        let out = self.output(out, n, "sort_by")?;
        self.merge_sort_with(&less, keys, Some(out), None)
    }

    /// The positions (`u32`) of `keys` in the order [`Device::sort_by`] sorts them: element
    /// `i` is the input position of the `i`-th key (of keys neither less than the other, the
    /// earlier first). Errors as [`Device::sort_by`]'s.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate(inputs = 2)]
    /// fn later_day(a: u32, b: u32) -> bool { a % 7 > b % 7 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[8u32, 6, 13, 1])?; // days 1, 6, 6, 1
    /// assert_eq!(dev.argsort_by(later_day, &xs)?.download()?, [1, 2, 0, 3]);
    /// # Ok(()) }
    /// ```
    pub fn argsort_by<K, L, S>(&self, less: L, keys: &S) -> Result<DeviceVec<u32>>
    where
        K: Element,
        L: Predicate<Input = (K, K)>,
        (K, K): DeviceValue,
        S: AsSlice<K> + ?Sized,
    {
        let mut out = self.new_array::<u32>(keys.elements().len())?;
        self.argsort_by_into(less, keys, &mut out)?;
        Ok(out)
    }

    /// [`Device::argsort_by`] into `out` (as long as `keys`: else [`Error::Shape`]),
    /// allocating no output.
    pub fn argsort_by_into<K, L, S, O>(&self, less: L, keys: &S, out: &mut O) -> Result<()>
    where
        K: Element,
        L: Predicate<Input = (K, K)>,
        (K, K): DeviceValue,
        S: AsSlice<K> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        let n = keys.elements().len();
        let out = self.output(out, n, "argsort_by")?;
        self.merge_sort_with(&less, keys, None, Some(out))
    }

    /// The merge sort: the sorted keys into `keys_target` and their positions into
    /// `pos_target` (each when given; their lengths are checked).
    fn merge_sort_with<K, L, S>(
        &self,
        less: &L,
        keys: &S,
        keys_target: Option<Target<'_>>,
        pos_target: Option<Target<'_>>,
    ) -> Result<()>
    where
        K: Element,
        L: Predicate<Input = (K, K)>,
        (K, K): DeviceValue,
        S: AsSlice<K> + ?Sized,
    {
        let f = &L::META.fragment;
        if f.inputs != 2 {
            return Err(Error::Unsupported(format!(
                "`{}` orders keys only as a predicate of two parameters, \
                 #[predicate(inputs = 2)] fn(a, b) -> bool (whether a sorts before b)",
                f.name
            )));
        }
        let args = less.args();
        self.check_bound(&args)?;
        let elems = keys.elements();
        self.check_elements(&elems)?;
        let n = elems.len();
        if n == 0 {
            return Ok(());
        }
        match &*self.backend {
            Backend::Cpu => {
                let data = elems.cpu()?;
                let perm = cpu::merge_sort_permutation(data, |a, b| less.test((a, b)));
                if let Some(Target::Cpu(bytes, _)) = keys_target {
                    let sorted: Vec<K> = perm.iter().map(|&i| data[i as usize]).collect();
                    write_host(bytes, &sorted);
                }
                if let Some(Target::Cpu(bytes, _)) = pos_target {
                    write_host(bytes, &perm);
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                let module = g.module(merge_key::<K, L>(), merge_module::<K, L>)?;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| typed::<K>(b, n)).transpose()?;
                let mut pos_bytes = pos_target.map(gpu_bytes).transpose()?;
                let pos = pos_bytes.as_mut().map(|b| typed::<u32>(b, n)).transpose()?;
                self.with_bound(g, &args, |a| {
                    g.merge_sort(&module, a, elems.gpu()?, out, pos)
                })
            }
        }
    }
}
