//! Literals: their types and values, the deferred range checks, and the final literal folding.

use std::collections::HashMap;

use warp_kernels::ir::visit::{self, Fold};
use warp_kernels::ir::{Block, Expr, ExprKind, Lit, UnOp};
use warp_kernels::types::{Scalar, Ty};

use super::infer::{ITy, VarKind};
use super::{Checker, Deferred};

impl Checker<'_> {
    /// Records a sign change of an integer literal checked as `old` (the range check then sees `new`).
    pub(super) fn retarget_int_lit(&mut self, old: i128, new: i128) {
        if let Some(Deferred::IntLit { value, .. }) = self
            .deferred
            .iter_mut()
            .rev()
            .find(|d| matches!(d, Deferred::IntLit { value, .. } if *value == old))
        {
            *value = new;
        }
    }

    pub(super) fn check_lit(
        &mut self,
        lit: &syn::Lit,
        expected: Option<&ITy>,
        line: u32,
    ) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
        match lit {
            syn::Lit::Bool(b) => mk(ExprKind::Lit(Lit::Bool(b.value)), ITy::S(Scalar::Bool)),
            syn::Lit::Int(i) => self.check_int_lit(i, expected, line),
            syn::Lit::Float(f) => self.check_float_lit(f, expected, line),
            syn::Lit::Byte(b) => mk(
                ExprKind::Lit(Lit::Int(b.value() as i128)),
                ITy::S(Scalar::U8),
            ),
            syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_) => {
                let ty = self.err(lit.span(), "strings are not supported on the GPU; the DSL computes with numbers, bools and tuples");
                mk(ExprKind::Lit(Lit::Bool(false)), ty)
            }
            syn::Lit::Char(_) => {
                let ty = self.err(
                    lit.span(),
                    "`char` is not supported; use a `u32` or `u8` code",
                );
                mk(ExprKind::Lit(Lit::Bool(false)), ty)
            }
            _ => {
                let ty = self.err(lit.span(), "unsupported literal");
                mk(ExprKind::Lit(Lit::Bool(false)), ty)
            }
        }
    }

    /// An integer literal (`1f32` is a float literal); its range is checked once its type is
    /// final.
    fn check_int_lit(&mut self, i: &syn::LitInt, expected: Option<&ITy>, line: u32) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
        let ty = match i.suffix() {
            "" => match expected.and_then(|t| self.known_scalar(t)) {
                Some(s) if s.is_int() => ITy::S(s),
                _ => match expected.map(|t| self.shallow(t)) {
                    Some(v @ ITy::Var(_)) if self.var_kind(&v) == Some(VarKind::Int) => v,
                    _ => self.new_var(VarKind::Int),
                },
            },
            suf => match Scalar::from_rust(suf) {
                Some(s) if s.is_numeric() => ITy::S(s),
                _ => {
                    let ty = self.err(i.span(), format!("unsupported literal suffix `{suf}`; use one of i8..i64, u8..u64, f32, f64"));
                    return mk(ExprKind::Lit(Lit::Int(0)), ty);
                }
            },
        };
        if let ITy::S(s) = &ty
            && s.is_float()
        {
            // `1f32` is a float literal.
            let v: f64 = i.base10_digits().parse().unwrap_or(0.0);
            let v = if *s == Scalar::F32 {
                v as f32 as f64
            } else {
                v
            };
            return mk(ExprKind::Lit(Lit::Float(v)), ty);
        }
        let value: i128 = match i.base10_digits().parse() {
            Ok(v) => v,
            Err(_) => {
                let ty = self.err(i.span(), "integer literal too large");
                return mk(ExprKind::Lit(Lit::Int(0)), ty);
            }
        };
        self.deferred.push(Deferred::IntLit {
            ty: ty.clone(),
            value,
            span: i.span(),
        });
        mk(ExprKind::Lit(Lit::Int(value)), ty)
    }

    /// A float literal; one typed `{float}` for now also keeps its direct `f32` reading.
    fn check_float_lit(
        &mut self,
        f: &syn::LitFloat,
        expected: Option<&ITy>,
        line: u32,
    ) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
        let ty = match f.suffix() {
            "" => match expected.and_then(|t| self.known_scalar(t)) {
                Some(s) if s.is_float() => ITy::S(s),
                _ => self.new_var(VarKind::Float),
            },
            "f32" => ITy::S(Scalar::F32),
            "f64" => ITy::S(Scalar::F64),
            suf => {
                let ty = self.err(f.span(), format!("unsupported float suffix `{suf}`"));
                return mk(ExprKind::Lit(Lit::Float(0.0)), ty);
            }
        };
        let digits = f.base10_digits();
        let value = float_lit_value(digits, &ty, self);
        if let (Some(v), ITy::Var(_)) = (value, &ty)
            && let Ok(direct) = digits.parse::<f32>()
        {
            self.f32_readings.insert(v.to_bits(), direct);
        }
        match value {
            Some(v) => mk(ExprKind::Lit(Lit::Float(v)), ty),
            None => {
                let ty = self.err(f.span(), "invalid float literal");
                mk(ExprKind::Lit(Lit::Float(0.0)), ty)
            }
        }
    }
}

fn float_lit_value(digits: &str, ty: &ITy, cx: &Checker<'_>) -> Option<f64> {
    match cx.known_scalar(ty) {
        Some(Scalar::F32) => digits.parse::<f32>().ok().map(f64::from),
        _ => digits.parse::<f64>().ok(),
    }
}

/// Final literal values: a float literal typed `{float}` during inference and resolved to `f32`
/// takes its direct `f32` reading; `-literal` folds into one literal.
pub(super) fn fold_literals(block: Block<Ty>, f32_readings: &HashMap<u64, f32>) -> Block<Ty> {
    FoldLiterals(f32_readings).fold_block(block)
}

/// The fold behind [`fold_literals`] (with the direct `f32` readings); it rewrites a node
/// after its operands, so a negated literal is folded once its literal is final.
struct FoldLiterals<'r>(&'r HashMap<u64, f32>);

impl Fold<Ty> for FoldLiterals<'_> {
    fn fold_ty(&mut self, ty: Ty) -> Ty {
        ty
    }

    fn fold_expr(&mut self, e: Expr<Ty>) -> Expr<Ty> {
        let Expr { kind, ty, line } = visit::fold_expr(self, e);
        let kind = match kind {
            ExprKind::Lit(Lit::Float(v)) if ty == Ty::Scalar(Scalar::F32) => {
                let direct = self.0.get(&v.to_bits()).copied().unwrap_or(v as f32);
                ExprKind::Lit(Lit::Float(direct as f64))
            }
            ExprKind::Unary(UnOp::Neg, inner) => match *inner {
                // A half's constant is its bits: negation flips the sign bit.
                Expr {
                    kind: ExprKind::Lit(Lit::Int(v)),
                    ..
                } if ty.scalar().is_some_and(Scalar::is_half) => {
                    ExprKind::Lit(Lit::Int(v ^ 0x8000))
                }
                Expr {
                    kind: ExprKind::Lit(Lit::Int(v)),
                    ..
                } => ExprKind::Lit(Lit::Int(wrap_int(-v, &ty))),
                Expr {
                    kind: ExprKind::Lit(Lit::Float(v)),
                    ..
                } => ExprKind::Lit(Lit::Float(-v)),
                other => ExprKind::Unary(UnOp::Neg, Box::new(other)),
            },
            other => other,
        };
        Expr { kind, ty, line }
    }
}

/// `v` wrapped into the range of an integer type, as two's-complement arithmetic does
/// (`-i64::MIN` is `i64::MIN`).
fn wrap_int(v: i128, ty: &Ty) -> i128 {
    match ty.scalar().and_then(Scalar::int_range) {
        Some((lo, hi)) => {
            let span = hi - lo + 1;
            (v - lo).rem_euclid(span) + lo
        }
        None => v,
    }
}
