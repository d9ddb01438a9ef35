//! Launch code of the scans: one pass with decoupled look-back for exact operators, three
//! deterministic passes for floats.

use cudarc::driver::CudaViewMut;
use warp_kernels::catalogue::{SCAN, SCAN_TILES, ScanMode, status_bytes};

use super::launch::{Args, Elems, Out, Staged, Values, ValuesOut, kernel_args};
use super::{Gpu, drv};
use crate::error::Result;
use crate::values::Element;

kernel_args! {
    /// `wd_k_scan`: one pass in `mode` (a [`ScanMode`]); `status` is the look-back status, or
    /// the tile aggregates in the three-pass modes.
    struct ScanArgs ['v, E] ['v, E] for [SCAN] {
        p: Elems<'v, E>,
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
    /// Scans the values `s` reads into `out` (one value per element).
    /// Exact values: one pass with decoupled look-back. Others (floats): three passes (tile
    /// aggregates, their scan in a fixed order, the tiles from their prefixes), so that the
    /// result does not depend on timing.
    pub(crate) fn scan<E: Element>(
        &self,
        s: Staged<'_, '_, E>,
        out: ValuesOut<'_>,
        shape: ScanShape,
    ) -> Result<()> {
        let m = s.module;
        let n = s.input.len();
        let value_size = out.value_size;
        let mut out = out.bytes;
        let tiles = self.single_pass_tiles(n)?;
        let mut queue = self.tile_queue()?;
        let mut pass = |mode: ScanMode, status: CudaViewMut<'_, u8>, queue: Out<'_, u32>| {
            self.launch(
                m,
                &SCAN,
                tiles as u32,
                &mut ScanArgs {
                    p: s.elems(),
                    n: n as u64,
                    a: Args(s.args),
                    out: Values::At(out.slice_mut(..)),
                    exclusive: shape.exclusive as u32,
                    mode: mode as u32,
                    status: Out::At(status),
                    queue,
                },
            )
        };
        fn queue_arg(q: &mut Option<cudarc::driver::CudaSlice<u32>>) -> Out<'_, u32> {
            match q {
                Some(q) => Out::At(q.as_view_mut()),
                None => Out::Null(0),
            }
        }
        if shape.exact {
            let mut status = self.zeros::<u8>(status_bytes(tiles, value_size))?;
            let timer = self.start_timing()?;
            pass(
                ScanMode::LookBack,
                status.as_view_mut(),
                queue_arg(&mut queue),
            )?;
            self.stop_timing(timer)
        } else {
            // Pass 1 writes every tile's aggregate before pass 2 reads them.
            let mut vals = self.alloc::<u8>(tiles * value_size)?;
            let timer = self.start_timing()?;
            pass(
                ScanMode::Aggregates,
                vals.as_view_mut(),
                queue_arg(&mut queue),
            )?;
            if let Some(q) = &mut queue {
                self.stream
                    .memset_zeros(q)
                    .map_err(drv("re-arming a queue"))?;
            }
            self.launch(
                m,
                &SCAN_TILES,
                1,
                &mut ScanTilesArgs {
                    vals: Values::At(vals.as_view_mut()),
                    n: tiles as u64,
                },
            )?;
            pass(ScanMode::Given, vals.as_view_mut(), queue_arg(&mut queue))?;
            self.stop_timing(timer)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;
    use super::*;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<ScanArgs<'_, f32>>();
        check::<ScanTilesArgs<'_>>();
    }
}
