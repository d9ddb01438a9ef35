//! Stage 2, check: a parsed function body (syn) in, typed IR (`warp_kernels::ir`) out.
//!
//! Types are inferred as rustc does (literal defaults, unification), and what the DSL cannot
//! run is refused with spanned errors. The checker is one `Checker` whose methods are split
//! by job:
//! - `infer`: inference types ([`ITy`]), literal type variables, unification, resolution;
//! - `stmt`: blocks, statements, `let` and parameter patterns, assignments, statement `if`s;
//! - `expr`: expressions (operators, tuples, fields, value `if`s, `match`);
//! - `calls`: paths and named constants, casts, built-in method and associated calls;
//! - `literals`: literals, their range checks, and the final literal folding.

mod calls;
mod expr;
mod infer;
mod literals;
mod stmt;

use std::collections::HashMap;
use std::fmt;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diag::{Diagnostics, line_of};
use crate::parse::Param;
use warp_kernels::ir::{Block, Expr, ExprKind, Function, Lit, Var, VarId};
use warp_kernels::types::Ty;

pub use infer::ITy;
use infer::TVar;

/// Something checked once every type is known.
enum Deferred {
    /// An integer literal must fit its type.
    IntLit { ty: ITy, value: i128, span: Span },
    /// Unary minus needs a signed or float type.
    Neg { ty: ITy, span: Span },
}

/// Checks a function body against its signature; `None` when errors were reported.
/// `ret_written`, the result type as written, names the struct a `#[derive(DeviceValue)]`
/// result is (the parameters' are in `params`).
#[allow(clippy::too_many_arguments)] // the parts of one signature
pub fn check_function(
    name: &str,
    params: &[Param],
    ret: &Ty,
    ret_written: Option<&syn::Type>,
    body: &syn::Block,
    file: &str,
    fn_span: Span,
    diags: &mut Diagnostics,
) -> Option<Function<Ty>> {
    let errors_before = diags.len();
    let mut cx = Checker::new(diags);
    let mut param_ids = Vec::new();
    let mut prologue = Vec::new();
    cx.scopes.push(HashMap::new());
    for p in params {
        let ity = ITy::of_syn(&p.ty_tokens).unwrap_or_else(|_| ITy::from_ty(&p.ty));
        let id = cx.bind_pattern_param(&p.pat, ity, &mut prologue);
        param_ids.push(id);
    }
    let ret_ity = ret_written
        .and_then(|t| ITy::of_syn(t).ok())
        .unwrap_or_else(|| ITy::from_ty(ret));
    let mut block = cx.check_block(body, Some(&ret_ity), true);
    cx.unify(&ret_ity, &block.value.ty.clone(), block_tail_span(body));
    cx.scopes.pop();
    prologue.append(&mut block.stmts);
    block.stmts = prologue;
    let func = Function {
        name: name.to_string(),
        params: param_ids,
        ret: ret_ity,
        vars: std::mem::take(&mut cx.vars),
        body: block,
        file: file.to_string(),
        line: line_of(fn_span),
    };
    cx.finish(func, errors_before)
}

/// Checks a standalone expression of type `ty` (a reduction's identity).
/// `written`, the type as written, names the struct of a `#[derive(DeviceValue)]` value.
pub fn check_const_expr(
    expr: &syn::Expr,
    ty: &Ty,
    written: Option<&syn::Type>,
    diags: &mut Diagnostics,
) -> Option<Expr<Ty>> {
    let errors_before = diags.len();
    let mut cx = Checker::new(diags);
    cx.scopes.push(HashMap::new());
    let ity = written
        .and_then(|t| ITy::of_syn(t).ok())
        .unwrap_or_else(|| ITy::from_ty(ty));
    let e = cx.check_expr(expr, Some(&ity));
    cx.unify(&ity, &e.ty.clone(), expr.span());
    let func = Function {
        name: String::new(),
        params: vec![],
        ret: ity,
        vars: std::mem::take(&mut cx.vars),
        body: Block {
            stmts: vec![],
            value: Box::new(e),
        },
        file: String::new(),
        line: 0,
    };
    let f = cx.finish(func, errors_before)?;
    if !f.vars.is_empty() || !f.body.stmts.is_empty() {
        return None;
    }
    Some(*f.body.value)
}

/// The span a block's value is reported at: its tail expression, its last statement, or its
/// closing brace.
fn block_tail_span(block: &syn::Block) -> Span {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => e.span(),
        Some(s) => s.span(),
        None => block.brace_token.span.close(),
    }
}

/// The state of checking one body (or one standalone expression).
struct Checker<'d> {
    diags: &'d mut Diagnostics,
    vars: Vec<Var<ITy>>,
    scopes: Vec<HashMap<String, VarId>>,
    tvars: Vec<TVar>,
    deferred: Vec<Deferred>,
    /// Direct `f32` readings of float literals first read as `f64` (bits of the `f64` reading ->
    /// the `f32` reading), so that a literal inferred as `f32` later is rounded once, as rustc does.
    f32_readings: HashMap<u64, f32>,
}

impl<'d> Checker<'d> {
    fn new(diags: &'d mut Diagnostics) -> Self {
        Checker {
            diags,
            vars: Vec::new(),
            scopes: Vec::new(),
            tvars: Vec::new(),
            deferred: Vec::new(),
            f32_readings: HashMap::new(),
        }
    }

    fn err(&mut self, span: Span, msg: impl fmt::Display) -> ITy {
        self.diags.error(span, msg);
        ITy::Error
    }

    /// Runs the deferred checks, then (when nothing was reported since `errors_before`) gives
    /// every type its final value and folds the literals.
    fn finish(mut self, func: Function<ITy>, errors_before: usize) -> Option<Function<Ty>> {
        self.run_deferred();
        if self.diags.len() > errors_before {
            return None;
        }
        let func = func.map_types(&mut |t: ITy| self.resolve(&t));
        Some(Function {
            body: literals::fold_literals(func.body, &self.f32_readings),
            ..func
        })
    }

    /// The checks that need final types: literal ranges and unsigned negation.
    fn run_deferred(&mut self) {
        let deferred = std::mem::take(&mut self.deferred);
        for d in deferred {
            match d {
                Deferred::IntLit { ty, value, span } => {
                    if let Ty::Scalar(s) = self.resolve(&ty)
                        && let Some((lo, hi)) = s.int_range()
                        && (value < lo || value > hi)
                    {
                        self.diags.error(
                            span,
                            format!("literal out of range for `{s}` (its range is {lo}..={hi})"),
                        );
                    }
                }
                Deferred::Neg { ty, span } => {
                    if let Ty::Scalar(s) = self.resolve(&ty)
                        && s.is_unsigned_int()
                    {
                        self.diags.error(
                                span,
                                format!("cannot apply unary operator `-` to type `{s}`; unsigned values have no negation (use `wrapping_neg`)"),
                            );
                    }
                }
            }
        }
    }
}

/// The expression standing for one that was already reported.
fn error_expr(line: u32) -> Expr<ITy> {
    Expr {
        kind: ExprKind::Lit(Lit::Bool(false)),
        ty: ITy::Error,
        line,
    }
}
