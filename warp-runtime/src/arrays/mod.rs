//! Arrays on a device: [`DeviceVec`] and its views [`DeviceSlice`], arrays of tuples
//! ([`DeviceTuples`]), and the transfers between the host and a `Device`.

mod tuples;

use std::ops::{Bound, RangeBounds};

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};

use crate::backend::Backend;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::values::Element;

pub use tuples::{ArrayOf, DeviceTuples, ValueArray};

/// Where a `DeviceVec`'s elements are.
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
    pub(crate) fn from_storage(device: &Device, storage: Storage<T>, len: usize) -> DeviceVec<T> {
        DeviceVec {
            device: device.clone(),
            storage,
            len,
        }
    }

    /// `len` elements of new memory on `device`'s GPU, contents unset (poisoned under
    /// `WARP_POISON`): for kernels that write every element.
    pub(crate) fn alloc_gpu(device: &Device, len: usize) -> Result<DeviceVec<T>> {
        let buf = device.gpu()?.alloc::<T>(len)?;
        Ok(DeviceVec::from_storage(device, Storage::Gpu(buf), len))
    }

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

    /// The GPU memory of the whole array as bytes, writable (for kernels that write values).
    pub(crate) fn gpu_bytes_mut(&mut self) -> Result<CudaViewMut<'_, u8>> {
        let bytes = self.len * std::mem::size_of::<T>();
        match &mut self.storage {
            // SAFETY: `u8` has no invalid values; the view covers exactly the array's elements,
            // and kernels write whole `T` values there (a scalar's layout is its C layout).
            Storage::Gpu(s) => unsafe { s.transmute_mut::<u8>(bytes) }
                .ok_or_else(|| Error::Shape("a device array could not be viewed as bytes".into())),
            Storage::Cpu(_) => Err(Error::DeviceMismatch),
        }
    }

    /// The GPU memory of the whole array, writable (for the kernels that fill it).
    pub(crate) fn gpu_mut(&mut self) -> Result<CudaViewMut<'_, T>> {
        let len = self.len;
        match &mut self.storage {
            Storage::Gpu(s) => Ok(s.slice_mut(0..len)),
            Storage::Cpu(_) => Err(Error::DeviceMismatch),
        }
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

    /// Copies the elements back to the host.
    pub fn download(&self) -> Result<Vec<T>> {
        match &self.vec.storage {
            Storage::Cpu(v) => Ok(v[self.start..self.start + self.len].to_vec()),
            Storage::Gpu(_) => self.vec.device.gpu()?.download(&self.gpu()?),
        }
    }

    /// The device holding it.
    pub(crate) fn device(&self) -> &'a Device {
        &self.vec.device
    }

    /// The view's GPU memory (an error for CPU memory).
    pub(crate) fn gpu(&self) -> Result<CudaView<'a, T>> {
        match &self.vec.storage {
            Storage::Gpu(s) => Ok(s.slice(self.start..self.start + self.len)),
            Storage::Cpu(_) => Err(Error::DeviceMismatch),
        }
    }

    /// The view's CPU memory (an error for GPU memory).
    pub(crate) fn cpu(&self) -> Result<&'a [T]> {
        match &self.vec.storage {
            Storage::Cpu(v) => Ok(&v[self.start..self.start + self.len]),
            Storage::Gpu(_) => Err(Error::DeviceMismatch),
        }
    }
}

impl Device {
    /// Copies `data` to the device.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceVec<T>> {
        let storage = match &*self.backend {
            Backend::Gpu(g) => Storage::Gpu(g.upload(data)?),
            Backend::Cpu => Storage::Cpu(data.to_vec()),
        };
        Ok(DeviceVec::from_storage(self, storage, data.len()))
    }

    /// A copy of `src` (or of a view) in new memory of this device.
    pub fn copy<T: Element>(&self, src: &DeviceSlice<'_, T>) -> Result<DeviceVec<T>> {
        self.check_owner(src)?;
        let storage = match &*self.backend {
            Backend::Gpu(g) => Storage::Gpu(g.duplicate(&src.gpu()?)?),
            Backend::Cpu => Storage::Cpu(src.cpu()?.to_vec()),
        };
        Ok(DeviceVec::from_storage(self, storage, src.len))
    }

    /// An error unless `view` is memory of this device.
    pub(crate) fn check_owner<T: Element>(&self, view: &DeviceSlice<'_, T>) -> Result<()> {
        if self.same(view.device()) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch)
        }
    }
}
