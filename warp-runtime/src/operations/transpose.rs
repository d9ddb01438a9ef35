//! Transpose of a row-major matrix through a padded shared tile.

use super::{rows_of, transpose_key, transpose_module};
use crate::arrays::DeviceVec;
use crate::backend::Backend;
use crate::backend::cpu;
use crate::backend::cuda::Rows;
use crate::device::Device;
use crate::error::Result;
use crate::inputs::AsSlice;
use crate::values::Element;

impl Device {
    /// The transpose of the row-major matrix `input` (`cols` columns): a `cols x rows`
    /// row-major matrix. Through a padded shared tile (64 x 65 elements for elements of up to
    /// 8 bytes), so that both the reads and the writes are coalesced and shared memory has no
    /// bank conflicts. Its length must be a whole number of rows (else [`Error::Shape`]).
    ///
    /// [`Error::Shape`]: crate::Error::Shape
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
        self.transpose_with(input, cols, true)
    }

    /// [`Device::transpose`] through an unpadded tile (bank conflicts), for the padding
    /// measurement only.
    #[doc(hidden)]
    pub fn transpose_unpadded<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
    ) -> Result<DeviceVec<T>> {
        self.transpose_with(input, cols, false)
    }

    fn transpose_with<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
        padded: bool,
    ) -> Result<DeviceVec<T>> {
        let s = input.as_view();
        self.check_owner(&s)?;
        let rows = rows_of(s.len(), cols)?;
        match &*self.backend {
            Backend::Cpu => self.upload(&cpu::transpose(s.cpu()?, rows, cols)),
            Backend::Gpu(g) => {
                let mut out = DeviceVec::<T>::alloc_gpu(self, s.len())?;
                if !s.is_empty() {
                    let module = g.module(transpose_key::<T>(), transpose_module::<T>)?;
                    g.transpose(
                        &module,
                        s.gpu()?,
                        Rows { rows, cols },
                        out.gpu_mut()?,
                        padded,
                    )?;
                }
                Ok(out)
            }
        }
    }
}
