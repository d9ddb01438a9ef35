//! Launch code of the transpose: one block per tile of the catalogue's transpose tile.

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{TRANSPOSE, TRANSPOSE_UNPADDED, transpose_tile};

use super::Gpu;
use super::axes::Rows;
use super::launch::{Elems, ElemsOut, Grid, kernel_args};
use super::modules::Module;
use crate::error::{Error, Result};
use crate::values::Element;

kernel_args! {
    /// `wd_k_transpose` and its unpadded twin.
    struct TransposeArgs ['v, E] ['v, E] for [TRANSPOSE, TRANSPOSE_UNPADDED] {
        input: Elems<'v, E>,
        out: ElemsOut<'v, E>,
        rows: u64,
        cols: u64,
        batches: u64,
    }
}

impl Gpu {
    /// Transposes each of the `batches` matrices of `input` (`shape` each, stored one after
    /// another) into `out` (as many elements) with the transpose module `m`, through the
    /// padded tile (or, for the padding measurement, the unpadded one).
    pub(crate) fn transpose<E: Element>(
        &self,
        m: &Module,
        input: CudaView<'_, E>,
        batches: usize,
        shape: Rows,
        out: CudaViewMut<'_, E>,
        padded: bool,
    ) -> Result<()> {
        let Rows { rows, cols } = shape;
        let k = if padded {
            &TRANSPOSE
        } else {
            &TRANSPOSE_UNPADDED
        };
        let (tile_rows, tile_cols) = transpose_tile(std::mem::size_of::<E>());
        let col_tiles = cols.div_ceil(tile_cols);
        if col_tiles > i32::MAX as usize {
            return Err(Error::Shape(format!("{cols} columns are too many")));
        }
        // Row tiles (of every matrix) beyond the grid's y limit are reached by the kernel's
        // grid-stride loop.
        let row_tiles = rows
            .div_ceil(tile_rows)
            .saturating_mul(batches)
            .clamp(1, 65535);
        let timer = self.start_timing()?;
        self.launch(
            m,
            k,
            Grid(col_tiles as u32, row_tiles as u32),
            &mut TransposeArgs {
                input: Elems(input),
                out: ElemsOut::At(out),
                rows: rows as u64,
                cols: cols as u64,
                batches: batches as u64,
            },
        )?;
        self.stop_timing(timer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::TransposeArgs<'_, f32>>();
    }
}
