//! Launch code of the reductions: one grid-combined launch over a module's stage, then the
//! result read back.

use warp_kernels::catalogue::{BLOCK, REDUCE};

use super::launch::{Args, Elems, Out, Staged, Values, kernel_args};
use super::{Gpu, MAX_GRID, Scratch, drv};
use crate::error::Result;
use crate::values::{DeviceValue, Element};

kernel_args! {
    /// `wd_k_reduce`: elements, bound arguments, a partial per block, the last-block ticket,
    /// the result.
    struct ReduceArgs ['v, E] ['v, E] for [REDUCE] {
        p: Elems<'v, E>,
        n: u64,
        a: Args,
        partials: Values<'v>,
        ticket: Out<'v, u32>,
        out: Values<'v>,
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

    /// Reduces the values `s` reads with its reduction module: one launch, then the result
    /// read back.
    pub(crate) fn reduce<V: DeviceValue, E: Element>(&self, s: Staged<'_, '_, E>) -> Result<V> {
        let Staged {
            module: m,
            input,
            args,
        } = s;
        let f = m.function(&REDUCE)?;
        let n = input.len();
        let grid = self.vector_grid(&f, n, std::mem::size_of::<E>());
        debug_assert!(grid as usize <= MAX_GRID);
        let mut out = self.alloc::<u8>(V::C_SIZE)?;
        let timer = self.start_timing()?;
        {
            let mut scratch = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
            let Scratch { partials, ticket } = &mut *scratch;
            self.launch(
                m,
                &REDUCE,
                grid,
                &mut ReduceArgs {
                    p: Elems(input),
                    n: n as u64,
                    a: Args(args),
                    partials: Values::At(partials.as_view_mut()),
                    ticket: Out::At(ticket.as_view_mut()),
                    out: Values::At(out.as_view_mut()),
                },
            )?;
        }
        self.stop_timing(timer)?;
        let bytes = self
            .stream
            .clone_dtoh(&out)
            .map_err(drv("reading a reduction result"))?;
        self.synchronize()?;
        Ok(V::read_c(&bytes))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::ReduceArgs<'_, f32>>();
    }
}
