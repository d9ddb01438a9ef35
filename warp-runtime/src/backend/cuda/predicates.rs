//! Launch code of the predicate kernels: count, any/all, find_first, mask and single-pass
//! compaction, and their results.

use std::sync::atomic::Ordering;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use warp_kernels::catalogue::{
    ANY, BLOCK, BLOCK_TILE, COMPACT, COUNT, FIND_FIRST, MASK, STOP_COPIES, STOP_STRIDE, TILE,
};

use super::launch::{Args, Elems, Out, Staged, Values, kernel_args};
use super::modules::Function;
use super::{Gpu, Scratch, drv};
use crate::error::{Error, Result};
use crate::values::Element;

kernel_args! {
    /// `wd_k_count`.
    struct CountArgs ['v, E] ['v, E] for [COUNT] {
        p: Elems<'v, E>,
        n: u64,
        a: Args,
        partials: Out<'v, u64>,
        ticket: Out<'v, u32>,
        out: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_any`.
    struct AnyArgs ['v, E] ['v, E] for [ANY] {
        p: Elems<'v, E>,
        n: u64,
        a: Args,
        negate: u32,
        flag: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_find_first`.
    struct FindFirstArgs ['v, E] ['v, E] for [FIND_FIRST] {
        p: Elems<'v, E>,
        n: u64,
        a: Args,
        first: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_mask`.
    struct MaskArgs ['v, E] ['v, E] for [MASK] {
        p: Elems<'v, E>,
        n: u64,
        a: Args,
        words: Out<'v, u32>,
    }
}

kernel_args! {
    /// `wd_k_compact`.
    struct CompactArgs ['v, E] ['v, E] for [COMPACT] {
        p: Elems<'v, E>,
        n: u64,
        a: Args,
        kept: Values<'v>,
        rejected: Values<'v>,
        status: Out<'v, u8>,
        queue: Out<'v, u32>,
        count: Out<'v, u64>,
    }
}

/// What a compaction produces: the kept values (the first `count` of `kept`) and, when
/// partitioning, the rejected ones (the first `n - count`).
pub(crate) struct Compacted<V> {
    pub(crate) kept: CudaSlice<V>,
    pub(crate) count: u64,
    pub(crate) rejected: Option<CudaSlice<V>>,
}

/// The bytes of a device array of elements, for kernels that write values.
///
/// SAFETY (of the callers): `V` is an `Element` (a plain scalar, every byte pattern the
/// kernel writes is one of its values), and the view covers exactly the array.
fn bytes_of<V: Element>(buf: &mut CudaSlice<V>) -> Result<cudarc::driver::CudaViewMut<'_, u8>> {
    let len = buf.len() * std::mem::size_of::<V>();
    // SAFETY: `u8` has no invalid values and the same memory is reinterpreted at its full
    // length; the kernel writes whole `V` values there.
    unsafe { buf.transmute_mut::<u8>(len) }
        .ok_or_else(|| Error::Shape("a device array could not be viewed as bytes".into()))
}

impl Gpu {
    /// A grid-stride grid over the warp tiles of `n` elements.
    fn tile_grid(&self, f: &Function, n: usize) -> u32 {
        self.resident_grid(f, n.div_ceil(TILE).div_ceil(BLOCK as usize / 32))
    }

    /// A zeroed stop signal for `wd_k_any` / `wd_k_find_first`: `STOP_COPIES` copies of a `T`,
    /// `STOP_STRIDE` bytes apart (element 0 is copy 0, the result).
    fn stop_signal<T: DeviceRepr + ValidAsZeroBits>(&self) -> Result<CudaSlice<T>> {
        self.zeros::<T>(STOP_COPIES * STOP_STRIDE / std::mem::size_of::<T>())
    }

    /// Tiles (one block each) of a single-pass kernel over `n` elements.
    pub(super) fn single_pass_tiles(&self, n: usize) -> Result<usize> {
        let tiles = n.div_ceil(BLOCK_TILE);
        if tiles > i32::MAX as usize {
            return Err(Error::Shape(format!(
                "{n} elements are too many for one single-pass launch"
            )));
        }
        Ok(tiles)
    }

    /// The tile-order queue of a single-pass launch: a zeroed counter when tiles are taken
    /// in the order blocks start (`set_tile_queue(true)`), else none (tile = blockIdx.x).
    pub(super) fn tile_queue(&self) -> Result<Option<CudaSlice<u32>>> {
        if self.tile_queue.load(Ordering::Relaxed) {
            Ok(Some(self.zeros::<u32>(1)?))
        } else {
            Ok(None)
        }
    }

    /// Reads the first word of a result buffer, waiting for it.
    fn read_word<T: DeviceRepr + Copy>(&self, buf: &CudaSlice<T>, what: &'static str) -> Result<T> {
        let v = self
            .stream
            .clone_dtoh(&buf.slice(0..1))
            .map_err(drv(what))?;
        self.synchronize()?;
        Ok(v[0])
    }

    /// How many values of `s` its predicate keeps.
    pub(crate) fn count<E: Element>(&self, s: Staged<'_, '_, E>) -> Result<u64> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&COUNT)?, n);
        let mut out = self.zeros::<u64>(1)?;
        let timer = self.start_timing()?;
        {
            let mut scratch = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
            let Scratch { partials, ticket } = &mut *scratch;
            let words = partials.len() / 8;
            // SAFETY: the scratch is 8-byte aligned (a device allocation) and any bit pattern
            // is a `u64`; the kernel writes a partial count per block.
            let partials = unsafe { partials.transmute_mut::<u64>(words) }
                .ok_or_else(|| Error::Shape("scratch too small".into()))?;
            let mut args = CountArgs {
                p: s.elems(),
                n: n as u64,
                a: Args(s.args),
                partials: Out::At(partials),
                ticket: Out::At(ticket.as_view_mut()),
                out: Out::At(out.as_view_mut()),
            };
            self.launch(s.module, &COUNT, grid, &mut args)?;
        }
        self.stop_timing(timer)?;
        self.read_word(&out, "reading a count")
    }

    /// Whether its predicate keeps any value of `s` (with `negate`: rejects any).
    pub(crate) fn any<E: Element>(&self, s: Staged<'_, '_, E>, negate: bool) -> Result<bool> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&ANY)?, n);
        let mut flag = self.stop_signal::<u32>()?;
        let timer = self.start_timing()?;
        let mut args = AnyArgs {
            p: s.elems(),
            n: n as u64,
            a: Args(s.args),
            negate: negate as u32,
            flag: Out::At(flag.as_view_mut()),
        };
        self.launch(s.module, &ANY, grid, &mut args)?;
        self.stop_timing(timer)?;
        Ok(self.read_word(&flag, "reading a vote")? != 0)
    }

    /// The index of the first value of `s` its predicate keeps.
    pub(crate) fn find_first<E: Element>(&self, s: Staged<'_, '_, E>) -> Result<Option<u64>> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&FIND_FIRST)?, n);
        // The complement of the first index (0: none).
        let mut first = self.stop_signal::<u64>()?;
        let timer = self.start_timing()?;
        let mut args = FindFirstArgs {
            p: s.elems(),
            n: n as u64,
            a: Args(s.args),
            first: Out::At(first.as_view_mut()),
        };
        self.launch(s.module, &FIND_FIRST, grid, &mut args)?;
        self.stop_timing(timer)?;
        let c = self.read_word(&first, "reading an index")?;
        Ok((c != 0).then_some(!c))
    }

    /// One bit per value of `s`, set where its predicate holds.
    pub(crate) fn mask<E: Element>(&self, s: Staged<'_, '_, E>) -> Result<CudaSlice<u32>> {
        let n = s.input.len();
        let grid = self.tile_grid(&s.module.function(&MASK)?, n);
        // The kernel writes every one of the words.
        let mut words = self.alloc::<u32>(n.div_ceil(32))?;
        let timer = self.start_timing()?;
        let mut args = MaskArgs {
            p: s.elems(),
            n: n as u64,
            a: Args(s.args),
            words: Out::At(words.as_view_mut()),
        };
        self.launch(s.module, &MASK, grid, &mut args)?;
        self.stop_timing(timer)?;
        Ok(words)
    }

    /// The values of `s` its predicate keeps (and, when `partition`, the others), in order.
    pub(crate) fn compact<E: Element, V: Element>(
        &self,
        s: Staged<'_, '_, E>,
        partition: bool,
    ) -> Result<Compacted<V>> {
        let n = s.input.len();
        let tiles = self.single_pass_tiles(n)?;
        // The first `count` elements are written by the kernel; the rest is never read (the
        // DeviceVec's length is `count`), and likewise for the rejected ones.
        let mut kept = self.alloc::<V>(n)?;
        let mut rejected = if partition {
            Some(self.alloc::<V>(n)?)
        } else {
            None
        };
        let mut status = self.zeros::<u64>(tiles)?;
        let mut queue = self.tile_queue()?;
        let mut count = self.zeros::<u64>(1)?;
        let status_bytes = status.len() * 8;
        // SAFETY: the status words are zeroed and any byte pattern is a `u8`.
        let status_view = unsafe { status.transmute_mut::<u8>(status_bytes) }
            .ok_or_else(|| Error::Shape("status too small".into()))?;
        let timer = self.start_timing()?;
        {
            let mut args = CompactArgs {
                p: s.elems(),
                n: n as u64,
                a: Args(s.args),
                kept: Values::At(bytes_of(&mut kept)?),
                rejected: match &mut rejected {
                    Some(r) => Values::At(bytes_of(r)?),
                    None => Values::Null(0),
                },
                status: Out::At(status_view),
                queue: match &mut queue {
                    Some(q) => Out::At(q.as_view_mut()),
                    None => Out::Null(0),
                },
                count: Out::At(count.as_view_mut()),
            };
            self.launch(s.module, &COMPACT, tiles as u32, &mut args)?;
        }
        self.stop_timing(timer)?;
        Ok(Compacted {
            count: self.read_word(&count, "reading a count")?,
            kept,
            rejected,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::launch::tests::check;
    use super::*;

    #[test]
    fn arguments_match_the_catalogue() {
        check::<CountArgs<'_, f32>>();
        check::<AnyArgs<'_, f32>>();
        check::<FindFirstArgs<'_, f32>>();
        check::<MaskArgs<'_, f32>>();
        check::<CompactArgs<'_, f32>>();
    }
}
