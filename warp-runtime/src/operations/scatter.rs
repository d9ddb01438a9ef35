//! Scatters: each value written to (`scatter_into`) or combined into (`scatter_reduce_into`,
//! in histogram.rs: the weighted histogram's kernel) the place its index names, and the
//! index check both run first.

use super::gpu_bytes;
use super::keys::*;
use crate::arrays::{Elements, OutputArray, Target};
use crate::backend::cuda::Staged;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::{Array, ElementInput};
use crate::operations::BinIndex;
use crate::operators::{BoundArgs, MapOp, Predicate};
use crate::ranges::RangeIndex;
use crate::values::Element;
use crate::{map, predicate};

/// The functions of the scatters, one per index type: the index as its bin, and whether an
/// index is at or past the target's length (kept here so that the CPU and the GPU run the same
/// code).
mod index_fns {
    use super::{map, predicate};

    /// The index itself: its bin.
    #[map]
    pub fn index_bin_u32(i: u32) -> u32 {
        i
    }
    /// The index itself: its bin.
    #[map]
    pub fn index_bin_u64(i: u64) -> u64 {
        i
    }
    /// Whether the index is `len` or more.
    #[predicate]
    pub fn index_past_u32(i: u32, len: u32) -> bool {
        i >= len
    }
    /// Whether the index is `len` or more.
    #[predicate]
    pub fn index_past_u64(i: u64, len: u64) -> bool {
        i >= len
    }
}

/// The index types of [`Device::scatter_into`] and [`Device::scatter_reduce_into`]: `u32` and
/// `u64`, with their functions (see `index_fns`).
pub trait ScatterIndex: RangeIndex + BinIndex {
    /// The index as its bin.
    #[doc(hidden)]
    type Bin: MapOp<Input = Self, Output = Self>;
    /// Whether an index is at or past a length (bound).
    #[doc(hidden)]
    type Past: Predicate<Input = Self>;
    /// The bin map.
    #[doc(hidden)]
    fn bin_map() -> Self::Bin;
    /// The predicate with the target's length bound (`None`: the length does not fit the
    /// index type, so no index is past it).
    #[doc(hidden)]
    fn past(len: usize) -> Option<Self::Past>;
}

impl ScatterIndex for u32 {
    type Bin = index_fns::index_bin_u32;
    type Past = index_fns::index_past_u32_with<u32>;
    fn bin_map() -> Self::Bin {
        index_fns::index_bin_u32
    }
    fn past(len: usize) -> Option<Self::Past> {
        u32::try_from(len)
            .ok()
            .map(|l| index_fns::index_past_u32.with(l))
    }
}

impl ScatterIndex for u64 {
    type Bin = index_fns::index_bin_u64;
    type Past = index_fns::index_past_u64_with<u64>;
    fn bin_map() -> Self::Bin {
        index_fns::index_bin_u64
    }
    fn past(len: usize) -> Option<Self::Past> {
        Some(index_fns::index_past_u64.with(len as u64))
    }
}

/// Index `position` of the indices `ix` (as a `u64`).
fn idx_value<I: ScatterIndex>(dev: &Device, ix: &Elements<'_, I>, position: usize) -> Result<u64> {
    match ix.cpu() {
        Ok(host) => Ok(host[position].to_u64()),
        Err(_) => {
            let view = ix.gpu()?;
            let one = dev.gpu()?.download(&view.slice(position..position + 1))?;
            Ok(one[0].to_u64())
        }
    }
}

impl Device {
    /// Writes each of `values` to the place of `out` its index names: `out[idx[i]] =
    /// values[i]` for every `i` (PyTorch's `index_put_` and `scatter_`, NumPy's
    /// `out[idx] = values`, thrust's `scatter`). `values` and `idx` are equally long (else
    /// [`Error::Shape`]); indices are `u32` or `u64` and come in any order; places no index
    /// names keep their contents. An index at or past `out`'s length is an
    /// [`Error::IndexOutOfRange`] (the smallest such position), found before anything is
    /// written (on a GPU by a `find_first` over the indices, so the form waits for it).
    ///
    /// Where an index repeats, one of its values lands: on a GPU which one is not specified
    /// (the writes race), on the CPU backend the last in input order. For a defined choice
    /// combine them with [`Device::scatter_reduce_into`] (a `max` or `min`, or a sum). Any
    /// element type; one pass that reads the indices and the values once, coalesced, and
    /// writes each value. Returns once the indices are checked, without waiting for the
    /// scatter.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let values = dev.upload(&[1.5f32, 2.5, 3.5])?;
    /// let idx = dev.upload(&[4u32, 0, 2])?;
    /// let mut out = dev.upload(&[0.0f32; 5])?;
    /// dev.scatter_into(&values, &idx, &mut out)?;
    /// assert_eq!(out.download()?, [2.5, 0.0, 3.5, 0.0, 1.5]);
    /// let past = dev.upload(&[0u32, 5, 7])?;
    /// assert!(matches!(
    ///     dev.scatter_into(&values, &past, &mut out),
    ///     Err(Error::IndexOutOfRange { position: 1, index: 5, len: 5 })
    /// ));
    /// assert_eq!(out.download()?, [2.5, 0.0, 3.5, 0.0, 1.5]); // nothing written
    /// # Ok(()) }
    /// ```
    pub fn scatter_into<T, A, X, I, O>(&self, values: &A, idx: &X, out: &mut O) -> Result<()>
    where
        T: Element,
        A: Array<Elem = T> + ?Sized,
        I: ScatterIndex,
        X: Array<Elem = I> + ElementInput<Elem = I, Value = I> + ?Sized,
        O: OutputArray<T> + ?Sized,
    {
        let len = out.len();
        let (ix, vs) = self.scatter_prologue("scatter_into", values, idx, len)?;
        if ix.is_empty() {
            return Ok(());
        }
        match self.output(out, len, "scatter_into")? {
            Target::Cpu(bytes, _) => {
                // Each value written at its place, in input order (the last of a repeated
                // index stays); the other places are not touched.
                for (&i, &v) in ix.cpu()?.iter().zip(vs.cpu()?) {
                    let at = i.to_u64() as usize * T::C_SIZE;
                    v.write_c(&mut bytes[at..at + T::C_SIZE]);
                }
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(scatter_key::<T, I>(), scatter_module::<T, I>)?;
                let bytes = gpu_bytes(t)?;
                let values = vs.columns()?.views.remove(0);
                let input = ix.columns()?;
                self.with_bound(g, &BoundArgs::default(), |args| {
                    g.scatter(
                        Staged {
                            module: &module,
                            input,
                            args,
                        },
                        len,
                        values,
                        bytes,
                    )
                })
            }
        }
    }

    /// The prologue of both scatters (`what`): the indices and the values on this device and
    /// equally long (else [`Error::Shape`]), and every index below `len`, the output's length,
    /// or the [`Error::IndexOutOfRange`] of the first that is not (a `find_first` over the
    /// indices: on a GPU it waits for it), all before anything is written.
    pub(super) fn scatter_prologue<'a, T, A, X, I>(
        &self,
        what: &str,
        values: &'a A,
        idx: &'a X,
        len: usize,
    ) -> Result<(Elements<'a, I>, Elements<'a, T>)>
    where
        T: Element,
        A: Array<Elem = T> + ?Sized,
        I: ScatterIndex,
        X: Array<Elem = I> + ElementInput<Elem = I, Value = I> + ?Sized,
    {
        let ix = idx.array();
        self.check_elements(&ix)?;
        let vs = values.array();
        self.check_elements(&vs)?;
        if ix.len() != vs.len() {
            return Err(Error::Shape(format!(
                "{what}: {} values but {} indices",
                vs.len(),
                ix.len()
            )));
        }
        if let Some(past) = I::past(len)
            && let Some(position) = self.find_first(past, idx)?
        {
            let index = idx_value(self, &idx.array(), position)?;
            return Err(Error::IndexOutOfRange {
                position,
                index,
                len,
            });
        }
        Ok((ix, vs))
    }
}

/// The key of the scatter module of values `T` and indices `I`.
fn scatter_key<T: Element, I: ScatterIndex>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Scatter,
        [TypeId::of::<T>(), TypeId::of::<I>(), TypeId::of::<()>()],
    )
}

/// The CUDA module of [`Device::scatter_into`] with values `T` and indices `I`.
///
/// ```
/// use warp_runtime::impl_::scatter_module;
/// assert!(scatter_module::<f32, u32>().source.contains("wd_k_scatter("));
/// ```
pub fn scatter_module<T: Element, I: ScatterIndex>() -> ModuleSource {
    composed(
        location(
            &format!("scatter_{}_{}", T::NAME, I::NAME),
            file!(),
            line!(),
        ),
        module::scatter_module(T::SCALAR, I::SCALAR),
        false,
    )
}
