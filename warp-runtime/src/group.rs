//! Several devices as one: an array cut into shards, one a device, and the reductions and
//! predicates over all of them, each device's result combined in rank order.

use crate::arrays::{DeviceScalar, DeviceVec, Readout};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::operators::{MapOp, Predicate, ReduceOp};
use crate::values::{Element, Ordered};
use crate::{BinIndex, Counter};
use warp_kernels::catalogue::TOPK_MAX_K;

/// Devices that hold the shards of an array, in rank order: rank `k` is `devices()[k]`. Each
/// device is any [`Device`] (a GPU with its own stream, one of several streams of a GPU, the
/// CPU backend); a group of the GPUs of a host is `Device::cuda(k)` for each of them.
///
/// Operations over a [`ShardedVec`] run on every rank at once (each rank's kernels queued on
/// its own stream before any is waited for) and then combine the ranks' results on the host,
/// in rank order: a reduction is the left fold, by the operator, of the ranks' reductions
/// (`op(op(r0, r1), r2) ...`; a group of one rank gives that device's result), so the result
/// has the same bits run after run, whatever the timing; it may differ in rounding from one
/// device's reduction of the whole array, whose grouping is another. An empty shard's
/// reduction is the operator's identity.
///
/// Besides reductions and predicates: scans ([`DeviceGroup::scan`], each rank continuing from
/// the ranks before it), compaction ([`DeviceGroup::filter`], the kept values staying on their
/// ranks), histograms and top-k, each combined on the host. Only arrays are inputs so far (no
/// maps, zips or other inputs); for one process a GPU across hosts, see `Rank` (feature
/// `nccl`).
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::DeviceGroup;
/// #[reduce(identity = 0)]
/// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
/// #[predicate]
/// fn negative(x: i64) -> bool { x < 0 }
/// # fn main() -> warp_runtime::Result<()> {
/// // Three CPU devices stand in for three GPUs: the same code runs on `Device::cuda(k)`s.
/// let group = DeviceGroup::new(vec![Device::cpu(), Device::cpu(), Device::cpu()])?;
/// let xs = group.upload(&[5i64, -1, 7, -3, 2, 9, -8])?;   // shards of 3, 2 and 2
/// assert_eq!(xs.shards().iter().map(|s| s.len()).collect::<Vec<_>>(), [3, 2, 2]);
/// assert_eq!(group.reduce(add, &xs)?, 11);
/// assert_eq!(group.count(negative, &xs)?, 3);
/// assert_eq!(group.find_first(negative, &xs)?, Some(1));
/// assert_eq!(xs.download()?, [5, -1, 7, -3, 2, 9, -8]);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct DeviceGroup {
    devices: Vec<Device>,
}

/// An array held as shards, one per rank of a [`DeviceGroup`], in rank order: the array is the
/// shards one after another. Made by [`DeviceGroup::upload`] (even shards) or
/// [`DeviceGroup::shards`] (the caller's arrays, of any lengths, empty ones included).
#[derive(Debug)]
pub struct ShardedVec<T: Element> {
    shards: Vec<DeviceVec<T>>,
}

impl DeviceGroup {
    /// A group of `devices`, rank `k` the `k`-th; at least one ([`Error::Shape`] for none).
    pub fn new(devices: Vec<Device>) -> Result<DeviceGroup> {
        if devices.is_empty() {
            return Err(Error::Shape(
                "a device group needs at least one device".into(),
            ));
        }
        Ok(DeviceGroup { devices })
    }

    /// The devices, in rank order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// The number of ranks (devices).
    pub fn ranks(&self) -> usize {
        self.devices.len()
    }

    /// `data` cut into one contiguous shard a rank, in order, as even as they go: each has
    /// `len / ranks` elements and the first `len % ranks` one more.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<ShardedVec<T>> {
        let ranks = self.devices.len();
        let (base, extra) = (data.len() / ranks, data.len() % ranks);
        let mut at = 0;
        let mut shards = Vec::with_capacity(ranks);
        for (k, dev) in self.devices.iter().enumerate() {
            let len = base + usize::from(k < extra);
            shards.push(dev.upload(&data[at..at + len])?);
            at += len;
        }
        Ok(ShardedVec { shards })
    }

    /// The caller's arrays as the shards of one array, shard `k` on rank `k`'s device (or a
    /// device that shares its memory: another stream of the same GPU), of any lengths. One
    /// array a rank, else [`Error::Shape`]; an array elsewhere is an [`Error::DeviceMismatch`].
    pub fn shards<T: Element>(&self, shards: Vec<DeviceVec<T>>) -> Result<ShardedVec<T>> {
        let xs = ShardedVec { shards };
        self.check(&xs)?;
        Ok(xs)
    }

    /// The reduction of every element of `xs` by `op`: each rank's `reduce_on_device` of its
    /// shard, queued on all ranks before any is read, then their left fold by `op` in rank
    /// order (`op(op(r0, r1), r2) ...`). The identity for an empty array.
    pub fn reduce<Op>(&self, op: Op, xs: &ShardedVec<Op::Value>) -> Result<Op::Value>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
    {
        let partials = self.each(xs, |dev, shard| dev.reduce_on_device(op, shard))?;
        let values = partials
            .iter()
            .map(|p| p.get())
            .collect::<Result<Vec<_>>>()?;
        Ok(fold_ranks(op, &values))
    }

    /// The inclusive scan of `xs` by `op`, as shards (rank `k`'s shard holds the scan's values
    /// at its own elements' places): each rank's reduction of its shard (all queued, then
    /// read), then each rank's scan of its shard continued from the left fold of the ranks'
    /// reductions before it ([`Device::scan_from`]; rank 0's is its plain [`Device::scan`]),
    /// queued on every rank and not waited for. So shard `k`'s values are `op(P, s)`, where `P`
    /// is `op(op(r0, r1), .. r(k-1))` and `s` its own shard's scan: the same bits run after run;
    /// exact operators give one device's scan of the whole array, and floats may differ from it
    /// in rounding. Each shard is read twice (its reduction and its scan) and written once.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::DeviceGroup;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let group = DeviceGroup::new(vec![Device::cpu(), Device::cpu()])?;
    /// let xs = group.upload(&[1i64, 2, 3, 4, 5])?; // shards of 3 and 2
    /// assert_eq!(group.scan(add, &xs)?.download()?, [1, 3, 6, 10, 15]);
    /// assert_eq!(group.exclusive_scan(add, &xs)?.download()?, [0, 1, 3, 6, 10]);
    /// # Ok(()) }
    /// ```
    pub fn scan<Op>(&self, op: Op, xs: &ShardedVec<Op::Value>) -> Result<ShardedVec<Op::Value>>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
    {
        self.run_scan(op, xs, false)
    }

    /// The exclusive scan of `xs` by `op`, as shards: the first element's value is the
    /// identity, each other's the scan of the elements before it. Otherwise as
    /// [`DeviceGroup::scan`] (rank `k > 0` continues from `P` with
    /// [`Device::exclusive_scan_from`], so its first value is `op(P, identity)`).
    pub fn exclusive_scan<Op>(
        &self,
        op: Op,
        xs: &ShardedVec<Op::Value>,
    ) -> Result<ShardedVec<Op::Value>>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
    {
        self.run_scan(op, xs, true)
    }

    fn run_scan<Op>(
        &self,
        op: Op,
        xs: &ShardedVec<Op::Value>,
        exclusive: bool,
    ) -> Result<ShardedVec<Op::Value>>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
    {
        self.check(xs)?;
        // The ranks' reductions (the last rank's is not needed), queued before any is read.
        let ranks = self.devices.len();
        let partials = self.devices[..ranks - 1]
            .iter()
            .zip(&xs.shards)
            .map(|(dev, shard)| dev.reduce_on_device(op, shard))
            .collect::<Result<Vec<_>>>()?;
        let partials = partials
            .iter()
            .map(|p| p.get())
            .collect::<Result<Vec<_>>>()?;
        let mut out = Vec::with_capacity(ranks);
        for (k, (dev, shard)) in self.devices.iter().zip(&xs.shards).enumerate() {
            let mut scanned = dev.new_array::<Op::Value>(shard.len())?;
            let before = ranks_before(op, &partials, k);
            dev.run_scan(op, shard, &mut scanned, exclusive, before)?;
            out.push(scanned);
        }
        Ok(ShardedVec { shards: out })
    }

    /// [`DeviceGroup::reduce`] left on every rank's device: one [`DeviceScalar`] a rank, in
    /// rank order, each holding the same value (the left fold of the ranks' reductions, made
    /// on the host and written to each device), for each rank's next operations to take as a
    /// bound argument without a read of its own.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::DeviceGroup;
    /// #[reduce(identity = 0)]
    /// fn add(a: i64, b: i64) -> i64 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let group = DeviceGroup::new(vec![Device::cpu(), Device::cpu()])?;
    /// let xs = group.upload(&[1i64, 2, 3, 4, 5])?;
    /// let sums = group.all_reduce(add, &xs)?;
    /// assert_eq!(sums.len(), 2);
    /// assert_eq!((sums[0].get()?, sums[1].get()?), (15, 15));
    /// # Ok(()) }
    /// ```
    pub fn all_reduce<Op>(
        &self,
        op: Op,
        xs: &ShardedVec<Op::Value>,
    ) -> Result<Vec<DeviceScalar<Op::Value>>>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
    {
        let total = self.reduce(op, xs)?;
        self.devices
            .iter()
            .map(|dev| dev.scalar_of(total))
            .collect()
    }

    /// How many elements of `xs` satisfy `pred`: the sum of the ranks' counts.
    pub fn count<P>(&self, pred: P, xs: &ShardedVec<P::Input>) -> Result<u64>
    where
        P: Predicate,
        P::Input: Element,
    {
        let counts = self.each(xs, |dev, shard| dev.count_on_device(pred.clone(), shard))?;
        counts.iter().map(|c| c.get()).sum()
    }

    /// Whether any element of `xs` satisfies `pred` (false for an empty array).
    pub fn any<P>(&self, pred: P, xs: &ShardedVec<P::Input>) -> Result<bool>
    where
        P: Predicate,
        P::Input: Element,
    {
        let votes = self.each(xs, |dev, shard| dev.any_on_device(pred.clone(), shard))?;
        votes.iter().try_fold(false, |a, v| Ok(a | v.get()?))
    }

    /// Whether every element of `xs` satisfies `pred` (true for an empty array).
    pub fn all<P>(&self, pred: P, xs: &ShardedVec<P::Input>) -> Result<bool>
    where
        P: Predicate,
        P::Input: Element,
    {
        let votes = self.each(xs, |dev, shard| dev.all_on_device(pred.clone(), shard))?;
        votes.iter().try_fold(true, |a, v| Ok(a & v.get()?))
    }

    /// The position in the whole array of the first element of `xs` that satisfies `pred`:
    /// the first rank with one, plus the lengths of the shards before it.
    pub fn find_first<P>(&self, pred: P, xs: &ShardedVec<P::Input>) -> Result<Option<usize>>
    where
        P: Predicate,
        P::Input: Element,
    {
        let firsts = self.each(xs, |dev, shard| {
            dev.find_first_on_device(pred.clone(), shard)
        })?;
        let mut before = 0;
        for (first, shard) in firsts.iter().zip(&xs.shards) {
            if let Some(i) = first.get()? {
                return Ok(Some(before + i));
            }
            before += shard.len();
        }
        Ok(None)
    }

    /// The values of `xs` that satisfy `pred`, in order, as shards: rank `k`'s shard holds the
    /// kept values of its own shard (nothing moves between ranks; the whole result is the
    /// shards one after another, as for any [`ShardedVec`]). Each rank's compaction is queued
    /// before any rank's count is read.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::DeviceGroup;
    /// #[predicate]
    /// fn even(x: u32) -> bool { x % 2 == 0 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let group = DeviceGroup::new(vec![Device::cpu(), Device::cpu()])?;
    /// let xs = group.upload(&[1u32, 2, 4, 5, 6, 8, 9])?; // shards of 4 and 3
    /// let kept = group.filter(even, &xs)?;
    /// assert_eq!(kept.shards().iter().map(|s| s.len()).collect::<Vec<_>>(), [2, 2]);
    /// assert_eq!(kept.download()?, [2, 4, 6, 8]);
    /// # Ok(()) }
    /// ```
    pub fn filter<P>(&self, pred: P, xs: &ShardedVec<P::Input>) -> Result<ShardedVec<P::Input>>
    where
        P: Predicate,
        P::Input: Element,
    {
        self.check(xs)?;
        let mut kept = Vec::with_capacity(self.devices.len());
        let mut counts = Vec::with_capacity(self.devices.len());
        for (dev, shard) in self.devices.iter().zip(&xs.shards) {
            let mut out = dev.new_array::<P::Input>(shard.len())?;
            counts.push(dev.filter_into(pred.clone(), shard, &mut out)?);
            kept.push(out);
        }
        for (out, count) in kept.iter_mut().zip(&counts) {
            out.truncate(count.get()? as usize);
        }
        Ok(ShardedVec { shards: kept })
    }

    /// The histogram of `xs` in `bins` bins, `bin` mapping each element to its bin (bins past
    /// the last are dropped), as [`Device::histogram`] gives it for the whole array: each rank
    /// counts its shard (all queued first), and the ranks' counts are added on the host
    /// (exact; a `u32` counter wraps as one device's would).
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::DeviceGroup;
    /// #[map]
    /// fn last_digit(x: u32) -> u32 { x % 10 }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let group = DeviceGroup::new(vec![Device::cpu(), Device::cpu(), Device::cpu()])?;
    /// let xs = group.upload(&[11u32, 21, 3, 13, 7, 40])?;
    /// let h: Vec<u32> = group.histogram(last_digit, &xs, 4)?;
    /// assert_eq!(h, [1, 2, 0, 2]); // 7 is past the last bin
    /// # Ok(()) }
    /// ```
    pub fn histogram<C, M>(&self, bin: M, xs: &ShardedVec<M::Input>, bins: usize) -> Result<Vec<C>>
    where
        C: Counter,
        M: MapOp,
        M::Input: Element,
        M::Output: BinIndex,
    {
        self.check(xs)?;
        let counts = self
            .devices
            .iter()
            .zip(&xs.shards)
            .map(|(dev, shard)| dev.histogram::<u64, _, _>(bin.clone(), shard, bins))
            .collect::<Result<Vec<_>>>()?;
        let mut total = vec![0u64; bins];
        for rank in &counts {
            for (t, c) in total.iter_mut().zip(rank.download()?) {
                *t = t.wrapping_add(c);
            }
        }
        Ok(total.into_iter().map(C::wrap).collect())
    }

    /// The `k` largest elements of `xs` with their positions in the whole array, as
    /// [`Device::top_k`] gives them for the whole array (largest first, ties to the smaller
    /// position; NaN above every number, `-0.0` equal to `+0.0`), on the host: each rank's
    /// `top_k` of its shard (at most `k`, all queued first), then the top `k` of those
    /// candidates. `k` above the array's length is [`Error::KExceedsLength`]; `k` above
    /// 1,024, [`Error::Unsupported`], as on one device.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// use warp_runtime::DeviceGroup;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let group = DeviceGroup::new(vec![Device::cpu(), Device::cpu()])?;
    /// let xs = group.upload(&[3.0f32, 9.0, 1.0, 9.0, 7.0])?; // shards of 3 and 2
    /// let (values, positions) = group.top_k(&xs, 3)?;
    /// assert_eq!(values, [9.0, 9.0, 7.0]);
    /// assert_eq!(positions, [1, 3, 4]);
    /// # Ok(()) }
    /// ```
    pub fn top_k<T: Ordered>(&self, xs: &ShardedVec<T>, k: usize) -> Result<(Vec<T>, Vec<u64>)> {
        self.select_k(xs, k, true)
    }

    /// The `k` smallest elements of `xs` with their positions, smallest first, as
    /// [`Device::bottom_k`] gives them; otherwise as [`DeviceGroup::top_k`].
    pub fn bottom_k<T: Ordered>(&self, xs: &ShardedVec<T>, k: usize) -> Result<(Vec<T>, Vec<u64>)> {
        self.select_k(xs, k, false)
    }

    fn select_k<T: Ordered>(
        &self,
        xs: &ShardedVec<T>,
        k: usize,
        largest: bool,
    ) -> Result<(Vec<T>, Vec<u64>)> {
        self.check(xs)?;
        let len = xs.len();
        if k > TOPK_MAX_K {
            return Err(Error::Unsupported(format!(
                "top-k takes k up to {TOPK_MAX_K}; asked for {k}"
            )));
        }
        if k > len {
            return Err(Error::KExceedsLength { k, len });
        }
        // Each rank's best (at most k), with its shard's length.
        let mut picks = Vec::with_capacity(self.devices.len());
        for (dev, shard) in self.devices.iter().zip(&xs.shards) {
            let take = k.min(shard.len());
            let (values, positions) = match take {
                0 => (Vec::new(), Vec::new()),
                _ => {
                    let best = match largest {
                        true => dev.top_k(shard, take)?,
                        false => dev.bottom_k(shard, take)?,
                    };
                    (best.values.download()?, best.indices.download()?)
                }
            };
            picks.push((values, positions, shard.len() as u64));
        }
        Ok(best_of_ranks(picks, k, largest))
    }

    /// `f` of each rank's device and shard, all queued before any result is read.
    fn each<T: Element, R: Readout>(
        &self,
        xs: &ShardedVec<T>,
        f: impl Fn(&Device, &DeviceVec<T>) -> Result<DeviceScalar<R>>,
    ) -> Result<Vec<DeviceScalar<R>>> {
        self.check(xs)?;
        self.devices
            .iter()
            .zip(&xs.shards)
            .map(|(dev, shard)| f(dev, shard))
            .collect()
    }

    /// One shard a rank, each on its rank's device's memory.
    fn check<T: Element>(&self, xs: &ShardedVec<T>) -> Result<()> {
        if xs.shards.len() != self.devices.len() {
            return Err(Error::Shape(format!(
                "a group of {} ranks takes one shard a rank; the array has {}",
                self.devices.len(),
                xs.shards.len()
            )));
        }
        let elsewhere = self
            .devices
            .iter()
            .zip(&xs.shards)
            .any(|(dev, shard)| !dev.shares_memory_with(shard.device()));
        match elsewhere {
            true => Err(Error::DeviceMismatch),
            false => Ok(()),
        }
    }
}

impl<T: Element> ShardedVec<T> {
    /// The shards, in rank order.
    pub fn shards(&self) -> &[DeviceVec<T>] {
        &self.shards
    }

    /// The number of elements, of every shard together.
    pub fn len(&self) -> usize {
        self.shards.iter().map(DeviceVec::len).sum()
    }

    /// `true` when every shard is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole array: every shard downloaded, one after another (each waits for the work
    /// queued before it on its device).
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len());
        for s in &self.shards {
            out.extend(s.download()?);
        }
        Ok(out)
    }
}

/// The left fold by `op` of the ranks' results in rank order (`op(op(r0, r1), r2) ..`): the
/// first rank's result itself (one rank gives that device's bits), then each next one
/// combined into it. `parts` holds at least one.
pub(crate) fn fold_ranks<Op: ReduceOp>(op: Op, parts: &[Op::Value]) -> Op::Value {
    let mut acc = parts[0];
    for &p in &parts[1..] {
        acc = op.combine(acc, p);
    }
    acc
}

/// What rank `k`'s part of a scan across ranks continues from: the left fold of the first `k`
/// ranks' reductions ([`fold_ranks`]), none for rank 0 (its plain scan, one device's bits).
pub(crate) fn ranks_before<Op: ReduceOp>(
    op: Op,
    parts: &[Op::Value],
    k: usize,
) -> Option<Op::Value> {
    (k > 0).then(|| fold_ranks(op, &parts[..k]))
}

/// The best `k` (largest first, or smallest first) of the candidates of several ranks, given
/// in rank order as each rank's values, their positions in its own array and its array's
/// length; positions in the result count in the ranks' arrays one after another. Among equal
/// keys each rank's candidates are in position order and come after the ranks' before it, so
/// the tie rule (the earlier candidate) is the smaller position, as on one device.
pub(crate) fn best_of_ranks<T: Ordered>(
    ranks: impl IntoIterator<Item = (Vec<T>, Vec<u64>, u64)>,
    k: usize,
    largest: bool,
) -> (Vec<T>, Vec<u64>) {
    let (mut values, mut positions) = (Vec::new(), Vec::new());
    let mut before = 0u64;
    for (v, p, len) in ranks {
        values.extend(v);
        positions.extend(p.into_iter().map(|i| i + before));
        before += len;
    }
    let (values, at) = crate::backend::cpu::top_k(&values, k, largest, T::order_key, T::KEY_BITS);
    (values, at.iter().map(|&i| positions[i as usize]).collect())
}
