//! GPU reductions against the CPU backend and plain Rust: every type, the edge sizes,
//! misaligned starts, special values, argmax ties, 2^28 elements and one input above 2^31
//! elements. Float sums of exact inputs (small integers: every order gives the same bits) are
//! compared bit for bit with the exact sum at the edge sizes, 2^24 and 2^28, so that one lost
//! or doubled element fails; sums of random floats within a tolerance.
//! Needs a CUDA GPU: `cargo test -- --ignored` there (see shared/gpu/README.md).

use warp_runtime::prelude::*;
use warp_tests::ops::{argmax_f32, argmin_f64, max_f32, sum_f32};
use warp_tests::{
    Bits, FromSmall, Random, SameValue, assert_bits, close_sum, edge_sizes, exact_sum, exact_vec,
    gpu, random_vec_par, rng, seed,
};

macro_rules! int_ops {
    ($($t:ident: $sum:ident, $min:ident, $max:ident, $xor:ident;)*) => {$(
        #[reduce(identity = 0)]
        fn $sum(a: $t, b: $t) -> $t { a.wrapping_add(b) }
        #[reduce(identity = $t::MAX)]
        fn $min(a: $t, b: $t) -> $t { a.min(b) }
        #[reduce(identity = $t::MIN)]
        fn $max(a: $t, b: $t) -> $t { if a > b { a } else { b } }
        #[reduce(identity = 0)]
        fn $xor(a: $t, b: $t) -> $t { a ^ b }
    )*};
}
int_ops! {
    i8: sum_i8, min_i8, max_i8, xor_i8;
    i16: sum_i16, min_i16, max_i16, xor_i16;
    i32: sum_i32, min_i32, max_i32, xor_i32;
    i64: sum_i64, min_i64, max_i64, xor_i64;
    u8: sum_u8, min_u8, max_u8, xor_u8;
    u16: sum_u16, min_u16, max_u16, xor_u16;
    u32: sum_u32, min_u32, max_u32, xor_u32;
    u64: sum_u64, min_u64, max_u64, xor_u64;
}

#[reduce(identity = f32::INFINITY)]
fn min_f32(a: f32, b: f32) -> f32 {
    a.min(b)
}
#[reduce(identity = 0.0)]
fn sum_f64(a: f64, b: f64) -> f64 {
    a + b
}
#[reduce(identity = f64::NEG_INFINITY)]
fn max_f64(a: f64, b: f64) -> f64 {
    a.max(b)
}
#[reduce(identity = false)]
fn any_b(a: bool, b: bool) -> bool {
    a || b
}
#[reduce(identity = true)]
fn all_b(a: bool, b: bool) -> bool {
    a && b
}

#[reduce(identity = (i16::MIN, u32::MAX))]
fn argmax_i16(a: (i16, u32), b: (i16, u32)) -> (i16, u32) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

/// Runs `op` on the GPU and the CPU over `data[off..]` for every offset, comparing exactly.
fn check_exact<Op>(gpu: &Device, cpu: &Device, op: Op, data: &[Op::Value], what: &str)
where
    Op: ReduceOp,
    Op::Value: warp_runtime::Element + SameValue,
{
    let g = gpu.upload(data).unwrap();
    let c = cpu.upload(data).unwrap();
    let max_off = (16 / std::mem::size_of::<Op::Value>()).min(data.len());
    for off in 0..=max_off {
        let got = gpu.reduce(op, &g.slice(off..).unwrap()).unwrap();
        let want = cpu.reduce(op, &c.slice(off..).unwrap()).unwrap();
        assert!(
            got.same(&want),
            "{what}: n={} offset {off}: gpu {got:?} cpu {want:?}",
            data.len()
        );
    }
}

macro_rules! int_test {
    ($name:ident, $t:ident, $sum:ident, $min:ident, $max:ident, $xor:ident) => {
        #[test]
        #[ignore = "needs a CUDA GPU"]
        fn $name() {
            let (gpu, cpu) = (gpu(), Device::cpu());
            let s = seed();
            let mut r = rng(s);
            for n in edge_sizes(std::mem::size_of::<$t>()) {
                let data = <$t>::random_vec(&mut r, n, true);
                check_exact(&gpu, &cpu, $sum, &data, concat!("sum ", stringify!($t)));
                check_exact(&gpu, &cpu, $min, &data, concat!("min ", stringify!($t)));
                check_exact(&gpu, &cpu, $max, &data, concat!("max ", stringify!($t)));
                check_exact(&gpu, &cpu, $xor, &data, concat!("xor ", stringify!($t)));
            }
        }
    };
}
int_test!(reduce_i8, i8, sum_i8, min_i8, max_i8, xor_i8);
int_test!(reduce_i16, i16, sum_i16, min_i16, max_i16, xor_i16);
int_test!(reduce_i32, i32, sum_i32, min_i32, max_i32, xor_i32);
int_test!(reduce_i64, i64, sum_i64, min_i64, max_i64, xor_i64);
int_test!(reduce_u8, u8, sum_u8, min_u8, max_u8, xor_u8);
int_test!(reduce_u16, u16, sum_u16, min_u16, max_u16, xor_u16);
int_test!(reduce_u32, u32, sum_u32, min_u32, max_u32, xor_u32);
int_test!(reduce_u64, u64, sum_u64, min_u64, max_u64, xor_u64);

#[test]
#[ignore = "needs a CUDA GPU"]
fn reduce_bool() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let mut r = rng(seed());
    for n in edge_sizes(1) {
        let data = bool::random_vec(&mut r, n, true);
        check_exact(&gpu, &cpu, any_b, &data, "any");
        check_exact(&gpu, &cpu, all_b, &data, "all");
        let ones = vec![true; n];
        check_exact(&gpu, &cpu, all_b, &ones, "all of trues");
    }
}

/// Asserts that `op` sums `data[off..]` to exactly `exact_sum(&data[off..])` on the GPU and
/// the CPU backend, bit for bit, for every offset up to a 16-byte vector (`data` from
/// [`exact_vec`]: every partial sum is an integer far below 2^24, exact in any order).
fn check_exact_sums<Op>(gpu: &Device, cpu: &Device, op: Op, data: &[Op::Value], what: &str)
where
    Op: ReduceOp,
    Op::Value: warp_runtime::Element + FromSmall + FromExact + Bits + std::fmt::Debug,
{
    let (g, c) = (gpu.upload(data).unwrap(), cpu.upload(data).unwrap());
    let n = data.len();
    let mut want = exact_sum(data);
    for off in 0..=(16 / std::mem::size_of::<Op::Value>()).min(n) {
        if off > 0 {
            want -= data[off - 1].to_i64();
        }
        let want = Op::Value::from_exact(want);
        let got = gpu.reduce(op, &g.slice(off..).unwrap()).unwrap();
        assert_bits(&[got], &[want], &format!("{what} gpu n={n} offset {off}"));
        let got = cpu.reduce(op, &c.slice(off..).unwrap()).unwrap();
        assert_bits(&[got], &[want], &format!("{what} cpu n={n} offset {off}"));
    }
}

/// An exact integer sum as a float type (the same value: it is far below 2^24).
trait FromExact {
    /// `v` as this type.
    fn from_exact(v: i64) -> Self;
}
impl FromExact for f32 {
    fn from_exact(v: i64) -> Self {
        v as f32
    }
}
impl FromExact for f64 {
    fn from_exact(v: i64) -> Self {
        v as f64
    }
}

macro_rules! float_test {
    ($name:ident, $t:ident, $sum:ident, $max:ident, $rel:expr, $stream:expr) => {
        #[test]
        #[ignore = "needs a CUDA GPU"]
        fn $name() {
            let (gpu, cpu) = (gpu(), Device::cpu());
            let s = seed();
            let mut r = rng(s);
            for n in edge_sizes(std::mem::size_of::<$t>()) {
                for specials in [false, true] {
                    // Random floats: the maximum exactly, the sum within `rel * sum(|x|)` of
                    // the f64 sum (tree and sequential orders round differently).
                    let data = <$t>::random_vec(&mut r, n, specials);
                    check_exact(&gpu, &cpu, $max, &data, concat!("max ", stringify!($t)));
                    let g = gpu.upload(&data).unwrap();
                    for off in 0..=(16 / std::mem::size_of::<$t>()).min(n) {
                        let got = gpu.reduce($sum, &g.slice(off..).unwrap()).unwrap();
                        let exact: f64 = data[off..].iter().map(|&x| x as f64).sum();
                        let abs: f64 = data[off..].iter().map(|&x| (x as f64).abs()).sum();
                        assert!(
                            close_sum(got as f64, exact, abs, $rel),
                            "sum {} n={n} off={off}: gpu {got} exact {exact}",
                            stringify!($t)
                        );
                    }
                }
            }
            // Exact inputs: the sum bit for bit, at the edge sizes and above 2^24.
            for n in edge_sizes(std::mem::size_of::<$t>())
                .into_iter()
                .chain([(1 << 24) + 5])
            {
                let data: Vec<$t> = exact_vec(s ^ $stream ^ n as u64, n);
                check_exact_sums(
                    &gpu,
                    &cpu,
                    $sum,
                    &data,
                    concat!("exact sum ", stringify!($t)),
                );
            }
            // Signed zeros: a sum of -0.0 from identity 0.0 is 0.0 on both.
            let z = vec![-0.0 as $t; 100];
            let got = gpu.reduce($sum, &gpu.upload(&z).unwrap()).unwrap();
            let want = cpu.reduce($sum, &cpu.upload(&z).unwrap()).unwrap();
            assert_eq!(got.to_bits(), want.to_bits());
            assert_eq!(got.to_bits(), (0.0 as $t).to_bits(), "sum of -0.0 is 0.0");
            // Determinism: same input, same bits.
            let data = <$t>::random_vec(&mut r, 1 << 22, false);
            let g = gpu.upload(&data).unwrap();
            let first = gpu.reduce($sum, &g).unwrap();
            for _ in 0..3 {
                assert_eq!(gpu.reduce($sum, &g).unwrap().to_bits(), first.to_bits());
            }
        }
    };
}
float_test!(reduce_f32, f32, sum_f32, max_f32, 1e-5, 0x0f32);
float_test!(reduce_f64, f64, sum_f64, max_f64, 1e-12, 0x0f64);

#[test]
#[ignore = "needs a CUDA GPU"]
fn float_min_with_nan_and_infinities() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    for data in [
        vec![f32::NAN; 40],
        vec![f32::NAN, 1.0, f32::NAN, -3.0],
        vec![f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0],
        vec![0.0, -0.0],
    ] {
        check_exact(&gpu, &cpu, min_f32, &data, "min f32 specials");
        check_exact(&gpu, &cpu, max_f32, &data, "max f32 specials");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn argmax_and_argmin_with_ties() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let mut r = rng(seed());
    for n in edge_sizes(4) {
        // Few distinct values: many ties; the smallest index must win.
        let data: Vec<f32> = f32::random_vec(&mut r, n, true)
            .iter()
            .map(|x| (x * 4.0).round())
            .collect();
        let g = gpu.upload(&data).unwrap();
        let c = cpu.upload(&data).unwrap();
        for off in 0..=4.min(n) {
            let got = gpu
                .reduce(argmax_f32, &g.slice(off..).unwrap().indexed())
                .unwrap();
            let want = cpu
                .reduce(argmax_f32, &c.slice(off..).unwrap().indexed())
                .unwrap();
            assert!(
                got.same(&want),
                "argmax n={n} off={off}: gpu {got:?} cpu {want:?}"
            );
            if n > off {
                // NumPy's argmax: the first NaN, else the first index holding the maximum.
                let first = match data[off..].iter().position(|x| x.is_nan()) {
                    Some(i) => Some(i),
                    None => {
                        let best = data[off..]
                            .iter()
                            .copied()
                            .fold(f32::NEG_INFINITY, f32::max);
                        data[off..].iter().position(|&x| x == best)
                    }
                };
                if let Some(first) = first {
                    assert_eq!(got.1 as usize, first, "argmax picks the smallest index");
                }
            }
        }
        let d64: Vec<f64> = data.iter().map(|&x| x as f64).collect();
        let got = gpu
            .reduce(argmin_f64, &gpu.upload(&d64).unwrap().indexed())
            .unwrap();
        let want = cpu
            .reduce(argmin_f64, &cpu.upload(&d64).unwrap().indexed())
            .unwrap();
        assert!(
            got.same(&want),
            "argmin f64 n={n}: gpu {got:?} cpu {want:?}"
        );
        let d16: Vec<i16> = data
            .iter()
            .map(|&x| if x.is_nan() { 0 } else { x as i16 })
            .collect();
        let got = gpu
            .reduce(argmax_i16, &gpu.upload(&d16).unwrap().indexed())
            .unwrap();
        let want = cpu
            .reduce(argmax_i16, &cpu.upload(&d16).unwrap().indexed())
            .unwrap();
        assert_eq!(got, want, "argmax i16 n={n}");
    }
}

/// 2^28 elements of every type, against the CPU backend; f32 and f64 sums of exact inputs bit
/// for bit against the exact sum.
#[test]
#[ignore = "needs a CUDA GPU"]
fn large_2_pow_28_every_type() {
    let (gpu, cpu) = (gpu(), Device::cpu());
    let s = seed();
    let n = 1usize << 28;
    macro_rules! ints {
        ($($t:ident: $sum:ident, $max:ident;)*) => {$({
            let xs: Vec<$t> = random_vec_par(s, n, true);
            let (g, c) = (gpu.upload(&xs).unwrap(), cpu.upload(&xs).unwrap());
            assert_eq!(gpu.reduce($sum, &g).unwrap(), cpu.reduce($sum, &c).unwrap(), "sum {}", stringify!($t));
            assert_eq!(gpu.reduce($max, &g).unwrap(), cpu.reduce($max, &c).unwrap(), "max {}", stringify!($t));
        })*};
    }
    ints! {
        i8: sum_i8, max_i8; i16: sum_i16, max_i16; i32: sum_i32, max_i32; i64: sum_i64, max_i64;
        u8: sum_u8, max_u8; u16: sum_u16, max_u16; u32: sum_u32, max_u32; u64: sum_u64, max_u64;
    }
    let bs: Vec<bool> = random_vec_par(s, n, true);
    let (g, c) = (gpu.upload(&bs).unwrap(), cpu.upload(&bs).unwrap());
    assert_eq!(
        gpu.reduce(all_b, &g).unwrap(),
        cpu.reduce(all_b, &c).unwrap()
    );
    assert_eq!(
        gpu.reduce(any_b, &g).unwrap(),
        cpu.reduce(any_b, &c).unwrap()
    );
    drop((g, c));
    macro_rules! floats {
        ($($t:ident: $sum:ident, $max:ident, $rel:expr, $stream:expr;)*) => {$({
            // Random floats: the maximum exactly, the sum within a tolerance.
            let xs: Vec<$t> = random_vec_par(s, n, false);
            let (g, c) = (gpu.upload(&xs).unwrap(), cpu.upload(&xs).unwrap());
            let got = gpu.reduce($sum, &g).unwrap();
            let exact: f64 = xs.iter().map(|&x| x as f64).sum();
            let abs: f64 = xs.iter().map(|&x| (x as f64).abs()).sum();
            assert!(close_sum(got as f64, exact, abs, $rel), "sum {} 2^28: {got} vs {exact}", stringify!($t));
            assert!(gpu.reduce($max, &g).unwrap().same(&cpu.reduce($max, &c).unwrap()));
            drop((xs, g, c));
            // Exact inputs: the sum bit for bit, whole and from a misaligned start (one lost
            // tile or element of 2^28 changes it).
            let xs: Vec<$t> = exact_vec(s ^ $stream, n);
            let g = gpu.upload(&xs).unwrap();
            let whole = exact_sum(&xs);
            let tail = whole - exact_sum(&xs[..3]);
            assert_bits(&[gpu.reduce($sum, &g).unwrap()], &[whole as $t], concat!("exact sum ", stringify!($t), " 2^28"));
            assert_bits(
                &[gpu.reduce($sum, &g.slice(3..).unwrap()).unwrap()],
                &[tail as $t],
                concat!("exact sum ", stringify!($t), " 2^28 from 3"),
            );
        })*};
    }
    floats! { f32: sum_f32, max_f32, 1e-5, 0x2f32; f64: sum_f64, max_f64, 1e-12, 0x2f64; }
    let fs: Vec<f32> = random_vec_par(s, n, true);
    let (g, c) = (gpu.upload(&fs).unwrap(), cpu.upload(&fs).unwrap());
    assert!(
        gpu.reduce(argmax_f32, &g.indexed())
            .unwrap()
            .same(&cpu.reduce(argmax_f32, &c.indexed()).unwrap())
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn above_2_pow_31_elements() {
    let _big = warp_tests::big_lock();
    let (gpu, cpu) = (gpu(), Device::cpu());
    let mut r = rng(seed());
    let n = (1usize << 31) + 12345;
    let xs = u8::random_vec(&mut r, n, true);
    let g = gpu.upload(&xs).unwrap();
    let c = cpu.upload(&xs).unwrap();
    assert_eq!(
        gpu.reduce(sum_u8, &g).unwrap(),
        cpu.reduce(sum_u8, &c).unwrap()
    );
    assert_eq!(
        gpu.reduce(xor_u8, &g.slice(3..).unwrap()).unwrap(),
        cpu.reduce(xor_u8, &c.slice(3..).unwrap()).unwrap()
    );
    // An element only past 2^31 decides the answer.
    let mut ys = vec![0u8; n];
    ys[n - 2] = 200;
    let g = gpu.upload(&ys).unwrap();
    assert_eq!(gpu.reduce(max_u8, &g).unwrap(), 200);
    let wide: Vec<i8> = xs.iter().map(|&x| x as i8).collect();
    assert_eq!(
        gpu.reduce(sum_i8, &gpu.upload(&wide).unwrap()).unwrap(),
        cpu.reduce(sum_i8, &cpu.upload(&wide).unwrap()).unwrap()
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn index_type_too_small_is_an_error() {
    #[reduce(identity = (i32::MIN, u8::MAX))]
    fn argmax_u8idx(a: (i32, u8), b: (i32, u8)) -> (i32, u8) {
        if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
            b
        } else {
            a
        }
    }
    let gpu = gpu();
    let xs = gpu.upload(&vec![1i32; 300]).unwrap();
    assert!(matches!(
        gpu.reduce(argmax_u8idx, &xs.indexed()),
        Err(Error::Shape(_))
    ));
    assert_eq!(
        gpu.reduce(argmax_u8idx, &xs.slice(..256).unwrap().indexed())
            .unwrap(),
        (1, 0)
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn threads_launch_at_once() {
    let gpu = gpu();
    let xs: Vec<i64> = (0..1_000_003).collect();
    let g = gpu.upload(&xs).unwrap();
    let want: i64 = xs.iter().sum();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(gpu.reduce(sum_i64, &g).unwrap(), want);
                }
            });
        }
    });
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn data_from_another_device_is_refused() {
    let gpu = gpu();
    let cpu = Device::cpu();
    let xs = cpu.upload(&[1.0f32, 2.0]).unwrap();
    assert!(matches!(
        gpu.reduce(sum_f32, &xs),
        Err(Error::DeviceMismatch)
    ));
}

mod cg_style {
    //! The same operators in the cooperative-groups style: identical results to the intrinsics.
    use super::*;
    use warp_tests::ops::{cg_argmax_f32, cg_max_f32, cg_sum_f32, cg_sum_i32};

    #[reduce(identity = 0, style = "cooperative_groups")]
    fn cg_sum_u64(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[reduce(identity = u8::MAX, style = "cooperative_groups")]
    fn cg_min_u8(a: u8, b: u8) -> u8 {
        a.min(b)
    }
    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn both_styles_give_identical_results() {
        let gpu = gpu();
        let s = seed();
        let mut r = rng(s);
        let mut sizes = edge_sizes(4);
        sizes.push(1 << 24);
        for n in sizes {
            let f = f32::random_vec(&mut r, n, true);
            let g = gpu.upload(&f).unwrap();
            for off in 0..=3.min(n) {
                let v = g.slice(off..).unwrap();
                assert_eq!(
                    gpu.reduce(cg_sum_f32, &v).unwrap().to_bits(),
                    gpu.reduce(sum_f32, &v).unwrap().to_bits(),
                    "sum n={n}"
                );
                assert!(
                    gpu.reduce(cg_max_f32, &v)
                        .unwrap()
                        .same(&gpu.reduce(max_f32, &v).unwrap())
                );
                assert!(
                    gpu.reduce(cg_argmax_f32, &v.indexed())
                        .unwrap()
                        .same(&gpu.reduce(argmax_f32, &v.indexed()).unwrap())
                );
            }
            // Exact inputs: both styles give the exact sum's bits.
            let e: Vec<f32> = exact_vec(s ^ 0xc9 ^ n as u64, n);
            let g = gpu.upload(&e).unwrap();
            for off in 0..=3.min(n) {
                let v = g.slice(off..).unwrap();
                let want = [exact_sum(&e[off..]) as f32];
                assert_bits(
                    &[gpu.reduce(cg_sum_f32, &v).unwrap()],
                    &want,
                    &format!("cg exact sum n={n} off={off}"),
                );
                assert_bits(
                    &[gpu.reduce(sum_f32, &v).unwrap()],
                    &want,
                    &format!("exact sum n={n} off={off}"),
                );
            }
            let i = i32::random_vec(&mut r, n, true);
            let g = gpu.upload(&i).unwrap();
            assert_eq!(
                gpu.reduce(cg_sum_i32, &g).unwrap(),
                gpu.reduce(sum_i32, &g).unwrap()
            );
            let u = u64::random_vec(&mut r, n, true);
            let g = gpu.upload(&u).unwrap();
            assert_eq!(
                gpu.reduce(cg_sum_u64, &g).unwrap(),
                gpu.reduce(sum_u64, &g).unwrap()
            );
            let b = u8::random_vec(&mut r, n, true);
            let g = gpu.upload(&b).unwrap();
            assert_eq!(
                gpu.reduce(cg_min_u8, &g.slice(n.min(1)..).unwrap())
                    .unwrap(),
                gpu.reduce(min_u8, &g.slice(n.min(1)..).unwrap()).unwrap()
            );
        }
    }
}
