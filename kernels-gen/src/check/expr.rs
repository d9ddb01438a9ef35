//! Expressions: the dispatch on expression kinds, operators, tuples, fields, `if` and `match`.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use warp_kernels::ir::{BinOp, Block, Expr, ExprKind, Lit, Stmt, UnOp};
use warp_kernels::types::Scalar;

use super::infer::{ITy, ShowTy, VarKind};
use super::{Checker, Deferred, block_tail_span, error_expr};
use crate::diag::line_of;

/// A `match` arm lowered: its condition (`None`: it always matches) and its body.
type Arm = (Option<Expr<ITy>>, Block<ITy>);

impl Checker<'_> {
    pub(super) fn check_cond(&mut self, e: &syn::Expr) -> Expr<ITy> {
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

    /// Checks an expression; `expected` is the type its context wants, if known (a hint for
    /// literals: the caller unifies).
    pub(super) fn check_expr(&mut self, e: &syn::Expr, expected: Option<&ITy>) -> Expr<ITy> {
        let line = line_of(e.span());
        match e {
            syn::Expr::Lit(l) => self.check_lit(&l.lit, expected, line),
            syn::Expr::Paren(p) => self.check_expr(&p.expr, expected),
            syn::Expr::Group(g) => self.check_expr(&g.expr, expected),
            syn::Expr::Path(p) => self.check_path(p, line),
            syn::Expr::Unary(u) => self.check_unary(u, expected, line),
            syn::Expr::Binary(b) => self.check_binary(b, line),
            syn::Expr::Cast(c) => self.check_cast(c, line),
            syn::Expr::MethodCall(m) => self.check_method(m, line),
            syn::Expr::Call(c) => self.check_call(c, line),
            syn::Expr::If(ei) => self.check_if_expr(ei, expected, line),
            syn::Expr::Match(m) => self.check_match(m, expected, line),
            syn::Expr::Block(b) => self.check_block_expr(b, expected, line),
            syn::Expr::Tuple(t) => self.check_tuple(t, expected, line),
            syn::Expr::Field(f) => self.check_field(f, line),
            syn::Expr::Struct(st) => self.check_struct_lit(st, line),
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

    fn check_unary(&mut self, u: &syn::ExprUnary, expected: Option<&ITy>, line: u32) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
        match &u.op {
            syn::UnOp::Neg(t) => self.check_neg(u, t.span, expected, line),
            syn::UnOp::Not(t) => self.check_not(u, t.span, expected, line),
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

    /// `-x` (`op_span`: the `-`).
    fn check_neg(
        &mut self,
        u: &syn::ExprUnary,
        op_span: Span,
        expected: Option<&ITy>,
        line: u32,
    ) -> Expr<ITy> {
        let inner = self.check_expr(&u.expr, expected);
        let ty = inner.ty.clone();
        match self.shallow(&ty) {
            ITy::S(s) if s.is_unsigned_int() => {
                self.err(op_span, format!("cannot apply unary operator `-` to type `{s}`; unsigned values have no negation (use `wrapping_neg`)"));
            }
            ITy::S(s) if !s.is_numeric() && !s.is_half() => {
                self.err(
                    op_span,
                    format!("cannot apply unary operator `-` to type `{s}`"),
                );
            }
            ITy::Tuple(_) | ITy::Struct(..) => {
                self.err(
                    op_span,
                    "cannot apply unary operator `-` to a tuple or a struct",
                );
            }
            ITy::Var(_) => self.deferred.push(Deferred::Neg {
                ty: ty.clone(),
                span: op_span,
            }),
            _ => {}
        }
        if let (ExprKind::Lit(Lit::Int(v)), syn::Expr::Lit(_)) = (&inner.kind, &*u.expr) {
            // `-128i8`: the literal (as written, not a named constant) is checked with its sign.
            self.retarget_int_lit(*v, -*v);
        }
        Expr {
            kind: ExprKind::Unary(UnOp::Neg, Box::new(inner)),
            ty,
            line,
        }
    }

    /// `!x` (`op_span`: the `!`).
    fn check_not(
        &mut self,
        u: &syn::ExprUnary,
        op_span: Span,
        expected: Option<&ITy>,
        line: u32,
    ) -> Expr<ITy> {
        let inner = self.check_expr(&u.expr, expected);
        let ty = inner.ty.clone();
        let bad = match self.shallow(&ty) {
            ITy::S(s) => s.is_float() || s.is_half(),
            ITy::Var(_) => self.var_kind(&ty) == Some(VarKind::Float),
            ITy::Tuple(_) | ITy::Struct(..) => true,
            ITy::Error => false,
        };
        if bad {
            let msg = format!(
                "cannot apply unary operator `!` to type `{}`",
                ShowTy(self, &ty)
            );
            self.err(op_span, msg);
        }
        Expr {
            kind: ExprKind::Unary(UnOp::Not, Box::new(inner)),
            ty,
            line,
        }
    }

    /// `a OP b` in an expression (compound assignments are statements).
    fn check_binary(&mut self, b: &syn::ExprBinary, line: u32) -> Expr<ITy> {
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

    /// Types `lhs op rhs` (both checked already), reporting at the operator or the right side.
    pub(super) fn binary(
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
                if matches!(self.shallow(&lt), ITy::Tuple(_) | ITy::Struct(..)) {
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
                self.require(&lt, op_span, op, |s| s.is_numeric() || s.is_half(), None);
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
            ITy::Tuple(_) | ITy::Struct(..) => true,
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

    /// `{ ... }` as a value.
    fn check_block_expr(
        &mut self,
        b: &syn::ExprBlock,
        expected: Option<&ITy>,
        line: u32,
    ) -> Expr<ITy> {
        if let Some(l) = &b.label {
            self.err(l.span(), "labelled blocks are not supported");
        }
        let block = self.check_block(&b.block, expected, true);
        let ty = block.value.ty.clone();
        Expr {
            kind: ExprKind::Block(block),
            ty,
            line,
        }
    }

    /// `(a, b, ...)`: flat tuples of at most `MAX_TUPLE` elements.
    fn check_tuple(&mut self, t: &syn::ExprTuple, expected: Option<&ITy>, line: u32) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
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

    /// `S { a: .., b: .. }`: a literal of a `#[derive(DeviceValue)]` struct, every field given
    /// once, in any order (the IR builds the fields' tuple in declaration order).
    fn check_struct_lit(&mut self, st: &syn::ExprStruct, line: u32) -> Expr<ITy> {
        let name = st
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let Some((si, def)) = crate::structs::lookup(&name) else {
            self.err(
                st.path.span(),
                format!("unknown struct `{name}`: structs in bodies are `#[derive(DeviceValue)]` structs of this crate"),
            );
            return error_expr(line);
        };
        if let Some(rest) = &st.rest {
            self.err(
                rest.span(),
                "`..base` is not supported in a struct literal; give every field",
            );
        }
        let mut slots: Vec<Option<Expr<ITy>>> = vec![None; def.fields.len()];
        let mut order = Vec::new();
        for fv in &st.fields {
            let fname = match &fv.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            let Some(i) = def.field(&fname) else {
                self.err(
                    fv.member.span(),
                    format!(
                        "`{name}` has no field `{fname}`; its fields are {}",
                        def.fields
                            .iter()
                            .map(|f| f.0.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                continue;
            };
            let want = ITy::S(def.fields[i].1);
            let v = self.check_expr(&fv.expr, Some(&want));
            self.unify(&want, &v.ty.clone(), fv.expr.span());
            if slots[i].is_some() {
                self.err(fv.member.span(), format!("field `{fname}` given twice"));
                continue;
            }
            order.push(i);
            slots[i] = Some(v);
        }
        let missing: Vec<&str> = def
            .fields
            .iter()
            .zip(&slots)
            .filter(|(_, s)| s.is_none())
            .map(|(f, _)| f.0.as_str())
            .collect();
        if !missing.is_empty() {
            self.err(
                st.span(),
                format!("missing field(s) {} in `{name}`", missing.join(", ")),
            );
            return error_expr(line);
        }
        let items: Vec<Expr<ITy>> = slots.into_iter().flatten().collect();
        // Rust evaluates the fields in the order written: the tuple does so in declaration
        // order, the same unless a field's value assigns variables out of order.
        let in_order = order.windows(2).all(|w| w[0] < w[1]);
        if !in_order && items.iter().any(|e| e.has_effects()) {
            self.err(
                st.span(),
                "write the fields in declaration order when their values assign variables (Rust evaluates them in the order written)",
            );
        }
        let ty = ITy::Struct(si, items.iter().map(|x| x.ty.clone()).collect());
        Expr {
            kind: ExprKind::Tuple(items),
            ty,
            line,
        }
    }

    /// `t.0`: tuple fields; `s.name`: fields of a `#[derive(DeviceValue)]` struct.
    fn check_field(&mut self, f: &syn::ExprField, line: u32) -> Expr<ITy> {
        let mk = |kind, ty| Expr { kind, ty, line };
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
                            format!("no field `{i}`: the tuple has {} elements", items.len()),
                        );
                        mk(ExprKind::Lit(Lit::Bool(false)), ty)
                    }
                    ITy::Error => error_expr(line),
                    other => {
                        let msg = format!("`.{i}` needs a tuple, found `{}`", ShowTy(self, &other));
                        let ty = self.err(idx.span, msg);
                        mk(ExprKind::Lit(Lit::Bool(false)), ty)
                    }
                }
            }
            syn::Member::Named(_) if base.ty == ITy::Error => error_expr(line),
            syn::Member::Named(n) => match self.shallow(&base.ty) {
                ITy::Struct(si, items) => {
                    let def = crate::structs::get(si);
                    match def.as_ref().and_then(|d| d.field(&n.to_string())) {
                        Some(i) => {
                            let ty = items[i].clone();
                            mk(ExprKind::Field(Box::new(base), i), ty)
                        }
                        None => {
                            let names: Vec<String> = def
                                .map(|d| d.fields.into_iter().map(|f| f.0).collect())
                                .unwrap_or_default();
                            let msg = format!(
                                "no field `{n}` on `{}`; its fields are {}",
                                ShowTy(self, &base.ty),
                                names.join(", ")
                            );
                            let ty = self.err(n.span(), msg);
                            mk(ExprKind::Lit(Lit::Bool(false)), ty)
                        }
                    }
                }
                other => {
                    let msg = format!(
                        "no field `{n}` on `{}`: named fields are those of a `#[derive(DeviceValue)]` struct (tuples use `.0`, `.1`)",
                        ShowTy(self, &other)
                    );
                    let ty = self.err(n.span(), msg);
                    mk(ExprKind::Lit(Lit::Bool(false)), ty)
                }
            },
        }
    }

    /// `if c { a } else { b }` as a value.
    pub(super) fn check_if_expr(
        &mut self,
        ei: &syn::ExprIf,
        expected: Option<&ITy>,
        line: u32,
    ) -> Expr<ITy> {
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
        let (arms, ty) = self.match_arms(m, &tmp_expr, expected);
        let acc = if_chain(arms, &ty, line);
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

    /// The arms of a `match` on `scrut` (a temporary), and their common type.
    fn match_arms(
        &mut self,
        m: &syn::ExprMatch,
        scrut: &Expr<ITy>,
        expected: Option<&ITy>,
    ) -> (Vec<Arm>, ITy) {
        let mut arms: Vec<Arm> = Vec::new();
        let mut result_ty: Option<ITy> = None;
        for arm in &m.arms {
            self.scopes.push(HashMap::new());
            let mut prologue = Vec::new();
            let cond = self.pattern_cond(&arm.pat, scrut, &mut prologue);
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
        (arms, result_ty.unwrap_or(ITy::Error))
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
                Some(self.compare(BinOp::Eq, scrut.clone(), v, l.span(), line))
            }
            syn::Pat::Path(p) => {
                let v = self.check_path(p, line);
                Some(self.compare(BinOp::Eq, scrut.clone(), v, p.span(), line))
            }
            syn::Pat::Range(r) => self.range_cond(r, scrut),
            syn::Pat::Or(o) => {
                let mut acc: Option<Expr<ITy>> = None;
                for case in &o.cases {
                    // A catch-all case makes the whole pattern a catch-all.
                    let c = self.pattern_cond(case, scrut, prologue)?;
                    acc = Some(match acc {
                        None => c,
                        Some(a) => self.compare(BinOp::Or, a, c, o.span(), line),
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

    /// The condition of a range pattern (`lo..=hi`, `lo..hi`, `lo..`, `..=hi`).
    fn range_cond(&mut self, r: &syn::PatRange, scrut: &Expr<ITy>) -> Option<Expr<ITy>> {
        let line = scrut.line;
        let mut conds = Vec::new();
        if let Some(start) = &r.start {
            let v = self.check_expr(start, Some(&scrut.ty));
            conds.push(self.compare(BinOp::Ge, scrut.clone(), v, start.span(), line));
        }
        if let Some(end) = &r.end {
            let v = self.check_expr(end, Some(&scrut.ty));
            let op = match r.limits {
                syn::RangeLimits::Closed(_) => BinOp::Le,
                syn::RangeLimits::HalfOpen(_) => BinOp::Lt,
            };
            conds.push(self.compare(op, scrut.clone(), v, end.span(), line));
        }
        conds
            .into_iter()
            .reduce(|a, b| self.compare(BinOp::And, a, b, r.span(), line))
    }

    /// `a op b` for a pattern's condition, reported at the pattern (`span`), on the line of
    /// the `match`'s scrutinee.
    fn compare(
        &mut self,
        op: BinOp,
        a: Expr<ITy>,
        b: Expr<ITy>,
        span: Span,
        line: u32,
    ) -> Expr<ITy> {
        self.binary(op, a, b, span, span, line)
    }
}

/// The `if` chain of a `match`'s arms, built from the last arm up; the last arm is the final
/// `else` (rustc has proved the match exhaustive, so it is reached exactly when no earlier arm
/// matched).
fn if_chain(arms: Vec<Arm>, ty: &ITy, line: u32) -> Expr<ITy> {
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
    acc
}

/// A block as an expression (its value alone when it has no statements).
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

/// The operator of a compound assignment (`+=` is `Add`), if `op` is one.
pub(super) fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
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

/// A refused form: where to report it, what it is, what to do instead.
type Refusal = (Span, &'static str, &'static str);

/// The span and message for an expression form the DSL refuses.
fn unsupported_expr(e: &syn::Expr) -> (Span, String) {
    let (span, what, instead) = refused_control_flow(e)
        .or_else(|| refused_value_form(e))
        .unwrap_or((
            e.span(),
            "this expression is",
            "see the DSL reference for the supported forms",
        ));
    (span, format!("{what} not supported by warp-dsl: {instead}"))
}

/// Loops, jumps and the other forms about control flow.
fn refused_control_flow(e: &syn::Expr) -> Option<Refusal> {
    use syn::Expr as E;
    Some(match e {
        E::ForLoop(x) => (x.for_token.span, "`for` loops are", NO_LOOPS),
        E::While(x) => (x.while_token.span, "`while` loops are", NO_LOOPS),
        E::Loop(x) => (x.loop_token.span, "`loop` is", NO_LOOPS),
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
        _ => return None,
    })
}

/// Closures, references, macros, arrays, ranges, structs and `_`.
fn refused_value_form(e: &syn::Expr) -> Option<Refusal> {
    use syn::Expr as E;
    Some(match e {
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
        E::Infer(x) => (x.underscore_token.span, "`_` is", "write a value"),
        _ => return None,
    })
}
