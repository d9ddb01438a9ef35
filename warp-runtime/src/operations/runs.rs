//! Runs of equal neighbouring keys: `unique`, `run_length_encode` and `reduce_by_key` (with
//! `==` or a predicate of two keys, and `_into` forms that leave the number of runs on the
//! device), on the GPU in one pass (ballot run heads, segmented scan, look-back).

use std::any::TypeId;
use std::borrow::Cow;
use std::marker::PhantomData;

use cudarc::driver::CudaViewMut;
use warp_kernels::Scalar;
use warp_kernels::module::{self, RunValues};

use super::gpu_bytes;
use super::predicates::write_values;
use crate::arrays::{ArrayOf, ValueArray};
use crate::arrays::{DeviceScalar, DeviceVec, Elements, OutputArray, Target};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::{ModuleKey, ModuleKind, Staged};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{Array, ReduceInput, Stage};
use crate::operators::{BoundArgs, FnMeta, Predicate, ReduceOp};
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element, Row};

/// Keys compared with `==`: the runs of `unique`, `run_length_encode` and `reduce_by_key`.
/// For floats, as in Rust, `NaN != NaN` (each NaN is a run of its own) and `-0.0 == 0.0`
/// (one run, whose key is its first element's).
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::Equal;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1, 1, 2])?;
/// let mut out = dev.upload(&[0; 3])?;
/// assert_eq!(dev.unique_into(Equal, &xs, &mut out)?.get()?, 2);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Equal;

/// How neighbouring keys are found to be in one run: [`Equal`] (`==`), or a
/// `#[predicate(inputs = 2)]` of two keys, called as `same(previous, next)` on each pair of
/// neighbours (bound arguments allowed). Runs are decided by neighbours only: with a
/// predicate that is not transitive, `1, 2, 3` under `|a - b| <= 1` is one run (where
/// `Vec::dedup_by` compares with the run's first element instead). A one-input
/// `#[predicate]` of a `(K, K)` tuple has the same Rust type but is refused when the
/// operation runs ([`Error::Unsupported`](crate::Error::Unsupported)): declare it with
/// `inputs = 2`.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[predicate(inputs = 2)]
/// fn near(a: i32, b: i32, d: i32) -> bool { (a - b).abs() <= d }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1, 2, 3, 10, 12])?;
/// assert_eq!(dev.unique_by(near.with(1), &xs)?.download()?, [1, 10, 12]);
/// # Ok(()) }
/// ```
pub trait SameKeys<K: Element>: Clone + Send + Sync + 'static {
    /// What names the comparison in a module's key (`()` for `==`, else the predicate).
    #[doc(hidden)]
    type Id: 'static;
    /// The predicate's generated code (`None`: `==`).
    #[doc(hidden)]
    const PRED: Option<&'static FnMeta>;
    /// The predicate's bound arguments.
    #[doc(hidden)]
    fn bound(&self) -> BoundArgs;
    /// Whether neighbours `a` (the earlier) and `b` are in one run (on the CPU).
    #[doc(hidden)]
    fn same(&self, a: K, b: K) -> bool;
}

impl<K: Element> SameKeys<K> for Equal {
    type Id = ();
    const PRED: Option<&'static FnMeta> = None;
    fn bound(&self) -> BoundArgs {
        BoundArgs::default()
    }
    fn same(&self, a: K, b: K) -> bool {
        a == b
    }
}

impl<K: Element, P: Predicate<Input = (K, K)>> SameKeys<K> for P
where
    (K, K): DeviceValue,
{
    type Id = P;
    const PRED: Option<&'static FnMeta> = Some(&P::META);
    fn bound(&self) -> BoundArgs {
        self.args()
    }
    fn same(&self, a: K, b: K) -> bool {
        self.test((a, b))
    }
}

/// The integer type of run lengths: `u32` (what [`Device::run_length_encode`] gives; inputs
/// below 2^32 elements) or `u64`.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{Equal, RunCount};
/// fn runs_of<C: RunCount>(dev: &Device, xs: &DeviceVec<i32>, counts: &mut DeviceVec<C>) -> warp_runtime::Result<u64> {
///     let mut keys = dev.upload(&vec![0; xs.len()])?;
///     dev.run_length_encode_into(Equal, xs, &mut keys, counts)?.get()
/// }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1, 1, 1])?;
/// assert_eq!(runs_of(&dev, &xs, &mut dev.upload(&[0u64; 3])?)?, 1);
/// # Ok(()) }
/// ```
pub trait RunCount: Element + sealed::Sealed {
    /// From a length (below [`RunCount::LIMIT`]).
    #[doc(hidden)]
    fn from_len(n: u64) -> Self;
    /// Inputs must have fewer elements than this.
    #[doc(hidden)]
    const LIMIT: u64;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

impl RunCount for u32 {
    fn from_len(n: u64) -> u32 {
        n as u32
    }
    const LIMIT: u64 = 1 << 32;
}

impl RunCount for u64 {
    fn from_len(n: u64) -> u64 {
        n
    }
    const LIMIT: u64 = u64::MAX;
}

/// The runs of a run-length encoding: each run's key (its first element) and length, in input
/// order.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::Runs;
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let Runs { keys, counts } = dev.run_length_encode(&dev.upload(&[4u16, 4, 9])?)?;
/// assert_eq!((keys.download()?, counts.download()?), (vec![4, 9], vec![2, 1]));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Runs<K: Element, C: Element = u32> {
    /// The key of each run.
    pub keys: DeviceVec<K>,
    /// The number of elements of each run.
    pub counts: DeviceVec<C>,
}

/// The result of a reduce-by-key: each run's key and its values combined, in input order.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::ByKey;
/// #[reduce(identity = 0)]
/// fn add(a: u64, b: u64) -> u64 { a.wrapping_add(b) }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let (k, v) = (dev.upload(&[1i8, 1, 2])?, dev.upload(&[10u64, 20, 30])?);
/// let ByKey { keys, values } = dev.reduce_by_key(add, &k, &v)?;
/// assert_eq!((keys.download()?, values.download()?), (vec![1, 2], vec![30, 30]));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ByKey<K: Element, V: ArrayOf> {
    /// The key of each run (its first element).
    pub keys: DeviceVec<K>,
    /// The values of each run combined by the operator, in order: a [`DeviceVec`] for a
    /// scalar operator, a [`DeviceTuples`](crate::DeviceTuples) for a tuple or struct one.
    pub values: V::Array,
}

/// Module-key markers of what runs carry.
struct UniqueRuns;
struct CountedRuns<C>(PhantomData<C>);
/// `Key` and `Elem`: what the values are made of (the value input's `ReduceInput` types).
struct ReducedRuns<Op, Key, Elem>(PhantomData<(Op, Key, Elem)>);

fn runs_key<K: Element, S: SameKeys<K>, M: 'static>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Runs,
        [TypeId::of::<S::Id>(), TypeId::of::<M>(), TypeId::of::<K>()],
    )
}

fn runs_source(key: Scalar, pred: Option<&'static FnMeta>, values: RunValues) -> ModuleSource {
    let text = module::runs_module(key, pred.map(|p| &p.fragment), values);
    let (name, location) = match (pred, values) {
        (Some(p), _) => (
            format!("runs_{}", p.fragment.name),
            format!("{}:{}", p.fragment.file, p.fragment.line),
        ),
        (None, RunValues::Reduce(op, _)) => (
            format!("reduce_by_key_{}", op.name),
            format!("{}:{}", op.file, op.line),
        ),
        (None, _) => (format!("runs_{key}"), "warp-runtime (runs)".to_string()),
    };
    ModuleSource {
        name,
        location,
        source: Cow::Owned(text),
        needs_cuda_headers: false,
    }
}

/// The CUDA module of [`Device::unique`] (and its `_by` and `_into` forms) over keys `K`
/// compared by `S` ([`Equal`] or a predicate of two keys).
///
/// ```
/// use warp_runtime::Equal;
/// use warp_runtime::impl_::unique_module;
/// assert!(unique_module::<i32, Equal>().source.contains("wd_k_runs"));
/// ```
pub fn unique_module<K: Element, S: SameKeys<K>>() -> ModuleSource {
    runs_source(K::SCALAR, S::PRED, RunValues::None)
}

/// The CUDA module of [`Device::run_length_encode`] (and its forms) over keys `K` compared
/// by `S`, with counts of type `C`.
///
/// ```
/// use warp_runtime::Equal;
/// use warp_runtime::impl_::run_length_module;
/// assert!(run_length_module::<i32, Equal, u32>().source.contains("wd_runs_counts<wd_u32>"));
/// ```
pub fn run_length_module<K: Element, S: SameKeys<K>, C: RunCount>() -> ModuleSource {
    runs_source(K::SCALAR, S::PRED, RunValues::Counts(C::SCALAR))
}

/// The CUDA module of [`Device::reduce_by_key`] (and its forms) over keys `K` compared by `S`
/// and values of one array combined by `Op` ([`reduce_by_key_input_module`] for other value
/// inputs).
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::Equal;
/// use warp_runtime::impl_::reduce_by_key_module;
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// assert!(reduce_by_key_module::<i32, Equal, sum>().source.contains("wd_runs_reduce<wd_op, wd_run_value>"));
/// ```
pub fn reduce_by_key_module<K: Element, S: SameKeys<K>, Op: ReduceOp>() -> ModuleSource
where
    Op::Value: Element,
{
    reduce_by_key_input_module::<K, S, Op, DeviceVec<Op::Value>>()
}

/// The CUDA module of [`Device::reduce_by_key`] over keys `K` compared by `S` and values of
/// the input type `I` (an array, zipped arrays, `xs.indexed()` or `xs.map(f)`) combined by
/// `Op`: `wd_run_value` makes each row's value from the elements read beside its key.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{DeviceVec, Equal, Indexed};
/// use warp_runtime::impl_::reduce_by_key_input_module;
/// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
/// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
///     if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }
/// }
/// let m = reduce_by_key_input_module::<i32, Equal, argmax, Indexed<'static, f32>>();
/// assert!(m.source.contains("t.f1 = (wd_u32)i;"));
/// ```
pub fn reduce_by_key_input_module<K, S, Op, I>() -> ModuleSource
where
    K: Element,
    S: SameKeys<K>,
    Op: ReduceOp,
    I: ReduceInput<Op> + ?Sized,
{
    let op = &Op::META.fragment;
    let values = super::source(I::STAGE, <I::Elem as Row>::COLUMNS);
    runs_source(K::SCALAR, S::PRED, RunValues::Reduce(op, values))
}

/// The largest value (bytes of its C layout) that [`Device::reduce_by_key`] combines, on
/// both backends: 8 (`(f32, u32)`, `(f32, f32)`, `f64`, ...). The GPU kernel stages values
/// beside keys in shared memory and carries them through the look-back with a 64-bit head
/// count.
///
/// ```
/// assert_eq!(warp_runtime::RUN_VALUE_MAX_BYTES, 8);
/// ```
pub const RUN_VALUE_MAX_BYTES: usize = warp_kernels::catalogue::RUN_VALUE_MAX_BYTES;

/// Where the runs go: the keys, and the values if the runs carry any.
struct RunsOut<'o> {
    keys: Target<'o>,
    values: Option<Target<'o>>,
}

impl Device {
    /// Checks that an output of runs has room for `n` of them; its target.
    fn runs_output<'o, V: DeviceValue, O: OutputArray<V> + ?Sized>(
        &self,
        out: &'o mut O,
        n: usize,
        what: &str,
    ) -> Result<Target<'o>> {
        let len = out.len();
        if len < n {
            return Err(Error::Shape(format!(
                "the output of {what} holds {len} values; the input has {n} (as many runs as it could have)"
            )));
        }
        self.output(out, len, what)
    }

    /// The runs of `elems` (keys, or `(key, value elements)` rows): on the CPU, `cpu_values`
    /// makes the runs' values from the rows and run heads; on the GPU the module made by
    /// `source`. `value_args`: the bound arguments of the values' map (before `same`'s).
    #[allow(clippy::too_many_arguments)]
    fn runs_into<K, R, V, S>(
        &self,
        same: &S,
        elems: Elements<'_, R>,
        key_of: impl Fn(R) -> K + Sync,
        module: (ModuleKey, impl FnOnce() -> ModuleSource),
        out: RunsOut<'_>,
        value_args: BoundArgs,
        cpu_values: impl FnOnce(&[R], &[usize]) -> Vec<V>,
    ) -> Result<DeviceScalar<u64>>
    where
        K: Element,
        R: Copy + Send + Sync,
        V: DeviceValue,
        S: SameKeys<K>,
    {
        self.check_elements(&elems)?;
        if let Some(p) = S::PRED
            && p.fragment.inputs != 2
        {
            return Err(Error::Unsupported(format!(
                "`{}` compares neighbouring keys only as a predicate of two parameters, \
                 #[predicate(inputs = 2)] fn(previous, next) -> bool",
                p.fragment.name
            )));
        }
        let args = BoundArgs::join(value_args, &same.bound());
        self.check_bound(&args)?;
        if elems.is_empty() {
            return self.scalar_of(0u64);
        }
        match &*self.backend {
            Backend::Cpu => {
                let rows = elems.cpu()?;
                let keys: Vec<K> = rows.iter().map(|&r| key_of(r)).collect();
                let heads = cpu::run_heads(&keys, |a, b| same.same(a, b));
                let run_keys: Vec<K> = heads.iter().map(|&h| keys[h]).collect();
                write_values(out.keys, &run_keys)?;
                if let Some(t) = out.values {
                    write_values(t, &cpu_values(rows, &heads))?;
                }
                self.scalar_of(heads.len() as u64)
            }
            Backend::Gpu(g) => {
                let keys: CudaViewMut<'_, u8> = gpu_bytes(out.keys)?;
                let values = out.values.map(gpu_bytes).transpose()?;
                let m = g.module(module.0, module.1)?;
                let slot = g.slot()?;
                self.with_bound(g, &args, |a| {
                    g.runs(
                        Staged {
                            module: &m,
                            input: elems.columns()?,
                            args: a,
                        },
                        keys,
                        values,
                        &slot,
                    )
                })?;
                Ok(DeviceScalar::on_gpu(self, slot))
            }
        }
    }

    /// The input with consecutive duplicates removed, order kept (`Vec::dedup`; CUB's
    /// `DeviceSelect::Unique`): the first element of each run of `==` keys, as a new array of
    /// exactly their number. One pass on the GPU: ballots of run heads (each element compared
    /// with its neighbour, through a shuffle, or a read for a warp tile's first), a block scan
    /// of the head counts and decoupled look-back between blocks (a block takes 8192 keys of
    /// at most 4 bytes, two warp tiles a warp, else 4096), keys staged in shared memory and
    /// written coalesced. Empty input gives an empty array; NaN keys are each a run of
    /// their own (`NaN != NaN`), `-0.0` and `0.0` one run. Waits for the number of runs
    /// ([`Device::unique_into`] does not).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[3, 3, 1, 1, 1, 3, 2, 2])?;
    /// assert_eq!(dev.unique(&xs)?.download()?, [3, 1, 3, 2]);
    /// let fs = dev.upload(&[f32::NAN, f32::NAN, 1.0, 1.0])?;
    /// assert_eq!(dev.unique(&fs)?.len(), 3); // NaN, NaN, 1.0
    /// # Ok(()) }
    /// ```
    pub fn unique<A: Array>(&self, keys: &A) -> Result<DeviceVec<A::Elem>> {
        self.unique_by(Equal, keys)
    }

    /// [`Device::unique`] with neighbours in one run when `same(previous, next)` holds
    /// ([`SameKeys`]: [`Equal`] or a `#[predicate(inputs = 2)]` of two keys).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate(inputs = 2)]
    /// fn same_tens(a: u32, b: u32) -> bool { a / 10 == b / 10 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[11u32, 15, 23, 29, 31])?;
    /// assert_eq!(dev.unique_by(same_tens, &xs)?.download()?, [11, 23, 31]);
    /// # Ok(()) }
    /// ```
    pub fn unique_by<A: Array, S: SameKeys<A::Elem>>(
        &self,
        same: S,
        keys: &A,
    ) -> Result<DeviceVec<A::Elem>> {
        let n = keys.array().len();
        let mut out = self.new_array::<A::Elem>(n)?;
        let runs = self.unique_into(same, keys, &mut out)?.get()? as usize;
        out.truncate(runs);
        Ok(out)
    }

    /// [`Device::unique_by`] into `out`, which has room for as many runs as the input has
    /// elements: the runs' keys are its first `count` values, `count` (the number of runs) a
    /// result left on the device; the rest of `out` is unspecified. Allocates nothing, waits
    /// for nothing. An `out` shorter than the input is an [`Error::Shape`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::Equal;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[5u8, 5, 6])?;
    /// let mut out = dev.upload(&[0u8; 3])?;
    /// let count = dev.unique_into(Equal, &xs, &mut out)?; // stays on the device
    /// assert_eq!(count.get()?, 2);
    /// assert_eq!(out.download()?[..2], [5, 6]);
    /// # Ok(()) }
    /// ```
    pub fn unique_into<A, S, O>(&self, same: S, keys: &A, out: &mut O) -> Result<DeviceScalar<u64>>
    where
        A: Array,
        S: SameKeys<A::Elem>,
        O: OutputArray<A::Elem> + ?Sized,
    {
        let elems = keys.array();
        let n = elems.len();
        let out = RunsOut {
            keys: self.runs_output(out, n, "unique")?,
            values: None,
        };
        self.runs_into::<A::Elem, A::Elem, u8, S>(
            &same,
            elems,
            |k| k,
            (
                runs_key::<A::Elem, S, UniqueRuns>(),
                unique_module::<A::Elem, S>,
            ),
            out,
            BoundArgs::default(),
            |_, _| Vec::new(),
        )
    }

    /// Run-length encoding (CUB's `DeviceRunLengthEncode::Encode`): the key of each run of
    /// `==` keys and its length, as `u32`, in input order. One pass on the GPU, as
    /// [`Device::unique`]: each run's length is the difference of its start and the next
    /// run's (the last start before a tile travels with the head count through the
    /// look-back). Inputs of 2^32 elements or more are
    /// [`Error::Unsupported`] (a run could overflow a `u32`): count them as `u64` with
    /// [`Device::run_length_encode_into`]. NaN keys are each a run of length 1. Waits for the
    /// number of runs.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[7, 7, 7, 2, 9, 9])?;
    /// let runs = dev.run_length_encode(&xs)?;
    /// assert_eq!(runs.keys.download()?, [7, 2, 9]);
    /// assert_eq!(runs.counts.download()?, [3, 1, 2]);
    /// # Ok(()) }
    /// ```
    pub fn run_length_encode<A: Array>(&self, keys: &A) -> Result<Runs<A::Elem>> {
        self.run_length_encode_by(Equal, keys)
    }

    /// [`Device::run_length_encode`] with neighbours in one run when `same(previous, next)`
    /// holds ([`SameKeys`]); each run's key is its first element.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[predicate(inputs = 2)]
    /// fn same_sign(a: f32, b: f32) -> bool { (a < 0.0) == (b < 0.0) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[-1.0f32, -2.0, 3.0, 4.0, 5.0, -6.0])?;
    /// let runs = dev.run_length_encode_by(same_sign, &xs)?;
    /// assert_eq!(runs.keys.download()?, [-1.0, 3.0, -6.0]);
    /// assert_eq!(runs.counts.download()?, [2, 3, 1]);
    /// # Ok(()) }
    /// ```
    pub fn run_length_encode_by<A: Array, S: SameKeys<A::Elem>>(
        &self,
        same: S,
        keys: &A,
    ) -> Result<Runs<A::Elem>> {
        let n = keys.array().len();
        let mut k = self.new_array::<A::Elem>(n)?;
        let mut c = self.new_array::<u32>(n)?;
        let runs = self
            .run_length_encode_into(same, keys, &mut k, &mut c)?
            .get()? as usize;
        k.truncate(runs);
        c.truncate(runs);
        Ok(Runs { keys: k, counts: c })
    }

    /// [`Device::run_length_encode_by`] into `keys_out` and `counts_out` (counts as `u32` or
    /// `u64`, [`RunCount`]), each with room for as many runs as the input has elements: the
    /// runs are their first `count` values, `count` a result left on the device. Allocates
    /// nothing, waits for nothing. `u32` counts of an input of 2^32 elements or more are
    /// [`Error::Unsupported`]; short outputs an [`Error::Shape`].
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::Equal;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1i16, 1, 4])?;
    /// let (mut keys, mut counts) = (dev.upload(&[0i16; 3])?, dev.upload(&[0u64; 3])?);
    /// let runs = dev.run_length_encode_into(Equal, &xs, &mut keys, &mut counts)?;
    /// assert_eq!(runs.get()?, 2);
    /// assert_eq!(counts.download()?[..2], [2, 1]);
    /// # Ok(()) }
    /// ```
    pub fn run_length_encode_into<A, S, C, OK, OC>(
        &self,
        same: S,
        keys: &A,
        keys_out: &mut OK,
        counts_out: &mut OC,
    ) -> Result<DeviceScalar<u64>>
    where
        A: Array,
        S: SameKeys<A::Elem>,
        C: RunCount,
        OK: OutputArray<A::Elem> + ?Sized,
        OC: OutputArray<C> + ?Sized,
    {
        let elems = keys.array();
        let n = elems.len();
        if n as u64 >= C::LIMIT {
            return Err(Error::Unsupported(format!(
                "run lengths as {} take inputs below 2^32 elements; this one has {n} (count as u64)",
                C::NAME
            )));
        }
        let out = RunsOut {
            keys: self.runs_output(keys_out, n, "run_length_encode")?,
            values: Some(self.runs_output(counts_out, n, "run_length_encode")?),
        };
        self.runs_into::<A::Elem, A::Elem, C, S>(
            &same,
            elems,
            |k| k,
            (
                runs_key::<A::Elem, S, CountedRuns<C>>(),
                run_length_module::<A::Elem, S, C>,
            ),
            out,
            BoundArgs::default(),
            |rows, heads| {
                cpu::run_lengths(heads, rows.len())
                    .into_iter()
                    .map(C::from_len)
                    .collect()
            },
        )
    }

    /// Reduce-by-key (CUB's `DeviceReduce::ReduceByKey`): for each run of `==` keys, its key
    /// and its values (the values of `values` at the same places) combined by `op`, in
    /// order: `identity + v[i] + v[i+1] + ...`, so the operator need not commute. `values` is
    /// any input a reduction with `op` takes, as long as `keys`: an array of `op`'s value
    /// type (a `DeviceVec`, a view of one, or the caller's `CudaSlice` / `CudaView`), zipped
    /// arrays for a tuple operator, `xs.indexed()` for a `(value, index)` operator (argmax per
    /// key; the index is the position in the input), or `xs.map(f)` (a map of one array or of
    /// zipped arrays, made into the operator's value in registers). Lengths that differ, and an
    /// `indexed()` index type too narrow to number the elements, are an [`Error::Shape`]; a
    /// value type of more than 8 bytes (its C layout) is [`Error::Unsupported`] on both
    /// backends, checked first (also for empty input). The result's values are a `DeviceVec` for a
    /// scalar operator and a [`DeviceTuples`](crate::DeviceTuples) for a tuple or struct one.
    ///
    /// One pass on the GPU, as [`Device::unique`], each run's values combined by a segmented
    /// scan and carried with the head count through the look-back. Deterministic: the
    /// look-back folds the values of runs that cross blocks one block at a time in order, so
    /// float results are the same bits on every run (though, as any parallel reduction, they
    /// may differ by rounding from a sequential fold, which is what the CPU backend computes). NaN keys are each a run of their own;
    /// NaN values do what `op` does with them (a `sum` of a run holding one is NaN). Waits for
    /// the number of runs.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f32, b: f32) -> f32 { a + b }
    /// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
    /// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    ///     if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }
    /// }
    /// #[map]
    /// fn with_one(x: f32) -> (f32, u32) { (x, 1) }
    /// #[reduce(identity = (0.0, 0))]
    /// fn sum_count(a: (f32, u32), b: (f32, u32)) -> (f32, u32) { (a.0 + b.0, a.1 + b.1) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[1, 1, 2, 2, 2, 1])?;
    /// let vals = dev.upload(&[1.0f32, 2.0, 3.0, 5.0, 4.0, 6.0])?;
    /// let by = dev.reduce_by_key(sum, &keys, &vals)?;
    /// assert_eq!(by.keys.download()?, [1, 2, 1]);
    /// assert_eq!(by.values.download()?, [3.0, 12.0, 6.0]);
    /// let best = dev.reduce_by_key(argmax, &keys, &vals.indexed())?; // each run's largest, where
    /// assert_eq!(best.values.download()?, [(2.0, 1), (5.0, 3), (6.0, 5)]);
    /// let mean = dev.reduce_by_key(sum_count, &keys, &vals.map(with_one))?; // sums and counts
    /// assert_eq!(mean.values.download()?, [(3.0, 2), (12.0, 3), (6.0, 1)]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_by_key<A, I, Op>(
        &self,
        op: Op,
        keys: &A,
        values: &I,
    ) -> Result<ByKey<A::Elem, Op::Value>>
    where
        A: Array,
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
    {
        self.reduce_by_key_by(Equal, op, keys, values)
    }

    /// [`Device::reduce_by_key`] with neighbouring keys in one run when `same(previous, next)`
    /// holds ([`SameKeys`]); each run's key is its first element.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// #[predicate(inputs = 2)]
    /// fn same_hundred(a: u32, b: u32) -> bool { a / 100 == b / 100 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[101u32, 150, 220, 230])?;
    /// let vals = dev.upload(&[1i64, 2, 3, 4])?;
    /// let by = dev.reduce_by_key_by(same_hundred, add, &keys, &vals)?;
    /// assert_eq!(by.keys.download()?, [101, 220]);
    /// assert_eq!(by.values.download()?, [3, 7]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_by_key_by<A, I, Op, S>(
        &self,
        same: S,
        op: Op,
        keys: &A,
        values: &I,
    ) -> Result<ByKey<A::Elem, Op::Value>>
    where
        A: Array,
        Op: ReduceOp,
        Op::Value: ArrayOf,
        I: ReduceInput<Op> + ?Sized,
        S: SameKeys<A::Elem>,
    {
        let n = keys.array().len();
        let mut k = self.new_array::<A::Elem>(n)?;
        let mut v = <Op::Value as ArrayOf>::Array::alloc(self, n)?;
        let runs = self
            .reduce_by_key_into(same, op, keys, values, &mut k, &mut v)?
            .get()? as usize;
        k.truncate(runs);
        v.truncate(runs);
        Ok(ByKey { keys: k, values: v })
    }

    /// [`Device::reduce_by_key_by`] into `keys_out` and `values_out`, each with room for as
    /// many runs as the input has elements: the runs are their first `count` values, `count`
    /// a result left on the device. `values_out` is a `DeviceVec` (or the caller's cudarc
    /// memory) for a scalar operator, a [`DeviceTuples`](crate::DeviceTuples) for a tuple or
    /// struct one (for instance from [`Device::upload_values`]). Allocates nothing, waits for
    /// nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::Equal;
    /// #[reduce(identity = i32::MIN)]
    /// fn max(a: i32, b: i32) -> i32 { a.max(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let keys = dev.upload(&[true, true, false])?;
    /// let vals = dev.upload(&[4, 9, -1])?;
    /// let (mut k, mut v) = (dev.upload(&[false; 3])?, dev.upload(&[0; 3])?);
    /// let runs = dev.reduce_by_key_into(Equal, max, &keys, &vals, &mut k, &mut v)?;
    /// assert_eq!(runs.get()?, 2);
    /// assert_eq!(v.download()?[..2], [9, -1]);
    /// // A tuple operator's values go into a DeviceTuples.
    /// #[reduce(identity = (i32::MIN, u32::MAX))]
    /// fn argmax(a: (i32, u32), b: (i32, u32)) -> (i32, u32) {
    ///     if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }
    /// }
    /// let mut best = dev.upload_values(&[(0i32, 0u32); 3])?;
    /// let runs = dev.reduce_by_key_into(Equal, argmax, &keys, &vals.indexed(), &mut k, &mut best)?;
    /// assert_eq!(runs.get()?, 2);
    /// assert_eq!(best.download()?[..2], [(9, 1), (-1, 2)]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_by_key_into<A, I, Op, S, OK, OV>(
        &self,
        same: S,
        op: Op,
        keys: &A,
        values: &I,
        keys_out: &mut OK,
        values_out: &mut OV,
    ) -> Result<DeviceScalar<u64>>
    where
        A: Array,
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
        S: SameKeys<A::Elem>,
        OK: OutputArray<A::Elem> + ?Sized,
        OV: OutputArray<Op::Value> + ?Sized,
    {
        if <Op::Value as DeviceValue>::C_SIZE > RUN_VALUE_MAX_BYTES {
            return Err(Error::Unsupported(format!(
                "reduce_by_key combines values of at most {RUN_VALUE_MAX_BYTES} bytes; `{}` values take {}",
                Op::META.fragment.name,
                <Op::Value as DeviceValue>::C_SIZE
            )));
        }
        if I::MASK.is_some()
            || I::THEN.is_some()
            || matches!(
                I::STAGE,
                Stage::Range(_)
                    | Stage::RangeMap(..)
                    | Stage::Gather(_)
                    | Stage::GatherMap(..)
                    | Stage::Strided
                    | Stage::StridedMap(_)
                    | Stage::Zipped(_)
                    | Stage::ZippedMap(..)
            )
        {
            return Err(Error::Unsupported(
                "reduce_by_key reads its values from memory beside the keys: a generated range \
                 (alone or zipped), a gather, a strided view, a map of a map or a masked input is \
                 not one of its inputs (an array, a view, a map or `indexed()` of one is)"
                    .into(),
            ));
        }
        let (ks, vs) = (keys.array(), values.elements());
        self.check_elements(&vs)?;
        if ks.len() != vs.len() {
            return Err(Error::Shape(format!(
                "reduce_by_key: the keys hold {} elements and the values {}; they must be equally long",
                ks.len(),
                vs.len()
            )));
        }
        values.validate()?;
        let elems = crate::arrays::zip2(ks, vs);
        let n = elems.len();
        let out = RunsOut {
            keys: self.runs_output(keys_out, n, "reduce_by_key")?,
            values: Some(self.runs_output(values_out, n, "reduce_by_key")?),
        };
        self.runs_into::<A::Elem, (A::Elem, I::Elem), Op::Value, S>(
            &same,
            elems,
            |(k, _)| k,
            (
                runs_key::<A::Elem, S, ReducedRuns<Op, I::Key, I::Elem>>(),
                reduce_by_key_input_module::<A::Elem, S, Op, I>,
            ),
            out,
            super::map_args(I::STAGE, values.args()),
            |rows, heads| {
                let vals: Vec<Op::Value> = rows
                    .iter()
                    .enumerate()
                    .map(|(i, &(_, e))| values.value(e, i as u64))
                    .collect();
                cpu::run_folds(&op, heads, &vals)
            },
        )
    }
}
