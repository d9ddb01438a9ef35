//! Arrays of operator values: a [`DeviceVec`] for scalars, a [`DeviceTuples`] for tuples;
//! [`ValueArray`] is what scans and axis reductions return for an operator's value type.

use crate::device::{Device, DeviceVec, Storage};
use crate::error::Result;
use crate::value::{DeviceValue, Element};

mod sealed {
    pub trait Sealed {}
}

/// An array of `T` on a device, as scans and axis reductions return it: [`DeviceVec<T>`] when
/// `T` is a scalar, [`DeviceTuples<T>`] when it is a tuple (`(f32, u32)` for argmax, ...).
pub trait ValueArray<T: DeviceValue>: sealed::Sealed + Sized + std::fmt::Debug {
    /// Number of values.
    fn len(&self) -> usize;
    /// `true` when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Copies the values back to the host.
    fn download(&self) -> Result<Vec<T>>;
    /// An array of `len` values on `device`'s GPU, contents unset (poisoned under
    /// `WARP_POISON`), and the device address of its first value.
    #[doc(hidden)]
    fn alloc_gpu(device: &Device, len: usize) -> Result<(Self, u64)>;
    /// The array of `values` on `device`.
    #[doc(hidden)]
    fn from_values(device: &Device, values: &[T]) -> Result<Self>;
}

impl<T: Element> sealed::Sealed for DeviceVec<T> {}
impl<T: Element> ValueArray<T> for DeviceVec<T> {
    fn len(&self) -> usize {
        DeviceVec::len(self)
    }
    fn download(&self) -> Result<Vec<T>> {
        DeviceVec::download(self)
    }
    fn alloc_gpu(device: &Device, len: usize) -> Result<(Self, u64)> {
        let (buf, ptr) = device.gpu()?.alloc_raw::<T>(len)?;
        Ok((DeviceVec::from_storage(device, Storage::Gpu(buf), len), ptr))
    }
    fn from_values(device: &Device, values: &[T]) -> Result<Self> {
        device.upload(values)
    }
}

/// An array of tuples on a device, in C layout (each value `T::C_SIZE` bytes): what scans and
/// axis reductions of a tuple operator (argmax, mean-and-count, ...) return.
///
/// ```
/// use warp_runtime::prelude::*;
///
/// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
/// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
///     if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }
/// }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 5.0, 2.0, 7.0, 0.0, 3.0])?;
/// let best = dev.reduce_rows(argmax, &xs.indexed(), 3)?; // two rows of three
/// assert_eq!(best.download()?, vec![(5.0, 1), (7.0, 3)]);
/// # Ok(()) }
/// ```
pub struct DeviceTuples<T: DeviceValue> {
    bytes: DeviceVec<u8>,
    len: usize,
    _values: std::marker::PhantomData<T>,
}

impl<T: DeviceValue> std::fmt::Debug for DeviceTuples<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceTuples<{}>(len {}, on {})",
            std::any::type_name::<T>(),
            self.len,
            self.bytes.device().describe()
        )
    }
}

impl<T: DeviceValue> DeviceTuples<T> {
    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }
    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Copies the values back to the host.
    pub fn download(&self) -> Result<Vec<T>> {
        let bytes = self.bytes.download()?;
        Ok(bytes.chunks_exact(T::C_SIZE).map(T::read_c).collect())
    }
}

impl<T: DeviceValue> sealed::Sealed for DeviceTuples<T> {}
impl<T: DeviceValue> ValueArray<T> for DeviceTuples<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn download(&self) -> Result<Vec<T>> {
        DeviceTuples::download(self)
    }
    fn alloc_gpu(device: &Device, len: usize) -> Result<(Self, u64)> {
        let (bytes, ptr) = DeviceVec::<u8>::alloc_gpu(device, len * T::C_SIZE)?;
        Ok((
            DeviceTuples {
                bytes,
                len,
                _values: std::marker::PhantomData,
            },
            ptr,
        ))
    }
    fn from_values(device: &Device, values: &[T]) -> Result<Self> {
        let mut bytes = vec![0u8; values.len() * T::C_SIZE];
        for (v, out) in values.iter().zip(bytes.chunks_exact_mut(T::C_SIZE)) {
            v.write_c(out);
        }
        Ok(DeviceTuples {
            bytes: device.upload(&bytes)?,
            len: values.len(),
            _values: std::marker::PhantomData,
        })
    }
}
