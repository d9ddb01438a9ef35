//! Blocks and statements: scopes, `let` and parameter patterns, assignments, statement `if`s.

use std::collections::HashMap;

use syn::spanned::Spanned;
use warp_kernels::ir::{Block, Expr, ExprKind, Stmt, Var, VarId};

use super::expr::compound_op;
use super::infer::{ITy, ShowTy};
use super::{Checker, error_expr};
use crate::diag::line_of;

impl Checker<'_> {
    // ----- variables and patterns -----

    pub(super) fn declare(&mut self, name: &str, ty: ITy, mutable: bool) -> VarId {
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

    pub(super) fn temp(&mut self, ty: ITy) -> VarId {
        let id = self.vars.len();
        self.vars.push(Var {
            name: "tmp".to_string(),
            ty,
            mutable: false,
        });
        id
    }

    pub(super) fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Binds a parameter pattern; tuple patterns become a parameter plus `let`s of its fields.
    pub(super) fn bind_pattern_param(
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
                let ty = match ITy::of_syn(&pt.ty) {
                    Ok(t) => t,
                    Err(e) => {
                        self.diags.push(e);
                        ITy::Error
                    }
                };
                self.unify(&ty, &value.ty.clone(), pt.pat.span());
                self.bind_let_pattern(&pt.pat, value, out);
            }
            syn::Pat::Tuple(pt) => self.bind_tuple_pattern(pat, pt, value, out),
            other => {
                self.err(
                    other.span(),
                    "unsupported pattern; `let` takes a name, `mut name`, `_`, or a tuple of these",
                );
            }
        }
    }

    /// `let (p0, p1, ...) = value;`: a temporary holds the tuple, each element pattern binds a
    /// field of it. `pat` is the whole pattern (`pt` itself).
    fn bind_tuple_pattern(
        &mut self,
        pat: &syn::Pat,
        pt: &syn::PatTuple,
        value: Expr<ITy>,
        out: &mut Vec<Stmt<ITy>>,
    ) {
        let line = line_of(pat.span());
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
                self.err(
                    p.span(),
                    "`..` in tuple patterns is not supported; name every element or use `_`",
                );
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

    // ----- blocks and statements -----

    /// Checks a block whose value is used (`value_needed`) or a statement block.
    pub(super) fn check_block(
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
            syn::Stmt::Local(local) => self.check_local(local, out),
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

    /// A `let` statement: its value (typed by the pattern's annotation, if any) bound to its
    /// pattern.
    fn check_local(&mut self, local: &syn::Local, out: &mut Vec<Stmt<ITy>>) {
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
            syn::Pat::Type(pt) => ITy::of_syn(&pt.ty).ok(),
            _ => None,
        };
        let value = self.check_expr(&init.expr, hint.as_ref());
        self.bind_let_pattern(&local.pat, value, out);
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
                self.check_stmts(&b.block, out);
                self.scopes.pop();
            }
            syn::Expr::Paren(p) => self.check_expr_stmt(&p.expr, out),
            other => {
                // A pure expression statement has no effect; check it for errors and drop it.
                let _ = self.check_expr(other, None);
            }
        }
    }

    /// The statements of a block whose value is not used (a final expression without `;` is a
    /// statement too).
    fn check_stmts(&mut self, block: &syn::Block, out: &mut Vec<Stmt<ITy>>) {
        for (i, s) in block.stmts.iter().enumerate() {
            let last = i + 1 == block.stmts.len();
            if let (true, syn::Stmt::Expr(e, None)) = (last, s) {
                self.check_expr_stmt(e, out);
            } else {
                self.check_stmt(s, out, false);
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
        self.check_stmts(block, &mut out);
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
}
