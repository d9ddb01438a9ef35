//! The CUDA backend: a context and stream over cudarc, the module cache (memory, then disk,
//! then NVRTC), launch configuration, and the reduction launch.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, CudaView, DevicePtr,
    DeviceRepr, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};

use crate::compile::{self, BLOCK, Origin};
use crate::error::{Error, Result};
use crate::loader;
use crate::op::OpMeta;
use crate::value::{DeviceValue, Element};
use kernels_gen::compose::{SEG_CHUNK, SEG_LONG, STOP_COPIES, STOP_STRIDE};

/// The most blocks a reduction launches (bounds the partials buffer).
const MAX_GRID: usize = 8192;
/// The largest operator value (8 fields of 8 bytes).
const MAX_VALUE_BYTES: usize = 64;

/// A kernel ready to launch.
#[derive(Clone, Debug)]
struct Kernel {
    func: CudaFunction,
    /// Resident blocks per SM at `BLOCK` threads (from the occupancy calculator).
    blocks_per_sm: u32,
}

/// How the module of one operation was obtained, for start-up reporting.
#[derive(Clone, Copy, Debug)]
pub struct LoadReport {
    /// Disk cache or NVRTC.
    pub origin: Origin,
    /// Seconds spent finding/compiling the image and loading the module.
    pub seconds: f64,
}

struct Scratch {
    partials: CudaSlice<u8>,
    ticket: CudaSlice<u32>,
}

/// One CUDA device.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: u32,
    sms: u32,
    modules: Mutex<HashMap<(usize, usize), Arc<CudaModule>>>,
    kernels: Mutex<HashMap<(usize, &'static str), Kernel>>,
    scratch: Mutex<Scratch>,
    reports: Mutex<Vec<(String, LoadReport)>>,
    profiling: AtomicBool,
    /// Single-pass kernels take tiles from a queue in block start order (else blockIdx.x).
    tile_queue: AtomicBool,
    last_kernel_ms: Mutex<Option<f32>>,
    poison: bool,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({}, sm_{}, {} SMs)", self.name, self.arch, self.sms)
    }
}

fn drv(context: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    move |e| Error::driver(context, e)
}

fn alloc_err(bytes: usize) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    move |e| {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            Error::OutOfMemory { bytes }
        } else {
            Error::driver("allocation", e)
        }
    }
}

impl Gpu {
    /// Opens device `ordinal`: loads the driver (without `LD_LIBRARY_PATH`), creates the context.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        if let Err(searched) = loader::driver() {
            return Err(Error::NoGpu {
                reason: format!(
                    "the CUDA driver library (libcuda) was not found; looked in: {}",
                    searched.join(", ")
                ),
            });
        }
        // cudarc panics if a driver symbol is missing (a driver older than CUDA 13's API):
        // turn that into an error.
        let ctx = std::panic::catch_unwind(|| CudaContext::new(ordinal))
            .map_err(|_| Error::NoGpu {
                reason: "the CUDA driver is too old for CUDA 13 (a driver entry point is missing)"
                    .into(),
            })?
            .map_err(drv("creating the CUDA context"))?;
        // SAFETY: every operation of this Device runs on its one stream, so cudarc's
        // cross-stream event tracking is not needed.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(drv("creating a stream"))?;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(drv("querying the compute capability"))?;
        let name = ctx.name().map_err(drv("querying the device name"))?;
        let sms = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(drv("querying the SM count"))? as u32;
        let scratch = Scratch {
            partials: stream
                .alloc_zeros::<u8>(MAX_GRID * MAX_VALUE_BYTES)
                .map_err(alloc_err(MAX_GRID * MAX_VALUE_BYTES))?,
            ticket: stream.alloc_zeros::<u32>(1).map_err(alloc_err(4))?,
        };
        Ok(Gpu {
            ctx,
            stream,
            name,
            arch: (major * 10 + minor) as u32,
            sms,
            modules: Mutex::new(HashMap::new()),
            kernels: Mutex::new(HashMap::new()),
            scratch: Mutex::new(scratch),
            reports: Mutex::new(Vec::new()),
            profiling: AtomicBool::new(false),
            tile_queue: AtomicBool::new(
                std::env::var_os("WARP_TILE_QUEUE").is_some_and(|v| v != "0"),
            ),
            last_kernel_ms: Mutex::new(None),
            poison: std::env::var_os("WARP_POISON").is_some_and(|v| v != "0"),
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability as `major * 10 + minor`.
    pub fn arch(&self) -> u32 {
        self.arch
    }

    /// Number of SMs.
    pub fn sm_count(&self) -> u32 {
        self.sms
    }

    /// How each operation's module was obtained so far.
    pub fn load_reports(&self) -> Vec<(String, LoadReport)> {
        self.reports.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Turns event timing of each kernel on or off.
    pub fn set_profiling(&self, on: bool) {
        self.profiling.store(on, Ordering::Relaxed);
    }

    /// Whether single-pass kernels take tiles from a queue (see `Device::set_tile_queue`).
    pub fn set_tile_queue(&self, on: bool) {
        self.tile_queue.store(on, Ordering::Relaxed);
    }

    /// GPU time of the last timed kernel, in milliseconds.
    pub fn last_kernel_ms(&self) -> Option<f32> {
        *self.last_kernel_ms.lock().expect("timing poisoned")
    }

    fn timer(&self) -> Result<Option<(CudaEvent, CudaEvent)>> {
        if !self.profiling.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let ev = || {
            self.ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(drv("creating an event"))
        };
        Ok(Some((ev()?, ev()?)))
    }

    /// Records the time between a profiled operation's events (waiting for the end one, so a
    /// profiled operation is synchronous; unprofiled ones returning device arrays are not).
    fn record_time(&self, timer: Option<(CudaEvent, CudaEvent)>) -> Result<()> {
        if let Some((start, end)) = timer {
            let ms = start.elapsed_ms(&end).map_err(drv("reading event times"))?;
            *self.last_kernel_ms.lock().expect("timing poisoned") = Some(ms);
        }
        Ok(())
    }

    /// A copy of `src` in new device memory.
    pub(crate) fn duplicate<T: Element>(&self, src: &CudaView<'_, T>) -> Result<CudaSlice<T>> {
        let bytes = src.len() * std::mem::size_of::<T>();
        // SAFETY: every element is written by the copy below before anything reads it.
        let mut dst = unsafe { self.stream.alloc::<T>(src.len()) }.map_err(alloc_err(bytes))?;
        if !src.is_empty() {
            let timer = self.timer()?;
            if let Some((s, _)) = &timer {
                s.record(&self.stream).map_err(drv("recording an event"))?;
            }
            self.stream
                .memcpy_dtod(src, &mut dst)
                .map_err(drv("copying on the device"))?;
            if let Some((_, e)) = &timer {
                e.record(&self.stream).map_err(drv("recording an event"))?;
            }
            self.synchronize()?;
            self.record_time(timer)?;
        }
        Ok(dst)
    }

    /// `len` elements of new device memory, contents unset (0xA5 bytes under `WARP_POISON`),
    /// and their device address (for kernels that take the output as a raw pointer).
    pub(crate) fn alloc_raw<T: Element>(&self, len: usize) -> Result<(CudaSlice<T>, u64)> {
        let bytes = len * std::mem::size_of::<T>();
        // SAFETY: the caller's kernel writes every element before anything reads it.
        let buf = unsafe { self.stream.alloc::<T>(len.max(1)) }.map_err(alloc_err(bytes))?;
        let ptr = {
            let (ptr, _record) = buf.device_ptr(&self.stream);
            if self.poison && bytes > 0 {
                // SAFETY: `ptr` points to the `bytes` bytes just allocated on this stream.
                unsafe {
                    cudarc::driver::result::memset_d8_async(
                        ptr,
                        0xA5,
                        bytes,
                        self.stream.cu_stream(),
                    )
                }
                .map_err(drv("poisoning an output"))?;
            }
            ptr
        };
        Ok((buf, ptr))
    }

    /// Waits for all queued work.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(drv("synchronizing"))
    }

    pub(crate) fn upload<T: Element>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        let bytes = std::mem::size_of_val(data);
        if data.is_empty() {
            // SAFETY: a zero-length allocation holds nothing to read uninitialised.
            return unsafe { self.stream.alloc::<T>(0) }.map_err(alloc_err(0));
        }
        self.stream.clone_htod(data).map_err(alloc_err(bytes))
    }

    pub(crate) fn download<T: Element>(&self, view: &CudaView<'_, T>) -> Result<Vec<T>> {
        if view.is_empty() {
            return Ok(Vec::new());
        }
        let v = self
            .stream
            .clone_dtoh(view)
            .map_err(drv("copying to the host"))?;
        self.synchronize()?;
        Ok(v)
    }

    fn module(&self, meta: &OpMeta) -> Result<Arc<CudaModule>> {
        let key = (meta.source.as_ptr() as usize, meta.source.len());
        if let Some(m) = self
            .modules
            .lock()
            .expect("module cache poisoned")
            .get(&key)
        {
            return Ok(m.clone());
        }
        // Compile outside the lock: other threads may use other modules meanwhile.
        let t0 = Instant::now();
        let (image, origin) = compile::cubin(meta, self.arch)?;
        self.ctx
            .bind_to_thread()
            .map_err(drv("binding the context"))?;
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image))
            .map_err(drv("loading a module"))?;
        let report = LoadReport {
            origin,
            seconds: t0.elapsed().as_secs_f64(),
        };
        if let Ok(mut r) = self.reports.lock() {
            r.push((meta.name.to_string(), report));
        }
        let mut map = self.modules.lock().expect("module cache poisoned");
        Ok(map.entry(key).or_insert(module).clone())
    }

    fn kernel(&self, meta: &OpMeta, name: &'static str) -> Result<Kernel> {
        self.kernel_sized(meta, name, BLOCK)
    }

    /// [`Gpu::kernel`] for a kernel launched with `block` threads per block (a kernel is
    /// always launched with the same block size).
    fn kernel_sized(&self, meta: &OpMeta, name: &'static str, block: u32) -> Result<Kernel> {
        let key = (meta.source.as_ptr() as usize, name);
        if let Some(k) = self
            .kernels
            .lock()
            .expect("kernel cache poisoned")
            .get(&key)
        {
            return Ok(k.clone());
        }
        let module = self.module(meta)?;
        let func = module
            .load_function(name)
            .map_err(drv("finding a kernel in its module"))?;
        let blocks_per_sm = func
            .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .map_err(drv("querying occupancy"))?
            .max(1);
        let k = Kernel {
            func,
            blocks_per_sm,
        };
        self.kernels
            .lock()
            .expect("kernel cache poisoned")
            .insert(key, k.clone());
        Ok(k)
    }

    /// Blocks for a grid-stride pass over `n` elements of `elem_size` bytes: enough to fill
    /// every SM, no more than there are 16-byte vectors to read.
    fn grid(&self, k: &Kernel, n: usize, elem_size: usize) -> u32 {
        let vec = (16 / elem_size.max(1)).max(1);
        let per_block = BLOCK as usize * vec;
        self.resident_grid(k, n.div_ceil(per_block))
    }

    /// A grid-stride grid of at most `needed` blocks, no more than are resident at once.
    fn resident_grid(&self, k: &Kernel, needed: usize) -> u32 {
        needed
            .max(1)
            .min((self.sms * k.blocks_per_sm) as usize)
            .min(MAX_GRID) as u32
    }

    /// Runs a reduction kernel `kernel` of `meta` over `input`: one launch, then reads the
    /// result back.
    pub(crate) fn reduce<V: DeviceValue, E: Element>(
        &self,
        meta: &OpMeta,
        kernel: &'static str,
        input: &CudaView<'_, E>,
    ) -> Result<V> {
        self.reduce_with::<V, E>(meta, kernel, input, None)
    }

    /// [`Gpu::reduce`] for a kernel that also takes bound arguments (a fused map).
    pub(crate) fn reduce_with<V: DeviceValue, E: Element>(
        &self,
        meta: &OpMeta,
        kernel: &'static str,
        input: &CudaView<'_, E>,
        args: Option<&[u64; 8]>,
    ) -> Result<V> {
        let k = self.kernel(meta, kernel)?;
        let n = input.len();
        let n64 = n as u64;
        let grid = self.grid(&k, n, std::mem::size_of::<E>());
        // SAFETY: the kernel writes all `C_SIZE` bytes of `out` before they are read back.
        let mut out =
            unsafe { self.stream.alloc::<u8>(V::C_SIZE.max(1)) }.map_err(alloc_err(V::C_SIZE))?;
        if self.poison {
            let (ptr, _record) = out.device_ptr(&self.stream);
            // SAFETY: `ptr` points to the `C_SIZE` bytes just allocated on this stream.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    ptr,
                    0xA5,
                    V::C_SIZE,
                    self.stream.cu_stream(),
                )
            }
            .map_err(drv("poisoning an output"))?;
        }
        let timer = self.timer()?;
        if let Some((s, _)) = &timer {
            s.record(&self.stream).map_err(drv("recording an event"))?;
        }
        {
            let mut scratch = self.scratch.lock().expect("scratch poisoned");
            let Scratch { partials, ticket } = &mut *scratch;
            let mut b = self.stream.launch_builder(&k.func);
            b.arg(input).arg(&n64);
            if let Some(a) = args {
                b.arg(a);
            }
            b.arg(partials).arg(ticket).arg(&mut out);
            let cfg = LaunchConfig {
                grid_dim: (grid, 1, 1),
                block_dim: (BLOCK, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: the arguments match the kernel's signature (input pointer, u64 length,
            // partials of MAX_GRID values, ticket counter, one output value) as generated by
            // kernels-gen; `grid` <= MAX_GRID; all buffers live until the stream has run it.
            unsafe { b.launch(cfg) }.map_err(drv("launching a reduction"))?;
        }
        if let Some((_, e)) = &timer {
            e.record(&self.stream).map_err(drv("recording an event"))?;
        }
        let bytes = self
            .stream
            .clone_dtoh(&out)
            .map_err(drv("reading a reduction result"))?;
        self.synchronize()?;
        self.record_time(timer)?;
        Ok(V::read_c(&bytes))
    }
}

/// Warp tiles of the predicate kernels: 32 lanes x WD_ITEMS elements.
const TILE: usize = 32 * 16;
/// Elements of one compaction tile (a block of warp tiles).
const BLOCK_TILE: usize = TILE * (BLOCK as usize / 32);

/// What a predicate kernel produces.
pub(crate) enum PredOut<V: Element> {
    Count(u64),
    Any(bool),
    First(Option<u64>),
    Mask(CudaSlice<u32>),
    Compact {
        kept: CudaSlice<V>,
        count: u64,
        rejected: Option<CudaSlice<V>>,
    },
}

/// The predicate kernel to run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PredKind {
    Count,
    Any { negate: bool },
    FindFirst,
    Mask,
    Compact { partition: bool },
}

/// Launches kernel `$k` on `$grid` blocks with the arguments pushed by `$push` (a closure-like
/// block over the builder `$b`), between two timing events when profiling.
macro_rules! launch_timed {
    ($self:ident, $k:expr, $grid:expr, |$b:ident| $push:block) => {
        launch_timed!($self, $k, ($grid, 1, 1), BLOCK, |$b| $push)
    };
    ($self:ident, $k:expr, $grid:expr, $block:expr, |$b:ident| $push:block) => {{
        let timer = $self.timer()?;
        if let Some((s, _)) = &timer {
            s.record(&$self.stream).map_err(drv("recording an event"))?;
        }
        let mut $b = $self.stream.launch_builder(&$k.func);
        $push
        let cfg = LaunchConfig {
            grid_dim: $grid,
            block_dim: ($block, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: every use pushes exactly the arguments of the kernel's extern "C" signature
        // in kernels-gen's compose module, with buffers sized for the grid.
        unsafe { $b.launch(cfg) }.map_err(drv("launching a kernel"))?;
        if let Some((_, e)) = &timer {
            e.record(&$self.stream).map_err(drv("recording an event"))?;
        }
        timer
    }};
}

impl Gpu {
    fn tile_grid(&self, k: &Kernel, n: usize) -> u32 {
        self.resident_grid(k, n.div_ceil(TILE).div_ceil(BLOCK as usize / 32))
    }

    /// A zeroed stop signal for `wd_k_any` / `wd_k_find_first`: `STOP_COPIES` copies of a `T`,
    /// `STOP_STRIDE` bytes apart (element 0 is copy 0, the result).
    fn stop_signal<T: DeviceRepr + ValidAsZeroBits>(&self) -> Result<CudaSlice<T>> {
        let len = STOP_COPIES * STOP_STRIDE / std::mem::size_of::<T>();
        self.stream
            .alloc_zeros::<T>(len)
            .map_err(alloc_err(STOP_COPIES * STOP_STRIDE))
    }

    /// Runs predicate kernel `kind` of the composed module `meta` over `input`.
    pub(crate) fn predicate<E: Element, V: Element>(
        &self,
        meta: &OpMeta,
        kind: PredKind,
        input: &CudaView<'_, E>,
        args: &[u64; 8],
    ) -> Result<PredOut<V>> {
        let n = input.len();
        let n64 = n as u64;
        let zeros = |len: usize| {
            self.stream
                .alloc_zeros::<u64>(len)
                .map_err(alloc_err(len * 8))
        };
        match kind {
            PredKind::Count => {
                let k = self.kernel(meta, "wd_k_count")?;
                let grid = self.tile_grid(&k, n);
                let mut out = zeros(1)?;
                let timer = {
                    let mut scratch = self.scratch.lock().expect("scratch poisoned");
                    let Scratch { partials, ticket } = &mut *scratch;
                    launch_timed!(self, k, grid, |b| {
                        b.arg(input)
                            .arg(&n64)
                            .arg(args)
                            .arg(partials)
                            .arg(ticket)
                            .arg(&mut out);
                    })
                };
                let v = self
                    .stream
                    .clone_dtoh(&out)
                    .map_err(drv("reading a count"))?;
                self.synchronize()?;
                self.record_time(timer)?;
                Ok(PredOut::Count(v[0]))
            }
            PredKind::Any { negate } => {
                let k = self.kernel(meta, "wd_k_any")?;
                let grid = self.tile_grid(&k, n);
                let mut flag = self.stop_signal::<u32>()?;
                let neg = negate as u32;
                let timer = launch_timed!(self, k, grid, |b| {
                    b.arg(input).arg(&n64).arg(args).arg(&neg).arg(&mut flag);
                });
                let v = self
                    .stream
                    .clone_dtoh(&flag.slice(0..1))
                    .map_err(drv("reading a vote"))?;
                self.synchronize()?;
                self.record_time(timer)?;
                Ok(PredOut::Any(v[0] != 0))
            }
            PredKind::FindFirst => {
                let k = self.kernel(meta, "wd_k_find_first")?;
                let grid = self.tile_grid(&k, n);
                // The complement of the first index (0: none).
                let mut first = self.stop_signal::<u64>()?;
                let timer = launch_timed!(self, k, grid, |b| {
                    b.arg(input).arg(&n64).arg(args).arg(&mut first);
                });
                let v = self
                    .stream
                    .clone_dtoh(&first.slice(0..1))
                    .map_err(drv("reading an index"))?;
                self.synchronize()?;
                self.record_time(timer)?;
                Ok(PredOut::First((v[0] != 0).then_some(!v[0])))
            }
            PredKind::Mask => {
                let k = self.kernel(meta, "wd_k_mask")?;
                let grid = self.tile_grid(&k, n);
                let words = n.div_ceil(32);
                // SAFETY: the kernel writes every one of the `words` words.
                let mut out =
                    unsafe { self.stream.alloc::<u32>(words) }.map_err(alloc_err(words * 4))?;
                let timer = launch_timed!(self, k, grid, |b| {
                    b.arg(input).arg(&n64).arg(args).arg(&mut out);
                });
                self.record_time(timer)?;
                Ok(PredOut::Mask(out))
            }
            PredKind::Compact { partition } => {
                let k = self.kernel(meta, "wd_k_compact")?;
                let tiles = self.single_pass_tiles(n)?;
                let bytes = n * std::mem::size_of::<V>();
                // SAFETY: the first `count` elements are written by the kernel; the rest is
                // never read (the DeviceVec's length is `count`).
                let mut kept = unsafe { self.stream.alloc::<V>(n) }.map_err(alloc_err(bytes))?;
                let mut rejected = if partition {
                    // SAFETY: as above, for the `n - count` rejected elements.
                    Some(unsafe { self.stream.alloc::<V>(n) }.map_err(alloc_err(bytes))?)
                } else {
                    None
                };
                let mut status = zeros(tiles)?;
                let mut queue = self.tile_queue()?;
                let mut count = zeros(1)?;
                let null = 0u64;
                let timer = launch_timed!(self, k, tiles as u32, |b| {
                    b.arg(input).arg(&n64).arg(args).arg(&mut kept);
                    match &mut rejected {
                        Some(r) => b.arg(r),
                        None => b.arg(&null),
                    };
                    b.arg(&mut status);
                    match &mut queue {
                        Some(q) => b.arg(q),
                        None => b.arg(&null),
                    };
                    b.arg(&mut count);
                });
                let c = self
                    .stream
                    .clone_dtoh(&count)
                    .map_err(drv("reading a count"))?;
                self.synchronize()?;
                self.record_time(timer)?;
                Ok(PredOut::Compact {
                    kept,
                    count: c[0],
                    rejected,
                })
            }
        }
    }
}

/// Bytes of look-back status for `tiles` tiles of values of `value_size` bytes (the layout of
/// `wd_tile_status` in kernels-gen's lookback template: one packed word per tile for values of
/// at most 4 bytes; else state words, then aggregates and inclusive prefixes).
fn status_bytes(tiles: usize, value_size: usize) -> usize {
    if value_size <= 4 {
        tiles * 8
    } else {
        (tiles * 4).next_multiple_of(16) + 2 * tiles * value_size
    }
}

impl Gpu {
    /// Tiles (one block each) of a single-pass kernel over `n` elements.
    fn single_pass_tiles(&self, n: usize) -> Result<usize> {
        let tiles = n.div_ceil(BLOCK_TILE);
        if tiles > i32::MAX as usize {
            return Err(Error::Shape(format!(
                "{n} elements are too many for one single-pass launch"
            )));
        }
        Ok(tiles)
    }

    /// The tile-order queue of a single-pass launch: a zeroed counter when tiles are taken
    /// in the order blocks start (`set_tile_queue(true)`), else none (tile = blockIdx.x).
    fn tile_queue(&self) -> Result<Option<CudaSlice<u32>>> {
        if self.tile_queue.load(Ordering::Relaxed) {
            Ok(Some(
                self.stream.alloc_zeros::<u32>(1).map_err(alloc_err(4))?,
            ))
        } else {
            Ok(None)
        }
    }

    /// Scans `input` (inclusive, or exclusive) with the scan kernel of the axis module `meta`
    /// into the `input.len()` values of `value_size` bytes at device address `out`. Exact
    /// values: one pass with decoupled look-back. Others (floats): three passes (tile
    /// aggregates, their scan in a fixed order, the tiles from their prefixes), so that the
    /// result does not depend on timing.
    #[allow(clippy::too_many_arguments)] // the launch's own arguments
    pub(crate) fn scan<E: Element>(
        &self,
        meta: &OpMeta,
        input: &CudaView<'_, E>,
        args: &[u64; 8],
        out: u64,
        value_size: usize,
        exact: bool,
        exclusive: bool,
    ) -> Result<()> {
        let k = self.kernel(meta, "wd_k_scan")?;
        let n = input.len();
        let n64 = n as u64;
        let tiles = self.single_pass_tiles(n)?;
        let exclusive = exclusive as u32;
        let mut queue = self.tile_queue()?;
        let null = 0u64;
        macro_rules! scan_pass {
            ($mode:expr, $status:expr) => {{
                let mode: u32 = $mode;
                launch_timed!(self, k, tiles as u32, |b| {
                    b.arg(input)
                        .arg(&n64)
                        .arg(args)
                        .arg(&out)
                        .arg(&exclusive)
                        .arg(&mode)
                        .arg($status);
                    match &mut queue {
                        Some(q) => b.arg(q),
                        None => b.arg(&null),
                    };
                })
            }};
        }
        let timer = if exact {
            let bytes = status_bytes(tiles, value_size);
            let mut status = self
                .stream
                .alloc_zeros::<u8>(bytes)
                .map_err(alloc_err(bytes))?;
            scan_pass!(0, &mut status)
        } else {
            let bytes = tiles * value_size;
            // SAFETY: pass 1 writes every tile's aggregate before pass 2 reads them.
            let mut vals = unsafe { self.stream.alloc::<u8>(bytes) }.map_err(alloc_err(bytes))?;
            let first = scan_pass!(1, &mut vals);
            if let Some(q) = &mut queue {
                self.stream
                    .memset_zeros(q)
                    .map_err(drv("re-arming a queue"))?;
            }
            let tk = self.kernel(meta, "wd_k_scan_tiles")?;
            let t64 = tiles as u64;
            launch_timed!(self, tk, 1, |b| {
                b.arg(&mut vals).arg(&t64);
            });
            let last = scan_pass!(2, &mut vals);
            first.zip(last).map(|((s, _), (_, e))| (s, e))
        };
        self.record_time(timer)
    }
}

/// The shape of a row-major matrix.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub rows: usize,
    pub cols: usize,
}

/// Threads per block of the column reduction (32 warps: one per row of the [32][33] tile).
const COLS_BLOCK: u32 = 1024;

impl Gpu {
    /// Reduces the rows of `input` (`shape`) into the `shape.rows` values of `value_size`
    /// bytes at `out`, with the kernel the shape calls for.
    pub(crate) fn reduce_rows<E: Element>(
        &self,
        meta: &OpMeta,
        input: &CudaView<'_, E>,
        args: &[u64; 8],
        shape: Rows,
        out: u64,
        value_size: usize,
    ) -> Result<()> {
        let Rows { rows, cols } = shape;
        let esize = std::mem::size_of::<E>();
        let (r64, c64, n64) = (rows as u64, cols as u64, input.len() as u64);
        // Elements a lane reads at once: a 16-byte vector when every row starts aligned.
        let (ptr, _record) = input.device_ptr(&self.stream);
        let aligned = ptr.is_multiple_of(16) && (cols * esize).is_multiple_of(16);
        let vec = if aligned { 16 / esize } else { 1 };
        let group = cols.div_ceil(vec).next_power_of_two();
        let timer = if group <= 16 {
            let name = match group {
                1 => "wd_k_rows_g1",
                2 => "wd_k_rows_g2",
                4 => "wd_k_rows_g4",
                8 => "wd_k_rows_g8",
                _ => "wd_k_rows_g16",
            };
            let k = self.kernel(meta, name)?;
            let rows_per_block = BLOCK as usize / group;
            let grid = self.resident_grid(&k, rows.div_ceil(rows_per_block));
            launch_timed!(self, k, grid, |b| {
                b.arg(input)
                    .arg(&n64)
                    .arg(args)
                    .arg(&r64)
                    .arg(&c64)
                    .arg(&out);
            })
        } else if cols <= 8192 {
            let k = self.kernel(meta, "wd_k_rows_warp")?;
            let grid = self.resident_grid(&k, rows.div_ceil(BLOCK as usize / 32));
            launch_timed!(self, k, grid, |b| {
                b.arg(input)
                    .arg(&n64)
                    .arg(args)
                    .arg(&r64)
                    .arg(&c64)
                    .arg(&out);
            })
        } else {
            let k = self.kernel(meta, "wd_k_rows_block")?;
            let resident = (self.sms * k.blocks_per_sm) as usize;
            if rows >= resident {
                let grid = self.resident_grid(&k, rows);
                launch_timed!(self, k, grid, |b| {
                    b.arg(input)
                        .arg(&n64)
                        .arg(args)
                        .arg(&r64)
                        .arg(&c64)
                        .arg(&out);
                })
            } else {
                // Few long rows: several blocks per row (each at least 16 vectors a thread),
                // the row's last block combining their partials.
                let k = self.kernel(meta, "wd_k_rows_split")?;
                let min_chunk = BLOCK as usize * 16 * (16 / esize);
                let per_row = resident.div_ceil(rows).min(cols.div_ceil(min_chunk)).max(1);
                if rows * per_row > u32::MAX as usize {
                    return Err(Error::Shape(format!("{rows} rows are too many")));
                }
                let blocks = rows * per_row;
                let pbytes = blocks * value_size;
                // SAFETY: each block writes its partial before the row's last block reads it.
                let mut partials =
                    unsafe { self.stream.alloc::<u8>(pbytes) }.map_err(alloc_err(pbytes))?;
                let mut tickets = self
                    .stream
                    .alloc_zeros::<u32>(rows)
                    .map_err(alloc_err(rows * 4))?;
                let per_row64 = per_row as u64;
                launch_timed!(self, k, blocks as u32, |b| {
                    b.arg(input)
                        .arg(&n64)
                        .arg(args)
                        .arg(&r64)
                        .arg(&c64)
                        .arg(&per_row64)
                        .arg(&mut partials)
                        .arg(&mut tickets)
                        .arg(&out);
                })
            }
        };
        self.record_time(timer)
    }

    /// Reduces the columns of `input` (`shape`) into the `shape.cols` values at `out`,
    /// through the padded tile (or, for the padding measurement, the unpadded one).
    #[allow(clippy::too_many_arguments)] // the launch's own arguments
    pub(crate) fn reduce_cols<E: Element>(
        &self,
        meta: &OpMeta,
        input: &CudaView<'_, E>,
        args: &[u64; 8],
        shape: Rows,
        out: u64,
        value_size: usize,
        padded: bool,
    ) -> Result<()> {
        let Rows { rows, cols } = shape;
        if cols == 0 {
            return Ok(());
        }
        let name = if padded {
            "wd_k_cols"
        } else {
            "wd_k_cols_unpadded"
        };
        let k = self.kernel_sized(meta, name, COLS_BLOCK)?;
        let col_tiles = cols.div_ceil(32);
        if col_tiles > i32::MAX as usize {
            return Err(Error::Shape(format!("{cols} columns are too many")));
        }
        // Split the rows over enough blocks to fill the GPU a few times over (8 per SM), each
        // at least 64 rows.
        let splits = (8 * self.sms as usize)
            .div_ceil(col_tiles)
            .min(rows.div_ceil(64))
            .clamp(1, 65535);
        let rows_per_block = rows.div_ceil(splits).max(1);
        let splits = rows.div_ceil(rows_per_block).max(1);
        let pbytes = if splits > 1 {
            splits * cols * value_size
        } else {
            1
        };
        // SAFETY: each block writes its partials before the column tile's last block reads them.
        let mut partials = unsafe { self.stream.alloc::<u8>(pbytes) }.map_err(alloc_err(pbytes))?;
        let mut tickets = self
            .stream
            .alloc_zeros::<u32>(col_tiles)
            .map_err(alloc_err(col_tiles * 4))?;
        let (r64, c64, n64, rpb) = (
            rows as u64,
            cols as u64,
            input.len() as u64,
            rows_per_block as u64,
        );
        let timer = launch_timed!(
            self,
            k,
            (col_tiles as u32, splits as u32, 1),
            COLS_BLOCK,
            |b| {
                b.arg(input)
                    .arg(&n64)
                    .arg(args)
                    .arg(&r64)
                    .arg(&c64)
                    .arg(&rpb)
                    .arg(&mut partials)
                    .arg(&mut tickets)
                    .arg(&out);
            }
        );
        self.record_time(timer)
    }

    /// Reduces the `nseg` CSR segments of `input` into the values at `out`. Returns `true`
    /// when the kernel found offsets that are out of order or past the input (it reads
    /// nothing outside the input either way). Segments longer than `SEG_LONG` elements are
    /// listed by that kernel and then reduced by the whole grid, in chunks of `SEG_CHUNK`.
    #[allow(clippy::too_many_arguments)] // the launch's own arguments
    pub(crate) fn reduce_segments<E: Element>(
        &self,
        meta: &OpMeta,
        input: &CudaView<'_, E>,
        args: &[u64; 8],
        offsets: &CudaView<'_, u64>,
        nseg: usize,
        out: u64,
        value_size: usize,
    ) -> Result<bool> {
        let k = self.kernel(meta, "wd_k_segments")?;
        let grid = self.resident_grid(&k, nseg.div_ceil(BLOCK as usize / 32));
        let n = input.len();
        // flags[0]: bad offsets; flags[1]: segments longer than SEG_LONG, listed in `longs`
        // as (segment, length) pairs. Valid offsets leave at most n / (SEG_LONG + 1) of them;
        // the kernel lists no more than `cap` (more means bad offsets, reported instead).
        let mut flags = self.stream.alloc_zeros::<u32>(2).map_err(alloc_err(8))?;
        let cap = nseg.min(n / (SEG_LONG + 1)).max(1);
        // SAFETY: the kernel writes the first 2 * flags[1] entries; only those are read.
        let mut longs =
            unsafe { self.stream.alloc::<u64>(2 * cap) }.map_err(alloc_err(16 * cap))?;
        let (n64, s64, c64) = (n as u64, nseg as u64, cap as u64);
        let timer = launch_timed!(self, k, grid, |b| {
            b.arg(input)
                .arg(&n64)
                .arg(args)
                .arg(offsets)
                .arg(&s64)
                .arg(&out)
                .arg(&mut flags)
                .arg(&mut longs)
                .arg(&c64);
        });
        // The long ones: numbered in chunks by one block, then reduced by the whole grid (both
        // find the list empty when there is none, or when the offsets are bad).
        let first_len = cap + 1;
        // SAFETY: the plan kernel writes first[0 ..= count], the only entries read.
        let mut first =
            unsafe { self.stream.alloc::<u64>(first_len) }.map_err(alloc_err(8 * first_len))?;
        // SAFETY: the plan kernel zeroes tickets[.. count], the only ones used.
        let mut tickets = unsafe { self.stream.alloc::<u32>(cap) }.map_err(alloc_err(4 * cap))?;
        // At most first[count] partials are used: n / SEG_CHUNK + count bounds it for valid
        // offsets (with bad ones the list is empty).
        let nparts = n.div_ceil(SEG_CHUNK) + cap;
        let pbytes = nparts * value_size;
        // SAFETY: each chunk's block writes its partial before the segment's last block reads
        // the segment's partials.
        let mut partials = unsafe { self.stream.alloc::<u8>(pbytes) }.map_err(alloc_err(pbytes))?;
        let plan = self.kernel(meta, "wd_k_segments_plan")?;
        launch_timed!(self, plan, 1, |b| {
            b.arg(&flags)
                .arg(&longs)
                .arg(&c64)
                .arg(&mut first)
                .arg(&mut tickets);
        });
        let k2 = self.kernel(meta, "wd_k_segments_long")?;
        let grid2 = self.resident_grid(&k2, nparts);
        let second = launch_timed!(self, k2, grid2, |b| {
            b.arg(input)
                .arg(&n64)
                .arg(args)
                .arg(offsets)
                .arg(&flags)
                .arg(&longs)
                .arg(&c64)
                .arg(&first)
                .arg(&mut partials)
                .arg(&mut tickets)
                .arg(&out);
        });
        let timer = timer.zip(second).map(|((s, _), (_, e))| (s, e));
        let f = self
            .stream
            .clone_dtoh(&flags)
            .map_err(drv("reading flags"))?;
        let bad = f[0] != 0;
        self.synchronize()?;
        self.record_time(timer)?;
        Ok(bad)
    }

    /// Transposes `input` (`shape`) into the `rows * cols` elements at `out`.
    pub(crate) fn transpose<E: Element>(
        &self,
        meta: &OpMeta,
        input: &CudaView<'_, E>,
        shape: Rows,
        out: u64,
        padded: bool,
    ) -> Result<()> {
        let Rows { rows, cols } = shape;
        let name = if padded {
            "wd_k_transpose"
        } else {
            "wd_k_transpose_unpadded"
        };
        let k = self.kernel(meta, name)?;
        // The template's tile: WD_TRANSPOSE_TILE_ROWS x WD_TRANSPOSE_TILE_COLS (64 x 64).
        let col_tiles = cols.div_ceil(64);
        if col_tiles > i32::MAX as usize {
            return Err(Error::Shape(format!("{cols} columns are too many")));
        }
        let row_tiles = rows.div_ceil(64).clamp(1, 65535);
        let (r64, c64) = (rows as u64, cols as u64);
        let timer = launch_timed!(
            self,
            k,
            (col_tiles as u32, row_tiles as u32, 1),
            BLOCK,
            |b| {
                b.arg(input).arg(&out).arg(&r64).arg(&c64);
            }
        );
        self.record_time(timer)
    }
}

/// A composition's key: (kind of module, first part, second part, element type).
type ComposedKey = (&'static str, usize, usize, &'static str);

/// Compositions made so far, and their modules' metadata.
static COMPOSED: std::sync::OnceLock<Mutex<HashMap<ComposedKey, &'static OpMeta>>> =
    std::sync::OnceLock::new();

/// The metadata of a composed module, built (and leaked: one per combination in the program)
/// the first time. `build` returns (name, source, file, line).
pub(crate) fn composed(
    key: ComposedKey,
    build: impl FnOnce() -> (String, String, String, u32),
) -> &'static OpMeta {
    let map = COMPOSED.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = map.lock().expect("composition cache poisoned");
    map.entry(key).or_insert_with(|| {
        let (name, source, file, line) = build();
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        Box::leak(Box::new(OpMeta {
            name: leak(name),
            source: leak(source),
            plain_kernel: None,
            indexed_kernel: None,
            redux: None,
            style: "intrinsics",
            needs_cuda_headers: false,
            combine_fragment: "",
            identity_fragment: "",
            type_support: "",
            value_c: "",
            file: leak(file),
            line,
        }))
    })
}
