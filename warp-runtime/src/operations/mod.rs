//! The operations, one file per family (reduce, predicates, scans, axes and segments,
//! transpose): each validates its arguments once, then runs on the device's backend. This file
//! says which module each operation's input needs (keyed by Rust types) and builds its source
//! with warp-kernels' assembler; the functions here also show those sources to users.

mod axes;
mod group;
mod histogram;
mod merge;
mod predicates;
mod reduce;
mod reorder;
mod runs;
mod scans;
mod scatter;
mod search;
mod segmented_scans;
mod sort;
mod sort_rows;
mod topk;
mod topk_rows;
mod transpose;

pub use axes::axis_module;
pub use group::group_module;
pub use histogram::{BinIndex, Counter, EvenSample, HISTOGRAM_MAX_BINS, Weight};
pub use histogram::{histogram_module, histogram_reduce_module, histogram_weighted_module};
pub use map::{collect_module, map_module};
pub use merge::{SortByInput, merge_module, merge_values_module};
pub use predicates::{Split, Split3};
pub use predicates::{argwhere_module, partition3_module, predicate_module};
pub use reduce::reduce_module;
pub use runs::{
    ByKey, Equal, RUN_VALUE_MAX_BYTES, RunCount, Runs, SameKeys, reduce_by_key_input_module,
    reduce_by_key_module, run_length_module, unique_module,
};
pub use scatter::{ScatterIndex, scatter_module};
pub use search::search_module;
pub use sort::{SortOrder, SortValue, sort_module, sort_module_on};
pub use topk::{TopK, topk_module};
pub use topk_rows::TopKRows;
pub use transpose::transpose_module;

mod map;

/// What each operation file names to key and build its modules (the key, the source, the
/// assembler and the helpers below).
mod keys {
    pub(super) use super::{Checked, composed, input_source, location, source, values_of};
    pub(super) use crate::backend::cuda::{ModuleKey, ModuleKind};
    pub(super) use crate::inputs::Stage;
    pub(super) use crate::operators::{FnMeta, OpMeta};
    pub(super) use crate::toolchain::ModuleSource;
    pub(super) use crate::values::Row;
    pub(super) use std::any::TypeId;
    pub(super) use warp_kernels::{Style, module};
}

use std::borrow::Cow;
use std::sync::Arc;

use cudarc::driver::CudaViewMut;
use warp_kernels::{Scalar, Source};

use crate::arrays::{ArrayOf, DeviceScalar, Elements, Held, Target};
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::launch::WdArgs;
use crate::backend::cuda::memory::SLOT_BYTES;
use crate::backend::cuda::{Columns, Gpu};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{ElementInput, ReduceInput, Stage};
use crate::operators::{BoundArgs, FnMeta, ReduceOp};
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element};

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
        Stage::Range(index) => Source::Range { index, map: None },
        Stage::RangeMap(index, m) => Source::Range {
            index,
            map: Some(&m.fragment),
        },
        Stage::Gather(index) => Source::Gather {
            elem: cols[0],
            index,
            map: None,
        },
        Stage::GatherMap(index, m) => Source::Gather {
            elem: cols[0],
            index,
            map: Some(&m.fragment),
        },
        Stage::Strided => Source::Strided {
            elem: cols[0],
            map: None,
        },
        Stage::StridedMap(m) => Source::Strided {
            elem: cols[0],
            map: Some(&m.fragment),
        },
        Stage::Zipped(generated) => Source::Zipped {
            elem: cols,
            generated,
            map: None,
        },
        Stage::ZippedMap(generated, m) => Source::Zipped {
            elem: cols,
            generated,
            map: Some(&m.fragment),
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

/// Checks CSR offsets against an input of `n` elements.
fn check_offsets(o: &[u64], n: usize) -> Result<()> {
    if let Some(w) = o.windows(2).position(|w| w[1] < w[0]) {
        return Err(Error::Shape(format!(
            "CSR offsets decrease at segment {w}: {} then {}",
            o[w],
            o[w + 1]
        )));
    }
    match o.last() {
        Some(&last) if last > n as u64 => Err(Error::Shape(format!(
            "the last CSR offset ({last}) is past the input's {n} elements"
        ))),
        _ => Ok(()),
    }
}

/// The array type that holds values of `Op` (what scans and axis reductions return).
type Array<Op> = <<Op as ReduceOp>::Value as ArrayOf>::Array;

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
        Stage::Map(_)
        | Stage::RangeMap(..)
        | Stage::GatherMap(..)
        | Stage::StridedMap(_)
        | Stage::ZippedMap(..) => args,
        _ => BoundArgs::default(),
    }
}

/// The bound arguments of a reduce input's kernels: its map's, then its mask's.
fn input_args<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>(input: &I) -> BoundArgs {
    match I::MASK {
        Some(_) => input.args(),
        None => map_args(I::STAGE, input.args()),
    }
}

/// The value of element `e` at position `i` of a reduce input on the CPU: the input's value,
/// or `op`'s identity where its mask rejects it.
fn values_of<'x, Op, I>(op: &'x Op, input: &'x I) -> impl Fn(I::Elem, u64) -> Op::Value + Sync + 'x
where
    Op: ReduceOp,
    I: ReduceInput<Op> + ?Sized,
{
    move |e, i| {
        let v = input.value(e, i);
        if input.keeps(&v) { v } else { op.identity() }
    }
}

/// The source an input's module reads, given to `build`: the stage's (`source`), its values
/// mapped again by `then` (a map of a map) and masked by `mask` (reduce inputs) when given.
fn input_source<R>(
    stage: Stage,
    cols: &'static [Scalar],
    then: Option<&'static FnMeta>,
    mask: Option<&'static FnMeta>,
    build: impl FnOnce(&Source) -> R,
) -> R {
    let first = source(stage, cols);
    let chained;
    let inner = match then {
        Some(g) => {
            chained = Source::Chained {
                inner: &first,
                then: &g.fragment,
            };
            &chained
        }
        None => &first,
    };
    match mask {
        Some(p) => build(&Source::Masked {
            inner,
            pred: &p.fragment,
        }),
        None => build(inner),
    }
}

/// The length of an array an allocating form makes for `elems`: an
/// [`Error::Unsupported`] for a device-resident length, whose array would be as long as the
/// whole input with its end not written (the `_into` forms take one).
fn uncounted<E: Clone>(elems: &Elements<'_, E>, what: &str) -> Result<usize> {
    match elems.count() {
        Some(_) => Err(Error::Unsupported(format!(
            "{what} of a device-resident length (`input.take(&count)`): use {what}_into, which writes the first `count` places of an output as long as the input"
        ))),
        None => Ok(elems.len()),
    }
}

/// An operation's input after the shared prologue: its elements (on this device) and the bound
/// arguments of its kernel (the input's map's first), checked.
struct Checked<'a, E: Clone> {
    elems: Elements<'a, E>,
    args: BoundArgs,
}

impl<E: Clone> Checked<'_, E> {
    /// The same input, a device-resident length (`input.take(&count)`) admitted: what the
    /// operations whose kernels stop at one call (the others refuse it when they read the
    /// elements).
    fn admitting_count(mut self) -> Self {
        self.elems.admit_count();
        self
    }
}

impl Device {
    /// The prologue of the operations over [`ReduceInput`]s (reductions, scans, axis
    /// reductions): the elements on this device, the input valid, its map's bound arguments
    /// usable here.
    fn reduce_prologue<'a, Op, I>(&self, input: &'a I) -> Result<Checked<'a, I::Elem>>
    where
        Op: ReduceOp,
        I: ReduceInput<Op> + ?Sized,
    {
        let elems = input.elements();
        self.check_elements(&elems)?;
        input.validate()?;
        let args = input_args::<Op, I>(input);
        self.check_bound(&args)?;
        Ok(Checked { elems, args })
    }

    /// The prologue of the operations over [`ElementInput`]s (predicates, partitions,
    /// histograms): the elements on this device and the bound arguments of the input's map,
    /// then of each function testing or binning its values (`extra`, in kernel order), usable
    /// here.
    fn element_prologue<'a, I>(
        &self,
        input: &'a I,
        extra: &[BoundArgs],
    ) -> Result<Checked<'a, I::Elem>>
    where
        I: ElementInput + ?Sized,
    {
        let elems = input.elements();
        self.check_elements(&elems)?;
        let mut args = input.args();
        for p in extra {
            args = BoundArgs::join(args, p);
        }
        self.check_bound(&args)?;
        Ok(Checked { elems, args })
    }

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

    /// Runs `launch` with the arrays of `elems` on GPU `g` and `args` bound
    /// ([`Device::with_bound`]). For a gather it first arms the kernels' fault word (a zeroed
    /// result slot) and, after the launch, reads it: an index out of range is an
    /// [`Error::IndexOutOfRange`] naming the smallest such position, so an operation over a
    /// gather waits for its kernels.
    fn with_input<'a, E: Clone, R>(
        &self,
        g: &Gpu,
        elems: &Elements<'a, E>,
        args: &BoundArgs,
        launch: impl FnOnce(Columns<'a>, WdArgs) -> Result<R>,
    ) -> Result<R> {
        let mut input = elems.columns()?;
        // A device-resident length is waited for as a bound result is.
        let counted;
        let args = match elems.count() {
            Some(c) => {
                let mut with = args.clone();
                with.scalars.push(c.inner().clone());
                counted = with;
                &counted
            }
            None => args,
        };
        let Some(gather) = input.gather.as_mut() else {
            return self.with_bound(g, args, |a| launch(input, a));
        };
        let fault = g.slot()?;
        g.write_slot(&fault, &[0u8; 8])?;
        gather.fault = fault.ptr;
        let len = gather.values_len as usize;
        let (indices, width) = (input.views[1].slice(..), input.sizes[1]);
        let r = self.with_bound(g, args, |a| launch(input, a))?;
        g.written(&fault)?;
        let mut word = [0u8; 8];
        g.read_bytes(fault.ptr, fault.event(), &mut word)?;
        let word = u64::from_ne_bytes(word);
        if word == 0 {
            return Ok(r);
        }
        // The kernels raised the word to !position of the smallest bad position.
        let position = !word as usize;
        let bytes = g.download(&indices.slice(position * width..(position + 1) * width))?;
        let index = index_of(&bytes);
        Err(Error::IndexOutOfRange {
            position,
            index,
            len,
        })
    }

    /// A device-resident result holding `value` (the result of an operation on empty input).
    pub(crate) fn scalar_of<T: DeviceValue>(&self, value: T) -> Result<DeviceScalar<T>> {
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

/// The index a gather's `u32` or `u64` index column holds in `bytes` (exactly one index's).
fn index_of(bytes: &[u8]) -> u64 {
    let mut wide = [0u8; 8];
    wide[..bytes.len()].copy_from_slice(bytes);
    match bytes.len() {
        4 => u32::from_ne_bytes([wide[0], wide[1], wide[2], wide[3]]) as u64,
        _ => u64::from_ne_bytes(wide),
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

/// The bytes of an output array viewed as its `len` elements again.
pub(super) fn typed<'b, T: Element>(
    bytes: &'b mut CudaViewMut<'_, u8>,
    len: usize,
) -> Result<CudaViewMut<'b, T>> {
    // SAFETY: the bytes are those of an array of `len` elements of `T` (the view covers them
    // exactly, aligned as the allocation), and every bit pattern the kernel writes is a `T`.
    unsafe { bytes.transmute_mut::<T>(len) }
        .ok_or_else(|| Error::Shape("an output could not be viewed as its elements".into()))
}
