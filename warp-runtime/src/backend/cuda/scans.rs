//! Launch code of the scans: one pass with decoupled look-back for exact operators, three
//! deterministic passes for floats.

use warp_kernels::catalogue::{SCAN, SCAN_TILES, ScanMode, status_bytes};

use super::Gpu;
use super::launch::{Args, Input, Out, Staged, Values, ValuesOut, kernel_args};
use crate::error::Result;

kernel_args! {
    /// `wd_k_scan`: one pass in `mode` (a [`ScanMode`]); `status` is the look-back status, or
    /// the tile aggregates in the three-pass modes.
    struct ScanArgs ['v] ['v] for [SCAN] {
        input: Input<'v>,
        n: u64,
        a: Args,
        out: Values<'v>,
        exclusive: u32,
        mode: u32,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_scan_tiles`: the tile aggregates scanned in order by one block.
    struct ScanTilesArgs ['v] ['v] for [SCAN_TILES] {
        vals: Values<'v>,
        n: u64,
    }
}

/// What a scan computes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanShape {
    /// Whether the operator is exact (no floats): any grouping gives the same result.
    pub(crate) exact: bool,
    /// Exclusive (`out[0]` is the identity) or inclusive.
    pub(crate) exclusive: bool,
}

impl Gpu {
    /// Scans the values `s` reads into `out` (one value per element). Exact values: one pass
    /// with decoupled look-back. Others (floats): three passes (tile aggregates, their scan
    /// in a fixed order, the tiles from their prefixes), so that the result does not depend
    /// on timing.
    pub(crate) fn scan(
        &self,
        s: Staged<'_, '_>,
        out: ValuesOut<'_>,
        shape: ScanShape,
    ) -> Result<()> {
        let m = s.module;
        let n = s.input.len();
        let value_size = out.value_size;
        let mut out = out.bytes;
        let tiles = self.single_pass_tiles(n)?;
        let queue = self.queue_bytes();
        let mut pass = |mode: ScanMode, status: u64, queue: Out<'_, u32>| {
            self.launch(
                m,
                &SCAN,
                tiles as u32,
                &mut ScanArgs {
                    input: s.arrays(&self.stream),
                    n: n as u64,
                    a: Args(s.args),
                    out: Values::At(out.slice_mut(..)),
                    exclusive: shape.exclusive as u32,
                    mode: mode as u32,
                    status: Out::raw(status),
                    queue,
                },
            )
        };
        if shape.exact {
            self.with_scratch(&[status_bytes(tiles, value_size), queue], &[], |r| {
                let timer = self.start_timing()?;
                pass(ScanMode::LookBack, r.at(0), Gpu::queue_arg(queue, r.at(1)))?;
                self.stop_timing(timer)
            })
        } else {
            // Pass 1 writes every tile's aggregate before pass 2 reads them; each pass takes
            // tiles from its own zeroed queue.
            self.with_scratch(&[queue, queue], &[tiles * value_size], |r| {
                let vals = r.at(2);
                let timer = self.start_timing()?;
                pass(ScanMode::Aggregates, vals, Gpu::queue_arg(queue, r.at(0)))?;
                self.launch(
                    m,
                    &SCAN_TILES,
                    1,
                    &mut ScanTilesArgs {
                        vals: Values::Raw(vals),
                        n: tiles as u64,
                    },
                )?;
                pass(ScanMode::Given, vals, Gpu::queue_arg(queue, r.at(1)))?;
                self.stop_timing(timer)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;
    use super::*;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<ScanArgs<'_>>();
        check::<ScanTilesArgs<'_>>();
    }
}
