//! Launch code of top-k: the levels of `wd_k_topk` (one over the elements, then over the
//! candidates of the level before, until one block sorts the last k).

use cudarc::driver::CudaViewMut;
use warp_kernels::catalogue::{TOPK, TOPK_FANIN, topk_step};

use super::Gpu;
use super::launch::{Args, Columns, ElemsOut, In, Input, Out, WdArgs, kernel_args};
use super::modules::Module;
use crate::error::Result;
use crate::values::Element;

kernel_args! {
    /// `wd_k_topk`.
    struct TopKArgs ['v, E] ['v, E] for [TOPK] {
        input: Input<'v>,
        n: u64,
        a: Args,
        k: u32,
        largest: u32,
        cand_keys: In<'v, u64>,
        cand_idx: In<'v, u32>,
        cand_counts: In<'v, u32>,
        cand_slots: u64,
        out_keys: Out<'v, u64>,
        out_idx: Out<'v, u32>,
        out_counts: Out<'v, u32>,
        bound: Out<'v, u64>,
        values: ElemsOut<'v, E>,
        indices: Out<'v, u64>,
    }
}

/// The blocks of each level for a first level of `first` blocks: each later level has one
/// block per [`TOPK_FANIN`] blocks of the one before, down to one.
pub(crate) fn topk_levels(first: usize) -> Vec<usize> {
    let mut levels = vec![first.max(1)];
    while let Some(&last) = levels.last().filter(|&&g| g > 1) {
        levels.push(last.div_ceil(TOPK_FANIN));
    }
    levels
}

impl Gpu {
    /// The `k` (1 to `TOPK_MAX_K`, at most the input's length, which is below 2^32 - 1)
    /// largest elements of `input` (the smallest unless `largest`), best first, into
    /// `values` and `indices` (`k` each), with top-k module `m`.
    pub(crate) fn top_k<E: Element>(
        &self,
        m: &Module,
        input: Columns<'_>,
        k: usize,
        largest: bool,
        mut values: CudaViewMut<'_, E>,
        mut indices: CudaViewMut<'_, u64>,
    ) -> Result<()> {
        let f = m.function(&TOPK)?;
        let n = input.len();
        let step = topk_step(std::mem::size_of::<E>());
        let levels = topk_levels(self.resident_grid(&f, n.div_ceil(step)) as usize);
        // Ping-pong candidate buffers: even levels write the first, odd ones the second.
        let blocks = [levels[0], levels.get(1).copied().unwrap_or(0)];
        let unset: Vec<usize> = blocks
            .iter()
            .flat_map(|&b| [b * k * 8, b * k * 4, b * 4])
            .collect();
        self.with_scratch(&[8], &unset, |r| {
            let buffer = |i: usize| (r.at(1 + 3 * i), r.at(2 + 3 * i), r.at(3 + 3 * i));
            let timer = self.start_timing()?;
            for (level, &grid) in levels.iter().enumerate() {
                let (cand_keys, cand_idx, cand_counts, cand_slots) = if level == 0 {
                    (0, 0, 0, 0)
                } else {
                    let (a, b, c) = buffer((level - 1) % 2);
                    (a, b, c, (levels[level - 1] * k) as u64)
                };
                let (out_keys, out_idx, out_counts) = buffer(level % 2);
                let mut args = TopKArgs {
                    input: input.arg(&self.stream),
                    n: n as u64,
                    a: Args(WdArgs::default()),
                    k: k as u32,
                    largest: largest as u32,
                    cand_keys: In::raw(cand_keys),
                    cand_idx: In::raw(cand_idx),
                    cand_counts: In::raw(cand_counts),
                    cand_slots,
                    out_keys: Out::raw(out_keys),
                    out_idx: Out::raw(out_idx),
                    out_counts: Out::raw(out_counts),
                    bound: Out::raw(r.at(0)),
                    values: ElemsOut(values.slice_mut(..)),
                    indices: Out::At(indices.slice_mut(..)),
                };
                self.launch(m, &TOPK, grid as u32, &mut args)?;
            }
            self.stop_timing(timer)
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::TopKArgs<'_, f32>>();
    }

    #[test]
    fn levels_shrink_to_one_block() {
        use super::topk_levels;
        assert_eq!(topk_levels(1), [1]);
        assert_eq!(topk_levels(0), [1]);
        assert_eq!(topk_levels(16), [16, 1]);
        assert_eq!(topk_levels(660), [660, 42, 3, 1]);
    }
}
