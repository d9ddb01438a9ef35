//! The CUDA backend: one device's context and stream over cudarc, its settings, memory and
//! transfers. Modules and their cache are in `modules`, the one typed launcher in `launch`,
//! and each family's launch code in its own file.

mod axes;
pub(crate) mod launch;
mod modules;
mod predicates;
mod reduce;
mod scans;
mod transpose;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, DevicePtr, DeviceRepr, ValidAsZeroBits,
};

use crate::error::{Error, Result};
use crate::toolchain;
use crate::values::Element;

pub(crate) use axes::Rows;
pub(crate) use launch::{Staged, ValuesOut};
pub use modules::LoadReport;
pub(crate) use modules::{Module, ModuleKey, ModuleKind};
pub(crate) use scans::ScanShape;

/// The most blocks a grid-combined reduction launches (bounds the partials buffer).
const MAX_GRID: usize = 8192;
/// The largest operator value (8 fields of 8 bytes).
const MAX_VALUE_BYTES: usize = 64;

/// The scratch of the one-launch grid reductions: a partial value per block and the
/// last-block ticket (the kernels re-arm it to zero).
struct Scratch {
    partials: CudaSlice<u8>,
    ticket: CudaSlice<u32>,
}

/// One CUDA device and the stream its operations run on.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: u32,
    sms: u32,
    modules: modules::Cache,
    scratch: Mutex<Scratch>,
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

/// Maps a driver error to [`Error::Driver`] with what was being done.
fn drv(context: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    move |e| Error::driver(context, e)
}

/// Maps an allocation's driver error: out of memory becomes [`Error::OutOfMemory`].
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
        if let Err(searched) = toolchain::driver() {
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
            modules: modules::Cache::default(),
            scratch: Mutex::new(scratch),
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

    /// How each module was obtained so far.
    pub fn load_reports(&self) -> Vec<(String, LoadReport)> {
        self.modules.reports()
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

    /// A copy of `src` in new device memory (timed as an operation).
    pub(crate) fn duplicate<T: Element>(&self, src: &CudaView<'_, T>) -> Result<CudaSlice<T>> {
        let bytes = std::mem::size_of_val(src);
        // SAFETY: every element is written by the copy below before anything reads it.
        let mut dst = unsafe { self.stream.alloc::<T>(src.len()) }.map_err(alloc_err(bytes))?;
        if !src.is_empty() {
            let timer = self.start_timing()?;
            self.stream
                .memcpy_dtod(src, &mut dst)
                .map_err(drv("copying on the device"))?;
            self.stop_timing(timer)?;
            self.synchronize()?;
        }
        Ok(dst)
    }

    /// `len` elements of new device memory, contents unset (0xA5 bytes under `WARP_POISON`).
    pub(crate) fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        let bytes = len * std::mem::size_of::<T>();
        // SAFETY: the caller's kernel writes every element before anything reads it (poisoned
        // bytes stand for "unset" under WARP_POISON).
        let buf = unsafe { self.stream.alloc::<T>(len.max(1)) }.map_err(alloc_err(bytes))?;
        if self.poison && bytes > 0 {
            let (ptr, _record) = buf.device_ptr(&self.stream);
            // SAFETY: `ptr` points to the `bytes` bytes just allocated on this stream.
            unsafe {
                cudarc::driver::result::memset_d8_async(ptr, 0xA5, bytes, self.stream.cu_stream())
            }
            .map_err(drv("poisoning an output"))?;
        }
        Ok(buf)
    }

    /// `len` zeroed elements of new device memory.
    pub(crate) fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>> {
        self.stream
            .alloc_zeros::<T>(len.max(1))
            .map_err(alloc_err(len * std::mem::size_of::<T>()))
    }

    /// Copies `data` to new device memory.
    pub(crate) fn upload<T: Element>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        if data.is_empty() {
            return self.alloc(0);
        }
        self.stream
            .clone_htod(data)
            .map_err(alloc_err(std::mem::size_of_val(data)))
    }

    /// Copies device memory to the host, waiting for it.
    pub(crate) fn download<T: DeviceRepr + Default + Clone>(
        &self,
        view: &CudaView<'_, T>,
    ) -> Result<Vec<T>> {
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

    /// A grid of at most `needed` blocks, no more than `f`'s kernel has resident at once
    /// (its grid-stride loops do the rest).
    fn resident_grid(&self, f: &modules::Function, needed: usize) -> u32 {
        needed
            .max(1)
            .min((self.sms * f.blocks_per_sm) as usize)
            .min(MAX_GRID) as u32
    }
}
