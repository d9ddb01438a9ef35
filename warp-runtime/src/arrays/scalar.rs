//! Results left on the device: [`DeviceScalar`], what the `_on_device` operations return
//! without waiting, read later (waiting for that result only) or bound as a parameter of a
//! later map or predicate (read by its kernel, no round trip).

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use crate::backend::cuda::memory::{SLOT_BYTES, Slot};
use crate::device::Device;
use crate::error::Result;
use crate::values::DeviceValue;

mod sealed {
    pub trait Sealed {}
}

/// A value a [`DeviceScalar`] can hold: an operator's value (scalar or tuple), or the
/// `Option<usize>` of `find_first`.
pub trait Readout: sealed::Sealed + Sized + Send + Sync + 'static {
    /// Bytes of its device representation.
    #[doc(hidden)]
    const BYTES: usize;
    /// Reads it from its device representation.
    #[doc(hidden)]
    fn decode(bytes: &[u8]) -> Self;
}

impl<T: DeviceValue> sealed::Sealed for T {}
impl<T: DeviceValue> Readout for T {
    const BYTES: usize = T::C_SIZE;
    fn decode(bytes: &[u8]) -> T {
        T::read_c(bytes)
    }
}

impl sealed::Sealed for Option<usize> {}
/// On the device, the complement of the index (0: none).
impl Readout for Option<usize> {
    const BYTES: usize = 8;
    fn decode(bytes: &[u8]) -> Option<usize> {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[..8]);
        let c = u64::from_ne_bytes(b);
        (c != 0).then_some(!c as usize)
    }
}

/// Where a result is.
pub(crate) enum Held {
    /// On the CPU backend: the bytes themselves.
    Host([u8; SLOT_BYTES]),
    /// In a result slot of a GPU, written by work queued on its device's stream; read once.
    Gpu {
        slot: Slot,
        read: OnceLock<[u8; SLOT_BYTES]>,
    },
}

pub(crate) struct ScalarInner {
    pub(crate) device: Device,
    pub(crate) held: Held,
}

/// A result left on the device by an `_on_device` operation (`reduce_on_device`,
/// `count_on_device`, ...): the operation returned without waiting for its kernels.
///
/// - [`DeviceScalar::get`] waits for the work that computes this result (and what was queued
///   before it on the same device), not for work queued after it, then reads it; later calls
///   return the value read.
/// - `pred.with(&scalar)` / `map.with(&scalar)` bind it as a parameter of a later predicate or
///   map: the kernel reads it from device memory, with no round trip to the host. On the same
///   `Device` (stream) the later kernel runs after the one that wrote it; on another `Device`
///   of the same GPU the later one waits for it (an event).
///
/// Clones share the result. The slot holding it is reused once every clone is dropped.
///
/// ```
/// use warp_runtime::prelude::*;
/// #[reduce(identity = 0.0)]
/// fn sum(a: f32, b: f32) -> f32 { a + b }
/// #[predicate]
/// fn above(x: f32, t: f32) -> bool { x > t }
/// # fn main() -> warp_runtime::Result<()> {
/// let dev = Device::cpu();
/// let xs = dev.upload(&[1.0f32, 2.0, 6.0])?;
/// let total = dev.reduce_on_device(sum, &xs)?;       // queued, not waited for
/// let n = dev.count(above.with(&total), &xs)?;       // the kernel reads `total` itself
/// assert_eq!((total.get()?, n), (9.0, 0));
/// # Ok(()) }
/// ```
pub struct DeviceScalar<T> {
    inner: Arc<ScalarInner>,
    _value: PhantomData<fn() -> T>,
}

impl<T> Clone for DeviceScalar<T> {
    fn clone(&self) -> Self {
        DeviceScalar {
            inner: self.inner.clone(),
            _value: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for DeviceScalar<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceScalar<{}>(on {})",
            std::any::type_name::<T>(),
            self.inner.device.describe()
        )
    }
}

impl<T: Readout> DeviceScalar<T> {
    /// A result computed on the CPU backend.
    pub(crate) fn on_host(device: &Device, value: &[u8]) -> DeviceScalar<T> {
        let mut bytes = [0u8; SLOT_BYTES];
        bytes[..value.len()].copy_from_slice(value);
        DeviceScalar::from_inner(ScalarInner {
            device: device.clone(),
            held: Held::Host(bytes),
        })
    }

    /// A result the work queued on `device` writes into `slot` (marked written after it).
    pub(crate) fn on_gpu(device: &Device, slot: Slot) -> DeviceScalar<T> {
        DeviceScalar::from_inner(ScalarInner {
            device: device.clone(),
            held: Held::Gpu {
                slot,
                read: OnceLock::new(),
            },
        })
    }

    fn from_inner(inner: ScalarInner) -> DeviceScalar<T> {
        DeviceScalar {
            inner: Arc::new(inner),
            _value: PhantomData,
        }
    }

    /// The value: waits for the work that computes it (not for work queued after it), then
    /// copies it to the host (once; later calls return the value read). A result the waiting
    /// forms (`reduce`, `count`, `any`, ...) produce lives in page-locked host memory that the
    /// kernel writes directly, and the counts of `filter_into` and `partition_into` (kept in
    /// device memory for later kernels) are written there too: the wait polls it, keeping one
    /// CPU core busy until the value arrives (or the launch is found to have failed, which is
    /// the error returned).
    pub fn get(&self) -> Result<T> {
        Ok(T::decode(&self.inner.bytes()?))
    }

    /// Whether the value is computed (never waits). Always `true` on the CPU backend.
    pub fn is_ready(&self) -> bool {
        match &self.inner.held {
            Held::Host(_) => true,
            Held::Gpu { slot, read } => read.get().is_some() || slot.is_ready(),
        }
    }

    /// The device holding it.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The same result read as a `U` (a value stored in `U`'s device form).
    pub(crate) fn retype<U>(self) -> DeviceScalar<U> {
        DeviceScalar {
            inner: self.inner,
            _value: PhantomData,
        }
    }

    /// The device address of the result's slot, or `None` for a result on the CPU backend.
    pub(crate) fn held_at(&self) -> Option<u64> {
        match &self.inner.held {
            Held::Host(_) => None,
            Held::Gpu { slot, .. } => Some(slot.ptr),
        }
    }

    /// The shared result (for binding).
    pub(crate) fn inner(&self) -> &Arc<ScalarInner> {
        &self.inner
    }
}

impl ScalarInner {
    /// The bytes of the result, read from the device the first time.
    pub(crate) fn bytes(&self) -> Result<[u8; SLOT_BYTES]> {
        match &self.held {
            Held::Host(b) => Ok(*b),
            Held::Gpu { slot, read } => {
                if let Some(b) = read.get() {
                    return Ok(*b);
                }
                let mut b = [0u8; SLOT_BYTES];
                match slot.read_mapped(&mut b) {
                    Some(done) => done?,
                    None => self
                        .device
                        .gpu()?
                        .read_bytes(slot.ptr, slot.event(), &mut b)?,
                }
                Ok(*read.get_or_init(|| b))
            }
        }
    }
}
