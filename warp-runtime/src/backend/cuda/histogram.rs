//! Launch code of the histogram: warp-aggregated counts (or sums of weights) in per-block
//! shared bins (or straight to global memory when they do not fit), and the narrowing of 32-bit
//! counts to 1- and 2-byte counters.

use cudarc::driver::CudaView;
use cudarc::driver::CudaViewMut;
use warp_kernels::catalogue::{
    BLOCK, HIST_BLOCK_ELEMS_MAX, HIST_NARROW, HISTOGRAM, HISTOGRAM_REDUCE, HISTOGRAM_WEIGHTED,
    Kernel, TILE, hist_replicas_of,
};

use super::launch::{Args, In, Input, Out, Staged, kernel_args};
use super::{Gpu, MAX_GRID, drv};
use crate::error::Result;

kernel_args! {
    /// `wd_k_histogram`.
    struct HistogramArgs ['v] ['v] for [HISTOGRAM] {
        input: Input<'v>,
        n: u64,
        a: Args,
        bins: u64,
        replicas: u32,
        wide: u32,
        counts: Out<'v, u8>,
    }
}

kernel_args! {
    /// `wd_k_histogram_weighted` and `wd_k_histogram_reduce`.
    struct HistogramWeightedArgs ['v] ['v] for [HISTOGRAM_WEIGHTED, HISTOGRAM_REDUCE] {
        input: Input<'v>,
        n: u64,
        a: Args,
        bins: u64,
        replicas: u32,
        weights: In<'v, u8>,
        sums: Out<'v, u8>,
    }
}

kernel_args! {
    /// `wd_k_hist_narrow`.
    struct HistNarrowArgs ['v] ['v] for [HIST_NARROW] {
        wide: In<'v, u32>,
        bins: u64,
        width: u32,
        out: Out<'v, u8>,
    }
}

/// How `wd_k_histogram` runs: its grid, the columns of each bin in shared memory (0: global
/// memory) and the dynamic shared memory they take.
#[derive(Clone, Copy)]
struct Plan {
    grid: u32,
    replicas: u32,
    shared: usize,
}

/// Where the bins of a weighted histogram start.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Start<'a> {
    /// At zero (sums).
    Zero,
    /// At the operator's identity (these bytes).
    Identity(&'a [u8]),
    /// At what the output holds (a scatter).
    Kept,
}

impl Gpu {
    /// The histogram of the values `s` reads, binned by its module's `wd_bin_of`, into `out`:
    /// `bins` counters of `counter` bytes (1, 2, 4 or 8), overwritten. Counters of 4 and 8
    /// bytes are counted in place (zeroed first); narrower ones in 32-bit scratch, then
    /// narrowed.
    pub(crate) fn histogram(
        &self,
        s: Staged<'_, '_>,
        bins: usize,
        counter: usize,
        mut out: CudaViewMut<'_, u8>,
    ) -> Result<()> {
        let n = s.input.len();
        // Everything the host computes comes before the timed work (no idle gap inside it).
        let plan = self.histogram_plan(&s, &HISTOGRAM, bins, 4)?;
        let narrow = s.module.function(&HIST_NARROW)?;
        let narrow_grid = self.resident_grid(&narrow, bins.div_ceil(BLOCK as usize));
        let timer = self.start_timing()?;
        if counter >= 4 {
            self.stream
                .memset_zeros(&mut out)
                .map_err(drv("zeroing a histogram"))?;
            if n > 0 {
                self.histogram_counts(&s, bins, plan, counter == 8, Out::At(out))?;
            }
            return self.stop_timing(timer);
        }
        self.with_scratch(&[bins * 4], &[], |r| {
            if n > 0 {
                self.histogram_counts(&s, bins, plan, false, Out::raw(r.at(0)))?;
            }
            self.launch(
                s.module,
                &HIST_NARROW,
                narrow_grid,
                &mut HistNarrowArgs {
                    wide: In::raw(r.at(0)),
                    bins: bins as u64,
                    width: counter as u32,
                    out: Out::At(out),
                },
            )
        })?;
        self.stop_timing(timer)
    }

    /// The launch of `wd_k_histogram` over the values of `s` into `bins` bins: one resident
    /// wave (blocks per SM from the occupancy with the shared memory the bins take: a
    /// grid-stride kernel launched with more would run its last blocks in a nearly empty
    /// second wave), but at least enough blocks that each counts fewer than
    /// [`HIST_BLOCK_ELEMS_MAX`] elements (its 32-bit shared counters cannot overflow).
    /// `kernel` (`wd_k_histogram`, or the weighted one with bins of `word` bytes).
    fn histogram_plan(
        &self,
        s: &Staged<'_, '_>,
        kernel: &'static Kernel,
        bins: usize,
        word: usize,
    ) -> Result<Plan> {
        let n = s.input.len();
        let f = s.module.function(kernel)?;
        let warps_per_block = (BLOCK / 32) as usize;
        let needed = n.div_ceil(TILE).div_ceil(warps_per_block);
        let replicas = hist_replicas_of(bins, word);
        let shared = replicas as usize * (bins + 1) * word;
        let per_sm = if shared == 0 {
            f.blocks_per_sm
        } else {
            f.func
                .occupancy_max_active_blocks_per_multiprocessor(BLOCK, shared, None)
                .map_err(drv("querying occupancy"))?
                .max(1)
        };
        let resident = needed
            .max(1)
            .min((self.shared.sms * per_sm) as usize)
            .min(MAX_GRID) as u32;
        let floor = (n as u64).div_ceil(HIST_BLOCK_ELEMS_MAX) as u32;
        Ok(Plan {
            grid: resident.max(floor),
            replicas,
            shared,
        })
    }

    /// The weighted histogram of the values `s` reads, binned by its module's `wd_bin_of`,
    /// into `out`: `bins` sums of `word`-byte weights (`weights`, one per value), from zero;
    /// or, `start` being an identity or `Kept`, the module's `#[reduce]` operator's
    /// combinations (`wd_k_histogram_reduce`) from that identity or from what `out` holds.
    pub(crate) fn histogram_weighted(
        &self,
        s: Staged<'_, '_>,
        bins: usize,
        word: usize,
        weights: CudaView<'_, u8>,
        mut out: CudaViewMut<'_, u8>,
        start: Start<'_>,
    ) -> Result<()> {
        let n = s.input.len();
        // Sums start at zero; a #[reduce] operator's combinations at its identity, or (a
        // scatter) at what `out` holds.
        let k = match start {
            Start::Zero => &HISTOGRAM_WEIGHTED,
            Start::Identity(_) | Start::Kept => &HISTOGRAM_REDUCE,
        };
        let plan = self.histogram_plan(&s, k, bins, word)?;
        let first = match start {
            Start::Identity(id) => Some(id.repeat(bins)),
            _ => None,
        };
        let timer = self.start_timing()?;
        match (&first, start) {
            (Some(bytes), _) => self
                .stream
                .memcpy_htod(bytes, &mut out)
                .map_err(drv("setting a histogram to the identity"))?,
            (None, Start::Zero) => self
                .stream
                .memset_zeros(&mut out)
                .map_err(drv("zeroing a histogram"))?,
            _ => {}
        }
        if n > 0 {
            self.launch_shared(
                s.module,
                k,
                plan.grid,
                plan.shared as u32,
                &mut HistogramWeightedArgs {
                    input: s.arrays(&self.stream),
                    n: n as u64,
                    a: Args(s.args),
                    bins: bins as u64,
                    replicas: plan.replicas,
                    weights: In::At(weights),
                    sums: Out::At(out),
                },
            )?;
        }
        self.stop_timing(timer)
    }

    /// One launch of `wd_k_histogram` adding the counts of the `n > 0` values of `s` to
    /// `counts` (`bins` words of 32 bits, 64 when `wide`).
    fn histogram_counts(
        &self,
        s: &Staged<'_, '_>,
        bins: usize,
        plan: Plan,
        wide: bool,
        counts: Out<'_, u8>,
    ) -> Result<()> {
        self.launch_shared(
            s.module,
            &HISTOGRAM,
            plan.grid,
            plan.shared as u32,
            &mut HistogramArgs {
                input: s.arrays(&self.stream),
                n: s.input.len() as u64,
                a: Args(s.args),
                bins: bins as u64,
                replicas: plan.replicas,
                wide: wide as u32,
                counts,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<super::HistogramArgs<'_>>();
        check::<super::HistNarrowArgs<'_>>();
    }
}
