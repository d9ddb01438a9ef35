//! Arrays of operator values: a [`DeviceVec`] for scalars, a [`DeviceTuples`] for tuples;
//! [`ValueArray`] is what scans and axis reductions return for an operator's value type, and
//! [`ArrayOf`] picks it.

use super::DeviceVec;
use crate::device::Device;
use crate::error::Result;
use crate::values::{DeviceValue, Element};

mod sealed {
    pub trait Sealed {}
}

/// An array of `T` on a device, as scans and axis reductions return it: [`DeviceVec<T>`] when
/// `T` is a scalar, [`DeviceTuples<T>`] when it is a tuple (`(f32, u32)` for argmax, ...).
pub trait ValueArray<T: DeviceValue>:
    super::OutputArray<T> + sealed::Sealed + Sized + std::fmt::Debug
{
    /// Copies the values back to the host.
    fn download(&self) -> Result<Vec<T>>;
    /// An array of `len` values on `device` for an operation that writes every value:
    /// contents unset on a GPU (poisoned under `WARP_POISON`), zero bytes on the CPU backend.
    #[doc(hidden)]
    fn alloc(device: &Device, len: usize) -> Result<Self>;
    /// The array of `values` on `device`.
    #[doc(hidden)]
    fn from_values(device: &Device, values: &[T]) -> Result<Self>;
    /// Keeps the first `len` values (of an operation's worst-case output).
    #[doc(hidden)]
    fn truncate(&mut self, len: usize);
}

/// The device array a scan or axis reduction returns for values of this type:
/// [`DeviceVec`] for scalars, [`DeviceTuples`] for tuples.
pub trait ArrayOf: DeviceValue {
    /// The array type.
    type Array: ValueArray<Self>;
}

impl<T: Element> ArrayOf for T {
    type Array = DeviceVec<T>;
}

macro_rules! tuple_array {
    ($($name:ident),+) => {
        impl<$($name: Element),+> ArrayOf for ($($name,)+) {
            type Array = DeviceTuples<Self>;
        }
    };
}
tuple_array!(A, B);
tuple_array!(A, B, C);
tuple_array!(A, B, C, D);
tuple_array!(A, B, C, D, E);
tuple_array!(A, B, C, D, E, F);
tuple_array!(A, B, C, D, E, F, G);
tuple_array!(A, B, C, D, E, F, G, H);

impl<T: Element> sealed::Sealed for DeviceVec<T> {}
impl<T: Element> ValueArray<T> for DeviceVec<T> {
    fn download(&self) -> Result<Vec<T>> {
        DeviceVec::download(self)
    }
    fn alloc(device: &Device, len: usize) -> Result<Self> {
        device.new_array(len)
    }
    fn from_values(device: &Device, values: &[T]) -> Result<Self> {
        device.upload(values)
    }
    fn truncate(&mut self, len: usize) {
        DeviceVec::truncate(self, len)
    }
}

/// An array of tuples on a device, in C layout (each value `T::C_SIZE` bytes): what scans and
/// axis reductions of a tuple operator (argmax, mean-and-count, ...) return. A result type,
/// not an operation's input (see [`Device::upload_values`]).
///
/// ```
/// use warp_runtime::prelude::*;
///
/// #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
/// fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
///     // NaN-propagating like NumPy: NaN is the largest; ties go to the smallest index.
///     let b_wins = if a.0.is_nan() || b.0.is_nan() {
///         b.0.is_nan() && (!a.0.is_nan() || b.1 < a.1)
///     } else {
///         b.0 > a.0 || (b.0 == a.0 && b.1 < a.1)
///     };
///     if b_wins { b } else { a }
/// }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 5.0, 2.0, 7.0, 0.0, 3.0])?;
/// let best = dev.reduce_rows(argmax, &xs.indexed(), 3)?; // two rows of three
/// assert_eq!(best.download()?, vec![(5.0, 1), (7.0, 3)]);
/// let ys = dev.upload(&[1.0f32, f32::NAN, 2.0, 7.0, 0.0, 3.0])?;
/// let best = dev.reduce_rows(argmax, &ys.indexed(), 3)?.download()?;
/// assert_eq!((best[0].1, best[1]), (1, (7.0, 3)));          // a row's first NaN wins
/// # Ok(()) }
/// ```
pub struct DeviceTuples<T: DeviceValue> {
    pub(super) bytes: DeviceVec<u8>,
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
    /// The values' bytes, in C layout.
    pub(crate) fn raw(&self) -> &DeviceVec<u8> {
        &self.bytes
    }
    /// Copies the values back to the host.
    pub fn download(&self) -> Result<Vec<T>> {
        let bytes = self.bytes.download()?;
        Ok(bytes.chunks_exact(T::C_SIZE).map(T::read_c).collect())
    }
}

impl<T: DeviceValue> sealed::Sealed for DeviceTuples<T> {}
impl<T: DeviceValue> ValueArray<T> for DeviceTuples<T> {
    fn download(&self) -> Result<Vec<T>> {
        DeviceTuples::download(self)
    }
    fn alloc(device: &Device, len: usize) -> Result<Self> {
        Ok(DeviceTuples {
            bytes: device.new_array(len.saturating_mul(T::C_SIZE))?,
            len,
            _values: std::marker::PhantomData,
        })
    }
    fn from_values(device: &Device, values: &[T]) -> Result<Self> {
        let mut bytes = super::host_vec(values.len().saturating_mul(T::C_SIZE), 0u8)?;
        for (v, out) in values.iter().zip(bytes.chunks_exact_mut(T::C_SIZE)) {
            v.write_c(out);
        }
        Ok(DeviceTuples {
            bytes: device.upload(&bytes)?,
            len: values.len(),
            _values: std::marker::PhantomData,
        })
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        self.bytes.truncate(self.len * T::C_SIZE);
    }
}

impl Device {
    /// Copies values of any value type to the device, in C layout: arrays of tuples and of
    /// `#[derive(DeviceValue)]` structs (scalars have [`Device::upload`] and `DeviceVec`).
    /// Such an array is brought back with `download`; it is the input of the sorts by a
    /// comparator of two values ([`Device::sort_by`], [`Device::argsort_by`]) and the output
    /// of the `_into` forms of operations returning tuples. The other operations read arrays
    /// of scalars and zips of them (`&(&xs, &ys)`), which a map can turn into tuples or
    /// structs; passing a `DeviceTuples` to `reduce` does not compile.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let pairs = dev.upload_values(&[(1.5f32, 7u8), (-2.0, 255)])?;
    /// assert_eq!(pairs.download()?, vec![(1.5, 7), (-2.0, 255)]);
    /// # Ok(()) }
    /// ```
    pub fn upload_values<T: DeviceValue>(&self, values: &[T]) -> Result<DeviceTuples<T>> {
        DeviceTuples::from_values(self, values)
    }
}
