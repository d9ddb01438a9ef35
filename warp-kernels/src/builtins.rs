//! The one table of the body language's built-in methods and named constants: what checking
//! accepts, how lowering spells each call in CUDA C, and how the fuzzer generates it.
//!
//! Adding a built-in is one row of [`METHODS`] (its name, receivers, argument and result
//! types, CUDA spelling and fuzzing recipe); checking, lowering and the fuzzer read the row.

use crate::ir::Lit;
use crate::types::Scalar;

/// Which receiver types a built-in takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receivers {
    /// Integers and floats.
    Numeric,
    /// `i8..i64`, `u8..u64`.
    Int,
    /// `i8..i64`.
    SignedInt,
    /// `i8..i64`, `f32`, `f64`.
    SignedOrFloat,
    /// `f32`, `f64`.
    Float,
    /// `f16`, `bf16` (the `half` crate's).
    Half,
    /// `bf16` only.
    Bf16,
}

impl Receivers {
    /// Whether a receiver of type `s` may call the built-in.
    pub fn admits(self, s: Scalar) -> bool {
        match self {
            Receivers::Numeric => s.is_numeric(),
            Receivers::Int => s.is_int(),
            Receivers::SignedInt => s.is_signed_int(),
            Receivers::SignedOrFloat => s.is_signed_int() || s.is_float(),
            Receivers::Float => s.is_float(),
            Receivers::Half => s.is_half(),
            Receivers::Bf16 => s == Scalar::BF16,
        }
    }
}

/// The type of an argument (after the receiver), relative to the receiver's type `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgTy {
    /// `T`.
    Same,
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// The unsigned integer of `T`'s width (`u32` for `f32`, `u64` for `f64`, `u16` for
    /// the halves).
    Bits,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl ArgTy {
    /// The argument's type for receiver type `t`.
    pub fn of(self, t: Scalar) -> Scalar {
        match self {
            ArgTy::Same => t,
            ArgTy::U32 => Scalar::U32,
            ArgTy::I32 => Scalar::I32,
            ArgTy::Bits => bits_of(t),
            ArgTy::F32 => Scalar::F32,
            ArgTy::F64 => Scalar::F64,
        }
    }
}

/// The result type, relative to the receiver's type `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetTy {
    /// `T`.
    Same,
    /// `bool`.
    Bool,
    /// `u32`.
    U32,
    /// The unsigned integer of `T`'s width.
    Bits,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl RetTy {
    /// The result's type for receiver type `t`.
    pub fn of(self, t: Scalar) -> Scalar {
        match self {
            RetTy::Same => t,
            RetTy::Bool => Scalar::Bool,
            RetTy::U32 => Scalar::U32,
            RetTy::Bits => bits_of(t),
            RetTy::F32 => Scalar::F32,
            RetTy::F64 => Scalar::F64,
        }
    }
}

fn bits_of(t: Scalar) -> Scalar {
    match t.bits() {
        64 => Scalar::U64,
        16 => Scalar::U16,
        _ => Scalar::U32,
    }
}

/// How a built-in is written in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A method, also callable as an associated function: `x.max(y)` or `f32::max(x, y)`.
    Method,
    /// Only an associated function of the type, whose arguments are all in the table:
    /// `f32::from_bits(u)` (the "receiver" type is the type named in the path).
    Assoc,
}

/// How lowering spells a call in CUDA C. `{0}`, `{1}`, ... are the operands (the receiver
/// first, for methods) and `{T}` is the C type of the receiver type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spell {
    /// `name(operands)`.
    Call(&'static str),
    /// `name<T>(operands)`: a prelude helper taking the Rust type as its template argument.
    Generic(&'static str),
    /// A C expression.
    Expr(&'static str),
}

impl Spell {
    /// The C text of the call on operands `args` for receiver type `t`.
    pub fn render(self, args: &[String], t: Scalar) -> String {
        match self {
            Spell::Call(name) => format!("{name}({})", args.join(", ")),
            Spell::Generic(name) => format!("{name}<{}>({})", t.c_name(), args.join(", ")),
            Spell::Expr(text) => {
                let mut out = text.replace("{T}", t.c_name());
                for (i, a) in args.iter().enumerate() {
                    out = out.replace(&format!("{{{i}}}"), a);
                }
                out
            }
        }
    }
}

/// How lowering spells a built-in, by the kind of its receiver type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lowering {
    /// For integer receivers.
    pub int: Option<Spell>,
    /// For `f32` receivers.
    pub f32: Option<Spell>,
    /// For `f64` receivers.
    pub f64: Option<Spell>,
    /// For `f16` and `bf16` receivers (`{T}` tells them apart).
    pub half: Option<Spell>,
}

impl Lowering {
    /// The spelling for receiver type `t` (`None`: the table does not admit `t`).
    pub fn spell(&self, t: Scalar) -> Option<Spell> {
        match t {
            Scalar::F32 => self.f32,
            Scalar::F64 => self.f64,
            Scalar::F16 | Scalar::BF16 => self.half,
            _ if t.is_int() => self.int,
            _ => None,
        }
    }
}

/// How the differential fuzzer generates calls of a built-in (see `kernels_gen::fuzz`): every
/// program it writes must be valid Rust whose result the GPU must reproduce bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fuzz {
    /// Any operands.
    Any,
    /// Float operands get their zero's sign normalised first (`(x + 0.0)`): Rust's float
    /// `min`/`max` may return either zero. Integer operands: any.
    NormalisedZeros,
    /// Ordered literal bounds (`clamp` panics when `lo > hi`).
    OrderedBounds,
    /// A small exponent (`pow` of `n % 40`).
    SmallExponent,
    /// NaN operands replaced first: the NaN's sign and payload are unspecified in Rust.
    NoNan,
    /// Not generated: the two sides' last bits differ by design (transcendental functions,
    /// `powi`; see docs/fidelity.md).
    Never,
}

/// One built-in: a row of [`METHODS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method {
    /// The Rust name.
    pub name: &'static str,
    /// How it is written.
    pub form: Form,
    /// The receiver types that may call it.
    pub receivers: Receivers,
    /// The types of the arguments after the receiver (for [`Form::Assoc`]: all arguments).
    pub args: &'static [ArgTy],
    /// The result type.
    pub ret: RetTy,
    /// Its CUDA spelling.
    pub lower: Lowering,
    /// How the fuzzer generates it.
    pub fuzz: Fuzz,
}

const fn int(s: Spell) -> Lowering {
    Lowering {
        int: Some(s),
        f32: None,
        f64: None,
        half: None,
    }
}

const fn float(f32: &'static str, f64: &'static str) -> Lowering {
    Lowering {
        int: None,
        f32: Some(Spell::Call(f32)),
        f64: Some(Spell::Call(f64)),
        half: None,
    }
}

const fn float_expr(f32: &'static str, f64: &'static str) -> Lowering {
    Lowering {
        int: None,
        f32: Some(Spell::Expr(f32)),
        f64: Some(Spell::Expr(f64)),
        half: None,
    }
}

const fn all(s: Spell) -> Lowering {
    Lowering {
        int: Some(s),
        f32: Some(s),
        f64: Some(s),
        half: None,
    }
}

const fn half(s: Spell) -> Lowering {
    Lowering {
        int: None,
        f32: None,
        f64: None,
        half: Some(s),
    }
}

const fn assoc(
    name: &'static str,
    receivers: Receivers,
    args: &'static [ArgTy],
    lower: Lowering,
    fuzz: Fuzz,
) -> Method {
    Method {
        name,
        form: Form::Assoc,
        receivers,
        args,
        ret: RetTy::Same,
        lower,
        fuzz,
    }
}

const fn floats(s: Spell) -> Lowering {
    Lowering {
        int: None,
        f32: Some(s),
        f64: Some(s),
        half: None,
    }
}

const fn row(
    name: &'static str,
    receivers: Receivers,
    args: &'static [ArgTy],
    ret: RetTy,
    lower: Lowering,
    fuzz: Fuzz,
) -> Method {
    Method {
        name,
        form: Form::Method,
        receivers,
        args,
        ret,
        lower,
        fuzz,
    }
}

use ArgTy::{I32 as A_I32, Same as A, U32 as A_U32};
use Fuzz::{Any, Never};
use Receivers::{
    Float as F, Half as H, Int as I, Numeric as N, SignedInt as SI, SignedOrFloat as SF,
};
use Spell::{Call, Expr, Generic};

/// Every built-in method and associated function of the body language.
#[rustfmt::skip]
pub const METHODS: &[Method] = &[
    row("min", N, &[A], RetTy::Same, all(Call("wd_min")), Fuzz::NormalisedZeros),
    row("max", N, &[A], RetTy::Same, all(Call("wd_max")), Fuzz::NormalisedZeros),
    row("clamp", N, &[A, A], RetTy::Same, all(Call("wd_clamp")), Fuzz::OrderedBounds),
    row(
        "abs",
        SF,
        &[],
        RetTy::Same,
        Lowering {
            int: Some(Generic("wd_abs")),
            f32: Some(Call("fabsf")),
            f64: Some(Call("fabs")),
            half: None,
        },
        Any,
    ),
    row(
        "signum",
        SF,
        &[],
        RetTy::Same,
        Lowering {
            int: Some(Generic("wd_signum")),
            f32: Some(Call("wd_signum")),
            f64: Some(Call("wd_signum")),
            half: None,
        },
        Any,
    ),
    row("wrapping_add", I, &[A], RetTy::Same, int(Generic("wd_add")), Any),
    row("wrapping_sub", I, &[A], RetTy::Same, int(Generic("wd_sub")), Any),
    row("wrapping_mul", I, &[A], RetTy::Same, int(Generic("wd_mul")), Any),
    row("wrapping_neg", I, &[], RetTy::Same, int(Generic("wd_neg")), Any),
    row("wrapping_abs", SI, &[], RetTy::Same, int(Generic("wd_abs")), Any),
    row("saturating_add", I, &[A], RetTy::Same, int(Generic("wd_saturating_add")), Any),
    row("saturating_sub", I, &[A], RetTy::Same, int(Generic("wd_saturating_sub")), Any),
    row("count_ones", I, &[], RetTy::U32, int(Generic("wd_count_ones")), Any),
    row("count_zeros", I, &[], RetTy::U32, int(Generic("wd_count_zeros")), Any),
    row("leading_zeros", I, &[], RetTy::U32, int(Generic("wd_leading_zeros")), Any),
    row("trailing_zeros", I, &[], RetTy::U32, int(Generic("wd_trailing_zeros")), Any),
    row("rotate_left", I, &[A_U32], RetTy::Same, int(Generic("wd_rotate_left")), Any),
    row("rotate_right", I, &[A_U32], RetTy::Same, int(Generic("wd_rotate_right")), Any),
    row("pow", I, &[A_U32], RetTy::Same, int(Generic("wd_pow")), Fuzz::SmallExponent),
    row("is_positive", SI, &[], RetTy::Bool, int(Expr("({0} > 0)")), Any),
    row("is_negative", SI, &[], RetTy::Bool, int(Expr("({0} < 0)")), Any),
    row("sqrt", F, &[], RetTy::Same, float("sqrtf", "sqrt"), Any),
    row("exp", F, &[], RetTy::Same, float("expf", "exp"), Never),
    row("exp2", F, &[], RetTy::Same, float("exp2f", "exp2"), Never),
    row("ln", F, &[], RetTy::Same, float("logf", "log"), Never),
    row("log2", F, &[], RetTy::Same, float("log2f", "log2"), Never),
    row("log10", F, &[], RetTy::Same, float("log10f", "log10"), Never),
    row("sin", F, &[], RetTy::Same, float("sinf", "sin"), Never),
    row("cos", F, &[], RetTy::Same, float("cosf", "cos"), Never),
    row("tan", F, &[], RetTy::Same, float("tanf", "tan"), Never),
    row("tanh", F, &[], RetTy::Same, float("tanhf", "tanh"), Never),
    row("floor", F, &[], RetTy::Same, float("floorf", "floor"), Any),
    row("ceil", F, &[], RetTy::Same, float("ceilf", "ceil"), Any),
    row("round", F, &[], RetTy::Same, float("roundf", "round"), Any),
    row("trunc", F, &[], RetTy::Same, float("truncf", "trunc"), Any),
    row("recip", F, &[], RetTy::Same, float_expr("(1.0f / {0})", "(1.0 / {0})"), Any),
    row("powi", F, &[A_I32], RetTy::Same, floats(Call("wd_powi")), Never),
    row("powf", F, &[A], RetTy::Same, float("powf", "pow"), Never),
    row("mul_add", F, &[A, A], RetTy::Same, float("fmaf", "fma"), Any),
    row("hypot", F, &[A], RetTy::Same, float("hypotf", "hypot"), Never),
    row("atan2", F, &[A], RetTy::Same, float("atan2f", "atan2"), Never),
    row("copysign", F, &[A], RetTy::Same, floats(Call("wd_copysign")), Fuzz::NoNan),
    row("is_nan", F, &[], RetTy::Bool, floats(Expr("({0} != {0})")), Any),
    row("is_finite", F, &[], RetTy::Bool, floats(Call("isfinite")), Any),
    row("is_infinite", F, &[], RetTy::Bool, floats(Call("isinf")), Any),
    row("is_sign_negative", F, &[], RetTy::Bool, floats(Expr("(signbit({0}) != 0)")), Fuzz::NoNan),
    row("is_sign_positive", F, &[], RetTy::Bool, floats(Expr("(signbit({0}) == 0)")), Fuzz::NoNan),
    row("to_bits", F, &[], RetTy::Bits, floats(Call("wd_to_bits")), Fuzz::NoNan),
    Method {
        name: "from_bits",
        form: Form::Assoc,
        receivers: F,
        args: &[ArgTy::Bits],
        ret: RetTy::Same,
        lower: float_expr("__uint_as_float({0})", "__longlong_as_double((wd_i64)({0}))"),
        fuzz: Any,
    },
    // The `half` crate's f16 and bf16: conversions round as `half` does (prelude.cuh ports
    // its software conversions), the rest is exact.
    row("to_f32", H, &[], RetTy::F32, half(Call("wd_to_f32")), Any),
    row("to_f64", H, &[], RetTy::F64, half(Call("wd_to_f64")), Any),
    assoc("from_f32", H, &[ArgTy::F32], half(Generic("wd_from_f32")), Any),
    // `f16::from_f64` is left out: `half` rounds it through f32 on x86-64 CPUs with F16C and
    // directly elsewhere, so its result depends on the CPU. `bf16::from_f64` is one rounding.
    Method {
        name: "from_f64",
        form: Form::Assoc,
        receivers: Receivers::Bf16,
        args: &[ArgTy::F64],
        ret: RetTy::Same,
        lower: half(Generic("wd_from_f64")),
        fuzz: Any,
    },
    row("max", H, &[A], RetTy::Same, half(Call("wd_max")), Fuzz::NormalisedZeros),
    row("min", H, &[A], RetTy::Same, half(Call("wd_min")), Fuzz::NormalisedZeros),
    row("clamp", H, &[A, A], RetTy::Same, half(Call("wd_clamp")), Fuzz::OrderedBounds),
    row("signum", H, &[], RetTy::Same, half(Call("wd_signum")), Any),
    row("copysign", H, &[A], RetTy::Same, half(Call("wd_copysign")), Fuzz::NoNan),
    row("is_nan", H, &[], RetTy::Bool, half(Call("wd_is_nan")), Any),
    row("is_finite", H, &[], RetTy::Bool, half(Call("wd_is_finite")), Any),
    row("is_infinite", H, &[], RetTy::Bool, half(Call("wd_is_infinite")), Any),
    row("is_normal", H, &[], RetTy::Bool, half(Call("wd_is_normal")), Any),
    row("is_sign_negative", H, &[], RetTy::Bool, half(Expr("(({0}.bits & 0x8000u) != 0)")), Fuzz::NoNan),
    row("is_sign_positive", H, &[], RetTy::Bool, half(Expr("(({0}.bits & 0x8000u) == 0)")), Fuzz::NoNan),
    row("to_bits", H, &[], RetTy::Bits, half(Expr("((wd_u32){0}.bits)")), Fuzz::NoNan),
    assoc("from_bits", H, &[ArgTy::Bits], half(Generic("wd_half_bits")), Any),
];

/// A built-in as the IR holds it: an index into [`METHODS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Builtin(u16);

impl Builtin {
    /// Its row.
    pub fn method(self) -> &'static Method {
        &METHODS[self.0 as usize]
    }

    /// Its Rust name.
    pub fn name(self) -> &'static str {
        self.method().name
    }

    /// The built-in called `name` (any receiver), if there is one.
    pub fn named(name: &str) -> Option<Builtin> {
        METHODS
            .iter()
            .position(|m| m.name == name)
            .map(|i| Builtin(i as u16))
    }

    /// The built-in `name` written as `form` on receiver type `recv`, if the table admits it.
    pub fn lookup(name: &str, form: Form, recv: Scalar) -> Option<Builtin> {
        METHODS
            .iter()
            .position(|m| m.name == name && m.form == form && m.receivers.admits(recv))
            .map(|i| Builtin(i as u16))
    }

    /// Every built-in, in table order.
    pub fn all() -> impl Iterator<Item = Builtin> {
        (0..METHODS.len()).map(|i| Builtin(i as u16))
    }
}

/// The names of the methods a receiver of type `recv` has (for error messages), in table
/// order.
pub fn method_names(recv: Scalar) -> String {
    let names: Vec<&str> = METHODS
        .iter()
        .filter(|m| m.form == Form::Method && m.receivers.admits(recv))
        .map(|m| m.name)
        .collect();
    names.join(", ")
}

/// Where a named constant lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstPath {
    /// `T::NAME` (also `std::T::NAME`).
    Assoc,
    /// `std::T::consts::NAME`.
    Consts,
}

/// A named constant: a row of [`CONSTANTS`].
#[derive(Clone, Copy, Debug)]
pub struct Constant {
    /// The Rust name (`INFINITY`, `PI`, `MAX`).
    pub name: &'static str,
    /// Where it lives.
    pub path: ConstPath,
    /// The types that have it.
    pub on: Receivers,
    /// Its value and type for type `T` (`BITS` is a `u32` whatever `T`).
    pub value: fn(Scalar) -> (Lit, Scalar),
    /// Whether the fuzzer writes it where it draws a named constant of the type (the
    /// `std::T::consts` rows, marked `false`, are drawn where it writes a math constant).
    pub fuzz: bool,
}

macro_rules! float_const {
    ($name:expr, $path:ident, $v32:expr, $v64:expr, $fuzz:expr) => {
        Constant {
            name: $name,
            path: ConstPath::$path,
            on: Receivers::Float,
            value: |t| {
                let v = if t == Scalar::F32 { $v32 as f64 } else { $v64 };
                (Lit::Float(v), t)
            },
            fuzz: $fuzz,
        }
    };
}

macro_rules! float_consts {
    ($($name:ident),*) => {
        [$(float_const!(stringify!($name), Consts, std::f32::consts::$name, std::f64::consts::$name, false)),*]
    };
}

const fn int_const(name: &'static str, value: fn(Scalar) -> (Lit, Scalar)) -> Constant {
    Constant {
        name,
        path: ConstPath::Assoc,
        on: Receivers::Int,
        value,
        fuzz: true,
    }
}

const MATH_CONSTS: [Constant; 19] = float_consts!(
    PI,
    TAU,
    E,
    SQRT_2,
    FRAC_1_SQRT_2,
    LN_2,
    LN_10,
    LOG2_E,
    LOG10_E,
    LOG2_10,
    LOG10_2,
    FRAC_PI_2,
    FRAC_PI_3,
    FRAC_PI_4,
    FRAC_PI_6,
    FRAC_PI_8,
    FRAC_1_PI,
    FRAC_2_PI,
    FRAC_2_SQRT_PI
);

macro_rules! half_const {
    ($name:ident) => {
        Constant {
            name: stringify!($name),
            path: ConstPath::Assoc,
            on: Receivers::Half,
            value: |t| {
                let bits = if t == Scalar::F16 {
                    half::f16::$name.to_bits()
                } else {
                    half::bf16::$name.to_bits()
                };
                (Lit::Int(bits as i128), t)
            },
            fuzz: true,
        }
    };
}

/// The `half` crate's named constants of `f16` and `bf16` (their bits, as `half` defines them).
const HALF_CONSTS: [Constant; 15] = [
    half_const!(INFINITY),
    half_const!(NEG_INFINITY),
    half_const!(NAN),
    half_const!(MAX),
    half_const!(MIN),
    half_const!(MIN_POSITIVE),
    half_const!(EPSILON),
    half_const!(ZERO),
    half_const!(NEG_ZERO),
    half_const!(ONE),
    half_const!(NEG_ONE),
    half_const!(MIN_POSITIVE_SUBNORMAL),
    half_const!(MAX_SUBNORMAL),
    half_const!(PI),
    half_const!(E),
];

/// Every named constant of the body language.
#[rustfmt::skip]
pub const CONSTANTS: &[Constant] = &[
    float_const!("INFINITY", Assoc, f32::INFINITY, f64::INFINITY, true),
    float_const!("NEG_INFINITY", Assoc, f32::NEG_INFINITY, f64::NEG_INFINITY, true),
    float_const!("NAN", Assoc, f32::NAN, f64::NAN, true),
    float_const!("MAX", Assoc, f32::MAX, f64::MAX, true),
    float_const!("MIN", Assoc, f32::MIN, f64::MIN, true),
    float_const!("MIN_POSITIVE", Assoc, f32::MIN_POSITIVE, f64::MIN_POSITIVE, true),
    float_const!("EPSILON", Assoc, f32::EPSILON, f64::EPSILON, true),
    int_const("MIN", |t| (Lit::Int(t.int_range().map_or(0, |r| r.0)), t)),
    int_const("MAX", |t| (Lit::Int(t.int_range().map_or(0, |r| r.1)), t)),
    int_const("BITS", |t| (Lit::Int(t.bits() as i128), Scalar::U32)),
    MATH_CONSTS[0],
    MATH_CONSTS[1],
    MATH_CONSTS[2],
    MATH_CONSTS[3],
    MATH_CONSTS[4],
    MATH_CONSTS[5],
    MATH_CONSTS[6],
    MATH_CONSTS[7],
    MATH_CONSTS[8],
    MATH_CONSTS[9],
    MATH_CONSTS[10],
    MATH_CONSTS[11],
    MATH_CONSTS[12],
    MATH_CONSTS[13],
    MATH_CONSTS[14],
    MATH_CONSTS[15],
    MATH_CONSTS[16],
    MATH_CONSTS[17],
    MATH_CONSTS[18],
    HALF_CONSTS[0],
    HALF_CONSTS[1],
    HALF_CONSTS[2],
    HALF_CONSTS[3],
    HALF_CONSTS[4],
    HALF_CONSTS[5],
    HALF_CONSTS[6],
    HALF_CONSTS[7],
    HALF_CONSTS[8],
    HALF_CONSTS[9],
    HALF_CONSTS[10],
    HALF_CONSTS[11],
    HALF_CONSTS[12],
    HALF_CONSTS[13],
    HALF_CONSTS[14],
];

/// The constant `T::name` (`path` [`ConstPath::Assoc`]) or `std::T::consts::name`: its value
/// and type.
pub fn constant(t: Scalar, name: &str, path: ConstPath) -> Option<(Lit, Scalar)> {
    CONSTANTS
        .iter()
        .find(|c| c.name == name && c.path == path && c.on.admits(t))
        .map(|c| (c.value)(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ALL_SCALARS;

    #[test]
    fn every_admitted_receiver_has_a_spelling() {
        for m in METHODS {
            for s in ALL_SCALARS {
                if m.receivers.admits(s) {
                    assert!(m.lower.spell(s).is_some(), "{} on {s}", m.name);
                }
            }
        }
    }

    #[test]
    fn names_are_unique_per_receiver() {
        for (i, a) in METHODS.iter().enumerate() {
            for b in &METHODS[i + 1..] {
                let clash = a.name == b.name
                    && ALL_SCALARS
                        .iter()
                        .any(|&s| a.receivers.admits(s) && b.receivers.admits(s));
                assert!(!clash, "{} twice", a.name);
            }
        }
    }

    #[test]
    fn constants_have_their_rust_values() {
        assert_eq!(
            constant(Scalar::F32, "PI", ConstPath::Consts),
            Some((Lit::Float(std::f32::consts::PI as f64), Scalar::F32))
        );
        assert_eq!(
            constant(Scalar::U8, "MAX", ConstPath::Assoc),
            Some((Lit::Int(255), Scalar::U8))
        );
        assert_eq!(
            constant(Scalar::I64, "BITS", ConstPath::Assoc),
            Some((Lit::Int(64), Scalar::U32))
        );
        assert_eq!(constant(Scalar::Bool, "MAX", ConstPath::Assoc), None);
        assert_eq!(constant(Scalar::I32, "PI", ConstPath::Consts), None);
    }

    #[test]
    fn spellings_render() {
        let m = Builtin::lookup("is_nan", Form::Method, Scalar::F32).unwrap();
        let s = m.method().lower.spell(Scalar::F32).unwrap();
        assert_eq!(s.render(&["x".into()], Scalar::F32), "(x != x)");
        let m = Builtin::lookup("wrapping_add", Form::Method, Scalar::U8).unwrap();
        let s = m.method().lower.spell(Scalar::U8).unwrap();
        assert_eq!(
            s.render(&["a".into(), "b".into()], Scalar::U8),
            "wd_add<wd_u8>(a, b)"
        );
    }
}
