//! A device's own memory: the persistent grid-combine scratch, the scratch arena that the
//! operations' temporaries are carved from (grown only when an operation needs more than ever
//! before), and the pools of result slots: device memory for results left on the device, and
//! page-locked host memory mapped into the device for results the host waits for (the kernel
//! writes them there, so reading one is no copy). Kernels get this memory as raw device
//! addresses: it is used only on the device's own stream, so it needs none of cudarc's
//! cross-stream event tracking.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr, sys};

use super::{Gpu, alloc_err, drv};
use crate::error::Result;

/// Alignment of every arena region and result slot.
pub(crate) const ALIGN: usize = 256;
/// Bytes of one result slot (the largest operator value: 8 fields of 8 bytes).
pub(crate) const SLOT_BYTES: usize = 64;
/// Bytes between result slots in mapped host memory: the value, then its done word (a `u32`
/// at offset [`SLOT_BYTES`] that the kernel sets once the value is written; see
/// `Slot::read_mapped`).
const HOST_SLOT_STRIDE: usize = 128;
/// Polls of a done word between two queries of the slot's event (which notice a failed or
/// finished launch that set no done word).
const POLLS_PER_QUERY: u32 = 64;
/// Result slots per chunk of the pool.
const SLOTS_PER_CHUNK: usize = 256;

/// Device memory with its address taken once (reading the address of a tracked `CudaSlice`
/// records an event; these buffers never need one).
pub(crate) struct Block {
    _buf: CudaSlice<u8>,
    pub(crate) ptr: u64,
    pub(crate) len: usize,
}

impl Block {
    fn new(stream: &Arc<CudaStream>, len: usize) -> Result<Block> {
        let len = len.max(ALIGN);
        // SAFETY: the memory is used only for scratch the kernels write before reading (or
        // zero first, see `Gpu::scratch`).
        let buf = unsafe { stream.alloc::<u8>(len) }.map_err(alloc_err(stream, len))?;
        let ptr = {
            let (ptr, _record) = buf.device_ptr(stream);
            ptr
        };
        Ok(Block {
            _buf: buf,
            ptr,
            len,
        })
    }
}

/// Page-locked host memory mapped into the device's address space (`CU_MEMHOSTALLOC_DEVICEMAP`):
/// `host` is its address here, `dev` the address kernels write through.
pub(crate) struct Mapped {
    ctx: Arc<CudaContext>,
    host: usize,
    dev: u64,
}

impl Mapped {
    fn new(ctx: &Arc<CudaContext>, len: usize) -> Result<Mapped> {
        ctx.bind_to_thread().map_err(drv("binding the context"))?;
        // SAFETY: a plain page-locked allocation of `len` bytes; its contents are only read
        // after a kernel wrote them (see `Slot::read_mapped`).
        let host = unsafe {
            cudarc::driver::result::malloc_host(
                len,
                sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE,
            )
        }
        .map_err(drv("allocating page-locked result memory"))?;
        let mut dev: sys::CUdeviceptr = 0;
        // SAFETY: `host` was allocated with CU_MEMHOSTALLOC_DEVICEMAP just above; the call
        // only writes `dev`.
        let mapped = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0) }.result();
        if let Err(e) = mapped {
            // SAFETY: `host` came from `malloc_host` and nothing uses it yet.
            let _ = unsafe { cudarc::driver::result::free_host(host) };
            return Err(drv("mapping page-locked result memory")(e));
        }
        Ok(Mapped {
            ctx: ctx.clone(),
            host: host as usize,
            dev,
        })
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // A result nobody waited for may still be on its way: let every kernel finish first.
        let _ = self.ctx.synchronize();
        // SAFETY: `host` came from `malloc_host`; no kernel runs any more and no slot of it is
        // alive (the pool, which owns this, outlives its slots).
        let _ = unsafe { cudarc::driver::result::free_host(self.host as *mut std::ffi::c_void) };
    }
}

/// The partials (a value per block) and last-block ticket of the one-launch grid reductions,
/// the stop signal of `any` / `all` and that of `find_first`; the kernels re-arm the ticket
/// and `find_first`'s signal to zero and raise `any`'s with a new epoch each launch
/// (`Gpu::epoch`), so all are zeroed once.
pub(crate) struct GridScratch {
    pub(crate) partials: Block,
    pub(crate) ticket: Block,
    pub(crate) stop: Block,
    pub(crate) first: Block,
}

impl GridScratch {
    pub(crate) fn new(
        stream: &Arc<CudaStream>,
        partials: usize,
        stop: usize,
    ) -> Result<GridScratch> {
        let s = GridScratch {
            partials: Block::new(stream, partials)?,
            ticket: Block::new(stream, 4)?,
            stop: Block::new(stream, stop)?,
            first: Block::new(stream, stop)?,
        };
        s.zero(stream, &s.ticket)?;
        s.zero(stream, &s.stop)?;
        s.zero(stream, &s.first)?;
        Ok(s)
    }

    /// Zeroes `b` (one of these blocks) in stream order.
    pub(crate) fn zero(&self, stream: &CudaStream, b: &Block) -> Result<()> {
        // SAFETY: `b` is one of this scratch's blocks, `len` bytes of this stream's device.
        unsafe { cudarc::driver::result::memset_d8_async(b.ptr, 0, b.len, stream.cu_stream()) }
            .map_err(drv("zeroing scratch"))
    }
}

/// Regions of the scratch arena for one operation, as device addresses (256-byte aligned).
pub(crate) struct Regions {
    pub(crate) ptrs: Vec<u64>,
}

impl Regions {
    /// The address of region `i`.
    pub(crate) fn at(&self, i: usize) -> u64 {
        self.ptrs[i]
    }
}

/// The chunks result slots are carved from: device memory, or mapped host memory.
enum Chunk {
    Device(#[allow(dead_code)] Block),
    Host(#[allow(dead_code)] Mapped),
}

/// The free result slots of a device, and the chunks they are carved from.
#[derive(Default)]
pub(crate) struct SlotPool {
    chunks: Vec<Chunk>,
    /// Free slots (device address, host address or 0) and their events (created the first
    /// time a slot is used).
    free: Vec<(u64, usize, Option<CudaEvent>)>,
}

/// A result slot: `SLOT_BYTES` bytes of device memory (or of mapped host memory, `host` its
/// address here, followed by its done word) and the event recorded after the work that writes
/// it; back in its pool when dropped. A slot in device memory may have a `mirror` in mapped
/// host memory that its kernel writes too (the value, then the mirror's done word), so that the
/// host reads the value without a copy while later kernels read it from device memory.
pub(crate) struct Slot {
    pub(crate) ptr: u64,
    host: usize,
    event: Option<CudaEvent>,
    pool: Arc<Mutex<SlotPool>>,
    mirror: Option<Box<Slot>>,
    /// For a slot in mapped host memory whose kernel sets its done word (`signalled_slot`):
    /// the stream its writer runs on. Such a slot records no event (one driver call less per
    /// result); whether its writer ended is asked of the stream.
    stream: Option<Arc<CudaStream>>,
}

impl Slot {
    /// The event that completes once the slot's value is written.
    pub(crate) fn event(&self) -> &CudaEvent {
        // `event` is `None` only during drop.
        self.event
            .as_ref()
            .unwrap_or_else(|| unreachable!("a live slot has its event"))
    }

    /// The first `n` bytes of a slot in mapped host memory, as host memory (for staging a
    /// copy; the slot is this caller's alone). Empty for a slot in device memory.
    pub(crate) fn host_bytes_mut(&mut self, n: usize) -> &mut [u8] {
        if self.host == 0 {
            return &mut [];
        }
        // SAFETY: `host` is the start of this slot's SLOT_BYTES of live page-locked memory,
        // which only the holder of the slot uses (no kernel writes a slot nobody launched
        // into); `n` is clamped to the slot.
        unsafe { std::slice::from_raw_parts_mut(self.host as *mut u8, n.min(SLOT_BYTES)) }
    }

    /// The device address of the done word of a slot in mapped host memory (0 for a slot in
    /// device memory): kernels that write the slot set it to 1 after the value.
    pub(crate) fn done_ptr(&self) -> u64 {
        if self.host == 0 {
            0
        } else {
            self.ptr + SLOT_BYTES as u64
        }
    }

    /// The device addresses of the mirror's value and done word (both 0 without a mirror).
    pub(crate) fn mirror_ptrs(&self) -> (u64, u64) {
        self.mirror
            .as_ref()
            .map_or((0, 0), |m| (m.ptr, m.done_ptr()))
    }

    /// Whether the work writing the slot has ended (the slot's event, or for a signalled slot
    /// its stream: all the work queued on it so far). Never waits.
    fn finished(&self) -> Result<bool> {
        match &self.stream {
            // SAFETY: the stream is alive (held here); cuStreamQuery only reads its state.
            Some(s) => match unsafe { sys::cuStreamQuery(s.cu_stream()) } {
                sys::CUresult::CUDA_SUCCESS => Ok(true),
                sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
                e => Err(drv("waiting for a result")(cudarc::driver::DriverError(e))),
            },
            None => self
                .event()
                .try_is_complete()
                .map_err(drv("waiting for a result")),
        }
    }

    /// Waits for the work writing the slot to end (errors are left to the reader).
    fn wait_writer(&self) {
        match &self.stream {
            Some(s) => {
                let _ = s.synchronize();
            }
            None => {
                let _ = self.event().synchronize();
            }
        }
    }

    /// The slot in mapped host memory the host reads: this one, or its mirror.
    fn mapped(&self) -> Option<&Slot> {
        if self.host != 0 {
            Some(self)
        } else {
            self.mirror.as_deref()
        }
    }

    /// Whether the done word of a slot in mapped host memory is set (false in device memory).
    fn done(&self) -> bool {
        if self.host == 0 {
            return false;
        }
        // SAFETY: the done word lies in this slot's stride of live page-locked memory.
        // Volatile: the device writes it behind the compiler's back.
        let set = unsafe { std::ptr::read_volatile((self.host + SLOT_BYTES) as *const u32) } != 0;
        if set {
            // The value was written before the done word (the kernel fences in between).
            std::sync::atomic::fence(Ordering::Acquire);
        }
        set
    }

    /// Sets (`true`) or clears the done word of a slot in mapped host memory.
    fn set_done(&self, set: bool) {
        if self.host != 0 {
            // SAFETY: as in `done`; only the slot's holder writes it, before launching its
            // writer (clear) or after its own copy into it (set).
            unsafe { std::ptr::write_volatile((self.host + SLOT_BYTES) as *mut u32, set as u32) };
        }
    }

    /// Marks a staging slot's bytes as its own (written by a synchronous copy, not a kernel).
    pub(crate) fn mark_done(&self) {
        self.set_done(true);
    }

    /// Whether the slot's value is written (never waits).
    pub(crate) fn is_ready(&self) -> bool {
        self.mapped().is_some_and(Slot::done) || self.finished().unwrap_or(true)
    }

    /// For a slot in mapped host memory (or with a mirror there): waits for its writer and
    /// copies its bytes (no device copy). `None` for a slot in device memory without a mirror.
    /// The wait polls the done word, which the kernel sets right after the value (sooner than
    /// its end is signalled to the host); every [`POLLS_PER_QUERY`] polls it also asks whether
    /// the writer has ended (`finished`: the slot's event, or the stream of a signalled slot),
    /// so that a launch that ended without setting it (or failed) is noticed.
    pub(crate) fn read_mapped(&self, bytes: &mut [u8]) -> Option<Result<()>> {
        let src = self.mapped()?;
        Some((|| {
            let mut polls = 0u32;
            while !src.done() {
                polls += 1;
                if polls.is_multiple_of(POLLS_PER_QUERY) && self.finished()? {
                    break;
                }
                std::hint::spin_loop();
            }
            let n = bytes.len().min(SLOT_BYTES);
            for (i, b) in bytes[..n].iter_mut().enumerate() {
                // SAFETY: `src.host + i` lies in that slot's SLOT_BYTES of live page-locked
                // memory; its writer has written it (the done word, read with acquire
                // ordering) or has completed (the event or the stream; kernel completion makes
                // its writes visible to the host). Volatile: the device wrote it behind the
                // compiler's back.
                *b = unsafe { std::ptr::read_volatile((src.host + i) as *const u8) };
            }
            // Written and finished with (drop need not wait for the writer again).
            src.set_done(true);
            Ok(())
        })())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        // Later users of the slot are stream-ordered after its producer (they run on the same
        // stream); cross-stream readers made the producer's stream wait for them. A slot in
        // mapped host memory is also read by the host, which clears its done word before the
        // next writer's launch: a writer still running (its value never waited for) must not
        // set it after that, so the slot goes back only once its writer has finished.
        if self.mapped().is_some_and(|m| !m.done()) {
            self.wait_writer();
        }
        if let Some(m) = self.mirror.take() {
            // Its writer (this slot's) has finished: the mirror goes back without waiting.
            m.set_done(true);
        }
        if let Some(event) = self.event.take() {
            self.pool
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .free
                .push((self.ptr, self.host, Some(event)));
        }
    }
}

impl Gpu {
    /// Scratch regions of `zeroed` and then `unset` byte sizes for one operation, carved from
    /// the device's arena (grown, which is an allocation, only when this operation needs more
    /// than any before). The zeroed ones are cleared with one memset on the stream. The
    /// arena's lock is held while `body` enqueues its work: operations on one device are
    /// stream-ordered, so the next one's use of the arena comes after.
    pub(crate) fn with_scratch<R>(
        &self,
        zeroed: &[usize],
        unset: &[usize],
        body: impl FnOnce(&Regions) -> Result<R>,
    ) -> Result<R> {
        let mut arena = self.arena.lock().unwrap_or_else(|e| e.into_inner());
        let round = |n: usize| n.next_multiple_of(ALIGN);
        let zero_bytes: usize = zeroed.iter().map(|&n| round(n)).sum();
        let total = zero_bytes + unset.iter().map(|&n| round(n)).sum::<usize>();
        if arena.as_ref().is_none_or(|a| a.len < total) {
            // Drop the old arena first (freed in stream order after the work that used it).
            *arena = None;
            self.count_allocation();
            *arena = Some(Block::new(&self.stream, total.next_power_of_two())?);
        }
        let base = arena.as_ref().map_or(0, |a| a.ptr);
        let mut ptrs = Vec::with_capacity(zeroed.len() + unset.len());
        let mut off = 0u64;
        for &n in zeroed.iter().chain(unset) {
            ptrs.push(base + off);
            off += round(n) as u64;
        }
        if zero_bytes > 0 {
            // SAFETY: the first `zero_bytes` bytes of the arena belong to this operation.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    base,
                    0,
                    zero_bytes,
                    self.stream.cu_stream(),
                )
            }
            .map_err(drv("zeroing scratch"))?;
        }
        body(&Regions { ptrs })
    }

    /// A result slot for a device-resident result (from the pool; a new chunk of slots when
    /// none is free).
    pub(crate) fn slot(&self) -> Result<Slot> {
        self.take_slot(&self.slots, false)
    }

    /// A result slot in mapped host memory, for a result the host waits for: the kernel
    /// writes it straight to the host, and `get` reads it without a copy.
    pub(crate) fn host_slot(&self) -> Result<Slot> {
        self.take_slot(&self.host_slots, true)
    }

    /// A result slot in mapped host memory for a kernel that sets its done word (reduce,
    /// count, any): no event is recorded after its writer; the host polls the done word and,
    /// now and then, asks the stream whether its work has ended (which notices a failed
    /// launch). Only for results the host reads right away (they never reach a user as a
    /// `DeviceScalar`, which other streams could wait for).
    pub(crate) fn signalled_slot(&self) -> Result<Slot> {
        let mut slot = self.host_slot()?;
        slot.stream = Some(self.stream.clone());
        Ok(slot)
    }

    /// A result slot in device memory with a mirror in mapped host memory, for a result that
    /// later kernels may read and the host often waits for: the kernel writes both (see
    /// [`Slot::mirror_ptrs`]).
    pub(crate) fn mirrored_slot(&self) -> Result<Slot> {
        let mut slot = self.slot()?;
        slot.mirror = Some(Box::new(self.host_slot()?));
        Ok(slot)
    }

    /// Makes what the first operations need ahead of them (the first array allocated on the
    /// device does, so that the first operation pays only for its module): the grid scratch
    /// and a chunk of each kind of result slot.
    pub(crate) fn prepare(&self) -> Result<()> {
        self.grid_scratch()?;
        for (pool_of, host) in [(&self.slots, false), (&self.host_slots, true)] {
            let mut pool = pool_of.lock().unwrap_or_else(|e| e.into_inner());
            if pool.free.is_empty() {
                self.grow(&mut pool, host)?;
            }
        }
        Ok(())
    }

    /// A new chunk of result slots in `pool` (mapped host memory when `host`).
    fn grow(&self, pool: &mut SlotPool, host: bool) -> Result<()> {
        let stride = if host { HOST_SLOT_STRIDE } else { SLOT_BYTES };
        let bytes = stride * SLOTS_PER_CHUNK;
        let (chunk, dev, host_base) = if host {
            let m = Mapped::new(&self.shared.ctx, bytes)?;
            let (d, h) = (m.dev, m.host);
            (Chunk::Host(m), d, h)
        } else {
            self.count_allocation();
            let b = Block::new(&self.stream, bytes)?;
            let d = b.ptr;
            (Chunk::Device(b), d, 0)
        };
        pool.free.extend((0..SLOTS_PER_CHUNK).rev().map(|i| {
            let off = i * stride;
            let h = if host_base == 0 { 0 } else { host_base + off };
            (dev + off as u64, h, None)
        }));
        pool.chunks.push(chunk);
        Ok(())
    }

    fn take_slot(&self, pool_of: &Arc<Mutex<SlotPool>>, host: bool) -> Result<Slot> {
        let mut pool = pool_of.lock().unwrap_or_else(|e| e.into_inner());
        if pool.free.is_empty() {
            self.grow(&mut pool, host)?;
        }
        let (ptr, host, event) = pool
            .free
            .pop()
            .ok_or_else(|| crate::error::Error::Unsupported("no result slot".into()))?;
        let event = match event {
            Some(e) => e,
            None => self
                .shared
                .ctx
                .new_event(None)
                .map_err(drv("creating an event"))?,
        };
        let slot = Slot {
            ptr,
            host,
            event: Some(event),
            pool: pool_of.clone(),
            mirror: None,
            stream: None,
        };
        // Cleared before its writer is launched (and after the last one finished: see drop).
        slot.set_done(false);
        Ok(slot)
    }

    /// Writes `bytes` into `slot` (in stream order) and marks it written.
    pub(crate) fn write_slot(&self, slot: &Slot, bytes: &[u8]) -> Result<()> {
        debug_assert!(bytes.len() <= SLOT_BYTES);
        self.write_bytes(slot.ptr, bytes)?;
        self.written(slot)
    }

    /// Writes `bytes` at `at`, in stream order: device memory the caller holds (a result slot,
    /// its operation's scratch), at least `bytes.len()` long.
    pub(crate) fn write_bytes(&self, at: u64, bytes: &[u8]) -> Result<()> {
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(drv("binding the context"))?;
        // SAFETY: `at` is `bytes.len()` bytes of device memory the caller holds, used by work
        // on this stream only; a copy from pageable host memory has read `bytes` when the
        // call returns.
        unsafe { cudarc::driver::result::memcpy_htod_async(at, bytes, self.stream.cu_stream()) }
            .map_err(drv("writing device memory"))
    }

    /// Marks `slot` written by the work queued so far (records its event on the stream; a
    /// signalled slot needs none).
    pub(crate) fn written(&self, slot: &Slot) -> Result<()> {
        if slot.stream.is_some() {
            return Ok(());
        }
        slot.event()
            .record(&self.stream)
            .map_err(drv("recording an event"))
    }

    /// Counts one device allocation made by an operation (see `Device::allocations`).
    pub(crate) fn count_allocation(&self) {
        self.allocations.fetch_add(1, Ordering::Relaxed);
    }
}
