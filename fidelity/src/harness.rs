//! The comparison machinery: inputs at the edges of each type, CUDA batches of programs,
//! NVRTC (in parallel), the GPU launch, the CPU reference and the field-wise comparison.

use kernels_gen::fuzz::Rng;
use kernels_gen::{Scalar, Ty};
use rayon::prelude::*;
use warp_runtime::toolchain::{self, Output};

use crate::{Program, parse_ty};

/// Input rows per program.
pub const ROWS: usize = 512;
/// Programs per NVRTC compile.
pub const BATCH: usize = 200;

/// The edge values of a type, as C-layout bytes.
pub fn edge_values(t: Scalar) -> Vec<Vec<u8>> {
    macro_rules! ints {
        ($t:ty) => {{
            let mut v: Vec<$t> = vec![
                0,
                1,
                2,
                3,
                7,
                8,
                100,
                <$t>::MIN,
                <$t>::MAX,
                <$t>::MIN.wrapping_add(1),
                <$t>::MAX.wrapping_sub(1),
            ];
            v.extend([
                (-1i64) as $t,
                (-100i64) as $t,
                255u64 as $t,
                256u64 as $t,
                (-129i64) as $t,
                31,
                32,
                63,
                64,
            ]);
            v.into_iter().map(|x| x.to_ne_bytes().to_vec()).collect()
        }};
    }
    macro_rules! floats {
        ($t:ident) => {{
            let v: Vec<$t> = vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                1.5,
                2.5,
                -2.5,
                0.1,
                3.0,
                $t::NAN,
                $t::INFINITY,
                $t::NEG_INFINITY,
                $t::MIN_POSITIVE,
                $t::MIN_POSITIVE / 3.0,
                $t::from_bits(1),
                $t::MAX,
                $t::MIN,
                $t::EPSILON,
                255.5,
                -128.5,
                2147483648.0,
                -2147483649.0,
                4294967296.0,
                9.223372e18,
                1.8446744e19,
                1e20,
            ];
            v.into_iter().map(|x| x.to_ne_bytes().to_vec()).collect()
        }};
    }
    macro_rules! halves {
        ($t:ident) => {{
            use warp_runtime::half::$t;
            let v = [
                $t::ZERO,
                $t::NEG_ZERO,
                $t::ONE,
                $t::NEG_ONE,
                $t::from_f32(0.5),
                $t::from_f32(-2.5),
                $t::from_f32(1.0 / 3.0),
                $t::NAN,
                $t::from_bits($t::NAN.to_bits() | 1),
                $t::from_bits(0x7c01),
                $t::INFINITY,
                $t::NEG_INFINITY,
                $t::MIN_POSITIVE,
                $t::MIN_POSITIVE_SUBNORMAL,
                $t::MAX_SUBNORMAL,
                $t::MAX,
                $t::MIN,
                $t::EPSILON,
                $t::from_f32(255.5),
                $t::from_f32(65504.0),
                $t::from_f32(-4096.0),
            ];
            v.into_iter().map(|x| x.to_ne_bytes().to_vec()).collect()
        }};
    }
    match t {
        Scalar::Bool => vec![vec![0], vec![1]],
        Scalar::I8 => ints!(i8),
        Scalar::I16 => ints!(i16),
        Scalar::I32 => ints!(i32),
        Scalar::I64 => ints!(i64),
        Scalar::U8 => ints!(u8),
        Scalar::U16 => ints!(u16),
        Scalar::U32 => ints!(u32),
        Scalar::U64 => ints!(u64),
        Scalar::F32 => floats!(f32),
        Scalar::F64 => floats!(f64),
        Scalar::F16 => halves!(f16),
        Scalar::BF16 => halves!(bf16),
    }
}

/// A random value of a type (floats mostly moderate, sometimes any bit pattern).
pub fn random_value(t: Scalar, rng: &mut Rng) -> Vec<u8> {
    let bits = rng.next_u64();
    match t {
        Scalar::Bool => vec![(bits & 1) as u8],
        Scalar::F32 if bits & 3 != 0 => (((bits >> 8) % 2_000_000) as f32 / 1000.0 - 1000.0)
            .to_ne_bytes()
            .to_vec(),
        Scalar::F64 if bits & 3 != 0 => (((bits >> 8) % 2_000_000) as f64 / 1000.0 - 1000.0)
            .to_ne_bytes()
            .to_vec(),
        other => bits.to_ne_bytes()[..other.size()].to_vec(),
    }
}

/// The inputs of one program: `ROWS` rows of (a, b), most of them pairs of edge values.
pub fn inputs(p: &Program, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let (ta, tb) = (
        Scalar::from_rust(p.params[0]).expect("scalar"),
        Scalar::from_rust(p.params[1]).expect("scalar"),
    );
    let (ea, eb) = (edge_values(ta), edge_values(tb));
    let mut rng = Rng::new(seed);
    let mut pairs: Vec<(usize, usize)> = (0..ea.len())
        .flat_map(|i| (0..eb.len()).map(move |j| (i, j)))
        .collect();
    for i in (1..pairs.len()).rev() {
        pairs.swap(i, rng.below(i + 1));
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for row in 0..ROWS {
        if row < ROWS - 64 && row < pairs.len() {
            a.extend_from_slice(&ea[pairs[row].0]);
            b.extend_from_slice(&eb[pairs[row].1]);
        } else {
            a.extend(random_value(ta, &mut rng));
            b.extend(random_value(tb, &mut rng));
        }
    }
    (a, b)
}

/// The CUDA source of a batch: each program as a device function `wd_<name>` and a kernel
/// `k_<name>(a, b, out, n)` computing `out[i] = f(a[i], b[i])`.
pub fn batch_source(programs: &[&Program], batch: usize) -> Result<String, String> {
    let mut fns = String::new();
    let mut kernels = String::new();
    let mut tuples = std::collections::BTreeSet::new();
    for p in programs {
        let item: syn::ItemFn = syn::parse_str(p.source).map_err(|e| format!("{}: {e}", p.name))?;
        let f = kernels_gen::device_function(item, "fidelity.rs", &format!("wd_{}", p.name))
            .map_err(|e| {
                format!(
                    "{}: {}\n{}",
                    p.name,
                    e.diagnostics.render("fidelity.rs"),
                    p.source
                )
            })?;
        tuples.extend(f.tuples.iter().cloned());
        fns.push_str(&f.text);
        let (a, b, r) = (
            Scalar::from_rust(p.params[0]).expect("scalar").c_name(),
            Scalar::from_rust(p.params[1]).expect("scalar").c_name(),
            parse_ty(p.ret).c_name(),
        );
        kernels.push_str(&format!(
            "extern \"C\" __global__ void k_{n}(const {a}* a, const {b}* b, {r}* out, wd_u64 n) {{\n    const wd_u64 i = (wd_u64)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = wd_{n}(a[i], b[i]);\n}}\n",
            n = p.name
        ));
    }
    let tuples: Vec<Vec<Scalar>> = tuples.into_iter().collect();
    Ok(warp_kernels::module::functions_module(
        &format!("fidelity batch {batch}"),
        &format!("fidelity_batch_{batch}"),
        &tuples,
        &format!("\n{fns}\n{kernels}"),
    ))
}

/// The options of the fidelity compiles (those of the product's kernels).
pub fn options(arch: u32, output: Output) -> Vec<String> {
    toolchain::base_options(arch, output)
}

/// A compiled batch: its programs' names and the CUBIN or PTX image.
pub type Batch = (Vec<&'static str>, Vec<u8>);

/// Compiles every batch (in parallel): the images, or the first failure with its log.
pub fn compile_all(programs: &[&Program], arch: u32, output: Output) -> Result<Vec<Batch>, String> {
    let batches: Vec<&[&Program]> = programs.chunks(BATCH).collect();
    batches
        .par_iter()
        .enumerate()
        .map(|(i, batch)| {
            let src = batch_source(batch, i)?;
            let opts = options(arch, output);
            match toolchain::compile_source(&src, &format!("fidelity_batch_{i}.cu"), &opts, output)
            {
                Ok(Ok(c)) => Ok((batch.iter().map(|p| p.name).collect(), c.image)),
                Ok(Err(r)) => Err(format!(
                    "batch {i} does not compile:\n{}\n{}",
                    r.log,
                    toolchain::numbered_source(&src)
                )),
                Err(e) => Err(format!("NVRTC: {e}")),
            }
        })
        .collect()
}

/// Byte offset and type of every scalar field of a C-layout value.
pub fn fields(t: &Ty) -> Vec<(usize, Scalar)> {
    match t {
        Ty::Scalar(s) => vec![(0, *s)],
        Ty::Tuple(items) => {
            let mut off: usize = 0;
            items
                .iter()
                .map(|s| {
                    off = off.next_multiple_of(s.size());
                    let f = (off, *s);
                    off += s.size();
                    f
                })
                .collect()
        }
    }
}

/// Whether two C-layout values are the same: bit-equal fields, except that any NaN equals any
/// NaN (Rust leaves NaN payloads and signs unspecified).
pub fn same(t: &Ty, x: &[u8], y: &[u8]) -> bool {
    fields(t).into_iter().all(|(off, s)| {
        let (a, b) = (&x[off..off + s.size()], &y[off..off + s.size()]);
        match s {
            Scalar::F32 => {
                let (a, b) = (
                    f32::from_ne_bytes(a.try_into().unwrap()),
                    f32::from_ne_bytes(b.try_into().unwrap()),
                );
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            Scalar::F64 => {
                let (a, b) = (
                    f64::from_ne_bytes(a.try_into().unwrap()),
                    f64::from_ne_bytes(b.try_into().unwrap()),
                );
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            Scalar::F16 | Scalar::BF16 => {
                let nan_mask = if s == Scalar::F16 { 0x7C00 } else { 0x7F80 };
                let (a, b) = (
                    u16::from_ne_bytes(a.try_into().unwrap()),
                    u16::from_ne_bytes(b.try_into().unwrap()),
                );
                let nan = |x: u16| (x & 0x7FFF) > nan_mask;
                (nan(a) && nan(b)) || a == b
            }
            Scalar::Bool => (a[0] != 0) == (b[0] != 0),
            _ => a == b,
        }
    })
}

/// Renders a C-layout value for a report.
pub fn show(t: &Ty, x: &[u8]) -> String {
    let parts: Vec<String> = fields(t)
        .into_iter()
        .map(|(off, s)| {
            let b = &x[off..off + s.size()];
            macro_rules! get {
                ($t:ty) => {
                    format!("{:?}", <$t>::from_ne_bytes(b.try_into().unwrap()))
                };
            }
            match s {
                Scalar::Bool => format!("{}", b[0] != 0),
                Scalar::I8 => get!(i8),
                Scalar::I16 => get!(i16),
                Scalar::I32 => get!(i32),
                Scalar::I64 => get!(i64),
                Scalar::U8 => get!(u8),
                Scalar::U16 => get!(u16),
                Scalar::U32 => get!(u32),
                Scalar::U64 => get!(u64),
                Scalar::F32 => format!(
                    "{:?} ({:#010x})",
                    f32::from_ne_bytes(b.try_into().unwrap()),
                    u32::from_ne_bytes(b.try_into().unwrap())
                ),
                Scalar::F64 => format!(
                    "{:?} ({:#018x})",
                    f64::from_ne_bytes(b.try_into().unwrap()),
                    u64::from_ne_bytes(b.try_into().unwrap())
                ),
                Scalar::F16 => format!(
                    "{:?} ({:#06x})",
                    warp_runtime::half::f16::from_ne_bytes(b.try_into().unwrap()),
                    u16::from_ne_bytes(b.try_into().unwrap())
                ),
                Scalar::BF16 => format!(
                    "{:?} ({:#06x})",
                    warp_runtime::half::bf16::from_ne_bytes(b.try_into().unwrap()),
                    u16::from_ne_bytes(b.try_into().unwrap())
                ),
            }
        })
        .collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// The CPU results of a program on its inputs.
pub fn cpu_results(p: &Program, a: &[u8], b: &[u8]) -> Vec<u8> {
    let size = parse_ty(p.ret).c_size();
    let mut out = vec![0u8; size * ROWS];
    (p.run)(a, b, &mut out);
    out
}

/// The transcendental functions whose last bits differ between CPU and GPU: (name, arity).
pub const TRANSCENDENTALS: &[(&str, usize)] = &[
    ("exp", 1),
    ("exp2", 1),
    ("ln", 1),
    ("log2", 1),
    ("log10", 1),
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("tanh", 1),
    ("powf", 2),
    ("hypot", 2),
    ("atan2", 2),
    ("powi", 2),
];

macro_rules! cpu_transcendental {
    ($name:ident, $t:ty) => {
        /// The Rust (CPU) value of a transcendental function.
        pub fn $name(f: &str, a: $t, b: $t) -> $t {
            match f {
                "exp" => a.exp(),
                "exp2" => a.exp2(),
                "ln" => a.ln(),
                "log2" => a.log2(),
                "log10" => a.log10(),
                "sin" => a.sin(),
                "cos" => a.cos(),
                "tan" => a.tan(),
                "tanh" => a.tanh(),
                "powf" => a.powf(b),
                "hypot" => a.hypot(b),
                "atan2" => a.atan2(b),
                // A run-time exponent: rustc's powi through compiler-rt, never constant-folded.
                "powi" => a.powi(std::hint::black_box((b as i32) % 16)),
                other => panic!("unknown function {other}"),
            }
        }
    };
}
cpu_transcendental!(cpu_f32, f32);
cpu_transcendental!(cpu_f64, f64);

/// The Rust source of the probe of `f` for `t`.
pub fn probe_source(f: &str, arity: usize, t: Scalar) -> String {
    let call = match (f, arity) {
        // A run-time exponent, as the CPU side uses.
        ("powi", _) => "a.powi((b as i32) % 16)".to_string(),
        (_, 1) => format!("a.{f}()"),
        _ => format!("a.{f}(b)"),
    };
    format!("fn t_{f}_{t}(a: {t}, b: {t}) -> {t} {{ let _ = b; {call} }}")
}

/// Distance in units in the last place between two floats given as ordered integers
/// (`None` when exactly one is NaN, or they are infinities of different sign).
pub fn ulp_distance(a: f64, b: f64, is32: bool) -> Option<u64> {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            Some(0)
        } else {
            None
        };
    }
    let key = |x: f64| -> i128 {
        let bits = if is32 {
            (x as f32).to_bits() as i128
        } else {
            x.to_bits() as i128
        };
        let sign = if is32 { 1i128 << 31 } else { 1i128 << 63 };
        if bits & sign != 0 {
            -(bits & (sign - 1))
        } else {
            bits
        }
    };
    Some((key(a) - key(b)).unsigned_abs() as u64)
}

/// Inputs of the probes: a mix of moderate values, wide magnitudes and the edges.
pub fn probe_inputs(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let mut draw = || -> f64 {
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let sign = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
        match rng.below(4) {
            0 => u * 20.0 - 10.0,
            1 => u * 200.0 - 100.0,
            2 => sign * (2f64).powf(u * 60.0 - 30.0),
            _ => u * 4.0,
        }
    };
    let a: Vec<f64> = (0..n).map(|_| draw()).collect();
    let b: Vec<f64> = (0..n).map(|_| draw()).collect();
    (a, b)
}

/// The 8- and 16-bit arithmetic, comparison and select instructions in PTX (loads, stores and
/// conversions excluded). The generated code keeps narrow integers in 32-bit registers: ptxas
/// (CUDA 13.0, sm_90) miscompiles some 16-bit register code, for example sign-extending the
/// result of `neg.s16` of -32768 as +32768 (found by this fuzzer; see docs/fidelity.md).
pub fn narrow_instructions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| {
            let op = l.split_whitespace().next().unwrap_or("");
            let narrow = [".s16", ".u16", ".b16", ".s8", ".u8", ".b8"]
                .iter()
                .any(|t| op.ends_with(t) || op.contains(&format!("{t}.")));
            narrow
                && !op.starts_with("ld.")
                && !op.starts_with("st.")
                && !op.starts_with("cvt.")
                && !op.starts_with(".reg")
                && !op.starts_with("mov.")
        })
        .map(str::to_string)
        .collect()
}
