//! warp-dsl inside a candle program, without copies:
//!
//! - [`warp_device`]: the warp-dsl [`Device`] of a candle device, on candle's own CUDA stream
//!   (one per candle device, cached, so that its compiled kernels are reused); on candle's CPU
//!   device, warp-dsl's CPU backend.
//! - [`read_f32`]: a contiguous `f32` tensor as a warp-dsl input: on a GPU a `CudaView` of
//!   candle's `CudaSlice` at the layout's offsets (borrowed, never copied); on the CPU an
//!   upload of the layout's elements (the CPU path is for checking without a GPU).
//! - [`tensor_from_warp`], [`indices_tensor`]: warp-dsl's result arrays as candle tensors, the
//!   `CudaSlice` becoming the tensor's storage (no copy; downloaded on the CPU path).
//! - [`WarpRowReduce`]: a candle `CustomOp1` whose `cuda_fwd` runs a warp-dsl row reduction
//!   (any `#[reduce]` operator on `f32`) over the last dimension and whose `cpu_fwd` runs the
//!   same Rust function on warp-dsl's CPU backend.
//! - [`GpuTimer`]: CUDA-event timing on candle's stream (the bench).

use std::sync::Arc;

use candle_core::backend::BackendStorage;
use candle_core::cuda::{CudaDType, DeviceId};
use candle_core::op::BackpropOp;
use candle_core::{CpuStorage, CudaDevice, CudaStorage, CustomOp1, Layout, Shape, Storage, Tensor};
use warp_runtime::cudarc::driver::{CudaSlice, CudaStream, CudaView, DevicePtrMut, sys};
use warp_runtime::prelude::*;
use warp_runtime::{Array, Element, ElementInput, Indexed};

pub use candle_core;
pub use warp_runtime;

/// The `#[reduce]` and `#[predicate]` functions of the example and the bench: plain Rust,
/// which warp-dsl turns into CUDA (and runs as they are on its CPU backend).
pub mod ops {
    use warp_runtime::prelude::*;

    /// Sum of floats.
    #[reduce(identity = 0.0)]
    pub fn sum(a: f32, b: f32) -> f32 {
        a + b
    }

    /// The largest float (NaN-free data: a NaN is never taken).
    #[reduce(identity = f32::NEG_INFINITY)]
    pub fn max(a: f32, b: f32) -> f32 {
        if b > a { b } else { a }
    }

    /// NumPy's argmax: the largest value, the smallest index among equals (NaN the largest).
    #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
    pub fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
        let b_wins = if a.0.is_nan() || b.0.is_nan() {
            b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
        } else {
            b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
        };
        if b_wins { b } else { a }
    }

    /// `x > t`.
    #[predicate]
    pub fn above(x: f32, t: f32) -> bool {
        x > t
    }
}

/// A warp-dsl error as a candle error.
pub fn wrap(e: warp_runtime::Error) -> candle_core::Error {
    candle_core::Error::wrap(e)
}

thread_local! {
    /// The warp-dsl devices this thread made so far, one per candle CUDA device (candle's
    /// `DeviceId`). Per thread: candle's `Device::new_cuda` runs on CUDA's per-thread default
    /// stream, so each thread's calls run on its own stream, and a warp-dsl device's scratch
    /// and result slots must not be used by two streams at once.
    static DEVICES: std::cell::RefCell<Vec<(DeviceId, Device)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The warp-dsl device of a candle CUDA device: a GPU device on candle's own stream, made once
/// per candle device and thread (later calls return the same one, which keeps its scratch and
/// result slots; every device of the GPU shares the compiled kernels).
pub fn warp_device_of(cuda: &CudaDevice) -> candle_core::Result<Device> {
    DEVICES.with(|devices| {
        let mut devices = devices.borrow_mut();
        if let Some((_, d)) = devices.iter().find(|(id, _)| *id == cuda.id()) {
            return Ok(d.clone());
        }
        let d = Device::from_stream(cuda.cuda_stream()).map_err(wrap)?;
        devices.push((cuda.id(), d.clone()));
        Ok(d)
    })
}

/// The warp-dsl device of a candle device: [`warp_device_of`] for a CUDA device, the CPU
/// backend for candle's CPU device.
pub fn warp_device(dev: &candle_core::Device) -> candle_core::Result<Device> {
    match dev {
        candle_core::Device::Cuda(c) => warp_device_of(c),
        candle_core::Device::Cpu => Ok(Device::cpu()),
        other => candle_core::bail!("warp-candle: no warp-dsl backend for {other:?}"),
    }
}

/// The start and end of a contiguous layout's elements in its storage.
pub fn contiguous_range(layout: &Layout) -> candle_core::Result<std::ops::Range<usize>> {
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(start..end),
        None => Err(candle_core::Error::RequiresContiguous { op: "warp-dsl" }.bt()),
    }
}

/// What warp-dsl reads of an `f32` tensor: an array of `f32` that every operation takes
/// (a `CudaView` on a GPU, a `DeviceVec` on the CPU backend), with its `(value, index)` pairs.
pub trait F32Input: ElementInput<Elem = f32, Value = f32, Kept = f32> + Array<Elem = f32> {
    /// `(element, index)` pairs, indices from the view's start (argmax).
    fn pairs(&self) -> Indexed<'_, f32>;
}

impl F32Input for CudaView<'_, f32> {
    fn pairs(&self) -> Indexed<'_, f32> {
        CudaInput::indexed(self)
    }
}

impl F32Input for DeviceVec<f32> {
    fn pairs(&self) -> Indexed<'_, f32> {
        self.indexed()
    }
}

/// Work on a tensor's elements, for [`read_f32`]: generic over the input type, so that the
/// same code runs on candle's CUDA memory and on the CPU path.
pub trait Visit {
    /// What the work returns.
    type Out;
    /// The work, on warp-dsl device `dev`, reading `xs` (the tensor's elements in order).
    fn visit<X: F32Input>(self, dev: &Device, xs: &X) -> Self::Out;
}

/// Runs `work` on the elements of the contiguous `f32` tensor `t` (any rank, any start
/// offset): on a GPU, a view of candle's `CudaSlice` at the layout's offsets, borrowed and
/// never copied, read by warp-dsl on candle's stream; on candle's CPU device, an upload of
/// those elements to warp-dsl's CPU backend. A non-contiguous tensor is an error
/// (`RequiresContiguous`: call `.contiguous()` first).
pub fn read_f32<V: Visit>(t: &Tensor, work: V) -> candle_core::Result<V::Out> {
    let dev = warp_device(t.device())?;
    let (storage, layout) = t.storage_and_layout();
    let range = contiguous_range(layout)?;
    match &*storage {
        Storage::Cuda(s) => {
            let view = s.as_cuda_slice::<f32>()?.slice(range);
            Ok(work.visit(&dev, &view))
        }
        Storage::Cpu(s) => {
            let xs = dev.upload(&s.as_slice::<f32>()?[range]).map_err(wrap)?;
            Ok(work.visit(&dev, &xs))
        }
        _ => candle_core::bail!("warp-candle: a CUDA or CPU tensor"),
    }
}

/// A warp-dsl result array as a candle tensor of `shape` on `dev`: on a GPU the array's
/// `CudaSlice` becomes the tensor's storage (no copy; the kernels writing it are queued on
/// candle's stream, before anything candle queues on it); on the CPU path a download.
pub fn tensor_from_warp<T>(
    v: DeviceVec<T>,
    shape: impl Into<Shape>,
    dev: &candle_core::Device,
) -> candle_core::Result<Tensor>
where
    T: Element + CudaDType + candle_core::WithDType,
{
    let shape = shape.into();
    if shape.elem_count() != v.len() {
        candle_core::bail!(
            "warp-candle: {} values cannot be a tensor of shape {shape:?}",
            v.len()
        );
    }
    match dev {
        candle_core::Device::Cuda(c) => {
            let slice: CudaSlice<T> = v.into_cuda().map_err(wrap)?;
            let storage = Storage::Cuda(CudaStorage::wrap_cuda_slice(slice, c.clone()));
            Ok(Tensor::from_storage(
                storage,
                shape,
                BackpropOp::none(),
                false,
            ))
        }
        _ => Tensor::from_vec(v.download().map_err(wrap)?, shape, dev),
    }
}

/// The reduction of all of `xs` with `op`, written by warp-dsl (`Device::reduce_into`) into
/// memory that candle allocated (a 1-element `CudaSlice` from candle's device, on its stream),
/// as a 0-dimensional candle tensor: the result never leaves the device, and has the bits of
/// `Device::reduce`. On the CPU path, the reduction's value in a tensor.
pub fn reduce_into_tensor<Op, X>(
    op: Op,
    dev: &Device,
    xs: &X,
    candle: &candle_core::Device,
) -> candle_core::Result<Tensor>
where
    Op: ReduceOp<Value = f32>,
    X: F32Input,
{
    match candle {
        candle_core::Device::Cuda(c) => {
            let mut out: CudaSlice<f32> = c.alloc_zeros(1)?;
            dev.reduce_into(op, xs, &mut out).map_err(wrap)?;
            let storage = Storage::Cuda(CudaStorage::wrap_cuda_slice(out, c.clone()));
            Ok(Tensor::from_storage(storage, (), BackpropOp::none(), false))
        }
        _ => Tensor::new(dev.reduce(op, xs).map_err(wrap)?, candle),
    }
}

/// warp-dsl's `u64` indices (`top_k`) as a candle `I64` tensor. On a GPU the same memory,
/// reinterpreted (indices are below 2^32, so their `u64` and `i64` bits are the same): no copy.
pub fn indices_tensor(v: DeviceVec<u64>, dev: &candle_core::Device) -> candle_core::Result<Tensor> {
    let n = v.len();
    match dev {
        candle_core::Device::Cuda(c) => {
            let slice: CudaSlice<u64> = v.into_cuda().map_err(wrap)?;
            let stream: Arc<CudaStream> = slice.stream().clone();
            let ptr = slice.leak();
            // SAFETY: `ptr` is the start of an allocation of `n` u64 written by kernels queued
            // on `stream`; the new slice owns it (and frees it) from now on; every index is
            // below 2^32, so reading it as i64 gives the same value.
            let mut slice: CudaSlice<i64> = unsafe { stream.upgrade_device_ptr(ptr, n) };
            // Records the slice's write event after the kernels queued so far.
            let _ = slice.device_ptr_mut(&stream);
            let storage = Storage::Cuda(CudaStorage::wrap_cuda_slice(slice, c.clone()));
            Ok(Tensor::from_storage(storage, n, BackpropOp::none(), false))
        }
        _ => {
            let host: Vec<i64> = v
                .download()
                .map_err(wrap)?
                .into_iter()
                .map(|i| i as i64)
                .collect();
            Tensor::from_vec(host, n, dev)
        }
    }
}

/// A candle `CustomOp1` reducing the last dimension of a contiguous `f32` tensor with a
/// warp-dsl `#[reduce]` operator: shape `[d0, .., dk, n]` -> `[d0, .., dk]`. `cuda_fwd` runs
/// `reduce_rows` on candle's stream, reading candle's memory at the layout's offsets and
/// handing its result array to candle as the output storage (no copy); `cpu_fwd` runs the same
/// Rust function on warp-dsl's CPU backend. No backward pass.
///
/// ```ignore
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// let row_sums = t.apply_op1_no_bwd(&WarpRowReduce::new("warp_row_sum", sum))?;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WarpRowReduce<Op> {
    name: &'static str,
    op: Op,
}

impl<Op: ReduceOp<Value = f32>> WarpRowReduce<Op> {
    /// The op named `name` (candle's error messages name it) reducing with `op`.
    pub fn new(name: &'static str, op: Op) -> Self {
        WarpRowReduce { name, op }
    }

    /// The columns (the last dimension; 1 for a scalar) and the result's shape.
    fn shapes(&self, layout: &Layout) -> candle_core::Result<(usize, Shape)> {
        let dims = layout.shape().dims();
        match dims.split_last() {
            Some((&cols, rest)) if cols > 0 => Ok((cols, Shape::from(rest.to_vec()))),
            Some(_) => candle_core::bail!("{}: an empty last dimension", self.name),
            None => Ok((1, Shape::from(()))),
        }
    }
}

impl<Op: ReduceOp<Value = f32>> CustomOp1 for WarpRowReduce<Op> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn cpu_fwd(
        &self,
        storage: &CpuStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (cols, shape) = self.shapes(layout)?;
        let range = contiguous_range(layout)?;
        let dev = Device::cpu();
        let xs = dev
            .upload(&storage.as_slice::<f32>()?[range])
            .map_err(wrap)?;
        let rows: DeviceVec<f32> = dev.reduce_rows(self.op, &xs, cols).map_err(wrap)?;
        Ok((CpuStorage::F32(rows.download().map_err(wrap)?), shape))
    }

    fn cuda_fwd(
        &self,
        storage: &CudaStorage,
        layout: &Layout,
    ) -> candle_core::Result<(CudaStorage, Shape)> {
        let (cols, shape) = self.shapes(layout)?;
        let range = contiguous_range(layout)?;
        let cuda = storage.device();
        let dev = warp_device_of(cuda)?;
        let xs = storage.as_cuda_slice::<f32>()?.slice(range);
        let rows: DeviceVec<f32> = dev.reduce_rows(self.op, &xs, cols).map_err(wrap)?;
        let out = rows.into_cuda().map_err(wrap)?;
        Ok((CudaStorage::wrap_cuda_slice(out, cuda.clone()), shape))
    }
}

/// GPU time of work queued on a stream, by CUDA events recorded on it before and after.
pub struct GpuTimer {
    stream: Arc<CudaStream>,
}

impl GpuTimer {
    /// A timer of `stream`'s work.
    pub fn new(stream: Arc<CudaStream>) -> Self {
        GpuTimer { stream }
    }

    /// Microseconds of GPU time of the work `f` queues (each call: an event before, `f`, an
    /// event after, then a wait for it). `f`'s result is dropped after the second event.
    pub fn time<R>(
        &self,
        mut f: impl FnMut() -> candle_core::Result<R>,
    ) -> candle_core::Result<(f64, R)> {
        let ctx = self.stream.context();
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = ctx.new_event(flags).map_err(candle_core::Error::wrap)?;
        let end = ctx.new_event(flags).map_err(candle_core::Error::wrap)?;
        start
            .record(&self.stream)
            .map_err(candle_core::Error::wrap)?;
        let r = f()?;
        end.record(&self.stream).map_err(candle_core::Error::wrap)?;
        let ms = start.elapsed_ms(&end).map_err(candle_core::Error::wrap)?;
        Ok((ms as f64 * 1e3, r))
    }

    /// The median of `reps` timings after `warmup` untimed calls, and the last result.
    pub fn median<R>(
        &self,
        warmup: usize,
        reps: usize,
        mut f: impl FnMut() -> candle_core::Result<R>,
    ) -> candle_core::Result<(f64, R)> {
        for _ in 0..warmup {
            f()?;
        }
        self.stream
            .synchronize()
            .map_err(candle_core::Error::wrap)?;
        let mut times = Vec::with_capacity(reps);
        let mut last = None;
        for _ in 0..reps.max(1) {
            let (us, r) = self.time(&mut f)?;
            times.push(us);
            last = Some(r);
        }
        times.sort_by(f64::total_cmp);
        Ok((times[times.len() / 2], last.expect("one run")))
    }
}
