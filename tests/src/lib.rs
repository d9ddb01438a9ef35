//! Shared helpers of the warp-dsl integration tests: random inputs with special values, the
//! edge sizes, and value comparison that treats NaN as equal to NaN.

pub mod axes;
pub mod bound;
pub mod chart;
pub mod checks;
pub mod collect;
pub mod edge_ops;
pub mod emu;
pub mod events;
pub mod gathers;
pub mod group;
pub mod hist_reduce;
pub mod interop;
pub mod masked;
pub mod ops;
pub mod peers;
pub mod primitives;
pub mod ranges;
pub mod runs;
pub mod scans;
pub mod scatter;
pub mod sorts;
pub mod strides;
pub mod taken;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The GPU the GPU tests run on (device 0); panics without one (those tests are `#[ignore]`d
/// and run with `--ignored` on the GPU machine).
pub fn gpu() -> warp_runtime::Device {
    warp_runtime::Device::cuda(0).expect("these tests need a CUDA GPU")
}

/// The tests of inputs of 2^31 elements and more (several GiB of GPU and host memory each, up
/// to about 60 GiB of GPU memory) share the `gpu` test binary with every other GPU test; each
/// holds this guard for its whole run, so that they take turns instead of exhausting the GPU's
/// or the host's memory together. A failed test's poison is ignored.
pub fn big_lock() -> std::sync::MutexGuard<'static, ()> {
    static BIG: std::sync::Mutex<()> = std::sync::Mutex::new(());
    BIG.lock().unwrap_or_else(|e| e.into_inner())
}

/// The seed of this test process: `WARP_TEST_SEED` when set, else one from the clock, the same
/// for every call in the process (so one variable replays every random input of a failing
/// run). The first call installs a panic hook that ends every failure message with
/// `replay: WARP_TEST_SEED=<seed>`.
pub fn seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        let s = match std::env::var("WARP_TEST_SEED") {
            Ok(v) if !v.trim().is_empty() => v
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("WARP_TEST_SEED={v:?} is not an integer")),
            _ => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1),
        };
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            eprintln!("replay: WARP_TEST_SEED={s}");
        }));
        s
    })
}

/// Whether NVRTC can be used here. Without it a test that needs it skips (with a note), unless
/// `WARP_REQUIRE_NVRTC` is set (as `scripts/test.sh` sets it for CI): then its absence panics,
/// so that CI cannot pass without compiling what it claims to compile.
pub fn nvrtc_available() -> bool {
    match warp_runtime::toolchain::nvrtc_version() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var_os("WARP_REQUIRE_NVRTC").is_some_and(|v| v != "0") {
                panic!("WARP_REQUIRE_NVRTC is set but NVRTC cannot be used: {e}");
            }
            eprintln!("SKIPPED: NVRTC not available ({e})");
            false
        }
    }
}

/// A seeded generator.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// Random values of a type, with that type's special values mixed in.
pub trait Random: Copy {
    /// `n` values; integers spread over the whole range with MIN, MAX, 0 and -1 sprinkled in,
    /// floats mostly in [-1, 1) with NaN (the canonical one, and others of random sign and
    /// payload), +-inf, -0.0 and subnormals when `specials`.
    fn random_vec(rng: &mut SmallRng, n: usize, specials: bool) -> Vec<Self>;
}

macro_rules! random_int {
    ($($t:ty),*) => {$(
        impl Random for $t {
            fn random_vec(rng: &mut SmallRng, n: usize, specials: bool) -> Vec<Self> {
                (0..n)
                    .map(|_| {
                        if specials && rng.random_ratio(1, 64) {
                            [<$t>::MIN, <$t>::MAX, 0 as $t, (0 as $t).wrapping_sub(1)][rng.random_range(0..4)]
                        } else {
                            rng.random::<$t>()
                        }
                    })
                    .collect()
            }
        }
    )*};
}
random_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! random_float {
    ($($t:ty: $bits:ident),*) => {$(
        impl Random for $t {
            fn random_vec(rng: &mut SmallRng, n: usize, specials: bool) -> Vec<Self> {
                (0..n)
                    .map(|_| {
                        if specials && rng.random_ratio(1, 256) {
                            // A NaN of random sign and payload too: bit-exact moves keep it.
                            let (r, sign) = (rng.random::<$bits>(), rng.random::<bool>() as $bits);
                            let payload = <$t>::from_bits(<$t>::NAN.to_bits() | (r >> 12) | (sign << ($bits::BITS - 1)));
                            [<$t>::NAN, payload, <$t>::INFINITY, <$t>::NEG_INFINITY, -0.0, <$t>::MIN_POSITIVE / 4.0][rng.random_range(0..6)]
                        } else {
                            rng.random::<$t>() * 2.0 - 1.0
                        }
                    })
                    .collect()
            }
        }
    )*};
}
random_float!(f32: u32, f64: u64);

macro_rules! random_half {
    ($($t:ty),*) => {$(
        impl Random for $t {
            /// Mostly in [-1, 1); with `specials`, also NaN, infinities, -0.0, subnormals, MAX,
            /// MIN and any bit pattern.
            fn random_vec(rng: &mut SmallRng, n: usize, specials: bool) -> Vec<Self> {
                (0..n)
                    .map(|_| {
                        if specials && rng.random_ratio(1, 64) {
                            [<$t>::NAN, <$t>::INFINITY, <$t>::NEG_INFINITY, <$t>::NEG_ZERO,
                             <$t>::MIN_POSITIVE_SUBNORMAL, <$t>::MAX, <$t>::MIN,
                             <$t>::from_bits(rng.random())][rng.random_range(0..8)]
                        } else {
                            <$t>::from_f32(rng.random::<f32>() * 2.0 - 1.0)
                        }
                    })
                    .collect()
            }
        }
        impl SameValue for $t {
            fn same(&self, o: &Self) -> bool {
                (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
            }
        }
    )*};
}
random_half!(warp_runtime::half::f16, warp_runtime::half::bf16);

impl Random for bool {
    fn random_vec(rng: &mut SmallRng, n: usize, _specials: bool) -> Vec<Self> {
        (0..n).map(|_| rng.random_ratio(1, 3)).collect()
    }
}

/// The splitmix64 finalizer (what benches/peers/cub_peers.cu calls `mix64`): a shape both
/// sides of a bench cut the same way (segment lengths).
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` random values generated in parallel (chunks seeded from `seed`): for the large inputs.
pub fn random_vec_par<T: Random + Send>(seed: u64, n: usize, specials: bool) -> Vec<T> {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 20;
    let chunks: Vec<Vec<T>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut r = rng(seed ^ (c as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            T::random_vec(&mut r, CHUNK.min(n - c * CHUNK), specials)
        })
        .collect();
    chunks.concat()
}

/// Exact equality, except that NaN equals NaN and -0.0 equals 0.0.
pub trait SameValue {
    /// The comparison.
    fn same(&self, other: &Self) -> bool;
}

macro_rules! same_exact {
    ($($t:ty),*) => {$( impl SameValue for $t { fn same(&self, o: &Self) -> bool { self == o } } )*};
}
same_exact!(i8, i16, i32, i64, u8, u16, u32, u64, bool);

macro_rules! same_float {
    ($($t:ty),*) => {$(
        impl SameValue for $t {
            fn same(&self, o: &Self) -> bool {
                (self.is_nan() && o.is_nan()) || self == o
            }
        }
    )*};
}
same_float!(f32, f64);

impl<A: SameValue, B: SameValue> SameValue for (A, B) {
    fn same(&self, o: &Self) -> bool {
        self.0.same(&o.0) && self.1.same(&o.1)
    }
}

/// Float sums: equal within `rel * sum(|x|)` (tree and sequential orders round differently),
/// or both NaN, or the same infinity.
pub fn close_sum(a: f64, b: f64, abs_sum: f64, rel: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= rel * abs_sum.max(1e-30)
}

/// Asserts that `got`, a sum in f32 of `terms` (halves widened), is within `1e-5` of the sum
/// of `|terms|` from their f64 sum (NaN and infinities as [`close_sum`] treats them). Where the
/// finite terms' magnitudes add up beyond `f32::MAX` (two bf16 `MAX`es do), partial sums may
/// overflow to an infinity in one order and not in another, so nothing is asserted.
pub fn assert_close_sum_of(got: f32, terms: &[f64], what: &str) {
    let finite_abs: f64 = terms
        .iter()
        .filter(|t| t.is_finite())
        .map(|t| t.abs())
        .sum();
    if finite_abs > f32::MAX as f64 {
        return;
    }
    let want: f64 = terms.iter().sum();
    let abs: f64 = terms.iter().map(|t| t.abs()).sum();
    assert!(
        close_sum(got as f64, want, abs, 1e-5),
        "{what}: {got}, plain Rust {want}"
    );
}

/// The sizes every operation is tested at (the GPU tests add 2^28 and > 2^31 for some types):
/// empty, one, around a warp, around a block, one tile (a block's worth of 16-byte loads) -1,
/// +0, +1, and a million-odd.
pub fn edge_sizes(elem_size: usize) -> Vec<usize> {
    let tile = 256 * (16 / elem_size) * 4;
    vec![
        0,
        1,
        31,
        32,
        33,
        1023,
        1025,
        tile - 1,
        tile,
        tile + 1,
        (1 << 20) + 7,
    ]
}

/// The `k` largest (or, unless `largest`, smallest) of `xs` with their indices, by plain Rust:
/// the (value, index) pairs ordered with `partial_cmp`, NaN above everything (all NaNs equal),
/// ties by index; selected (`select_nth_unstable_by`), then sorted. What `top_k` and
/// `bottom_k` are tested against.
pub fn sorted_k<T: Copy + PartialOrd>(xs: &[T], k: usize, largest: bool) -> Vec<(T, u64)> {
    use std::cmp::Ordering;
    let nan = |x: &T| x.partial_cmp(x).is_none();
    let order = |a: &(T, u64), b: &(T, u64)| {
        let ord = match (nan(&a.0), nan(&b.0)) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => a.0.partial_cmp(&b.0).unwrap_or(Ordering::Equal),
        };
        let ord = if largest { ord.reverse() } else { ord };
        ord.then(a.1.cmp(&b.1))
    };
    let mut v: Vec<(T, u64)> = xs.iter().copied().zip(0u64..).collect();
    if k == 0 {
        return Vec::new();
    }
    if k < v.len() {
        v.select_nth_unstable_by(k - 1, order);
        v.truncate(k);
    }
    v.sort_by(order);
    v
}

/// Rust's total order of a value: `cmp` for integers and `bool`, `total_cmp` for floats (the
/// sorts' order), written from the standard library's and `half`'s comparisons alone.
pub trait TotalOrder: Copy {
    /// The order of `self` and `other`.
    fn total(&self, other: &Self) -> std::cmp::Ordering;
}

macro_rules! total_ord {
    ($($t:ty: $f:ident),*) => {$(
        impl TotalOrder for $t {
            fn total(&self, other: &Self) -> std::cmp::Ordering {
                self.$f(other)
            }
        }
    )*};
}
total_ord!(
    i8: cmp, i16: cmp, i32: cmp, i64: cmp, u8: cmp, u16: cmp, u32: cmp, u64: cmp, bool: cmp,
    f32: total_cmp, f64: total_cmp,
    warp_runtime::half::f16: total_cmp, warp_runtime::half::bf16: total_cmp
);

/// The positions of `xs` in stably sorted order (ascending, or descending: the largest first,
/// equal keys still in input order), by `slice::sort_by` with [`TotalOrder`]: what the sorts
/// are tested against.
pub fn sorted_positions<T: TotalOrder + Send + Sync>(xs: &[T], descending: bool) -> Vec<usize> {
    use rayon::prelude::*;
    let mut perm: Vec<usize> = (0..xs.len()).collect();
    if descending {
        perm.par_sort_by(|&a, &b| xs[b].total(&xs[a]));
    } else {
        perm.par_sort_by(|&a, &b| xs[a].total(&xs[b]));
    }
    perm
}

/// Whether `a` and `b` are the same value, NaN equal to NaN.
pub fn same_value<T: PartialEq>(a: &T, b: &T) -> bool {
    #[allow(clippy::eq_op)] // NaN is the value unequal to itself
    let nan = |x: &T| x != x;
    a == b || (nan(a) && nan(b))
}

/// Small nonzero integers (`-8..=-1` and `1..=8`, random signs) as a value type, generated in
/// parallel chunks from `seed`: the inputs of sums checked bit for bit. Every partial sum of
/// them is an integer far below 2^24 (a random walk: about `5 * sqrt(n)`, 2^14 * 5 at 2^28),
/// so each is exact in `f32` (and in `f64`) in any order, every order gives the same bits as
/// the `i64` sum, and one lost, doubled or misplaced element changes the result.
pub fn exact_vec<T: FromSmall + Send>(seed: u64, n: usize) -> Vec<T> {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 20;
    let chunks: Vec<Vec<T>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut r = rng(seed ^ 0x5ca1_ab1e ^ (c as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            (0..CHUNK.min(n - c * CHUNK))
                .map(|_| {
                    let m = r.random_range(1..=8i8);
                    T::from_small(if r.random() { m } else { -m })
                })
                .collect()
        })
        .collect();
    chunks.concat()
}

/// A value type made from a small integer exactly (what [`exact_vec`] produces).
pub trait FromSmall: Copy {
    /// `v` as this type.
    fn from_small(v: i8) -> Self;
    /// The value as an `i64` (exact for what `from_small` and exact sums of it make).
    fn to_i64(self) -> i64;
}

macro_rules! from_small {
    ($($t:ty),*) => {$(
        impl FromSmall for $t {
            fn from_small(v: i8) -> Self { v as $t }
            fn to_i64(self) -> i64 { self as i64 }
        }
    )*};
}
from_small!(i8, i16, i32, i64, f32, f64);
impl FromSmall for warp_runtime::half::f16 {
    fn from_small(v: i8) -> Self {
        Self::from_f32(v as f32)
    }
    fn to_i64(self) -> i64 {
        self.to_f32() as i64
    }
}
impl FromSmall for warp_runtime::half::bf16 {
    fn from_small(v: i8) -> Self {
        Self::from_f32(v as f32)
    }
    fn to_i64(self) -> i64 {
        self.to_f32() as i64
    }
}

/// The exact sum of values from [`exact_vec`] (as `i64`).
pub fn exact_sum<T: FromSmall>(xs: &[T]) -> i64 {
    xs.iter().map(|x| x.to_i64()).sum()
}

/// A value's bits, for comparisons that must see `-0.0` against `0.0` and NaN payloads:
/// zero-extended (a signed integer is not sign-extended), a pair's two halves side by side.
pub trait Bits: Copy {
    /// The bits.
    fn bits(self) -> u128;
}

macro_rules! bits_int {
    ($($t:ty: $u:ty),*) => {$( impl Bits for $t { fn bits(self) -> u128 { self as $u as u128 } } )*};
}
bits_int!(i8: u8, i16: u16, i32: u32, i64: u64, u8: u8, u16: u16, u32: u32, u64: u64, bool: u8);
impl Bits for f32 {
    fn bits(self) -> u128 {
        self.to_bits() as u128
    }
}
impl Bits for f64 {
    fn bits(self) -> u128 {
        self.to_bits() as u128
    }
}
impl Bits for warp_runtime::half::f16 {
    fn bits(self) -> u128 {
        self.to_bits() as u128
    }
}
impl Bits for warp_runtime::half::bf16 {
    fn bits(self) -> u128 {
        self.to_bits() as u128
    }
}
/// A pair of values of at most 64 bits each.
impl<A: Bits, B: Bits> Bits for (A, B) {
    fn bits(self) -> u128 {
        (self.0.bits() << 64) | self.1.bits()
    }
}

/// Asserts that `got` and `want` have the same length and the same bits element by element
/// (`-0.0` differs from `0.0`, NaN payloads count), naming the first differing index, its two
/// values and how many differ.
pub fn assert_bits<T: Bits + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_elements_by(got, want, what, |a, b| a.bits() == b.bits());
}

/// Asserts that `got` and `want` have the same length and the same values element by element
/// ([`SameValue`]: NaN equals NaN, `-0.0` equals `0.0`), naming the first differing index,
/// its two values and how many differ.
pub fn assert_elements<T: SameValue + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_elements_by(got, want, what, |a, b| a.same(b));
}

fn assert_elements_by<T: std::fmt::Debug>(
    got: &[T],
    want: &[T],
    what: &str,
    eq: impl Fn(&T, &T) -> bool,
) {
    assert_eq!(
        got.len(),
        want.len(),
        "{what}: {} elements, expected {}",
        got.len(),
        want.len()
    );
    let mut bad = got
        .iter()
        .zip(want)
        .enumerate()
        .filter(|(_, (a, b))| !eq(a, b));
    if let Some((i, (a, b))) = bad.next() {
        panic!(
            "{what}: element {i} is {a:?}, expected {b:?} ({} elements differ of {})",
            1 + bad.count(),
            got.len()
        );
    }
}
