//! Launch code of the runs kernel (unique, run-length encode, reduce-by-key): one single-pass
//! launch writing run keys, run values and the number of runs.

use cudarc::driver::CudaViewMut;
use warp_kernels::catalogue::{RUNS, runs_block_tile, runs_status_bytes};

use super::Gpu;
use super::launch::{Args, ElemsOut, Input, Out, Staged, Values, kernel_args};
use super::memory::Slot;
use crate::error::Result;

kernel_args! {
    /// `wd_k_runs`.
    struct RunsArgs ['v] ['v] for [RUNS] {
        input: Input<'v>,
        n: u64,
        a: Args,
        keys: ElemsOut<'v, u8>,
        vals: Values<'v>,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
        count: Out<'v, u64>,
    }
}

impl Gpu {
    /// The runs of `s` (its module's runs kernel): run keys into `keys`, run values (when the
    /// module's runs carry any) into `vals`, each with room for every input element; the
    /// number of runs into `slot`.
    pub(crate) fn runs(
        &self,
        s: Staged<'_, '_>,
        keys: CudaViewMut<'_, u8>,
        vals: Option<CudaViewMut<'_, u8>>,
        slot: &Slot,
    ) -> Result<()> {
        let n = s.input.len();
        let carries = vals.is_some();
        let status_bytes = |tiles| runs_status_bytes(tiles, carries);
        // Unique (no values) of narrow keys takes wider block tiles.
        let tiles = self.single_pass_tiles(n, runs_block_tile(s.input.sizes[0], !carries))?;
        self.single_pass(
            s.module,
            &RUNS,
            tiles,
            status_bytes,
            slot,
            |status, queue| RunsArgs {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                keys: ElemsOut::At(keys),
                vals: Values::or_null(vals),
                status,
                queue,
                count: Out::raw(slot.ptr),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;
    use super::*;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<RunsArgs<'_>>();
    }
}
