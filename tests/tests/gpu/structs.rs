//! `#[derive(DeviceValue)]` structs on the GPU against plain Rust and the CPU backend: a
//! Welford struct reduced and scanned (within a tolerance of f64 references, element by
//! element), a struct of a count, a sum and a sum of squares reduced and scanned bit for bit on
//! exact inputs, struct map outputs with padding between fields, a predicate and compaction of
//! struct values, arrays of structs uploaded. Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{Mixed, Moments, flagged, mixed_of, moments, moments_one};
use warp_tests::{Random, edge_sizes, exact_vec, gpu, rng, seed};

/// How many values, their sum and the sum of their squares: three fields that a swap would
/// mix up.
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
struct Power {
    /// How many values.
    n: u32,
    /// Their sum.
    s: f32,
    /// The sum of their squares.
    q: f32,
}

/// One element as a [`Power`].
#[map]
fn power_one(x: f32) -> Power {
    Power {
        n: 1,
        s: x,
        q: x * x,
    }
}

/// Two [`Power`]s added field by field.
#[reduce(identity = Power { n: 0, s: 0.0, q: 0.0 })]
fn power(a: Power, b: Power) -> Power {
    Power {
        n: a.n.wrapping_add(b.n),
        s: a.s + b.s,
        q: a.q + b.q,
    }
}

/// Which backend, for failure messages.
fn name(dev: &Device) -> &'static str {
    if dev.is_gpu() { "gpu" } else { "cpu" }
}

/// The running Welford states of `xs` in f64, as plain Rust computes them one value at a time:
/// `(count, mean, m2)` after each element.
fn welford_prefixes(xs: &[f32]) -> Vec<(f64, f64, f64)> {
    let (mut n, mut mean, mut m2) = (0.0f64, 0.0f64, 0.0f64);
    xs.iter()
        .map(|&x| {
            let x = x as f64;
            n += 1.0;
            let delta = x - mean;
            mean += delta / n;
            m2 += delta * (x - mean);
            (n, mean, m2)
        })
        .collect()
}

/// Asserts that an f32 Welford state is the f64 reference's: the count exactly, the mean within
/// `1e-4`, `m2` within `1e-4` of itself (at least of 1e-6).
fn assert_moments(got: &Moments, want: (f64, f64, f64), what: &str) {
    assert_eq!(got.count as f64, want.0, "{what}: count of {got:?}");
    assert!(
        (got.mean as f64 - want.1).abs() <= 1e-4,
        "{what}: mean of {got:?}, expected {want:?}"
    );
    assert!(
        (got.m2 as f64 - want.2).abs() <= 1e-4 * want.2.abs().max(1e-6),
        "{what}: m2 of {got:?}, expected {want:?}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn struct_values_match_plain_rust_and_the_cpu() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(4).into_iter().chain([1 << 22]) {
        let xs = f32::random_vec(&mut r, n, false);
        let welford = welford_prefixes(&xs);
        let whole = welford.last().copied().unwrap_or((0.0, 0.0, 0.0));
        let m = n.min(5000);
        // Map outputs in C layout with padding, written out in plain Rust.
        let mixed: Vec<Mixed> = xs
            .iter()
            .map(|&x| Mixed {
                flag: x > 0.0,
                value: x as f64 * 2.0,
                tag: (x.abs() * 1000.0) as u16,
                h: f16::from_f32(x),
                n: x.to_bits() >> 9,
            })
            .collect();
        let flagged_count = mixed.iter().filter(|v| v.flag && v.tag > 300).count() as u64;
        for dev in [&gpu, &cpu] {
            let tag = format!("{} n={n}", name(dev));
            let d = dev.upload(&xs).unwrap();
            let got = dev.reduce(moments, &d.map(moments_one)).unwrap();
            assert_moments(&got, whole, &format!("reduce {tag}"));
            let scan = dev
                .scan(moments, &d.slice(..m).unwrap().map(moments_one))
                .unwrap()
                .download()
                .unwrap();
            assert_eq!(scan.len(), m, "scan {tag}");
            for (i, (got, &want)) in scan.iter().zip(&welford).enumerate() {
                assert_moments(got, want, &format!("scan {tag} element {i}"));
            }
            assert_eq!(
                dev.map(mixed_of, &d).unwrap().download().unwrap(),
                mixed,
                "map {tag}"
            );
            assert_eq!(
                dev.count(flagged.with(300), &d.map(mixed_of)).unwrap(),
                flagged_count,
                "count {tag}"
            );
            let up: Vec<Mixed> = mixed.iter().take(1000).copied().collect();
            assert_eq!(
                dev.upload_values(&up).unwrap().download().unwrap(),
                up,
                "upload {tag}"
            );
        }
    }
    let _ = Moments {
        count: 0.0,
        mean: 0.0,
        m2: 0.0,
    };
}

/// A struct of a count, a sum and a sum of squares over small integers of magnitude 1 or 2 (the
/// squares add up to at most `4n <= 2^24`, so every partial sum is exact in any order), reduced
/// and scanned on the GPU and the CPU backend, equals plain Rust's integer sums bit for bit,
/// every field of every element, at the edge sizes and 2^22, from misaligned starts.
#[test]
#[ignore = "needs a CUDA GPU"]
fn struct_sums_of_exact_inputs_are_exact() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    for n in edge_sizes(4).into_iter().chain([1 << 22]) {
        let xs: Vec<f32> = exact_vec::<f32>(s ^ 0x57 ^ n as u64, n)
            .into_iter()
            .map(|x| ((x.abs() as i64 & 1) + 1) as f32 * x.signum())
            .collect();
        for dev in [&gpu, &cpu] {
            let d = dev.upload(&xs).unwrap();
            for off in [0usize, 1, 3] {
                if off > n {
                    continue;
                }
                let tag = format!("{} n={n} off={off}", name(dev));
                let want: Vec<Power> = xs[off..]
                    .iter()
                    .scan((0u32, 0i64, 0i64), |acc, &x| {
                        let x = x as i64;
                        *acc = (acc.0 + 1, acc.1 + x, acc.2 + x * x);
                        Some(Power {
                            n: acc.0,
                            s: acc.1 as f32,
                            q: acc.2 as f32,
                        })
                    })
                    .collect();
                let total = want.last().copied().unwrap_or(Power {
                    n: 0,
                    s: 0.0,
                    q: 0.0,
                });
                let v = d.slice(off..).unwrap();
                let got = dev.reduce(power, &v.map(power_one)).unwrap();
                assert_eq!(
                    (got.n, got.s.to_bits(), got.q.to_bits()),
                    (total.n, total.s.to_bits(), total.q.to_bits()),
                    "reduce {tag}: {got:?}, expected {total:?}"
                );
                let scan = dev.scan(power, &v.map(power_one)).unwrap();
                let scan = scan.download().unwrap();
                let key = |p: &Power| (p.n, p.s.to_bits(), p.q.to_bits());
                assert_eq!(scan.len(), want.len(), "scan {tag}: lengths");
                if let Some(i) = (0..want.len()).find(|&i| key(&scan[i]) != key(&want[i])) {
                    panic!(
                        "scan {tag}: element {i} is {:?}, expected {:?}",
                        scan[i], want[i]
                    );
                }
            }
        }
    }
}
