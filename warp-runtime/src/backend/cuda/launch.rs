//! The one typed launcher: a launch names a catalogue kernel and passes a struct of typed
//! arguments whose parameter types are checked against the kernel's parameter list (the
//! `extern "C"` signature the module assembler writes from the same list), plus event timing
//! and the single-pass launches' tiles, status and queue.

use std::sync::atomic::Ordering;

use cudarc::driver::{
    CudaEvent, CudaStream, CudaView, CudaViewMut, DevicePtr, DeviceRepr, LaunchArgs, LaunchConfig,
    PushKernelArg, SyncOnDrop,
};
use warp_kernels::catalogue::{BOUND_ARGS, Kernel, MAX_INPUTS, ParamTy, Pointee};

use super::memory::Slot;
use super::modules::Module;
use super::{Gpu, drv};
use crate::error::{Error, Result};

/// A kernel argument: a Rust value and the catalogue parameter type it fills.
pub(crate) trait KernelArg {
    /// The parameter type.
    const TY: ParamTy;
    /// Pushes the argument (device pointers with cudarc's stream-ordering records).
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>);
}

/// A struct of a kernel's arguments, in its parameter order (made by `kernel_args!`).
pub(crate) trait KernelArgs {
    /// The catalogue kernels these arguments can launch.
    const KERNELS: &'static [&'static Kernel];
    /// The parameter types of the fields, in order.
    const SIGNATURE: &'static [ParamTy];
    /// Pushes every field, in order.
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>);
}

/// Defines a struct of kernel arguments and its [`KernelArgs`] (signature derived from the
/// fields' types). `[generics] [generics as used]` follow the name.
macro_rules! kernel_args {
    ($(#[$doc:meta])* struct $name:ident [$($gen:tt)*] [$($used:tt)*] for [$($k:path),+ $(,)?] {
        $($field:ident: $ty:ty),+ $(,)?
    }) => {
        $(#[$doc])*
        pub(crate) struct $name<$($gen)*> {
            $(pub(crate) $field: $ty),+
        }
        impl<$($gen)*> $crate::backend::cuda::launch::KernelArgs for $name<$($used)*> {
            const KERNELS: &'static [&'static ::warp_kernels::catalogue::Kernel] = &[$(&$k),+];
            const SIGNATURE: &'static [::warp_kernels::catalogue::ParamTy] =
                &[$(<$ty as $crate::backend::cuda::launch::KernelArg>::TY),+];
            fn push<'a>(&'a mut self, b: &mut ::cudarc::driver::LaunchArgs<'a>) {
                let Self { $($field),+ } = self;
                $($crate::backend::cuda::launch::KernelArg::push($field, b);)+
            }
        }
    };
}
pub(crate) use kernel_args;

impl KernelArg for u64 {
    const TY: ParamTy = ParamTy::U64;
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        b.arg(&*self);
    }
}

impl KernelArg for u32 {
    const TY: ParamTy = ParamTy::U32;
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        b.arg(&*self);
    }
}

/// The bound arguments of maps and predicates as the kernels take them (`wd_args`):
/// [`BOUND_ARGS`] 64-bit words, and the mask of those that are device addresses of result slots.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WdArgs {
    pub(crate) v: [u64; BOUND_ARGS],
    pub(crate) indirect: u32,
}

// SAFETY: `WdArgs` is `repr(C)` plain data with the layout of the C struct `wd_args`
// (`wd_u64 v[WD_BOUND_ARGS]; wd_u32 indirect;`, 72 bytes with its tail padding, for the
// eight words that `WD_BOUND_ARGS` is).
unsafe impl DeviceRepr for WdArgs {}

/// The bound arguments of maps and predicates (`wd_args`).
pub(crate) struct Args(pub(crate) WdArgs);

impl KernelArg for Args {
    const TY: ParamTy = ParamTy::Args;
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        b.arg(&self.0);
    }
}

/// The arrays a stage reads (`wd_in`: one device address per zipped array, unused ones null),
/// and the device address of a device-resident length (`len`, null when there is none), by
/// value.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WdIn {
    pub(crate) p: [u64; MAX_INPUTS],
    pub(crate) len: u64,
}

// SAFETY: `WdIn` is `repr(C)` plain data with the layout of the C struct `wd_in`
// (`const void* p[WD_MAX_INPUTS]; const wd_u64* len;` with 64-bit pointers).
unsafe impl DeviceRepr for WdIn {}

/// The arrays a stage reads, as the kernel takes them: their addresses, taken with cudarc's
/// stream ordering (the launch's stream waits for earlier writes of each array; the guards
/// record the reads once dropped, after the launch).
pub(crate) struct Input<'s> {
    raw: WdIn,
    _reads: Vec<SyncOnDrop<'s>>,
}

impl KernelArg for Input<'_> {
    const TY: ParamTy = ParamTy::Input;
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        b.arg(&self.raw);
    }
}

/// Elements of one array (`const E*`: the transpose's input).
pub(crate) struct Elems<'v, E>(pub(crate) CudaView<'v, E>);

impl<E> KernelArg for Elems<'_, E> {
    const TY: ParamTy = ParamTy::In(Pointee::Elem);
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        b.arg(&self.0);
    }
}

/// Output elements (`E*`): a tracked view (the caller's memory: the transpose's, top-k's, the
/// sort's output), or the device's own scratch at a raw device address (the sort's ping-pong
/// buffer).
pub(crate) enum ElemsOut<'v, E> {
    At(CudaViewMut<'v, E>),
    Raw(u64),
}

impl<E> KernelArg for ElemsOut<'_, E> {
    const TY: ParamTy = ParamTy::Out(Pointee::Elem);
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        match self {
            ElemsOut::At(v) => b.arg(v),
            ElemsOut::Raw(ptr) => b.arg(&*ptr),
        };
    }
}

/// Values the kernel only reads (`const T*`), as their bytes in C layout: a tracked view, or a
/// raw device address (0: none, as an argsort's generated positions).
pub(crate) enum ValuesIn<'v> {
    At(CudaView<'v, u8>),
    Raw(u64),
}

impl KernelArg for ValuesIn<'_> {
    const TY: ParamTy = ParamTy::In(Pointee::Value);
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        match self {
            ValuesIn::At(v) => b.arg(&*v),
            ValuesIn::Raw(ptr) => b.arg(&*ptr),
        };
    }
}

/// Operator values (`T*`), as their bytes in C layout: a tracked view (memory the caller may
/// use on other streams), or a raw device address of the device's own memory (scratch, a
/// result slot; 0 is a null pointer: a partition's rejected values, when only filtering).
pub(crate) enum Values<'v> {
    At(CudaViewMut<'v, u8>),
    Raw(u64),
}

impl<'v> Values<'v> {
    /// The caller's values, or a null pointer (an output the kernel skips).
    pub(crate) fn or_null(v: Option<CudaViewMut<'v, u8>>) -> Self {
        v.map_or(Values::Raw(0), Values::At)
    }
}

impl KernelArg for Values<'_> {
    const TY: ParamTy = ParamTy::Out(Pointee::Value);
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        match self {
            Values::At(v) => b.arg(v),
            Values::Raw(ptr) => b.arg(&*ptr),
        };
    }
}

/// A word type of buffers the kernels use for counts, flags and status.
pub(crate) trait Word: DeviceRepr {
    const POINTEE: Pointee;
}
impl Word for u8 {
    const POINTEE: Pointee = Pointee::U8;
}
impl Word for u32 {
    const POINTEE: Pointee = Pointee::U32;
}
impl Word for u64 {
    const POINTEE: Pointee = Pointee::U64;
}

/// Words the kernel only reads (`const W*`): a tracked view, or the device's own memory.
pub(crate) enum In<'v, W> {
    At(CudaView<'v, W>),
    Raw(u64, std::marker::PhantomData<W>),
}

impl<W> In<'_, W> {
    /// The device's own memory at `ptr`.
    pub(crate) fn raw(ptr: u64) -> Self {
        In::Raw(ptr, std::marker::PhantomData)
    }
}

impl<W: Word> KernelArg for In<'_, W> {
    const TY: ParamTy = ParamTy::In(W::POINTEE);
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        match self {
            In::At(v) => b.arg(&*v),
            In::Raw(ptr, _) => b.arg(&*ptr),
        };
    }
}

/// Words the kernel writes (`W*`): a tracked view, or a raw device address of the device's
/// own memory (0: a null pointer, an unused tile queue).
pub(crate) enum Out<'v, W> {
    At(CudaViewMut<'v, W>),
    Raw(u64, std::marker::PhantomData<W>),
}

impl<W> Out<'_, W> {
    /// The device's own memory at `ptr` (0: null).
    pub(crate) fn raw(ptr: u64) -> Self {
        Out::Raw(ptr, std::marker::PhantomData)
    }
}

impl<W: Word> KernelArg for Out<'_, W> {
    const TY: ParamTy = ParamTy::Out(W::POINTEE);
    fn push<'a>(&'a mut self, b: &mut LaunchArgs<'a>) {
        match self {
            Out::At(v) => b.arg(v),
            Out::Raw(ptr, _) => b.arg(&*ptr),
        };
    }
}

/// What a family's launch reads: a module, the arrays its stage reads, and the bound
/// arguments of its map and predicate.
pub(crate) struct Staged<'m, 'v> {
    /// The module.
    pub(crate) module: &'m Module,
    /// The arrays (one, or several zipped).
    pub(crate) input: Columns<'v>,
    /// The bound arguments.
    pub(crate) args: WdArgs,
}

impl Staged<'_, '_> {
    /// The arrays as a kernel argument of a launch on `stream`.
    pub(crate) fn arrays<'s>(&'s self, stream: &'s CudaStream) -> Input<'s> {
        self.input.arg(stream)
    }
}

/// The GPU arrays an operation's kernels read: one byte view per array (zipped when more than
/// one), each of `len` elements of `sizes[k]` bytes; or, for a generated range, no view and its
/// first index in `starts[0]` (its elements are `sizes[0]` bytes wide); or, for a zip holding
/// generated ranges, a start in `starts[k]` for each generated column `k` and a view, in
/// order, for each other; or, for a gather, the array and then the indices (`len` of them) with
/// `gather` set; or, for a strided view, the array whose every `step`-th element (`len` of
/// them) is read.
pub(crate) struct Columns<'a> {
    pub(crate) views: Vec<CudaView<'a, u8>>,
    pub(crate) sizes: Vec<usize>,
    pub(crate) len: usize,
    /// One entry per column (`Some(start)` for a generated range), or empty when every column
    /// is an array.
    pub(crate) starts: Vec<Option<u64>>,
    pub(crate) gather: Option<GatherCols>,
    pub(crate) step: Option<u64>,
    /// The device address of a device-resident length (the kernels read the first that many
    /// of the `len` elements), if any.
    pub(crate) len_at: Option<u64>,
}

/// What a gather's kernels take beyond its two arrays: the gathered array's length and the
/// device address of the fault word (`module::Source::Gather`; 0 until an operation arms it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GatherCols {
    pub(crate) values_len: u64,
    pub(crate) fault: u64,
}

impl<'a> Columns<'a> {
    /// The same arrays again (new views of the same memory).
    pub(crate) fn reborrow(&self) -> Columns<'a> {
        Columns {
            views: self.views.iter().map(|v| v.slice(..)).collect(),
            sizes: self.sizes.clone(),
            len: self.len,
            starts: self.starts.clone(),
            gather: self.gather,
            step: self.step,
            len_at: self.len_at,
        }
    }

    /// Whether these are a generated range alone: nothing is read, and the map of each index
    /// is the work (the reduction's thread loop then goes by tiles of indices).
    pub(crate) fn generated(&self) -> bool {
        self.views.is_empty() && self.gather.is_none() && matches!(self.starts[..], [Some(_)])
    }

    /// Bytes of the widest array's element (what vector loads are sized by).
    pub(crate) fn widest(&self) -> usize {
        self.sizes.iter().copied().max().unwrap_or(1)
    }

    /// Number of elements of each array.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The columns held in memory, each as (column, view, bytes of an element): every column
    /// but a generated range's, whose views come in column order.
    fn stored(&self) -> impl Iterator<Item = (usize, &CudaView<'a, u8>, usize)> {
        let mut views = self.views.iter();
        let made = |k: usize| matches!(self.starts.get(k), Some(Some(_)));
        self.sizes
            .iter()
            .enumerate()
            .filter(move |&(k, _)| !made(k))
            .filter_map(move |(k, &size)| views.next().map(|v| (k, v, size)))
    }
}

impl Columns<'_> {
    /// The arrays as a kernel argument of a launch on `stream`.
    pub(crate) fn arg<'s>(&'s self, stream: &'s CudaStream) -> Input<'s> {
        let mut raw = WdIn::default();
        let mut reads = Vec::with_capacity(self.views.len());
        for (k, v, _) in self.stored() {
            let (ptr, read) = v.device_ptr(stream);
            raw.p[k] = ptr;
            reads.push(read);
        }
        // A generated range's first index travels where an array's address would.
        for (k, start) in self.starts.iter().enumerate() {
            if let Some(start) = start {
                raw.p[k] = *start;
            }
        }
        // A gather's array length and fault word follow its two arrays.
        if let Some(g) = self.gather {
            raw.p[2] = g.values_len;
            raw.p[3] = g.fault;
        }
        // A strided view's step follows its array.
        if let Some(step) = self.step {
            raw.p[1] = step;
        }
        raw.len = self.len_at.unwrap_or(0);
        Input { raw, _reads: reads }
    }

    /// Whether a vector (16 bytes of the widest array) of every array can start at element 0,
    /// as the stage's `aligned(0)` computes it.
    pub(crate) fn vector_aligned(&self, stream: &CudaStream) -> bool {
        // A strided view has no vectors (its stage's `aligned` is false).
        if self.step.is_some() {
            return false;
        }
        let vec = 16 / self.widest();
        // A gather's vectors are of its indices only; a generated column's start anywhere.
        let skip = usize::from(self.gather.is_some());
        self.stored().skip(skip).all(|(_, v, size)| {
            let (ptr, _read) = v.device_ptr(stream);
            ptr.is_multiple_of((vec * size) as u64)
        })
    }
}

/// Where a family writes operator values: their bytes, `value_size` each.
pub(crate) struct ValuesOut<'o> {
    /// The bytes.
    pub(crate) bytes: CudaViewMut<'o, u8>,
    /// Bytes of one value.
    pub(crate) value_size: usize,
}

/// Launch geometry: blocks in x and y (the block size is the kernel's own).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid(pub(crate) u32, pub(crate) u32);

impl From<u32> for Grid {
    fn from(x: u32) -> Grid {
        Grid(x, 1)
    }
}

/// The events around a timed operation (none when profiling is off).
pub(crate) struct Timing(Option<(CudaEvent, CudaEvent)>);

impl Gpu {
    /// Launches catalogue kernel `kernel` of module `m` on `grid` with `args`.
    pub(crate) fn launch<A: KernelArgs>(
        &self,
        m: &Module,
        kernel: &'static Kernel,
        grid: impl Into<Grid>,
        args: &mut A,
    ) -> Result<()> {
        self.launch_shared(m, kernel, grid, 0, args)
    }

    /// [`Gpu::launch`] with `shared_bytes` of dynamic shared memory per block (at most 48 KiB,
    /// what a kernel gets without opting in, unless `Module::reserve_shared` gave it more).
    pub(crate) fn launch_shared<A: KernelArgs>(
        &self,
        m: &Module,
        kernel: &'static Kernel,
        grid: impl Into<Grid>,
        shared_bytes: u32,
        args: &mut A,
    ) -> Result<()> {
        debug_assert!(
            A::KERNELS.iter().any(|k| k.name == kernel.name)
                && A::SIGNATURE.iter().copied().eq(kernel.param_types()),
            "arguments of {} do not fit its catalogue entry",
            kernel.name
        );
        let f = m.function(kernel)?;
        let Grid(x, y) = grid.into();
        let mut b = self.stream.launch_builder(&f.func);
        args.push(&mut b);
        let cfg = LaunchConfig {
            grid_dim: (x, y, 1),
            block_dim: (kernel.threads.count(), 1, 1),
            shared_mem_bytes: shared_bytes,
        };
        tracing::debug!(
            op = %m.name,
            location = %m.location,
            kernel = kernel.name,
            grid = ?cfg.grid_dim,
            block = cfg.block_dim.0,
            blocks_per_sm = f.blocks_per_sm,
            "launch"
        );
        // SAFETY: `args` holds exactly the kernel's parameters in order, with the types of its
        // catalogue entry (the struct's signature is derived from its fields' types and tested
        // against every kernel it launches, and the module's `extern "C"` signature is written
        // from the same entry); each family sizes its buffers for the grid it launches, and
        // the borrowed buffers outlive the launch on this stream.
        unsafe { b.launch(cfg) }.map_err(drv("launching a kernel"))?;
        Ok(())
    }

    /// Starts timing an operation (records an event when profiling is on).
    pub(crate) fn start_timing(&self) -> Result<Timing> {
        if !self.profiling.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(Timing(None));
        }
        let ev = || {
            self.shared
                .ctx
                .new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(drv("creating an event"))
        };
        let (start, end) = (ev()?, ev()?);
        start
            .record(&self.stream)
            .map_err(drv("recording an event"))?;
        Ok(Timing(Some((start, end))))
    }

    /// Ends timing an operation: its GPU time becomes [`Gpu::last_kernel_ms`] (waiting for its
    /// end, so a profiled operation is synchronous; unprofiled ones are not).
    pub(crate) fn stop_timing(&self, t: Timing) -> Result<()> {
        if let Some((start, end)) = t.0 {
            end.record(&self.stream)
                .map_err(drv("recording an event"))?;
            let ms = start.elapsed_ms(&end).map_err(drv("reading event times"))?;
            *self
                .last_kernel_ms
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(ms);
        }
        Ok(())
    }
}

/// Single-pass launches (compaction, scans, runs, three-way partition): one block per tile,
/// their look-back status and tile-order queue in zeroed scratch.
impl Gpu {
    /// Tiles (one block each) of `block_tile` elements of a single-pass kernel over `n`
    /// elements.
    pub(super) fn single_pass_tiles(&self, n: usize, block_tile: usize) -> Result<usize> {
        let tiles = n.div_ceil(block_tile);
        if tiles > i32::MAX as usize {
            return Err(Error::Shape(format!(
                "{n} elements are too many for one single-pass launch"
            )));
        }
        Ok(tiles)
    }

    /// Bytes of the tile-order queue of a single-pass launch: a zeroed counter when tiles are
    /// taken in the order blocks start (`set_tile_queue(true)`), else none (tile = blockIdx.x).
    pub(super) fn queue_bytes(&self) -> usize {
        if self.tile_queue.load(Ordering::Relaxed) {
            4
        } else {
            0
        }
    }

    /// A single-pass launch of `kernel` over `tiles` tiles (a block each; see
    /// [`Gpu::single_pass_tiles`]): zeroed scratch
    /// for the tile status (`status_bytes(tiles)` bytes) and the tile-order queue, the kernel's
    /// arguments from `make(status, queue)`, the launch timed, and `slot` (which the kernel
    /// writes) marked written after it. One tile without a queue needs no zeroing (tile 0
    /// publishes its status and reads none), which saves small inputs a memset.
    pub(super) fn single_pass<A: KernelArgs>(
        &self,
        m: &Module,
        kernel: &'static Kernel,
        tiles: usize,
        status_bytes: impl FnOnce(usize) -> usize,
        slot: &Slot,
        make: impl FnOnce(Out<'static, u8>, Out<'static, u32>) -> A,
    ) -> Result<()> {
        let queue = self.queue_bytes();
        let sizes = [status_bytes(tiles), queue];
        let (zeroed, unset): (&[usize], &[usize]) = if tiles == 1 && queue == 0 {
            (&[], &sizes)
        } else {
            (&sizes, &[])
        };
        self.with_scratch(zeroed, unset, |r| {
            let timer = self.start_timing()?;
            let mut args = make(Out::raw(r.at(0)), Gpu::queue_arg(queue, r.at(1)));
            self.launch(m, kernel, tiles as u32, &mut args)?;
            self.written(slot)?;
            self.stop_timing(timer)
        })
    }

    /// The queue argument for a queue region of `bytes` bytes at `ptr` (null when none).
    pub(super) fn queue_arg(bytes: usize, ptr: u64) -> Out<'static, u32> {
        Out::raw(if bytes == 0 { 0 } else { ptr })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every argument struct's signature equals the parameter list of every catalogue kernel
    /// it launches: a wrong order, a missing or extra argument fails here, without a GPU.
    pub(crate) fn check<A: KernelArgs>() {
        for k in A::KERNELS {
            let want: Vec<ParamTy> = k.param_types().collect();
            assert_eq!(
                A::SIGNATURE,
                &want[..],
                "the arguments of {} do not match its catalogue entry",
                k.name
            );
        }
    }
}
