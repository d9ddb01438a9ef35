//! The caller's cudarc memory and streams, results left on the device, several streams,
//! `_into` forms that allocate nothing, and out-of-memory errors on those paths, against the
//! CPU backend and plain Rust. Needs a CUDA GPU: `cargo test -- --ignored` there. A binary of
//! its own: its tests read the GPU's free memory and one fills it, which other tests of the
//! same process would change or be starved by.

use std::time::Instant;

use warp_runtime::cudarc::driver::{CudaSlice, DevicePtr, sys::CUevent_flags};
use warp_runtime::prelude::*;
use warp_runtime::{Error, ReduceOp};
use warp_tests::interop::{fill, fill_host, fill_kernel};
use warp_tests::ops::{positive, square, sum_f32};
use warp_tests::{Random, assert_bits, close_sum, exact_vec, gpu, rng, seed};

#[reduce(identity = 0)]
fn add(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

#[reduce(identity = 0.0)]
fn sum64(a: f64, b: f64) -> f64 {
    a + b
}

#[predicate]
fn above(x: f32, t: f32) -> bool {
    x > t
}

#[map]
fn shifted(x: f32, by: f32) -> f32 {
    x - by
}

#[map]
fn widen(x: f32) -> f64 {
    x as f64
}

/// The tests of this file one at a time: some read the GPU's free memory, one fills it.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn sum_of(xs: &[f32]) -> (f64, f64) {
    (
        xs.iter().map(|&x| x as f64).sum(),
        xs.iter().map(|&x| (x as f64).abs()).sum(),
    )
}

fn ptr_of<T>(s: &CudaSlice<T>) -> u64 {
    let stream = s.stream().clone();
    let (p, _record) = s.device_ptr(&stream);
    p
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn caller_memory_is_an_input_and_converts_without_copies() {
    let _serial = serial();
    let dev = gpu();
    let stream = dev.cuda_stream().expect("a GPU device has a stream");
    let s = seed();
    let xs = f32::random_vec(&mut rng(s), (1 << 20) + 7, false);
    let raw: CudaSlice<f32> = stream.clone_htod(&xs).expect("copied");
    let (want, abs) = sum_of(&xs);
    let got = dev.reduce(sum_f32, &raw).expect("reduce of a CudaSlice") as f64;
    assert!(close_sum(got, want, abs, 1e-6), "seed {s}: {got} vs {want}");
    // Views of it, maps and indexed pairs over it.
    let view = raw.slice(5..1000);
    let (w, a) = sum_of(&xs[5..1000]);
    assert!(close_sum(
        dev.reduce(sum_f32, &view).unwrap() as f64,
        w,
        a,
        1e-6
    ));
    let want_pos = xs.iter().filter(|&&x| x > 0.0).count() as u64;
    assert_eq!(dev.count(positive, &raw).unwrap(), want_pos);
    let sq: f64 = xs.iter().map(|&x| (x * x) as f64).sum();
    let got = dev.reduce(sum_f32, &raw.map(square)).unwrap() as f64;
    assert!(close_sum(got, sq, sq, 1e-6));
    let scanned = dev.scan(sum_f32, &raw).unwrap().download().unwrap();
    assert_eq!(scanned.len(), xs.len());
    // Each running sum within rounding of the exact one (random floats: not exact).
    let (mut exact, mut abs) = (0.0f64, 0.0f64);
    for (i, (&x, &got)) in xs.iter().zip(&scanned).enumerate() {
        exact += x as f64;
        abs += (x as f64).abs();
        assert!(
            close_sum(got as f64, exact, abs, 1e-6),
            "scan element {i}: {got} vs {exact}"
        );
    }

    // CudaSlice -> DeviceVec -> CudaSlice: the same memory, no device memory used.
    let before = ptr_of(&raw);
    let ctx = dev.cuda_context().unwrap();
    let (free0, _) = ctx.mem_get_info().unwrap();
    let v = DeviceVec::from_cuda(&dev, raw).expect("same context");
    assert_eq!(v.len(), xs.len());
    assert_eq!(v.download().unwrap(), xs, "the same contents");
    let back = v.into_cuda().unwrap();
    assert_eq!(ptr_of(&back), before, "the same device memory");
    let (free1, _) = ctx.mem_get_info().unwrap();
    assert!(
        free1 + (4 << 20) >= free0,
        "no copy: free {free0} -> {free1}"
    );

    // A filter result converts to a slice of exactly the kept values.
    let kept = dev.filter(positive, &back).unwrap();
    let n_kept = kept.len();
    let kept_ptr = kept.download().unwrap();
    let as_slice = kept.into_cuda().unwrap();
    assert_eq!(as_slice.len(), n_kept);
    assert_eq!(stream.clone_dtoh(&as_slice).unwrap(), kept_ptr);

    // Memory of another device is refused (the CPU backend here).
    let cpu = Device::cpu();
    assert!(matches!(
        DeviceVec::from_cuda(&cpu, back),
        Err(Error::DeviceMismatch)
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn operations_run_on_the_callers_stream_with_a_cudarc_kernel() {
    let _serial = serial();
    let owner = gpu();
    let ctx = owner.cuda_context().unwrap();
    let stream = ctx.new_stream().expect("a stream");
    let dev = Device::from_stream(stream.clone()).expect("a device on the caller's stream");
    let f = fill_kernel(&stream);
    let n = (1 << 22) + 5;
    // SAFETY (test): `fill` writes every element before anything reads it.
    let mut buf: CudaSlice<f32> = unsafe { stream.alloc::<f32>(n) }.unwrap();
    for round in 0..3u32 {
        fill(&stream, &f, &mut buf, round);
        // Our kernels queue behind `fill` on the same stream; nothing waits until `get`.
        let total = dev.reduce_on_device(sum_f32, &buf).unwrap();
        let count = dev.count_on_device(above.with(0.5), &buf).unwrap();
        let mut scanned = dev.scan(add, &dev.upload(&[1i32, 2, 3]).unwrap()).unwrap();
        dev.scan_into(add, &dev.upload(&[4i32, 5, 6]).unwrap(), &mut scanned)
            .unwrap();
        let host = fill_host(n, round);
        let (want, abs) = sum_of(&host);
        assert!(
            close_sum(total.get().unwrap() as f64, want, abs, 1e-6),
            "round {round}"
        );
        assert_eq!(
            count.get().unwrap(),
            host.iter().filter(|&&x| x > 0.5).count() as u64
        );
        assert_eq!(scanned.download().unwrap(), vec![4, 9, 15]);
    }
    // Our output handed back to a cudarc kernel: fill overwrites it in stream order.
    let xs = dev.map(shifted.with(1.0), &buf).unwrap();
    let mut raw = xs.into_cuda().unwrap();
    fill(&stream, &f, &mut raw, 7);
    assert_eq!(stream.clone_dtoh(&raw).unwrap(), fill_host(n, 7));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_results_are_read_later_and_bound_as_parameters() {
    let _serial = serial();
    let dev = gpu();
    let cpu = Device::cpu();
    let s = seed();
    let xs = f32::random_vec(&mut rng(s), 100_003, true);
    let (g, c) = (dev.upload(&xs).unwrap(), cpu.upload(&xs).unwrap());
    let mean_g = dev.map_reduce_on_device(widen, sum64, &g).unwrap();
    let mean_c = cpu.map_reduce_on_device(widen, sum64, &c).unwrap();
    assert_eq!(
        mean_g.get().unwrap().is_nan(),
        mean_c.get().unwrap().is_nan()
    );
    // A result bound as a parameter: the kernel reads it on the device.
    let finite: Vec<f32> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    let (gf, cf) = (dev.upload(&finite).unwrap(), cpu.upload(&finite).unwrap());
    let t_g = dev.reduce_on_device(sum_f32, &gf).unwrap();
    let t_c = cpu.reduce_on_device(sum_f32, &cf).unwrap();
    let scale = |t: &DeviceScalar<f32>| t.get().unwrap() / 50_000.0;
    let tg = dev
        .map_reduce_on_device(shifted.with(&t_g), sum_f32, &gf)
        .unwrap();
    // The CPU shifts by the GPU's total (the two totals differ by rounding, which n shifts
    // would multiply): what is checked is that the kernel read the bound result.
    let t_read = t_g.get().unwrap();
    let tc = cpu
        .map_reduce_on_device(shifted.with(t_read), sum_f32, &cf)
        .unwrap();
    let (a, b) = (tg.get().unwrap() as f64, tc.get().unwrap() as f64);
    let abs: f64 = finite.iter().map(|&x| (x - t_read).abs() as f64).sum();
    assert!(close_sum(a, b, abs, 1e-5), "seed {s}: {a} vs {b}");
    let above_g = dev.count(above.with(&t_g), &gf).unwrap();
    assert_eq!(above_g, cpu.count(above.with(&t_c), &cf).unwrap());
    let _ = scale(&t_g);
    // Every host-valued operation's device form.
    for cut in [-0.5f32, 0.0, 0.99, 2.0] {
        let p = above.with(cut);
        assert_eq!(
            dev.any_on_device(p, &g).unwrap().get().unwrap(),
            cpu.any(p, &c).unwrap()
        );
        assert_eq!(
            dev.all_on_device(p, &g).unwrap().get().unwrap(),
            cpu.all(p, &c).unwrap()
        );
        assert_eq!(
            dev.find_first_on_device(p, &g).unwrap().get().unwrap(),
            cpu.find_first(p, &c).unwrap()
        );
        assert_eq!(
            dev.count_on_device(p, &g).unwrap().get().unwrap(),
            cpu.count(p, &c).unwrap()
        );
    }
    // Empty inputs: the identity, on the device.
    let empty = dev.upload::<f32>(&[]).unwrap();
    assert_eq!(
        dev.reduce_on_device(sum_f32, &empty)
            .unwrap()
            .get()
            .unwrap(),
        0.0
    );
    assert!(dev.all_on_device(positive, &empty).unwrap().get().unwrap());
    assert!(!dev.any_on_device(positive, &empty).unwrap().get().unwrap());
    // A GPU result cannot parameterise the CPU backend.
    assert!(matches!(
        cpu.count(above.with(&t_g), &cf),
        Err(Error::DeviceMismatch)
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn two_streams_order_their_reads_and_writes() {
    let _serial = serial();
    let a = gpu();
    let b = a.fork().expect("a second stream");
    let n = (1 << 24) + 3;
    let s = seed();
    let xs = i32::random_vec(&mut rng(s), n, false);
    let x = a.upload(&xs).unwrap();
    for round in 0..4 {
        // A writes y; B reads it at once (cudarc's events order them), A reads B's output.
        let y = a.scan(add, &x).unwrap();
        let total_b = b.reduce_on_device(add, &y).unwrap();
        let y2 = b.map(widen_i32, &x).unwrap();
        let count_a = a.count_on_device(positive, &y2).unwrap();
        // B's result bound in A's kernel, and A's in B's.
        let c1 = a.count_on_device(above_i.with(&total_b), &x).unwrap();
        let mut acc = 0i32;
        let want_y: Vec<i32> = xs
            .iter()
            .map(|&v| {
                acc = acc.wrapping_add(v);
                acc
            })
            .collect();
        let want_total = want_y.iter().fold(0i32, |s, &v| s.wrapping_add(v));
        assert_eq!(total_b.get().unwrap(), want_total, "round {round}");
        assert_eq!(
            count_a.get().unwrap(),
            xs.iter().filter(|&&v| v as f32 > 0.0).count() as u64
        );
        assert_eq!(
            c1.get().unwrap(),
            xs.iter().filter(|&&v| v > want_total).count() as u64
        );
        // wait_for orders what the arrays' events do not: a result read on the host.
        b.wait_for(&a).unwrap();
        assert_eq!(y.download().unwrap(), want_y);
    }
}

#[map]
fn widen_i32(x: i32) -> f32 {
    x as f32
}

#[predicate]
fn above_i(x: i32, t: i32) -> bool {
    x > t
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn two_devices_run_concurrently() {
    let _serial = serial();
    let a = gpu();
    let b = a.fork().unwrap();
    let n = 1 << 24;
    let xs = f32::random_vec(&mut rng(seed()), n, false);
    let (xa, xb) = (a.upload(&xs).unwrap(), b.upload(&xs).unwrap());
    let (want, abs) = sum_of(&xs);
    let ctx = a.cuda_context().unwrap();
    let ev = || {
        ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .unwrap()
    };
    let (sa, sb) = (a.cuda_stream().unwrap(), b.cuda_stream().unwrap());
    // Warm up both (module loads).
    a.reduce(sum_f32, &xa).unwrap();
    b.reduce(sum_f32, &xb).unwrap();
    a.synchronize().unwrap();
    b.synchronize().unwrap();
    let reps = 200;
    let (a0, a1, b0, b1) = (ev(), ev(), ev(), ev());
    let origin = ev();
    origin.record(&sa).unwrap();
    b.wait_for(&a).unwrap();
    a0.record(&sa).unwrap();
    b0.record(&sb).unwrap();
    let mut results = Vec::new();
    let t = Instant::now();
    for _ in 0..reps {
        results.push(a.reduce_on_device(sum_f32, &xa).unwrap());
        results.push(b.reduce_on_device(sum_f32, &xb).unwrap());
    }
    a1.record(&sa).unwrap();
    b1.record(&sb).unwrap();
    a.synchronize().unwrap();
    b.synchronize().unwrap();
    let host = t.elapsed();
    let at = |e: &warp_runtime::cudarc::driver::CudaEvent| origin.elapsed_ms(e).unwrap() as f64;
    let (ta0, ta1, tb0, tb1) = (at(&a0), at(&a1), at(&b0), at(&b1));
    let overlap = ta1.min(tb1) - ta0.max(tb0);
    let shorter = (ta1 - ta0).min(tb1 - tb0);
    println!(
        "stream A {ta0:.3}..{ta1:.3} ms, stream B {tb0:.3}..{tb1:.3} ms, overlap {overlap:.3} ms (host {host:?})"
    );
    assert!(
        overlap > 0.5 * shorter,
        "the two streams' work overlaps in time: A {ta0:.3}..{ta1:.3}, B {tb0:.3}..{tb1:.3}"
    );
    for r in results {
        assert!(close_sum(r.get().unwrap() as f64, want, abs, 1e-6));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn into_forms_in_a_loop_allocate_nothing() {
    let _serial = serial();
    let dev = gpu();
    let n = (1 << 20) + 9;
    let cols = 1000;
    let rows = n / cols;
    let m = rows * cols;
    // Small integers: every sum and running sum is exact, so each output compares bit for bit.
    let xs: Vec<f32> = exact_vec(seed(), n);
    let x = dev.upload(&xs).unwrap();
    let xm = dev.upload(&xs[..m]).unwrap();
    let offs: Vec<u64> = (0..=100u64).map(|i| i * (n as u64 / 100)).collect();
    let offsets = dev.upload(&offs).unwrap();
    // Every output starts as NaN (or ones), so an element left unwritten shows.
    let nan = |len: usize| dev.upload(&vec![f32::NAN; len]).unwrap();
    let (mut scan_out, mut map_out) = (nan(n), nan(n));
    let (mut filtered, mut kept, mut rejected) = (nan(n), nan(n), nan(n));
    let (mut rows_out, mut cols_out, mut segs_out, mut t_out) =
        (nan(rows), nan(cols), nan(100), nan(m));
    let mut mask_out = dev.upload(&vec![u32::MAX; n.div_ceil(32)]).unwrap();
    let mut run = |i: usize| {
        dev.scan_into(sum_f32, &x, &mut scan_out).unwrap();
        dev.map_into(shifted.with(i as f32), &x, &mut map_out)
            .unwrap();
        dev.reduce_rows_into(sum_f32, &xm, cols, &mut rows_out)
            .unwrap();
        dev.reduce_cols_into(sum_f32, &xm, cols, &mut cols_out)
            .unwrap();
        dev.reduce_segments_into(sum_f32, &x, &offsets, &mut segs_out)
            .unwrap();
        dev.transpose_into(&xm, cols, &mut t_out).unwrap();
        dev.mask_into(positive, &x, &mut mask_out).unwrap();
        let k = dev.filter_into(positive, &x, &mut filtered).unwrap();
        let p = dev
            .partition_into(above.with(i as f32 / 200.0), &x, &mut kept, &mut rejected)
            .unwrap();
        let total = dev.reduce_on_device(sum_f32, &x).unwrap();
        let c = dev.count_on_device(above.with(&total), &x).unwrap();
        (k, p, c, total)
    };
    run(0);
    dev.synchronize().unwrap();
    let ctx = dev.cuda_context().unwrap();
    let (allocs, (free0, _)) = (dev.allocations(), ctx.mem_get_info().unwrap());
    let mut last = None;
    for i in 0..1000 {
        last = Some(run(i));
    }
    dev.synchronize().unwrap();
    let (free1, _) = ctx.mem_get_info().unwrap();
    assert_eq!(dev.allocations(), allocs, "no allocation in the loop");
    assert_eq!(free0, free1, "device memory unchanged");

    // Every output of the last round (i = 999), against plain Rust.
    let (k, p, c, total) = last.unwrap();
    let last_i = 999.0f32;
    let exact = |v: &[f32]| v.iter().map(|&x| x as i64).sum::<i64>() as f32;
    let mut acc = 0.0f32;
    let want_scan: Vec<f32> = xs
        .iter()
        .map(|&x| {
            acc += x;
            acc
        })
        .collect();
    assert_bits(&scan_out.download().unwrap(), &want_scan, "scan_into");
    let want_map: Vec<f32> = xs.iter().map(|&x| x - last_i).collect();
    assert_bits(&map_out.download().unwrap(), &want_map, "map_into");
    let want_rows: Vec<f32> = xs[..m].chunks(cols).map(exact).collect();
    assert_bits(
        &rows_out.download().unwrap(),
        &want_rows,
        "reduce_rows_into",
    );
    let want_cols: Vec<f32> = (0..cols)
        .map(|j| (0..rows).map(|r| xs[r * cols + j] as i64).sum::<i64>() as f32)
        .collect();
    assert_bits(
        &cols_out.download().unwrap(),
        &want_cols,
        "reduce_cols_into",
    );
    let want_segs: Vec<f32> = offs
        .windows(2)
        .map(|w| exact(&xs[w[0] as usize..w[1] as usize]))
        .collect();
    assert_bits(
        &segs_out.download().unwrap(),
        &want_segs,
        "reduce_segments_into",
    );
    let want_t: Vec<f32> = (0..m).map(|i| xs[(i % rows) * cols + i / rows]).collect();
    assert_bits(&t_out.download().unwrap(), &want_t, "transpose_into");
    let mut want_mask = vec![0u32; n.div_ceil(32)];
    for (i, &x) in xs.iter().enumerate() {
        want_mask[i / 32] |= ((x > 0.0) as u32) << (i % 32);
    }
    assert_eq!(mask_out.download().unwrap(), want_mask, "mask_into");
    let positives: Vec<f32> = xs.iter().copied().filter(|&x| x > 0.0).collect();
    assert_eq!(
        k.get().unwrap(),
        positives.len() as u64,
        "filter_into's count"
    );
    let filtered_h = filtered.download().unwrap();
    assert_bits(&filtered_h[..positives.len()], &positives, "filter_into");
    // partition_into: the values above 999/200, then the others, each in input order.
    let cut = last_i / 200.0;
    let yes: Vec<f32> = xs.iter().copied().filter(|&x| x > cut).collect();
    let no: Vec<f32> = xs.iter().copied().filter(|&x| x <= cut).collect();
    assert_eq!(p.get().unwrap(), yes.len() as u64, "partition_into's count");
    let (kept_h, rejected_h) = (kept.download().unwrap(), rejected.download().unwrap());
    assert_bits(&kept_h[..yes.len()], &yes, "partition_into's first part");
    assert_bits(&rejected_h[..no.len()], &no, "partition_into's second part");
    let sum = exact(&xs);
    assert_eq!(
        total.get().unwrap().to_bits(),
        sum.to_bits(),
        "reduce_on_device"
    );
    assert_eq!(
        c.get().unwrap(),
        xs.iter().filter(|&&x| x > sum).count() as u64,
        "count_on_device bound to a device result"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn out_of_memory_on_the_new_paths_is_an_error() {
    let _serial = serial();
    let dev = gpu();
    let fork = dev.fork().unwrap();
    let ctx = dev.cuda_context().unwrap();
    let stream = dev.cuda_stream().unwrap();
    let on_stream = Device::from_stream(ctx.new_stream().unwrap()).unwrap();
    let n = 1 << 28; // 1 GiB of f32
    let x = dev.upload(&vec![1.0f32; n]).unwrap();
    let (free, _) = ctx.mem_get_info().unwrap();
    // Fill the GPU but for 256 MiB.
    let hog = {
        let bytes = free.saturating_sub(256 << 20);
        // SAFETY (test): never read.
        unsafe { stream.alloc::<u8>(bytes) }.expect("the filler fits")
    };
    stream.synchronize().unwrap();
    for (what, d) in [("fork", &fork), ("from_stream", &on_stream), ("own", &dev)] {
        match d.map(shifted.with(1.0), &x) {
            Err(Error::OutOfMemory { bytes, free }) => {
                assert_eq!(bytes, n * 4, "{what}");
                assert!(free < bytes, "{what}: {free} free");
            }
            other => panic!("{what}: expected OutOfMemory, got {other:?}"),
        }
        assert!(matches!(
            d.scan(sum_f32, &x),
            Err(Error::OutOfMemory { .. })
        ));
    }
    drop(hog);
    stream.synchronize().unwrap();
    // Every device keeps working.
    for d in [&fork, &on_stream, &dev] {
        let total = d.reduce(sum_f32, &x).unwrap() as f64;
        assert!(close_sum(total, n as f64, n as f64, 1e-6), "{total}");
        assert_eq!(d.map(shifted.with(1.0), &x).unwrap().len(), n);
    }
    let _ = <sum_f32 as ReduceOp>::META;
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn reduce_into_writes_the_callers_memory() {
    let _serial = serial();
    let dev = gpu();
    let stream = dev.cuda_stream().unwrap();
    let n = (1 << 20) + 77;
    let xs = f32::random_vec(&mut rng(seed()), n, false);
    let x = dev.upload(&xs).unwrap();
    let want = dev.reduce(sum_f32, &x).unwrap();
    // A one-element CudaSlice, and a one-element view in the middle of a larger one: only
    // that element changes.
    let mut one: CudaSlice<f32> = stream.clone_htod(&[f32::NAN]).unwrap();
    dev.reduce_into(sum_f32, &x, &mut one).unwrap();
    let got = stream.clone_dtoh(&one).unwrap();
    assert_bits(&got, &[want], "reduce_into a CudaSlice");
    let mut five: CudaSlice<f32> = stream.clone_htod(&[7.0f32; 5]).unwrap();
    dev.reduce_into(sum_f32, &x.slice(1..).unwrap(), &mut five.slice_mut(3..4))
        .unwrap();
    let got = stream.clone_dtoh(&five).unwrap();
    let want_tail = dev.reduce(sum_f32, &x.slice(1..).unwrap()).unwrap();
    assert_bits(&got, &[7.0, 7.0, 7.0, want_tail, 7.0], "reduce_into a view");
    // Empty input writes the identity; a DeviceVec of one is an output too.
    let mut dv = dev.upload(&[5.0f32]).unwrap();
    dev.reduce_into(sum_f32, &x.slice(0..0).unwrap(), &mut dv)
        .unwrap();
    assert_bits(&dv.download().unwrap(), &[0.0], "reduce_into of nothing");
    // Integers, and a later kernel on the stream reads the value without a host read.
    let is = i32::random_vec(&mut rng(seed() ^ 1), n, false);
    let i = dev.upload(&is).unwrap();
    let mut total = dev.upload(&[0i32]).unwrap();
    dev.reduce_into(add, &i, &mut total).unwrap();
    let want_i = is.iter().fold(0i32, |s, &v| s.wrapping_add(v));
    assert_eq!(dev.reduce(add, &total).unwrap(), want_i);
    // Wrong lengths and another device's memory are errors, the output untouched.
    let mut two: CudaSlice<f32> = stream.clone_htod(&[1.0f32, 2.0]).unwrap();
    assert!(matches!(
        dev.reduce_into(sum_f32, &x, &mut two),
        Err(Error::Shape(_))
    ));
    let mut host = Device::cpu().upload(&[0.0f32]).unwrap();
    assert!(matches!(
        dev.reduce_into(sum_f32, &x, &mut host),
        Err(Error::DeviceMismatch)
    ));
    assert_eq!(stream.clone_dtoh(&two).unwrap(), vec![1.0, 2.0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn devices_of_one_context_share_modules() {
    let _serial = serial();
    let ctx = warp_runtime::cudarc::driver::CudaContext::new(0).unwrap();
    let first = Device::from_stream(ctx.new_stream().unwrap()).unwrap();
    let xs = first.upload(&[1.5f64, 2.0, -0.25]).unwrap();
    assert_eq!(first.reduce(sum64, &xs).unwrap(), 3.25);
    let loaded = first.load_reports().len();
    // Another device per call (a CustomOp's pattern), on the same stream and on another
    // stream, and the device opened by ordinal (the same primary context): nothing loads.
    let stream = first.cuda_stream().unwrap();
    for _ in 0..3 {
        let d = Device::from_stream(stream.clone()).unwrap();
        assert_eq!(d.reduce(sum64, &xs).unwrap(), 3.25);
    }
    let other = Device::from_stream(ctx.new_stream().unwrap()).unwrap();
    assert_eq!(other.reduce(sum64, &xs).unwrap(), 3.25);
    let by_ordinal = Device::cuda(0).unwrap();
    assert_eq!(by_ordinal.reduce(sum64, &xs).unwrap(), 3.25);
    assert_eq!(by_ordinal.load_reports().len(), loaded);
    assert_eq!(other.load_reports().len(), loaded);
    // Cheap: a second device of the context in well under 50 us (the latency bench's line;
    // a generous bound here, where the tests of the process share the machine).
    let t = Instant::now();
    for _ in 0..100 {
        std::hint::black_box(Device::from_stream(stream.clone()).unwrap());
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / 100.0;
    assert!(us < 500.0, "Device::from_stream took {us:.1} us");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn fork_waits_for_the_work_queued_so_far() {
    let _serial = serial();
    // Without cudarc's event tracking only the fork itself orders the two streams.
    let ctx = warp_runtime::cudarc::driver::CudaContext::new(0).unwrap();
    // SAFETY: this context's slices are used on its streams in the order the test sets up
    // (the fork's wait, then a synchronisation before they are freed).
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().unwrap();
    let a = Device::from_stream(stream.clone()).unwrap();
    let f = fill_kernel(&stream);
    let n = 1 << 26;
    let mut buf: CudaSlice<f32> = stream.alloc_zeros(n).unwrap();
    stream.synchronize().unwrap();
    for round in 0..4u32 {
        // Several fills in a row, then a fork: its first reduction must see the last one.
        for s in 0..8 {
            fill(&stream, &f, &mut buf, round * 8 + s);
        }
        let b = a.fork().unwrap();
        let got = b.reduce(sum_f32, &buf).unwrap();
        // The same reduction on `a`'s stream, after the fills: the same bits (reductions are
        // deterministic), and near the host's sum of the last fill.
        let want = a.reduce(sum_f32, &buf).unwrap();
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "fork round {round}: {got} vs {want}"
        );
        let (exact, abs) = sum_of(&fill_host(n, round * 8 + 7));
        assert!(
            close_sum(want as f64, exact, abs, 1e-6),
            "round {round}: {want} vs {exact}"
        );
    }
    stream.synchronize().unwrap();
}
