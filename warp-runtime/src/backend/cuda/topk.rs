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
        assert_eq!(topk_levels(4), [4, 1]);
        assert_eq!(topk_levels(660), [660, 165, 42, 11, 3, 1]);
    }

    /// A sequential model of topk.cuh's algorithm (its blocks advanced one step at a time in
    /// turn, its radix selects computed by sorting): the levels, the pass rule, the global
    /// bound and the refine branches give the exact answer on adversarial inputs.
    mod model {
        use warp_kernels::catalogue::{BLOCK, TOPK_FANIN, TOPK_ITEMS, TOPK_KEEP};

        const STEP: usize = BLOCK as usize * TOPK_ITEMS as usize;

        struct Block {
            buf: Vec<(u64, u32)>,
            tk: u64,
            ti: u32,
        }

        impl Block {
            fn new() -> Block {
                Block {
                    buf: Vec::new(),
                    tk: 0,
                    ti: u32::MAX,
                }
            }

            fn passes(&self, e: (u64, u32), g: u64) -> bool {
                e.0 >= g && (e.0 > self.tk || (e.0 == self.tk && e.1 < self.ti))
            }

            fn refine(&mut self, k: usize, exact: bool, ordered: bool, bound: &mut u64) {
                let g = *bound;
                let mut live: Vec<(u64, u32)> =
                    self.buf.iter().copied().filter(|e| e.0 >= g).collect();
                if live.len() <= k {
                    self.buf = live;
                    return;
                }
                live.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                let t = live[k - 1].0;
                *bound = (*bound).max(t);
                let ge = live.iter().filter(|e| e.0 >= t).count();
                if ge == k || (!exact && ge <= TOPK_KEEP) {
                    self.tk = t;
                    self.ti = if ordered { 0 } else { u32::MAX };
                    self.buf = live.into_iter().filter(|e| e.0 >= t).collect();
                } else {
                    let ip = live[k - 1].1;
                    self.tk = t;
                    self.ti = ip;
                    live.truncate(k);
                    self.buf = live;
                }
            }

            fn step(&mut self, entries: &[(u64, u32)], k: usize, ordered: bool, bound: &mut u64) {
                let g = *bound;
                let passing: Vec<(u64, u32)> = entries
                    .iter()
                    .copied()
                    .filter(|&e| self.passes(e, g))
                    .collect();
                self.buf.extend(passing);
                assert!(self.buf.len() <= TOPK_KEEP + STEP, "buffer overflow");
                if self.buf.len() > TOPK_KEEP {
                    self.refine(k, false, ordered, bound);
                }
            }
        }

        /// The model's answer: (key, index) best first.
        fn run(keys: &[u64], k: usize, grid0: usize) -> Vec<(u64, u32)> {
            let mut bound = 0u64;
            let levels = super::super::topk_levels(grid0);
            let mut input: Vec<Vec<(u64, u32)>> = Vec::new();
            for (level, &grid) in levels.iter().enumerate() {
                let mut blocks: Vec<Block> = (0..grid).map(|_| Block::new()).collect();
                // Each block's steps, in its order.
                let steps: Vec<Vec<Vec<(u64, u32)>>> = (0..grid)
                    .map(|b| {
                        if level == 0 {
                            let nsteps = keys.len().div_ceil(STEP);
                            (b..nsteps)
                                .step_by(grid)
                                .map(|s| {
                                    let end = ((s + 1) * STEP).min(keys.len());
                                    (s * STEP..end).map(|i| (keys[i], i as u32)).collect()
                                })
                                .collect()
                        } else {
                            let mine: Vec<(u64, u32)> = input
                                [b * TOPK_FANIN..((b + 1) * TOPK_FANIN).min(input.len())]
                                .concat();
                            mine.chunks(STEP).map(|c| c.to_vec()).collect()
                        }
                    })
                    .collect();
                let most = steps.iter().map(Vec::len).max().unwrap_or(0);
                for s in 0..most {
                    for (b, block) in blocks.iter_mut().enumerate() {
                        if let Some(entries) = steps[b].get(s) {
                            block.step(entries, k, level == 0, &mut bound);
                        }
                    }
                }
                for block in &mut blocks {
                    if block.buf.len() > k {
                        block.refine(k, true, level == 0, &mut bound);
                    }
                }
                input = blocks.into_iter().map(|b| b.buf).collect();
            }
            let mut last = input.concat();
            last.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            last
        }

        fn check(keys: &[u64], k: usize, grid0: usize, what: &str) {
            let got = run(keys, k, grid0);
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0u32..).collect();
            want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let want: Vec<u32> = want[..k].iter().map(|e| e.1).collect();
            let got_idx: Vec<u32> = got.iter().map(|e| e.1).collect();
            assert_eq!(
                got_idx,
                want,
                "{what}: n={} k={k} grid0={grid0}",
                keys.len()
            );
        }

        #[test]
        fn the_algorithm_is_exact_on_adversarial_inputs() {
            let n = 300_000usize;
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            let mut random = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let inputs: Vec<(&str, Vec<u64>)> = vec![
                ("random", (0..n).map(|_| random()).collect()),
                ("few values", (0..n).map(|_| random() % 5).collect()),
                ("ascending", (0..n as u64).collect()),
                ("descending", (0..n as u64).rev().collect()),
                ("all equal", vec![7; n]),
                (
                    "many maxima",
                    (0..n)
                        .map(|i| if i % 3 == 0 { u64::MAX } else { random() })
                        .collect(),
                ),
                ("sawtooth", (0..n as u64).map(|i| i % 5000).collect()),
            ];
            for (what, keys) in &inputs {
                for k in [1usize, 100, 1000, 1024] {
                    for grid0 in [1usize, 7, 40] {
                        check(keys, k, grid0, what);
                    }
                }
            }
        }
    }
}
