//! Arrays on a device: [`DeviceVec`] and its views [`DeviceView`], arrays of tuples
//! ([`DeviceTuples`]), results left on the device ([`DeviceScalar`]), where operations write
//! arrays ([`OutputArray`]), the caller's cudarc memory, and the transfers between the host
//! and a `Device`.

mod output;
mod scalar;
mod tuples;

use std::borrow::Cow;
use std::ops::{Bound, RangeBounds};

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceSlice as _};

use crate::backend::Backend;
pub(crate) use crate::backend::cuda::{Columns, GatherCols};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::values::Element;

pub use output::OutputArray;
pub(crate) use output::{Target, write_host};
pub use scalar::{DeviceScalar, Readout};
pub(crate) use scalar::{Held, ScalarInner};
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
    pub fn as_slice(&self) -> DeviceView<'_, T> {
        DeviceView {
            vec: self,
            start: 0,
            len: self.len(),
        }
    }

    /// A view of `range` (any start: views need no alignment). Out-of-bounds ranges are an
    /// [`Error::Shape`].
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, T>> {
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
}

/// A view of part of a [`DeviceVec`] (`xs.slice(range)`), an input of every operation. Its
/// name does not clash with cudarc's `DeviceSlice` trait: `use cudarc::driver::*;` and
/// `use warp_runtime::prelude::*;` go together.
#[derive(Clone, Copy)]
pub struct DeviceView<'a, T: Element> {
    pub(crate) vec: &'a DeviceVec<T>,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl<T: Element> std::fmt::Debug for DeviceView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceView<{}>({}..{})",
            T::NAME,
            self.start,
            self.start + self.len
        )
    }
}

impl<'a, T: Element> DeviceView<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A sub-view; `range` is relative to this view.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'a, T>> {
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
        Ok(DeviceView {
            vec: self.vec,
            start: self.start + lo,
            len: hi - lo,
        })
    }

    /// Copies the elements back to the host (waiting for the work queued before).
    pub fn download(&self) -> Result<Vec<T>> {
        match &self.vec.storage {
            Storage::Cpu(v) => Ok(v[self.start..self.start + self.len].to_vec()),
            Storage::Gpu(_) => self.vec.device.gpu()?.download(&self.gpu()?),
        }
    }

    /// The view's GPU memory (an error for CPU memory).
    pub(crate) fn gpu(&self) -> Result<CudaView<'a, T>> {
        match &self.vec.storage {
            Storage::Gpu(s) => Ok(s.slice(self.start..self.start + self.len)),
            Storage::Cpu(_) => Err(Error::DeviceMismatch),
        }
    }

    /// The view as the operations read it.
    pub(crate) fn elements(&self) -> Elements<'a, T> {
        let owner = Owner::Device(&self.vec.device);
        match &self.vec.storage {
            Storage::Gpu(s) => {
                Elements::gpu_column(s.slice(self.start..self.start + self.len), owner)
            }
            Storage::Cpu(v) => Elements {
                data: Data::Cpu(Cow::Borrowed(&v[self.start..self.start + self.len])),
                owners: vec![owner],
                count: None,
            },
        }
    }
}

/// Elements an operation reads, wherever they are: a view of a `DeviceVec` or the caller's
/// cudarc memory (`CudaSlice`, `CudaView`), or several such arrays zipped (rows `R` that are
/// tuples, one field per array).
#[doc(hidden)]
pub struct Elements<'a, R: Clone> {
    data: Data<'a, R>,
    /// Whose memory each array is.
    owners: Vec<Owner<'a>>,
    /// A device-resident length (`input.take(&count)`), if any.
    count: Option<Counted>,
}

/// A device-resident length of elements: the kernels read the first `scalar` of them, the CPU
/// backend the first `rows` (read when the input was made; `None` on a GPU, where only the
/// kernels read it). The elements' `len` stays the
/// whole input's (what outputs and grids are sized by). An operation reads such elements only
/// once it has `admitted` them (the operations whose kernels stop at a device length); the
/// others refuse.
#[derive(Clone)]
struct Counted {
    scalar: DeviceScalar<u64>,
    rows: Option<usize>,
    admitted: bool,
}

/// What an operation that does not take a device-resident length says of one.
const COUNT_REFUSED: &str = "a device-resident length (`input.take(&count)`) is an input of reductions (`reduce`, `reduce_on_device`, `reduce_into`), `count`, `any`, `all`, `find_first`, compaction (`filter`, `argwhere`, `partition` and their `_into` forms), histograms, `collect_into`, `scan_into` and `exclusive_scan_into`, not of this operation";

enum Data<'a, R: Clone> {
    /// One view per array, as bytes (each holds `len` elements of its type).
    Gpu(Columns<'a>),
    /// The rows (zipped arrays' rows are gathered on the host).
    Cpu(Cow<'a, [R]>),
    /// Arrays that cannot be zipped: every operation reports it.
    Invalid(Invalid),
}

/// Why arrays cannot be zipped.
#[derive(Clone, Debug)]
enum Invalid {
    /// Their lengths differ (the message says how) or a view could not be made.
    Shape(String),
    /// Some are on a GPU and some on the CPU backend.
    Backends,
    /// An operation the elements cannot be the input of (the message says why).
    Unsupported(String),
    /// A gather's index (found on the host, by the CPU backend) is out of range.
    Index {
        position: usize,
        index: u64,
        len: usize,
    },
}

impl Invalid {
    fn error(&self) -> Error {
        match self {
            Invalid::Shape(m) => Error::Shape(m.clone()),
            Invalid::Backends => Error::DeviceMismatch,
            Invalid::Unsupported(m) => Error::Unsupported(m.clone()),
            &Invalid::Index {
                position,
                index,
                len,
            } => Error::IndexOutOfRange {
                position,
                index,
                len,
            },
        }
    }
}

/// Whose memory elements are.
#[derive(Clone, Copy)]
enum Owner<'a> {
    /// A `Device`'s (the same device, or a device of the same GPU context, may read it).
    Device(&'a Device),
    /// The caller's memory of a CUDA context (its raw handle, as an address).
    Context(usize),
}

impl<R: Clone> Clone for Elements<'_, R> {
    fn clone(&self) -> Self {
        Elements {
            data: match &self.data {
                Data::Gpu(c) => Data::Gpu(c.reborrow()),
                Data::Cpu(s) => Data::Cpu(s.clone()),
                Data::Invalid(e) => Data::Invalid(e.clone()),
            },
            owners: self.owners.clone(),
            count: self.count.clone(),
        }
    }
}

impl<R: Clone> std::fmt::Debug for Elements<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Elements(len {}, {} arrays)",
            self.len(),
            self.owners.len()
        )
    }
}

impl<'a, T: Element> Elements<'a, T> {
    /// One GPU array.
    fn gpu_column(view: CudaView<'a, T>, owner: Owner<'a>) -> Elements<'a, T> {
        let len = view.len();
        // SAFETY: every `Element` is plain data without invalid bit patterns as bytes; the byte
        // view covers exactly the `len` elements of `view` and keeps its lifetime and events.
        let bytes = unsafe { view.transmute::<u8>(len * std::mem::size_of::<T>()) };
        let data = match bytes {
            Some(b) => Data::Gpu(Columns {
                views: vec![b],
                sizes: vec![std::mem::size_of::<T>()],
                len,
                starts: Vec::new(),
                gather: None,
                step: None,
                len_at: None,
            }),
            None => Data::Invalid(Invalid::Shape(
                "a device array could not be viewed as bytes".into(),
            )),
        };
        Elements {
            data,
            owners: vec![owner],
            count: None,
        }
    }

    /// The indices `start .. start + len` of a generated range on `device` (an [`IndexInt`]
    /// type): nothing on a GPU (the kernels make each index), the indices themselves on the
    /// CPU backend.
    pub(crate) fn counting(device: &'a Device, start: u64, len: usize) -> Elements<'a, T>
    where
        T: crate::values::IndexInt,
    {
        let data = match &*device.backend {
            Backend::Gpu(_) => Data::Gpu(Columns {
                views: Vec::new(),
                sizes: vec![std::mem::size_of::<T>()],
                len,
                starts: vec![Some(start)],
                gather: None,
                step: None,
                len_at: None,
            }),
            Backend::Cpu => {
                let mut v = Vec::new();
                if v.try_reserve_exact(len).is_err() {
                    Data::Invalid(Invalid::Shape(format!(
                        "the CPU backend cannot hold the {len} indices of a range"
                    )))
                } else {
                    v.extend((0..len as u64).map(|i| T::from_index(start.wrapping_add(i))));
                    Data::Cpu(Cow::Owned(v))
                }
            }
        };
        Elements {
            data,
            owners: vec![Owner::Device(device)],
            count: None,
        }
    }

    /// The elements of `values` (one array) at the positions `idx` names, in `idx`'s order:
    /// on a GPU both arrays, read by the kernels, which check each index (the fault word an
    /// operation arms, see `Device::with_input`); on the CPU backend the elements themselves,
    /// the first index out of range an [`Error::IndexOutOfRange`] of every operation.
    pub(crate) fn gather<I>(values: Elements<'a, T>, idx: Elements<'a, I>) -> Elements<'a, T>
    where
        I: Element + Into<u64>,
    {
        let mut owners = values.owners.clone();
        owners.extend(idx.owners.iter().copied());
        let data = match (values.data, idx.data) {
            (Data::Invalid(e), _) | (_, Data::Invalid(e)) => Data::Invalid(e),
            (Data::Gpu(v), Data::Gpu(ix)) => {
                let values_len = v.len as u64;
                let mut views = v.views;
                views.extend(ix.views);
                Data::Gpu(Columns {
                    views,
                    sizes: vec![std::mem::size_of::<T>(), std::mem::size_of::<I>()],
                    len: ix.len,
                    starts: Vec::new(),
                    gather: Some(GatherCols {
                        values_len,
                        fault: 0,
                    }),
                    step: None,
                    len_at: None,
                })
            }
            (Data::Cpu(v), Data::Cpu(ix)) => {
                let mut rows = Vec::new();
                if rows.try_reserve_exact(ix.len()).is_err() {
                    Data::Invalid(Invalid::Shape(format!(
                        "the CPU backend cannot hold the {} elements of a gather",
                        ix.len()
                    )))
                } else {
                    let bad = ix.iter().enumerate().find_map(|(position, &j)| {
                        let index: u64 = j.into();
                        match usize::try_from(index).ok().and_then(|k| v.get(k)) {
                            Some(&e) => {
                                rows.push(e);
                                None
                            }
                            None => Some(Invalid::Index {
                                position,
                                index,
                                len: v.len(),
                            }),
                        }
                    });
                    match bad {
                        Some(e) => Data::Invalid(e),
                        None => Data::Cpu(Cow::Owned(rows)),
                    }
                }
            }
            _ => Data::Invalid(Invalid::Backends),
        };
        Elements {
            data,
            owners,
            count: None,
        }
    }

    /// Every `step`-th element of `values` (one array) from its first: on a GPU the array and
    /// the step, read by the kernels; on the CPU backend the elements themselves.
    pub(crate) fn strided(values: Elements<'a, T>, step: usize) -> Elements<'a, T> {
        let owners = values.owners.clone();
        let data = match values.data {
            Data::Invalid(e) => Data::Invalid(e),
            Data::Gpu(v) => Data::Gpu(Columns {
                len: v.len.div_ceil(step),
                step: Some(step as u64),
                ..v
            }),
            Data::Cpu(v) => Data::Cpu(Cow::Owned(v.iter().step_by(step).copied().collect())),
        };
        Elements {
            data,
            owners,
            count: None,
        }
    }

    /// The caller's GPU memory.
    pub(crate) fn cuda(view: CudaView<'a, T>) -> Elements<'a, T> {
        let owner = Owner::Context(view.stream().context().cu_ctx() as usize);
        Elements::gpu_column(view, owner)
    }

    /// The GPU memory of the one array (an error for CPU memory).
    pub(crate) fn gpu(&self) -> Result<CudaView<'a, T>> {
        let cols = self.columns()?;
        // SAFETY: the bytes are those of `len` elements of `T` (made by `gpu_column` from a
        // view of `T`), so viewing them as `T` again is exact.
        unsafe { cols.views[0].transmute::<T>(cols.len) }
            .ok_or_else(|| Error::Shape("a device array could not be viewed as elements".into()))
    }
}

impl<'a, R: Clone> Elements<'a, R> {
    /// A gather's elements on a GPU, read through `idx` instead of its indices (as many, of
    /// the same type: a permutation of them); other elements as they are.
    pub(crate) fn with_indices<'b>(&self, idx: CudaView<'b, u8>) -> Elements<'b, R>
    where
        'a: 'b,
    {
        let data = match &self.data {
            Data::Gpu(c) if c.gather.is_some() => {
                let mut c: Columns<'b> = c.reborrow();
                c.views[1] = idx;
                Data::Gpu(c)
            }
            Data::Gpu(c) => Data::Gpu(c.reborrow()),
            Data::Cpu(rows) => Data::Cpu(rows.clone()),
            Data::Invalid(e) => Data::Invalid(e.clone()),
        };
        Elements {
            data,
            owners: self.owners.clone(),
            count: self.count.clone(),
        }
    }

    /// Number of elements (of each array).
    pub(crate) fn len(&self) -> usize {
        match &self.data {
            Data::Gpu(c) => c.len,
            Data::Cpu(s) => s.len(),
            Data::Invalid(_) => 0,
        }
    }

    /// `true` when empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The GPU arrays (an error for CPU memory, and for a device-resident length the
    /// operation has not admitted).
    pub(crate) fn columns(&self) -> Result<Columns<'a>> {
        self.check_count()?;
        match &self.data {
            Data::Gpu(c) => Ok(c.reborrow()),
            Data::Cpu(_) => Err(Error::DeviceMismatch),
            Data::Invalid(e) => Err(e.error()),
        }
    }

    /// The rows in CPU memory (an error for GPU memory, and for a device-resident length the
    /// operation has not admitted).
    pub(crate) fn cpu(&self) -> Result<&[R]> {
        self.check_count()?;
        match &self.data {
            Data::Cpu(s) => Ok(match self.count.as_ref().and_then(|c| c.rows) {
                Some(rows) => &s[..rows],
                None => s,
            }),
            Data::Gpu(_) => Err(Error::DeviceMismatch),
            Data::Invalid(e) => Err(e.error()),
        }
    }

    /// `Error::Unsupported` for a device-resident length not admitted.
    fn check_count(&self) -> Result<()> {
        match &self.count {
            Some(c) if !c.admitted => Err(Error::Unsupported(COUNT_REFUSED.into())),
            _ => Ok(()),
        }
    }

    /// Marks a device-resident length as read by the operation's kernels (which stop at it):
    /// what the operations that take one call before they read the elements.
    pub(crate) fn admit_count(&mut self) {
        if let Some(c) = &mut self.count {
            c.admitted = true;
        }
    }

    /// The device-resident length, if any.
    pub(crate) fn count(&self) -> Option<&DeviceScalar<u64>> {
        self.count.as_ref().map(|c| &c.scalar)
    }

    /// The first `count` of these elements, `count` read where the elements are: on a GPU by
    /// the kernels (`wd_in.len`; at most the elements there are), on the CPU backend here
    /// (`cpu` then gives the rows up to it). `len` stays the whole input's. A count of another
    /// backend than the elements is an [`Error::DeviceMismatch`] of every operation; a second
    /// count an [`Error::Unsupported`].
    pub(crate) fn take(self, count: &DeviceScalar<u64>) -> Elements<'a, R> {
        let Elements {
            data,
            owners,
            count: before,
        } = self;
        let invalid = |e, owners| Elements {
            data: Data::Invalid(e),
            owners,
            count: None,
        };
        if before.is_some() {
            return invalid(
                Invalid::Unsupported("an input takes one device-resident length at most".into()),
                owners,
            );
        }
        let (data, rows) = match (data, count.held_at()) {
            (Data::Invalid(e), _) => (Data::Invalid(e), None),
            (Data::Gpu(c), Some(ptr)) => (
                Data::Gpu(Columns {
                    len_at: Some(ptr),
                    ..c
                }),
                None,
            ),
            (Data::Cpu(r), None) => match count.get() {
                Ok(n) => {
                    let rows = n.min(r.len() as u64) as usize;
                    (Data::Cpu(r), Some(rows))
                }
                Err(e) => return invalid(Invalid::Shape(e.to_string()), owners),
            },
            _ => (Data::Invalid(Invalid::Backends), None),
        };
        Elements {
            data,
            owners,
            count: Some(Counted {
                scalar: count.clone(),
                rows,
                admitted: false,
            }),
        }
    }
}

/// Zips equally long arrays into one input of tuple rows (`zip2`, `zip3`, `zip4`).
macro_rules! zip_elements {
    ($fn:ident: $($t:ident $v:ident $i:tt),+) => {
        /// Zips equally long arrays: a length mismatch, or arrays on different backends, make
        /// every operation on the result fail with [`Error::Shape`] / [`Error::DeviceMismatch`].
        pub(crate) fn $fn<'a, $($t: Copy),+>($($v: Elements<'a, $t>),+) -> Elements<'a, ($($t,)+)> {
            let lens = [$($v.len()),+];
            let mut owners = Vec::new();
            $( owners.extend($v.owners.iter().copied()); )+
            let invalid = |e| Elements { data: Data::Invalid(e), owners: owners.clone(), count: None };
            $( if let Data::Invalid(e) = &$v.data { return invalid(e.clone()); } )+
            if lens.iter().any(|&l| l != lens[0]) {
                return invalid(Invalid::Shape(format!(
                    "zipped arrays must be equally long; their lengths are {lens:?}"
                )));
            }
            match ($(&$v.data,)+) {
                ($(Data::Gpu($v),)+) => {
                    let mut views = Vec::new();
                    let mut sizes = Vec::new();
                    // A generated range's start where its column is; `None` for an array.
                    let mut starts = Vec::new();
                    $(
                        views.extend($v.views.iter().map(|v| v.slice(..)));
                        sizes.extend($v.sizes.iter().copied());
                        match $v.starts.is_empty() {
                            true => starts.extend($v.sizes.iter().map(|_| None)),
                            false => starts.extend($v.starts.iter().copied()),
                        }
                    )+
                    if starts.iter().all(Option::is_none) {
                        starts.clear();
                    }
                    Elements { data: Data::Gpu(Columns { views, sizes, len: lens[0], starts, gather: None, step: None, len_at: None }), owners, count: None }
                }
                ($(Data::Cpu($v),)+) => {
                    let rows = (0..lens[0]).map(|i| ($($v[i],)+)).collect();
                    Elements { data: Data::Cpu(Cow::Owned(rows)), owners, count: None }
                }
                _ => invalid(Invalid::Backends),
            }
        }
    };
}
zip_elements!(zip2: A a 0, B b 1);
zip_elements!(zip3: A a 0, B b 1, C c 2);
zip_elements!(zip4: A a 0, B b 1, C c 2, D d 3);

impl<T: Element> DeviceVec<T> {
    /// The caller's cudarc memory as a `DeviceVec` of `device`, without a copy: `slice` must
    /// be memory of `device`'s GPU context (else [`Error::DeviceMismatch`]). Operations on
    /// `device` then run on its stream; cudarc's event tracking keeps the order of reads and
    /// writes across streams (unless the caller turned it off).
    ///
    /// ```no_run
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cuda(0)?;
    /// let stream = dev.cuda_stream().expect("a GPU");
    /// let raw = stream.clone_htod(&[1.0f32, 2.0]).expect("copied");
    /// let xs = DeviceVec::from_cuda(&dev, raw)?;     // the same memory
    /// let back: cudarc::driver::CudaSlice<f32> = xs.into_cuda()?; // and back
    /// # Ok(()) }
    /// ```
    pub fn from_cuda(device: &Device, slice: CudaSlice<T>) -> Result<DeviceVec<T>> {
        let gpu = device.gpu()?;
        if !gpu.owns(slice.context()) {
            return Err(Error::DeviceMismatch);
        }
        let len = slice.len();
        Ok(DeviceVec::from_storage(device, Storage::Gpu(slice), len))
    }

    /// The array's GPU memory as a cudarc `CudaSlice`, without a copy (an error on the CPU
    /// backend). Its length is the array's, also for `filter` results (which live at the
    /// start of an allocation sized for the whole input). Work queued on the device that
    /// writes it is ordered before the slice's later uses on other streams (cudarc's events).
    pub fn into_cuda(self) -> Result<CudaSlice<T>> {
        let len = self.len;
        match self.storage {
            Storage::Gpu(s) if s.len() == len => Ok(s),
            Storage::Gpu(s) => {
                let stream = s.stream().clone();
                let ptr = s.leak();
                // SAFETY: `ptr` is the start of the allocation, which holds more than `len`
                // elements of `T`, written by this device's kernels; the new slice owns it
                // (and frees it) from now on.
                let mut t = unsafe { stream.upgrade_device_ptr::<T>(ptr, len) };
                // Records the slice's write event after the work queued so far.
                let _ = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut t, &stream);
                Ok(t)
            }
            Storage::Cpu(_) => Err(Error::DeviceMismatch),
        }
    }

    /// Keeps the first `len` elements (of a compaction's worst-case output).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
        if let Storage::Cpu(v) = &mut self.storage {
            v.truncate(self.len);
        }
    }
}

/// `len` copies of `value` in host memory for a CPU-backend result, or
/// [`Error::OutOfMemory`] when the allocation fails (a result's length can come from the
/// caller, as `reduce_cols`' column count over an empty input).
pub(crate) fn host_vec<T: Clone>(len: usize, value: T) -> Result<Vec<T>> {
    let mut v = host_reserve(len)?;
    v.resize(len, value);
    Ok(v)
}

/// A copy of `data` in host memory for the CPU backend, or [`Error::OutOfMemory`].
pub(crate) fn host_copy<T: Clone>(data: &[T]) -> Result<Vec<T>> {
    let mut v = host_reserve(data.len())?;
    v.extend_from_slice(data);
    Ok(v)
}

fn host_reserve<T>(len: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory {
        bytes: len.saturating_mul(std::mem::size_of::<T>()),
        free: 0,
    })?;
    Ok(v)
}

impl Device {
    /// A new array of `len` elements for an operation to write (unset on a GPU, zero on the
    /// CPU backend).
    pub(crate) fn new_array<T: Element>(&self, len: usize) -> Result<DeviceVec<T>> {
        match &*self.backend {
            Backend::Gpu(_) => DeviceVec::alloc_gpu(self, len),
            Backend::Cpu => Ok(DeviceVec::from_storage(
                self,
                Storage::Cpu(host_vec(len, T::default())?),
                len,
            )),
        }
    }

    /// Copies `data` to the device.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceVec<T>> {
        let storage = match &*self.backend {
            Backend::Gpu(g) => Storage::Gpu(g.upload(data)?),
            Backend::Cpu => Storage::Cpu(host_copy(data)?),
        };
        Ok(DeviceVec::from_storage(self, storage, data.len()))
    }

    /// An error unless `elems` is memory this device may read: its own, a device's of the
    /// same GPU context, or the caller's memory of that context.
    pub(crate) fn check_elements<R: Clone>(&self, elems: &Elements<'_, R>) -> Result<()> {
        if let Data::Invalid(e) = &elems.data {
            return Err(e.error());
        }
        for owner in &elems.owners {
            let ok = match (*owner, &*self.backend) {
                (Owner::Device(d), _) => self.shares_memory_with(d),
                (Owner::Context(ctx), Backend::Gpu(g)) => g.context().cu_ctx() as usize == ctx,
                (Owner::Context(_), Backend::Cpu) => false,
            };
            if !ok {
                return Err(Error::DeviceMismatch);
            }
        }
        Ok(())
    }
}
