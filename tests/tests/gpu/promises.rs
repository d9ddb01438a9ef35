//! Promises of README.md and the crate docs checked on the GPU, each against plain Rust: the
//! size limits (three-way partition below 2^31 elements, run-length encode's `u32` counts below
//! 2^32, top-k below 2^32 - 1), the predicates and compaction above 2^31 elements, the `_into`
//! forms and `with_stream` not used elsewhere, f16 arithmetic in reductions and scans, and
//! finite float sums that overflow to infinity. Needs a CUDA GPU; some inputs take 4 GiB.

use rayon::prelude::*;
use warp_runtime::cudarc::driver::CudaSlice;
use warp_runtime::prelude::*;
use warp_runtime::{Equal, Error};
use warp_tests::ops::{sum_f32, sum_i32};
use warp_tests::scans::{rows_bounds, running};
use warp_tests::{Random, assert_bits, exact_vec, gpu, random_vec_par, rng, seed};

#[predicate]
fn is_seven(x: u8) -> bool {
    x == 7
}

#[predicate]
fn below_u8(x: u8, t: u8) -> bool {
    x < t
}

#[reduce(identity = 0)]
fn add_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

#[reduce(identity = 0.0)]
fn sum_f64(a: f64, b: f64) -> f64 {
    a + b
}

#[map(inputs = 2)]
fn product(x: f32, y: f32) -> f32 {
    x * y
}

#[reduce(identity = f16::ZERO)]
fn add_f16(a: f16, b: f16) -> f16 {
    a + b
}

#[reduce(identity = f16::NEG_INFINITY)]
fn max_f16(a: f16, b: f16) -> f16 {
    a.max(b)
}

/// `n` zero bytes on the GPU, without a host copy.
fn zeros_on(dev: &Device, n: usize) -> DeviceVec<u8> {
    let stream = dev.cuda_stream().expect("a GPU device");
    let raw: CudaSlice<u8> = stream.alloc_zeros(n).expect("device memory");
    DeviceVec::from_cuda(dev, raw).expect("the device's own memory")
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn size_limits_are_unsupported_at_the_documented_lengths() {
    let _big = warp_tests::big_lock();
    let (g, c) = (gpu(), Device::cpu());
    // Three-way partition: below 2^31 elements.
    let big = zeros_on(&g, 1 << 31);
    match g.partition3(below_u8.with(1), below_u8.with(2), &big) {
        Err(Error::Unsupported(m)) => assert!(m.contains("2^31"), "{m}"),
        other => panic!("partition3 of 2^31: {other:?}"),
    }
    let (a, b, rest) = g
        .partition3(below_u8.with(1), below_u8.with(2), &big.slice(1..).unwrap())
        .unwrap();
    assert_eq!((a.len(), b.len(), rest.len()), ((1 << 31) - 1, 0, 0));
    drop((a, b, rest));
    let cbig = c.upload(&vec![0u8; 1 << 31]).unwrap();
    assert!(matches!(
        c.partition3(below_u8.with(1), below_u8.with(2), &cbig),
        Err(Error::Unsupported(_))
    ));
    drop((big, cbig));

    // Run-length encode in u32: below 2^32 elements; in u64, beyond.
    let n = (1usize << 32) + 5;
    let keys = zeros_on(&g, n);
    assert!(matches!(
        g.run_length_encode(&keys),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        g.run_length_encode(&keys.slice(..1 << 32).unwrap()),
        Err(Error::Unsupported(_))
    ));
    let ok = g
        .run_length_encode(&keys.slice(..(1 << 32) - 1).unwrap())
        .unwrap();
    assert_eq!(ok.counts.download().unwrap(), [u32::MAX]);
    // (The outputs need room for as many runs as elements: 4 GiB of keys, 32 GiB of counts.)
    let stream = g.cuda_stream().unwrap();
    let mut keys_out = DeviceVec::from_cuda(&g, stream.alloc_zeros::<u8>(n).unwrap()).unwrap();
    let mut counts_out = DeviceVec::from_cuda(&g, stream.alloc_zeros::<u64>(n).unwrap()).unwrap();
    let runs = g
        .run_length_encode_into(Equal, &keys, &mut keys_out, &mut counts_out)
        .unwrap();
    assert_eq!(runs.get().unwrap(), 1);
    assert_eq!(keys_out.slice(..1).unwrap().download().unwrap(), [0]);
    assert_eq!(
        counts_out.slice(..2).unwrap().download().unwrap(),
        [n as u64, 0],
        "a run longer than u32::MAX"
    );
    drop((keys_out, counts_out));

    // Top-k: below 2^32 - 1 elements.
    match g.top_k(&keys.slice(..(1 << 32) - 1).unwrap(), 1) {
        Err(Error::Unsupported(m)) => assert!(m.contains("2^32"), "{m}"),
        other => panic!("top_k of 2^32 - 1: {other:?}"),
    }
    assert!(matches!(g.bottom_k(&keys, 3), Err(Error::Unsupported(_))));
    let best = g.top_k(&keys.slice(..(1 << 32) - 2).unwrap(), 2).unwrap();
    assert_eq!(
        best.indices.download().unwrap(),
        [0, 1],
        "ties to the smaller index"
    );
    drop(keys);
    let ckeys = c.upload(&vec![0u8; (1 << 32) - 1]).unwrap();
    assert!(matches!(c.top_k(&ckeys, 1), Err(Error::Unsupported(_))));
    assert!(matches!(
        c.run_length_encode(&ckeys),
        Ok(r) if r.counts.download().unwrap() == [u32::MAX]
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn predicates_and_compaction_above_2_pow_31_elements() {
    let _big = warp_tests::big_lock();
    let g = gpu();
    let n = (1usize << 31) + 12_345;
    let mut xs: Vec<u8> = random_vec_par(seed(), n, false);
    // Sevens only past 2^31 (a few), so counts, positions and kept values tell every index.
    xs.par_iter_mut().for_each(|x| {
        if *x == 7 {
            *x = 8;
        }
    });
    for i in [(1usize << 31) + 3, (1 << 31) + 4, n - 2] {
        xs[i] = 7;
    }
    let gx = g.upload(&xs).unwrap();
    assert_eq!(g.count(is_seven, &gx).unwrap(), 3);
    assert!(g.any(is_seven, &gx).unwrap());
    assert!(!g.all(is_seven, &gx).unwrap());
    assert_eq!(g.find_first(is_seven, &gx).unwrap(), Some((1 << 31) + 3));
    assert_eq!(
        g.filter(is_seven, &gx).unwrap().download().unwrap(),
        [7, 7, 7]
    );
    // Half the bytes: a compaction that writes more than 2^30 values, and its complement.
    let t = below_u8.with(128);
    let want_yes: Vec<u8> = xs.par_iter().copied().filter(|&x| x < 128).collect();
    let want_no: Vec<u8> = xs.par_iter().copied().filter(|&x| x >= 128).collect();
    assert_eq!(g.count(t, &gx).unwrap(), want_yes.len() as u64);
    assert!(
        g.filter(t, &gx).unwrap().download().unwrap() == want_yes,
        "filter"
    );
    let (yes, no) = g.partition(t, &gx).unwrap();
    assert!(yes.download().unwrap() == want_yes, "partition, first part");
    assert!(no.download().unwrap() == want_no, "partition, second part");
    drop((yes, no));
    let want_mask: Vec<u32> = xs
        .par_chunks(32)
        .map(|w| {
            w.iter()
                .enumerate()
                .fold(0u32, |m, (i, &x)| m | (((x < 128) as u32) << i))
        })
        .collect();
    let mask = g.mask(t, &gx).unwrap().download().unwrap();
    assert_eq!(mask.len(), want_mask.len());
    if let Some(i) = (0..mask.len()).find(|&i| mask[i] != want_mask[i]) {
        panic!("mask word {i}: {:#x} vs {:#x}", mask[i], want_mask[i]);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn into_forms_and_streams_against_plain_rust() {
    let g = gpu();
    let s = seed();
    let n = (1 << 20) + 13;
    let xs: Vec<i32> = exact_vec(s, n);
    let gx = g.upload(&xs).unwrap();

    // exclusive_scan_into, over a view.
    let mut out = g.upload(&vec![i32::MIN; n - 3]).unwrap();
    g.exclusive_scan_into(sum_i32, &gx.slice(3..).unwrap(), &mut out)
        .unwrap();
    let (_, excl) = running(&xs[3..], &[0, n - 3], 0, i32::wrapping_add);
    assert_eq!(out.download().unwrap(), excl, "exclusive_scan_into");

    // exclusive_scan_rows_into and scan_segments_into.
    let cols = 1000;
    let m = n / cols * cols;
    let mut rows_out = g.upload(&vec![i32::MIN; m]).unwrap();
    g.exclusive_scan_rows_into(sum_i32, &gx.slice(..m).unwrap(), cols, &mut rows_out)
        .unwrap();
    let (_, excl) = running(&xs[..m], &rows_bounds(m, cols), 0, i32::wrapping_add);
    assert_eq!(
        rows_out.download().unwrap(),
        excl,
        "exclusive_scan_rows_into"
    );
    let offsets: Vec<u64> = vec![0, 0, 5, 4096, 4096, 70_000, n as u64];
    let bounds: Vec<usize> = offsets.iter().map(|&o| o as usize).collect();
    let mut seg_out = g.upload(&vec![i32::MIN; n]).unwrap();
    g.scan_segments_into(sum_i32, &gx, &g.upload(&offsets).unwrap(), &mut seg_out)
        .unwrap();
    let (incl, _) = running(&xs, &bounds, 0, i32::wrapping_add);
    assert_eq!(seg_out.download().unwrap(), incl, "scan_segments_into");

    // histogram_even_into overwrites its counters.
    let fs: Vec<f32> = random_vec_par(s ^ 1, n, true);
    let mut hist = g.upload(&[u64::MAX; 10]).unwrap();
    g.histogram_even_into(&g.upload(&fs).unwrap(), -1.0, 1.0, &mut hist)
        .unwrap();
    let mut want = [0u64; 10];
    for &x in &fs {
        if (-1.0..1.0).contains(&x) {
            let b = (((x as f64 + 1.0) * 5.0).floor() as usize).min(9);
            want[b] += 1;
        }
    }
    assert_eq!(hist.download().unwrap(), want, "histogram_even_into");

    // reduce_by_key_into: runs of keys, exact f32 sums per run.
    let keys: Vec<u16> = (0..n).map(|i| (i / 37 + i / 1001) as u16).collect();
    let vals: Vec<f32> = exact_vec(s ^ 2, n);
    let mut keys_out = g.upload(&vec![u16::MAX; n]).unwrap();
    let mut vals_out = g.upload(&vec![f32::NAN; n]).unwrap();
    let runs = g
        .reduce_by_key_into(
            Equal,
            sum_f32,
            &g.upload(&keys).unwrap(),
            &g.upload(&vals).unwrap(),
            &mut keys_out,
            &mut vals_out,
        )
        .unwrap()
        .get()
        .unwrap() as usize;
    let (mut want_k, mut want_v) = (Vec::new(), Vec::<f32>::new());
    for (i, (&k, &v)) in keys.iter().zip(&vals).enumerate() {
        if i > 0 && keys[i - 1] == k {
            *want_v.last_mut().unwrap() += v;
        } else {
            want_k.push(k);
            want_v.push(v);
        }
    }
    assert_eq!(runs, want_k.len());
    assert_eq!(
        keys_out.download().unwrap()[..runs],
        want_k[..],
        "reduce_by_key_into keys"
    );
    assert_bits(
        &vals_out.download().unwrap()[..runs],
        &want_v,
        "reduce_by_key_into values",
    );

    // with_stream: a device on the caller's stream of this context runs the same operations.
    let ctx = g.cuda_context().unwrap();
    let other = g.with_stream(ctx.new_stream().unwrap()).unwrap();
    let total = other.reduce(sum_i32, &gx).unwrap();
    assert_eq!(total, xs.iter().fold(0i32, |a, &b| a.wrapping_add(b)));
    let (incl, _) = running(&xs, &[0, n], 0, i32::wrapping_add);
    assert_eq!(other.scan(sum_i32, &gx).unwrap().download().unwrap(), incl);
    assert!(
        Device::cpu()
            .with_stream(ctx.new_stream().unwrap())
            .is_err()
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f16_arithmetic_in_reductions_and_scans() {
    // f16 adds round to f16 at every step; on integers of magnitude below 2^11 every step is
    // exact, so any order gives plain Rust's bits (the half crate's arithmetic).
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in [1usize, 31, 33, 1025, 4097, 40_000] {
        let xs: Vec<f16> = (0..n)
            .map(|_| {
                f16::from_f32([-2.0f32, -1.0, 1.0, 2.0][rand::Rng::random_range(&mut r, 0..4)])
            })
            .collect();
        let (gx, cx) = (g.upload(&xs).unwrap(), c.upload(&xs).unwrap());
        let want = xs.iter().fold(f16::ZERO, |a, &b| a + b);
        assert_eq!(
            g.reduce(add_f16, &gx).unwrap().to_bits(),
            want.to_bits(),
            "sum n={n}"
        );
        assert_eq!(
            c.reduce(add_f16, &cx).unwrap().to_bits(),
            want.to_bits(),
            "CPU sum n={n}"
        );
        let (incl, excl) = running(&xs, &[0, n], f16::ZERO, |a, b| a + b);
        assert_bits(
            &g.scan(add_f16, &gx).unwrap().download().unwrap(),
            &incl,
            "scan",
        );
        assert_bits(
            &g.exclusive_scan(add_f16, &gx).unwrap().download().unwrap(),
            &excl,
            "exclusive scan",
        );
        // Rounding: random halves, max is exact whatever the order.
        let ys = f16::random_vec(&mut r, n, true);
        let want = ys.iter().fold(f16::NEG_INFINITY, |a, &b| a.max(b));
        let got = g.reduce(max_f16, &g.upload(&ys).unwrap()).unwrap();
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "max n={n}"
        );
    }
    // A step that rounds: 2048 + 1 is 2048 in f16, in the GPU's reduction as in Rust.
    let xs = [f16::from_f32(2048.0), f16::ONE];
    assert_eq!(
        g.reduce(add_f16, &g.upload(&xs).unwrap()).unwrap(),
        f16::from_f32(2048.0)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn finite_float_sums_overflow_to_infinity() {
    // Large finite values of one sign: every order overflows to the same infinity, on the GPU
    // as on the CPU backend.
    let (g, c) = (gpu(), Device::cpu());
    let s = seed();
    let n = (1 << 20) + 3;
    let mut xs: Vec<f32> = random_vec_par(s, n, false);
    let big = f32::MAX / 4.0;
    // Rows of 65,536: six large values in row 3 (its sum overflows), four in row 5 (exactly
    // f32::MAX before the small values: finite), one in row 9; eleven in all.
    let cols = 1 << 16;
    for (row, count) in [(3usize, 6usize), (5, 4), (9, 1)] {
        for k in 0..count {
            xs[row * cols + 1000 * k + 7] = big;
        }
    }
    let neg: Vec<f32> = xs.iter().map(|x| -x).collect();
    for (sign, data) in [(1.0f32, &xs), (-1.0, &neg)] {
        let inf = sign * f32::INFINITY;
        let (gx, cx) = (g.upload(data).unwrap(), c.upload(data).unwrap());
        assert_eq!(g.reduce(sum_f32, &gx).unwrap(), inf, "reduce");
        assert_eq!(c.reduce(sum_f32, &cx).unwrap(), inf, "CPU reduce");
        let ys = g.upload(&vec![2.0f32; n]).unwrap();
        assert_eq!(
            g.map_reduce(product, sum_f32, &(&gx, &ys)).unwrap(),
            inf,
            "dot"
        );
        // The scan: finite until the running sum passes f32::MAX, then that infinity.
        let got = g.scan(sum_f32, &gx).unwrap().download().unwrap();
        let mut acc = 0.0f64;
        for (i, (&x, &v)) in data.iter().zip(&got).enumerate() {
            acc += x as f64;
            if acc.abs() > f32::MAX as f64 * 1.0001 {
                assert_eq!(v, inf, "scan at {i}");
            } else if acc.abs() < f32::MAX as f64 * 0.9999 {
                assert!(v.is_finite(), "scan at {i}: {v}");
            }
        }
        // Rows: those holding five or more of the large values overflow.
        let m = n / cols * cols;
        let rows = g
            .reduce_rows(sum_f32, &gx.slice(..m).unwrap(), cols)
            .unwrap()
            .download()
            .unwrap();
        for (r, row) in data[..m].chunks(cols).enumerate() {
            let bigs = row.iter().filter(|x| x.abs() == big).count();
            if bigs >= 5 {
                assert_eq!(rows[r], inf, "row {r}");
            } else {
                assert!(rows[r].is_finite(), "row {r}");
            }
        }
        // In f64 the same values sum to a finite number.
        let wide: Vec<f64> = data.iter().map(|&x| x as f64).collect();
        let want: f64 = wide.iter().sum();
        let got = g.reduce(sum_f64, &g.upload(&wide).unwrap()).unwrap();
        assert!(
            got.is_finite() && ((got - want) / want).abs() < 1e-12,
            "f64: {got} vs {want}"
        );
    }
    // u64 sums wrap instead.
    let us = vec![u64::MAX / 2; 5];
    assert_eq!(
        g.reduce(add_u64, &g.upload(&us).unwrap()).unwrap(),
        (u64::MAX / 2).wrapping_mul(5)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn warp_device_naming_a_missing_gpu_is_the_typed_error() {
    // Device::cuda(N) past the last GPU; Device::auto_with with the device setting cuda:N is
    // checked in cpu_settings.
    let count = warp_runtime::cudarc::driver::CudaContext::device_count().unwrap() as usize;
    assert!(count >= 1);
    assert!(matches!(Device::cuda(count), Err(Error::NoGpu { .. })));
    assert!(matches!(Device::cuda(count + 7), Err(Error::NoGpu { .. })));
}
