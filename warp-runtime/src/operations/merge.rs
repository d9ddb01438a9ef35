//! Sorting by the user's "less than" (a `#[predicate(inputs = 2)]` of two keys): a stable
//! merge sort of the keys (`sort_by`) or of their positions (`argsort_by`), keys an array of
//! scalars or a `DeviceTuples` of tuples or structs.

use std::any::TypeId;

use warp_kernels::module;

use super::{composed, gpu_bytes, location, typed};
use crate::OutputArray;
use cudarc::driver::CudaView;

use crate::arrays::{DeviceTuples, DeviceVec, Elements, Target, ValueArray, write_host};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{ModuleKey, ModuleKind};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{Array, AsSlice};
use crate::operators::Predicate;
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element};

/// The key of the merge sort module of keys `K` ordered by `L`.
fn merge_key<K: DeviceValue, L: Predicate<Input = (K, K)>>() -> ModuleKey {
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
pub fn merge_module<K: Element, L: Predicate<Input = (K, K)>>() -> ModuleSource {
    let f = &L::META.fragment;
    composed(
        location(&format!("merge_{}", f.name), &f.file, f.line),
        module::merge_module(K::SCALAR, f),
        false,
    )
}

/// The CUDA module of [`Device::sort_by`] and [`Device::argsort_by`] over a [`DeviceTuples`]
/// of tuples or structs `K` ordered by the predicate `L` (of two values).
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::impl_::merge_values_module;
/// #[predicate(inputs = 2)]
/// fn by_first(a: (f32, u32), b: (f32, u32)) -> bool { a.0 < b.0 }
/// assert!(merge_values_module::<(f32, u32), by_first>().source.contains("wd_k_merge_pass("));
/// ```
pub fn merge_values_module<K: DeviceValue, L: Predicate<Input = (K, K)>>() -> ModuleSource {
    let f = &L::META.fragment;
    composed(
        location(&format!("merge_{}", f.name), &f.file, f.line),
        module::merge_values_module(f, K::C_SIZE),
        false,
    )
}

/// What [`Device::sort_by`] and [`Device::argsort_by`] sort: an array of scalars (a
/// [`DeviceVec`], a view, the caller's cudarc memory), or a [`DeviceTuples`] of tuples or
/// `#[derive(DeviceValue)]` structs (made by [`Device::upload_values`], or returned by an
/// operation), whose comparator takes two of them whole.
pub trait SortByInput<K: DeviceValue>: crate::inputs::Sealed + Sync {
    /// The array the sorted keys come back in: a [`DeviceVec`] for scalars, a
    /// [`DeviceTuples`] for tuples and structs.
    type Sorted: ValueArray<K>;
    /// How many keys there are.
    #[doc(hidden)]
    fn count(&self) -> usize;
    /// The keys where `dev` holds them (checked to be its): copied to the host on the CPU
    /// backend, their bytes on a GPU.
    #[doc(hidden)]
    fn key_data(&self, dev: &Device) -> Result<KeyData<'_, K>>;
    /// The merge module of keys of this input's kind ordered by `L`.
    #[doc(hidden)]
    fn module<L: Predicate<Input = (K, K)>>() -> ModuleSource;
    /// Sorts the keys by `less` into `keys_target` and their positions into `pos_target`
    /// (each when given, their lengths checked by the caller).
    #[doc(hidden)]
    fn merge_sort<L: Predicate<Input = (K, K)>>(
        &self,
        dev: &Device,
        less: &L,
        keys_target: Option<Target<'_>>,
        pos_target: Option<Target<'_>>,
    ) -> Result<()>;
}

/// A sort's keys where its backend holds them.
#[doc(hidden)]
pub enum KeyData<'a, K> {
    /// Copied to the host (the CPU backend).
    Host(Vec<K>),
    /// Their bytes on a GPU, C layout.
    Device(CudaView<'a, u8>),
}

/// The keys of `elems` (of rows of C type `K`, the bytes of one array) on `dev`: read on the
/// host by `host`, or their bytes on a GPU.
fn key_data<'a, K, R: Clone>(
    dev: &Device,
    elems: Elements<'a, R>,
    host: impl FnOnce(&[R]) -> Vec<K>,
) -> Result<KeyData<'a, K>> {
    dev.check_elements(&elems)?;
    match &*dev.backend {
        Backend::Cpu => Ok(KeyData::Host(host(elems.cpu()?))),
        Backend::Gpu(_) => Ok(KeyData::Device(elems.columns()?.views.remove(0))),
    }
}

impl<A: Array> SortByInput<A::Elem> for A {
    type Sorted = DeviceVec<A::Elem>;
    fn count(&self) -> usize {
        self.array().len()
    }
    fn key_data(&self, dev: &Device) -> Result<KeyData<'_, A::Elem>> {
        key_data(dev, self.array(), <[A::Elem]>::to_vec)
    }
    fn module<L: Predicate<Input = (A::Elem, A::Elem)>>() -> ModuleSource {
        merge_module::<A::Elem, L>()
    }
    fn merge_sort<L: Predicate<Input = (A::Elem, A::Elem)>>(
        &self,
        dev: &Device,
        less: &L,
        keys_target: Option<Target<'_>>,
        pos_target: Option<Target<'_>>,
    ) -> Result<()> {
        dev.merge_sort_with(less, self, keys_target, pos_target)
    }
}

impl<K: DeviceValue> SortByInput<K> for DeviceTuples<K> {
    type Sorted = DeviceTuples<K>;
    fn count(&self) -> usize {
        self.len()
    }
    fn key_data(&self, dev: &Device) -> Result<KeyData<'_, K>> {
        key_data(dev, self.raw().array(), |bytes: &[u8]| {
            bytes.chunks_exact(K::C_SIZE).map(K::read_c).collect()
        })
    }
    fn module<L: Predicate<Input = (K, K)>>() -> ModuleSource {
        merge_values_module::<K, L>()
    }
    fn merge_sort<L: Predicate<Input = (K, K)>>(
        &self,
        dev: &Device,
        less: &L,
        keys_target: Option<Target<'_>>,
        pos_target: Option<Target<'_>>,
    ) -> Result<()> {
        dev.merge_sort_values(less, self, keys_target, pos_target)
    }
}

impl Device {
    /// The keys of `keys` sorted by `less`, as a new array: `less(a, b)` says whether `a`
    /// sorts before `b` (a `#[predicate(inputs = 2)]` of two keys, bound arguments allowed),
    /// as `slice::sort_by` sorts with a comparator. Stable: of keys neither less than the
    /// other, the earlier comes first. `less` should be a strict weak order (irreflexive and
    /// transitive, with transitive incomparability: `f32`'s `<` is not, with NaNs); with any
    /// other the result is some permutation of the keys (never an error, on either backend,
    /// and not necessarily the same on both). A one-input `#[predicate]` of a `(K, K)` tuple
    /// is refused ([`Error::Unsupported`]): declare it with `inputs = 2`. Returns without
    /// waiting for the kernels.
    ///
    /// The keys ([`SortByInput`]) are an array of any element type (the result a
    /// [`DeviceVec`]), or a [`DeviceTuples`] of tuples or `#[derive(DeviceValue)]` structs
    /// (the result a `DeviceTuples`): the comparator then takes two of them whole,
    /// `fn(a: P, b: P) -> bool`, and reads any of their fields. Fewer than 2^32 keys on a
    /// GPU (else [`Error::Unsupported`]).
    ///
    /// On a GPU: a merge sort (CUB's `DeviceMergeSort`): a block sorts each tile of 4,352
    /// keys of up to 4 bytes (2,304 of keys up to 8 bytes, 1,280 up to 16, 768 up to 32, 256
    /// of larger ones, up to 64) in registers and shared memory; then each pass merges groups
    /// of four sorted runs (one pass first merges pairs when log2(n / tile), rounded up, is
    /// odd), each reading and writing every key: about log2(n / tile) / 2 passes. Each
    /// block of a four-way pass starts at a pivot (keys of the runs' pairwise merges, placed
    /// exactly by binary searches) and merges its share a chunk at a time in shared memory.
    /// For keys whose order is a key's order ([`Device::sort`], [`Device::sort_by_key`]) the
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
    ///
    /// Structs, sorted by a value computed from their fields:
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[derive(DeviceValue, Clone, Copy, Debug, PartialEq)]
    /// #[repr(C)]
    /// struct Point { x: f32, y: f32 }
    /// #[predicate(inputs = 2)]
    /// fn nearer(a: Point, b: Point) -> bool { a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let ps = dev.upload_values(&[Point { x: 3.0, y: 4.0 }, Point { x: 0.0, y: 1.0 }, Point { x: -1.0, y: 0.0 }])?;
    /// let sorted = dev.sort_by(nearer, &ps)?.download()?;   // a DeviceTuples<Point>
    /// assert_eq!(sorted, [Point { x: 0.0, y: 1.0 }, Point { x: -1.0, y: 0.0 }, Point { x: 3.0, y: 4.0 }]);
    /// assert_eq!(dev.argsort_by(nearer, &ps)?.download()?, [1, 2, 0]);
    /// # Ok(()) }
    /// ```
    pub fn sort_by<K, L, S>(&self, less: L, keys: &S) -> Result<S::Sorted>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
    {
        let mut out = S::Sorted::alloc(self, keys.count())?;
        self.sort_by_into(less, keys, &mut out)?;
        Ok(out)
    }

    /// [`Device::sort_by`] into `out` (as long as `keys`: else [`Error::Shape`]; a
    /// [`DeviceTuples`] for tuple or struct keys), allocating no output.
    pub fn sort_by_into<K, L, S, O>(&self, less: L, keys: &S, out: &mut O) -> Result<()>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        O: OutputArray<K> + ?Sized,
    {
        let out = self.output(out, keys.count(), "sort_by")?;
        keys.merge_sort(self, &less, Some(out), None)
    }

    /// The positions (`u32`) of `keys` in the order [`Device::sort_by`] sorts them: element
    /// `i` is the input position of the `i`-th key (of keys neither less than the other, the
    /// earlier first). The keys as [`Device::sort_by`]'s (arrays of scalars, or a
    /// [`DeviceTuples`] of tuples or structs); errors as its. On a GPU the same merge sort
    /// with the positions moving beside the keys, every pass merging pairs of runs.
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
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
    {
        let mut out = self.new_array::<u32>(keys.count())?;
        self.argsort_by_into(less, keys, &mut out)?;
        Ok(out)
    }

    /// [`Device::argsort_by`] into `out` (as long as `keys`: else [`Error::Shape`]),
    /// allocating no output.
    pub fn argsort_by_into<K, L, S, O>(&self, less: L, keys: &S, out: &mut O) -> Result<()>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        let out = self.output(out, keys.count(), "argsort_by")?;
        keys.merge_sort(self, &less, None, Some(out))
    }

    /// For each query of `queries`, the first position in `sorted` (sorted by `less`, as
    /// [`Device::sort_by`] sorts) whose key is not before the query: the number of keys
    /// `less(key, query)` holds for, as `sorted.partition_point(|k| less(k, q))` gives, and
    /// what `lower_bound` gives in the order of a key. Keys and queries are arrays of one
    /// element type, or [`DeviceTuples`] of one tuple or struct type
    /// ([`SortByInput`]); `less` a `#[predicate(inputs = 2)]` of two of them (bound arguments
    /// allowed). Answers are `u32`, one per query, in the queries' order. Keys not sorted by
    /// `less` give some position of a binary search (never an error); an empty `sorted`
    /// gives 0 for every query. Fewer than 2^32 keys (else [`Error::Unsupported`]); a
    /// one-input predicate is refused ([`Error::Unsupported`]). Returns without waiting for
    /// the kernel.
    ///
    /// On a GPU: a thread per query, each a binary search of the keys through the
    /// comparator, in the merge sort's module (unlike [`Device::lower_bound`], whose queries
    /// share a sample of the keys in shared memory).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[derive(DeviceValue, Clone, Copy, Debug, PartialEq)]
    /// #[repr(C)]
    /// struct Event { day: u16, hour: u8 }
    /// #[predicate(inputs = 2)]
    /// fn earlier(a: Event, b: Event) -> bool { a.day < b.day || (a.day == b.day && a.hour < b.hour) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let log = dev.upload_values(&[Event { day: 1, hour: 9 }, Event { day: 2, hour: 7 }, Event { day: 2, hour: 7 }, Event { day: 3, hour: 0 }])?;
    /// let ask = dev.upload_values(&[Event { day: 2, hour: 7 }, Event { day: 9, hour: 0 }])?;
    /// assert_eq!(dev.lower_bound_by(earlier, &log, &ask)?.download()?, [1, 4]);
    /// assert_eq!(dev.upper_bound_by(earlier, &log, &ask)?.download()?, [3, 4]);
    /// # Ok(()) }
    /// ```
    pub fn lower_bound_by<K, L, S, Q>(
        &self,
        less: L,
        sorted: &S,
        queries: &Q,
    ) -> Result<DeviceVec<u32>>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        Q: SortByInput<K> + ?Sized,
    {
        let mut out = self.new_array::<u32>(queries.count())?;
        self.search_by(&less, sorted, queries, false, &mut out)?;
        Ok(out)
    }

    /// [`Device::lower_bound_by`] into `out` (one `u32` per query: else [`Error::Shape`]),
    /// allocating no output.
    pub fn lower_bound_by_into<K, L, S, Q, O>(
        &self,
        less: L,
        sorted: &S,
        queries: &Q,
        out: &mut O,
    ) -> Result<()>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        Q: SortByInput<K> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        self.search_by(&less, sorted, queries, false, out)
    }

    /// For each query of `queries`, the first position in `sorted` (sorted by `less`) whose
    /// key the query is before: the number of keys `less(query, key)` does not hold for, as
    /// `sorted.partition_point(|k| !less(q, k))` gives. Otherwise as
    /// [`Device::lower_bound_by`] (whose example shows both).
    pub fn upper_bound_by<K, L, S, Q>(
        &self,
        less: L,
        sorted: &S,
        queries: &Q,
    ) -> Result<DeviceVec<u32>>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        Q: SortByInput<K> + ?Sized,
    {
        let mut out = self.new_array::<u32>(queries.count())?;
        self.search_by(&less, sorted, queries, true, &mut out)?;
        Ok(out)
    }

    /// [`Device::upper_bound_by`] into `out` (one `u32` per query: else [`Error::Shape`]),
    /// allocating no output.
    pub fn upper_bound_by_into<K, L, S, Q, O>(
        &self,
        less: L,
        sorted: &S,
        queries: &Q,
        out: &mut O,
    ) -> Result<()>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        Q: SortByInput<K> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        self.search_by(&less, sorted, queries, true, out)
    }

    /// The binary search by a comparator: lower bounds, or upper bounds when `upper`.
    fn search_by<K, L, S, Q, O>(
        &self,
        less: &L,
        sorted: &S,
        queries: &Q,
        upper: bool,
        out: &mut O,
    ) -> Result<()>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
        S: SortByInput<K> + ?Sized,
        Q: SortByInput<K> + ?Sized,
        O: OutputArray<u32> + ?Sized,
    {
        let what = if upper {
            "upper_bound_by"
        } else {
            "lower_bound_by"
        };
        let args = self.comparator(less)?;
        let n = sorted.count();
        if n > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "a search by a comparator takes fewer than 2^32 keys; these are {n}"
            )));
        }
        let m = queries.count();
        let target = self.output(out, m, what)?;
        match (sorted.key_data(self)?, queries.key_data(self)?, target) {
            (KeyData::Host(keys), KeyData::Host(qs), Target::Cpu(bytes, _)) => {
                use rayon::prelude::*;
                let answers: Vec<u32> = qs
                    .par_iter()
                    .map(|&q| {
                        keys.partition_point(|&k| {
                            if upper {
                                !less.test((q, k))
                            } else {
                                less.test((k, q))
                            }
                        }) as u32
                    })
                    .collect();
                write_host(bytes, &answers);
                Ok(())
            }
            (KeyData::Device(keys), KeyData::Device(qs), t @ Target::Gpu(..)) => {
                let Backend::Gpu(g) = &*self.backend else {
                    return Err(Error::DeviceMismatch);
                };
                let module = g.module(merge_key::<K, L>(), S::module::<L>)?;
                let mut bytes = gpu_bytes(t)?;
                let out = typed::<u32>(&mut bytes, m)?;
                self.with_bound(g, &args, |a| {
                    g.merge_search(&module, a, keys, qs, K::C_SIZE, upper, out)
                })
            }
            _ => Err(Error::DeviceMismatch),
        }
    }

    /// The bound arguments of comparator `less`, checked: a predicate of two parameters.
    fn comparator<K, L: Predicate<Input = (K, K)>>(&self, less: &L) -> Result<crate::BoundArgs> {
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
        Ok(args)
    }

    /// The merge sort of an array's keys: the sorted keys into `keys_target` and their
    /// positions into `pos_target` (each when given; their lengths are checked).
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
        S: AsSlice<K> + ?Sized,
    {
        let args = self.comparator(less)?;
        let elems = keys.elements();
        self.check_elements(&elems)?;
        let n = elems.len();
        if n == 0 {
            return Ok(());
        }
        match &*self.backend {
            Backend::Cpu => {
                let data = elems.cpu()?;
                write_sorted(less, data, keys_target, pos_target);
                Ok(())
            }
            Backend::Gpu(g) => {
                let module = g.module(merge_key::<K, L>(), merge_module::<K, L>)?;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| typed::<K>(b, n)).transpose()?;
                let mut pos_bytes = pos_target.map(gpu_bytes).transpose()?;
                let pos = pos_bytes.as_mut().map(|b| typed::<u32>(b, n)).transpose()?;
                self.with_bound(g, &args, |a| {
                    g.merge_sort(&module, a, elems.gpu()?, K::C_SIZE, out, pos)
                })
            }
        }
    }

    /// The merge sort of a [`DeviceTuples`]' tuples or structs, moved whole (as bytes on a
    /// GPU): as [`Device::merge_sort_with`].
    fn merge_sort_values<K, L>(
        &self,
        less: &L,
        keys: &DeviceTuples<K>,
        keys_target: Option<Target<'_>>,
        pos_target: Option<Target<'_>>,
    ) -> Result<()>
    where
        K: DeviceValue,
        L: Predicate<Input = (K, K)>,
    {
        let args = self.comparator(less)?;
        let elems = keys.raw().array();
        self.check_elements(&elems)?;
        let n = keys.len();
        if n == 0 {
            return Ok(());
        }
        match &*self.backend {
            Backend::Cpu => {
                let data: Vec<K> = elems
                    .cpu()?
                    .chunks_exact(K::C_SIZE)
                    .map(K::read_c)
                    .collect();
                write_sorted(less, &data, keys_target, pos_target);
                Ok(())
            }
            Backend::Gpu(g) => {
                let module = g.module(merge_key::<K, L>(), merge_values_module::<K, L>)?;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| b.slice_mut(..));
                let mut pos_bytes = pos_target.map(gpu_bytes).transpose()?;
                let pos = pos_bytes.as_mut().map(|b| typed::<u32>(b, n)).transpose()?;
                self.with_bound(g, &args, |a| {
                    g.merge_sort(&module, a, elems.gpu()?, K::C_SIZE, out, pos)
                })
            }
        }
    }
}

/// The CPU backend's stable merge sort of `data` by `less`: the sorted values into
/// `keys_target`, their positions into `pos_target` (each when given).
fn write_sorted<K: DeviceValue, L: Predicate<Input = (K, K)>>(
    less: &L,
    data: &[K],
    keys_target: Option<Target<'_>>,
    pos_target: Option<Target<'_>>,
) {
    let perm = cpu::merge_sort_permutation(data, |a, b| less.test((a, b)));
    if let Some(Target::Cpu(bytes, _)) = keys_target {
        let sorted: Vec<K> = perm.iter().map(|&i| data[i as usize]).collect();
        write_host(bytes, &sorted);
    }
    if let Some(Target::Cpu(bytes, _)) = pos_target {
        write_host(bytes, &perm);
    }
}
