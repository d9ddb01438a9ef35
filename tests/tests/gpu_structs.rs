//! `#[derive(DeviceValue)]` structs on the GPU against the CPU backend: a Welford struct
//! reduced and scanned, struct map outputs with padding between fields, a predicate and
//! compaction of struct values, arrays of structs uploaded. Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::ops::{Mixed, Moments, flagged, mixed_of, moments, moments_one};
use warp_tests::{Random, edge_sizes, gpu, rng, seed};

#[test]
#[ignore = "needs a CUDA GPU"]
fn struct_values_match_the_cpu() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let mut r = rng(s);
    for n in edge_sizes(4).into_iter().chain([1 << 22]) {
        let xs = f32::random_vec(&mut r, n, false);
        let (g, c) = (gpu.upload(&xs).unwrap(), cpu.upload(&xs).unwrap());
        let (wg, wc) = (
            gpu.reduce(moments, &g.map(moments_one)).unwrap(),
            cpu.reduce(moments, &c.map(moments_one)).unwrap(),
        );
        assert_eq!(wg.count, n as f32, "count n={n}");
        let tol = |a: f32, b: f32, scale: f32| (a - b).abs() <= 1e-4 * scale.max(1e-6);
        assert!(tol(wg.mean, wc.mean, 1.0), "mean n={n}: {wg:?} vs {wc:?}");
        assert!(tol(wg.m2, wc.m2, wc.m2.abs()), "m2 n={n}: {wg:?} vs {wc:?}");
        let m = n.min(5000);
        let (sg, sc) = (
            gpu.scan(moments, &g.slice(..m).unwrap().map(moments_one))
                .unwrap()
                .download()
                .unwrap(),
            cpu.scan(moments, &c.slice(..m).unwrap().map(moments_one))
                .unwrap()
                .download()
                .unwrap(),
        );
        assert_eq!(sg.len(), sc.len());
        for (a, b) in sg.iter().zip(&sc) {
            assert_eq!(a.count, b.count);
            assert!(
                tol(a.mean, b.mean, 1.0) && tol(a.m2, b.m2, b.m2.abs()),
                "scan {a:?} vs {b:?}"
            );
        }
        // Map outputs in C layout with padding, bit for bit.
        let (mg, mc) = (
            gpu.map(mixed_of, &g).unwrap().download().unwrap(),
            cpu.map(mixed_of, &c).unwrap().download().unwrap(),
        );
        assert_eq!(mg, mc, "map n={n}");
        assert_eq!(
            gpu.count(flagged.with(300), &g.map(mixed_of)).unwrap(),
            cpu.count(flagged.with(300), &c.map(mixed_of)).unwrap(),
            "count n={n}"
        );
        let up: Vec<Mixed> = mc.iter().take(1000).copied().collect();
        assert_eq!(gpu.upload_values(&up).unwrap().download().unwrap(), up);
    }
    let _ = Moments {
        count: 0.0,
        mean: 0.0,
        m2: 0.0,
    };
}
