//! Launch code of the scans, plain and segmented (rows, CSR segments): one pass each, its tile
//! prefixes by decoupled look-back for exact operators, by the look-back over exact tile sums
//! for f32 sums, and by the fixed tree (or the predecessor's aggregate) where the grouping could
//! otherwise change the bits.

use cudarc::driver::CudaView;

use warp_kernels::catalogue::{
    BLOCK, BLOCK_TILE, SCAN, SCAN_COLS, SCAN_ROWS, SCAN_SEGMENTS, ScanMode, scan_span,
};

use super::launch::{Args, In, Input, Out, Staged, Values, ValuesIn, ValuesOut, kernel_args};
use super::{Gpu, drv};
use crate::error::Result;

kernel_args! {
    /// `wd_k_scan`: one pass, tile prefixes by `mode` (a [`ScanMode`]) through `status`.
    struct ScanArgs ['v] ['v] for [SCAN] {
        input: Input<'v>,
        n: u64,
        a: Args,
        out: Values<'v>,
        exclusive: u32,
        init: ValuesIn<'v>,
        mode: u32,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_scan_rows`: [`ScanArgs`] with heads every `cols` elements.
    struct ScanRowsArgs ['v] ['v] for [SCAN_ROWS] {
        input: Input<'v>,
        n: u64,
        a: Args,
        cols: u64,
        out: Values<'v>,
        exclusive: u32,
        mode: u32,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_scan_segments`: [`ScanArgs`] with heads at CSR offsets; `flags[0]` is set when
    /// they are bad.
    struct ScanSegmentsArgs ['v] ['v] for [SCAN_SEGMENTS] {
        input: Input<'v>,
        n: u64,
        a: Args,
        offsets: In<'v, u64>,
        nseg: u64,
        flags: Out<'v, u32>,
        out: Values<'v>,
        exclusive: u32,
        mode: u32,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
    }
}

/// What a scan computes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanShape {
    /// Whether the operator is exact (no floats): any grouping gives the same result.
    pub(crate) exact: bool,
    /// Whether it is f32 addition with a zero identity (`OpFragment::f32_sum`): its tile
    /// prefixes can be summed exactly.
    pub(crate) f32_sum: bool,
    /// Exclusive (the identity at each segment's first element) or inclusive.
    pub(crate) exclusive: bool,
}

/// Where segments start.
pub(crate) enum Heads<'o> {
    /// One segment: the plain scan, continued from `init` (the value's C bytes) when given.
    Whole { init: Option<&'o [u8]> },
    /// The rows of a row-major matrix of this many columns.
    Rows(usize),
    /// CSR offsets (segments + 1 of them, from 0 to the input's length).
    Csr(CudaView<'o, u64>),
}

impl Heads<'_> {
    /// How the tiles get their prefixes: the predecessor's aggregate when every tile holds a
    /// head (rows at most a tile long); else the look-back for exact operators, the look-back
    /// over exact tile sums for unsegmented f32 sums, and the fixed tree for the others.
    fn mode(&self, shape: ScanShape) -> ScanMode {
        match self {
            Heads::Rows(cols) if *cols <= BLOCK_TILE => ScanMode::Predecessor,
            _ if shape.exact => ScanMode::LookBack,
            Heads::Whole { .. } if shape.f32_sum => ScanMode::ExactSum,
            _ => ScanMode::Tree,
        }
    }
}

kernel_args! {
    /// `wd_k_scan_cols`: each line along the middle axis of an (outer, rows, inner) array.
    struct ScanColsArgs ['v] ['v] for [SCAN_COLS] {
        input: Input<'v>,
        n: u64,
        a: Args,
        rows: u64,
        inner: u64,
        out: Values<'v>,
        exclusive: u32,
    }
}

impl Gpu {
    /// Scans each line along the middle axis of the `(n / (rows * inner), rows, inner)` array
    /// of values `s` reads into `out` (`rows > 0`), one thread a line.
    pub(crate) fn scan_cols(
        &self,
        s: Staged<'_, '_>,
        out: ValuesOut<'_>,
        rows: usize,
        inner: usize,
        exclusive: bool,
    ) -> Result<()> {
        let n = s.input.len();
        let lines = n / rows;
        let f = s.module.function(&SCAN_COLS)?;
        let grid = self.resident_grid(&f, lines.div_ceil(BLOCK as usize));
        let timer = self.start_timing()?;
        self.launch(
            s.module,
            &SCAN_COLS,
            grid,
            &mut ScanColsArgs {
                input: s.arrays(&self.stream),
                n: n as u64,
                a: Args(s.args),
                rows: rows as u64,
                inner: inner as u64,
                out: Values::At(out.bytes),
                exclusive: exclusive as u32,
            },
        )?;
        self.stop_timing(timer)
    }

    /// Scans the values `s` reads into `out` (one value per element), restarting at each head,
    /// in one pass (see [`Heads::mode`]). Returns whether CSR offsets were bad (only then does
    /// it wait for the kernel, to read its flag).
    pub(crate) fn scan(
        &self,
        s: Staged<'_, '_>,
        out: ValuesOut<'_>,
        shape: ScanShape,
        heads: Heads<'_>,
    ) -> Result<bool> {
        let m = s.module;
        let n = s.input.len();
        let value_size = out.value_size;
        let mut out = out.bytes;
        // The plain scan's warps take scan_span warp tiles each (wd_scan_span in scan.cuh).
        let block_tile = match heads {
            Heads::Whole { .. } => BLOCK_TILE * scan_span(&s.input.sizes, value_size),
            _ => BLOCK_TILE,
        };
        let tiles = self.single_pass_tiles(n, block_tile)?;
        let queue = self.queue_bytes();
        let mode = heads.mode(shape);
        let segmented = !matches!(heads, Heads::Whole { .. });
        let status = mode.status_bytes(tiles, value_size, segmented);
        let flags = if matches!(heads, Heads::Csr(_)) { 4 } else { 0 };
        let init = match heads {
            Heads::Whole { init } => init,
            _ => None,
        };
        let init_bytes = init.map_or(0, <[u8]>::len);
        self.with_scratch(&[status, queue, flags], &[init_bytes], |r| {
            let (status, queue) = (Out::raw(r.at(0)), Gpu::queue_arg(queue, r.at(1)));
            // The initial value travels in this operation's scratch (stream-ordered, as the
            // kernel that reads it).
            let init = match init {
                Some(bytes) => {
                    self.write_bytes(r.at(3), bytes)?;
                    ValuesIn::Raw(r.at(3))
                }
                None => ValuesIn::Raw(0),
            };
            let (input, a, exclusive) = (s.arrays(&self.stream), Args(s.args), shape.exclusive);
            let (out, mode) = (Values::At(out.slice_mut(..)), mode as u32);
            let (n, exclusive) = (n as u64, exclusive as u32);
            let timer = self.start_timing()?;
            match &heads {
                Heads::Whole { .. } => self.launch(
                    m,
                    &SCAN,
                    tiles as u32,
                    &mut ScanArgs {
                        input,
                        n,
                        a,
                        out,
                        exclusive,
                        init,
                        mode,
                        status,
                        queue,
                    },
                )?,
                Heads::Rows(cols) => self.launch(
                    m,
                    &SCAN_ROWS,
                    tiles as u32,
                    &mut ScanRowsArgs {
                        input,
                        n,
                        a,
                        cols: *cols as u64,
                        out,
                        exclusive,
                        mode,
                        status,
                        queue,
                    },
                )?,
                Heads::Csr(offsets) => self.launch(
                    m,
                    &SCAN_SEGMENTS,
                    tiles as u32,
                    &mut ScanSegmentsArgs {
                        input,
                        n,
                        a,
                        offsets: In::At(offsets.slice(..)),
                        nseg: (offsets.len() - 1) as u64,
                        flags: Out::raw(r.at(2)),
                        out,
                        exclusive,
                        mode,
                        status,
                        queue,
                    },
                )?,
            }
            self.stop_timing(timer)?;
            match heads {
                Heads::Csr(_) => Ok(self.read_flag(r.at(2))? != 0),
                _ => Ok(false),
            }
        })
    }

    /// Waits for the stream, then reads the `u32` flag a kernel left at `flag` (device scratch
    /// of this operation).
    pub(super) fn read_flag(&self, flag: u64) -> Result<u32> {
        let mut f = [0u32; 1];
        self.read_scratch(flag, &mut f)?;
        Ok(f[0])
    }

    /// Waits for the stream, then reads `out.len()` words that kernels left at `at` (device
    /// scratch of this operation, at least that long).
    pub(super) fn read_scratch<T: cudarc::driver::DeviceRepr>(
        &self,
        at: u64,
        out: &mut [T],
    ) -> Result<()> {
        self.synchronize()?;
        if out.is_empty() {
            return Ok(());
        }
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(drv("binding the context"))?;
        // SAFETY: `at` is this operation's scratch, at least `out.len()` words, written by
        // kernels on this stream, which have completed (the stream was synchronized).
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(out, at) }
            .map_err(drv("reading scratch"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;
    use super::*;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<ScanArgs<'_>>();
        check::<ScanRowsArgs<'_>>();
        check::<ScanSegmentsArgs<'_>>();
        check::<ScanColsArgs<'_>>();
    }

    #[test]
    fn modes() {
        let shape = |exact, f32_sum| ScanShape {
            exact,
            f32_sum,
            exclusive: false,
        };
        let (exact, float, sum) = (shape(true, false), shape(false, false), shape(false, true));
        let whole = Heads::Whole { init: None };
        assert_eq!(whole.mode(exact), ScanMode::LookBack);
        assert_eq!(whole.mode(float), ScanMode::Tree);
        assert_eq!(whole.mode(sum), ScanMode::ExactSum);
        assert_eq!(Heads::Rows(BLOCK_TILE).mode(float), ScanMode::Predecessor);
        assert_eq!(Heads::Rows(BLOCK_TILE).mode(sum), ScanMode::Predecessor);
        assert_eq!(Heads::Rows(BLOCK_TILE + 1).mode(float), ScanMode::Tree);
        assert_eq!(Heads::Rows(BLOCK_TILE + 1).mode(sum), ScanMode::Tree);
        assert_eq!(Heads::Rows(BLOCK_TILE + 1).mode(exact), ScanMode::LookBack);
    }
}
