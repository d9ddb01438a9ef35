//! The CUDA backend: one device's stream over cudarc (and what the devices on one context
//! share: the context, its properties and its modules), settings, memory and transfers.
//! Modules and their cache are in `modules`, the device's own scratch and result slots in
//! `memory`, the one typed launcher in `launch`, and each family's launch code in its own file.

mod axes;
mod group;
mod histogram;
pub(crate) mod launch;
mod map;
pub(crate) mod memory;
mod merge;
mod modules;
mod predicates;
mod reduce;
mod runs;
mod scans;
mod search;
mod sort;
mod topk;
mod transpose;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, CudaView, DeviceRepr};

use crate::error::{Error, Result};
use crate::settings::Resolved;
use crate::toolchain;
use warp_kernels::catalogue::{STOP_COPIES, STOP_STRIDE};

pub(crate) use axes::Rows;
pub(crate) use histogram::Start;
pub(crate) use launch::{Columns, GatherCols, Staged, ValuesOut};
pub use modules::LoadReport;
pub(crate) use modules::{Module, ModuleKey, ModuleKind};
pub(crate) use predicates::CompactOut;
pub(crate) use scans::{Heads, ScanShape};
pub(crate) use search::SortedQueries;
pub(crate) use sort::SortValues;

/// The most blocks a grid-combined reduction launches (bounds the partials buffer).
const MAX_GRID: usize = 8192;

/// What the devices on one CUDA context share.
pub(crate) struct Shared {
    ctx: Arc<CudaContext>,
    name: String,
    arch: u32,
    sms: u32,
    l2_bytes: usize,
    /// Shared memory an SM has, in bytes.
    shared_per_sm: usize,
    modules: modules::Cache,
}

/// The `Shared` of each CUDA context some device is open on: every device of one context
/// (opened by ordinal, made from a caller's stream, forked) shares its properties and its
/// module cache, so a device made per call (a `CustomOp` on candle's stream) loads no module
/// twice. Weak: the last device of a context frees its modules (and releases the context).
static CONTEXTS: Mutex<Vec<std::sync::Weak<Shared>>> = Mutex::new(Vec::new());

impl Shared {
    /// The `Shared` of `ctx`'s context: the one its open devices use, else a new one.
    fn of(ctx: &Arc<CudaContext>) -> Result<Arc<Shared>> {
        let mut live = CONTEXTS.lock().unwrap_or_else(|e| e.into_inner());
        // A live `Shared` holds its context, so its raw handle cannot have been reused.
        live.retain(|w| w.strong_count() > 0);
        if let Some(s) = live
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .find(|s| s.ctx.cu_ctx() == ctx.cu_ctx())
        {
            return Ok(s);
        }
        let s = Arc::new(Shared::new(ctx.clone())?);
        live.push(Arc::downgrade(&s));
        Ok(s)
    }

    fn new(ctx: Arc<CudaContext>) -> Result<Shared> {
        let (major, minor) = ctx
            .compute_capability()
            .map_err(drv("querying the compute capability"))?;
        let name = ctx.name().map_err(drv("querying the device name"))?;
        let sms = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(drv("querying the SM count"))? as u32;
        let l2_bytes = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .map_err(drv("querying the L2 cache size"))? as usize;
        let shared_per_sm = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
            .map_err(drv("querying the shared memory an SM has"))?
            as usize;
        Ok(Shared {
            ctx,
            name,
            arch: (major * 10 + minor) as u32,
            sms,
            l2_bytes,
            shared_per_sm,
            modules: modules::Cache::default(),
        })
    }
}

/// One CUDA device and the stream its operations run on.
pub struct Gpu {
    shared: Arc<Shared>,
    stream: Arc<CudaStream>,
    /// Made on first use (so that opening a device allocates nothing).
    grid_scratch: std::sync::OnceLock<memory::GridScratch>,
    /// Whether the first array allocated here has made the grid scratch and the first result
    /// slots (`Gpu::prepare`).
    prepared: AtomicBool,
    arena: Mutex<Option<memory::Block>>,
    slots: Arc<Mutex<memory::SlotPool>>,
    host_slots: Arc<Mutex<memory::SlotPool>>,
    allocations: AtomicU64,
    /// The last epoch `any` raised its stop signal with (see `GridScratch`).
    epoch: AtomicU32,
    profiling: AtomicBool,
    /// Single-pass kernels take tiles from a queue in block start order (else blockIdx.x).
    tile_queue: AtomicBool,
    last_kernel_ms: Mutex<Option<f32>>,
    /// The device's settings (new memory poisoned, the disk cache its compiles use, ...).
    settings: Arc<Resolved>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Gpu({}, sm_{}, {} SMs)",
            self.shared.name, self.shared.arch, self.shared.sms
        )
    }
}

/// Maps a driver error to [`Error::Driver`] with what was being done.
fn drv(context: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    move |e| Error::driver(context, e)
}

/// Maps an allocation's driver error: out of memory becomes [`Error::OutOfMemory`] with the
/// memory free on `stream`'s device.
fn alloc_err(
    stream: &CudaStream,
    bytes: usize,
) -> impl FnOnce(cudarc::driver::DriverError) -> Error + '_ {
    move |e| {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            let free = stream.context().mem_get_info().map_or(0, |(free, _)| free);
            Error::OutOfMemory { bytes, free }
        } else {
            Error::driver("allocation", e)
        }
    }
}

impl Gpu {
    /// Opens device `ordinal` on a new stream with `settings`: loads the driver (without
    /// `LD_LIBRARY_PATH`, from the driver path of the settings when it names one), creates the
    /// context.
    pub fn new(ordinal: usize, settings: Arc<Resolved>) -> Result<Gpu> {
        match toolchain::driver(toolchain::Want::Path(settings.driver_path.as_deref())) {
            Ok(_) => {}
            Err(toolchain::Unavailable::NotFound(searched)) => {
                return Err(Error::NoGpu {
                    reason: format!(
                        "the CUDA driver library (libcuda) was not found; looked in: {}",
                        searched.join(", ")
                    ),
                });
            }
            Err(toolchain::Unavailable::Conflict(e)) => return Err(e),
        }
        // A device naming another NVRTC than the one loaded fails now, not at its first compile.
        toolchain::check_nvrtc(settings.nvrtc_path.as_deref())?;
        match toolchain::driver_version() {
            Some(v) if v >= toolchain::MIN_DRIVER_CUDA => {}
            Some(v) => {
                return Err(Error::NoGpu {
                    reason: format!(
                        "the CUDA driver supports CUDA {}.{}; warp-dsl needs CUDA {}.{} or newer \
                         (NVIDIA driver 525 or newer)",
                        v / 1000,
                        v % 1000 / 10,
                        toolchain::MIN_DRIVER_CUDA / 1000,
                        toolchain::MIN_DRIVER_CUDA % 1000 / 10
                    ),
                });
            }
            None => {
                return Err(Error::NoGpu {
                    reason: "the CUDA driver does not report its version (cuDriverGetVersion)"
                        .into(),
                });
            }
        }
        // cudarc panics if a driver symbol is missing (a driver older than the CUDA 12.0 API
        // it is bound at): turn that into an error.
        let too_old = |_| Error::NoGpu {
            reason: "the CUDA driver is too old for CUDA 12.0 (a driver entry point is missing)"
                .into(),
        };
        let count = std::panic::catch_unwind(CudaContext::device_count)
            .map_err(too_old)?
            .map_err(drv("counting the GPUs"))?;
        if ordinal >= count.max(0) as usize {
            return Err(Error::NoGpu {
                reason: format!(
                    "there is no GPU {ordinal}: the CUDA driver reports {count} (numbered from 0)"
                ),
            });
        }
        let ctx = std::panic::catch_unwind(|| CudaContext::new(ordinal))
            .map_err(too_old)?
            .map_err(drv("creating the CUDA context"))?;
        let stream = ctx.new_stream().map_err(drv("creating a stream"))?;
        Gpu::on(Shared::of(&ctx)?, stream, settings)
    }

    /// The device of `stream`'s context, running on `stream`, with `settings` (but for the
    /// driver path: the caller's cudarc has loaded the driver), sharing the modules of the
    /// context's other devices.
    pub fn from_stream(stream: Arc<CudaStream>, settings: Arc<Resolved>) -> Result<Gpu> {
        toolchain::check_nvrtc(settings.nvrtc_path.as_deref())?;
        let shared = Shared::of(stream.context())?;
        Gpu::on(shared, stream, settings)
    }

    /// Another device of this one's context on `stream` (a stream of the same context),
    /// sharing its modules and settings.
    pub fn with_stream(&self, stream: Arc<CudaStream>) -> Result<Gpu> {
        if stream.context().cu_ctx() != self.shared.ctx.cu_ctx() {
            return Err(Error::DeviceMismatch);
        }
        Gpu::on(self.shared.clone(), stream, self.settings.clone())
    }

    /// Another device of this one's context on a new stream that waits for the work queued
    /// on this one so far (cudarc's `CudaStream::fork`), with its settings.
    pub fn fork(&self) -> Result<Gpu> {
        let stream = self.stream.fork().map_err(drv("creating a stream"))?;
        Gpu::on(self.shared.clone(), stream, self.settings.clone())
    }

    fn on(shared: Arc<Shared>, stream: Arc<CudaStream>, settings: Arc<Resolved>) -> Result<Gpu> {
        Ok(Gpu {
            shared,
            stream,
            grid_scratch: std::sync::OnceLock::new(),
            prepared: AtomicBool::new(false),
            arena: Mutex::new(None),
            slots: Arc::new(Mutex::new(memory::SlotPool::default())),
            host_slots: Arc::new(Mutex::new(memory::SlotPool::default())),
            allocations: AtomicU64::new(0),
            epoch: AtomicU32::new(0),
            profiling: AtomicBool::new(false),
            tile_queue: AtomicBool::new(settings.tile_queue),
            last_kernel_ms: Mutex::new(None),
            settings,
        })
    }

    /// The grid-combine scratch and `any`'s stop signal, allocated (and zeroed) on first use.
    pub(crate) fn grid_scratch(&self) -> Result<&memory::GridScratch> {
        if let Some(s) = self.grid_scratch.get() {
            return Ok(s);
        }
        let made = memory::GridScratch::new(
            &self.stream,
            MAX_GRID * memory::SLOT_BYTES,
            STOP_COPIES * STOP_STRIDE,
        )?;
        // A thread that lost the race drops its copy (freed in stream order).
        let _ = self.grid_scratch.set(made);
        Ok(self
            .grid_scratch
            .get()
            .unwrap_or_else(|| unreachable!("set just above")))
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// Compute capability as `major * 10 + minor`.
    pub fn arch(&self) -> u32 {
        self.shared.arch
    }

    /// Number of SMs.
    pub fn sm_count(&self) -> u32 {
        self.shared.sms
    }

    /// Bytes of the L2 cache.
    pub(crate) fn l2_bytes(&self) -> usize {
        self.shared.l2_bytes
    }

    /// The stream operations run on.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.shared.ctx
    }

    /// Whether memory of context `ctx` is this device's (the same CUDA context).
    pub(crate) fn owns(&self, ctx: &CudaContext) -> bool {
        ctx.cu_ctx() == self.shared.ctx.cu_ctx()
    }

    /// How each module was obtained so far.
    pub fn load_reports(&self) -> Vec<(String, LoadReport)> {
        self.shared.modules.reports()
    }

    /// Device allocations operations made so far (outputs they return, and scratch or
    /// result-slot growth); `_into` forms in a steady loop make none.
    pub(crate) fn allocations(&self) -> u64 {
        self.allocations.load(Ordering::Relaxed)
    }

    /// Turns event timing of each operation on or off.
    pub fn set_profiling(&self, on: bool) {
        self.profiling.store(on, Ordering::Relaxed);
    }

    /// Whether single-pass kernels take tiles from a queue (see `Device::set_tile_queue`).
    pub fn set_tile_queue(&self, on: bool) {
        self.tile_queue.store(on, Ordering::Relaxed);
    }

    /// GPU time of the last timed operation, in milliseconds.
    pub fn last_kernel_ms(&self) -> Option<f32> {
        *self
            .last_kernel_ms
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for all queued work.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(drv("synchronizing"))
    }

    /// An event recorded on the stream now: it completes when the work queued so far has.
    pub(crate) fn record(&self) -> Result<CudaEvent> {
        self.stream
            .record_event(None)
            .map_err(drv("recording an event"))
    }

    /// Makes the work queued on this device from now on wait for `event`.
    pub(crate) fn wait(&self, event: &CudaEvent) -> Result<()> {
        self.stream.wait(event).map_err(drv("waiting for an event"))
    }

    /// With the first array allocated on this device: its grid scratch and first result slots
    /// ([`Gpu::prepare`]), so that the first operation pays only for its module. Creating the
    /// device stays cheap (the first allocation in a context initialises the driver's allocator
    /// anyway); an operation on the caller's own memory makes them on first use instead.
    fn prepare_once(&self) -> Result<()> {
        // A load first: every later allocation reads the flag without writing its line.
        if !self.prepared.load(Ordering::Relaxed) && !self.prepared.swap(true, Ordering::Relaxed) {
            self.prepare()?;
        }
        Ok(())
    }

    /// `len` elements of new device memory, contents unset (0xA5 bytes under the poison
    /// setting).
    pub(crate) fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.prepare_once()?;
        let bytes = len * std::mem::size_of::<T>();
        self.count_allocation();
        // SAFETY: the caller's kernel writes every element before anything reads it (poisoned
        // bytes stand for "unset" under the poison setting).
        let buf = unsafe { self.stream.alloc::<T>(len) }.map_err(alloc_err(&self.stream, bytes))?;
        if self.settings.poison && bytes > 0 {
            let (ptr, _record) = cudarc::driver::DevicePtr::device_ptr(&buf, &self.stream);
            // SAFETY: `ptr` points to the `bytes` bytes just allocated on this stream.
            unsafe {
                cudarc::driver::result::memset_d8_async(ptr, 0xA5, bytes, self.stream.cu_stream())
            }
            .map_err(drv("poisoning an output"))?;
        }
        Ok(buf)
    }

    /// Copies `data` to new device memory.
    pub(crate) fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        self.prepare_once()?;
        if data.is_empty() {
            return self.alloc(0);
        }
        self.count_allocation();
        self.stream
            .clone_htod(data)
            .map_err(alloc_err(&self.stream, std::mem::size_of_val(data)))
    }

    /// Copies device memory to the host, waiting for it.
    pub(crate) fn download<T: DeviceRepr>(&self, view: &CudaView<'_, T>) -> Result<Vec<T>> {
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

    /// Copies `bytes.len()` bytes at device address `ptr` to the host, synchronously, after
    /// `ready` (the event of the work that wrote them) completed: waits for that work only.
    pub(crate) fn read_bytes(&self, ptr: u64, ready: &CudaEvent, bytes: &mut [u8]) -> Result<()> {
        ready.synchronize().map_err(drv("waiting for a result"))?;
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(drv("binding the context"))?;
        // Through a page-locked staging slot: a copy into page-locked memory is one DMA, a copy
        // into pageable memory is staged by the driver (slower).
        let mut staging = self.host_slot()?;
        let n = bytes.len().min(memory::SLOT_BYTES);
        let staged = staging.host_bytes_mut(n);
        // SAFETY: `ptr` addresses at least `n` bytes of a result slot whose writer (`ready`)
        // has completed; `staged` is the staging slot's `n` bytes of page-locked memory, which
        // nothing else uses; the synchronous copy finishes before this returns.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(staged, ptr) }
            .map_err(drv("reading a result"))?;
        bytes[..n].copy_from_slice(staged);
        staging.mark_done();
        Ok(())
    }

    /// A grid of at most `needed` blocks, no more than `waves` times as many as `f`'s kernel
    /// has resident at once (its grid-stride loops do the rest).
    fn waves_grid(&self, f: &modules::Function, needed: usize, waves: usize) -> u32 {
        needed
            .max(1)
            .min((self.shared.sms * f.blocks_per_sm) as usize * waves)
            .min(MAX_GRID) as u32
    }

    /// A grid of at most `needed` blocks, no more than `f`'s kernel has resident at once
    /// (its grid-stride loops do the rest).
    fn resident_grid(&self, f: &modules::Function, needed: usize) -> u32 {
        self.waves_grid(f, needed, 1)
    }
}
