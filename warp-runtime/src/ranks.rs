//! One process a GPU (feature `nccl`): operations over what every rank of an NCCL communicator
//! holds, combined through NCCL's collectives in rank order.

use cudarc::nccl::safe::{Comm, Id};

use crate::arrays::{DeviceVec, Readout};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::group::{best_of_ranks, fold_ranks, ranks_before};
use crate::inputs::{ElementInput, ReduceInput};
use crate::operators::{MapOp, Predicate, ReduceOp};
use crate::values::{Element, Ordered};
use crate::{BinIndex, Counter};
use warp_kernels::catalogue::TOPK_MAX_K;

/// Whether NCCL can be loaded. cudarc looks it up by name (`libnccl.so`, `libnccl.so.1`, ..;
/// not `libnccl.so.2`, the name NCCL's packages and wheels install), so a folder holding a
/// `libnccl.so` link to it must be on the loader's path (`LD_LIBRARY_PATH` set before the
/// process starts). Every function of this module asks first, so that NCCL missing is an
/// [`Error::Nccl`], never a panic.
///
/// ```
/// // False on a machine without NCCL: `Rank::connect` and `nccl_id` then return Error::Nccl.
/// let _ = warp_runtime::nccl_available();
/// ```
pub fn nccl_available() -> bool {
    // SAFETY: only tries to open the library by its names (no symbol is called).
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// [`Error::Nccl`] unless NCCL can be loaded ([`nccl_available`]).
fn require_nccl() -> Result<()> {
    match nccl_available() {
        true => Ok(()),
        false => Err(Error::Nccl {
            call: "loading libnccl".into(),
            message: "NCCL could not be loaded by the names cudarc tries (libnccl.so, ..): put \
                      a folder with a `libnccl.so` link to NCCL's library on LD_LIBRARY_PATH"
                .into(),
        }),
    }
}

/// An NCCL error of `call` as an [`Error::Nccl`].
fn nccl(call: &'static str) -> impl Fn(cudarc::nccl::result::NcclError) -> Error {
    move |e| Error::Nccl {
        call: call.into(),
        message: format!("{e:?}"),
    }
}

/// A new NCCL unique id, made once (on rank 0) and sent to every rank however the job sends
/// things (its 128 bytes are `Id::internal`; `Id::uninit` rebuilds it on the other side).
/// [`Error::Nccl`] when NCCL cannot be loaded or refuses.
pub fn nccl_id() -> Result<Id> {
    require_nccl()?;
    Id::new().map_err(nccl("ncclGetUniqueId"))
}

/// One rank of an NCCL communicator: this process's GPU, and the operations over what every
/// rank holds. Each operation runs the one-GPU operation on this rank's input, then combines
/// the ranks' results through NCCL on the rank's stream, and every rank returns the same
/// result. Every rank must call the same operations in the same order (NCCL's rule: a rank that
/// skips one leaves the others waiting).
///
/// What is exact and deterministic: a reduction with a `#[reduce]` operator gathers every
/// rank's reduction (an all-gather of their bytes: NCCL has no custom operators) and folds
/// them on the host in rank order (`op(op(r0, r1), r2) ..`), so every rank gets the same bits
/// whatever the timing (they may differ in rounding from one GPU's reduction of all the data,
/// which groups it otherwise). Counts and histograms are sums of integers (exact). Top-k
/// gathers each rank's candidates.
///
/// ```no_run
/// use warp_runtime::prelude::*;
/// use warp_runtime::{nccl_id, Rank};
/// #[reduce(identity = 0.0)]
/// fn add(a: f32, b: f32) -> f32 { a + b }
/// # fn main() -> warp_runtime::Result<()> {
/// # let (rank, world_size) = (0usize, 1usize);
/// // Rank 0 makes the id and sends its bytes to the others (here: a world of one).
/// let id = nccl_id()?;
/// let me = Rank::connect(0, rank, world_size, id)?;
/// let xs = me.device().upload(&[1.0f32, 2.0, 3.0])?;
/// let total = me.reduce_all(add, &xs)?; // the sum over every rank's array
/// let (before, _) = me.exclusive_offset(add, &xs)?; // what the ranks before this one hold
/// # Ok(()) }
/// ```
pub struct Rank {
    comm: Comm,
    device: Device,
}

impl std::fmt::Debug for Rank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rank")
            .field("rank", &self.rank())
            .field("world_size", &self.world_size())
            .field("device", &self.device)
            .finish()
    }
}

impl Rank {
    /// The rank of the caller's communicator `comm`, its operations on the communicator's
    /// stream (`Device::from_stream(comm.stream())`).
    pub fn new(comm: Comm) -> Result<Rank> {
        let device = Device::from_stream(comm.stream())?;
        Ok(Rank { comm, device })
    }

    /// Joins the communicator of `id` (from [`nccl_id`] on rank 0) as rank `rank` of
    /// `world_size`, on GPU `ordinal` (its primary context's default stream). Every rank
    /// must call it (NCCL waits for all of them). [`Error::Nccl`] when NCCL cannot be loaded
    /// or refuses (two ranks on one GPU, a wrong world size); [`Error::Shape`] for a rank
    /// outside the world.
    pub fn connect(ordinal: usize, rank: usize, world_size: usize, id: Id) -> Result<Rank> {
        require_nccl()?;
        if rank >= world_size {
            return Err(Error::Shape(format!(
                "rank {rank} is outside a world of {world_size}"
            )));
        }
        let stream = Device::cuda(ordinal)?
            .cuda_stream()
            .ok_or_else(|| Error::Unsupported("a CUDA device has no stream".into()))?;
        let comm =
            Comm::from_rank(stream, rank, world_size, id).map_err(nccl("ncclCommInitRank"))?;
        Rank::new(comm)
    }

    /// This rank's number, from 0.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// The number of ranks.
    pub fn world_size(&self) -> usize {
        self.comm.world_size()
    }

    /// This rank's device: its arrays are the inputs of the operations.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The communicator.
    pub fn comm(&self) -> &Comm {
        &self.comm
    }

    /// Every rank's `mine` (as many values on every rank), in rank order: NCCL's all-gather of
    /// their bytes on this rank's stream, then read back.
    fn gather<T: Element + Readout>(&self, mine: &[T]) -> Result<Vec<T>> {
        self.gather_device(&mut self.device.upload(mine)?)
    }

    /// [`Rank::gather`] of values already in this rank's memory (`mine`, as many on every
    /// rank).
    fn gather_device<T: Element + Readout>(&self, mine: &mut DeviceVec<T>) -> Result<Vec<T>> {
        let mut all = self.device.new_array::<T>(mine.len() * self.world_size())?;
        {
            let s = mine.gpu_bytes_mut()?;
            let mut r = all.gpu_bytes_mut()?;
            self.comm
                .all_gather(&s, &mut r)
                .map_err(nccl("ncclAllGather"))?;
        }
        all.download()
    }

    /// The sum over the ranks of each of `mine` (as many on every rank), exact: NCCL's
    /// all-reduce of `u64`s.
    fn sum(&self, mine: &[u64]) -> Result<Vec<u64>> {
        let mut vals = self.device.upload(mine)?;
        {
            let mut v = vals.gpu_bytes_mut()?;
            // SAFETY: the bytes are the array's own `u64`s, viewed as such again.
            let mut v = unsafe { v.transmute_mut::<u64>(mine.len()) }
                .ok_or_else(|| Error::Shape("counts viewed as u64".into()))?;
            self.comm
                .all_reduce_in_place(&mut v, &cudarc::nccl::safe::ReduceOp::Sum)
                .map_err(nccl("ncclAllReduce"))?;
        }
        vals.download()
    }

    /// Every rank's reduction of its `input` by `op`, in rank order.
    fn reductions<Op, I>(&self, op: Op, input: &I) -> Result<Vec<Op::Value>>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
        I: ReduceInput<Op> + ?Sized,
    {
        // The reduction stays on the device for the gather (no host round trip).
        let mut mine = self.device.new_array::<Op::Value>(1)?;
        self.device.reduce_into(op, input, &mut mine)?;
        self.gather_device(&mut mine)
    }

    /// The reduction by `op` of every rank's `input` (any input of [`Device::reduce`]): this
    /// rank's reduction, the ranks' results gathered, and their left fold in rank order
    /// (`op(op(r0, r1), r2) ..`; one rank gives its own). The same bits on every rank.
    pub fn reduce_all<Op, I>(&self, op: Op, input: &I) -> Result<Op::Value>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
        I: ReduceInput<Op> + ?Sized,
    {
        Ok(fold_ranks(op, &self.reductions(op, input)?))
    }

    /// For a scan across ranks: the fold by `op` of the reductions of the ranks before this
    /// one (the identity on rank 0), and of every rank's (as [`Rank::reduce_all`]). `op(before,
    /// v)` of each value `v` of this rank's own inclusive scan is then its part of the scan of
    /// all the ranks' inputs one after another (exact for exact operators; floats may differ
    /// in rounding from one device's scan of all of them).
    pub fn exclusive_offset<Op, I>(&self, op: Op, input: &I) -> Result<(Op::Value, Op::Value)>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
        I: ReduceInput<Op> + ?Sized,
    {
        let all = self.reductions(op, input)?;
        let before = ranks_before(op, &all, self.rank()).unwrap_or(op.identity());
        Ok((before, fold_ranks(op, &all)))
    }

    /// This rank's part of the inclusive scan by `op` of every rank's `input` one after
    /// another, into `out` (as long as the input): every rank's reduction gathered, then this
    /// rank's [`Device::scan_from_into`] from the left fold of the reductions of the ranks
    /// before it (rank 0: its plain [`Device::scan_into`]), queued and not waited for. As
    /// [`DeviceGroup::scan`](crate::DeviceGroup::scan): the same bits whatever the timing,
    /// exact operators give one device's scan of all the inputs, floats may differ from it in
    /// rounding.
    pub fn scan_all_into<Op, I>(
        &self,
        op: Op,
        input: &I,
        out: &mut DeviceVec<Op::Value>,
    ) -> Result<()>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
        I: ReduceInput<Op> + ?Sized,
    {
        self.scan_all(op, input, out, false)
    }

    /// This rank's part of the exclusive scan by `op` of every rank's `input` one after
    /// another, into `out`: rank 0's first value is the identity, rank `k`'s `op(P, identity)`
    /// with `P` the fold of the ranks before it. Otherwise as [`Rank::scan_all_into`].
    pub fn exclusive_scan_all_into<Op, I>(
        &self,
        op: Op,
        input: &I,
        out: &mut DeviceVec<Op::Value>,
    ) -> Result<()>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
        I: ReduceInput<Op> + ?Sized,
    {
        self.scan_all(op, input, out, true)
    }

    fn scan_all<Op, I>(
        &self,
        op: Op,
        input: &I,
        out: &mut DeviceVec<Op::Value>,
        exclusive: bool,
    ) -> Result<()>
    where
        Op: ReduceOp,
        Op::Value: Element + Readout,
        I: ReduceInput<Op> + ?Sized,
    {
        let all = self.reductions(op, input)?;
        let before = ranks_before(op, &all, self.rank());
        self.device.run_scan(op, input, out, exclusive, before)
    }

    /// How many elements of every rank's `input` satisfy `pred`: the sum of the ranks'
    /// counts (exact).
    pub fn count_all<I, P>(&self, pred: P, input: &I) -> Result<u64>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let mine = self.device.count(pred, input)?;
        Ok(self.sum(&[mine])?[0])
    }

    /// Whether any element of any rank's `input` satisfies `pred`.
    pub fn any_all<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let mine = self.device.any(pred, input)?;
        Ok(self.sum(&[u64::from(mine)])?[0] > 0)
    }

    /// Whether every element of every rank's `input` satisfies `pred` (true when all are
    /// empty).
    pub fn all_all<I, P>(&self, pred: P, input: &I) -> Result<bool>
    where
        I: ElementInput + ?Sized,
        P: Predicate<Input = I::Value>,
    {
        let mine = self.device.all(pred, input)?;
        Ok(self.sum(&[u64::from(!mine)])?[0] == 0)
    }

    /// The histogram of every rank's `xs` in `bins` bins, as [`Device::histogram`] gives it
    /// for one array: the ranks' `u64` counts summed by NCCL's all-reduce (exact; a `u32`
    /// counter wraps as one device's would).
    pub fn histogram_all<C, M>(
        &self,
        bin: M,
        xs: &DeviceVec<M::Input>,
        bins: usize,
    ) -> Result<Vec<C>>
    where
        C: Counter,
        M: MapOp,
        M::Input: Element,
        M::Output: BinIndex,
    {
        let mine = self
            .device
            .histogram::<u64, _, _>(bin, xs, bins)?
            .download()?;
        Ok(self.sum(&mine)?.into_iter().map(C::wrap).collect())
    }

    /// The `k` largest elements of every rank's `xs` with their positions in the ranks' arrays
    /// one after another (rank 0's first), largest first, ties to the smaller position (NaN
    /// above every number, `-0.0` equal to `+0.0`), as [`Device::top_k`] gives them for one
    /// array: each rank's best `k` (padded when its array is shorter) and its length gathered,
    /// then the top `k` of the candidates, on every rank. `k` above the ranks' total length is
    /// [`Error::KExceedsLength`] (on every rank); above 1,024, [`Error::Unsupported`].
    pub fn top_k_all<T: Ordered + Readout>(
        &self,
        xs: &DeviceVec<T>,
        k: usize,
    ) -> Result<(Vec<T>, Vec<u64>)> {
        if k > TOPK_MAX_K {
            return Err(Error::Unsupported(format!(
                "top-k takes k up to {TOPK_MAX_K}; asked for {k}"
            )));
        }
        if k == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let take = k.min(xs.len());
        let (mut values, mut positions) = (vec![T::default(); k], vec![0u64; k]);
        if take > 0 {
            let best = self.device.top_k(xs, take)?;
            values[..take].copy_from_slice(&best.values.download()?);
            positions[..take].copy_from_slice(&best.indices.download()?);
        }
        let lens = self.gather(&[xs.len() as u64, take as u64])?;
        let total: u64 = lens.chunks(2).map(|l| l[0]).sum();
        if k as u64 > total {
            return Err(Error::KExceedsLength {
                k,
                len: total as usize,
            });
        }
        let (all_values, all_positions) = (self.gather(&values)?, self.gather(&positions)?);
        // Each rank's candidates (the first `taken` of its `k`), in rank order.
        let ranks = lens.chunks(2).enumerate().map(|(r, l)| {
            let (at, taken) = (r * k, l[1] as usize);
            let values = all_values[at..at + taken].to_vec();
            (values, all_positions[at..at + taken].to_vec(), l[0])
        });
        Ok(best_of_ranks(ranks, k, true))
    }
}
