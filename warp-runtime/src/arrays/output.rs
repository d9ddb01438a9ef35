//! Where the `_into` operations write their arrays: [`OutputArray`], implemented by this
//! crate's arrays and by the caller's cudarc memory.

use cudarc::driver::{CudaSlice, CudaViewMut, DeviceSlice as _};

use super::{DeviceTuples, DeviceVec, Storage};
use crate::backend::Backend;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::values::{DeviceValue, Element};

mod sealed {
    pub trait Sealed {}
}

/// Where an operation writes its values (in C layout).
#[doc(hidden)]
pub enum Target<'a> {
    /// GPU memory, with the raw handle of its CUDA context (checked against the device's).
    Gpu(CudaViewMut<'a, u8>, cudarc::driver::sys::CUcontext),
    /// The CPU backend's memory, and its device.
    Cpu(&'a mut [u8], &'a Device),
}

/// An array an `_into` operation writes into (`scan_into`, `map_into`, `reduce_rows_into`,
/// ...): a [`DeviceVec`] (scalar values) or [`DeviceTuples`] (tuples) of the device, or the
/// caller's cudarc memory, `CudaSlice<T>` or `CudaViewMut<'_, T>` (scalar values), which must
/// be memory of the device's GPU context. Its length must be what the operation writes
/// (else [`Error::Shape`]); the runs' `_into` forms (`unique_into`, ...) take outputs at least
/// as long as their input.
pub trait OutputArray<V: DeviceValue>: sealed::Sealed {
    /// Number of values it holds.
    fn len(&self) -> usize;
    /// `true` when it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Its memory.
    #[doc(hidden)]
    fn target(&mut self) -> Result<Target<'_>>;
}

/// The bytes of a CPU array of scalars.
fn host_bytes<T: Element>(v: &mut [T]) -> &mut [u8] {
    let len = std::mem::size_of_val(v);
    // SAFETY: `T` is a plain scalar (no padding, every byte initialised); the bytes are
    // written only with values of `T` in their own layout (`DeviceValue::write_c`).
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), len) }
}

impl<T: Element> sealed::Sealed for DeviceVec<T> {}
impl<T: Element> OutputArray<T> for DeviceVec<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn target(&mut self) -> Result<Target<'_>> {
        if let (Backend::Gpu(g), Storage::Gpu(_)) = (&*self.device.backend, &self.storage) {
            let ctx = g.context().cu_ctx();
            return Ok(Target::Gpu(self.gpu_bytes_mut()?, ctx));
        }
        let len = self.len;
        match &mut self.storage {
            Storage::Cpu(v) => Ok(Target::Cpu(host_bytes(&mut v[..len]), &self.device)),
            Storage::Gpu(_) => Err(Error::DeviceMismatch),
        }
    }
}

impl<V: DeviceValue> sealed::Sealed for DeviceTuples<V> {}
impl<V: DeviceValue> OutputArray<V> for DeviceTuples<V> {
    fn len(&self) -> usize {
        DeviceTuples::len(self)
    }
    fn target(&mut self) -> Result<Target<'_>> {
        self.bytes.target()
    }
}

impl<T: Element> sealed::Sealed for CudaSlice<T> {}
impl<T: Element> OutputArray<T> for CudaSlice<T> {
    fn len(&self) -> usize {
        cudarc::driver::DeviceSlice::len(self)
    }
    fn target(&mut self) -> Result<Target<'_>> {
        let ctx = self.context().cu_ctx();
        let bytes = cudarc::driver::DeviceSlice::len(self) * std::mem::size_of::<T>();
        // SAFETY: `u8` has no invalid values; the view covers the slice, where kernels write
        // whole `T` values.
        let view = unsafe { self.transmute_mut::<u8>(bytes) }
            .ok_or_else(|| Error::Shape("a device array could not be viewed as bytes".into()))?;
        Ok(Target::Gpu(view, ctx))
    }
}

impl<T: Element> sealed::Sealed for CudaViewMut<'_, T> {}
impl<T: Element> OutputArray<T> for CudaViewMut<'_, T> {
    fn len(&self) -> usize {
        CudaViewMut::len(self)
    }
    fn target(&mut self) -> Result<Target<'_>> {
        let ctx = self.stream().context().cu_ctx();
        let bytes = CudaViewMut::len(self) * std::mem::size_of::<T>();
        // SAFETY: as for `CudaSlice`.
        let view = unsafe { self.transmute_mut::<u8>(bytes) }
            .ok_or_else(|| Error::Shape("a device view could not be viewed as bytes".into()))?;
        Ok(Target::Gpu(view, ctx))
    }
}

impl Device {
    /// Checks that `out` holds `len` values and is memory this device may write; its target.
    pub(crate) fn output<'o, V: DeviceValue, O: OutputArray<V> + ?Sized>(
        &self,
        out: &'o mut O,
        len: usize,
        what: &str,
    ) -> Result<Target<'o>> {
        if out.len() != len {
            return Err(Error::Shape(format!(
                "the output of {what} holds {} values; it needs {len}",
                out.len()
            )));
        }
        let t = out.target()?;
        let ok = match (&t, &*self.backend) {
            (Target::Gpu(_, ctx), Backend::Gpu(g)) => *ctx == g.context().cu_ctx(),
            (Target::Cpu(_, d), _) => self.shares_memory_with(d),
            (Target::Gpu(..), Backend::Cpu) => false,
        };
        if ok {
            Ok(t)
        } else {
            Err(Error::DeviceMismatch)
        }
    }
}

/// Writes `values` (computed on the CPU) into a CPU target.
pub(crate) fn write_host<V: DeviceValue>(bytes: &mut [u8], values: &[V]) {
    for (v, out) in values.iter().zip(bytes.chunks_exact_mut(V::C_SIZE)) {
        v.write_c(out);
    }
}
