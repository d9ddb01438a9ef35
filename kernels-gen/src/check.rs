//! Stage 2, check: a parsed function body (syn) in, typed IR out; infers types as rustc does
//! (literal defaults, unification) and refuses, with spanned errors, what the DSL cannot run.

use std::collections::HashMap;
use std::fmt;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diag::{Diagnostics, line_of};
use crate::parse::Param;
use warp_kernels::builtins::{self, Builtin, ConstPath, Form};
use warp_kernels::ir::{BinOp, Block, Expr, ExprKind, Function, Lit, Stmt, UnOp, Var, VarId};
use warp_kernels::types::{Scalar, Ty};

/// A type during inference: known, a literal's variable, a tuple of those, or an error marker
/// that unifies with anything (so one mistake is reported once).
#[derive(Clone, Debug, PartialEq)]
pub enum ITy {
    /// A known scalar.
    S(Scalar),
    /// A tuple.
    Tuple(Vec<ITy>),
    /// An unsuffixed literal's type, still open.
    Var(u32),
    /// Already reported.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VarKind {
    Int,
    Float,
}

#[derive(Clone, Debug)]
struct TVar {
    kind: VarKind,
    parent: u32,
    bound: Option<Scalar>,
}

/// Something checked once every type is known.
enum Deferred {
    /// An integer literal must fit its type.
    IntLit { ty: ITy, value: i128, span: Span },
    /// Unary minus needs a signed or float type.
    Neg { ty: ITy, span: Span },
}

/// Checks a function body against its signature; `None` when errors were reported.
pub fn check_function(
    name: &str,
    params: &[Param],
    ret: &Ty,
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
        let ity = ITy::from_ty(&p.ty);
        let id = cx.bind_pattern_param(&p.pat, ity, &mut prologue);
        param_ids.push(id);
    }
    let ret_ity = ITy::from_ty(ret);
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
pub fn check_const_expr(expr: &syn::Expr, ty: &Ty, diags: &mut Diagnostics) -> Option<Expr<Ty>> {
    let errors_before = diags.len();
    let mut cx = Checker::new(diags);
    cx.scopes.push(HashMap::new());
    let ity = ITy::from_ty(ty);
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

fn block_tail_span(block: &syn::Block) -> Span {
    match block.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => e.span(),
        Some(s) => s.span(),
        None => block.brace_token.span.close(),
    }
}

impl ITy {
    fn from_ty(ty: &Ty) -> ITy {
        match ty {
            Ty::Scalar(s) => ITy::S(*s),
            Ty::Tuple(items) => ITy::Tuple(items.iter().map(|s| ITy::S(*s)).collect()),
        }
    }
}

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

struct ShowTy<'a>(&'a Checker<'a>, &'a ITy);

impl fmt::Display for ShowTy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.shallow(self.1) {
            ITy::S(s) => write!(f, "{s}"),
            ITy::Var(v) => match self.0.tvars[v as usize].kind {
                VarKind::Int => f.write_str("{integer}"),
                VarKind::Float => f.write_str("{float}"),
            },
            ITy::Tuple(items) => {
                f.write_str("(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", ShowTy(self.0, t))?;
                }
                f.write_str(")")
            }
            ITy::Error => f.write_str("{error}"),
        }
    }
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

    // ----- inference variables -----

    fn new_var(&mut self, kind: VarKind) -> ITy {
        let id = self.tvars.len() as u32;
        self.tvars.push(TVar {
            kind,
            parent: id,
            bound: None,
        });
        ITy::Var(id)
    }

    fn find(&self, mut v: u32) -> u32 {
        while self.tvars[v as usize].parent != v {
            v = self.tvars[v as usize].parent;
        }
        v
    }

    fn shallow(&self, t: &ITy) -> ITy {
        match t {
            ITy::Var(v) => {
                let r = self.find(*v);
                match self.tvars[r as usize].bound {
                    Some(s) => ITy::S(s),
                    None => ITy::Var(r),
                }
            }
            other => other.clone(),
        }
    }

    /// The scalar a type is known to be, if it is one already.
    fn known_scalar(&self, t: &ITy) -> Option<Scalar> {
        match self.shallow(t) {
            ITy::S(s) => Some(s),
            _ => None,
        }
    }

    fn var_kind(&self, t: &ITy) -> Option<VarKind> {
        match self.shallow(t) {
            ITy::Var(v) => Some(self.tvars[v as usize].kind),
            _ => None,
        }
    }

    /// Unifies two types, reporting a mismatch at `span`. `expected` comes first.
    fn unify(&mut self, expected: &ITy, found: &ITy, span: Span) -> bool {
        if self.try_unify(expected, found) {
            return true;
        }
        let msg = format!(
            "mismatched types: expected `{}`, found `{}`",
            ShowTy(self, expected),
            ShowTy(self, found)
        );
        self.diags.error(span, msg);
        false
    }

    fn try_unify(&mut self, a: &ITy, b: &ITy) -> bool {
        let (a, b) = (self.shallow(a), self.shallow(b));
        match (&a, &b) {
            (ITy::Error, _) | (_, ITy::Error) => true,
            (ITy::S(x), ITy::S(y)) => x == y,
            (ITy::Var(v), ITy::S(s)) | (ITy::S(s), ITy::Var(v)) => {
                let ok = match self.tvars[*v as usize].kind {
                    VarKind::Int => s.is_int(),
                    VarKind::Float => s.is_float(),
                };
                if ok {
                    self.tvars[*v as usize].bound = Some(*s);
                }
                ok
            }
            (ITy::Var(v), ITy::Var(w)) => {
                if v == w {
                    return true;
                }
                if self.tvars[*v as usize].kind != self.tvars[*w as usize].kind {
                    return false;
                }
                self.tvars[*v as usize].parent = *w;
                true
            }
            (ITy::Tuple(xs), ITy::Tuple(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.try_unify(x, y))
            }
            _ => false,
        }
    }

    /// The final type of an inference type: open literal types take Rust's defaults.
    fn resolve(&self, t: &ITy) -> Ty {
        match self.shallow(t) {
            ITy::S(s) => Ty::Scalar(s),
            ITy::Var(v) => match self.tvars[v as usize].kind {
                VarKind::Int => Ty::Scalar(Scalar::I32),
                VarKind::Float => Ty::Scalar(Scalar::F64),
            },
            ITy::Tuple(items) => Ty::Tuple(
                items
                    .iter()
                    .map(|t| match self.resolve(t) {
                        Ty::Scalar(s) => s,
                        Ty::Tuple(_) => Scalar::Bool, // nested tuples are refused earlier
                    })
                    .collect(),
            ),
            ITy::Error => Ty::Scalar(Scalar::Bool),
        }
    }

    fn finish(mut self, func: Function<ITy>, errors_before: usize) -> Option<Function<Ty>> {
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
        if self.diags.len() > errors_before {
            return None;
        }
        let mut f = |t: ITy| self.resolve(&t);
        Some(Function {
            name: func.name,
            params: func.params,
            ret: f(func.ret),
            vars: func
                .vars
                .into_iter()
                .map(|v| Var {
                    name: v.name,
                    ty: f(v.ty),
                    mutable: v.mutable,
                })
                .collect(),
            body: fold_literals(func.body.map_types(&mut f), &self.f32_readings),
            file: func.file,
            line: func.line,
        })
    }

    // ----- variables and patterns -----

    fn declare(&mut self, name: &str, ty: ITy, mutable: bool) -> VarId {
        let id = self.vars.len();
        self.vars.push(Var {
            name: name.to_string(),
            ty,
            mutable,
        });
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name.to_string(), id);
        id
    }

    fn temp(&mut self, ty: ITy) -> VarId {
        let id = self.vars.len();
        self.vars.push(Var {
            name: "tmp".to_string(),
            ty,
            mutable: false,
        });
        id
    }

    fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Binds a parameter pattern; tuple patterns become a parameter plus `let`s of its fields.
    fn bind_pattern_param(
        &mut self,
        pat: &syn::Pat,
        ty: ITy,
        prologue: &mut Vec<Stmt<ITy>>,
    ) -> VarId {
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                self.declare(&pi.ident.to_string(), ty, pi.mutability.is_some())
            }
            syn::Pat::Wild(_) => self.temp(ty),
            _ => {
                let id = self.temp(ty.clone());
                let line = line_of(pat.span());
                let value = Expr {
                    kind: ExprKind::Var(id),
                    ty,
                    line,
                };
                self.bind_let_pattern(pat, value, prologue);
                id
            }
        }
    }

    /// `let PAT = value;` for identifier, `_`, typed and tuple patterns.
    fn bind_let_pattern(&mut self, pat: &syn::Pat, value: Expr<ITy>, out: &mut Vec<Stmt<ITy>>) {
        let line = line_of(pat.span());
        match pat {
            syn::Pat::Ident(pi) => {
                if let Some(r) = &pi.by_ref {
                    self.err(r.span(), "`ref` bindings are not supported; bind the value");
                    return;
                }
                if let Some((at, _)) = &pi.subpat {
                    self.err(at.span(), "`@` patterns are not supported");
                    return;
                }
                let var = self.declare(
                    &pi.ident.to_string(),
                    value.ty.clone(),
                    pi.mutability.is_some(),
                );
                out.push(Stmt::Let {
                    var,
                    init: value,
                    line,
                });
            }
            syn::Pat::Wild(_) => {}
            syn::Pat::Paren(p) => self.bind_let_pattern(&p.pat, value, out),
            syn::Pat::Type(pt) => {
                let ty = match crate::parse::parse_type(&pt.ty) {
                    Ok(t) => ITy::from_ty(&t),
                    Err(e) => {
                        self.diags.push(e);
                        ITy::Error
                    }
                };
                self.unify(&ty, &value.ty.clone(), pt.pat.span());
                self.bind_let_pattern(&pt.pat, value, out);
            }
            syn::Pat::Tuple(pt) => {
                let n = pt.elems.len();
                let elem_tys: Vec<ITy> = match self.shallow(&value.ty) {
                    ITy::Tuple(items) if items.len() == n => items,
                    ITy::Error => vec![ITy::Error; n],
                    other => {
                        let msg = format!(
                            "mismatched types: this pattern takes a tuple of {n} elements, the value is `{}`",
                            ShowTy(self, &other)
                        );
                        self.err(pat.span(), msg);
                        return;
                    }
                };
                let tmp = self.temp(value.ty.clone());
                let tuple_ty = value.ty.clone();
                out.push(Stmt::Let {
                    var: tmp,
                    init: value,
                    line,
                });
                for (i, (p, ety)) in pt.elems.iter().zip(elem_tys).enumerate() {
                    if matches!(p, syn::Pat::Rest(_)) {
                        self.err(p.span(), "`..` in tuple patterns is not supported; name every element or use `_`");
                        continue;
                    }
                    let field = Expr {
                        kind: ExprKind::Field(
                            Box::new(Expr {
                                kind: ExprKind::Var(tmp),
                                ty: tuple_ty.clone(),
                                line,
                            }),
                            i,
                        ),
                        ty: ety,
                        line,
                    };
                    self.bind_let_pattern(p, field, out);
                }
            }
            other => {
                self.err(
                    other.span(),
                    "unsupported pattern; `let` takes a name, `mut name`, `_`, or a tuple of these",
                );
            }
        }
    }

    // ----- blocks and statements -----

    /// Checks a block whose value is used (`value_needed`) or a statement block.
    fn check_block(
        &mut self,
        block: &syn::Block,
        expected: Option<&ITy>,
        value_needed: bool,
    ) -> Block<ITy> {
        self.scopes.push(HashMap::new());
        let mut stmts = Vec::new();
        let n = block.stmts.len();
        let mut value = None;
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                syn::Stmt::Expr(e, None) if last && value_needed => {
                    value = Some(self.check_expr(e, expected));
                }
                _ => self.check_stmt(stmt, &mut stmts, last && value_needed),
            }
        }
        self.scopes.pop();
        let value = match value {
            Some(v) => v,
            None => {
                if value_needed {
                    let span = match block.stmts.last() {
                        // Already reported where the statement was checked.
                        Some(syn::Stmt::Expr(syn::Expr::Return(_), _)) => {
                            return Block {
                                stmts,
                                value: Box::new(error_expr(0)),
                            };
                        }
                        Some(s) => s.span(),
                        None => block.brace_token.span.join(),
                    };
                    self.err(
                        span,
                        "this block has no value: end it with an expression (no trailing `;`)",
                    );
                }
                error_expr(0)
            }
        };
        Block {
            stmts,
            value: Box::new(value),
        }
    }

    fn check_stmt(&mut self, stmt: &syn::Stmt, out: &mut Vec<Stmt<ITy>>, is_tail: bool) {
        match stmt {
            syn::Stmt::Local(local) => {
                let Some(init) = &local.init else {
                    self.err(
                        local.span(),
                        "a `let` without a value is not supported; give it its value where it is declared",
                    );
                    return;
                };
                if let Some((e, _)) = &init.diverge {
                    self.err(e.span(), "`let ... else` is not supported");
                    return;
                }
                let hint = match &local.pat {
                    syn::Pat::Type(pt) => crate::parse::parse_type(&pt.ty)
                        .ok()
                        .map(|t| ITy::from_ty(&t)),
                    _ => None,
                };
                let value = self.check_expr(&init.expr, hint.as_ref());
                self.bind_let_pattern(&local.pat, value, out);
            }
            syn::Stmt::Item(item) => {
                self.err(
                    item.span(),
                    "items (nested `fn`, `struct`, `use`, `const`, ...) are not supported inside a warp-dsl function",
                );
            }
            syn::Stmt::Macro(m) => {
                self.err(
                    m.mac.path.span(),
                    "macros are not supported in the body; the GPU code is generated from plain expressions",
                );
            }
            syn::Stmt::Expr(e, semi) => {
                if is_tail && semi.is_none() {
                    return;
                }
                self.check_expr_stmt(e, out);
            }
        }
    }

    /// An expression in statement position: assignments and `if`s that assign.
    fn check_expr_stmt(&mut self, e: &syn::Expr, out: &mut Vec<Stmt<ITy>>) {
        let line = line_of(e.span());
        match e {
            syn::Expr::Assign(a) => {
                if let Some((var, ty)) = self.assign_target(&a.left) {
                    let value = self.check_expr(&a.right, Some(&ty));
                    self.unify(&ty, &value.ty.clone(), a.right.span());
                    out.push(Stmt::Assign { var, value, line });
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op).expect("checked");
                if let Some((var, ty)) = self.assign_target(&b.left) {
                    let lhs = Expr {
                        kind: ExprKind::Var(var),
                        ty: ty.clone(),
                        line,
                    };
                    let rhs = self.check_expr(&b.right, None);
                    let value = self.binary(op, lhs, rhs, b.op.span(), b.right.span(), line);
                    out.push(Stmt::Assign { var, value, line });
                }
            }
            syn::Expr::If(ei) => {
                let s = self.check_if_stmt(ei);
                out.extend(s);
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                self.scopes.push(HashMap::new());
                for (i, s) in b.block.stmts.iter().enumerate() {
                    let last = i + 1 == b.block.stmts.len();
                    if let (true, syn::Stmt::Expr(e, None)) = (last, s) {
                        self.check_expr_stmt(e, out);
                    } else {
                        self.check_stmt(s, out, false);
                    }
                }
                self.scopes.pop();
            }
            syn::Expr::Paren(p) => self.check_expr_stmt(&p.expr, out),
            other => {
                // A pure expression statement has no effect; check it for errors and drop it.
                let _ = self.check_expr(other, None);
            }
        }
    }

    fn check_if_stmt(&mut self, ei: &syn::ExprIf) -> Vec<Stmt<ITy>> {
        let line = line_of(ei.if_token.span);
        let cond = self.check_cond(&ei.cond);
        let then = self.stmt_block(&ei.then_branch);
        let els = match &ei.else_branch {
            None => Vec::new(),
            Some((_, e)) => match &**e {
                syn::Expr::If(inner) => self.check_if_stmt(inner),
                syn::Expr::Block(b) => self.stmt_block(&b.block),
                other => {
                    let mut v = Vec::new();
                    self.check_expr_stmt(other, &mut v);
                    v
                }
            },
        };
        vec![Stmt::If {
            cond,
            then,
            els,
            line,
        }]
    }

    fn stmt_block(&mut self, block: &syn::Block) -> Vec<Stmt<ITy>> {
        let mut out = Vec::new();
        self.scopes.push(HashMap::new());
        for (i, s) in block.stmts.iter().enumerate() {
            let last = i + 1 == block.stmts.len();
            if let (true, syn::Stmt::Expr(e, None)) = (last, s) {
                self.check_expr_stmt(e, &mut out);
            } else {
                self.check_stmt(s, &mut out, false);
            }
        }
        self.scopes.pop();
        out
    }

    fn assign_target(&mut self, left: &syn::Expr) -> Option<(VarId, ITy)> {
        if let syn::Expr::Path(p) = left
            && let Some(ident) = p.path.get_ident()
        {
            let name = ident.to_string();
            return match self.lookup(&name) {
                Some(id) if self.vars[id].mutable => Some((id, self.vars[id].ty.clone())),
                Some(_) => {
                    self.err(
                            ident.span(),
                            format!("cannot assign twice to immutable variable `{name}`; declare it with `let mut {name}`"),
                        );
                    None
                }
                None => {
                    self.err(
                        ident.span(),
                        format!("cannot find value `{name}` in this scope"),
                    );
                    None
                }
            };
        }
        self.err(
            left.span(),
            "only local variables can be assigned (`x = ...`); fields, indices and dereferences are not supported",
        );
        None
    }

    // ----- expressions -----

    fn check_cond(&mut self, e: &syn::Expr) -> Expr<ITy> {
        if let syn::Expr::Let(l) = e {
            self.err(
                l.let_token.span,
                "`if let` is not supported; compare values with `==` or use `match` on integers",
            );
            return error_expr(line_of(e.span()));
        }
        let c = self.check_expr(e, Some(&ITy::S(Scalar::Bool)));
        self.unify(&ITy::S(Scalar::Bool), &c.ty.clone(), e.span());
        c
    }

    fn check_expr(&mut self, e: &syn::Expr, expected: Option<&ITy>) -> Expr<ITy> {
        let line = line_of(e.span());
        let mk = |kind, ty| Expr { kind, ty, line };
        match e {
            syn::Expr::Lit(l) => self.check_lit(&l.lit, expected, line),
            syn::Expr::Paren(p) => self.check_expr(&p.expr, expected),
            syn::Expr::Group(g) => self.check_expr(&g.expr, expected),
            syn::Expr::Path(p) => self.check_path(p, line),
            syn::Expr::Unary(u) => {
                match &u.op {
                    syn::UnOp::Neg(t) => {
                        let inner = self.check_expr(&u.expr, expected);
                        let ty = inner.ty.clone();
                        match self.shallow(&ty) {
                            ITy::S(s) if s.is_unsigned_int() => {
                                self.err(t.span, format!("cannot apply unary operator `-` to type `{s}`; unsigned values have no negation (use `wrapping_neg`)"));
                            }
                            ITy::S(s) if !s.is_numeric() => {
                                self.err(
                                    t.span,
                                    format!("cannot apply unary operator `-` to type `{s}`"),
                                );
                            }
                            ITy::Tuple(_) => {
                                self.err(t.span, "cannot apply unary operator `-` to a tuple");
                            }
                            ITy::Var(_) => self.deferred.push(Deferred::Neg {
                                ty: ty.clone(),
                                span: t.span,
                            }),
                            _ => {}
                        }
                        if let ExprKind::Lit(Lit::Int(v)) = inner.kind {
                            // `-128i8`: the literal is checked with its sign.
                            self.retarget_int_lit(v, -v);
                        }
                        mk(ExprKind::Unary(UnOp::Neg, Box::new(inner)), ty)
                    }
                    syn::UnOp::Not(t) => {
                        let inner = self.check_expr(&u.expr, expected);
                        let ty = inner.ty.clone();
                        let bad = match self.shallow(&ty) {
                            ITy::S(s) => s.is_float(),
                            ITy::Var(_) => self.var_kind(&ty) == Some(VarKind::Float),
                            ITy::Tuple(_) => true,
                            ITy::Error => false,
                        };
                        if bad {
                            let msg = format!(
                                "cannot apply unary operator `!` to type `{}`",
                                ShowTy(self, &ty)
                            );
                            self.err(t.span, msg);
                        }
                        mk(ExprKind::Unary(UnOp::Not, Box::new(inner)), ty)
                    }
                    syn::UnOp::Deref(t) => {
                        let ty = self.err(
                            t.span,
                            "dereferences are not supported; the DSL has no references",
                        );
                        mk(ExprKind::Lit(Lit::Bool(false)), ty)
                    }
                    _ => {
                        let ty = self.err(u.span(), "unsupported unary operator");
                        mk(ExprKind::Lit(Lit::Bool(false)), ty)
                    }
                }
            }
            syn::Expr::Binary(b) => {
                if compound_op(&b.op).is_some() {
                    self.err(
                        b.op.span(),
                        "compound assignment is a statement; write it on its own line, ending with `;`",
                    );
                    return error_expr(line);
                }
                let op = match simple_op(&b.op) {
                    Some(op) => op,
                    None => {
                        self.err(b.op.span(), "unsupported binary operator");
                        return error_expr(line);
                    }
                };
                let lhs = self.check_expr(&b.left, None);
                let rhs_hint = if matches!(op, BinOp::Shl | BinOp::Shr | BinOp::And | BinOp::Or) {
                    None
                } else {
                    Some(lhs.ty.clone())
                };
                let rhs = self.check_expr(&b.right, rhs_hint.as_ref());
                self.binary(op, lhs, rhs, b.op.span(), b.right.span(), line)
            }
            syn::Expr::Cast(c) => {
                let target = match crate::parse::parse_type(&c.ty) {
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
                    ITy::S(Scalar::Bool) if target.is_float() => {
                        self.err(c.span(), format!("casting `bool` as `{target}` is invalid; cast to an integer first (`b as u8 as {target}`)"));
                    }
                    ITy::Tuple(_) => {
                        self.err(c.expr.span(), "cannot cast a tuple; cast each element");
                    }
                    _ => {}
                }
                mk(ExprKind::Cast(Box::new(inner)), ITy::S(target))
            }
            syn::Expr::MethodCall(m) => self.check_method(m, line),
            syn::Expr::Call(c) => self.check_call(c, line),
            syn::Expr::If(ei) => self.check_if_expr(ei, expected, line),
            syn::Expr::Match(m) => self.check_match(m, expected, line),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "labelled blocks are not supported");
                }
                let block = self.check_block(&b.block, expected, true);
                let ty = block.value.ty.clone();
                mk(ExprKind::Block(block), ty)
            }
            syn::Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    let ty = self.err(
                        t.span(),
                        "the unit value `()` is not supported; every expression needs a value",
                    );
                    return mk(ExprKind::Lit(Lit::Bool(false)), ty);
                }
                let hints: Vec<Option<ITy>> = match expected.map(|t| self.shallow(t)) {
                    Some(ITy::Tuple(items)) if items.len() == t.elems.len() => {
                        items.into_iter().map(Some).collect()
                    }
                    _ => vec![None; t.elems.len()],
                };
                let mut items = Vec::new();
                for (el, hint) in t.elems.iter().zip(hints) {
                    let x = self.check_expr(el, hint.as_ref());
                    if matches!(self.shallow(&x.ty), ITy::Tuple(_)) {
                        self.err(
                            el.span(),
                            "nested tuples are not supported; flatten the tuple",
                        );
                    }
                    items.push(x);
                }
                if items.len() > warp_kernels::MAX_TUPLE {
                    self.err(
                        t.span(),
                        format!(
                            "tuples of more than {} elements are not supported",
                            warp_kernels::MAX_TUPLE
                        ),
                    );
                }
                let ty = ITy::Tuple(items.iter().map(|x| x.ty.clone()).collect());
                mk(ExprKind::Tuple(items), ty)
            }
            syn::Expr::Field(f) => {
                let base = self.check_expr(&f.base, None);
                match &f.member {
                    syn::Member::Unnamed(idx) => {
                        let i = idx.index as usize;
                        match self.shallow(&base.ty) {
                            ITy::Tuple(items) if i < items.len() => {
                                let ty = items[i].clone();
                                mk(ExprKind::Field(Box::new(base), i), ty)
                            }
                            ITy::Tuple(items) => {
                                let ty = self.err(
                                    idx.span,
                                    format!(
                                        "no field `{i}`: the tuple has {} elements",
                                        items.len()
                                    ),
                                );
                                mk(ExprKind::Lit(Lit::Bool(false)), ty)
                            }
                            ITy::Error => error_expr(line),
                            other => {
                                let msg = format!(
                                    "`.{i}` needs a tuple, found `{}`",
                                    ShowTy(self, &other)
                                );
                                let ty = self.err(idx.span, msg);
                                mk(ExprKind::Lit(Lit::Bool(false)), ty)
                            }
                        }
                    }
                    syn::Member::Named(_) if base.ty == ITy::Error => error_expr(line),
                    syn::Member::Named(n) => {
                        let ty = self.err(n.span(), "named fields are not supported: structs are not part of the DSL yet; use a tuple and `.0`, `.1`");
                        mk(ExprKind::Lit(Lit::Bool(false)), ty)
                    }
                }
            }
            syn::Expr::Assign(a) => {
                self.err(
                    a.eq_token.span,
                    "assignment is a statement here; write it on its own line, ending with `;`",
                );
                error_expr(line)
            }
            other => {
                let (span, msg) = unsupported_expr(other);
                self.err(span, msg);
                error_expr(line)
            }
        }
    }

    /// Records a sign change of an integer literal checked as `old` (the range check then sees `new`).
    fn retarget_int_lit(&mut self, old: i128, new: i128) {
        if let Some(Deferred::IntLit { value, .. }) = self
            .deferred
            .iter_mut()
            .rev()
            .find(|d| matches!(d, Deferred::IntLit { value, .. } if *value == old))
        {
            *value = new;
        }
    }

    fn check_lit(&mut self, lit: &syn::Lit, expected: Option<&ITy>, line: u32) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
        match lit {
            syn::Lit::Bool(b) => mk(ExprKind::Lit(Lit::Bool(b.value)), ITy::S(Scalar::Bool)),
            syn::Lit::Int(i) => {
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
            syn::Lit::Float(f) => {
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

    fn check_path(&mut self, p: &syn::ExprPath, line: u32) -> Expr<ITy> {
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

    fn binary(
        &mut self,
        op: BinOp,
        lhs: Expr<ITy>,
        rhs: Expr<ITy>,
        op_span: Span,
        rhs_span: Span,
        line: u32,
    ) -> Expr<ITy> {
        let lt = lhs.ty.clone();
        let rt = rhs.ty.clone();
        let result_ty = match op {
            BinOp::And | BinOp::Or => {
                self.unify(&ITy::S(Scalar::Bool), &lt, op_span);
                self.unify(&ITy::S(Scalar::Bool), &rt, rhs_span);
                ITy::S(Scalar::Bool)
            }
            BinOp::Shl | BinOp::Shr => {
                self.require(&lt, op_span, op, |s| s.is_int(), Some(VarKind::Int));
                self.require(&rt, rhs_span, op, |s| s.is_int(), Some(VarKind::Int));
                lt
            }
            _ if op.is_comparison() => {
                self.unify(&lt, &rt, rhs_span);
                if matches!(self.shallow(&lt), ITy::Tuple(_)) {
                    self.err(
                        op_span,
                        "comparing tuples is not supported; compare their elements",
                    );
                }
                ITy::S(Scalar::Bool)
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                self.unify(&lt, &rt, rhs_span);
                self.require(
                    &lt,
                    op_span,
                    op,
                    |s| s.is_int() || s == Scalar::Bool,
                    Some(VarKind::Int),
                );
                lt
            }
            _ => {
                self.unify(&lt, &rt, rhs_span);
                self.require(&lt, op_span, op, |s| s.is_numeric(), None);
                lt
            }
        };
        Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            ty: result_ty,
            line,
        }
    }

    /// Reports when `t` cannot take operator `op`: `ok` judges known scalars, `var_ok` the kind of
    /// literal variable that is allowed (`None`: both).
    fn require(
        &mut self,
        t: &ITy,
        span: Span,
        op: BinOp,
        ok: impl Fn(Scalar) -> bool,
        var_ok: Option<VarKind>,
    ) {
        let bad = match self.shallow(t) {
            ITy::S(s) => !ok(s),
            ITy::Var(v) => var_ok.is_some_and(|k| k != self.tvars[v as usize].kind),
            ITy::Tuple(_) => true,
            ITy::Error => false,
        };
        if bad {
            let msg = format!(
                "no implementation for `{}` {} ...",
                ShowTy(self, t),
                op.rust()
            );
            self.err(span, msg);
        }
    }

    fn check_method(&mut self, m: &syn::ExprMethodCall, line: u32) -> Expr<ITy> {
        if m.turbofish.is_some() {
            self.err(m.method.span(), "turbofish (`::<>`) is not supported");
        }
        let recv = self.check_expr(&m.receiver, None);
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        self.builtin_call(&m.method.to_string(), m.method.span(), recv, &args, line)
    }

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

    fn check_call(&mut self, c: &syn::ExprCall, line: u32) -> Expr<ITy> {
        // `f32::max(a, b)` and `f32::from_bits(u)`: associated-function spelling of the built-ins.
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [t, name] = segs.as_slice()
                && let Some(s) = Scalar::from_rust(t)
            {
                let args: Vec<&syn::Expr> = c.args.iter().collect();
                let name_span = p.path.segments[1].ident.span();
                if let Some(b) = Builtin::lookup(name, Form::Assoc, s) {
                    return self.builtin_args(b, name_span, s, Vec::new(), &args, line);
                }
                if Builtin::lookup(name, Form::Method, s).is_some() && !args.is_empty() {
                    let recv = self.check_expr(args[0], Some(&ITy::S(s)));
                    self.unify(&ITy::S(s), &recv.ty.clone(), args[0].span());
                    return self.builtin_call(name, name_span, recv, &args[1..], line);
                }
            }
        }
        self.err(
            c.func.span(),
            "calls to other functions are not supported: the body is compiled to one CUDA function; inline the computation, or use a built-in method (`x.max(y)`, `x.sqrt()`, ...)",
        );
        error_expr(line)
    }

    fn check_if_expr(&mut self, ei: &syn::ExprIf, expected: Option<&ITy>, line: u32) -> Expr<ITy> {
        let cond = self.check_cond(&ei.cond);
        let then = self.check_block(&ei.then_branch, expected, true);
        let then_ty = then.value.ty.clone();
        let els = match &ei.else_branch {
            None => {
                self.err(ei.if_token.span, "`if` without `else` has no value; add an `else` branch (or assign in a statement `if`)");
                return error_expr(line);
            }
            Some((_, e)) => {
                let hint = expected.cloned().unwrap_or(then_ty.clone());
                let x = self.check_expr(e, Some(&hint));
                let span = match &**e {
                    syn::Expr::Block(b) => block_tail_span(&b.block),
                    other => other.span(),
                };
                self.unify(&then_ty, &x.ty.clone(), span);
                match x.kind {
                    ExprKind::Block(b) => b,
                    _ => Block {
                        stmts: vec![],
                        value: Box::new(x),
                    },
                }
            }
        };
        Expr {
            kind: ExprKind::If(Box::new(cond), then, els),
            ty: then_ty,
            line,
        }
    }

    /// `match` on integers or bools becomes an `if` chain over a temporary.
    fn check_match(&mut self, m: &syn::ExprMatch, expected: Option<&ITy>, line: u32) -> Expr<ITy> {
        let scrut = self.check_expr(&m.expr, None);
        let sty = scrut.ty.clone();
        match self.shallow(&sty) {
            ITy::S(s) if s.is_int() || s == Scalar::Bool => {}
            ITy::Var(v) if self.tvars[v as usize].kind == VarKind::Int => {}
            ITy::Error => return error_expr(line),
            other => {
                let msg = format!(
                    "`match` is supported on integers and `bool`, not on `{}`; use `if`/`else`",
                    ShowTy(self, &other)
                );
                self.err(m.expr.span(), msg);
                return error_expr(line);
            }
        }
        if m.arms.is_empty() {
            self.err(m.match_token.span, "`match` needs at least one arm");
            return error_expr(line);
        }
        let tmp = self.temp(sty.clone());
        let tmp_expr = Expr {
            kind: ExprKind::Var(tmp),
            ty: sty.clone(),
            line,
        };
        // Each arm: (condition or None for catch-all, body block).
        let mut arms: Vec<(Option<Expr<ITy>>, Block<ITy>)> = Vec::new();
        let mut result_ty: Option<ITy> = None;
        for arm in &m.arms {
            self.scopes.push(HashMap::new());
            let mut prologue = Vec::new();
            let cond = self.pattern_cond(&arm.pat, &tmp_expr, &mut prologue);
            let hint = expected.cloned().or(result_ty.clone());
            let body = self.check_expr(&arm.body, hint.as_ref());
            self.scopes.pop();
            match &result_ty {
                None => result_ty = Some(body.ty.clone()),
                Some(t) => {
                    let t = t.clone();
                    self.unify(&t, &body.ty.clone(), arm.body.span());
                }
            }
            arms.push((
                cond,
                Block {
                    stmts: prologue,
                    value: Box::new(body),
                },
            ));
        }
        let ty = result_ty.unwrap_or(ITy::Error);
        // Build the chain from the last arm up; the last arm is the final `else` (rustc has
        // proved the match exhaustive, so it is reached exactly when no earlier arm matched).
        let mut iter = arms.into_iter().rev();
        let (_, last_block) = iter.next().expect("at least one arm");
        let mut acc = block_expr(last_block, ty.clone(), line);
        for (cond, block) in iter {
            acc = match cond {
                None => block_expr(block, ty.clone(), line), // a catch-all: later arms are unreachable
                Some(c) => Expr {
                    kind: ExprKind::If(
                        Box::new(c),
                        block,
                        Block {
                            stmts: vec![],
                            value: Box::new(acc),
                        },
                    ),
                    ty: ty.clone(),
                    line,
                },
            };
        }
        Expr {
            kind: ExprKind::Block(Block {
                stmts: vec![Stmt::Let {
                    var: tmp,
                    init: scrut,
                    line,
                }],
                value: Box::new(acc),
            }),
            ty,
            line,
        }
    }

    /// The condition under which `pat` matches `scrut` (`None`: always), with any binding added to
    /// `prologue`.
    fn pattern_cond(
        &mut self,
        pat: &syn::Pat,
        scrut: &Expr<ITy>,
        prologue: &mut Vec<Stmt<ITy>>,
    ) -> Option<Expr<ITy>> {
        let line = scrut.line;
        let cmp = |cx: &mut Self, op: BinOp, a: Expr<ITy>, b: Expr<ITy>, span: Span| {
            cx.binary(op, a, b, span, span, line)
        };
        match pat {
            syn::Pat::Wild(_) => None,
            syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                let var = self.declare(
                    &pi.ident.to_string(),
                    scrut.ty.clone(),
                    pi.mutability.is_some(),
                );
                prologue.push(Stmt::Let {
                    var,
                    init: scrut.clone(),
                    line,
                });
                None
            }
            syn::Pat::Paren(p) => self.pattern_cond(&p.pat, scrut, prologue),
            syn::Pat::Lit(l) => {
                let v = self.check_lit(&l.lit, Some(&scrut.ty), line);
                Some(cmp(self, BinOp::Eq, scrut.clone(), v, l.span()))
            }
            syn::Pat::Path(p) => {
                let v = self.check_path(p, line);
                Some(cmp(self, BinOp::Eq, scrut.clone(), v, p.span()))
            }
            syn::Pat::Range(r) => {
                let mut conds = Vec::new();
                if let Some(start) = &r.start {
                    let v = self.check_expr(start, Some(&scrut.ty));
                    conds.push(cmp(self, BinOp::Ge, scrut.clone(), v, start.span()));
                }
                if let Some(end) = &r.end {
                    let v = self.check_expr(end, Some(&scrut.ty));
                    let op = match r.limits {
                        syn::RangeLimits::Closed(_) => BinOp::Le,
                        syn::RangeLimits::HalfOpen(_) => BinOp::Lt,
                    };
                    conds.push(cmp(self, op, scrut.clone(), v, end.span()));
                }
                conds
                    .into_iter()
                    .reduce(|a, b| cmp(self, BinOp::And, a, b, r.span()))
            }
            syn::Pat::Or(o) => {
                let mut acc: Option<Expr<ITy>> = None;
                for case in &o.cases {
                    // A catch-all case makes the whole pattern a catch-all.
                    let c = self.pattern_cond(case, scrut, prologue)?;
                    acc = Some(match acc {
                        None => c,
                        Some(a) => cmp(self, BinOp::Or, a, c, o.span()),
                    });
                }
                acc
            }
            syn::Pat::Guard(g) => {
                self.err(
                    g.if_token.span,
                    "match guards are not supported; use `if`/`else` inside the arm",
                );
                // Bind the pattern anyway, so the arm reports its own mistakes only.
                self.pattern_cond(&g.pat, scrut, prologue)
            }
            other => {
                self.err(other.span(), "unsupported pattern; `match` arms take integer or bool literals, ranges (`1..=9`), `|`, `_` and a binding name");
                None
            }
        }
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

fn block_expr(block: Block<ITy>, ty: ITy, line: u32) -> Expr<ITy> {
    if block.stmts.is_empty() {
        return *block.value;
    }
    Expr {
        kind: ExprKind::Block(block),
        ty,
        line,
    }
}

fn error_expr(line: u32) -> Expr<ITy> {
    Expr {
        kind: ExprKind::Lit(Lit::Bool(false)),
        ty: ITy::Error,
        line,
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
fn fold_literals(block: Block<Ty>, f32_readings: &HashMap<u64, f32>) -> Block<Ty> {
    let fix = &|e: Expr<Ty>| fix_expr(e, f32_readings);
    fn fix_expr(e: Expr<Ty>, r: &HashMap<u64, f32>) -> Expr<Ty> {
        let fix = |e: Expr<Ty>| fix_expr(e, r);
        let fix_block = |b: Block<Ty>| fold_literals(b, r);
        let Expr { kind, ty, line } = e;
        let kind = match kind {
            ExprKind::Lit(Lit::Float(v)) if ty == Ty::Scalar(Scalar::F32) => {
                let direct = r.get(&v.to_bits()).copied().unwrap_or(v as f32);
                ExprKind::Lit(Lit::Float(direct as f64))
            }
            ExprKind::Unary(UnOp::Neg, inner) => match fix(*inner) {
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
            ExprKind::Unary(op, a) => ExprKind::Unary(op, Box::new(fix(*a))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(op, Box::new(fix(*a)), Box::new(fix(*b)))
            }
            ExprKind::Cast(a) => ExprKind::Cast(Box::new(fix(*a))),
            ExprKind::Call(b, args) => ExprKind::Call(b, args.into_iter().map(fix).collect()),
            ExprKind::If(c, a, b) => ExprKind::If(Box::new(fix(*c)), fix_block(a), fix_block(b)),
            ExprKind::Tuple(items) => ExprKind::Tuple(items.into_iter().map(fix).collect()),
            ExprKind::Field(a, i) => ExprKind::Field(Box::new(fix(*a)), i),
            ExprKind::Block(b) => ExprKind::Block(fix_block(b)),
            other => other,
        };
        Expr { kind, ty, line }
    }
    fn fix_stmt(s: Stmt<Ty>, r: &HashMap<u64, f32>) -> Stmt<Ty> {
        let fix = |e: Expr<Ty>| fix_expr(e, r);
        match s {
            Stmt::Let { var, init, line } => Stmt::Let {
                var,
                init: fix(init),
                line,
            },
            Stmt::Assign { var, value, line } => Stmt::Assign {
                var,
                value: fix(value),
                line,
            },
            Stmt::If {
                cond,
                then,
                els,
                line,
            } => Stmt::If {
                cond: fix(cond),
                then: then.into_iter().map(|s| fix_stmt(s, r)).collect(),
                els: els.into_iter().map(|s| fix_stmt(s, r)).collect(),
                line,
            },
        }
    }
    Block {
        stmts: block
            .stmts
            .into_iter()
            .map(|s| fix_stmt(s, f32_readings))
            .collect(),
        value: Box::new(fix(*block.value)),
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

fn simple_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::Add(_) => BinOp::Add,
        S::Sub(_) => BinOp::Sub,
        S::Mul(_) => BinOp::Mul,
        S::Div(_) => BinOp::Div,
        S::Rem(_) => BinOp::Rem,
        S::And(_) => BinOp::And,
        S::Or(_) => BinOp::Or,
        S::BitXor(_) => BinOp::BitXor,
        S::BitAnd(_) => BinOp::BitAnd,
        S::BitOr(_) => BinOp::BitOr,
        S::Shl(_) => BinOp::Shl,
        S::Shr(_) => BinOp::Shr,
        S::Eq(_) => BinOp::Eq,
        S::Lt(_) => BinOp::Lt,
        S::Le(_) => BinOp::Le,
        S::Ne(_) => BinOp::Ne,
        S::Ge(_) => BinOp::Ge,
        S::Gt(_) => BinOp::Gt,
        _ => return None,
    })
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as S;
    Some(match op {
        S::AddAssign(_) => BinOp::Add,
        S::SubAssign(_) => BinOp::Sub,
        S::MulAssign(_) => BinOp::Mul,
        S::DivAssign(_) => BinOp::Div,
        S::RemAssign(_) => BinOp::Rem,
        S::BitXorAssign(_) => BinOp::BitXor,
        S::BitAndAssign(_) => BinOp::BitAnd,
        S::BitOrAssign(_) => BinOp::BitOr,
        S::ShlAssign(_) => BinOp::Shl,
        S::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    })
}

/// Why loops are refused.
const NO_LOOPS: &str = "the kernels call the function once per value (or pair of values); express the computation without a loop";

/// The span and message for an expression form the DSL refuses.
fn unsupported_expr(e: &syn::Expr) -> (Span, String) {
    use syn::Expr as E;
    let (span, what, instead): (Span, &str, &str) = match e {
        E::ForLoop(x) => (x.for_token.span, "`for` loops are", NO_LOOPS),
        E::While(x) => (x.while_token.span, "`while` loops are", NO_LOOPS),
        E::Loop(x) => (x.loop_token.span, "`loop` is", NO_LOOPS),
        E::Closure(x) => (
            x.inputs_begin.span,
            "closures are",
            "write the expression inline",
        ),
        E::Reference(x) => (
            x.and_token.span,
            "references are",
            "take values; scalars and tuples are `Copy`",
        ),
        E::RawAddr(x) => (x.and_token.span, "raw pointers are", "take values"),
        E::Macro(x) => (
            x.mac.path.span(),
            "macros are",
            "write the expression the macro would produce",
        ),
        E::Index(x) => (
            x.bracket_token.span.join(),
            "indexing is",
            "the DSL has no arrays; use a tuple and `.0`, `.1`",
        ),
        E::Array(x) => (x.bracket_token.span.join(), "arrays are", "use a tuple"),
        E::Repeat(x) => (x.bracket_token.span.join(), "arrays are", "use a tuple"),
        E::Range(x) => (
            x.span(),
            "ranges are",
            "ranges appear only in `match` patterns",
        ),
        E::Struct(x) => (
            x.path.span(),
            "structs are",
            "structs are not part of the DSL yet; use a tuple",
        ),
        E::Return(x) => (
            x.return_token.span,
            "`return` is",
            "make the value the last expression of the body, without `return` and `;`",
        ),
        E::Break(x) => (x.break_token.span, "`break` is", "the DSL has no loops"),
        E::Continue(x) => (
            x.continue_token.span,
            "`continue` is",
            "the DSL has no loops",
        ),
        E::Try(x) => (
            x.question_token.span,
            "the `?` operator is",
            "the DSL has no `Result` or `Option`",
        ),
        E::Async(x) => (
            x.async_token.span,
            "`async` blocks are",
            "GPU code is synchronous",
        ),
        E::Await(x) => (x.await_token.span, "`.await` is", "GPU code is synchronous"),
        E::Unsafe(x) => (
            x.unsafe_token.span,
            "`unsafe` blocks are",
            "the DSL has nothing unsafe",
        ),
        E::Let(x) => (
            x.let_token.span,
            "`let` expressions are",
            "use `let` statements",
        ),
        E::Const(x) => (x.const_token.span, "`const` blocks are", "write the value"),
        E::Yield(x) => (x.yield_token.span, "`yield` is", "remove it"),
        E::TryBlock(x) => (x.try_token.span, "`try` blocks are", "remove it"),
        E::Infer(x) => (x.underscore_token.span, "`_` is", "write a value"),
        other => (
            other.span(),
            "this expression is",
            "see the DSL reference for the supported forms",
        ),
    };
    (span, format!("{what} not supported by warp-dsl: {instead}"))
}
