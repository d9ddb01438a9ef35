//! Launch code of the axis reductions: rows (sub-warp groups, a warp, a block or several
//! blocks per row), columns through the padded tile, and CSR segments (short ones a warp
//! each, long ones chunked over the whole grid).

use cudarc::driver::{CudaView, CudaViewMut};

use warp_kernels::catalogue::{
    self, BLOCK, COLS, COLS_TILE, COLS_UNPADDED, COLS_VEC, COLS_VEC_BLOCK, COLS_VEC_MIN, Kernel,
    ROWS_BLOCK, ROWS_GROUPS, ROWS_SPLIT, ROWS_WARP, SEG_CHUNK, SEG_LONG, SEGMENTS, SEGMENTS_LONG,
    SEGMENTS_PLAN,
};

use super::Gpu;
use super::launch::{Args, Grid, In, Input, Out, Staged, Values, ValuesOut, kernel_args};
use crate::error::{Error, Result};

kernel_args! {
    /// The row kernels of one row per group, warp or block.
    struct RowsArgs ['v] ['v] for [
        catalogue::ROWS_G1, catalogue::ROWS_G2, catalogue::ROWS_G4, catalogue::ROWS_G8,
        catalogue::ROWS_G16, ROWS_WARP, ROWS_BLOCK,
    ] {
        input: Input<'v>,
        n: u64,
        a: Args,
        rows: u64,
        cols: u64,
        out: Values<'v>,
    }
}

kernel_args! {
    /// `wd_k_rows_split`: several blocks per row.
    struct RowsSplitArgs ['v] ['v] for [ROWS_SPLIT] {
        input: Input<'v>,
        n: u64,
        a: Args,
        rows: u64,
        cols: u64,
        blocks_per_row: u64,
        partials: Values<'v>,
        tickets: Out<'v, u32>,
        out: Values<'v>,
    }
}

kernel_args! {
    /// `wd_k_cols`, its unpadded twin and the vector column reduction.
    struct ColsArgs ['v] ['v] for [COLS, COLS_UNPADDED, COLS_VEC] {
        input: Input<'v>,
        n: u64,
        a: Args,
        rows: u64,
        cols: u64,
        inner: u64,
        rows_per_block: u64,
        partials: Values<'v>,
        tickets: Out<'v, u32>,
        out: Values<'v>,
    }
}

kernel_args! {
    /// `wd_k_segments`.
    struct SegmentsArgs ['v] ['v] for [SEGMENTS] {
        input: Input<'v>,
        n: u64,
        a: Args,
        offsets: In<'v, u64>,
        nseg: u64,
        out: Values<'v>,
        flags: Out<'v, u32>,
        longs: Out<'v, u64>,
        cap: u64,
    }
}

kernel_args! {
    /// `wd_k_segments_plan`.
    struct SegmentsPlanArgs ['v] ['v] for [SEGMENTS_PLAN] {
        flags: In<'v, u32>,
        longs: In<'v, u64>,
        cap: u64,
        first: Out<'v, u64>,
        tickets: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_segments_long`.
    struct SegmentsLongArgs ['v] ['v] for [SEGMENTS_LONG] {
        input: Input<'v>,
        n: u64,
        a: Args,
        offsets: In<'v, u64>,
        flags: In<'v, u32>,
        longs: In<'v, u64>,
        cap: u64,
        first: In<'v, u64>,
        partials: Values<'v>,
        tickets: Out<'v, u32>,
        out: Values<'v>,
    }
}

/// The shape of a row-major matrix.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
}

impl Gpu {
    /// Reduces the rows of the matrix `s` reads (`shape`) into `out` (`shape.rows` values),
    /// with the kernel the shape calls for.
    pub(crate) fn reduce_rows(
        &self,
        s: Staged<'_, '_>,
        shape: Rows,
        out: ValuesOut<'_>,
    ) -> Result<()> {
        let Rows { rows, cols } = shape;
        let Staged {
            module: m,
            input,
            args,
        } = s;
        let ValuesOut {
            bytes: out,
            value_size,
        } = out;
        let esize = input.widest();
        // Elements a lane reads at once: a vector (16 bytes of the widest array) when every
        // row of every array starts aligned (the kernels' test, `aligned(0)` and whole vectors
        // per row).
        let aligned = input.vector_aligned(&self.stream) && cols.is_multiple_of(16 / esize);
        let vec = if aligned { 16 / esize } else { 1 };
        let group = cols.div_ceil(vec).next_power_of_two();
        let n = input.len() as u64;
        // `resident`: a grid the GPU holds at once, each block striding over its rows; else a
        // block per row (up to 2^20 blocks, then striding), which the GPU's block scheduler
        // hands out as blocks finish: rows of equal length then end evenly however many
        // there are (a resident grid gives some blocks one row more than others).
        let one_per = |k: &'static Kernel,
                       rows_per_block: usize,
                       resident: bool,
                       out: CudaViewMut<'_, u8>| {
            let needed = rows.div_ceil(rows_per_block);
            let grid = if resident {
                self.resident_grid(&m.function(k)?, needed)
            } else {
                needed.clamp(1, 1 << 20) as u32
            };
            let mut args = RowsArgs {
                input: input.arg(&self.stream),
                n,
                a: Args(args),
                rows: rows as u64,
                cols: cols as u64,
                out: Values::At(out),
            };
            let timer = self.start_timing()?;
            self.launch(m, k, grid, &mut args)?;
            self.stop_timing(timer)
        };
        if group <= 16 {
            let k = ROWS_GROUPS[group.trailing_zeros() as usize];
            return one_per(k, BLOCK as usize / group, true, out);
        }
        if cols <= 8192 {
            return one_per(&ROWS_WARP, BLOCK as usize / 32, true, out);
        }
        // Many long rows (at least four for each block the GPU holds at once, so that they
        // end evenly): a block per row.
        let held = (self.shared.sms * m.function(&ROWS_BLOCK)?.blocks_per_sm) as usize;
        if rows >= 4 * held {
            return one_per(&ROWS_BLOCK, 1, false, out);
        }
        let resident = (self.shared.sms * m.function(&ROWS_SPLIT)?.blocks_per_sm) as usize;
        // Few long rows: several blocks per row (each at least 16 vectors a thread), the
        // row's last block combining their partials.
        let min_chunk = BLOCK as usize * 16 * (16 / esize);
        let per_row = resident.div_ceil(rows).min(cols.div_ceil(min_chunk)).max(1);
        if rows * per_row > u32::MAX as usize {
            return Err(Error::Shape(format!("{rows} rows are too many")));
        }
        let blocks = rows * per_row;
        // Each block writes its partial before the row's last block reads it.
        self.with_scratch(&[rows * 4], &[blocks * value_size], |r| {
            let timer = self.start_timing()?;
            self.launch(
                m,
                &ROWS_SPLIT,
                blocks as u32,
                &mut RowsSplitArgs {
                    input: input.arg(&self.stream),
                    n,
                    a: Args(args),
                    rows: rows as u64,
                    cols: cols as u64,
                    blocks_per_row: per_row as u64,
                    partials: Values::Raw(r.at(1)),
                    tickets: Out::raw(r.at(0)),
                    out: Values::At(out),
                },
            )?;
            self.stop_timing(timer)
        })
    }

    /// Reduces the columns of `batches` matrices of shape `shape`, one after the other in what
    /// `s` reads, into `out` (`batches * shape.cols` values, batch by batch: the middle axis of
    /// a (batches, rows, cols) array; one batch for a plain matrix): wide matrices whose rows
    /// are whole aligned vectors by the vector column reduction (a thread per vector of
    /// columns, the rows split to give each SM 8 blocks of at least 16 rows), others through
    /// the padded tile (or, for the padding measurement, the unpadded one: 32 columns a block,
    /// at least 64 rows). The kernels see `batches * shape.cols` columns.
    pub(crate) fn reduce_cols(
        &self,
        s: Staged<'_, '_>,
        shape: Rows,
        batches: usize,
        out: ValuesOut<'_>,
        padded: bool,
    ) -> Result<()> {
        let Rows { rows, cols: inner } = shape;
        let cols = inner
            .checked_mul(batches)
            .ok_or_else(|| Error::Shape(format!("{batches} x {inner} columns are too many")))?;
        if cols == 0 {
            return Ok(());
        }
        let vec = 16 / s.input.widest().max(1);
        // Split the rows over enough blocks to give each SM about 8 (the vector reduction at
        // most 8, the tile at least).
        let grid = 8 * self.shared.sms as usize;
        let (k, col_blocks, splits) = if padded
            && cols >= COLS_VEC_MIN
            && inner.is_multiple_of(vec)
            && s.input.vector_aligned(&self.stream)
        {
            let blocks = (cols / vec).div_ceil(COLS_VEC_BLOCK as usize);
            (&COLS_VEC, blocks, (grid / blocks).min(rows.div_ceil(16)))
        } else {
            let k = if padded { &COLS } else { &COLS_UNPADDED };
            let tiles = cols.div_ceil(COLS_TILE);
            (k, tiles, grid.div_ceil(tiles).min(rows.div_ceil(64)))
        };
        s.module.function(k)?;
        if col_blocks > i32::MAX as usize {
            return Err(Error::Shape(format!("{cols} columns are too many")));
        }
        let splits = splits.clamp(1, 65535);
        let rows_per_block = rows.div_ceil(splits).max(1);
        let splits = rows.div_ceil(rows_per_block).max(1);
        // Each block writes its partials before its column block's last block reads them; the
        // tickets (zeroed, re-armed by the kernel) count a column block's blocks. One block a
        // column block uses neither: no memset is enqueued for them.
        let (tickets, partials) = if splits > 1 {
            (col_blocks * 4, splits * cols * out.value_size)
        } else {
            (0, 0)
        };
        self.with_scratch(&[tickets], &[partials], |r| {
            let timer = self.start_timing()?;
            self.launch(
                s.module,
                k,
                Grid(col_blocks as u32, splits as u32),
                &mut ColsArgs {
                    input: s.arrays(&self.stream),
                    n: s.input.len() as u64,
                    a: Args(s.args),
                    rows: rows as u64,
                    cols: cols as u64,
                    inner: inner as u64,
                    rows_per_block: rows_per_block as u64,
                    partials: Values::Raw(r.at(1)),
                    tickets: Out::raw(r.at(0)),
                    out: Values::At(out.bytes),
                },
            )?;
            self.stop_timing(timer)
        })
    }

    /// Reduces the CSR segments (`offsets`, one more than segments) of the elements `s`
    /// reads into `out` (a value per segment).
    /// Returns `true` when the kernel found offsets that are out of order or past the input
    /// (it reads nothing outside the input either way). Segments longer than `SEG_LONG`
    /// elements are listed by that kernel and then reduced by the whole grid, in chunks of
    /// `SEG_CHUNK`.
    pub(crate) fn reduce_segments(
        &self,
        s: Staged<'_, '_>,
        offsets: CudaView<'_, u64>,
        out: ValuesOut<'_>,
    ) -> Result<bool> {
        let Staged {
            module: m,
            input,
            args,
        } = s;
        let ValuesOut {
            bytes: mut out,
            value_size,
        } = out;
        let nseg = offsets.len() - 1;
        let grid = self.resident_grid(&m.function(&SEGMENTS)?, nseg.div_ceil(BLOCK as usize / 32));
        let n = input.len();
        // flags[0]: bad offsets; flags[1]: segments longer than SEG_LONG, listed in `longs`
        // as (segment, length) pairs. Valid offsets leave at most n / (SEG_LONG + 1) of them;
        // the kernel lists no more than `cap` (more means bad offsets, reported instead).
        let cap = nseg.min(n / (SEG_LONG + 1)).max(1);
        // At most first[count] partials are used: n / SEG_CHUNK + count bounds it for valid
        // offsets (with bad ones the list is empty).
        let nparts = n.div_ceil(SEG_CHUNK) + cap;
        // Zeroed: flags. Unset: longs (the kernel writes the first 2 * flags[1] entries, the
        // only ones read), first (the plan kernel writes first[0 ..= count]), tickets (the plan
        // kernel zeroes tickets[.. count], the only ones used), partials (each chunk's block
        // writes its partial before the segment's last block reads them).
        let unset = [16 * cap, 8 * (cap + 1), 4 * cap, nparts * value_size];
        self.with_scratch(&[8], &unset, |r| {
            let (flags, longs, first, tickets, partials) =
                (r.at(0), r.at(1), r.at(2), r.at(3), r.at(4));
            let timer = self.start_timing()?;
            self.launch(
                m,
                &SEGMENTS,
                grid,
                &mut SegmentsArgs {
                    input: input.arg(&self.stream),
                    n: n as u64,
                    a: Args(args),
                    offsets: In::At(offsets.slice(..)),
                    nseg: nseg as u64,
                    out: Values::At(out.slice_mut(..)),
                    flags: Out::raw(flags),
                    longs: Out::raw(longs),
                    cap: cap as u64,
                },
            )?;
            // The long ones: numbered in chunks by one block, then reduced by the whole grid
            // (both find the list empty when there is none, or when the offsets are bad).
            self.launch(
                m,
                &SEGMENTS_PLAN,
                1,
                &mut SegmentsPlanArgs {
                    flags: In::raw(flags),
                    longs: In::raw(longs),
                    cap: cap as u64,
                    first: Out::raw(first),
                    tickets: Out::raw(tickets),
                },
            )?;
            let grid2 = self.resident_grid(&m.function(&SEGMENTS_LONG)?, nparts);
            self.launch(
                m,
                &SEGMENTS_LONG,
                grid2,
                &mut SegmentsLongArgs {
                    input: input.arg(&self.stream),
                    n: n as u64,
                    a: Args(args),
                    offsets: In::At(offsets.slice(..)),
                    flags: In::raw(flags),
                    longs: In::raw(longs),
                    cap: cap as u64,
                    first: In::raw(first),
                    partials: Values::Raw(partials),
                    tickets: Out::raw(tickets),
                    out: Values::At(out.slice_mut(..)),
                },
            )?;
            self.stop_timing(timer)?;
            // Whether the offsets were bad: flags[0], read once the kernels are done.
            Ok(self.read_flag(flags)? != 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;
    use super::*;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<RowsArgs<'_>>();
        check::<RowsSplitArgs<'_>>();
        check::<ColsArgs<'_>>();
        check::<SegmentsArgs<'_>>();
        check::<SegmentsPlanArgs<'_>>();
        check::<SegmentsLongArgs<'_>>();
    }
}
