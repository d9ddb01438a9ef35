//! A gather read in the order of its array's L2-sized windows: for the operations whose result
//! does not depend on the order they read their elements (reductions), the indices of a random
//! gather of a large array are stably partitioned by their high bits first.
//!
//! A random gather of an array many times larger than the L2 cache costs a DRAM sector (32
//! bytes) per element read. Partitioned by the byte of the index that names the array's window
//! of at most an eighth of the L2 (one radix pass of the sort module, into a new array of
//! indices), the indices that the blocks in flight read fall in one or two windows at a time,
//! which stay in the L2: each sector comes from DRAM about once.

use cudarc::driver::CudaSlice;

use super::sort::gpu_sort_module;
use super::{index_of, typed};
use crate::arrays::Elements;
use crate::backend::cuda::launch::WdArgs;
use crate::backend::cuda::{Columns, Gpu};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::operators::BoundArgs;
use crate::values::Ordered;
use warp_kernels::family::sort::SortMoves;

/// The fewest indices a gather is reordered for (below, the partition's fixed costs, a sample
/// read to the host and two more launches, are not repaid).
const REORDER_MIN_INDICES: usize = 1 << 22;

/// Indices sampled (one stretch, from the middle) to tell a scattered gather from one whose
/// neighbouring indices are near each other; each group of [`SAMPLE_GROUP`] is one test.
const SAMPLE: usize = 4096;
const SAMPLE_GROUP: usize = 256;

/// The bit from which a gather's indices are partitioned (the byte from it names the array's
/// window), or `None` when the gather is read in its own order: too few indices, an array
/// within a few L2 caches, a device-resident length, or indices that are not scattered.
fn window_bit(g: &Gpu, input: &Columns<'_>, counted: bool) -> Result<Option<u32>> {
    let Some(gather) = input.gather else {
        return Ok(None);
    };
    let (n, elem, width) = (input.len, input.sizes[0], input.sizes[1]);
    let l2 = g.l2_bytes();
    let Some(low) = window_low(n, gather.values_len, elem, width, l2) else {
        return Ok(None);
    };
    if counted {
        return Ok(None);
    }
    let at = (n / 2).saturating_sub(SAMPLE / 2);
    let sample = g.download(&input.views[1].slice(at * width..(at + SAMPLE) * width))?;
    Ok(scattered(&sample, width, elem, l2).then_some(low))
}

/// The first bit of the byte of an index that names its window, for `n` indices of `width`
/// bytes into `values` elements of `elem` bytes with an L2 cache of `l2` bytes: windows of at
/// most an eighth of the L2, the byte at least the index's top one (one pass); `None` when the
/// gather is not worth partitioning (fewer than [`REORDER_MIN_INDICES`], an array within four
/// L2 caches, windows past half the L2).
fn window_low(n: usize, values: u64, elem: usize, width: usize, l2: usize) -> Option<u32> {
    let (elem, l2) = (elem as u64, l2.max(1 << 20) as u64);
    if n < REORDER_MIN_INDICES || values.saturating_mul(elem) < 4 * l2 {
        return None;
    }
    let bits = 64 - (values - 1).leading_zeros();
    let window = (l2 / 8 / elem).max(1);
    let low = (63 - window.leading_zeros()).max(bits.saturating_sub(8));
    ((1u64 << low) * elem <= l2 / 2 && low as usize + 8 <= 8 * width).then_some(low)
}

/// Whether a sample of indices (`width` bytes each) is scattered: in most of its groups of
/// [`SAMPLE_GROUP`], the indices span more than a quarter of the L2 (`l2` bytes) of elements
/// of `elem` bytes.
fn scattered(sample: &[u8], width: usize, elem: usize, l2: usize) -> bool {
    let groups: Vec<bool> = sample
        .chunks_exact(SAMPLE_GROUP * width)
        .map(|group| {
            let (lo, hi) = group
                .chunks_exact(width)
                .map(index_of)
                .fold((u64::MAX, 0), |(lo, hi), i| (lo.min(i), hi.max(i)));
            (hi - lo).saturating_mul(elem as u64) > l2 as u64 / 4
        })
        .collect();
    2 * groups.iter().filter(|&&s| s).count() > groups.len()
}

impl Device {
    /// [`Device::with_input`] for an operation whose result does not depend on the order it
    /// reads its elements in (a reduction): a scattered gather of a large array (see the
    /// module) reads its indices partitioned by the array's windows, stably, so that the
    /// result is the same on every run. An index out of range is reported as
    /// [`Device::with_input`] reports it, at its position in the caller's indices (the
    /// operation is then run again in their order to find it). When the memory for the
    /// partitioned indices cannot be had, the gather is read in its own order.
    pub(super) fn with_input_any_order<'a, E: Clone, R>(
        &self,
        g: &Gpu,
        elems: &Elements<'a, E>,
        args: &BoundArgs,
        mut launch: impl for<'c> FnMut(Columns<'c>, WdArgs) -> Result<R>,
    ) -> Result<R> {
        let input = elems.columns()?;
        let Some(low) = window_bit(g, &input, elems.count().is_some())? else {
            return self.with_input(g, elems, args, launch);
        };
        let (n, width) = (input.len, input.sizes[1]);
        let mut parted = match g.alloc::<u8>(n * width) {
            Ok(b) => b,
            Err(Error::OutOfMemory { .. }) => return self.with_input(g, elems, args, launch),
            Err(e) => return Err(e),
        };
        let done = match width {
            4 => partition::<u32>(g, &input, &mut parted, low),
            _ => partition::<u64>(g, &input, &mut parted, low),
        };
        match done {
            Ok(()) => {}
            Err(Error::OutOfMemory { .. }) => return self.with_input(g, elems, args, launch),
            Err(e) => return Err(e),
        }
        let reordered = elems.with_indices(parted.slice(..));
        match self.with_input(g, &reordered, args, &mut launch) {
            Err(Error::IndexOutOfRange { .. }) => self.with_input(g, elems, args, launch),
            r => r,
        }
    }
}

/// The gather's indices (of type `K`) into `out`, stably partitioned by their byte from bit
/// `low`.
fn partition<K: Ordered>(
    g: &Gpu,
    input: &Columns<'_>,
    out: &mut CudaSlice<u8>,
    low: u32,
) -> Result<()> {
    let n = input.len;
    let module = gpu_sort_module::<K>(g, SortMoves::Keys)?;
    // SAFETY: the gather's index column holds `n` indices of `K` (its `sizes[1]` is `K`'s
    // size), and `out` was allocated for as many; every bit pattern is a `K`.
    let keys = unsafe { input.views[1].transmute::<K>(n) }
        .ok_or_else(|| Error::Shape("a gather's indices could not be viewed as such".into()))?;
    let mut bytes = out.slice_mut(..);
    let out = typed::<K>(&mut bytes, n)?;
    g.partition_by_byte(&module, keys, out, low)
}

#[cfg(test)]
mod tests {
    use super::*;

    const L2: usize = 60 << 20;

    #[test]
    fn windows_are_an_eighth_of_the_l2_and_one_byte_of_the_index() {
        // 2^28 f32 (1 GiB): windows of 2^20 elements (4 MiB, the largest power of two within
        // an eighth of 60 MiB), the byte from bit 20 (the index's top one).
        assert_eq!(window_low(1 << 28, 1 << 28, 4, 4, L2), Some(20));
        // 2^32 f32 through u64 indices: the top byte from bit 24 (64 MiB windows, past half the
        // L2): not partitioned.
        assert_eq!(window_low(1 << 28, 1 << 32, 4, 8, L2), None);
        // 2^26 u64 (512 MiB): windows of 2^19 elements.
        assert_eq!(window_low(1 << 22, 1 << 26, 8, 4, L2), Some(19));
        // Too few indices, or an array within four L2 caches.
        assert_eq!(window_low((1 << 22) - 1, 1 << 28, 4, 4, L2), None);
        assert_eq!(window_low(1 << 28, (L2 - 1) as u64, 4, 4, L2), None);
        assert_eq!(window_low(1 << 28, L2 as u64, 4, 4, L2), Some(20));
    }

    #[test]
    fn scattered_samples_are_told_from_near_ones() {
        let bytes = |xs: &[u32]| xs.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let random: Vec<u32> = (0..SAMPLE as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 36) as u32)
            .collect();
        assert!(scattered(&bytes(&random), 4, 4, L2));
        // Sorted indices: 2^28 of them into as many elements run 1 apart; a sparse selection,
        // 64 apart (64 KiB a group).
        let sorted: Vec<u32> = (0..SAMPLE as u32).map(|i| 5_000_000 + i).collect();
        assert!(!scattered(&bytes(&sorted), 4, 4, L2));
        let sparse: Vec<u32> = (0..SAMPLE as u32).map(|i| 64 * i).collect();
        assert!(!scattered(&bytes(&sparse), 4, 4, L2));
        // Half the groups scattered is not most.
        let half: Vec<u32> = (0..SAMPLE)
            .map(|i| {
                if (i / SAMPLE_GROUP).is_multiple_of(2) {
                    random[i]
                } else {
                    i as u32
                }
            })
            .collect();
        assert!(!scattered(&bytes(&half), 4, 4, L2));
        let near: Vec<u32> = (0..SAMPLE as u32)
            .map(|i| 1_000_000 + (i * 7919) % 4096)
            .collect();
        assert!(!scattered(&bytes(&near), 4, 4, L2));
        let wide: Vec<u64> = random.iter().map(|&i| (i as u64) << 8).collect();
        let wide_bytes: Vec<u8> = wide.iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert!(scattered(&wide_bytes, 8, 4, L2));
    }
}
