//! Launch code of the radix sort: the histogram of every digit, the plan, then one pass per
//! digit (each skipped on the device when the plan says its digit is the same in every key);
//! and of the rows' sort.

use cudarc::driver::{CudaView, CudaViewMut};
use warp_kernels::catalogue::{
    BLOCK, SORT_GATHER, SORT_HISTOGRAM, SORT_PASS, SORT_PLAN, SORT_ROWS, SORT_ROWS_KEYS,
    SORT_ROWS_WARP, SORT_ROWS_WARP_KEYS, SORT_SEGMENTS, SORT_SEGMENTS_PLAN, SORT_UNROLL,
    SORT_WARP_COLS, SORT_WARP_ROWS, SortMoves, SortShape, sort_can_stage, sort_module_name,
    sort_passes, sort_row_tile, sort_rows_per_block, sort_segment_small, sort_segment_window,
};

use super::Gpu;
use super::launch::{Elems, ElemsOut, In, Out, Values, ValuesIn, kernel_args};
use super::modules::Module;
use crate::error::{Error, Result};
use crate::values::Element;

kernel_args! {
    /// `wd_k_sort_histogram`.
    struct SortHistogramArgs ['v, E] ['v, E] for [SORT_HISTOGRAM] {
        keys: Elems<'v, E>,
        n: u64,
        descending: u32,
        low: u32,
        needed: In<'v, u32>,
        hist: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_sort_plan`.
    struct SortPlanArgs ['v] ['v] for [SORT_PLAN] {
        hist: In<'v, u64>,
        n: u64,
        passes: u32,
        needed: In<'v, u32>,
        offsets: Out<'v, u64>,
        plan: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_sort_pass`.
    struct SortPassArgs ['v, E] ['v, E] for [SORT_PASS] {
        keys_in: Elems<'v, E>,
        keys_out: ElemsOut<'v, E>,
        keys_tmp: ElemsOut<'v, E>,
        vals_in: ValuesIn<'v>,
        vals_out: Values<'v>,
        vals_tmp: Values<'v>,
        index_values: u32,
        n: u64,
        pass: u32,
        low: u32,
        descending: u32,
        plan: In<'v, u32>,
        offsets: In<'v, u64>,
        status: Out<'v, u64>,
        queue: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_sort_rows`.
    struct SortRowsArgs ['v, E] ['v, E] for [SORT_ROWS] {
        keys: Elems<'v, E>,
        keys_out: ElemsOut<'v, E>,
        cols_out: Out<'v, u32>,
        vals: ValuesIn<'v>,
        vals_out: Values<'v>,
        rows: u64,
        cols: u32,
        rows_per_block: u32,
        descending: u32,
    }
}

kernel_args! {
    /// `wd_k_sort_rows_keys`.
    struct SortRowsKeysArgs ['v, E] ['v, E] for [SORT_ROWS_KEYS] {
        keys: Elems<'v, E>,
        keys_out: ElemsOut<'v, E>,
        cols: u32,
        descending: u32,
    }
}

kernel_args! {
    /// `wd_k_sort_segments_plan`.
    struct SortSegmentsPlanArgs ['v] ['v] for [SORT_SEGMENTS_PLAN] {
        offsets: In<'v, u64>,
        segments: u64,
        n: u64,
        windows: u64,
        win_first: Out<'v, u64>,
        medium: Out<'v, u64>,
        cap_medium: u64,
        longs: Out<'v, u64>,
        cap_long: u64,
        counts: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_sort_segments`.
    struct SortSegmentsArgs ['v, E] ['v, E] for [SORT_SEGMENTS] {
        keys: Elems<'v, E>,
        keys_out: ElemsOut<'v, E>,
        cols_out: Out<'v, u32>,
        vals: ValuesIn<'v>,
        vals_out: Values<'v>,
        offsets: In<'v, u64>,
        win_first: In<'v, u64>,
        windows: u64,
        medium: In<'v, u64>,
        descending: u32,
    }
}

kernel_args! {
    /// `wd_k_sort_rows_warp`.
    struct SortRowsWarpArgs ['v, E] ['v, E] for [SORT_ROWS_WARP] {
        keys: Elems<'v, E>,
        keys_out: ElemsOut<'v, E>,
        cols_out: Out<'v, u32>,
        vals: ValuesIn<'v>,
        vals_out: Values<'v>,
        rows: u64,
        cols: u32,
        descending: u32,
    }
}

kernel_args! {
    /// `wd_k_sort_rows_warp_keys`.
    struct SortRowsWarpKeysArgs ['v, E] ['v, E] for [SORT_ROWS_WARP_KEYS] {
        keys: Elems<'v, E>,
        keys_out: ElemsOut<'v, E>,
        rows: u64,
        cols: u32,
        descending: u32,
    }
}

kernel_args! {
    /// `wd_k_sort_gather`.
    struct SortGatherArgs ['v] ['v] for [SORT_GATHER] {
        src: In<'v, u8>,
        width: u32,
        perm: In<'v, u32>,
        n: u64,
        dst: Out<'v, u8>,
        stride: u32,
        offset: u32,
    }
}

/// What moves with the keys of a sort.
pub(crate) enum SortValues<'v> {
    /// Nothing: the keys alone.
    None,
    /// The caller's values (`size` bytes each) into `out`.
    Pairs {
        input: CudaView<'v, u8>,
        out: CudaViewMut<'v, u8>,
        size: usize,
    },
    /// Each key's position in the input (`size`: 4 or 8 bytes) into `out` (argsort).
    Positions {
        out: CudaViewMut<'v, u8>,
        size: usize,
    },
}

impl Gpu {
    /// Whether this device runs staged sort passes (`sort_can_stage`): the sort modules are
    /// built, and their passes launched, for what it says.
    pub(crate) fn sort_can_stage(&self) -> bool {
        sort_can_stage(self.arch(), self.shared.shared_per_sm)
    }
}

impl SortValues<'_> {
    /// What a sort module's passes move for these values (the module is built for it).
    pub(crate) fn moves(&self) -> SortMoves {
        match self {
            SortValues::None => SortMoves::Keys,
            SortValues::Pairs { size, .. } => SortMoves::Pairs(*size),
            SortValues::Positions { size, .. } => SortMoves::Positions(*size),
        }
    }
}

impl Gpu {
    /// Sorts `keys` (at least one) stably by their order words (complemented when
    /// `descending`) into `out` (as long; `None`: scratch, for an argsort), moving `values`
    /// with them, with sort module `m`.
    pub(crate) fn sort<E: Element>(
        &self,
        m: &Module,
        keys: CudaView<'_, E>,
        out: Option<CudaViewMut<'_, E>>,
        values: SortValues<'_>,
        descending: bool,
    ) -> Result<()> {
        self.sort_if(m, keys, out, values, descending, None, None)
    }

    /// `keys` (at least one) stably partitioned into `out` by the byte of their order words
    /// from bit `low` (at most the words' bits less 8) alone: one digit pass, no scratch copy
    /// of the keys, with keys-only sort module `m`.
    pub(crate) fn partition_by_byte<E: Element>(
        &self,
        m: &Module,
        keys: CudaView<'_, E>,
        out: CudaViewMut<'_, E>,
        low: u32,
    ) -> Result<()> {
        debug_assert!(low as usize + 8 <= 8 * std::mem::size_of::<E>());
        self.sort_if(m, keys, Some(out), SortValues::None, false, None, Some(low))
    }

    /// [`Gpu::sort`], which runs no pass (writes nothing) when the device word `needed` is
    /// given and reads 0; with `byte_at` `Some(low)`, only by the order words' byte from bit
    /// `low` (see [`Gpu::partition_by_byte`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sort_if<E: Element>(
        &self,
        m: &Module,
        keys: CudaView<'_, E>,
        out: Option<CudaViewMut<'_, E>>,
        values: SortValues<'_>,
        descending: bool,
        needed: Option<&CudaView<'_, u32>>,
        byte_at: Option<u32>,
    ) -> Result<()> {
        let n = keys.len();
        let size = std::mem::size_of::<E>();
        let low = byte_at.unwrap_or(0);
        // The histogram counts every byte of the words; the plan and the passes see `passes`.
        let digits = sort_passes(size);
        let passes = if byte_at.is_some() { 1 } else { digits };
        // The passes' shape: the module's (built for what `values` move).
        let (moves, can_stage) = (values.moves(), self.sort_can_stage());
        let shape = SortShape::new(E::SCALAR, moves, can_stage);
        // A module built for other keys, values or passes (staged or not: another device's)
        // would run with the wrong arguments or shared memory: refused, never launched.
        let want = sort_module_name(E::SCALAR, moves, can_stage);
        if m.name != want {
            return Err(Error::Unsupported(format!(
                "sort module {} is not the one this sort's passes need ({want})",
                m.name
            )));
        }
        let value_size = shape.value_size;
        let tiles = shape.tiles(n);
        if tiles > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "a sort takes at most 2^43 keys; this one has {n}"
            )));
        }
        // Zeroed: the look-back status, a tile queue per pass, the histograms. Unset: the
        // digit offsets, the plan, the ping-pong keys and values (none for one pass, which
        // reads the input and writes the output), the keys' output of an argsort.
        let ping_pong = if passes > 1 { n } else { 0 };
        let zeroed = [shape.status_bytes(n), 4 * passes, 8 * 256 * digits];
        let unset = [
            8 * 256 * passes,
            4 * passes,
            ping_pong * size,
            ping_pong * value_size,
            if out.is_none() { n * size } else { 0 },
        ];
        self.with_scratch(&zeroed, &unset, |r| {
            let (status, queue, hist) = (r.at(0), r.at(1), r.at(2));
            let (offsets, plan, keys_tmp, vals_tmp) = (r.at(3), r.at(4), r.at(5), r.at(6));
            let timer = self.start_timing()?;
            let f = m.function(&SORT_HISTOGRAM)?;
            let grid = self.resident_grid(&f, n.div_ceil(BLOCK as usize * SORT_UNROLL as usize));
            self.launch(
                m,
                &SORT_HISTOGRAM,
                grid,
                &mut SortHistogramArgs {
                    keys: Elems(keys.slice(..)),
                    n: n as u64,
                    descending: descending as u32,
                    low,
                    needed: needed.map_or(In::raw(0), |w| In::At(w.slice(..))),
                    hist: Out::raw(hist),
                },
            )?;
            self.launch(
                m,
                &SORT_PLAN,
                1,
                &mut SortPlanArgs {
                    hist: In::raw(hist),
                    n: n as u64,
                    passes: passes as u32,
                    needed: needed.map_or(In::raw(0), |w| In::At(w.slice(..))),
                    offsets: Out::raw(offsets),
                    plan: Out::raw(plan),
                },
            )?;
            // A persistent pass: a resident grid taking tiles from its queue; else a block a
            // tile.
            let pass_grid = if shape.persistent() {
                self.resident_grid(&m.function(&SORT_PASS)?, tiles)
            } else {
                tiles as u32
            };
            // Staged values: the stash, dynamic shared memory past the 48 KiB a block gets
            // without opting in.
            let stash = shape.stash_bytes();
            if stash > 0 {
                m.reserve_shared(&SORT_PASS, stash)?;
            }
            let mut out = out;
            let (mut vals_in, mut vals_out, index_values) = match values {
                SortValues::None => (None, None, false),
                SortValues::Pairs { input, out, .. } => (Some(input), Some(out), false),
                SortValues::Positions { out, .. } => (None, Some(out), true),
            };
            for pass in 0..passes {
                let mut args = SortPassArgs {
                    keys_in: Elems(keys.slice(..)),
                    keys_out: match out.as_mut() {
                        Some(o) => ElemsOut::At(o.slice_mut(..)),
                        None => ElemsOut::Raw(r.at(7)),
                    },
                    keys_tmp: ElemsOut::Raw(keys_tmp),
                    vals_in: vals_in
                        .as_mut()
                        .map_or(ValuesIn::Raw(0), |v| ValuesIn::At(v.slice(..))),
                    vals_out: Values::or_null(vals_out.as_mut().map(|v| v.slice_mut(..))),
                    vals_tmp: Values::Raw(if value_size > 0 { vals_tmp } else { 0 }),
                    index_values: index_values as u32,
                    n: n as u64,
                    pass: pass as u32,
                    low,
                    descending: descending as u32,
                    plan: In::raw(plan),
                    offsets: In::raw(offsets),
                    status: Out::raw(status),
                    queue: Out::raw(queue),
                };
                self.launch_shared(m, &SORT_PASS, pass_grid, stash, &mut args)?;
            }
            self.stop_timing(timer)
        })
    }
}

impl Gpu {
    /// Field `offset` of each `stride`-byte row `i` of `dst` gets element `perm[i]` of `src`
    /// (elements of `width` bytes: 1, 2, 4 or 8), for the `perm.len()` rows, with sort module
    /// `m`.
    pub(crate) fn sort_gather(
        &self,
        m: &Module,
        (src, width): (CudaView<'_, u8>, usize),
        perm: CudaView<'_, u32>,
        dst: CudaViewMut<'_, u8>,
        (stride, offset): (usize, usize),
    ) -> Result<()> {
        let n = perm.len();
        let f = m.function(&SORT_GATHER)?;
        let grid = self.resident_grid(&f, n.div_ceil(BLOCK as usize));
        self.launch(
            m,
            &SORT_GATHER,
            grid,
            &mut SortGatherArgs {
                src: In::At(src),
                width: width as u32,
                perm: In::At(perm),
                n: n as u64,
                dst: Out::At(dst),
                stride: stride as u32,
                offset: offset as u32,
            },
        )
    }
}

impl<'v> SortValues<'v> {
    /// What moves with the keys `span` (element indices) of a group sorted on its own: the
    /// same kind of values, over that span (positions count from the span's start).
    fn span(&mut self, span: std::ops::Range<usize>) -> SortValues<'_> {
        match self {
            SortValues::None => SortValues::None,
            SortValues::Pairs { input, out, size } => SortValues::Pairs {
                input: input.slice(span.start * *size..span.end * *size),
                out: out.slice_mut(span.start * *size..span.end * *size),
                size: *size,
            },
            SortValues::Positions { out, size } => SortValues::Positions {
                out: out.slice_mut(span.start * *size..span.end * *size),
                size: *size,
            },
        }
    }

    /// The arguments of a group kernel (the rows' or the segments' sort): each key's position
    /// in its group (`Positions`, which must be 4 bytes: `u32`) and the values moved along
    /// (`Pairs`), each null where there are none; `n` keys.
    fn group_args(&mut self, n: usize) -> Result<(Out<'_, u32>, ValuesIn<'_>, Values<'_>)> {
        Ok(match self {
            SortValues::None => (Out::raw(0), ValuesIn::Raw(0), Values::Raw(0)),
            SortValues::Pairs { input, out, .. } => (
                Out::raw(0),
                ValuesIn::At(input.slice(..)),
                Values::At(out.slice_mut(..)),
            ),
            SortValues::Positions { out, size: 4 } => {
                // SAFETY: the bytes of `n` u32 positions (the caller's output), viewed as
                // those u32s; any bit pattern is valid for both.
                let p = unsafe { out.transmute_mut::<u32>(n) }
                    .ok_or_else(|| Error::Shape("a sort's positions output is too short".into()))?;
                (Out::At(p), ValuesIn::Raw(0), Values::Raw(0))
            }
            SortValues::Positions { .. } => {
                return Err(Error::Unsupported(
                    "a group's positions are u32 (4 bytes)".into(),
                ));
            }
        })
    }
}

impl Gpu {
    /// Sorts each row of the row-major `keys` (`cols` columns, at least one row) stably by
    /// the order words into `out` (as long; `None`: not wanted), moving `values` (each key's
    /// column in its row as `u32` positions, or the caller's values) with them, with sort
    /// module `m` (built for the values' size): rows of at most [`SORT_WARP_COLS`] keys in a
    /// thread's registers or a group of lanes each (a bitonic network), rows of at most [`sort_row_tile`]
    /// keys within a block each (a row a block, keys alone: [`SORT_ROWS_KEYS`]), longer rows
    /// one at a time by the device-wide sort.
    pub(crate) fn sort_rows<E: Element>(
        &self,
        m: &Module,
        keys: CudaView<'_, E>,
        mut out: Option<CudaViewMut<'_, E>>,
        mut values: SortValues<'_>,
        cols: usize,
        descending: bool,
    ) -> Result<()> {
        let rows = keys.len() / cols;
        let size = std::mem::size_of::<E>();
        if cols <= SORT_WARP_COLS {
            // A bitonic network a row: in a thread's registers for keys of up to 4 bytes (a warp
            // takes 32 rows at a time), else in a group of lanes (a warp takes 32 / lanes rows,
            // SORT_WARP_ROWS times); the kernel strides over the rows whatever the grid.
            let rows_a_warp = if size <= 4 {
                32
            } else {
                32 / cols.next_power_of_two() * SORT_WARP_ROWS as usize
            };
            let warps = rows.div_ceil(rows_a_warp);
            let blocks = warps.div_ceil((BLOCK / 32) as usize);
            if let (SortValues::None, Some(o)) = (&values, out.as_mut()) {
                // The sorted keys alone: a kernel whose network sorts words, not (word,
                // column) pairs, for keys of up to 4 bytes.
                let f = m.function(&SORT_ROWS_WARP_KEYS)?;
                let grid = self.resident_grid(&f, blocks);
                let timer = self.start_timing()?;
                self.launch(
                    m,
                    &SORT_ROWS_WARP_KEYS,
                    grid,
                    &mut SortRowsWarpKeysArgs {
                        keys: Elems(keys.slice(..)),
                        keys_out: ElemsOut::At(o.slice_mut(..)),
                        rows: rows as u64,
                        cols: cols as u32,
                        descending: descending as u32,
                    },
                )?;
                return self.stop_timing(timer);
            }
            let f = m.function(&SORT_ROWS_WARP)?;
            let grid = self.resident_grid(&f, blocks);
            let (cols_out, vals, vals_out) = values.group_args(keys.len())?;
            let timer = self.start_timing()?;
            self.launch(
                m,
                &SORT_ROWS_WARP,
                grid,
                &mut SortRowsWarpArgs {
                    keys: Elems(keys.slice(..)),
                    keys_out: match out.as_mut() {
                        Some(o) => ElemsOut::At(o.slice_mut(..)),
                        None => ElemsOut::Raw(0),
                    },
                    cols_out,
                    vals,
                    vals_out,
                    rows: rows as u64,
                    cols: cols as u32,
                    descending: descending as u32,
                },
            )?;
            return self.stop_timing(timer);
        }
        if cols <= sort_row_tile(size) {
            let per_block = sort_rows_per_block(size, cols);
            let blocks = rows.div_ceil(per_block);
            let too_many =
                || Error::Unsupported(format!("{rows} rows of {cols} keys are too many to sort"));
            if let (1, SortValues::None, Some(o)) = (per_block, &values, out.as_mut()) {
                // A row a block, the sorted keys alone: words without tags.
                let timer = self.start_timing()?;
                self.launch(
                    m,
                    &SORT_ROWS_KEYS,
                    u32::try_from(blocks).map_err(|_| too_many())?,
                    &mut SortRowsKeysArgs {
                        keys: Elems(keys.slice(..)),
                        keys_out: ElemsOut::At(o.slice_mut(..)),
                        cols: cols as u32,
                        descending: descending as u32,
                    },
                )?;
                return self.stop_timing(timer);
            }
            let (cols_out, vals, vals_out) = values.group_args(keys.len())?;
            let timer = self.start_timing()?;
            self.launch(
                m,
                &SORT_ROWS,
                u32::try_from(blocks).map_err(|_| too_many())?,
                &mut SortRowsArgs {
                    keys: Elems(keys.slice(..)),
                    keys_out: match out.as_mut() {
                        Some(o) => ElemsOut::At(o.slice_mut(..)),
                        None => ElemsOut::Raw(0),
                    },
                    cols_out,
                    vals,
                    vals_out,
                    rows: rows as u64,
                    cols: cols as u32,
                    rows_per_block: per_block as u32,
                    descending: descending as u32,
                },
            )?;
            return self.stop_timing(timer);
        }
        for r in 0..rows {
            let span = r * cols..(r + 1) * cols;
            let row_out = out.as_mut().map(|o| o.slice_mut(span.clone()));
            self.sort(
                m,
                keys.slice(span.clone()),
                row_out,
                values.span(span),
                descending,
            )?;
        }
        Ok(())
    }

    /// Sorts each CSR segment of `keys` (segment `s`: `offsets[s]..offsets[s + 1]`, at least
    /// one segment) stably by the order words into `out` (as long; `None`: not wanted),
    /// moving `values` (each key's position in its segment as `u32`, or the caller's values)
    /// with them, with sort module `m`. The plan kernel checks the offsets and sorts out the
    /// segments (the host waits for it): short ones (at most [`sort_segment_small`] keys)
    /// many to a block, medium ones (at most [`sort_row_tile`]) a block each, both in one
    /// launch; long ones one at a time by the device-wide sort. Returns `true`, sorting
    /// nothing, when the offsets are bad (decreasing, past the keys, not from 0 to the keys'
    /// length).
    pub(crate) fn sort_segments<E: Element>(
        &self,
        m: &Module,
        keys: CudaView<'_, E>,
        offsets: CudaView<'_, u64>,
        mut out: Option<CudaViewMut<'_, E>>,
        mut values: SortValues<'_>,
        descending: bool,
    ) -> Result<bool> {
        let n = keys.len();
        let segments = offsets.len() - 1;
        let size = std::mem::size_of::<E>();
        let (tile, small, window) = (
            sort_row_tile(size),
            sort_segment_small(size),
            sort_segment_window(size),
        );
        let windows = n.div_ceil(window);
        // Valid offsets leave at most n / (small + 1) medium and n / (tile + 1) long segments;
        // the plan lists no more (more means bad offsets, reported instead).
        let cap_medium = segments.min(n / (small + 1)).max(1);
        let cap_long = segments.min(n / (tile + 1)).max(1);
        if windows + cap_medium > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "{n} keys are too many for the segments' sort"
            )));
        }
        // Zeroed: the counts. Unset: each window's first segment (the plan writes all), the
        // medium list and the long segments' bounds (read up to their counts).
        let unset = [8 * (windows + 1), 8 * cap_medium, 16 * cap_long];
        let longs = self.with_scratch(&[24], &unset, |r| {
            let (counts, win_first, medium, longs) = (r.at(0), r.at(1), r.at(2), r.at(3));
            let timer = self.start_timing()?;
            let f = m.function(&SORT_SEGMENTS_PLAN)?;
            let grid = self.resident_grid(&f, segments.max(windows + 1).div_ceil(BLOCK as usize));
            self.launch(
                m,
                &SORT_SEGMENTS_PLAN,
                grid,
                &mut SortSegmentsPlanArgs {
                    offsets: In::At(offsets.slice(..)),
                    segments: segments as u64,
                    n: n as u64,
                    windows: windows as u64,
                    win_first: Out::raw(win_first),
                    medium: Out::raw(medium),
                    cap_medium: cap_medium as u64,
                    longs: Out::raw(longs),
                    cap_long: cap_long as u64,
                    counts: Out::raw(counts),
                },
            )?;
            let mut c = [0u64; 3];
            self.read_scratch(counts, &mut c)?;
            let [n_medium, n_long, bad] = c;
            if bad != 0 {
                return Ok(None);
            }
            let (cols_out, vals, vals_out) = values.group_args(n)?;
            self.launch(
                m,
                &SORT_SEGMENTS,
                (windows + n_medium as usize) as u32,
                &mut SortSegmentsArgs {
                    keys: Elems(keys.slice(..)),
                    keys_out: match out.as_mut() {
                        Some(o) => ElemsOut::At(o.slice_mut(..)),
                        None => ElemsOut::Raw(0),
                    },
                    cols_out,
                    vals,
                    vals_out,
                    offsets: In::At(offsets.slice(..)),
                    win_first: In::raw(win_first),
                    windows: windows as u64,
                    medium: In::raw(medium),
                    descending: descending as u32,
                },
            )?;
            self.stop_timing(timer)?;
            let mut l = vec![0u64; 2 * n_long as usize];
            self.read_scratch(longs, &mut l)?;
            Ok(Some(l))
        })?;
        let Some(longs) = longs else {
            return Ok(true);
        };
        // (start, end) pairs, in the order the plan's threads listed them: sorted, so that the
        // launches come in the segments' order.
        let mut spans: Vec<_> = longs
            .chunks_exact(2)
            .map(|p| p[0] as usize..p[1] as usize)
            .collect();
        spans.sort_unstable_by_key(|s| s.start);
        if let (SortValues::Positions { .. }, Some(s)) = (
            &values,
            spans.iter().find(|s| s.len() > u32::MAX as usize + 1),
        ) {
            return Err(Error::Shape(format!(
                "a segment of {} keys, more than `u32` positions can index",
                s.len()
            )));
        }
        for span in spans {
            let seg_out = out.as_mut().map(|o| o.slice_mut(span.clone()));
            self.sort(
                m,
                keys.slice(span.clone()),
                seg_out,
                values.span(span),
                descending,
            )?;
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::SortHistogramArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SortPlanArgs<'_>>();
        super::super::launch::tests::check::<super::SortGatherArgs<'_>>();
        super::super::launch::tests::check::<super::SortRowsWarpArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SortPassArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SortRowsArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SortRowsKeysArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SortRowsWarpKeysArgs<'_, f32>>();
        super::super::launch::tests::check::<super::SortSegmentsPlanArgs<'_>>();
        super::super::launch::tests::check::<super::SortSegmentsArgs<'_, f32>>();
    }
}
