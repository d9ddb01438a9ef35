//! Transpose of a row-major matrix through a padded shared tile, into a new array or the
//! caller's (`_into`).

use super::keys::*;
use super::{gpu_bytes, rows_of};
use crate::arrays::{DeviceVec, Elements, OutputArray, Target, write_host};
use crate::backend::cpu;
use crate::backend::cuda::Rows;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::inputs::AsSlice;
use crate::values::Element;

impl Device {
    /// The transpose of the row-major matrix `input` (`cols` columns): a `cols x rows`
    /// row-major matrix. Through a padded shared tile (64 x 65 elements for elements of up to
    /// 8 bytes), so that both the reads and the writes are coalesced and shared memory has no
    /// bank conflicts. Its length must be a whole number of rows (else [`Error::Shape`];
    /// `cols = 0` too, even for an empty input).
    /// Returns without waiting for the kernel.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1u8, 2, 3, 4, 5, 6])?; // 2 x 3
    /// assert_eq!(dev.transpose(&m, 3)?.download()?, vec![1, 4, 2, 5, 3, 6]);
    /// # Ok(()) }
    /// ```
    pub fn transpose<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
    ) -> Result<DeviceVec<T>> {
        let mut out = self.new_array::<T>(input.elements().len())?;
        self.transpose_with(input, cols, true, &mut out)?;
        Ok(out)
    }

    /// [`Device::transpose`] into `out` (as long as the input), allocating nothing.
    pub fn transpose_into<T, S, O>(&self, input: &S, cols: usize, out: &mut O) -> Result<()>
    where
        T: Element,
        S: AsSlice<T> + ?Sized,
        O: OutputArray<T> + ?Sized,
    {
        self.transpose_with(input, cols, true, out)
    }

    /// [`Device::transpose`] through an unpadded tile (bank conflicts), for the padding
    /// measurement only.
    #[doc(hidden)]
    pub fn transpose_unpadded<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
    ) -> Result<DeviceVec<T>> {
        let mut out = self.new_array::<T>(input.elements().len())?;
        self.transpose_with(input, cols, false, &mut out)?;
        Ok(out)
    }

    fn transpose_with<T, S, O>(
        &self,
        input: &S,
        cols: usize,
        padded: bool,
        out: &mut O,
    ) -> Result<()>
    where
        T: Element,
        S: AsSlice<T> + ?Sized,
        O: OutputArray<T> + ?Sized,
    {
        let elems = input.elements();
        self.check_elements(&elems)?;
        let rows = rows_of(elems.len(), cols)?;
        self.transpose_batches(&elems, 1, Rows { rows, cols }, padded, out)
    }

    /// Each of the `batches` row-major matrices of `elems` (`shape` each, stored one after
    /// another, checked by the caller) transposed into `out`, in the same order: the
    /// permutation (b, r, c) -> (b, c, r) of a 3-d array, in one launch.
    pub(crate) fn transpose_batches<T, O>(
        &self,
        elems: &Elements<'_, T>,
        batches: usize,
        shape: Rows,
        padded: bool,
        out: &mut O,
    ) -> Result<()>
    where
        T: Element,
        O: OutputArray<T> + ?Sized,
    {
        let Rows { rows, cols } = shape;
        let target = self.output(out, elems.len(), "transpose")?;
        if elems.is_empty() {
            return Ok(());
        }
        match target {
            Target::Cpu(bytes, _) => {
                debug_assert_eq!(elems.len(), batches * rows * cols);
                write_host(bytes, &cpu::transpose(elems.cpu()?, rows, cols));
                Ok(())
            }
            t => {
                let g = self.gpu()?;
                let module = g.module(transpose_key::<T>(), transpose_module::<T>)?;
                let mut bytes = gpu_bytes(t)?;
                // SAFETY: the output's bytes viewed as its elements again (the view covers
                // them exactly, aligned as the allocation).
                let view = unsafe { bytes.transmute_mut::<T>(elems.len()) }
                    .ok_or_else(|| Error::Shape("transpose output too small".into()))?;
                g.transpose(&module, elems.gpu()?, batches, shape, view, padded)
            }
        }
    }
}

/// The key of the transpose module of `T`.
pub(crate) fn transpose_key<T: Element>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Transpose,
        [TypeId::of::<T>(), TypeId::of::<()>(), TypeId::of::<()>()],
    )
}

/// The CUDA module of `transpose` for elements of type `T`.
pub fn transpose_module<T: Element>() -> ModuleSource {
    composed(
        location(&format!("transpose_{}", T::NAME), file!(), line!()),
        module::transpose_module(T::SCALAR),
        false,
    )
}
