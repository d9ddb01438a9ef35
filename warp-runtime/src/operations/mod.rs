//! The operations, one file per family (reduce, predicates, scans, axes and segments,
//! transpose): each validates its arguments once, then runs on the device's backend. This file
//! says which module each operation's input needs (keyed by Rust types) and builds its source
//! with warp-kernels' assembler; the functions here also show those sources to users.

mod axes;
mod histogram;
mod predicates;
mod reduce;
mod runs;
mod scans;
mod segmented_scans;
mod topk;
mod transpose;

pub use histogram::{BinIndex, Counter, EvenSample, HISTOGRAM_MAX_BINS};
pub use predicates::{Split, Split3};
pub use runs::{
    ByKey, Equal, RUN_VALUE_MAX_BYTES, RunCount, Runs, SameKeys, reduce_by_key_input_module,
    reduce_by_key_module, run_length_module, unique_module,
};
pub use topk::{TopK, topk_module};

mod map;

use std::any::TypeId;
use std::borrow::Cow;
use std::sync::Arc;

use cudarc::driver::CudaViewMut;
use warp_kernels::{Scalar, Source, Style, module};

use crate::arrays::{DeviceScalar, Held, Target};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::launch::WdArgs;
use crate::backend::cuda::memory::SLOT_BYTES;
use crate::backend::cuda::{Gpu, ModuleKey, ModuleKind};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{ElementInput, ReduceInput, Stage};
use crate::operators::{BoundArgs, FnMeta, MapOp, OpMeta, Predicate, ReduceOp};
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element, Row};

/// The warp-kernels source of values made by `stage` from elements of the arrays `cols`
/// (zipped when more than one).
fn source(stage: Stage, cols: &'static [Scalar]) -> Source<'static> {
    match stage {
        Stage::Plain => Source::Plain(cols),
        Stage::Map(m) => Source::Map {
            elem: cols,
            map: &m.fragment,
        },
        Stage::Indexed(index, _) => Source::Indexed {
            elem: cols[0],
            index,
        },
    }
}

fn location(name: &str, file: &str, line: u32) -> (String, String) {
    (name.to_string(), format!("{file}:{line}"))
}

fn composed(
    (name, location): (String, String),
    source: String,
    needs_cuda_headers: bool,
) -> ModuleSource {
    ModuleSource {
        name,
        location,
        source: Cow::Owned(source),
        needs_cuda_headers,
    }
}

/// The key of the reduction module of `Op` over inputs `I`.
pub(crate) fn reduce_key<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Reduce,
        [
            TypeId::of::<Op>(),
            TypeId::of::<I::Key>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module `Device::reduce(op, input)` runs for an `op` of type `Op` and an input of
/// type `I`: the operator's own module (`Op::META.source`) for arrays, views and
/// `indexed()` pairs, or a module composed with the input's map for `xs.map(f)`.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{DeviceVec, Mapped, reduce_module};
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[map]
/// fn square(x: f32) -> f32 { x * x }
/// assert_eq!(reduce_module::<sum, DeviceVec<f32>>().source, sum.cuda_source());
/// assert!(reduce_module::<sum, Mapped<'static, square>>().source.contains("wd_map"));
/// ```
pub fn reduce_module<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleSource {
    let op = &Op::META.fragment;
    let cols = <I::Elem as Row>::COLUMNS;
    match I::STAGE {
        Stage::Map(m) => {
            let text = module::reduce_module(op, Some(&source(I::STAGE, cols)));
            let f = &m.fragment;
            composed(
                location(&format!("{}_{}", &f.name, &op.name), &f.file, f.line),
                text,
                op.style.needs_cuda_headers(),
            )
        }
        // Zipped arrays reduced as tuples: a module of their own.
        Stage::Plain if cols.len() > 1 => composed(
            location(&op.name, &op.file, op.line),
            module::reduce_module(op, Some(&source(I::STAGE, cols))),
            op.style.needs_cuda_headers(),
        ),
        _ => Op::META.module(),
    }
}

/// The key of the predicate module of `P` over inputs `I`.
pub(crate) fn predicate_key<P: Predicate, I: ElementInput + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Predicate,
        [
            TypeId::of::<P>(),
            TypeId::of::<I::Map>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of the predicate operations (`count`, `any`, `all`, `find_first`, `mask`,
/// `filter`, `partition`) of a predicate of type `P` over inputs of type `I`.
pub fn predicate_module<P: Predicate, I: ElementInput<Value = P::Input> + ?Sized>() -> ModuleSource
{
    let p: &FnMeta = &P::META;
    let stage = match I::MAP {
        Some(m) => Stage::Map(m),
        None => Stage::Plain,
    };
    let text = module::predicate_module(
        &p.fragment,
        &source(stage, <I::Elem as Row>::COLUMNS),
        I::KEEP,
    );
    let name = match I::MAP {
        Some(m) => format!("{}_{}", &m.fragment.name, &p.fragment.name),
        None => p.fragment.name.to_string(),
    };
    composed(
        location(&name, &p.fragment.file, p.fragment.line),
        text,
        false,
    )
}

/// The key of the three-way partition module of `P1` and `P2` over inputs `I`.
pub(crate) fn partition3_key<P1: Predicate, P2: Predicate, I: ElementInput + ?Sized>() -> ModuleKey
{
    ModuleKey::new(
        ModuleKind::Partition3,
        [
            TypeId::of::<(P1, P2)>(),
            TypeId::of::<I::Map>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of `partition3` with predicates of types `P1` (the first part) and `P2`
/// (the second) over inputs of type `I`.
pub fn partition3_module<P1, P2, I>() -> ModuleSource
where
    P1: Predicate,
    P2: Predicate<Input = P1::Input>,
    I: ElementInput<Value = P1::Input> + ?Sized,
{
    let (p, q): (&FnMeta, &FnMeta) = (&P1::META, &P2::META);
    let stage = match I::MAP {
        Some(m) => Stage::Map(m),
        None => Stage::Plain,
    };
    let text = module::partition3_module(
        &p.fragment,
        &q.fragment,
        &source(stage, <I::Elem as Row>::COLUMNS),
        I::KEEP,
    );
    composed(
        location(
            &format!("partition3_{}_{}", &p.fragment.name, &q.fragment.name),
            &p.fragment.file,
            p.fragment.line,
        ),
        text,
        false,
    )
}

/// The key of the histogram module of bin map `M` over inputs `I`.
pub(crate) fn histogram_key<M: MapOp, I: ElementInput + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Histogram,
        [
            TypeId::of::<M::Key>(),
            TypeId::of::<I::Map>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of `histogram`, `histogram_into` and `histogram_even` with a bin map of
/// type `M` over inputs of type `I`.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{DeviceVec, histogram_module};
/// #[map]
/// fn low_bits(x: u32) -> u32 { x & 255 }
/// let m = histogram_module::<low_bits, DeviceVec<u32>>();
/// assert!(m.source.contains("__match_any_sync"));
/// ```
pub fn histogram_module<M, I>() -> ModuleSource
where
    M: MapOp,
    M::Output: BinIndex,
    I: ElementInput<Value = M::Input> + ?Sized,
{
    let f: &FnMeta = &M::META;
    let stage = match I::MAP {
        Some(m) => Stage::Map(m),
        None => Stage::Plain,
    };
    composed(
        location(
            &format!("histogram_{}", &f.fragment.name),
            &f.fragment.file,
            f.fragment.line,
        ),
        module::histogram_module(&f.fragment, &source(stage, <I::Elem as Row>::COLUMNS)),
        false,
    )
}

/// The key of the map module of `M` over elements `E`.
pub(crate) fn map_key<M: MapOp>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Map,
        [
            TypeId::of::<M>(),
            TypeId::of::<()>(),
            TypeId::of::<M::Input>(),
        ],
    )
}

/// The CUDA module of `map` (`Device::map`, `Device::map_into`) with a map of type `M`.
pub fn map_module<M: MapOp>() -> ModuleSource {
    let f = &M::META.fragment;
    composed(
        location(&format!("map_{}", &f.name), &f.file, f.line),
        module::map_module(f, <M::Input as Row>::COLUMNS),
        false,
    )
}

/// The key of the scan and axis module of `Op` over inputs `I`.
pub(crate) fn axis_key<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Axis,
        [
            TypeId::of::<Op>(),
            TypeId::of::<I::Key>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of the scans and axis reductions (`scan`, `exclusive_scan`,
/// `reduce_rows`, `reduce_cols`, `reduce_segments`) of an operator of type `Op` over inputs of
/// type `I`.
pub fn axis_module<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>() -> ModuleSource {
    let op: &OpMeta = &Op::META;
    let text = module::axis_module(&op.fragment, &source(I::STAGE, <I::Elem as Row>::COLUMNS));
    composed(
        location(
            &format!("axis_{}", &op.fragment.name),
            &op.fragment.file,
            op.fragment.line,
        ),
        text,
        Style::Intrinsics.needs_cuda_headers(),
    )
}

/// The key of the transpose module of `T`.
pub(crate) fn transpose_key<T: Element>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Transpose,
        [TypeId::of::<T>(), TypeId::of::<()>(), TypeId::of::<()>()],
    )
}

/// The CUDA module of `transpose` for elements of type `T`.
pub fn transpose_module<T: Element>() -> ModuleSource {
    composed(
        location(&format!("transpose_{}", T::NAME), file!(), line!()),
        module::transpose_module(T::SCALAR),
        false,
    )
}

/// `len / cols` when `cols` divides it: the number of rows of a row-major matrix.
fn rows_of(len: usize, cols: usize) -> Result<usize> {
    if cols == 0 {
        return Err(Error::Shape("a matrix needs at least one column".into()));
    }
    if !len.is_multiple_of(cols) {
        return Err(Error::Shape(format!(
            "{len} elements are not a whole number of rows of {cols} columns"
        )));
    }
    Ok(len / cols)
}

/// A `#[reduce]` operator is the CPU backend's fold.
impl<Op: ReduceOp> cpu::Fold<Op::Value> for Op {
    fn identity(&self) -> Op::Value {
        ReduceOp::identity(self)
    }
    fn combine(&self, a: Op::Value, b: Op::Value) -> Op::Value {
        ReduceOp::combine(self, a, b)
    }
}

/// The bound arguments of an input's map (or none).
fn map_args(stage: Stage, args: BoundArgs) -> BoundArgs {
    match stage {
        Stage::Map(_) => args,
        _ => BoundArgs::default(),
    }
}

impl Device {
    /// Checks that bound arguments are usable here: at most `BOUND_ARGS` of them, and
    /// device-resident ones must be results of this GPU context (on the CPU backend, of the
    /// CPU backend: no GPU results).
    fn check_bound(&self, args: &BoundArgs) -> Result<()> {
        args.check()?;
        for s in &args.scalars {
            if !self.shares_memory_with(&s.device) {
                return Err(Error::DeviceMismatch);
            }
        }
        Ok(())
    }

    /// Runs `launch` on GPU `g` with `args` bound: this device's stream first waits for the
    /// device-resident arguments computed on other streams, and after the launch those
    /// streams wait for it (so their result slots are not reused before it has read them).
    fn with_bound<R>(
        &self,
        g: &Gpu,
        args: &BoundArgs,
        launch: impl FnOnce(WdArgs) -> Result<R>,
    ) -> Result<R> {
        self.check_bound(args)?;
        let mut others = Vec::new();
        for s in &args.scalars {
            let producer = s.device.gpu()?;
            if !Arc::ptr_eq(producer.stream(), g.stream()) {
                if let Held::Gpu { slot, .. } = &s.held {
                    g.wait(slot.event())?;
                }
                others.push(producer);
            }
        }
        let r = launch(WdArgs {
            v: args.bits,
            indirect: args.indirect,
        })?;
        if !others.is_empty() {
            let done = g.record()?;
            for p in others {
                p.wait(&done)?;
            }
        }
        Ok(r)
    }

    /// A device-resident result holding `value` (the result of an operation on empty input).
    fn scalar_of<T: DeviceValue>(&self, value: T) -> Result<DeviceScalar<T>> {
        let mut bytes = [0u8; SLOT_BYTES];
        value.write_c(&mut bytes);
        match &*self.backend {
            Backend::Cpu => Ok(DeviceScalar::on_host(self, &bytes[..T::C_SIZE])),
            Backend::Gpu(g) => {
                let slot = g.slot()?;
                g.write_slot(&slot, &bytes[..T::C_SIZE])?;
                Ok(DeviceScalar::on_gpu(self, slot))
            }
        }
    }
}

/// Where a GPU operation writes: the bytes of a GPU target (the CPU ones are handled by the
/// CPU path).
fn gpu_bytes(t: Target<'_>) -> Result<CudaViewMut<'_, u8>> {
    match t {
        Target::Gpu(bytes, _) => Ok(bytes),
        Target::Cpu(..) => Err(Error::DeviceMismatch),
    }
}
