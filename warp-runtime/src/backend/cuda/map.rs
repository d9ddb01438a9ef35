//! Launch code of the map: every value of a module's stage (a map of the elements) written
//! out; and of the scatter: values written to the places the stage's indices name.

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{BLOCK, MAP, SCATTER};

use super::Gpu;
use super::launch::{Args, Input, Staged, Values, ValuesIn, ValuesOut, kernel_args};
use crate::error::Result;

kernel_args! {
    /// `wd_k_map`.
    struct MapArgs ['v] ['v] for [MAP] {
        input: Input<'v>,
        n: u64,
        a: Args,
        out: Values<'v>,
    }
}

kernel_args! {
    /// `wd_k_scatter`.
    struct ScatterArgs ['v] ['v] for [SCATTER] {
        input: Input<'v>,
        n: u64,
        a: Args,
        places: u64,
        values: ValuesIn<'v>,
        out: Values<'v>,
    }
}

impl Gpu {
    /// Writes the values `s` reads (its map of the elements) into `out`.
    pub(crate) fn map_values(&self, s: Staged<'_, '_>, out: ValuesOut<'_>) -> Result<()> {
        let n = s.input.len();
        let f = s.module.function(&MAP)?;
        let grid = self.resident_grid(&f, n.div_ceil(BLOCK as usize));
        let timer = self.start_timing()?;
        self.launch(
            s.module,
            &MAP,
            grid,
            &mut MapArgs {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                out: Values::At(out.bytes),
            },
        )?;
        self.stop_timing(timer)
    }

    /// Writes each of `values` (one per index `s` reads) to the place of `out` (`places`
    /// elements) its index names.
    pub(crate) fn scatter(
        &self,
        s: Staged<'_, '_>,
        places: usize,
        values: CudaView<'_, u8>,
        out: CudaViewMut<'_, u8>,
    ) -> Result<()> {
        let n = s.input.len();
        let f = s.module.function(&SCATTER)?;
        let grid = self.resident_grid(&f, n.div_ceil(BLOCK as usize));
        let timer = self.start_timing()?;
        self.launch(
            s.module,
            &SCATTER,
            grid,
            &mut ScatterArgs {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                places: places as u64,
                values: ValuesIn::At(values),
                out: Values::At(out),
            },
        )?;
        self.stop_timing(timer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::MapArgs<'_>>();
        super::super::launch::tests::check::<super::ScatterArgs<'_>>();
    }
}
