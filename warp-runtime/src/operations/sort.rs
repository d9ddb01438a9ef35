//! Sorting: stable radix sorts of keys, of keys with values, and argsort, ascending or
//! descending, floats in `total_cmp` order; sorts by a mapped key; distinct keys with counts
//! and reductions per distinct key of unsorted keys.

use std::any::TypeId;

use warp_kernels::family::sort::{SortMoves, SortShape, sort_module_name};
use warp_kernels::module;

use super::{ByKey, Runs};
use super::{composed, gpu_bytes, location, typed};
use crate::OutputArray;
use crate::arrays::{ArrayOf, Elements, ValueArray};
use crate::arrays::{DeviceVec, Target, write_host};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{Gpu, Module, ModuleKey, ModuleKind, SortValues};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::operators::{MapOp, ReduceOp};
use crate::toolchain::ModuleSource;
use crate::values::{Element, IndexInt, Ordered, Row};

/// The order of a sort: ascending (the smallest key first) or descending (the largest first).
/// Both are stable: equal keys keep their input order.
///
/// ```
/// use warp_runtime::prelude::*;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[2i32, -1, 7])?;
/// assert_eq!(dev.sort(&xs, SortOrder::Descending)?.download()?, [7, 2, -1]);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SortOrder {
    /// The smallest key first (`slice::sort`).
    #[default]
    Ascending,
    /// The largest key first (`slice::sort_by(|a, b| b.cmp(a))`): still stable, so equal
    /// keys keep their input order (not the reverse of the ascending result).
    Descending,
}

/// A value type [`Device::sort_pairs`] moves with its keys: every [`Element`] (an array of
/// them, moved by the radix sort's passes with the keys), and the rows of 2 to 4 zipped arrays
/// (`(&a, &b)`: the keys' argsort, then each array gathered into its field of the result's
/// [`DeviceTuples`](crate::DeviceTuples); at most 2^32 pairs).
///
/// ```
/// use warp_runtime::prelude::*;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let keys = dev.upload(&[2u32, 0, 1])?;
/// let (xs, ids) = (dev.upload(&[20.5f64, 0.5, 10.5])?, dev.upload(&[7u8, 8, 9])?);
/// let (k, rows) = dev.sort_pairs(&keys, &(&xs, &ids), SortOrder::Ascending)?;
/// assert_eq!(k.download()?, [0, 1, 2]);
/// assert_eq!(rows.download()?, [(0.5, 8), (10.5, 9), (20.5, 7)]);
/// # Ok(()) }
/// ```
pub trait SortValue: Row + ArrayOf {
    /// Sorts `keys` into `outs.0`, moving `values` into `outs.1` (checked by the caller).
    #[doc(hidden)]
    fn sort_pairs<K, S>(
        dev: &Device,
        keys: &S,
        values: crate::arrays::Elements<'_, Self>,
        outs: (Target<'_>, Target<'_>),
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized;
}

impl<T: Element> SortValue for T {
    fn sort_pairs<K, S>(
        dev: &Device,
        keys: &S,
        values: crate::arrays::Elements<'_, T>,
        (keys_out, values_out): (Target<'_>, Target<'_>),
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
    {
        dev.sort_with(
            keys,
            Some(keys_out),
            Moved::Values(values, values_out),
            order,
        )
    }
}

macro_rules! zipped_values {
    ($($name:ident),+) => {
        impl<$($name: Element),+> SortValue for ($($name,)+) {
            fn sort_pairs<K, S>(
                dev: &Device,
                keys: &S,
                values: crate::arrays::Elements<'_, Self>,
                outs: (Target<'_>, Target<'_>),
                order: SortOrder,
            ) -> Result<()>
            where
                K: Ordered,
                S: AsSlice<K> + ?Sized,
            {
                dev.sort_zipped_pairs(keys, values, outs, order)
            }
        }
    };
}
zipped_values!(A, B);
zipped_values!(A, B, C);
zipped_values!(A, B, C, D);

/// The key of the sort module of keys `K` moving `moves`: keyed by the word the values move
/// as and whether they are staged ([`SortShape`]), so pairs of 4-byte values with 8-byte keys
/// and a `u32` argsort of them share one module.
pub(crate) fn sort_key<K: Ordered>(moves: SortMoves, can_stage: bool) -> ModuleKey {
    /// The third type of a staged module's key.
    struct Staged;
    let word = match moves.value_size() {
        0 => TypeId::of::<()>(),
        1 => TypeId::of::<u8>(),
        2 => TypeId::of::<u16>(),
        4 => TypeId::of::<u32>(),
        _ => TypeId::of::<u64>(),
    };
    let staged = if SortShape::new(K::SCALAR, moves, can_stage).staged {
        TypeId::of::<Staged>()
    } else {
        TypeId::of::<()>()
    };
    ModuleKey::new(ModuleKind::Sort, [TypeId::of::<K>(), word, staged])
}

/// The sort module of keys `K` moving `moves` on `g`, built (or found) once per device: the
/// device-wide sorts' and the rows' sort's.
pub(crate) fn gpu_sort_module<K: Ordered>(
    g: &Gpu,
    moves: SortMoves,
) -> Result<std::sync::Arc<Module>> {
    let can_stage = g.sort_can_stage();
    g.module(sort_key::<K>(moves, can_stage), || {
        sort_module_on::<K>(moves, can_stage)
    })
}

/// The CUDA module of the sorts of keys `K` moving `moves` (the keys alone, the caller's
/// values of 1, 2, 4 or 8 bytes, or positions of 4 or 8), as built for a device that
/// `sort_can_stage` (sm_80 and later with 160 KiB of shared memory an SM: an H100, an H200).
///
/// ```
/// use warp_runtime::impl_::{SortMoves, sort_module};
/// assert!(sort_module::<f32>(SortMoves::Keys).source.contains("wd_k_sort_pass("));
/// assert!(sort_module::<u32>(SortMoves::Pairs(4)).source.contains("WD_SORT_STAGE 1"));
/// ```
pub fn sort_module<K: Ordered>(moves: SortMoves) -> ModuleSource {
    sort_module_on::<K>(moves, true)
}

/// [`sort_module`] for a device that `sort_can_stage` (`can_stage`) or not (a GPU before sm_80,
/// or with less than 160 KiB of shared memory an SM).
///
/// ```
/// use warp_runtime::impl_::{SortMoves, sort_module_on};
/// assert!(sort_module_on::<u32>(SortMoves::Pairs(4), false).source.contains("WD_SORT_STAGE 0"));
/// ```
pub fn sort_module_on<K: Ordered>(moves: SortMoves, can_stage: bool) -> ModuleSource {
    composed(
        location(
            &sort_module_name(K::SCALAR, moves, can_stage),
            file!(),
            line!(),
        ),
        module::sort_module(K::SCALAR, moves, can_stage),
        false,
    )
}

impl Device {
    /// The keys of `keys` sorted, as a new array: stable, ascending or descending (`order`),
    /// in [`Ordered::sort_key`]'s order: integers and `bool` as usual, floats as Rust's
    /// `total_cmp` (negative NaNs first, `-0.0` before `+0.0`, positive NaNs last), so the
    /// result is bit for bit what `slice::sort_by(f32::total_cmp)` gives. Every element type
    /// (`u8` ... `u64`, `i8` ... `i64`, `f16`, `bf16`, `f32`, `f64`, `bool`). Returns without
    /// waiting for the kernels.
    ///
    /// On a GPU: a least-significant-digit radix sort of 8-bit digits (Onesweep): one pass
    /// reads the keys and counts every digit, then one pass per byte of the key moves the keys
    /// (tiles of 4,608 to 9,216 keys taken in order, each digit's offset found by a decoupled
    /// look-back; keys of at most 4 bytes alone by a grid of resident blocks, each taking
    /// tiles until none is left and loading its next tile's keys while it writes out the
    /// current one, others by a block a tile; `u32`, `i32` and `f32` keys with 4-byte values
    /// or positions, on sm_80 and later with 160 KiB of shared memory an SM, copy each tile's
    /// values into shared memory while its keys rank); a pass whose digit is the same in every key
    /// is skipped on the device. It
    /// needs scratch memory of the keys' size once more (and the values' size, for the pairs)
    /// and 2 KB of look-back status per tile (at most half a byte per key).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[0.5f32, f32::NAN, -0.0, 0.0, -1.0, f32::NEG_INFINITY])?;
    /// let sorted = dev.sort(&xs, SortOrder::Ascending)?.download()?;
    /// assert_eq!(&sorted[..5], &[f32::NEG_INFINITY, -1.0, -0.0, 0.0, 0.5]);
    /// assert!(sorted[1].is_sign_negative() && sorted[5].is_nan());
    /// assert!(sorted[2].is_sign_negative() && sorted[3].is_sign_positive());
    /// # Ok(()) }
    /// ```
    pub fn sort<K: Ordered, S: AsSlice<K> + ?Sized>(
        &self,
        keys: &S,
        order: SortOrder,
    ) -> Result<DeviceVec<K>> {
        let mut out = self.new_array::<K>(keys.elements().len())?;
        self.sort_into(keys, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::sort`] into `out` (as long as `keys`: else [`Error::Shape`]), allocating no
    /// output.
    pub fn sort_into<K, S, O>(&self, keys: &S, out: &mut O, order: SortOrder) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        O: OutputArray<K> + ?Sized,
    {
        let n = keys.elements().len();
        let out = self.output(out, n, "sort")?;
        self.sort_with(keys, Some(out), Moved::<u8>::None, order)
    }

    /// `keys` sorted as [`Device::sort`] does, with `values` (as long) moved along: the values
    /// of equal keys keep their input order. Values are any scalar element type (moved by the
    /// radix sort's passes, returned as a [`DeviceVec`]), or 2 to 4 zipped arrays `(&a, &b)`
    /// ([`SortValue`]: the keys' argsort, then each array gathered into its field of the
    /// result's rows, returned as a [`DeviceTuples`](crate::DeviceTuples); at most 2^32 pairs,
    /// else [`Error::Unsupported`]). Returns `(keys, values)`.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[3u32, 1, 3, 0])?;
    /// let vals = dev.upload(&[30.0f64, 10.0, 31.0, 0.0])?;
    /// let (k, v) = dev.sort_pairs(&keys, &vals, SortOrder::Ascending)?;
    /// assert_eq!((k.download()?, v.download()?), (vec![0, 1, 3, 3], vec![0.0, 10.0, 30.0, 31.0]));
    /// let ids = dev.upload(&[7u16, 8, 9, 6])?;
    /// let (_, rows) = dev.sort_pairs(&keys, &(&vals, &ids), SortOrder::Descending)?;
    /// assert_eq!(rows.download()?, [(30.0, 7), (31.0, 9), (10.0, 8), (0.0, 6)]);
    /// # Ok(()) }
    /// ```
    pub fn sort_pairs<K, V, SK, SV>(
        &self,
        keys: &SK,
        values: &SV,
        order: SortOrder,
    ) -> Result<(DeviceVec<K>, V::Array)>
    where
        K: Ordered,
        V: SortValue,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<V> + ?Sized,
    {
        let n = keys.elements().len();
        let mut k = self.new_array::<K>(n)?;
        let mut v = <V::Array as ValueArray<V>>::alloc(self, n)?;
        self.sort_pairs_into(keys, values, &mut k, &mut v, order)?;
        Ok((k, v))
    }

    /// [`Device::sort_pairs`] into `keys_out` and `values_out` (each as long as `keys`; the
    /// values as long as the keys too: else [`Error::Shape`]); zipped values go into a
    /// [`DeviceTuples`](crate::DeviceTuples) of their rows.
    pub fn sort_pairs_into<K, V, SK, SV, OK, OV>(
        &self,
        keys: &SK,
        values: &SV,
        keys_out: &mut OK,
        values_out: &mut OV,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        V: SortValue,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<V> + ?Sized,
        OK: OutputArray<K> + ?Sized,
        OV: OutputArray<V> + ?Sized,
    {
        let values = values.elements();
        self.check_elements(&values)?;
        let n = keys.elements().len();
        if values.len() != n {
            return Err(Error::Shape(format!(
                "sort_pairs: {n} keys but {} values",
                values.len()
            )));
        }
        let keys_out = self.output(keys_out, n, "sort_pairs")?;
        let values_out = self.output(values_out, n, "sort_pairs")?;
        V::sort_pairs(self, keys, values, (keys_out, values_out), order)
    }

    /// The sort of pairs whose values are zipped arrays (rows of `V`): the keys' argsort (`u32`
    /// positions), then each array gathered by it into its field of the output's rows.
    fn sort_zipped_pairs<K, S, V>(
        &self,
        keys: &S,
        values: Elements<'_, V>,
        (keys_out, values_out): (Target<'_>, Target<'_>),
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        V: Row,
    {
        let n = values.len();
        if n == 0 {
            return Ok(());
        }
        if n - 1 > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "sort_pairs of zipped values takes at most 2^32 pairs; these are {n}"
            )));
        }
        match &*self.backend {
            Backend::Cpu => {
                let data = keys.elements();
                let data = data.cpu()?;
                let perm = cpu::sort_permutation(data, K::sort_key, order == SortOrder::Descending);
                let rows = values.cpu()?;
                if let (Target::Cpu(kb, _), Target::Cpu(vb, _)) = (keys_out, values_out) {
                    let sorted: Vec<K> = perm.iter().map(|&i| data[i]).collect();
                    write_host(kb, &sorted);
                    let moved: Vec<V> = perm.iter().map(|&i| rows[i]).collect();
                    write_host(vb, &moved);
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                let mut perm = self.new_array::<u32>(n)?;
                {
                    let pt = self.output(&mut perm, n, "sort_pairs")?;
                    self.sort_with(
                        keys,
                        Some(keys_out),
                        Moved::Positions(pt, u32::from_index),
                        order,
                    )?;
                }
                let module = gpu_sort_module::<K>(g, SortMoves::Positions(4))?;
                let mut out = gpu_bytes(values_out)?;
                let columns = values.columns()?;
                let mut offset = 0usize;
                for (col, &width) in columns.views.into_iter().zip(&columns.sizes) {
                    offset = offset.div_ceil(width) * width;
                    g.sort_gather(
                        &module,
                        (col, width),
                        perm.elements().gpu()?,
                        out.slice_mut(..),
                        (V::C_SIZE, offset),
                    )?;
                    offset += width;
                }
                Ok(())
            }
        }
    }

    /// The permutation that sorts `keys` as [`Device::sort`] does: element `i` is the input
    /// position of the `i`-th key in sorted order (equal keys: the smaller position first),
    /// as `u32` positions (inputs of more than 2^32 keys: [`Error::Shape`]; use
    /// [`Device::argsort_into`] with `u64`).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[2.5f32, -1.0, 2.5, 0.0])?;
    /// assert_eq!(dev.argsort(&xs, SortOrder::Ascending)?.download()?, [1, 3, 0, 2]);
    /// assert_eq!(dev.argsort(&xs, SortOrder::Descending)?.download()?, [0, 2, 3, 1]);
    /// # Ok(()) }
    /// ```
    pub fn argsort<K: Ordered, S: AsSlice<K> + ?Sized>(
        &self,
        keys: &S,
        order: SortOrder,
    ) -> Result<DeviceVec<u32>> {
        let mut out = self.new_array::<u32>(keys.elements().len())?;
        self.argsort_into(keys, &mut out, order)?;
        Ok(out)
    }

    /// [`Device::argsort`] into `out` (as long as `keys`) of any integer type `I` that holds
    /// every position (`u64` for any length; else [`Error::Shape`]).
    pub fn argsort_into<K, S, I, O>(&self, keys: &S, out: &mut O, order: SortOrder) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        I: IndexInt,
        O: OutputArray<I> + ?Sized,
    {
        let n = keys.elements().len();
        if n > 0 && (n - 1) as u64 > I::MAX_INDEX {
            return Err(Error::Shape(format!(
                "{n} keys cannot be indexed with `{}` (largest index {}); use a wider index type",
                I::NAME,
                I::MAX_INDEX
            )));
        }
        let out = self.output(out, n, "argsort")?;
        self.sort_with(keys, None, Moved::Positions(out, I::from_index), order)
    }

    /// The elements of `input` ordered by the key `map` computes from each (a `#[map]` whose
    /// result is a key type), as `slice::sort_by_key`: stable (elements with equal keys keep
    /// their input order), ascending or descending, in [`Ordered::sort_key`]'s order. The
    /// keys are computed once (a map kernel into scratch memory) and sorted with the elements
    /// as their values ([`Device::sort_pairs`]'s sort). The keys are the map's results on the
    /// device: where the map's arithmetic makes a NaN, its payload (which orders NaN keys
    /// among themselves) may differ between a GPU and the CPU backend, as NaN payloads of
    /// float arithmetic do. Returns without waiting for the kernels.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    ///
    /// #[map]
    /// fn magnitude(x: f32) -> f32 {
    ///     x.abs()
    /// }
    ///
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[-3.0f32, 1.0, -1.0, 2.0])?;
    /// let by_size = dev.sort_by_key(magnitude, &xs, SortOrder::Ascending)?;
    /// assert_eq!(by_size.download()?, [1.0, -1.0, 2.0, -3.0]); // 1.0 and -1.0 in input order
    /// # Ok(()) }
    /// ```
    pub fn sort_by_key<M, S>(
        &self,
        map: M,
        input: &S,
        order: SortOrder,
    ) -> Result<DeviceVec<M::Input>>
    where
        M: MapOp,
        M::Input: Element,
        M::Output: Ordered,
        S: AsSlice<M::Input> + ?Sized,
    {
        let values = input.elements();
        self.check_elements(&values)?;
        let n = values.len();
        let mut keys = self.new_array::<M::Output>(n)?;
        self.map_into(map, input, &mut keys)?;
        let mut out = self.new_array::<M::Input>(n)?;
        let target = self.output(&mut out, n, "sort_by_key")?;
        self.sort_with(&keys, None, Moved::Values(values, target), order)?;
        Ok(out)
    }

    /// The distinct keys of `keys` (in any order), ascending, with how often each occurs, as
    /// `u32` counts (NumPy's `unique(return_counts=True)`, `torch.unique(sorted=True,
    /// return_counts=True)`): [`Device::sort`], then [`Device::run_length_encode`] of the
    /// sorted keys. Keys are equal as `==` says, so each NaN is a key of its own (NaNs last,
    /// by their bits), and `-0.0` and `+0.0` are one key, reported as `-0.0` when both occur
    /// (the first in sort order). Inputs of 2^32 keys or more are [`Error::Unsupported`] (as for
    /// `run_length_encode`). Waits for the number of distinct keys.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[7u16, 2, 7, 9, 2, 7])?;
    /// let Runs { keys, counts } = dev.unique_counts(&xs)?;
    /// assert_eq!((keys.download()?, counts.download()?), (vec![2, 7, 9], vec![2, 3, 1]));
    /// # Ok(()) }
    /// ```
    pub fn unique_counts<K: Ordered, S: AsSlice<K> + ?Sized>(&self, keys: &S) -> Result<Runs<K>> {
        let sorted = self.sort(keys, SortOrder::Ascending)?;
        self.run_length_encode(&sorted)
    }

    /// A reduction per distinct key of unsorted `keys` (a group-by): for each distinct key,
    /// ascending, the key and its `values` (the values at the same places, a scalar array
    /// as long as the keys: else [`Error::Shape`]) combined by `op` in their input order
    /// (`identity + v[i] + v[j] + ...`, `i < j`: the operator need not commute): a stable
    /// [`Device::sort_pairs`], then [`Device::reduce_by_key`] of the sorted pairs. Keys are
    /// equal as `==` says (each NaN a group of its own; `-0.0` and `+0.0` one group, keyed
    /// `-0.0` when both occur). Float results are the same bits on every run. Waits for the
    /// number of groups.
    ///
    /// On a GPU, a sum of small integers per integer key of a narrow range takes no sort: when
    /// the operator is the wrapping add of integers of at most 4 bytes (`a + b` or
    /// `a.wrapping_add(b)`), the keys are integers whose largest minus smallest is below 2^22 (a
    /// table of at most 2^22 slots) and there are fewer than 2^31 pairs, each pair adds to its key's slot of a table
    /// (one 64-bit atomic add) and the slots that hold pairs are written in key order. The
    /// result is the same, bit for bit (integer addition does not depend on its order); the
    /// keys' range is read back first (one more wait), so keys that span more are sorted.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f64, b: f64) -> f64 { a + b }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[3i32, -1, 3, 8, -1])?;
    /// let vals = dev.upload(&[1.0f64, 2.0, 4.0, 8.0, 16.0])?;
    /// let ByKey { keys, values } = dev.group_reduce(sum, &keys, &vals)?;
    /// assert_eq!((keys.download()?, values.download()?), (vec![-1, 3, 8], vec![18.0, 5.0, 8.0]));
    /// # Ok(()) }
    /// ```
    pub fn group_reduce<K, Op, SK, SV>(
        &self,
        op: Op,
        keys: &SK,
        values: &SV,
    ) -> Result<ByKey<K, Op::Value>>
    where
        K: Ordered,
        Op: ReduceOp,
        Op::Value: Element + ArrayOf,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<Op::Value> + ?Sized,
    {
        if let Some(r) = self.group_reduce_by_table(&op, keys, values)? {
            return Ok(r);
        }
        let n = keys.elements().len();
        let (mut k, mut v) = (self.new_array::<K>(n)?, self.new_array::<Op::Value>(n)?);
        self.sort_pairs_into(keys, values, &mut k, &mut v, SortOrder::Ascending)?;
        self.reduce_by_key(op, &k, &v)
    }

    /// The one body of the sorts: keys into `keys_target` (`None`: only the values are
    /// wanted) with what moves along (outputs checked by the callers).
    pub(super) fn sort_with<K, S, V>(
        &self,
        keys: &S,
        keys_target: Option<Target<'_>>,
        moved: Moved<'_, '_, V>,
        order: SortOrder,
    ) -> Result<()>
    where
        K: Ordered,
        S: AsSlice<K> + ?Sized,
        V: Element,
    {
        self.sort_with_if(keys, keys_target, moved, order, None)
    }

    /// [`Device::sort_with`], which on a GPU writes nothing when the device word `needed` is
    /// given and reads 0 (the binary search's queries already in order).
    pub(super) fn sort_with_if<K, S, V>(
        &self,
        keys: &S,
        keys_target: Option<Target<'_>>,
        moved: Moved<'_, '_, V>,
        order: SortOrder,
        needed: Option<&cudarc::driver::CudaView<'_, u32>>,
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
        let (values_target, values_in, position) = match moved {
            Moved::None => (None, None, None),
            Moved::Values(input, out) => (Some(out), Some(input), None),
            Moved::Positions(out, at) => (Some(out), None, Some(at)),
        };
        if n == 0 {
            return Ok(());
        }
        match &*self.backend {
            Backend::Cpu => {
                let data = elems.cpu()?;
                let perm = cpu::sort_permutation(data, K::sort_key, descending);
                if let Some(Target::Cpu(bytes, _)) = keys_target {
                    let sorted: Vec<K> = perm.iter().map(|&i| data[i]).collect();
                    write_host(bytes, &sorted);
                }
                if let Some(Target::Cpu(bytes, _)) = values_target {
                    let moved: Vec<V> = match (&values_in, position) {
                        (Some(v), _) => {
                            let v = v.cpu()?;
                            perm.iter().map(|&i| v[i]).collect()
                        }
                        (None, Some(at)) => perm.iter().map(|&i| at(i as u64)).collect(),
                        (None, None) => Vec::new(),
                    };
                    write_host(bytes, &moved);
                }
                Ok(())
            }
            Backend::Gpu(g) => {
                let value_size = V::C_SIZE;
                let mut key_bytes = keys_target.map(gpu_bytes).transpose()?;
                let out = key_bytes.as_mut().map(|b| typed::<K>(b, n)).transpose()?;
                let values = match (values_target, values_in) {
                    (None, _) => SortValues::None,
                    (Some(t), Some(input)) => SortValues::Pairs {
                        input: input.columns()?.views.remove(0),
                        out: gpu_bytes(t)?,
                        size: value_size,
                    },
                    (Some(t), None) => SortValues::Positions {
                        out: gpu_bytes(t)?,
                        size: value_size,
                    },
                };
                let module = gpu_sort_module::<K>(g, values.moves())?;
                g.sort_if(&module, elems.gpu()?, out, values, descending, needed, None)
            }
        }
    }
}

/// What a sort moves along with its keys.
pub(super) enum Moved<'a, 'o, V: Element> {
    None,
    Values(crate::arrays::Elements<'a, V>, Target<'o>),
    /// Each key's input position, as `V` (an index type: `IndexInt::from_index`).
    Positions(Target<'o>, fn(u64) -> V),
}
