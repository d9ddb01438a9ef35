//! Launch code of the merge sort by a comparator: the block sort of every tile, then passes
//! that merge the sorted runs four at a time (pivots, then the merge), with one two-way pass
//! (partition, then the merge) first when the doublings are odd; with positions (an argsort),
//! two-way passes alone.

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{
    BLOCK, MERGE_BLOCK_SORT, MERGE_BLOCK_SORT_KEYS, MERGE_PARTITION, MERGE_PASS, MERGE_PASS_KEYS,
    MERGE_SEARCH, MERGE4_PASS_KEYS, MERGE4_PIVOTS, merge_tile, merge4_blocks, merge4_pivots,
};

use super::Gpu;
use super::launch::{Args, Elems, ElemsOut, In, Out, WdArgs, kernel_args};
use super::modules::Module;
use crate::error::{Error, Result};
use crate::values::Element;

kernel_args! {
    /// `wd_k_merge_block_sort` and `wd_k_merge_block_sort_keys`.
    struct MergeBlockSortArgs ['v, E] ['v, E] for [MERGE_BLOCK_SORT, MERGE_BLOCK_SORT_KEYS] {
        keys: Elems<'v, E>,
        n: u64,
        a: Args,
        out: ElemsOut<'v, E>,
        tmp: ElemsOut<'v, E>,
        pos_out: Out<'v, u32>,
        pos_tmp: Out<'v, u32>,
        src: u32,
    }
}

kernel_args! {
    /// `wd_k_merge_partition`.
    struct MergePartitionArgs ['v, E] ['v, E] for [MERGE_PARTITION] {
        out: ElemsOut<'v, E>,
        tmp: ElemsOut<'v, E>,
        src: u32,
        n: u64,
        width: u64,
        tiles: u64,
        a: Args,
        part: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_merge_pass` and `wd_k_merge_pass_keys`.
    struct MergePassArgs ['v, E] ['v, E] for [MERGE_PASS, MERGE_PASS_KEYS] {
        out: ElemsOut<'v, E>,
        tmp: ElemsOut<'v, E>,
        pos_out: Out<'v, u32>,
        pos_tmp: Out<'v, u32>,
        src: u32,
        n: u64,
        width: u64,
        part: In<'v, u64>,
        a: Args,
    }
}

kernel_args! {
    /// `wd_k_merge4_pivots`.
    struct Merge4PivotsArgs ['v, E] ['v, E] for [MERGE4_PIVOTS] {
        out: ElemsOut<'v, E>,
        tmp: ElemsOut<'v, E>,
        src: u32,
        n: u64,
        width: u64,
        total: u64,
        a: Args,
        table: Out<'v, u32>,
        slots: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_merge4_pass_keys`.
    struct Merge4PassArgs ['v, E] ['v, E] for [MERGE4_PASS_KEYS] {
        out: ElemsOut<'v, E>,
        tmp: ElemsOut<'v, E>,
        src: u32,
        n: u64,
        width: u64,
        table: In<'v, u32>,
        slots: In<'v, u64>,
        a: Args,
    }
}

kernel_args! {
    /// `wd_k_merge_search`.
    struct MergeSearchArgs ['v, E] ['v, E] for [MERGE_SEARCH] {
        keys: Elems<'v, E>,
        n: u64,
        queries: Elems<'v, E>,
        m: u64,
        a: Args,
        upper: u32,
        out: Out<'v, u32>,
    }
}

impl Gpu {
    /// For each query of `queries`, the first position of the `keys` (sorted by module `m`'s
    /// comparator, bound arguments `a`; fewer than 2^32, each `size` bytes as in
    /// [`Gpu::merge_sort`]) whose key is not before it (`upper` false) or that it is before
    /// (`upper` true), into `out` (one per query): a thread per query.
    #[allow(clippy::too_many_arguments)] // the search's inputs, as the kernel takes them
    pub(crate) fn merge_search<E: Element>(
        &self,
        m: &Module,
        a: WdArgs,
        keys: CudaView<'_, E>,
        queries: CudaView<'_, E>,
        size: usize,
        upper: bool,
        mut out: CudaViewMut<'_, u32>,
    ) -> Result<()> {
        let per = |v: &CudaView<'_, E>| v.len() * std::mem::size_of::<E>() / size;
        let (n, count) = (per(&keys), per(&queries));
        if n > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "a search by a comparator takes fewer than 2^32 keys; this one has {n}"
            )));
        }
        if count == 0 {
            return Ok(());
        }
        let f = m.function(&MERGE_SEARCH)?;
        let grid = self.resident_grid(&f, count.div_ceil(BLOCK as usize));
        let timer = self.start_timing()?;
        self.launch(
            m,
            &MERGE_SEARCH,
            grid,
            &mut MergeSearchArgs {
                keys: Elems(keys),
                n: n as u64,
                queries: Elems(queries),
                m: count as u64,
                a: Args(a),
                upper: upper as u32,
                out: Out::At(out.slice_mut(..)),
            },
        )?;
        self.stop_timing(timer)
    }

    /// Sorts `keys` (at least one, fewer than 2^32, each `size` bytes: one `E`, or for the
    /// bytes (`E = u8`) of tuples or structs, one value) stably by module `m`'s comparator
    /// (bound arguments `a`) into `out` (as long; `None`: scratch, for an argsort), with each
    /// key's input position into `pos_out` when given. The block sort writes tiles of sorted
    /// runs; each pass merges groups of four runs (one pass first merges pairs when the
    /// doublings are odd; every pass merges pairs when positions move), ping-pong between the
    /// outputs and scratch, so that the last pass writes the outputs.
    pub(crate) fn merge_sort<E: Element>(
        &self,
        m: &Module,
        a: WdArgs,
        keys: CudaView<'_, E>,
        size: usize,
        mut out: Option<CudaViewMut<'_, E>>,
        mut pos_out: Option<CudaViewMut<'_, u32>>,
    ) -> Result<()> {
        let n = keys.len() * std::mem::size_of::<E>() / size;
        if n > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "a sort by a comparator takes fewer than 2^32 keys; this one has {n}"
            )));
        }
        let tile = merge_tile(size);
        let tiles = n.div_ceil(tile);
        // Doublings of the sorted runs: one two-way pass first when they are odd, then
        // four-way passes (each two doublings).
        let mut doublings = 0u32;
        while tile << doublings < n {
            doublings += 1;
        }
        let with_pos = pos_out.is_some();
        // Two-way passes for every doubling when positions move (the four-way pass takes keys
        // alone), else for the first when the doublings are odd.
        let two_way = if with_pos { doublings } else { doublings % 2 };
        let widths: Vec<u64> = (two_way..doublings)
            .step_by(2)
            .map(|d| (tile as u64) << d)
            .collect();
        let passes = two_way + widths.len() as u32;
        // The kernels that move positions, or the keys' own (less shared memory a block).
        let (block_sort, merge_pass) = if with_pos {
            (&MERGE_BLOCK_SORT, &MERGE_PASS)
        } else {
            (&MERGE_BLOCK_SORT_KEYS, &MERGE_PASS_KEYS)
        };
        let n64 = n as u64;
        // Zeroed: each four-way pass's slots. Unset: the two-way pass's partition, the
        // four-way passes' pivot table (the largest), the ping-pong keys and positions, the
        // keys' output of an argsort.
        let slots: Vec<usize> = widths
            .iter()
            .map(|&w| 8 * (n64.div_ceil(4 * w) * merge4_blocks(size, n64, w).1) as usize)
            .collect();
        let table = widths
            .iter()
            .map(|&w| 16 * merge4_pivots(size, n64, w) as usize)
            .max()
            .unwrap_or(0);
        let unset = [
            if two_way > 0 { 8 * (tiles + 1) } else { 0 },
            table,
            n * size,
            if with_pos { 4 * n } else { 0 },
            if out.is_none() { n * size } else { 0 },
        ];
        let z = slots.len();
        self.with_scratch(&slots, &unset, |r| {
            let (part, table, keys_tmp, pos_tmp) = (r.at(z), r.at(z + 1), r.at(z + 2), r.at(z + 3));
            let pos_tmp = if with_pos { pos_tmp } else { 0 };
            let spare = r.at(z + 4);
            let timer = self.start_timing()?;
            // The block sort writes the buffers the passes then alternate from, so that the
            // last pass writes the outputs (src: 0 the outputs, 1 the scratch).
            let mut src = if passes.is_multiple_of(2) { 1u32 } else { 0 };
            self.launch(
                m,
                block_sort,
                tiles as u32,
                &mut MergeBlockSortArgs {
                    keys: Elems(keys.slice(..)),
                    n: n64,
                    a: Args(a),
                    out: keys_or(&mut out, spare),
                    tmp: ElemsOut::Raw(keys_tmp),
                    pos_out: positions_or_null(&mut pos_out),
                    pos_tmp: Out::raw(pos_tmp),
                    src,
                },
            )?;
            let f = m.function(&MERGE_PARTITION)?;
            let grid = self.resident_grid(&f, (tiles + 1).div_ceil(BLOCK as usize));
            for pass in 0..two_way {
                let width = (tile as u64) << pass;
                // The runs are sorted in the buffers the last launch wrote.
                src ^= 1;
                self.launch(
                    m,
                    &MERGE_PARTITION,
                    grid,
                    &mut MergePartitionArgs {
                        out: keys_or(&mut out, spare),
                        tmp: ElemsOut::Raw(keys_tmp),
                        src,
                        n: n64,
                        width,
                        tiles: tiles as u64,
                        a: Args(a),
                        part: Out::raw(part),
                    },
                )?;
                self.launch(
                    m,
                    merge_pass,
                    tiles as u32,
                    &mut MergePassArgs {
                        out: keys_or(&mut out, spare),
                        tmp: ElemsOut::Raw(keys_tmp),
                        pos_out: positions_or_null(&mut pos_out),
                        pos_tmp: Out::raw(pos_tmp),
                        src,
                        n: n64,
                        width,
                        part: In::raw(part),
                        a: Args(a),
                    },
                )?;
            }
            let f = m.function(&MERGE4_PIVOTS)?;
            for (k, &width) in widths.iter().enumerate() {
                src ^= 1;
                let total = merge4_pivots(size, n64, width);
                let grid = self.resident_grid(&f, (total as usize).div_ceil(BLOCK as usize));
                self.launch(
                    m,
                    &MERGE4_PIVOTS,
                    grid,
                    &mut Merge4PivotsArgs {
                        out: keys_or(&mut out, spare),
                        tmp: ElemsOut::Raw(keys_tmp),
                        src,
                        n: n64,
                        width,
                        total,
                        a: Args(a),
                        table: Out::raw(table),
                        slots: Out::raw(r.at(k)),
                    },
                )?;
                // Fewer than 2^32 keys: far fewer blocks.
                let (blocks, _) = merge4_blocks(size, n64, width);
                self.launch(
                    m,
                    &MERGE4_PASS_KEYS,
                    blocks as u32,
                    &mut Merge4PassArgs {
                        out: keys_or(&mut out, spare),
                        tmp: ElemsOut::Raw(keys_tmp),
                        src,
                        n: n64,
                        width,
                        table: In::raw(table),
                        slots: In::raw(r.at(k)),
                        a: Args(a),
                    },
                )?;
            }
            self.stop_timing(timer)
        })
    }
}

/// The caller's keys output, or scratch at `raw` (an argsort's sorted keys).
fn keys_or<'a, E>(o: &'a mut Option<CudaViewMut<'_, E>>, raw: u64) -> ElemsOut<'a, E> {
    match o {
        Some(o) => ElemsOut::At(o.slice_mut(..)),
        None => ElemsOut::Raw(raw),
    }
}

/// The caller's positions output, or null (none wanted).
fn positions_or_null<'a>(p: &'a mut Option<CudaViewMut<'_, u32>>) -> Out<'a, u32> {
    match p {
        Some(p) => Out::At(p.slice_mut(..)),
        None => Out::raw(0),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::MergeBlockSortArgs<'_, f32>>();
        super::super::launch::tests::check::<super::MergePartitionArgs<'_, f32>>();
        super::super::launch::tests::check::<super::MergePassArgs<'_, f32>>();
        super::super::launch::tests::check::<super::Merge4PivotsArgs<'_, f32>>();
        super::super::launch::tests::check::<super::Merge4PassArgs<'_, f32>>();
        super::super::launch::tests::check::<super::MergeSearchArgs<'_, f32>>();
    }
}
