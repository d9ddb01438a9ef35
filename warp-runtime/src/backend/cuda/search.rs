//! Launch code of the binary search: one grid-stride launch over the queries.

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{
    BLOCK, SEARCH, SEARCH_BOUNDS, SEARCH_ITEMS, SEARCH_ORDER, SEARCH_TILES, search_by_tiles,
    search_shift,
};

use super::launch::{Elems, In, Out, Values, kernel_args};
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
        sorted_queries: Elems<'v, E>,
        m: u64,
        perm: In<'v, u32>,
        unsorted: In<'v, u32>,
        p: u32,
        upper: u32,
        descending: u32,
        out: Values<'v>,
    }
}

kernel_args! {
    /// `wd_k_search_order`.
    struct SearchOrderArgs ['v, E] ['v, E] for [SEARCH_ORDER] {
        queries: Elems<'v, E>,
        m: u64,
        descending: u32,
        unsorted: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_search_bounds`.
    struct SearchBoundsArgs ['v, E] ['v, E] for [SEARCH_BOUNDS] {
        sorted: Elems<'v, E>,
        n: u64,
        queries: Elems<'v, E>,
        sorted_queries: Elems<'v, E>,
        m: u64,
        perm: In<'v, u32>,
        unsorted: In<'v, u32>,
        p: u32,
        upper: u32,
        descending: u32,
        bounds: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_search_tiles`.
    struct SearchTilesArgs ['v, E] ['v, E] for [SEARCH_TILES] {
        sorted: Elems<'v, E>,
        queries: Elems<'v, E>,
        sorted_queries: Elems<'v, E>,
        m: u64,
        perm: In<'v, u32>,
        unsorted: In<'v, u32>,
        bounds: In<'v, u64>,
        upper: u32,
        descending: u32,
        out: Values<'v>,
    }
}

/// Queries sorted before their search: the sorted copy, their positions, and the word that
/// says whether they were out of order (0: the sort ran no pass, the queries are read in place).
pub(crate) struct SortedQueries<'v, E> {
    pub(crate) queries: CudaView<'v, E>,
    pub(crate) perm: CudaView<'v, u32>,
    pub(crate) unsorted: CudaView<'v, u32>,
}

impl Gpu {
    /// Sets the word `unsorted` (zeroed) to 1 when `queries` are not in the order `descending`
    /// says.
    pub(crate) fn search_order<E: Element>(
        &self,
        m: &Module,
        queries: CudaView<'_, E>,
        unsorted: CudaViewMut<'_, u32>,
        descending: bool,
    ) -> Result<()> {
        let f = m.function(&SEARCH_ORDER)?;
        let per_block = BLOCK as usize * SEARCH_ITEMS as usize;
        let grid = self.resident_grid(&f, queries.len().div_ceil(per_block));
        self.launch(
            m,
            &SEARCH_ORDER,
            grid,
            &mut SearchOrderArgs {
                queries: Elems(queries.slice(..)),
                m: queries.len() as u64,
                descending: descending as u32,
                unsorted: Out::At(unsorted),
            },
        )
    }

    /// For each of `queries` (at least one), the number of keys of `sorted` (sorted in the
    /// order `descending` says; none: every answer 0) before it (`upper`: before it or equal),
    /// into `out` (the bytes of as many answers of module `m`'s index type), at the query's
    /// place. With `first` (the queries sorted first, with their positions), query `i` of the
    /// sorted copy answers into `out[perm[i]]`, unless its `unsorted` word is 0 (they were in
    /// order): then the queries are read in place. Queries in order (`first` given) dense in
    /// the array are searched by tiles ([`search_by_tiles`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn search<E: Element>(
        &self,
        m: &Module,
        sorted: CudaView<'_, E>,
        queries: CudaView<'_, E>,
        first: Option<SortedQueries<'_, E>>,
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
        let (n, count) = (sorted.len(), queries.len());
        let sorted_queries = first
            .as_ref()
            .map_or(queries.slice(..), |f| f.queries.slice(..));
        let perm = || {
            first
                .as_ref()
                .map_or(In::raw(0), |f| In::At(f.perm.slice(..)))
        };
        let unsorted = || {
            first
                .as_ref()
                .map_or(In::raw(0), |f| In::At(f.unsorted.slice(..)))
        };
        if first.is_some() && search_by_tiles(n, count) {
            let tiles = count.div_ceil(BLOCK as usize);
            // The tiles' bounds live in this operation's scratch (no allocation a call).
            return self.with_scratch(&[], &[(tiles + 1) * 8], |r| {
                let bounds = r.at(0);
                let timer = self.start_timing()?;
                let f = m.function(&SEARCH_BOUNDS)?;
                let grid = self.resident_grid(&f, (tiles + 1).div_ceil(BLOCK as usize));
                self.launch(
                    m,
                    &SEARCH_BOUNDS,
                    grid,
                    &mut SearchBoundsArgs {
                        sorted: Elems(sorted.slice(..)),
                        n: n as u64,
                        queries: Elems(queries.slice(..)),
                        sorted_queries: Elems(sorted_queries.slice(..)),
                        m: count as u64,
                        perm: perm(),
                        unsorted: unsorted(),
                        p: search_shift(n),
                        upper: upper as u32,
                        descending: descending as u32,
                        bounds: Out::raw(bounds),
                    },
                )?;
                let f = m.function(&SEARCH_TILES)?;
                let grid = self.resident_grid(&f, tiles);
                self.launch(
                    m,
                    &SEARCH_TILES,
                    grid,
                    &mut SearchTilesArgs {
                        sorted: Elems(sorted.slice(..)),
                        queries: Elems(queries.slice(..)),
                        sorted_queries: Elems(sorted_queries),
                        m: count as u64,
                        perm: perm(),
                        unsorted: unsorted(),
                        bounds: In::raw(bounds),
                        upper: upper as u32,
                        descending: descending as u32,
                        out: Values::At(out.slice_mut(..)),
                    },
                )?;
                self.stop_timing(timer)
            });
        }
        let f = m.function(&SEARCH)?;
        let grid = self.resident_grid(&f, count.div_ceil(BLOCK as usize * SEARCH_ITEMS as usize));
        let timer = self.start_timing()?;
        self.launch(
            m,
            &SEARCH,
            grid,
            &mut SearchArgs {
                sorted: Elems(sorted.slice(..)),
                n: n as u64,
                queries: Elems(queries.slice(..)),
                sorted_queries: Elems(sorted_queries),
                m: count as u64,
                perm: perm(),
                unsorted: unsorted(),
                p: search_shift(n),
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
        super::super::launch::tests::check::<super::SearchOrderArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SearchBoundsArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SearchTilesArgs<'_, f32>>();
    }
}
