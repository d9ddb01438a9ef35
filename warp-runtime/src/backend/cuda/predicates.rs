//! Launch code of the predicate kernels: count, any/all, find_first, mask and single-pass
//! compaction, and their results.

use std::sync::atomic::Ordering;

use cudarc::driver::CudaViewMut;
use warp_kernels::catalogue::{
    ANY, BLOCK, BLOCK_TILE, COMPACT, COUNT, FIND_FIRST, MASK, PARTITION3, TILE,
};

use super::Gpu;
use super::launch::{Args, Input, Out, Staged, Values, kernel_args};
use super::memory::Slot;
use super::modules::Function;
use crate::error::Result;

kernel_args! {
    /// `wd_k_count`.
    struct CountArgs ['v] ['v] for [COUNT] {
        input: Input<'v>,
        n: u64,
        a: Args,
        partials: Out<'v, u64>,
        ticket: Out<'v, u32>,
        out: Out<'v, u64>,
        done: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_any`.
    struct AnyArgs ['v] ['v] for [ANY] {
        input: Input<'v>,
        n: u64,
        a: Args,
        negate: u32,
        epoch: u32,
        flag: Out<'v, u32>,
        ticket: Out<'v, u32>,
        out: Out<'v, u8>,
        done: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_find_first`.
    struct FindFirstArgs ['v] ['v] for [FIND_FIRST] {
        input: Input<'v>,
        n: u64,
        a: Args,
        first: Out<'v, u64>,
        ticket: Out<'v, u32>,
        out: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_mask`.
    struct MaskArgs ['v] ['v] for [MASK] {
        input: Input<'v>,
        n: u64,
        a: Args,
        words: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_compact`.
    struct CompactArgs ['v] ['v] for [COMPACT] {
        input: Input<'v>,
        n: u64,
        a: Args,
        kept: Values<'v>,
        rejected: Values<'v>,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
        count: Out<'v, u64>,
        mirror: Out<'v, u64>,
        done: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_partition3`.
    struct Partition3Args ['v] ['v] for [PARTITION3] {
        input: Input<'v>,
        n: u64,
        a: Args,
        first: Values<'v>,
        second: Values<'v>,
        rest: Values<'v>,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
        count: Out<'v, u64>,
    }
}

/// Where a compaction writes: the kept values and, when partitioning, the rejected ones
/// (each with room for every input value); the number kept goes into a result slot.
pub(crate) struct CompactOut<'o> {
    pub(crate) kept: CudaViewMut<'o, u8>,
    pub(crate) rejected: Option<CudaViewMut<'o, u8>>,
}

impl Gpu {
    /// A grid-stride grid over the warp tiles of `n` elements.
    fn tile_grid(&self, f: &Function, n: usize) -> u32 {
        self.resident_grid(f, n.div_ceil(TILE).div_ceil(BLOCK as usize / 32))
    }

    /// How many values of `s` its predicate keeps, into `slot`.
    pub(crate) fn count(&self, s: Staged<'_, '_>, slot: &Slot) -> Result<()> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&COUNT)?, n);
        let gs = self.grid_scratch()?;
        let timer = self.start_timing()?;
        let mut args = CountArgs {
            input: s.arrays(&self.stream),
            n: n as u64,
            a: Args(s.args),
            partials: Out::raw(gs.partials.ptr),
            ticket: Out::raw(gs.ticket.ptr),
            out: Out::raw(slot.ptr),
            done: Out::raw(slot.done_ptr()),
        };
        self.launch(s.module, &COUNT, grid, &mut args)?;
        self.written(slot)?;
        self.stop_timing(timer)
    }

    /// Whether its predicate keeps any value of `s` (with `negate`: rejects any): the vote,
    /// stopping early, into `slot` as a bool (`negate`: `all`); one launch, nothing waited
    /// for, nothing cleared (the stop signal is raised with a new epoch).
    pub(crate) fn any(&self, s: Staged<'_, '_>, negate: bool, slot: &Slot) -> Result<()> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&ANY)?, n);
        let epoch = self.next_epoch()?;
        let gs = self.grid_scratch()?;
        let timer = self.start_timing()?;
        let mut args = AnyArgs {
            input: s.arrays(&self.stream),
            n: n as u64,
            a: Args(s.args),
            negate: negate as u32,
            epoch,
            flag: Out::raw(gs.stop.ptr),
            ticket: Out::raw(gs.ticket.ptr),
            out: Out::raw(slot.ptr),
            done: Out::raw(slot.done_ptr()),
        };
        self.launch(s.module, &ANY, grid, &mut args)?;
        self.written(slot)?;
        self.stop_timing(timer)
    }

    /// A new epoch for `any`'s stop signal (never 0). When the counter wraps, the signal is
    /// cleared first, so that no value an old launch left can equal a new epoch.
    fn next_epoch(&self) -> Result<u32> {
        let e = self.epoch.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        if e == 0 || e == 1 {
            let gs = self.grid_scratch()?;
            gs.zero(&self.stream, &gs.stop)?;
            if e == 0 {
                return self.next_epoch();
            }
        }
        Ok(e)
    }

    /// The first index of `s` its predicate keeps, stored complemented (0: none), into
    /// `slot`; nothing waited for.
    pub(crate) fn find_first(&self, s: Staged<'_, '_>, slot: &Slot) -> Result<()> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&FIND_FIRST)?, n);
        // The signal (zeroed when made) and the ticket are re-armed by the kernel's last
        // block: one launch, nothing cleared.
        let gs = self.grid_scratch()?;
        let timer = self.start_timing()?;
        let mut args = FindFirstArgs {
            input: s.arrays(&self.stream),
            n: n as u64,
            a: Args(s.args),
            first: Out::raw(gs.first.ptr),
            ticket: Out::raw(gs.ticket.ptr),
            out: Out::raw(slot.ptr),
        };
        self.launch(s.module, &FIND_FIRST, grid, &mut args)?;
        self.written(slot)?;
        self.stop_timing(timer)
    }

    /// One bit per value of `s`, set where its predicate holds, into `words`.
    pub(crate) fn mask(&self, s: Staged<'_, '_>, words: CudaViewMut<'_, u32>) -> Result<()> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&MASK)?, n);
        let timer = self.start_timing()?;
        let mut args = MaskArgs {
            input: s.arrays(&self.stream),
            n: n as u64,
            a: Args(s.args),
            words: Out::At(words),
        };
        self.launch(s.module, &MASK, grid, &mut args)?;
        self.stop_timing(timer)
    }

    /// The values of `s` its predicate keeps (and, when partitioning, the others), in order,
    /// into `out`; the number kept into `slot` (and its mirror, if it has one).
    pub(crate) fn compact(
        &self,
        s: Staged<'_, '_>,
        out: CompactOut<'_>,
        slot: &Slot,
    ) -> Result<()> {
        let n = s.input.len();
        let (mirror, done) = slot.mirror_ptrs();
        self.single_pass(
            s.module,
            &COMPACT,
            self.single_pass_tiles(n, BLOCK_TILE)?,
            |tiles| tiles * 8,
            slot,
            |status, queue| CompactArgs {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                kept: Values::At(out.kept),
                rejected: Values::or_null(out.rejected),
                status,
                queue,
                count: Out::raw(slot.ptr),
                mirror: Out::raw(mirror),
                done: Out::raw(done),
            },
        )
    }
}

impl Gpu {
    /// The values of `s` in three parts (its first predicate's, then its second's, the rest),
    /// each in order, into `parts` (each with room for every value); the two counts, packed,
    /// into `slot`.
    pub(crate) fn partition3(
        &self,
        s: Staged<'_, '_>,
        parts: [CudaViewMut<'_, u8>; 3],
        slot: &Slot,
    ) -> Result<()> {
        let n = s.input.len();
        let [first, second, rest] = parts;
        self.single_pass(
            s.module,
            &PARTITION3,
            self.single_pass_tiles(n, BLOCK_TILE)?,
            |tiles| tiles * 8,
            slot,
            |status, queue| Partition3Args {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                first: Values::At(first),
                second: Values::At(second),
                rest: Values::At(rest),
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
        check::<CountArgs<'_>>();
        check::<AnyArgs<'_>>();
        check::<FindFirstArgs<'_>>();
        check::<MaskArgs<'_>>();
        check::<CompactArgs<'_>>();
        check::<Partition3Args<'_>>();
    }
}
