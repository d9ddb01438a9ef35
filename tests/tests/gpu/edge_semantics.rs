//! One semantics on both backends, on the GPU: where Rust's operators panic (overflow,
//! division and remainder by zero, `MIN / -1`, big shifts, `-MIN`, `MIN.abs()`, overflowing
//! `pow`, crossed or NaN `clamp` bounds) the GPU computes what the CPU backend computes
//! (itself checked against the documented rules in cpu/edge_semantics.rs). Needs a CUDA GPU.

use warp_runtime::prelude::*;
use warp_tests::edge_ops::{
    add_i32, add_u8, float_clamp, int_ops, methods, mul_i64, narrow_ops, neg_f32, pairs, shifts,
    sub_neg_u16, wide_ops,
};
use warp_tests::{Random, SameValue, gpu, rng, seed};

/// `dev.map(f, (a, b))` on the GPU and on the CPU backend agree element for element.
fn same_map<A, B, M>(g: &Device, c: &Device, f: M, a: &[A], b: &[B]) -> usize
where
    A: warp_runtime::Element + Copy,
    B: warp_runtime::Element + Copy,
    M: MapOp<Input = (A, B)> + Copy,
    M::Output: warp_runtime::ArrayOf + std::fmt::Debug + PartialEq,
    <M::Output as warp_runtime::ArrayOf>::Array: DownloadAll<M::Output>,
{
    let (ga, gb) = (g.upload(a).unwrap(), g.upload(b).unwrap());
    let (ca, cb) = (c.upload(a).unwrap(), c.upload(b).unwrap());
    let on_gpu = g.map(f, &(&ga, &gb)).unwrap().all();
    let on_cpu = c.map(f, &(&ca, &cb)).unwrap().all();
    assert_eq!(on_gpu.len(), a.len());
    let bad: Vec<usize> = (0..a.len()).filter(|&i| on_gpu[i] != on_cpu[i]).collect();
    for &i in bad.iter().take(8) {
        eprintln!("element {i}: gpu {:?} cpu {:?}", on_gpu[i], on_cpu[i]);
    }
    bad.len()
}

/// Downloads a map's result, whichever array type it is.
trait DownloadAll<T> {
    fn all(&self) -> Vec<T>;
}
impl<T: warp_runtime::DeviceValue> DownloadAll<T> for DeviceTuples<T> {
    fn all(&self) -> Vec<T> {
        self.download().unwrap()
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn integer_edges_agree_with_the_cpu_backend() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    let edges32 = [
        0,
        1,
        -1,
        2,
        -2,
        31,
        32,
        33,
        64,
        i32::MIN,
        i32::MAX,
        i32::MIN + 1,
    ];
    let (a, b) = pairs(&edges32, s, 100_000);
    assert_eq!(same_map(&g, &c, int_ops, &a, &b), 0, "int_ops");
    let amounts: Vec<u32> = b.iter().map(|&v| v as u32).collect();
    assert_eq!(same_map(&g, &c, shifts, &a, &amounts), 0, "shifts");
    let au: Vec<u32> = a.iter().map(|&v| v as u32).collect();
    let small: Vec<u32> = amounts.iter().map(|&v| v % 64).collect();
    assert_eq!(
        same_map(&g, &c, methods, &au, &small),
        0,
        "methods (small exponents)"
    );
    assert_eq!(same_map(&g, &c, methods, &au, &amounts), 0, "methods");

    let edges8 = [0i8, 1, -1, 2, i8::MIN, i8::MAX, 7, 8, 9];
    let (a, b) = pairs(&edges8, s ^ 1, 100_000);
    assert_eq!(same_map(&g, &c, narrow_ops, &a, &b), 0, "narrow_ops");
    let edges64 = [0i64, 1, -1, i64::MIN, i64::MAX, 63, 64, 65];
    let (a, b) = pairs(&edges64, s ^ 2, 100_000);
    assert_eq!(same_map(&g, &c, wide_ops, &a, &b), 0, "wide_ops");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn float_edges_agree_with_the_cpu_backend() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    let edges = [
        0.0f32,
        -0.0,
        0.25,
        0.5,
        1.0,
        -1.0,
        2.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let (x, lo) = pairs(&edges, s, 50_000);
    let (gx, glo) = (g.upload(&x).unwrap(), g.upload(&lo).unwrap());
    let (cx, clo) = (c.upload(&x).unwrap(), c.upload(&lo).unwrap());
    let on_gpu = g
        .map(float_clamp, &(&gx, &glo))
        .unwrap()
        .download()
        .unwrap();
    let on_cpu = c
        .map(float_clamp, &(&cx, &clo))
        .unwrap()
        .download()
        .unwrap();
    for i in 0..x.len() {
        assert!(
            on_gpu[i].same(&on_cpu[i]),
            "clamp({}, {}): gpu {:?} cpu {:?}",
            x[i],
            lo[i],
            on_gpu[i],
            on_cpu[i]
        );
    }
    let on_gpu = g.map(neg_f32, &gx).unwrap().download().unwrap();
    let on_cpu = c.map(neg_f32, &cx).unwrap().download().unwrap();
    for i in 0..x.len() {
        let (a, b) = (on_gpu[i], on_cpu[i]);
        assert!(
            a.0.same(&b.0) && a.1.same(&b.1),
            "neg_f32({}): gpu {a:?} cpu {b:?}",
            x[i]
        );
        if !a.0.is_nan() {
            assert_eq!(a.0.to_bits(), b.0.to_bits(), "the sign of -x");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn overflowing_reductions_agree_with_the_cpu_backend() {
    let s = seed();
    let (g, c) = (gpu(), Device::cpu());
    for n in [1usize, 33, 1025, (1 << 20) + 7] {
        let mut r = rng(s ^ n as u64);
        let xs = i32::random_vec(&mut r, n, true);
        let want = xs.iter().fold(0i32, |a, &x| a.wrapping_add(x));
        assert_eq!(
            g.reduce(add_i32, &g.upload(&xs).unwrap()).unwrap(),
            want,
            "n={n}"
        );
        assert_eq!(
            c.reduce(add_i32, &c.upload(&xs).unwrap()).unwrap(),
            want,
            "n={n}"
        );
        let gs = g
            .scan(add_i32, &g.upload(&xs).unwrap())
            .unwrap()
            .download()
            .unwrap();
        let cs = c
            .scan(add_i32, &c.upload(&xs).unwrap())
            .unwrap()
            .download()
            .unwrap();
        assert_eq!(gs, cs, "scan n={n}");
        let bytes = u8::random_vec(&mut r, n, true);
        let want = bytes.iter().fold(0u8, |a, &x| a.wrapping_add(x));
        assert_eq!(
            g.reduce(add_u8, &g.upload(&bytes).unwrap()).unwrap(),
            want,
            "u8 n={n}"
        );
        let words = i64::random_vec(&mut r, n, true);
        let want = words.iter().fold(1i64, |a, &x| a.wrapping_mul(x));
        assert_eq!(
            g.reduce(mul_i64, &g.upload(&words).unwrap()).unwrap(),
            want,
            "i64 n={n}"
        );
        let halves = u16::random_vec(&mut r, n, true);
        let want = halves.iter().fold(0u16, |a, &x| a.wrapping_add(x));
        assert_eq!(
            g.reduce(sub_neg_u16, &g.upload(&halves).unwrap()).unwrap(),
            want,
            "u16 n={n}"
        );
        assert_eq!(
            c.reduce(sub_neg_u16, &c.upload(&halves).unwrap()).unwrap(),
            want,
            "u16 n={n}"
        );
    }
}
