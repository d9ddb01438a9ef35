//! `Device`: where operations run (one CUDA GPU, or the CPU backend), its construction (with
//! `Settings`) and its run-time switches. Transfers are in `arrays`; each operation family's
//! methods in `operations`.

use std::sync::Arc;

use crate::backend::Backend;
use crate::backend::cuda::{Gpu, LoadReport};
use crate::error::{Error, Result};
use crate::settings::{DeviceChoice, Resolved, Settings};

/// Where operations run: one CUDA GPU, or the CPU backend. Cheap to clone (shared); `Send`
/// and `Sync`, so several threads may launch at once.
///
/// ```
/// use warp_runtime::prelude::*;
///
/// #[reduce(identity = 0.0)]
/// fn sum(a: f64, b: f64) -> f64 { a + b }
///
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu(); // or Device::auto()? for the GPU when there is one
/// let xs = dev.upload(&[1.0, 2.0, 3.5])?;
/// assert_eq!(dev.reduce(sum, &xs)?, 6.5);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) backend: Arc<Backend>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.describe())
    }
}

impl Device {
    /// [`Device::auto_with`] with the settings of the environment (`Settings::default()`): the
    /// backend `WARP_DEVICE` names (`cpu`, `cuda`, `cuda:N`), or, when it is unset, the first
    /// CUDA GPU when a driver and a device exist, else the CPU backend.
    ///
    /// ```
    /// use warp_runtime::Device;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::auto()?; // WARP_DEVICE=cpu picks the CPU backend
    /// println!("{}", dev.describe());
    /// # Ok(()) }
    /// ```
    pub fn auto() -> Result<Device> {
        Device::auto_with(&Settings::default())
    }

    /// The backend `settings` choose ([`Settings::device`], else `WARP_DEVICE`): the CPU
    /// backend, GPU `N`, or, when neither sets it, the first CUDA GPU when a driver and a device
    /// exist, else the CPU backend. Prints nothing: the choice is a `tracing` event (`info` for
    /// a GPU, `warn` for the CPU fallback, with the reason; `debug` when the settings are
    /// quiet). A GPU device gets the other settings (see [`Device::cuda_with`]).
    ///
    /// Errors: [`Error::Setting`] for a value of any setting it does not accept (read from the
    /// environment at this call, on any machine) or a library path naming another library than
    /// the one this process loaded: never a CPU fallback for a bad setting;
    /// [`Error::NoGpu`] when the settings name a GPU that is not there (no fallback then).
    ///
    /// ```
    /// use warp_runtime::{settings::DeviceChoice, Device, Settings};
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::auto_with(&Settings::new().device(DeviceChoice::Cpu).quiet(true))?;
    /// assert!(!dev.is_gpu());
    /// # Ok(()) }
    /// ```
    pub fn auto_with(settings: &Settings) -> Result<Device> {
        Device::choose(Arc::new(settings.resolve()?))
    }

    /// `Device::auto_with` for resolved settings.
    fn choose(settings: Arc<Resolved>) -> Result<Device> {
        let quiet = settings.quiet;
        // The choice's event: at `$level`, or `debug` when quiet.
        macro_rules! choice_event {
            ($level:ident, $($event:tt)*) => {
                if quiet { tracing::debug!($($event)*) } else { tracing::$level!($($event)*) }
            };
        }
        let ordinal = match settings.device {
            DeviceChoice::Cpu => {
                choice_event!(
                    info,
                    reason = "the device setting is `cpu`",
                    "running on the CPU backend"
                );
                return Ok(Device::cpu());
            }
            DeviceChoice::Cuda(n) => {
                let d = Device::on_gpu(n, settings)?;
                choice_event!(
                    info,
                    device = %d.describe(),
                    "running on a GPU (the device setting)"
                );
                return Ok(d);
            }
            DeviceChoice::Auto => 0,
        };
        match Device::on_gpu(ordinal, settings) {
            Ok(d) => {
                choice_event!(info, device = %d.describe(), "running on a GPU");
                Ok(d)
            }
            // A setting the GPU backend does not accept (a library path naming another library
            // than the one loaded) is the caller's error, not a reason to run on the CPU.
            Err(e @ Error::Setting { .. }) => Err(e),
            Err(e) => {
                choice_event!(warn, reason = %e, "no GPU; running on the CPU backend");
                Ok(Device::cpu())
            }
        }
    }

    /// [`Device::cuda_with`] with the settings of the environment (`Settings::default()`).
    ///
    /// ```
    /// use warp_runtime::{Device, Error};
    /// match Device::cuda(0) {
    ///     Ok(dev) => println!("{}", dev.describe()),
    ///     Err(Error::NoGpu { reason }) => println!("no GPU: {reason}"),
    ///     Err(e) => panic!("{e}"),
    /// }
    /// ```
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Device::cuda_with(ordinal, &Settings::default())
    }

    /// CUDA device `ordinal` (numbered from 0), on a new stream of its primary context, with
    /// `settings` (those that apply: the disk cache, NVRTC and the CUDA headers its kernels are
    /// compiled with, the driver path, the initial tile queue, poison; not the device choice
    /// nor quiet). The first array allocated on a device (an upload or a new array) also makes
    /// its grid scratch and first result slots (in device memory and in mapped page-locked host
    /// memory), so that the first operation pays only for loading its module; an operation on
    /// the caller's own memory makes them on first use instead.
    ///
    /// Errors: [`Error::NoGpu`] when there is no driver, no device numbered `ordinal` or a
    /// driver too old; [`Error::Setting`] for a value of a setting it does not accept (read
    /// from the environment at this call), or a driver or NVRTC path naming another library
    /// than the one this process loaded (each is loaded once per process: see [`Settings`]).
    ///
    /// ```
    /// use warp_runtime::{Device, Settings};
    /// let settings = Settings::new().tile_queue(true).cache_max_mb(64);
    /// if let Ok(dev) = Device::cuda_with(0, &settings) {
    ///     println!("{}", dev.describe());
    /// }
    /// ```
    pub fn cuda_with(ordinal: usize, settings: &Settings) -> Result<Device> {
        Device::on_gpu(ordinal, Arc::new(settings.resolve()?))
    }

    fn on_gpu(ordinal: usize, settings: Arc<Resolved>) -> Result<Device> {
        Ok(Device {
            backend: Arc::new(Backend::Gpu(Gpu::new(ordinal, settings)?)),
        })
    }

    /// [`Device::from_stream_with`] with the settings of the environment
    /// (`Settings::default()`): a device running every operation on the caller's cudarc
    /// `stream` (and its context).
    ///
    /// Cheap: every device of one CUDA context (made from a stream, by [`Device::cuda`], or
    /// forked) shares the context's compiled modules, so a second device loads nothing again;
    /// making one costs about 1.5 us on an H200 (the latency bench's `from_stream` line). Its
    /// result slots and scratch are its own (they rely on its stream's order), made by its
    /// first operation: a device made per call pays about 40 us more on that call (the bench's
    /// `from_stream + reduce` line), so keep one device per stream where calls repeat (a
    /// candle `CustomOp` can keep one per candle device, as `integrations/candle` does).
    ///
    /// candle's `Device::new_cuda` runs on CUDA's per-thread default stream
    /// (`CU_STREAM_PER_THREAD`): that handle means "the calling thread's stream", so a device
    /// made from it queues each operation on the stream of the thread that calls it. Call
    /// both candle and warp-dsl from the same thread (then they are ordered), or give candle
    /// a stream of its own (`CudaDevice::new_with_stream`). Such a device must not run
    /// operations from two threads at once: each thread's calls would run on that thread's
    /// stream, concurrently, over the device's one scratch and result slots (make a device
    /// per thread instead).
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use warp_runtime::{cudarc, Device};
    /// # fn main() -> warp_runtime::Result<()> {
    /// let ctx = cudarc::driver::CudaContext::new(0).expect("a GPU");
    /// let stream: Arc<cudarc::driver::CudaStream> = ctx.new_stream().expect("a stream");
    /// let dev = Device::from_stream(stream.clone())?;
    /// # Ok(()) }
    /// ```
    pub fn from_stream(stream: Arc<cudarc::driver::CudaStream>) -> Result<Device> {
        Device::from_stream_with(stream, &Settings::default())
    }

    /// A device running every operation on the caller's cudarc `stream` (and its context), with
    /// `settings` as [`Device::cuda_with`] takes them (but for the driver path: the caller's
    /// cudarc has loaded the driver): kernels the caller queues on that stream and ours run in
    /// order, with no synchronisation added. Arrays of the context (`CudaSlice`, `CudaView`,
    /// `DeviceVec`s of other devices of the context) are inputs and outputs of its operations;
    /// across streams, cudarc's event tracking orders their reads and writes (unless the caller
    /// turned it off) and [`Device::wait_for`] orders the rest.
    ///
    /// ```no_run
    /// use warp_runtime::{cudarc, Device, Settings};
    /// # fn main() -> warp_runtime::Result<()> {
    /// let ctx = cudarc::driver::CudaContext::new(0).expect("a GPU");
    /// let settings = Settings::new().cache_dir("/var/cache/my-app/kernels");
    /// let dev = Device::from_stream_with(ctx.default_stream(), &settings)?;
    /// # Ok(()) }
    /// ```
    pub fn from_stream_with(
        stream: Arc<cudarc::driver::CudaStream>,
        settings: &Settings,
    ) -> Result<Device> {
        let settings = Arc::new(settings.resolve()?);
        Ok(Device {
            backend: Arc::new(Backend::Gpu(Gpu::from_stream(stream, settings)?)),
        })
    }

    /// Another device of this one's GPU on the caller's `stream` (a stream of the same
    /// context), sharing this device's compiled modules and settings. An error for a stream of
    /// another context, and on the CPU backend.
    pub fn with_stream(&self, stream: Arc<cudarc::driver::CudaStream>) -> Result<Device> {
        Ok(Device {
            backend: Arc::new(Backend::Gpu(self.gpu()?.with_stream(stream)?)),
        })
    }

    /// Another device of this one's GPU on a new stream, sharing its compiled modules and
    /// settings. As cudarc's `CudaStream::fork`, the new stream first waits for the work
    /// queued on this device so far (arrays this device is still writing are ready for it);
    /// from then on the two run their operations concurrently. Their memory is shared (arrays
    /// of one are inputs of the other); order later work between them with
    /// [`Device::wait_for`]. On the
    /// CPU backend, another handle to the CPU backend.
    pub fn fork(&self) -> Result<Device> {
        match &*self.backend {
            Backend::Gpu(g) => Ok(Device {
                backend: Arc::new(Backend::Gpu(g.fork()?)),
            }),
            Backend::Cpu => Ok(self.clone()),
        }
    }

    /// Makes the work queued on this device from now on wait for all the work queued on
    /// `other` so far (an event on `other`'s stream; nothing waits on the host). `other` must
    /// be a device of the same GPU (else [`Error::DeviceMismatch`]); on the CPU backend there
    /// is nothing to order.
    pub fn wait_for(&self, other: &Device) -> Result<()> {
        match (&*self.backend, &*other.backend) {
            (Backend::Gpu(a), Backend::Gpu(b)) => {
                if a.context().cu_ctx() != b.context().cu_ctx() {
                    return Err(Error::DeviceMismatch);
                }
                a.wait(&b.record()?)
            }
            (Backend::Cpu, Backend::Cpu) => Ok(()),
            _ => Err(Error::DeviceMismatch),
        }
    }

    /// The cudarc stream the device's operations run on (`None` on the CPU backend).
    pub fn cuda_stream(&self) -> Option<Arc<cudarc::driver::CudaStream>> {
        match &*self.backend {
            Backend::Gpu(g) => Some(g.stream().clone()),
            Backend::Cpu => None,
        }
    }

    /// The cudarc context of the device's GPU (`None` on the CPU backend).
    pub fn cuda_context(&self) -> Option<Arc<cudarc::driver::CudaContext>> {
        match &*self.backend {
            Backend::Gpu(g) => Some(g.context().clone()),
            Backend::Cpu => None,
        }
    }

    /// Device allocations this device's operations have made so far (outputs they return,
    /// and growth of their cached scratch and result slots). A loop of `_into` operations
    /// makes none once warm. Always 0 on the CPU backend (it counts device memory only).
    pub fn allocations(&self) -> u64 {
        match &*self.backend {
            Backend::Gpu(g) => g.allocations(),
            Backend::Cpu => 0,
        }
    }

    /// The CPU backend: every operation runs the Rust functions themselves, in parallel.
    /// Every CPU-backend device (each call of `Device::cpu()`, and `Device::auto()`'s
    /// fallback) shares its memory with every other, as devices of one GPU context do: an
    /// array uploaded through one is an input to any of them.
    pub fn cpu() -> Device {
        Device {
            backend: Arc::new(Backend::Cpu),
        }
    }

    /// `true` for a GPU.
    pub fn is_gpu(&self) -> bool {
        matches!(*self.backend, Backend::Gpu(_))
    }

    /// A one-line description (`NVIDIA H200 (sm_90, 132 SMs)`, `CPU (16 threads)`).
    pub fn describe(&self) -> String {
        match &*self.backend {
            Backend::Gpu(g) => format!("{} (sm_{}, {} SMs)", g.name(), g.arch(), g.sm_count()),
            Backend::Cpu => format!("CPU ({} threads)", rayon::current_num_threads()),
        }
    }

    /// The GPU's compute capability as `major * 10 + minor` (`None` on the CPU backend).
    pub fn arch(&self) -> Option<u32> {
        match &*self.backend {
            Backend::Gpu(g) => Some(g.arch()),
            Backend::Cpu => None,
        }
    }

    /// How each operation's kernels were obtained so far (disk cache or NVRTC) and how long it
    /// took: the cost of first use.
    pub fn load_reports(&self) -> Vec<(String, LoadReport)> {
        match &*self.backend {
            Backend::Gpu(g) => g.load_reports(),
            Backend::Cpu => Vec::new(),
        }
    }

    /// Times every GPU operation with CUDA events from now on (or stops); read the time of
    /// the last one with [`Device::last_kernel_ms`]. Costs two events per operation, and makes
    /// each operation wait for its kernels.
    pub fn set_profiling(&self, on: bool) {
        if let Backend::Gpu(g) = &*self.backend {
            g.set_profiling(on);
        }
    }

    /// How single-pass kernels (compaction, scan) number their tiles: by `blockIdx.x` (the
    /// default: blocks are dispatched in increasing order, as CUB's look-back also assumes),
    /// or, with `true`, from an atomic queue in the order blocks start, which needs no
    /// assumption about dispatch order and costs one atomic per tile. [`Settings::tile_queue`]
    /// (or `WARP_TILE_QUEUE=1`) sets it for new devices.
    pub fn set_tile_queue(&self, on: bool) {
        if let Backend::Gpu(g) = &*self.backend {
            g.set_tile_queue(on);
        }
    }

    /// GPU time of the last operation while profiling was on: from just before its first
    /// kernel starts to just after its last one ends, excluding reading the result back
    /// (`None` on the CPU).
    pub fn last_kernel_ms(&self) -> Option<f32> {
        match &*self.backend {
            Backend::Gpu(g) => g.last_kernel_ms(),
            Backend::Cpu => None,
        }
    }

    /// Waits until all work queued on the device has finished.
    pub fn synchronize(&self) -> Result<()> {
        match &*self.backend {
            Backend::Gpu(g) => g.synchronize(),
            Backend::Cpu => Ok(()),
        }
    }

    /// The GPU backend (an error on the CPU backend).
    pub(crate) fn gpu(&self) -> Result<&Gpu> {
        match &*self.backend {
            Backend::Gpu(g) => Ok(g),
            Backend::Cpu => Err(Error::DeviceMismatch),
        }
    }

    /// Whether `other`'s memory is this device's: a device of the same GPU context (this one,
    /// or another stream), or any CPU-backend device for a CPU-backend device (host memory).
    pub(crate) fn shares_memory_with(&self, other: &Device) -> bool {
        match (&*self.backend, &*other.backend) {
            (Backend::Gpu(a), Backend::Gpu(b)) => a.context().cu_ctx() == b.context().cu_ctx(),
            (Backend::Cpu, Backend::Cpu) => true,
            _ => false,
        }
    }
}
