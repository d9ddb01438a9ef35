//! Maps written out (`map`, into a new array or the caller's: `_into`), `copy` (likewise), and
//! `collect`: the values of any element input written out.

use super::keys::*;
use super::{gpu_bytes, uncounted};
use crate::arrays::DeviceVec;
use crate::arrays::{ArrayOf, OutputArray, Target, write_host};
use crate::backend::cpu;
use crate::backend::cuda::{Staged, ValuesOut};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{Array, AsSlice, ElementInput, element_stage};
use crate::operators::MapOp;
use crate::values::DeviceValue;

impl Device {
    /// A copy of `src` (a `DeviceVec`, a view of one, or the caller's `CudaSlice` /
    /// `CudaView`) in new memory of this device. Allocates and waits for the copy;
    /// [`Device::copy_into`] copies into the caller's array, allocating nothing and waiting
    /// for nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1u8, 2, 3])?;
    /// assert_eq!(dev.copy(&xs)?.download()?, [1, 2, 3]);
    /// assert_eq!(dev.copy(&xs.slice(1..)?)?.download()?, [2, 3]);
    /// # Ok(()) }
    /// ```
    pub fn copy<A: Array + ?Sized>(&self, src: &A) -> Result<DeviceVec<A::Elem>> {
        let mut out = self.new_array(src.array().len())?;
        self.copy_into(src, &mut out)?;
        self.synchronize()?;
        Ok(out)
    }

    /// [`Device::copy`] into `out` (as long as the input, else [`Error::Shape`]), allocating
    /// nothing: the caller's `DeviceVec`, or its `CudaSlice` / `CudaViewMut` of this device's
    /// GPU context. One device-to-device copy on the device's stream (`cuMemcpyDtoDAsync`);
    /// returns without waiting for it. On the CPU backend, the elements are copied at once.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
    /// let mut out = dev.upload(&[0.0f32; 3])?;
    /// dev.copy_into(&xs.slice(1..)?, &mut out)?;
    /// assert_eq!(out.download()?, [2.0, 3.0, 4.0]);
    /// assert!(dev.copy_into(&xs, &mut out).is_err()); // 4 elements into 3
    /// # Ok(()) }
    /// ```
    pub fn copy_into<A, O>(&self, input: &A, out: &mut O) -> Result<()>
    where
        A: Array + ?Sized,
        O: OutputArray<A::Elem> + ?Sized,
    {
        let elems = input.array();
        self.check_elements(&elems)?;
        let target = self.output(out, elems.len(), "copy")?;
        if elems.is_empty() {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                write_host(bytes, elems.cpu()?);
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let mut bytes = gpu_bytes(t)?;
                // The input as bytes (one array: one column), exactly as many as the output's.
                let cols = elems.columns()?;
                let src = cols
                    .views
                    .first()
                    .ok_or_else(|| Error::Shape("copy: the input has no device array".into()))?;
                let timer = g.start_timing()?;
                g.stream()
                    .memcpy_dtod(src, &mut bytes)
                    .map_err(|e| Error::driver("copying on the device", e))?;
                g.stop_timing(timer)
            }
        }
    }

    /// `map` of every element of `input`, written out: a [`DeviceVec`](crate::DeviceVec) for
    /// a scalar result, a [`DeviceTuples`](crate::DeviceTuples) for a tuple one. One pass;
    /// returns without waiting for the kernel. (Consumers that only read the mapped values
    /// take `xs.map(f)` instead, fused, with nothing written.)
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn scale(x: f32, k: f32) -> f32 { x * k }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1.0f32, 2.0, 3.0])?;
    /// assert_eq!(dev.map(scale.with(2.0), &xs)?.download()?, vec![2.0, 4.0, 6.0]);
    /// # Ok(()) }
    /// ```
    pub fn map<M, S>(&self, map: M, input: &S) -> Result<<M::Output as ArrayOf>::Array>
    where
        M: MapOp,
        M::Output: ArrayOf,
        S: AsSlice<M::Input> + ?Sized,
    {
        let mut out = self.value_array::<M::Output>(input.elements().len())?;
        self.map_into(map, input, &mut out)?;
        Ok(out)
    }

    /// [`Device::map`] into `out` (as long as the input), allocating nothing.
    pub fn map_into<M, S, O>(&self, map: M, input: &S, out: &mut O) -> Result<()>
    where
        M: MapOp,
        S: AsSlice<M::Input> + ?Sized,
        O: OutputArray<M::Output> + ?Sized,
    {
        let elems = input.elements();
        self.check_elements(&elems)?;
        let args = map.args();
        self.check_bound(&args)?;
        let target = self.output(out, elems.len(), "map")?;
        if elems.is_empty() {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                write_host(bytes, &cpu::values(elems.cpu()?, |e, _| map.apply(e)));
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(map_key::<M>(), map_module::<M>)?;
                let bytes = gpu_bytes(t)?;
                self.with_bound(g, &args, |args| {
                    g.map_values(
                        Staged {
                            module: &module,
                            input: elems.columns()?,
                            args,
                        },
                        ValuesOut {
                            bytes,
                            value_size: M::Output::C_SIZE,
                        },
                    )
                })
            }
        }
    }
}

impl Device {
    /// The values of any element input written out, in order, into new memory of this device:
    /// a [`DeviceVec`](crate::DeviceVec) for scalar values, a
    /// [`DeviceTuples`](crate::DeviceTuples) for tuples. What `map` and `copy` do for arrays,
    /// for every input: a generated range (`dev.collect(&dev.range(0..n))` is PyTorch's
    /// `arange`, `.map(f)` of it a tabulation), a gather (`x[idx]`), a strided view
    /// (`x[::step]`), zipped arrays (their rows), maps of any of these and maps of maps. One
    /// pass; returns without waiting for the kernel, except over a gather, whose indices it
    /// checks after the kernel ([`Error::IndexOutOfRange`]).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[map]
    /// fn square(i: u32) -> u64 { i as u64 * i as u64 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// assert_eq!(dev.collect(&dev.range(3u32..7))?.download()?, [3, 4, 5, 6]);
    /// assert_eq!(dev.collect(&dev.range(0u32..4).map(square))?.download()?, [0, 1, 4, 9]);
    /// let xs = dev.upload(&[10.0f32, 20.0, 30.0, 40.0, 50.0])?;
    /// let idx = dev.upload(&[4u32, 0, 0])?;
    /// assert_eq!(dev.collect(&xs.gather(&idx))?.download()?, [50.0, 10.0, 10.0]);
    /// assert_eq!(dev.collect(&xs.step_by(2)?)?.download()?, [10.0, 30.0, 50.0]);
    /// # Ok(()) }
    /// ```
    pub fn collect<I>(&self, input: &I) -> Result<<I::Value as ArrayOf>::Array>
    where
        I: ElementInput + ?Sized,
        I::Value: ArrayOf,
    {
        let n = uncounted(&input.elements(), "collect")?;
        let mut out = self.value_array::<I::Value>(n)?;
        self.collect_into(input, &mut out)?;
        Ok(out)
    }

    /// [`Device::collect`] into `out` (as long as the input, else [`Error::Shape`]),
    /// allocating nothing.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let mut out = dev.upload(&[0u64; 3])?;
    /// dev.collect_into(&dev.range(7u64..10), &mut out)?;
    /// assert_eq!(out.download()?, [7, 8, 9]);
    /// assert!(dev.collect_into(&dev.range(0u64..4), &mut out).is_err()); // 4 into 3
    /// # Ok(()) }
    /// ```
    pub fn collect_into<I, O>(&self, input: &I, out: &mut O) -> Result<()>
    where
        I: ElementInput + ?Sized,
        O: OutputArray<I::Value> + ?Sized,
    {
        let Checked { elems, args } = self.element_prologue(input, &[])?.admitting_count();
        let target = self.output(out, elems.len(), "collect")?;
        if elems.is_empty() {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                write_host(bytes, &cpu::values(elems.cpu()?, |e, _| input.value(e)));
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(collect_key::<I>(), collect_module::<I>)?;
                let bytes = gpu_bytes(t)?;
                self.with_input(g, &elems, &args, |arrays, args| {
                    g.map_values(
                        Staged {
                            module: &module,
                            input: arrays,
                            args,
                        },
                        ValuesOut {
                            bytes,
                            value_size: I::Value::C_SIZE,
                        },
                    )
                })
            }
        }
    }
}

/// The key of the collect module of inputs `I`.
fn collect_key<I: ElementInput + ?Sized>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Collect,
        [
            TypeId::of::<I::Map>(),
            TypeId::of::<I::Value>(),
            TypeId::of::<I::Elem>(),
        ],
    )
}

/// The CUDA module of [`Device::collect`] over inputs of type `I`: the map kernel over the
/// input's stage.
///
/// ```
/// use warp_runtime::DeviceRange;
/// use warp_runtime::impl_::collect_module;
/// assert!(collect_module::<DeviceRange<'static, u64>>().source.contains("wd_k_map("));
/// ```
pub fn collect_module<I: ElementInput + ?Sized>() -> ModuleSource {
    let stage = element_stage(I::MAP, I::ORIGIN);
    let text = input_source(stage, <I::Elem as Row>::COLUMNS, I::THEN, None, |s| {
        module::collect_module(s)
    });
    let name = match I::THEN.or(I::MAP) {
        Some(m) => format!("collect_{}", &m.fragment.name),
        None => "collect".to_string(),
    };
    composed(location(&name, file!(), line!()), text, false)
}

/// The key of the map module of `M` over elements `E`.
pub(crate) fn map_key<M: MapOp>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Map,
        [
            TypeId::of::<M>(),
            TypeId::of::<()>(),
            TypeId::of::<M::Input>(),
        ],
    )
}

/// The CUDA module of `map` (`Device::map`, `Device::map_into`) with a map of type `M`.
pub fn map_module<M: MapOp>() -> ModuleSource {
    let f = &M::META.fragment;
    composed(
        location(&format!("map_{}", &f.name), &f.file, f.line),
        module::map_module(f, <M::Input as Row>::COLUMNS),
        false,
    )
}
