//! Random well-typed functions of the body language, as Rust source: the programs of the
//! differential fidelity tests (each one is compiled by rustc for the CPU and by kernels-gen +
//! NVRTC for the GPU, and the two are compared on edge and random inputs).
//!
//! The built-in calls come from the table `warp_kernels::builtins::METHODS`: every row is
//! called on the receiver types it admits, with arguments of its argument types, following the
//! row's `Fuzz` recipe; the named constants among the literals are the rows of
//! `builtins::CONSTANTS` marked `fuzz` (and the `std::T::consts` rows). A new row is generated
//! without any change here, unless it needs a new recipe.
//!
//! Every program is valid Rust that rustc accepts and that cannot panic when built without
//! overflow checks (as the DSL specifies: release semantics). rustc rejects an overflow it can
//! see while compiling, with or without overflow checks (`arithmetic_overflow`,
//! `overflowing_literals`): an integer `+`, `-`, `*` or `-x` whose operands it may know is
//! written as its `wrapping_*` method, and a shift amount it may know is masked to the width
//! (both compute what the operator does; see `E`). Divisions are guarded against zero and
//! `MIN / -1`, `clamp` bounds are ordered literals (`Fuzz::OrderedBounds`), `pow` exponents are
//! below 40 (`Fuzz::SmallExponent`). Operations whose Rust result is itself unspecified are
//! kept out of the comparison: float `min`/`max` get their operands' zero signs normalised
//! (`(x + 0.0)`; Rust may return either zero; `Fuzz::NormalisedZeros`), and the NaN sign or
//! payload is never observed (`to_bits`, `is_sign_*` and `copysign` see NaN replaced first;
//! `Fuzz::NoNan`). Transcendental functions (`exp`, `sin`, ...) and `powi` are not generated
//! (`Fuzz::Never`): their last bits differ by design (see the fidelity page; rustc even
//! computes `powi` differently when its arguments are constants); `sqrt`, `mul_add` and the
//! rounding functions are exact on both sides and are generated.

use std::fmt::Write;

use warp_kernels::builtins::{CONSTANTS, ConstPath, Constant, Form, Fuzz, METHODS, Method};
use warp_kernels::types::{ALL_SCALARS, HALVES, Scalar, Ty};

/// A generated program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its function name (`fz_<index>`).
    pub name: String,
    /// Parameter types (`a`, `b`).
    pub params: Vec<Scalar>,
    /// Return type.
    pub ret: Ty,
    /// The complete `fn` item.
    pub source: String,
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// `true` with probability `p` percent.
    pub fn chance(&mut self, p: u32) -> bool {
        self.below(100) < p as usize
    }
    /// A uniformly chosen element.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// `count` programs from `seed` (the same arguments give the same programs).
pub fn generate(seed: u64, count: usize) -> Vec<Program> {
    (0..count)
        .map(|i| Gen::new(seed, i).program(&format!("fz_{i}")))
        .collect()
}

/// Every scalar type the programs use: Rust's primitives and the `half` crate's `f16`/`bf16`
/// (which the programs import; they take no `as` casts and no literals).
const SCALARS: [Scalar; 13] = {
    let mut all = [Scalar::Bool; 13];
    let mut i = 0;
    while i < ALL_SCALARS.len() {
        all[i] = ALL_SCALARS[i];
        i += 1;
    }
    all[11] = HALVES[0];
    all[12] = HALVES[1];
    all
};

/// The numeric types (every primitive scalar but `bool`, which `ALL_SCALARS` lists first).
fn numeric() -> &'static [Scalar] {
    &ALL_SCALARS[1..]
}

/// The integer types (`ALL_SCALARS` lists them after `bool`, before the floats).
fn ints() -> &'static [Scalar] {
    &ALL_SCALARS[1..9]
}

/// A generated expression: its text, and whether rustc may know its value while compiling.
///
/// rustc's known-panics lint (deny by default, with or without overflow checks) evaluates
/// literals, constants, operators, casts and the locals bound to them, and rejects an integer
/// `+`, `-`, `*` or `-x` that it finds to overflow, and a shift by an amount it finds too large.
/// It sees through neither the parameters nor calls (methods, `T::from_bits`). Where both
/// operands may be known, the generator writes the overflow-free spelling of the same operation
/// instead: the `wrapping_*` method (what the operator computes without overflow checks), or
/// the shift amount masked to the width (what the shift does with it anyway).
#[derive(Clone, Debug)]
struct E {
    text: String,
    /// `false` only when rustc cannot know the value: a parameter, a call's result, an
    /// operator or cast with an operand it cannot know, an `if` or `match` with no branch it can
    /// know. (Conservative: `true` may be a value rustc does not track.)
    known: bool,
}

impl E {
    fn new(text: String, known: bool) -> E {
        E { text, known }
    }

    /// A literal or constant.
    fn known(text: String) -> E {
        E { text, known: true }
    }

    /// An expression rustc cannot know (a call's result).
    fn unknown(text: String) -> E {
        E { text, known: false }
    }
}

impl std::fmt::Display for E {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// A variable in scope.
#[derive(Clone, Debug)]
struct Local {
    name: String,
    ty: Ty,
    mutable: bool,
    /// Whether rustc may know its value (any value it was given may be known).
    known: bool,
}

impl Local {
    fn new(name: String, ty: Ty, mutable: bool, known: bool) -> Local {
        Local {
            name,
            ty,
            mutable,
            known,
        }
    }

    fn expr(&self) -> E {
        E::new(self.name.clone(), self.known)
    }
}

struct Gen {
    rng: Rng,
    /// Variables in scope.
    vars: Vec<Local>,
    next_var: usize,
    /// How many calls of each row of `METHODS` were written.
    calls: Vec<u32>,
}

impl Gen {
    /// The generator of program `i` of `seed`.
    fn new(seed: u64, i: usize) -> Gen {
        Gen {
            rng: Rng::new(seed ^ (i as u64).wrapping_mul(0xd1b5_4a32_d192_ed03)),
            vars: Vec::new(),
            next_var: 0,
            calls: vec![0; METHODS.len()],
        }
    }

    fn program(&mut self, name: &str) -> Program {
        let params = vec![*self.rng.pick(&SCALARS), *self.rng.pick(&SCALARS)];
        let ret = self.any_ty();
        self.vars = vec![
            Local::new("a".into(), Ty::Scalar(params[0]), false, false),
            Local::new("b".into(), Ty::Scalar(params[1]), false, false),
        ];
        let mut body = String::new();
        for _ in 0..self.rng.below(5) {
            self.statement(&mut body);
        }
        let tail = self.expr(&ret, 4);
        let _ = writeln!(body, "    {tail}");
        let source = format!(
            "fn {name}(a: {}, b: {}) -> {} {{\n{body}}}\n",
            params[0], params[1], ret
        );
        Program {
            name: name.to_string(),
            params,
            ret,
            source,
        }
    }

    fn any_ty(&mut self) -> Ty {
        if self.rng.chance(15) {
            let n = 2 + self.rng.below(2);
            Ty::Tuple((0..n).map(|_| *self.rng.pick(&SCALARS)).collect())
        } else {
            Ty::Scalar(*self.rng.pick(&SCALARS))
        }
    }

    fn fresh(&mut self) -> String {
        self.next_var += 1;
        format!("v{}", self.next_var)
    }

    fn statement(&mut self, out: &mut String) {
        let mutable: Vec<usize> = (0..self.vars.len())
            .filter(|&i| self.vars[i].mutable)
            .collect();
        match self.rng.below(10) {
            0..=4 => {
                let ty = self.any_ty();
                let e = self.expr(&ty, 3);
                let name = self.fresh();
                let m = self.rng.chance(40);
                let _ = writeln!(
                    out,
                    "    let {}{name}: {ty} = {e};",
                    if m { "mut " } else { "" }
                );
                self.vars.push(Local::new(name, ty, m, e.known));
            }
            5 => {
                // Tuple destructuring.
                let items: Vec<Scalar> = (0..2).map(|_| *self.rng.pick(&SCALARS)).collect();
                let ty = Ty::Tuple(items.clone());
                let e = self.expr(&ty, 3);
                let (x, y) = (self.fresh(), self.fresh());
                let _ = writeln!(out, "    let ({x}, {y}) = {e};");
                self.vars
                    .push(Local::new(x, Ty::Scalar(items[0]), false, e.known));
                self.vars
                    .push(Local::new(y, Ty::Scalar(items[1]), false, e.known));
            }
            6 | 7 if !mutable.is_empty() => {
                let i = *self.rng.pick(&mutable);
                let (name, ty) = (self.vars[i].name.clone(), self.vars[i].ty.clone());
                let e = self.expr(&ty, 3);
                let _ = writeln!(out, "    {name} = {e};");
                self.vars[i].known |= e.known;
            }
            8 if !mutable.is_empty() => {
                let i = *self.rng.pick(&mutable);
                let (name, ty) = (self.vars[i].name.clone(), self.vars[i].ty.clone());
                let c = self.expr(&Ty::Scalar(Scalar::Bool), 2);
                let e1 = self.expr(&ty, 2);
                let e2 = self.expr(&ty, 2);
                if self.rng.chance(50) {
                    let _ = writeln!(
                        out,
                        "    if {c} {{\n        {name} = {e1};\n    }} else {{\n        {name} = {e2};\n    }}"
                    );
                    self.vars[i].known |= e1.known || e2.known;
                } else {
                    let _ = writeln!(out, "    if {c} {{\n        {name} = {e1};\n    }}");
                    self.vars[i].known |= e1.known;
                }
            }
            9 if !mutable.is_empty() => {
                let i = *self.rng.pick(&mutable);
                let (name, ty) = (self.vars[i].name.clone(), self.vars[i].ty.clone());
                if let Ty::Scalar(s) = ty
                    && s.is_numeric()
                {
                    let ops: &[&str] = if s.is_int() {
                        &["+=", "-=", "*=", "&=", "|=", "^="]
                    } else {
                        &["+=", "-=", "*=", "/="]
                    };
                    let op = *self.rng.pick(ops);
                    let e = self.expr(&ty, 2);
                    match wrapping_method(op) {
                        Some(m) if s.is_int() && self.vars[i].known && e.known => {
                            let _ = writeln!(out, "    {name} = {name}.{m}({e});");
                        }
                        _ => {
                            let _ = writeln!(out, "    {name} {op} {e};");
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The variables of type `ty` in scope.
    fn vars_of(&self, ty: &Ty) -> Vec<E> {
        self.vars
            .iter()
            .filter(|v| &v.ty == ty)
            .map(Local::expr)
            .collect()
    }

    fn expr(&mut self, ty: &Ty, depth: u32) -> E {
        match ty {
            Ty::Tuple(items) => {
                let vars = self.vars_of(ty);
                if !vars.is_empty() && self.rng.chance(40) {
                    return self.rng.pick(&vars).clone();
                }
                if depth > 0 && self.rng.chance(20) {
                    let c = self.expr(&Ty::Scalar(Scalar::Bool), depth - 1);
                    let a = self.expr(ty, depth - 1);
                    let b = self.expr(ty, depth - 1);
                    return E::new(
                        format!("(if {c} {{ {a} }} else {{ {b} }})"),
                        a.known || b.known,
                    );
                }
                let parts: Vec<E> = items
                    .iter()
                    .map(|s| self.expr(&Ty::Scalar(*s), depth.saturating_sub(1)))
                    .collect();
                let texts: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
                E::new(
                    format!("({})", texts.join(", ")),
                    parts.iter().any(|p| p.known),
                )
            }
            Ty::Scalar(s) => self.scalar(*s, depth),
        }
    }

    fn scalar(&mut self, t: Scalar, depth: u32) -> E {
        let ty = Ty::Scalar(t);
        if depth == 0 || self.rng.chance(15) {
            return self.leaf(t);
        }
        let d = depth - 1;
        if let Some(e) = self.shared(t, d) {
            return e;
        }
        match t {
            Scalar::Bool => self.bool_expr(d),
            s if s.is_int() => self.int_expr(s, d),
            s if s.is_half() => self.half_expr(s, d),
            s => self.float_expr(s, d),
        }
        .unwrap_or_else(|| {
            let vars = self.vars_of(&ty);
            if !vars.is_empty() {
                self.rng.pick(&vars).clone()
            } else {
                self.leaf(t)
            }
        })
    }

    /// The productions of every type: `if`, casts, blocks, `match`, tuple fields (`None` in the
    /// other cases, 7 of 12 or 8 for `bool`).
    fn shared(&mut self, t: Scalar, d: u32) -> Option<E> {
        Some(match self.rng.below(12) {
            0 => {
                let c = self.scalar(Scalar::Bool, d);
                let a = self.scalar(t, d);
                let b = self.scalar(t, d);
                E::new(
                    format!("(if {c} {{ {a} }} else {{ {b} }})"),
                    a.known || b.known,
                )
            }
            1 => {
                let from = if t.is_int() && self.rng.chance(10) {
                    Scalar::Bool
                } else {
                    *self.rng.pick(numeric())
                };
                // No `as` into `bool` or the halves (not primitives).
                if t == Scalar::Bool || t.is_half() {
                    return None;
                }
                let e = self.scalar(from, d);
                E::new(format!("({e} as {t})"), e.known)
            }
            2 => {
                // A block with a local.
                let lt = *self.rng.pick(&SCALARS);
                let init = self.scalar(lt, d);
                let name = self.fresh();
                self.vars
                    .push(Local::new(name.clone(), Ty::Scalar(lt), false, init.known));
                let body = self.scalar(t, d);
                self.vars.pop();
                E::new(
                    format!("{{ let {name}: {lt} = {init}; {body} }}"),
                    body.known,
                )
            }
            3 => {
                // match on an integer.
                let st = *self.rng.pick(ints());
                let scrut = self.scalar(st, d);
                let (l1, l2, l3) = (self.small_lit(st), self.small_lit(st), self.small_lit(st));
                let (lo, hi) = {
                    let (x, y) = (self.small_val(st), self.small_val(st));
                    (x.min(y), x.max(y))
                };
                let arms = [
                    self.scalar(t, d),
                    self.scalar(t, d),
                    self.scalar(t, d),
                    self.scalar(t, d),
                ];
                E::new(
                    format!(
                        "(match {scrut} {{ {l1} => {}, {l2} | {l3} => {}, {lo}{st}..={hi}{st} => {}, _ => {} }})",
                        arms[0], arms[1], arms[2], arms[3]
                    ),
                    arms.iter().any(|a| a.known),
                )
            }
            4 => {
                let tt = Ty::Tuple(vec![t, *self.rng.pick(&SCALARS)]);
                let tup = self.expr(&tt, d);
                E::new(format!("{tup}.0"), tup.known)
            }
            _ => return None,
        })
    }

    fn leaf(&mut self, t: Scalar) -> E {
        let vars = self.vars_of(&Ty::Scalar(t));
        if !vars.is_empty() && self.rng.chance(60) {
            return self.rng.pick(&vars).clone();
        }
        E::known(self.literal(t))
    }

    fn literal(&mut self, t: Scalar) -> String {
        match t {
            Scalar::Bool => (if self.rng.chance(50) { "true" } else { "false" }).into(),
            // The halves have no literals: a named constant, or a rounded f32/f64 literal.
            s if s.is_half() => match self.rng.below(4) {
                0 => self
                    .named_constant(s, |c| c.fuzz)
                    .unwrap_or_else(|| format!("{s}::ZERO")),
                1 if s == Scalar::BF16 => {
                    let x = self.literal(Scalar::F64);
                    format!("{s}::from_f64({x})")
                }
                _ => {
                    let x = self.literal(Scalar::F32);
                    format!("{s}::from_f32({x})")
                }
            },
            s if s.is_int() => {
                let (lo, hi) = s.int_range().expect("int");
                match self.rng.below(8) {
                    0 | 1 => self
                        .named_constant(s, |c| c.fuzz)
                        .unwrap_or_else(|| format!("0{s}")),
                    2 => format!("0{s}"),
                    3 if s.is_signed_int() => format!("(-1{s})"),
                    4 => format!("{}{s}", self.rng.below(8)),
                    _ => {
                        let span = (hi - lo) as u128 + 1;
                        let v = lo
                            + ((self.rng.next_u64() as u128 * 0x1_0000_0000
                                + self.rng.next_u64() as u128 % 0x1_0000_0000)
                                % span) as i128;
                        if v < 0 {
                            format!("({v}{s})")
                        } else {
                            format!("{v}{s}")
                        }
                    }
                }
            }
            s => match self.rng.below(10) {
                0 => self
                    .named_constant(s, |c| c.fuzz)
                    .unwrap_or_else(|| format!("0{s}")),
                1 => format!("(-0.0{s})"),
                2 => format!("{}.0{s}", self.rng.below(5)),
                3 => format!(
                    "1e-{}{s}",
                    if s == Scalar::F32 {
                        38 + self.rng.below(7)
                    } else {
                        300 + self.rng.below(20)
                    }
                ),
                4 => format!("{}.5{s}", self.rng.below(300)),
                5 => self
                    .named_constant(s, |c| c.path == ConstPath::Consts)
                    .unwrap_or_else(|| format!("0{s}")),
                _ => {
                    let m = (self.rng.next_u64() % 1_000_000) as f64 / 1e5;
                    let e = self.rng.below(21) as i32 - 10;
                    let neg = self.rng.chance(50);
                    let lit = format!("{m}e{e}{s}");
                    if neg { format!("(-{lit})") } else { lit }
                }
            },
        }
    }

    /// A small literal of an integer type, for patterns.
    fn small_lit(&mut self, t: Scalar) -> String {
        let v = self.small_val(t);
        format!("{v}{t}")
    }

    fn small_val(&mut self, t: Scalar) -> i128 {
        let v = self.rng.below(12) as i128;
        if t.is_signed_int() && self.rng.chance(30) {
            -v
        } else {
            v
        }
    }

    fn bool_expr(&mut self, d: u32) -> Option<E> {
        Some(match self.rng.below(9) {
            0..=2 => {
                let u = *self.rng.pick(&SCALARS);
                let a = self.scalar(u, d);
                let b = self.scalar(u, d);
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                E::new(format!("({a} {op} {b})"), a.known && b.known)
            }
            3 => {
                let a = self.scalar(Scalar::Bool, d);
                let b = self.scalar(Scalar::Bool, d);
                let op = *self.rng.pick(&["&&", "||", "&", "|", "^"]);
                // `&&` and `||` branch: either side may be the value.
                let known = if op.len() == 2 {
                    a.known || b.known
                } else {
                    a.known && b.known
                };
                E::new(format!("({a} {op} {b})"), known)
            }
            4 => {
                let a = self.scalar(Scalar::Bool, d);
                E::new(format!("(!{a})"), a.known)
            }
            _ => return self.builtin_call(Scalar::Bool, d),
        })
    }

    fn int_expr(&mut self, t: Scalar, d: u32) -> Option<E> {
        let signed = t.is_signed_int();
        let e = |g: &mut Gen| g.scalar(t, d);
        Some(match self.rng.below(16) {
            0..=3 => {
                let (a, b) = (e(self), e(self));
                let op = *self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
                match wrapping_method(op) {
                    // rustc would reject a known overflow: the same operation, as a call.
                    Some(m) if a.known && b.known => E::unknown(format!("({a}).{m}({b})")),
                    _ => E::new(format!("({a} {op} {b})"), a.known && b.known),
                }
            }
            4 => {
                // rustc sees the guard as well as the operands: a known `d` takes the branch
                // the guard allows.
                let (a, b) = (e(self), e(self));
                let op = *self.rng.pick(&["/", "%"]);
                let guard = if signed {
                    format!("d == 0{t} || d == -1{t}")
                } else {
                    format!("d == 0{t}")
                };
                E::new(
                    format!(
                        "{{ let n: {t} = {a}; let d: {t} = {b}; if {guard} {{ n }} else {{ n {op} d }} }}"
                    ),
                    a.known,
                )
            }
            5 => {
                let a = e(self);
                let st = *self.rng.pick(ints());
                let n = self.scalar(st, d);
                let op = *self.rng.pick(&["<<", ">>"]);
                let known = a.known && n.known;
                if n.known {
                    // A known amount of `t`'s width or more is rejected: mask it, as the
                    // shift does anyway without overflow checks.
                    let mask = t.bits() - 1;
                    E::new(format!("({a} {op} (({n}) & {mask}{st}))"), known)
                } else {
                    E::new(format!("({a} {op} {n})"), known)
                }
            }
            6 if signed => {
                let a = e(self);
                if a.known {
                    // `-(-128i8)` and `-i8::MIN` are rejected (an out-of-range literal, a
                    // known overflow).
                    E::unknown(format!("({a}).wrapping_neg()"))
                } else {
                    E::new(format!("(-{a})"), false)
                }
            }
            6 => {
                let a = e(self);
                E::new(format!("(!{a})"), a.known)
            }
            7..=13 => return self.builtin_call(t, d),
            _ => return None,
        })
    }

    fn float_expr(&mut self, t: Scalar, d: u32) -> Option<E> {
        let e = |g: &mut Gen| g.scalar(t, d);
        Some(match self.rng.below(14) {
            0..=3 => {
                let (a, b) = (e(self), e(self));
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                E::new(format!("({a} {op} {b})"), a.known && b.known)
            }
            4 => {
                let a = e(self);
                E::new(format!("(-{a})"), a.known)
            }
            5..=11 => return self.builtin_call(t, d),
            _ => return None,
        })
    }

    /// Expressions of `f16`/`bf16`: the `half` crate's arithmetic (through f32, rounded back;
    /// never known to rustc: they are calls), negation, and conversions from f32 (and f64 for
    /// bf16).
    fn half_expr(&mut self, t: Scalar, d: u32) -> Option<E> {
        let e = |g: &mut Gen| g.scalar(t, d);
        Some(match self.rng.below(13) {
            0..=3 => {
                let (a, b) = (e(self), e(self));
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                E::unknown(format!("({a} {op} {b})"))
            }
            4 => {
                let a = e(self);
                E::unknown(format!("(-{a})"))
            }
            5 | 6 => {
                let x = self.scalar(Scalar::F32, d);
                E::unknown(format!("{t}::from_f32({x})"))
            }
            7 if t == Scalar::BF16 => {
                let x = self.scalar(Scalar::F64, d);
                E::unknown(format!("{t}::from_f64({x})"))
            }
            7..=11 => return self.builtin_call(t, d),
            _ => return None,
        })
    }

    /// A call of a built-in (a row of [`METHODS`]) standing for a value of type `t`, following
    /// the row's [`Fuzz`] recipe; `None` when no row yields `t`. The row is drawn first, then
    /// its receiver type (see [`callers_of`]); a result of another type is cast to `t`.
    fn builtin_call(&mut self, t: Scalar, d: u32) -> Option<E> {
        let rows = callers_of(t);
        if rows.is_empty() {
            return None;
        }
        let (i, receivers) = self.rng.pick(&rows).clone();
        let r = *self.rng.pick(&receivers);
        self.calls[i] += 1;
        let m = &METHODS[i];
        let call = self.call(m, r, d);
        // rustc does not evaluate calls: the value is unknown to it.
        Some(E::unknown(if m.ret.of(r) == t {
            call
        } else {
            format!("({call} as {t})")
        }))
    }

    /// The call of row `m` on receiver type `r`: its operands (the receiver first, for a
    /// method) generated as its recipe says.
    fn call(&mut self, m: &Method, r: Scalar, d: u32) -> String {
        let mut tys = Vec::new();
        if m.form == Form::Method {
            tys.push(r);
        }
        // The operands from here on are the arguments after the receiver.
        let first_arg = tys.len();
        tys.extend(m.args.iter().map(|a| a.of(r)));
        let mut lets = String::new();
        let ops: Vec<String> = match m.fuzz {
            Fuzz::Any => tys.iter().map(|&s| self.scalar(s, d).text).collect(),
            Fuzz::NormalisedZeros => tys
                .iter()
                .map(|&s| {
                    let x = self.scalar(s, d).text;
                    // Rust's float `min`/`max` may return either zero: make both `+0.0`.
                    if s.is_float() {
                        format!("({x}) + 0.0{s}")
                    } else {
                        x
                    }
                })
                .collect(),
            Fuzz::OrderedBounds => {
                let mut ops: Vec<String> = tys[..first_arg]
                    .iter()
                    .map(|&s| self.scalar(s, d).text)
                    .collect();
                ops.extend(self.ordered_literals(&tys[first_arg..]));
                ops
            }
            Fuzz::SmallExponent => {
                let mut ops: Vec<String> = tys[..first_arg]
                    .iter()
                    .map(|&s| self.scalar(s, d).text)
                    .collect();
                for &s in &tys[first_arg..] {
                    let n = self.scalar(s, d).text;
                    ops.push(format!("({n}) % 40"));
                }
                ops
            }
            Fuzz::NoNan => tys
                .iter()
                .map(|&s| {
                    let x = self.scalar(s, d).text;
                    if !s.is_float() && !s.is_half() {
                        return x;
                    }
                    // The NaN's sign and payload are unspecified in Rust: replace it first.
                    let v = self.fresh();
                    let _ = write!(lets, "let {v}: {s} = {x}; ");
                    let one = if s.is_half() {
                        format!("{s}::ONE")
                    } else {
                        format!("1.0{s}")
                    };
                    format!("if {v}.is_nan() {{ {one} }} else {{ {v} }}")
                })
                .collect(),
            Fuzz::Never => unreachable!("`{}` is not generated", m.name),
        };
        // A method is also callable as an associated function (`f32::max(x, y)`).
        let text = if m.form == Form::Method && self.rng.chance(80) {
            format!("({}).{}({})", ops[0], m.name, ops[1..].join(", "))
        } else {
            format!("{r}::{}({})", m.name, ops.join(", "))
        };
        if lets.is_empty() {
            text
        } else {
            format!("{{ {lets}{text} }}")
        }
    }

    /// Literals of types `tys` (bounds, all of one type) in ascending order: small integers,
    /// or floats in `-10.0..10.0`.
    fn ordered_literals(&mut self, tys: &[Scalar]) -> Vec<String> {
        let Some(&t) = tys.first() else {
            return Vec::new();
        };
        if t.is_half() {
            // `from_f32` keeps the order (ties allowed: `clamp` takes `lo <= hi`).
            let mut vs: Vec<f32> = tys
                .iter()
                .map(|_| self.rng.below(2000) as f32 / 100.0 - 10.0)
                .collect();
            vs.sort_by(f32::total_cmp);
            return vs
                .iter()
                .zip(tys)
                .map(|(v, s)| format!("{s}::from_f32({v:?}f32)"))
                .collect();
        }
        if t.is_int() {
            let mut vs: Vec<i128> = tys.iter().map(|&s| self.small_val(s)).collect();
            vs.sort();
            vs.iter()
                .zip(tys)
                .map(|(v, s)| {
                    if *v < 0 {
                        format!("({v}{s})")
                    } else {
                        format!("{v}{s}")
                    }
                })
                .collect()
        } else {
            let mut vs: Vec<f64> = tys
                .iter()
                .map(|_| self.rng.below(2000) as f64 / 100.0 - 10.0)
                .collect();
            vs.sort_by(f64::total_cmp);
            vs.iter()
                .zip(tys)
                .map(|(v, s)| format!("{v:?}{s}"))
                .collect()
        }
    }

    /// A named constant of type `t` from the rows of [`CONSTANTS`] that `keep` admits
    /// (`T::MAX`, `f32::NAN`, `std::f64::consts::PI`, `i64::BITS` for a `u32`): the row is drawn
    /// first, then the type it is named on.
    fn named_constant(&mut self, t: Scalar, keep: impl Fn(&Constant) -> bool) -> Option<String> {
        let rows: Vec<(&Constant, Vec<Scalar>)> = CONSTANTS
            .iter()
            .filter(|c| keep(c))
            .filter_map(|c| {
                let owners: Vec<Scalar> = SCALARS
                    .iter()
                    .copied()
                    .filter(|&o| c.on.admits(o) && (c.value)(o).1 == t)
                    .collect();
                (!owners.is_empty()).then_some((c, owners))
            })
            .collect();
        if rows.is_empty() {
            return None;
        }
        let (c, owners) = self.rng.pick(&rows);
        let owner = *self.rng.pick(owners);
        Some(match c.path {
            ConstPath::Assoc => format!("{owner}::{}", c.name),
            ConstPath::Consts => format!("std::{owner}::consts::{}", c.name),
        })
    }
}

/// The `wrapping_*` method that computes integer operator `op` (`+` or `+=`) as it does without
/// overflow checks, for the operators that can overflow.
fn wrapping_method(op: &str) -> Option<&'static str> {
    match op.trim_end_matches('=') {
        "+" => Some("wrapping_add"),
        "-" => Some("wrapping_sub"),
        "*" => Some("wrapping_mul"),
        _ => None,
    }
}

/// The rows of [`METHODS`] the fuzzer may call for a value of type `t` (every row but those
/// marked [`Fuzz::Never`]), each with the receiver types to call it on. A row whose result type
/// is its receiver's (`max`, `sqrt`, `from_bits`) is called on `t` itself; any other row
/// (`count_ones`, `to_bits`, `is_nan`) on every receiver it admits whose result is `t` or, when
/// `t` is numeric, any number (cast to `t` then).
fn callers_of(t: Scalar) -> Vec<(usize, Vec<Scalar>)> {
    METHODS
        .iter()
        .enumerate()
        .filter(|(_, m)| m.fuzz != Fuzz::Never)
        .filter_map(|(i, m)| {
            let admitted = SCALARS.iter().copied().filter(|&r| m.receivers.admits(r));
            let same = admitted.clone().all(|r| m.ret.of(r) == r);
            let receivers: Vec<Scalar> = admitted
                .filter(|&r| {
                    let out = m.ret.of(r);
                    if same {
                        r == t
                    } else {
                        out == t || (t.is_numeric() && out.is_numeric())
                    }
                })
                .collect();
            (!receivers.is_empty()).then_some((i, receivers))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table drives the fuzzer: every row not marked `Never` is called, and its name is
    /// in the programs.
    #[test]
    fn every_fuzzed_row_is_generated() {
        let mut calls = vec![0u32; METHODS.len()];
        let mut text = String::new();
        for i in 0..3000 {
            let mut g = Gen::new(5, i);
            text.push_str(&g.program(&format!("fz_{i}")).source);
            for (n, c) in calls.iter_mut().zip(&g.calls) {
                *n += c;
            }
        }
        for (m, n) in METHODS.iter().zip(&calls) {
            if m.fuzz == Fuzz::Never {
                assert_eq!(*n, 0, "`{}` is marked Never", m.name);
                continue;
            }
            assert!(*n > 0, "`{}` was never generated", m.name);
            let (dot, path) = (format!(".{}(", m.name), format!("::{}(", m.name));
            assert!(
                text.contains(&dot) || text.contains(&path),
                "`{}` not in the programs",
                m.name
            );
        }
    }

    /// Regression: seed 771 wrote `(-(-128i8))`, which rustc rejects (`-(-128i8)` reads the
    /// literal `128i8`, out of range); a known operand of `-` is negated with `wrapping_neg`.
    #[test]
    fn no_negated_negative_int_literal() {
        for p in generate(771, 4000) {
            let negated_int_literal = p.source.match_indices("-(-").any(|(i, _)| {
                let rest = &p.source[i + 3..];
                let digits = rest.chars().take_while(char::is_ascii_digit).count();
                digits > 0 && rest[digits..].starts_with(['i', 'u'])
            });
            assert!(!negated_int_literal, "{}", p.source);
        }
    }

    /// The named constants of the table's `fuzz` rows are all written.
    #[test]
    fn fuzzed_constants_are_generated() {
        let text: String = generate(5, 3000).into_iter().map(|p| p.source).collect();
        for c in CONSTANTS.iter().filter(|c| c.fuzz) {
            assert!(text.contains(&format!("::{}", c.name)), "`{}`", c.name);
        }
    }
}
