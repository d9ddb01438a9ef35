//! Stage 3, lower: typed IR in, the text of one CUDA `__device__` function out, computing what
//! the Rust function computes (wrapping integers, masked shifts, saturating casts, NaN-dropping
//! min/max), with value `if`s as selects and `#line` directives back to the Rust source.

use std::collections::HashSet;
use std::fmt::Write;

use crate::builtins::Form;
use crate::ir::{BinOp, Block, Expr, ExprKind, Function, Lit, Stmt, UnOp, VarId};
use crate::types::{Scalar, Ty};

/// Marker line the emitter replaces with a `#line` back to the generated file.
pub const LINE_RESET_MARKER: &str = "#line WD_RESET";

/// Lowers `f` to a CUDA device function named `c_name`.
pub fn lower_function(f: &Function, c_name: &str) -> String {
    let mut l = Lowerer::new(f);
    let params: Vec<String> = f
        .params
        .iter()
        .map(|&p| format!("{} {}", f.vars[p].ty.c_reg(), l.names[p]))
        .collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "// `{}` from {}:{}",
        f.name,
        if f.file.is_empty() {
            "<unknown>"
        } else {
            &f.file
        },
        f.line
    );
    let _ = writeln!(
        text,
        "static __device__ __forceinline__ {} {}({}) {{",
        f.ret.c_reg(),
        c_name,
        params.join(", ")
    );
    l.indent = 1;
    // 8- and 16-bit parameters become opaque 32-bit registers (see `wd_opaque`).
    for &p in &f.params {
        if let Some(s) = f.vars[p].ty.scalar()
            && s.c_reg() != s.c_name()
        {
            let name = l.names[p].clone();
            l.push(&format!("{name} = wd_opaque({name});"));
        }
    }
    let value = l.block_value(&f.body);
    l.line(f.body.value.line);
    // An 8- or 16-bit result leaves as an opaque 32-bit register (see `wd_opaque`).
    let value = match f.ret.scalar() {
        Some(s) if s.c_reg() != s.c_name() => format!("wd_opaque({value})"),
        _ => value,
    };
    l.push(&format!("return {value};"));
    text.push_str(&l.out);
    text.push_str(LINE_RESET_MARKER);
    text.push_str("\n}\n");
    text
}

/// A C literal of `ty` holding `lit` (exact: floats that are not short binary fractions are
/// written in hexadecimal, with the decimal in a comment).
pub fn c_literal(lit: Lit, ty: Scalar) -> String {
    match lit {
        Lit::Bool(b) => b.to_string(),
        Lit::Int(v) => int_literal(v, ty),
        Lit::Float(v) if ty.is_float() => float_literal(v, ty),
        Lit::Float(v) => int_literal(v as i128, ty),
    }
}

fn int_literal(v: i128, ty: Scalar) -> String {
    match ty {
        // A half's constant is its bits.
        Scalar::F16 | Scalar::BF16 => format!("wd_half_bits<{}>(0x{v:04x}u)", ty.c_name()),
        Scalar::Bool => (v != 0).to_string(),
        Scalar::I32 if v == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        Scalar::I64 if v == i64::MIN as i128 => "(-9223372036854775807ll - 1)".into(),
        Scalar::I32 if v < 0 => format!("({v})"),
        Scalar::I32 => format!("{v}"),
        Scalar::U32 => format!("{v}u"),
        Scalar::I64 if v < 0 => format!("({v}ll)"),
        Scalar::I64 => format!("{v}ll"),
        Scalar::U64 => format!("{v}ull"),
        Scalar::F32 | Scalar::F64 => float_literal(v as f64, ty),
        // 8- and 16-bit values live in 32-bit registers.
        Scalar::I8 | Scalar::I16 if v < 0 => format!("({v})"),
        Scalar::I8 | Scalar::I16 => format!("{v}"),
        _ => format!("{v}u"),
    }
}

fn float_literal(v: f64, ty: Scalar) -> String {
    let is32 = ty == Scalar::F32;
    let suffix = if is32 { "f" } else { "" };
    if v.is_nan() || v.is_infinite() {
        return if is32 {
            format!("__int_as_float(0x{:08x})", (v as f32).to_bits())
        } else {
            format!("__longlong_as_double(0x{:016x}ll)", v.to_bits())
        };
    }
    let neg = v.is_sign_negative();
    let a = v.abs();
    let scaled = a * 256.0;
    let text = if scaled.fract() == 0.0 && scaled < (1u64 << 24) as f64 {
        // A short binary fraction: its decimal expansion is exact, so no parser rounds it.
        let mut s = format!("{a:.8}");
        while s.ends_with('0') && !s.ends_with(".0") {
            s.pop();
        }
        format!("{s}{suffix}")
    } else {
        format!(
            "{}{suffix} /* {} */",
            hex_float(a, is32),
            if is32 {
                format!("{:?}", a as f32)
            } else {
                format!("{a:?}")
            }
        )
    };
    if neg { format!("(-{text})") } else { text }
}

/// C99/C++17 hexadecimal spelling of a finite, non-negative float.
fn hex_float(a: f64, is32: bool) -> String {
    if is32 {
        let bits = (a as f32).to_bits();
        let exp = ((bits >> 23) & 0xff) as i32;
        let mant = bits & 0x7f_ffff;
        let (lead, e) = if exp == 0 { (0, -126) } else { (1, exp - 127) };
        let digits = format!("{:06x}", mant << 1);
        format!("0x{lead}.{}p{e:+}", trim_zeros(&digits))
    } else {
        let bits = a.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let mant = bits & ((1u64 << 52) - 1);
        let (lead, e) = if exp == 0 {
            (0, -1022)
        } else {
            (1, exp - 1023)
        };
        let digits = format!("{mant:013x}");
        format!("0x{lead}.{}p{e:+}", trim_zeros(&digits))
    }
}

fn trim_zeros(s: &str) -> &str {
    let t = s.trim_end_matches('0');
    if t.is_empty() { "0" } else { t }
}

const C_RESERVED: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "class",
    "delete",
    "new",
    "namespace",
    "operator",
    "private",
    "protected",
    "public",
    "template",
    "this",
    "throw",
    "try",
    "catch",
    "typename",
    "virtual",
    "friend",
    "mutable",
    "explicit",
    "export",
    "asm",
    "and",
    "or",
    "not",
    "xor",
    "bitand",
    "bitor",
    "compl",
    "and_eq",
    "or_eq",
    "xor_eq",
    "not_eq",
    "nullptr",
    "constexpr",
    "decltype",
    "noexcept",
    "static_assert",
    "thread_local",
    "alignas",
    "alignof",
    "char16_t",
    "char32_t",
    "wchar_t",
    "true",
    "false",
    "min",
    "max",
    "abs",
    "warpSize",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
];

struct Lowerer<'f> {
    f: &'f Function,
    names: Vec<String>,
    out: String,
    indent: usize,
    temps: usize,
    /// Rust line the next pushed C lines come from (0: unknown).
    desired: u32,
    /// Rust line the next C line maps to under the last `#line` (None: unknown).
    mapped_next: Option<u32>,
}

impl<'f> Lowerer<'f> {
    fn new(f: &'f Function) -> Self {
        let mut used = HashSet::new();
        let mut names = Vec::new();
        for v in &f.vars {
            let mut base = v.name.trim_start_matches("r#").to_string();
            if base == "tmp"
                || base.starts_with("wd_")
                || base.starts_with("__")
                || C_RESERVED.contains(&base.as_str())
            {
                base.push('_');
            }
            let mut name = base.clone();
            let mut k = 1;
            while !used.insert(name.clone()) {
                k += 1;
                name = format!("{base}_{k}");
            }
            names.push(name);
        }
        Lowerer {
            f,
            names,
            out: String::new(),
            indent: 0,
            temps: 0,
            desired: 0,
            mapped_next: None,
        }
    }

    fn push(&mut self, s: &str) {
        if self.desired != 0 && !self.f.file.is_empty() && self.mapped_next != Some(self.desired) {
            let _ = writeln!(
                self.out,
                "#line {} \"{}\"",
                self.desired,
                self.f.file.replace('\\', "/")
            );
        }
        if self.desired != 0 {
            self.mapped_next = Some(self.desired + 1);
        }
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// Points the following C lines at Rust source line `line` (a `#line` directive is written
    /// only where the numbering would otherwise drift).
    fn line(&mut self, line: u32) {
        if line != 0 {
            self.desired = line;
        }
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("wd_t{}", self.temps)
    }

    /// Runs `body` with a fresh output buffer; returns what it wrote and its result.
    fn capture<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> (String, R) {
        let saved = std::mem::take(&mut self.out);
        self.mapped_next = None;
        let r = body(self);
        let written = std::mem::replace(&mut self.out, saved);
        self.mapped_next = None;
        (written, r)
    }

    fn block_value(&mut self, b: &Block) -> String {
        for s in &b.stmts {
            self.stmt(s);
        }
        self.expr(&b.value)
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { var, init, line } => {
                let v = self.expr(init);
                self.line(*line);
                let var_info = &self.f.vars[*var];
                let constness = if var_info.mutable { "" } else { "const " };
                let decl = format!(
                    "{constness}{} {} = {v};",
                    var_info.ty.c_reg(),
                    self.names[*var]
                );
                self.push(&decl);
            }
            Stmt::Assign { var, value, line } => {
                let v = self.expr(value);
                self.line(*line);
                let s = format!("{} = {v};", self.names[*var]);
                self.push(&s);
            }
            Stmt::If {
                cond,
                then,
                els,
                line,
            } => {
                let c = self.expr(cond);
                self.line(*line);
                self.push(&format!("if ({c}) {{"));
                self.indent += 1;
                for s in then {
                    self.stmt(s);
                }
                self.indent -= 1;
                if !els.is_empty() {
                    self.push("} else {");
                    self.indent += 1;
                    for s in els {
                        self.stmt(s);
                    }
                    self.indent -= 1;
                }
                self.push("}");
            }
        }
    }

    /// Lowers operands left to right; when a later operand assigns variables, earlier ones are
    /// first saved in temporaries so they keep Rust's evaluation order.
    fn operands(&mut self, items: &[&Expr]) -> Vec<String> {
        let mut out = Vec::with_capacity(items.len());
        for (i, e) in items.iter().enumerate() {
            let s = self.expr(e);
            let later_effects = items[i + 1..].iter().any(|x| x.has_effects());
            if later_effects && !matches!(e.kind, ExprKind::Lit(_)) {
                let t = self.temp();
                let decl = format!("const {} {t} = {s};", e.ty.c_reg());
                self.push(&decl);
                out.push(t);
            } else {
                out.push(s);
            }
        }
        out
    }

    fn expr(&mut self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(l) => c_literal(*l, e.scalar()),
            ExprKind::Var(v) => self.names[*v].clone(),
            ExprKind::Unary(op, a) => {
                let s = self.expr(a);
                let t = a.scalar();
                match (op, t.is_float() || t.is_half(), t == Scalar::Bool) {
                    (UnOp::Neg, true, _) => format!("(-{s})"),
                    (UnOp::Neg, false, _) => format!("wd_neg<{}>({s})", t.c_name()),
                    (UnOp::Not, _, true) => format!("(!{s})"),
                    (UnOp::Not, _, false) => format!("wd_not<{}>({s})", t.c_name()),
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::Cast(a) => {
                let s = self.expr(a);
                cast(&s, a.scalar(), e.scalar())
            }
            ExprKind::Call(b, args) => {
                let refs: Vec<&Expr> = args.iter().collect();
                let ops = self.operands(&refs);
                let m = b.method();
                // The type the built-in is of: its receiver, or the type of `T::from_bits(..)`.
                let t = match m.form {
                    Form::Method => args[0].scalar(),
                    Form::Assoc => e.scalar(),
                };
                match m.lower.spell(t) {
                    Some(spell) => spell.render(&ops, t),
                    None => {
                        unreachable!("kernels-gen bug: `{}` on `{t}` passed the checker", m.name)
                    }
                }
            }
            ExprKind::If(c, a, b) => {
                let cs = self.expr(c);
                let (sa, va) = self.capture(|l| l.block_value(a));
                let (sb, vb) = self.capture(|l| l.block_value(b));
                if sa.is_empty() && sb.is_empty() {
                    // Both arms are plain values: a select, no branch.
                    format!("({cs} ? {va} : {vb})")
                } else {
                    let t = self.temp();
                    let decl = format!("{} {t};", e.ty.c_reg());
                    self.push(&decl);
                    self.push(&format!("if ({cs}) {{"));
                    self.out.push_str(&indent_text(&sa, 1));
                    self.mapped_next = None;
                    self.indent += 1;
                    self.push(&format!("{t} = {va};"));
                    self.indent -= 1;
                    self.push("} else {");
                    self.out.push_str(&indent_text(&sb, 1));
                    self.mapped_next = None;
                    self.indent += 1;
                    self.push(&format!("{t} = {vb};"));
                    self.indent -= 1;
                    self.push("}");
                    self.mapped_next = None;
                    t
                }
            }
            ExprKind::Tuple(items) => {
                let refs: Vec<&Expr> = items.iter().collect();
                let ops = self.operands(&refs);
                format!(
                    "wd_make_{}({})",
                    e.ty.c_name().trim_start_matches("wd_"),
                    ops.join(", ")
                )
            }
            ExprKind::Field(a, i) => {
                let s = self.expr(a);
                match e.ty.scalar() {
                    // A narrow field is widened to its register type where it is read.
                    Some(t) if t.c_reg() != t.c_name() => {
                        format!("wd_opaque(({})({s}.f{i}))", t.c_reg())
                    }
                    _ => format!("{s}.f{i}"),
                }
            }
            ExprKind::Block(b) => self.block_value(b),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> String {
        if matches!(op, BinOp::And | BinOp::Or) && b.has_effects() {
            // Short-circuit with assignments on the right: keep the branch.
            let l = self.expr(a);
            let t = self.temp();
            self.push(&format!("bool {t} = {l};"));
            let guard = if op == BinOp::And {
                t.clone()
            } else {
                format!("!{t}")
            };
            self.push(&format!("if ({guard}) {{"));
            self.indent += 1;
            let r = self.expr(b);
            self.push(&format!("{t} = {r};"));
            self.indent -= 1;
            self.push("}");
            return t;
        }
        let ops = self.operands(&[a, b]);
        let (l, r) = (&ops[0], &ops[1]);
        let t = a.scalar();
        let c_op = op.rust();
        let tn = t.c_name();
        match op {
            BinOp::And => format!("({l} & {r})"),
            BinOp::Or => format!("({l} | {r})"),
            _ if op.is_comparison() => format!("({l} {c_op} {r})"),
            // f16/bf16: the prelude's operators (through f32, rounded back, as `half` does).
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem if t.is_half() => {
                format!("({l} {c_op} {r})")
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul if t.is_float() => format!("({l} {c_op} {r})"),
            BinOp::Div if t.is_float() => format!("({l} / {r})"),
            BinOp::Rem if t.is_float() => {
                format!(
                    "{}({l}, {r})",
                    if t == Scalar::F32 { "fmodf" } else { "fmod" }
                )
            }
            BinOp::Add => format!("wd_add<{tn}>({l}, {r})"),
            BinOp::Sub => format!("wd_sub<{tn}>({l}, {r})"),
            BinOp::Mul => format!("wd_mul<{tn}>({l}, {r})"),
            BinOp::Div => format!("wd_div<{tn}>({l}, {r})"),
            BinOp::Rem => format!("wd_rem<{tn}>({l}, {r})"),
            BinOp::BitXor if t == Scalar::Bool => format!("({l} != {r})"),
            BinOp::BitAnd | BinOp::BitOr if t == Scalar::Bool => format!("({l} {c_op} {r})"),
            // Bitwise operations keep canonical register values canonical.
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => format!("({l} {c_op} {r})"),
            BinOp::Shl => format!("wd_shl<{tn}>({l}, (wd_u32)({r}))"),
            BinOp::Shr => format!("wd_shr<{tn}>({l}, (wd_u32)({r}))"),
            _ => unreachable!("comparisons and logic handled above"),
        }
    }
}

fn indent_text(s: &str, levels: usize) -> String {
    let pad = "    ".repeat(levels);
    s.lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("{l}\n")
            } else {
                format!("{pad}{l}\n")
            }
        })
        .collect()
}

/// `x as to`, with Rust's rules.
fn cast(x: &str, from: Scalar, to: Scalar) -> String {
    if from == to {
        return x.to_string();
    }
    if from.is_float() && to.is_int() {
        // Saturating, NaN -> 0.
        return format!("wd_ftoi_{}({x})", to.rust_name());
    }
    if to.is_int() {
        // Truncation or extension, to a canonical register value.
        return format!("wd_cast<{}>({x})", to.c_name());
    }
    format!("(({})({x}))", to.c_name())
}

/// The variables a function's parameters are bound to (for tests and tools).
pub fn param_names(f: &Function) -> Vec<String> {
    let l = Lowerer::new(f);
    f.params
        .iter()
        .map(|&p: &VarId| l.names[p].clone())
        .collect()
}

/// The C spelling of a value of type `ty` built from C expressions (tuples use their maker).
pub fn make_value(ty: &Ty, parts: &[String]) -> String {
    match ty {
        Ty::Scalar(_) => parts[0].clone(),
        Ty::Tuple(_) => format!(
            "wd_make_{}({})",
            ty.c_name().trim_start_matches("wd_"),
            parts.join(", ")
        ),
    }
}
