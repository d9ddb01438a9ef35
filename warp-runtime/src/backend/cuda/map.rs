//! Launch code of the map: every value of a module's stage (a map of the elements) written
//! out.

use warp_kernels::catalogue::{BLOCK, MAP};

use super::Gpu;
use super::launch::{Args, Input, Staged, Values, ValuesOut, kernel_args};
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
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::MapArgs<'_>>();
    }
}
