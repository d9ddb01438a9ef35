//! Launch code of the binary search: one grid-stride launch over the queries.

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{BLOCK, SEARCH, SEARCH_ITEMS, search_shift};

use super::launch::{Elems, In, Values, kernel_args};
use super::modules::Module;
use super::{Gpu, drv};
use crate::error::Result;
use crate::values::Element;

kernel_args! {
    /// `wd_k_search`.
    struct SearchArgs ['v, E] ['v, E] for [SEARCH] {
        sorted: Elems<'v, E>,
        n: u64,
        queries: Elems<'v, E>,
        m: u64,
        perm: In<'v, u32>,
        p: u32,
        upper: u32,
        descending: u32,
        out: Values<'v>,
    }
}

impl Gpu {
    /// For each of `queries` (at least one), the number of keys of `sorted` (sorted in the
    /// order `descending` says; none: every answer 0) before it (`upper`: before it or equal),
    /// into `out` (the bytes of as many answers of module `m`'s index type), at the query's
    /// place (`perm[i]` for query `i` when `perm` is given: queries sorted first, with their
    /// positions; else `i`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn search<E: Element>(
        &self,
        m: &Module,
        sorted: CudaView<'_, E>,
        queries: CudaView<'_, E>,
        perm: Option<CudaView<'_, u32>>,
        mut out: CudaViewMut<'_, u8>,
        upper: bool,
        descending: bool,
    ) -> Result<()> {
        if sorted.is_empty() {
            return self
                .stream()
                .memset_zeros(&mut out)
                .map_err(drv("zeroing the answers"));
        }
        let f = m.function(&SEARCH)?;
        let grid = self.resident_grid(
            &f,
            queries
                .len()
                .div_ceil(BLOCK as usize * SEARCH_ITEMS as usize),
        );
        let timer = self.start_timing()?;
        self.launch(
            m,
            &SEARCH,
            grid,
            &mut SearchArgs {
                sorted: Elems(sorted.slice(..)),
                n: sorted.len() as u64,
                queries: Elems(queries.slice(..)),
                m: queries.len() as u64,
                perm: perm.as_ref().map_or(In::raw(0), |p| In::At(p.slice(..))),
                p: search_shift(sorted.len()),
                upper: upper as u32,
                descending: descending as u32,
                out: Values::At(out.slice_mut(..)),
            },
        )?;
        self.stop_timing(timer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::SearchArgs<'_, f32>>();
    }
}
