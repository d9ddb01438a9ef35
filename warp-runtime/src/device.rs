//! The safe API: `Device` (a GPU or the CPU backend), `DeviceVec` and its views, and the
//! operations, dispatched to the backend that holds the data.

use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

use cudarc::driver::CudaSlice;
use rayon::prelude::*;

use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu::{Gpu, LoadReport};
use crate::op::ReduceOp;
use crate::value::{Element, IndexInt};

#[allow(clippy::large_enum_variant)] // one per Device, behind an Arc
pub(crate) enum Backend {
    Gpu(Gpu),
    Cpu,
}

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
    /// The first CUDA GPU when a driver and a device exist, else the CPU backend. Prints one
    /// line to stderr saying which (and why there is no GPU); set `WARP_QUIET=1` to silence it.
    pub fn auto() -> Result<Device> {
        let quiet = std::env::var_os("WARP_QUIET").is_some_and(|v| v != "0");
        match Device::cuda(0) {
            Ok(d) => {
                if !quiet {
                    eprintln!("warp-dsl: running on {}", d.describe());
                }
                Ok(d)
            }
            Err(e) => {
                if !quiet {
                    eprintln!("warp-dsl: no GPU ({e}); running on the CPU backend");
                }
                Ok(Device::cpu())
            }
        }
    }

    /// CUDA device `ordinal`. Fails with [`Error::NoGpu`] when there is no driver or device.
    pub fn cuda(ordinal: usize) -> Result<Device> {
        Ok(Device {
            backend: Arc::new(Backend::Gpu(Gpu::new(ordinal)?)),
        })
    }

    /// The CPU backend: every operation runs the Rust functions themselves, in parallel.
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
    /// the last one with [`Device::last_kernel_ms`]. Costs two events per operation.
    pub fn set_profiling(&self, on: bool) {
        if let Backend::Gpu(g) = &*self.backend {
            g.set_profiling(on);
        }
    }

    /// How single-pass kernels (compaction, scan) number their tiles: by `blockIdx.x` (the
    /// default: blocks are dispatched in increasing order, as CUB's look-back also assumes),
    /// or, with `true`, from an atomic queue in the order blocks start, which needs no
    /// assumption about dispatch order and costs one atomic per tile. `WARP_TILE_QUEUE=1` sets
    /// it for new devices.
    pub fn set_tile_queue(&self, on: bool) {
        if let Backend::Gpu(g) = &*self.backend {
            g.set_tile_queue(on);
        }
    }

    /// GPU time of the last operation while profiling was on: from just before its kernel
    /// starts to just after it ends, excluding reading the result back (`None` on the CPU).
    pub fn last_kernel_ms(&self) -> Option<f32> {
        match &*self.backend {
            Backend::Gpu(g) => g.last_kernel_ms(),
            Backend::Cpu => None,
        }
    }

    /// A copy of `src` (or of a view) in new memory of this device.
    pub fn copy<T: Element>(&self, src: &DeviceSlice<'_, T>) -> Result<DeviceVec<T>> {
        self.check_owner(src.vec)?;
        let range = src.start..src.start + src.len;
        let storage = match (&*self.backend, &src.vec.storage) {
            (Backend::Gpu(g), Storage::Gpu(s)) => Storage::Gpu(g.duplicate(&s.slice(range))?),
            (Backend::Cpu, Storage::Cpu(v)) => Storage::Cpu(v[range].to_vec()),
            _ => return Err(Error::DeviceMismatch),
        };
        Ok(DeviceVec::from_storage(self, storage, src.len))
    }

    /// Waits until all work queued on the device has finished.
    pub fn synchronize(&self) -> Result<()> {
        match &*self.backend {
            Backend::Gpu(g) => g.synchronize(),
            Backend::Cpu => Ok(()),
        }
    }

    /// Copies `data` to the device.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceVec<T>> {
        let storage = match &*self.backend {
            Backend::Gpu(g) => Storage::Gpu(g.upload(data)?),
            Backend::Cpu => Storage::Cpu(data.to_vec()),
        };
        Ok(DeviceVec::from_storage(self, storage, data.len()))
    }

    /// Reduces `input` with `op`: one pass over the data (warp shuffles, a block combine, a
    /// grid combine in the same launch on the GPU). The input is a `DeviceVec`, a view of one,
    /// or `xs.indexed()` for `(value, index)` operators such as argmax. Empty input gives the
    /// identity. Deterministic: the same input gives the same bits on the same device.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    ///
    /// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
    /// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    ///     if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }
    /// }
    ///
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[3.0f32, 9.0, 1.0, 9.0])?;
    /// assert_eq!(dev.reduce(argmax, &xs.indexed())?, (9.0, 1));
    /// # Ok(()) }
    /// ```
    pub fn reduce<Op: ReduceOp, I: ReduceInput<Op> + ?Sized>(
        &self,
        op: Op,
        input: &I,
    ) -> Result<Op::Value> {
        input.run_reduce(self, op)
    }

    /// The GPU backend (an error on the CPU backend).
    pub(crate) fn gpu(&self) -> Result<&Gpu> {
        match &*self.backend {
            Backend::Gpu(g) => Ok(g),
            Backend::Cpu => Err(Error::DeviceMismatch),
        }
    }

    pub(crate) fn check_owner<T: Element>(&self, v: &DeviceVec<T>) -> Result<()> {
        if Arc::ptr_eq(&self.backend, &v.device.backend) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch)
        }
    }

    /// `f(element, index in the view)` for every element of a view of this CPU device's
    /// memory, in parallel: the CPU backend's reading pass.
    pub(crate) fn cpu_map<T: Element, V: Send>(
        &self,
        s: DeviceSlice<'_, T>,
        f: impl Fn(T, u64) -> V + Sync,
    ) -> Result<Vec<V>> {
        self.check_owner(s.vec)?;
        match &s.vec.storage {
            Storage::Cpu(v) => Ok(v[s.start..s.start + s.len]
                .par_iter()
                .enumerate()
                .map(|(i, &e)| f(e, i as u64))
                .collect()),
            Storage::Gpu(_) => Err(Error::DeviceMismatch),
        }
    }
}

pub(crate) enum Storage<T: Element> {
    Gpu(CudaSlice<T>),
    Cpu(Vec<T>),
}

/// An array on a [`Device`].
pub struct DeviceVec<T: Element> {
    pub(crate) device: Device,
    pub(crate) storage: Storage<T>,
    /// The number of elements (a GPU allocation may be larger: compaction writes into a
    /// worst-case buffer and keeps what it kept).
    pub(crate) len: usize,
}

impl<T: Element> DeviceVec<T> {
    pub(crate) fn from_storage(device: &Device, storage: Storage<T>, len: usize) -> DeviceVec<T> {
        DeviceVec {
            device: device.clone(),
            storage,
            len,
        }
    }
}

impl<T: Element> std::fmt::Debug for DeviceVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceVec<{}>(len {}, on {})",
            T::NAME,
            self.len(),
            self.device.describe()
        )
    }
}

impl<T: Element> DeviceVec<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device holding it.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Copies the elements back to the host.
    pub fn download(&self) -> Result<Vec<T>> {
        self.as_slice().download()
    }

    /// A view of all the elements.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            vec: self,
            start: 0,
            len: self.len(),
        }
    }

    /// A view of `range` (any start: views need no alignment). Out-of-bounds ranges are an
    /// [`Error::Shape`].
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        self.as_slice().slice(range)
    }

    /// The `(element, index)` pairs of the array, for `(value, index)` operators (argmax,
    /// argmin, ...). Indices count from 0.
    pub fn indexed(&self) -> Indexed<'_, T> {
        self.as_slice().indexed()
    }
}

/// A view of part of a [`DeviceVec`].
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T: Element> {
    pub(crate) vec: &'a DeviceVec<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<T: Element> std::fmt::Debug for DeviceSlice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceSlice<{}>({}..{})",
            T::NAME,
            self.start,
            self.start + self.len
        )
    }
}

impl<'a, T: Element> DeviceSlice<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A sub-view; `range` is relative to this view.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'a, T>> {
        let lo = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s
                .checked_add(1)
                .ok_or_else(|| Error::Shape("range start overflows".into()))?,
            Bound::Unbounded => 0,
        };
        let hi = match range.end_bound() {
            Bound::Included(&e) => e
                .checked_add(1)
                .ok_or_else(|| Error::Shape("range end overflows".into()))?,
            Bound::Excluded(&e) => e,
            Bound::Unbounded => self.len,
        };
        if lo > hi || hi > self.len {
            return Err(Error::Shape(format!(
                "range {lo}..{hi} is out of bounds for a view of length {}",
                self.len
            )));
        }
        Ok(DeviceSlice {
            vec: self.vec,
            start: self.start + lo,
            len: hi - lo,
        })
    }

    /// The `(element, index)` pairs of the view; indices count from the view's start.
    pub fn indexed(&self) -> Indexed<'a, T> {
        Indexed { slice: *self }
    }

    /// Copies the elements back to the host.
    pub fn download(&self) -> Result<Vec<T>> {
        match (&*self.vec.device.backend, &self.vec.storage) {
            (Backend::Gpu(g), Storage::Gpu(s)) => {
                g.download(&s.slice(self.start..self.start + self.len))
            }
            (_, Storage::Cpu(v)) => Ok(v[self.start..self.start + self.len].to_vec()),
            (Backend::Cpu, Storage::Gpu(_)) => Err(Error::DeviceMismatch),
        }
    }
}

/// `(element, index)` pairs of a view, made on the fly (nothing is materialised).
#[derive(Clone, Copy, Debug)]
pub struct Indexed<'a, T: Element> {
    pub(crate) slice: DeviceSlice<'a, T>,
}

pub(crate) mod sealed {
    pub trait Sealed {}
}
impl<T: Element> sealed::Sealed for DeviceVec<T> {}
impl<T: Element> sealed::Sealed for DeviceSlice<'_, T> {}
impl<T: Element> sealed::Sealed for Indexed<'_, T> {}

/// Something `Device::reduce` can reduce with `Op`: a `DeviceVec<Op::Value>`, a view of one,
/// or the `indexed()` pairs of an array when `Op::Value` is `(V, I)`.
pub trait ReduceInput<Op: ReduceOp>: sealed::Sealed {
    /// Runs the reduction (use `Device::reduce`).
    #[doc(hidden)]
    fn run_reduce(&self, device: &Device, op: Op) -> Result<Op::Value>;
}

impl<T: Element, Op: ReduceOp<Value = T>> ReduceInput<Op> for DeviceVec<T> {
    fn run_reduce(&self, device: &Device, op: Op) -> Result<T> {
        self.as_slice().run_reduce(device, op)
    }
}

impl<T: Element, Op: ReduceOp<Value = T>> ReduceInput<Op> for DeviceSlice<'_, T> {
    fn run_reduce(&self, device: &Device, op: Op) -> Result<T> {
        device.check_owner(self.vec)?;
        if self.len == 0 {
            return Ok(op.identity());
        }
        let range = self.start..self.start + self.len;
        match (&*device.backend, &self.vec.storage) {
            (Backend::Cpu, Storage::Cpu(v)) => Ok(cpu::reduce(op, &v[range])),
            (Backend::Gpu(g), Storage::Gpu(s)) => {
                let kernel = Op::META.plain_kernel.ok_or_else(|| {
                    Error::Unsupported(format!(
                        "`{}` has no kernel over plain arrays",
                        Op::META.name
                    ))
                })?;
                g.reduce::<T, T>(&Op::META, kernel, &s.slice(range))
            }
            _ => Err(Error::DeviceMismatch),
        }
    }
}

impl<V: Element, I: IndexInt, Op: ReduceOp<Value = (V, I)>> ReduceInput<Op> for Indexed<'_, V> {
    fn run_reduce(&self, device: &Device, op: Op) -> Result<(V, I)> {
        let s = &self.slice;
        device.check_owner(s.vec)?;
        if s.len == 0 {
            return Ok(op.identity());
        }
        if (s.len - 1) as u64 > I::MAX_INDEX {
            return Err(Error::Shape(format!(
                "{} elements cannot be indexed with `{}` (largest index {}); use a wider index type",
                s.len,
                I::NAME,
                I::MAX_INDEX
            )));
        }
        let range = s.start..s.start + s.len;
        match (&*device.backend, &s.vec.storage) {
            (Backend::Cpu, Storage::Cpu(v)) => Ok(cpu::reduce_indexed(op, &v[range])),
            (Backend::Gpu(g), Storage::Gpu(buf)) => {
                let kernel = Op::META.indexed_kernel.ok_or_else(|| {
                    Error::Unsupported(format!("`{}` has no indexed kernel", Op::META.name))
                })?;
                g.reduce::<(V, I), V>(&Op::META, kernel, &buf.slice(range))
            }
            _ => Err(Error::DeviceMismatch),
        }
    }
}
