//! Launch code of the reductions: one grid-combined launch over a module's stage, the result
//! written into a result slot.

use warp_kernels::catalogue::{BLOCK, GENERATED_WAVES, ITEMS, REDUCE};

use super::launch::{Args, Input, Out, Staged, Values, kernel_args};
use super::memory::Slot;
use super::{Gpu, MAX_GRID};
use crate::error::Result;

kernel_args! {
    /// `wd_k_reduce`: elements, bound arguments, a partial per block, the last-block ticket,
    /// the result and its done word (0 for a slot in device memory).
    struct ReduceArgs ['v] ['v] for [REDUCE] {
        input: Input<'v>,
        n: u64,
        a: Args,
        partials: Values<'v>,
        ticket: Out<'v, u32>,
        out: Values<'v>,
        done: Out<'v, u32>,
    }
}

impl Gpu {
    /// Blocks for a grid-stride pass over `n` elements of `elem_size` bytes: enough to fill
    /// every SM, no more than there are 16-byte vectors to read.
    pub(super) fn vector_grid(
        &self,
        f: &super::modules::Function,
        n: usize,
        elem_size: usize,
    ) -> u32 {
        let vec = (16 / elem_size.max(1)).max(1);
        self.resident_grid(f, n.div_ceil(BLOCK as usize * vec))
    }

    /// Reduces the values `s` reads with its reduction module into `slot`: one launch,
    /// nothing waited for (the slot marked written after it).
    pub(crate) fn reduce(&self, s: Staged<'_, '_>, slot: &Slot) -> Result<()> {
        self.reduce_to(s, Values::Raw(slot.ptr), slot.done_ptr())?;
        self.written(slot)
    }

    /// Reduces the values `s` reads into `out` (one value), setting the done word at `done`
    /// after it (0: none): one launch, nothing waited for.
    pub(crate) fn reduce_to(&self, s: Staged<'_, '_>, out: Values<'_>, done: u64) -> Result<()> {
        let f = s.module.function(&REDUCE)?;
        let n = s.input.len();
        let grid = if s.input.generated() {
            // Tiles of indices (`ITEMS` a thread), several waves of blocks: the blocks that
            // finish early take more, so that the last wave is short.
            self.waves_grid(
                &f,
                n.div_ceil(BLOCK as usize * ITEMS as usize),
                GENERATED_WAVES,
            )
        } else {
            self.vector_grid(&f, n, s.input.widest())
        };
        debug_assert!(grid as usize <= MAX_GRID);
        let gs = self.grid_scratch()?;
        let timer = self.start_timing()?;
        self.launch(
            s.module,
            &REDUCE,
            grid,
            &mut ReduceArgs {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                partials: Values::Raw(gs.partials.ptr),
                ticket: Out::raw(gs.ticket.ptr),
                out,
                done: Out::raw(done),
            },
        )?;
        self.stop_timing(timer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::ReduceArgs<'_>>();
    }
}
