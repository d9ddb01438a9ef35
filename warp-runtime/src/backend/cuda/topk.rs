//! Launch code of top-k: the sample level `wd_k_topk_sample` on large inputs, then the levels
//! of `wd_k_topk` (one over the elements, then over the candidates of the level before, until
//! a level's last block writes the answer); the top-k of each row (`wd_k_topk_rows`, or
//! `wd_k_topk_rows_stream` for long pieces).

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{
    BLOCK, TOPK, TOPK_LEVEL_SLOTS, TOPK_ROW_STREAM_MIN_COLS, TOPK_ROWS, TOPK_ROWS_STREAM,
    TOPK_SAMPLE, topk_row_pieces, topk_sample, topk_step,
};

use super::Gpu;
use super::launch::{Args, Columns, Elems, ElemsOut, In, Input, Out, WdArgs, kernel_args};
use super::modules::Module;
use crate::error::{Error, Result};
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
        cand_total: In<'v, u32>,
        level: u32,
        out_keys: Out<'v, u64>,
        out_idx: Out<'v, u32>,
        out_total: Out<'v, u32>,
        ticket: Out<'v, u32>,
        done: Out<'v, u32>,
        bound: Out<'v, u64>,
        values: ElemsOut<'v, E>,
        indices: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_topk_sample`.
    struct TopKSampleArgs ['v] ['v] for [TOPK_SAMPLE] {
        input: Input<'v>,
        n: u64,
        a: Args,
        k: u32,
        largest: u32,
        groups: u32,
        len: u64,
        sample: Out<'v, u64>,
        ticket: Out<'v, u32>,
        bound: Out<'v, u64>,
    }
}

/// The blocks of each level for a first level of `first` blocks and `k` (1 to 1,024): a level
/// whose blocks may leave more than [`TOPK_LEVEL_SLOTS`] candidates (k each at most) is
/// followed by one with a block per [`TOPK_LEVEL_SLOTS`] of them; the last level's blocks
/// leave few enough for its last block to write the answer.
pub(crate) fn topk_levels(first: usize, k: usize) -> Vec<usize> {
    let mut levels = vec![first.max(1)];
    while let Some(&last) = levels.last().filter(|&&g| g * k > TOPK_LEVEL_SLOTS) {
        levels.push((last * k).div_ceil(TOPK_LEVEL_SLOTS));
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
        let size = std::mem::size_of::<E>();
        let levels = topk_levels(
            self.resident_grid(&f, n.div_ceil(topk_step(size))) as usize,
            k,
        );
        let sample = topk_sample(n, size);
        // Zeroed: the bound, `done`, the sample level's ticket, and per level a ticket and a
        // count of candidates. Unset: ping-pong candidate lists (keys, indices; even levels
        // write the first, odd ones the second, k per block at most), the sample's maxima.
        let most = |parity: usize| {
            levels
                .iter()
                .skip(parity)
                .step_by(2)
                .max()
                .copied()
                .unwrap_or(0)
                * k
        };
        let zeroed = [8, 4, 4, 4 * levels.len(), 4 * levels.len()];
        let unset = [
            most(0) * 8,
            most(0) * 4,
            most(1) * 8,
            most(1) * 4,
            sample.map_or(0, |(groups, _)| groups * 8),
        ];
        self.with_scratch(&zeroed, &unset, |r| {
            let (bound, done, sample_ticket) = (r.at(0), r.at(1), r.at(2));
            let ticket = |level: usize| r.at(3) + 4 * level as u64;
            let total = |level: usize| r.at(4) + 4 * level as u64;
            let list = |level: usize| (r.at(5 + 2 * (level % 2)), r.at(6 + 2 * (level % 2)));
            let timer = self.start_timing()?;
            if let Some((groups, len)) = sample {
                let mut args = TopKSampleArgs {
                    input: input.arg(&self.stream),
                    n: n as u64,
                    a: Args(WdArgs::default()),
                    k: k as u32,
                    largest: largest as u32,
                    groups: groups as u32,
                    len: len as u64,
                    sample: Out::raw(r.at(9)),
                    ticket: Out::raw(sample_ticket),
                    bound: Out::raw(bound),
                };
                let grid = groups.div_ceil(BLOCK as usize / 32);
                self.launch(m, &TOPK_SAMPLE, grid as u32, &mut args)?;
            }
            for (level, &grid) in levels.iter().enumerate() {
                let ((cand_keys, cand_idx), cand_total) = if level == 0 {
                    ((0, 0), 0)
                } else {
                    (list(level - 1), total(level - 1))
                };
                let (out_keys, out_idx) = list(level);
                let mut args = TopKArgs {
                    input: input.arg(&self.stream),
                    n: n as u64,
                    a: Args(WdArgs::default()),
                    k: k as u32,
                    largest: largest as u32,
                    cand_keys: In::raw(cand_keys),
                    cand_idx: In::raw(cand_idx),
                    cand_total: In::raw(cand_total),
                    level: level as u32,
                    out_keys: Out::raw(out_keys),
                    out_idx: Out::raw(out_idx),
                    out_total: Out::raw(total(level)),
                    ticket: Out::raw(ticket(level)),
                    done: Out::raw(done),
                    bound: Out::raw(bound),
                    values: ElemsOut::At(values.slice_mut(..)),
                    indices: Out::At(indices.slice_mut(..)),
                };
                self.launch(m, &TOPK, grid as u32, &mut args)?;
            }
            self.stop_timing(timer)
        })
    }
}

kernel_args! {
    /// `wd_k_topk_rows` and `wd_k_topk_rows_stream`.
    struct TopKRowsArgs ['v, E] ['v, E] for [TOPK_ROWS, TOPK_ROWS_STREAM] {
        x: Elems<'v, E>,
        cols: u32,
        pieces: u32,
        chunk: u32,
        idx_in: In<'v, u32>,
        k: u32,
        largest: u32,
        values: ElemsOut<'v, E>,
        indices: Out<'v, u32>,
    }
}

impl Gpu {
    /// The `k` (1 to `cols`, at most 1,024) best of each row of the row-major `x` (`cols`
    /// columns, below 2^32; at least one row) into `out`: the values and the columns (`k` a
    /// row), with top-k module `m`. A block per row; few long rows ([`topk_row_pieces`]: one
    /// wave of the read-once kernel) a block per piece of a row, then a block per row over the
    /// pieces' candidates. Pieces of at least [`TOPK_ROW_STREAM_MIN_COLS`] columns are read
    /// once (`wd_k_topk_rows_stream`), the others by the radix select (`wd_k_topk_rows`).
    pub(crate) fn top_k_rows<E: Element>(
        &self,
        m: &Module,
        x: CudaView<'_, E>,
        cols: usize,
        k: usize,
        largest: bool,
        out: (CudaViewMut<'_, E>, CudaViewMut<'_, u32>),
    ) -> Result<()> {
        let (mut values, mut indices) = out;
        let rows = x.len() / cols;
        let sms = self.shared.sms as usize;
        let stream_resident = m.function(&TOPK_ROWS_STREAM)?.blocks_per_sm as usize * sms;
        let pieces = topk_row_pieces(rows, cols, k, sms, stream_resident);
        // Every launch below has at most `rows * pieces` blocks.
        u32::try_from(rows * pieces)
            .ok()
            .filter(|&g| g < i32::MAX as u32)
            .ok_or_else(|| Error::Unsupported(format!("top-k of {rows} rows at once")))?;
        let launch = |x: CudaView<'_, E>,
                      (cols, pieces): (usize, usize),
                      idx_in: In<'_, u32>,
                      (values, indices): (ElemsOut<'_, E>, Out<'_, u32>)| {
            let chunk = cols / pieces;
            let kernel = if chunk >= TOPK_ROW_STREAM_MIN_COLS {
                &TOPK_ROWS_STREAM
            } else {
                &TOPK_ROWS
            };
            self.launch(
                m,
                kernel,
                (x.len() / cols * pieces) as u32,
                &mut TopKRowsArgs {
                    x: Elems(x),
                    cols: cols as u32,
                    pieces: pieces as u32,
                    chunk: chunk as u32,
                    idx_in,
                    k: k as u32,
                    largest: largest as u32,
                    values,
                    indices,
                },
            )
        };
        if pieces == 1 {
            let timer = self.start_timing()?;
            launch(
                x,
                (cols, 1),
                In::raw(0),
                (
                    ElemsOut::At(values.slice_mut(..)),
                    Out::At(indices.slice_mut(..)),
                ),
            )?;
            return self.stop_timing(timer);
        }
        // The pieces' candidates: `pieces * k` a row, values and columns (new memory: the
        // second launch reads them as its rows).
        let wide = pieces * k;
        let mut cand_vals = self.alloc::<E>(rows * wide)?;
        let mut cand_cols = self.alloc::<u32>(rows * wide)?;
        let timer = self.start_timing()?;
        launch(
            x,
            (cols, pieces),
            In::raw(0),
            (
                ElemsOut::At(cand_vals.slice_mut(..)),
                Out::At(cand_cols.slice_mut(..)),
            ),
        )?;
        launch(
            cand_vals.slice(..),
            (wide, 1),
            In::At(cand_cols.slice(..)),
            (
                ElemsOut::At(values.slice_mut(..)),
                Out::At(indices.slice_mut(..)),
            ),
        )?;
        self.stop_timing(timer)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::TopKRowsArgs<'_, f32>>();
        super::super::launch::tests::check::<super::TopKArgs<'_, f32>>();
        super::super::launch::tests::check::<super::TopKSampleArgs<'_>>();
    }

    #[test]
    fn levels_end_where_one_block_can_take_what_is_left() {
        use super::topk_levels;
        assert_eq!(topk_levels(1, 1024), [1]);
        assert_eq!(topk_levels(0, 1), [1]);
        assert_eq!(topk_levels(8, 1024), [8]);
        assert_eq!(topk_levels(9, 1024), [9, 2]);
        assert_eq!(topk_levels(396, 100), [396, 5]);
        assert_eq!(topk_levels(396, 1000), [396, 49, 6]);
        assert_eq!(topk_levels(396, 1), [396]);
    }

    #[test]
    fn the_sample_level_reads_a_sixteenth_in_whole_warp_loads() {
        use warp_kernels::catalogue::{TOPK_MAX_K, TOPK_SAMPLE_SHARE, topk_items, topk_sample};
        for size in [1, 2, 4, 8] {
            let load = 32 * topk_items(size);
            let (groups, _) = topk_sample(1 << 30, size).unwrap();
            assert!(groups > TOPK_MAX_K);
            let smallest = groups * TOPK_SAMPLE_SHARE * load;
            assert_eq!(topk_sample(smallest - 1, size), None);
            for n in [smallest, smallest * 3 + 17, 1 << 28, (1 << 32) - 2] {
                let (groups, len) = topk_sample(n, size).unwrap();
                assert!(
                    len > 0 && len % load == 0 && len <= n / groups,
                    "{n} {size}"
                );
                assert!(groups * len * TOPK_SAMPLE_SHARE <= n);
            }
        }
    }

    /// A sequential model of topk.cuh's algorithm (its blocks advanced one step at a time in
    /// turn, its radix selects computed by sorting): the sample level, the levels, the pass
    /// rule, the global bound and the refine branches give the exact answer on adversarial
    /// inputs.
    mod model {
        use warp_kernels::catalogue::{BLOCK, TOPK_ITEMS, TOPK_KEEP, TOPK_LEVEL_SLOTS};

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

        /// The bound the sample level leaves: the k-th largest of the maxima of `groups`
        /// groups of `len` keys at multiples of n / groups.
        fn sample(keys: &[u64], k: usize, groups: usize, len: usize) -> u64 {
            let stride = keys.len() / groups;
            assert!(len <= stride);
            let mut block = Block::new();
            block.buf = (0..groups)
                .map(|g| {
                    (
                        *keys[g * stride..g * stride + len].iter().max().unwrap(),
                        g as u32,
                    )
                })
                .collect();
            let mut bound = 0;
            block.refine(k, false, false, &mut bound);
            bound
        }

        /// The sorted buffer of a block that writes the answer.
        fn answer(block: Block) -> Vec<(u64, u32)> {
            let mut last = block.buf;
            last.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            last
        }

        /// A block of a later level (or a level's last block) over a dense list of entries.
        fn take(entries: &[(u64, u32)], k: usize, bound: &mut u64) -> Block {
            let mut block = Block::new();
            for chunk in entries.chunks(STEP) {
                block.step(chunk, k, false, bound);
            }
            if block.buf.len() > k {
                block.refine(k, true, false, bound);
            }
            block
        }

        /// The model's answer: (key, index) best first; `groups`: the sample level's
        /// groups (0: none), `len` keys each.
        fn run(keys: &[u64], k: usize, grid0: usize, groups: usize) -> Vec<(u64, u32)> {
            let mut bound = if groups > 0 {
                sample(keys, k, groups, keys.len() / groups / 2)
            } else {
                0
            };
            let levels = super::super::topk_levels(grid0, k);
            let mut list: Vec<(u64, u32)> = Vec::new();
            for (level, &grid) in levels.iter().enumerate() {
                let blocks: Vec<Block> = if level == 0 {
                    // Each block's steps, in its order, advanced in turn.
                    let nsteps = keys.len().div_ceil(STEP);
                    let mut blocks: Vec<Block> = (0..grid).map(|_| Block::new()).collect();
                    for s0 in (0..nsteps).step_by(grid) {
                        for (b, block) in blocks.iter_mut().enumerate() {
                            let s = s0 + b;
                            if s < nsteps {
                                let end = ((s + 1) * STEP).min(keys.len());
                                let entries: Vec<(u64, u32)> =
                                    (s * STEP..end).map(|i| (keys[i], i as u32)).collect();
                                block.step(&entries, k, true, &mut bound);
                            }
                        }
                    }
                    for block in &mut blocks {
                        if block.buf.len() > k {
                            block.refine(k, true, true, &mut bound);
                        }
                    }
                    blocks
                } else {
                    let active = list.len().div_ceil(TOPK_LEVEL_SLOTS);
                    assert!(active <= grid, "level {level}: {active} blocks needed");
                    list.chunks(TOPK_LEVEL_SLOTS)
                        .map(|c| take(c, k, &mut bound))
                        .collect()
                };
                if blocks.len() == 1 {
                    return answer(blocks.into_iter().next().unwrap());
                }
                let out: Vec<(u64, u32)> = blocks
                    .into_iter()
                    .flat_map(|b| b.buf)
                    .filter(|e| e.0 >= bound)
                    .collect();
                if out.len() <= TOPK_LEVEL_SLOTS {
                    return answer(take(&out, k, &mut bound));
                }
                list = out;
            }
            panic!("no level wrote the answer");
        }

        fn check(keys: &[u64], k: usize, grid0: usize, groups: usize, what: &str) {
            let got = run(keys, k, grid0, groups);
            let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(0u32..).collect();
            want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let want: Vec<u32> = want[..k].iter().map(|e| e.1).collect();
            let got_idx: Vec<u32> = got.iter().map(|e| e.1).collect();
            assert_eq!(
                got_idx,
                want,
                "{what}: n={} k={k} grid0={grid0} groups={groups}",
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
                        check(keys, k, grid0, 0, what);
                    }
                    check(keys, k, 40, TOPK_KEEP, what);
                    check(keys, k, 7, k, what);
                }
                // Three levels where the first blocks keep many (all equal: 300,000 then
                // 37,000 then 5,000 candidates).
                check(keys, 1000, 400, 0, what);
            }
        }
    }
}
