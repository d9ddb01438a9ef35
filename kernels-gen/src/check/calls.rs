//! Paths (variables and named constants), casts, and calls of the built-ins (methods and
//! associated functions), looked up in `warp_kernels::builtins`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use warp_kernels::builtins::{self, Builtin, ConstPath, Form};
use warp_kernels::ir::{Expr, ExprKind, Lit};
use warp_kernels::types::{Scalar, Ty};

use super::infer::{ITy, VarKind};
use super::{Checker, error_expr};

impl Checker<'_> {
    /// A variable, or a named constant of the table (`T::MAX`, `std::f32::consts::PI`).
    pub(super) fn check_path(&mut self, p: &syn::ExprPath, line: u32) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
        if p.qself.is_some() {
            let ty = self.err(p.span(), "qualified paths are not supported");
            return mk(ExprKind::Lit(Lit::Bool(false)), ty);
        }
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.len() == 1 {
            let name = &segs[0];
            return match self.lookup(name) {
                Some(id) => {
                    let ty = self.vars[id].ty.clone();
                    mk(ExprKind::Var(id), ty)
                }
                None => {
                    let ty = self.err(p.span(), format!("cannot find value `{name}` in this scope; the body sees its parameters and its own `let`s (no globals, no `const`s)"));
                    mk(ExprKind::Lit(Lit::Bool(false)), ty)
                }
            };
        }
        let strs: Vec<&str> = segs.iter().map(String::as_str).collect();
        let found = match strs.as_slice() {
            [t, name] | ["std" | "core", t, name] => {
                Scalar::from_rust(t).and_then(|s| builtins::constant(s, name, ConstPath::Assoc))
            }
            ["std" | "core", t, "consts", name] => {
                Scalar::from_rust(t).and_then(|s| builtins::constant(s, name, ConstPath::Consts))
            }
            _ => None,
        };
        match found {
            Some((lit, s)) => mk(ExprKind::Lit(lit), ITy::S(s)),
            None => {
                let ty = self.err(p.span(), format!(
                    "unsupported path `{}`; the DSL knows `T::MIN`, `T::MAX`, `T::BITS`, `f32::INFINITY`/`NEG_INFINITY`/`NAN`/`EPSILON`/`MIN_POSITIVE` and `std::f32::consts::*` (and the same for `f64`)",
                    strs.join("::")
                ));
                mk(ExprKind::Lit(Lit::Bool(false)), ty)
            }
        }
    }

    /// `x as T` for scalar `T` other than `bool`.
    pub(super) fn check_cast(&mut self, c: &syn::ExprCast, line: u32) -> Expr<ITy> {
        let target = match crate::structs::parse_type(&c.ty) {
            Ok(Ty::Scalar(s)) => Some(s),
            Ok(Ty::Tuple(_)) => {
                self.err(
                    c.ty.span(),
                    "casts to tuples are not supported; cast each element",
                );
                None
            }
            Err(err) => {
                self.diags.push(err);
                None
            }
        };
        // rustc lets a cast's target type choose the type of a literal operand
        // (`300 as u8` is a u8 literal), but does not push it into branches.
        let hint = target.map(ITy::S).filter(|_| is_literal_like(&c.expr));
        let inner = self.check_expr(&c.expr, hint.as_ref());
        let Some(target) = target else {
            return error_expr(line);
        };
        if target == Scalar::Bool {
            self.err(
                c.ty.span(),
                "cannot cast to `bool`; compare instead (`x != 0`)",
            );
            return error_expr(line);
        }
        match self.shallow(&inner.ty) {
            ITy::S(from) if from.is_half() || target.is_half() => {
                let (h, other) = if from.is_half() {
                    (from, target)
                } else {
                    (target, from)
                };
                let how = if from.is_half() {
                    format!("`x.to_f32()` or `x.to_f64()`, then `as {other}` if needed")
                } else if h == Scalar::BF16 {
                    format!("`{h}::from_f32(x)` or `{h}::from_f64(x)`")
                } else {
                    format!("`{h}::from_f32(x as f32)`")
                };
                self.err(
                    c.span(),
                    format!("`as` does not convert `{h}` (the `half` crate's types are not primitives); use {how}"),
                );
            }
            ITy::S(Scalar::Bool) if target.is_float() => {
                self.err(c.span(), format!("casting `bool` as `{target}` is invalid; cast to an integer first (`b as u8 as {target}`)"));
            }
            ITy::Tuple(_) | ITy::Struct(..) => {
                self.err(
                    c.expr.span(),
                    "cannot cast a tuple or a struct; cast each element",
                );
            }
            _ => {}
        }
        Expr {
            kind: ExprKind::Cast(Box::new(inner)),
            ty: ITy::S(target),
            line,
        }
    }

    /// `recv.name(args)`.
    pub(super) fn check_method(&mut self, m: &syn::ExprMethodCall, line: u32) -> Expr<ITy> {
        if m.turbofish.is_some() {
            self.err(m.method.span(), "turbofish (`::<>`) is not supported");
        }
        let recv = self.check_expr(&m.receiver, None);
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        self.builtin_call(&m.method.to_string(), m.method.span(), recv, &args, line)
    }

    /// The built-in method `name` on the checked receiver `recv`.
    fn builtin_call(
        &mut self,
        name: &str,
        name_span: Span,
        recv: Expr<ITy>,
        args: &[&syn::Expr],
        line: u32,
    ) -> Expr<ITy> {
        let recv_ty = self.shallow(&recv.ty);
        let s = match recv_ty {
            ITy::S(s) => s,
            ITy::Error => return error_expr(line),
            ITy::Var(v) => {
                let kind = match self.tvars[v as usize].kind {
                    VarKind::Int => "{integer}",
                    VarKind::Float => "{float}",
                };
                self.err(name_span, format!("can't call method `{name}` on ambiguous numeric type `{kind}`; give the literal a suffix (`2.0_f32`) or a typed `let`"));
                return error_expr(line);
            }
            ITy::Tuple(_) => {
                self.err(name_span, format!("no method `{name}` on tuples"));
                return error_expr(line);
            }
            ITy::Struct(..) => {
                let msg = format!(
                    "no method `{name}` on `{}`: a struct's fields are read by name (`s.field`)",
                    super::infer::ShowTy(self, &recv_ty)
                );
                self.err(name_span, msg);
                return error_expr(line);
            }
        };
        let Some(builtin) = Builtin::lookup(name, Form::Method, s) else {
            self.err(
                name_span,
                format!(
                    "method `{name}` is not supported on `{s}`; the methods of `{s}` are: {}",
                    builtins::method_names(s)
                ),
            );
            return error_expr(line);
        };
        self.builtin_args(builtin, name_span, s, vec![recv], args, line)
    }

    /// Checks the arguments of `builtin` for receiver type `s` (`all` holds the receiver of a
    /// method, nothing for an associated function) against its row of the table.
    fn builtin_args(
        &mut self,
        builtin: Builtin,
        name_span: Span,
        s: Scalar,
        mut all: Vec<Expr<ITy>>,
        args: &[&syn::Expr],
        line: u32,
    ) -> Expr<ITy> {
        let m = builtin.method();
        if args.len() != m.args.len() {
            self.err(
                name_span,
                format!(
                    "`{}` takes {} argument(s), found {}",
                    m.name,
                    m.args.len(),
                    args.len()
                ),
            );
            return error_expr(line);
        }
        for (a, at) in args.iter().zip(m.args) {
            let want = ITy::S(at.of(s));
            let x = self.check_expr(a, Some(&want));
            self.unify(&want, &x.ty.clone(), a.span());
            all.push(x);
        }
        Expr {
            kind: ExprKind::Call(builtin, all),
            ty: ITy::S(m.ret.of(s)),
            line,
        }
    }

    /// `f(args)`: only the associated-function spelling of the built-ins (`f32::max(a, b)`,
    /// `f32::from_bits(u)`).
    pub(super) fn check_call(&mut self, c: &syn::ExprCall, line: u32) -> Expr<ITy> {
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            // `T::name` (also `half::f16::name`).
            let path = match segs.as_slice() {
                [k, t, name] if k == "half" => Some((t, name)),
                [t, name] => Some((t, name)),
                _ => None,
            };
            if let Some((t, name)) = path
                && let Some(s) = Scalar::from_rust(t)
            {
                let args: Vec<&syn::Expr> = c.args.iter().collect();
                let name_span = p
                    .path
                    .segments
                    .last()
                    .map_or(c.func.span(), |s| s.ident.span());
                if let Some(b) = Builtin::lookup(name, Form::Assoc, s) {
                    return self.builtin_args(b, name_span, s, Vec::new(), &args, line);
                }
                if Builtin::lookup(name, Form::Method, s).is_some() && !args.is_empty() {
                    let recv = self.check_expr(args[0], Some(&ITy::S(s)));
                    self.unify(&ITy::S(s), &recv.ty.clone(), args[0].span());
                    return self.builtin_call(name, name_span, recv, &args[1..], line);
                }
                if s == Scalar::F16 && name == "from_f64" {
                    self.err(
                        name_span,
                        "`f16::from_f64` is not supported: `half` rounds it through f32 on x86-64 CPUs with F16C and directly elsewhere, so the result depends on the CPU; write `f16::from_f32(x as f32)`",
                    );
                    return error_expr(line);
                }
                if s.is_half() {
                    self.err(
                        name_span,
                        format!("`{s}::{name}` is not supported; the associated functions of `{s}` are from_f32{}, from_bits (and its methods called as `{s}::max(a, b)`)", if s == Scalar::BF16 { ", from_f64" } else { "" }),
                    );
                    return error_expr(line);
                }
            }
        }
        self.err(
            c.func.span(),
            "calls to other functions are not supported: the body is compiled to one CUDA function; inline the computation, or use a built-in method (`x.max(y)`, `x.sqrt()`, ...)",
        );
        error_expr(line)
    }
}

/// A literal, possibly parenthesised or negated (what a cast's hint reaches).
fn is_literal_like(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => is_literal_like(&p.expr),
        syn::Expr::Group(g) => is_literal_like(&g.expr),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && is_literal_like(&u.expr),
        _ => false,
    }
}
