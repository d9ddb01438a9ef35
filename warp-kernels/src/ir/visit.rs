//! The one walker over the IR: [`Visit`] reads a tree, [`Fold`] rebuilds it (its type
//! annotations possibly of another type); the `walk_*` and `fold_*` functions recurse into a
//! node's children, so a traversal overrides only the nodes it is about.
//!
//! As in `syn::visit`: a visitor's `visit_expr` does its work and calls [`walk_expr`] to go on
//! into the children (or does not, to stop there).
//!
//! ```
//! use warp_kernels::ir::visit::{self, Visit};
//! use warp_kernels::ir::{BinOp, Expr, ExprKind};
//! use warp_kernels::types::{Scalar, Ty};
//!
//! /// Counts the variable reads of a tree.
//! struct Reads(usize);
//! impl<'ir> Visit<'ir> for Reads {
//!     fn visit_expr(&mut self, e: &'ir Expr) {
//!         if let ExprKind::Var(_) = e.kind {
//!             self.0 += 1;
//!         }
//!         visit::walk_expr(self, e);
//!     }
//! }
//!
//! let var = |v| Expr { kind: ExprKind::Var(v), ty: Ty::Scalar(Scalar::I32), line: 1 };
//! let sum = Expr {
//!     kind: ExprKind::Binary(BinOp::Add, Box::new(var(0)), Box::new(var(1))),
//!     ty: Ty::Scalar(Scalar::I32),
//!     line: 1,
//! };
//! let mut reads = Reads(0);
//! reads.visit_expr(&sum);
//! assert_eq!(reads.0, 2);
//! ```

use super::{Block, Expr, ExprKind, Function, Stmt, Var};
use crate::types::Ty;

/// A read-only traversal of the IR. Every method's default goes on into the node's children
/// (through the `walk_*` function of the same name); a visitor overrides the ones it needs.
pub trait Visit<'ir, T: 'ir = Ty> {
    /// A function: its result type, its variables' types, then its body.
    fn visit_function(&mut self, f: &'ir Function<T>) {
        walk_function(self, f);
    }

    /// A block: its statements, then its value.
    fn visit_block(&mut self, b: &'ir Block<T>) {
        walk_block(self, b);
    }

    /// A statement: its expressions and nested statements, in evaluation order.
    fn visit_stmt(&mut self, s: &'ir Stmt<T>) {
        walk_stmt(self, s);
    }

    /// An expression: its type, then its operands in evaluation order.
    fn visit_expr(&mut self, e: &'ir Expr<T>) {
        walk_expr(self, e);
    }

    /// A type annotation (of an expression, a variable or a function's result); a leaf.
    fn visit_ty(&mut self, _ty: &'ir T) {}
}

/// Visits `f`'s result type, every variable's type, then its body.
pub fn walk_function<'ir, T: 'ir, V: Visit<'ir, T> + ?Sized>(v: &mut V, f: &'ir Function<T>) {
    v.visit_ty(&f.ret);
    for var in &f.vars {
        v.visit_ty(&var.ty);
    }
    v.visit_block(&f.body);
}

/// Visits `b`'s statements, then its value.
pub fn walk_block<'ir, T: 'ir, V: Visit<'ir, T> + ?Sized>(v: &mut V, b: &'ir Block<T>) {
    for s in &b.stmts {
        v.visit_stmt(s);
    }
    v.visit_expr(&b.value);
}

/// Visits the expressions of `s` and its nested statements (a statement `if`: the condition,
/// then both arms' statements).
pub fn walk_stmt<'ir, T: 'ir, V: Visit<'ir, T> + ?Sized>(v: &mut V, s: &'ir Stmt<T>) {
    match s {
        Stmt::Let { init: e, .. } | Stmt::Assign { value: e, .. } => v.visit_expr(e),
        Stmt::If {
            cond, then, els, ..
        } => {
            v.visit_expr(cond);
            for s in then.iter().chain(els) {
                v.visit_stmt(s);
            }
        }
    }
}

/// Visits `e`'s type, then its operands left to right (a value `if`: the condition, then both
/// arms).
pub fn walk_expr<'ir, T: 'ir, V: Visit<'ir, T> + ?Sized>(v: &mut V, e: &'ir Expr<T>) {
    v.visit_ty(&e.ty);
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Var(_) => {}
        ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Field(a, _) => v.visit_expr(a),
        ExprKind::Binary(_, a, b) => {
            v.visit_expr(a);
            v.visit_expr(b);
        }
        ExprKind::Call(_, xs) | ExprKind::Tuple(xs) => {
            for x in xs {
                v.visit_expr(x);
            }
        }
        ExprKind::If(c, a, b) => {
            v.visit_expr(c);
            v.visit_block(a);
            v.visit_block(b);
        }
        ExprKind::Block(b) => v.visit_block(b),
    }
}

/// A rebuilding traversal of the IR, by value: every type annotation goes through
/// [`Fold::fold_ty`] (from `T` to `U`), and every node's default rebuilds it from its folded
/// children (through the `fold_*` function of the same name). Children are folded before the
/// node's own type, left to right.
pub trait Fold<T, U = T> {
    /// A type annotation.
    fn fold_ty(&mut self, ty: T) -> U;

    /// A function: its result type, its variables, then its body.
    fn fold_function(&mut self, f: Function<T>) -> Function<U> {
        fold_function(self, f)
    }

    /// A block: its statements, then its value.
    fn fold_block(&mut self, b: Block<T>) -> Block<U> {
        fold_block(self, b)
    }

    /// A statement.
    fn fold_stmt(&mut self, s: Stmt<T>) -> Stmt<U> {
        fold_stmt(self, s)
    }

    /// An expression.
    fn fold_expr(&mut self, e: Expr<T>) -> Expr<U> {
        fold_expr(self, e)
    }
}

/// Rebuilds `f` with its result type, its variables' types and its body folded (in that order).
pub fn fold_function<T, U, F: Fold<T, U> + ?Sized>(folder: &mut F, f: Function<T>) -> Function<U> {
    Function {
        name: f.name,
        params: f.params,
        ret: folder.fold_ty(f.ret),
        vars: f
            .vars
            .into_iter()
            .map(|v| Var {
                name: v.name,
                ty: folder.fold_ty(v.ty),
                mutable: v.mutable,
            })
            .collect(),
        body: folder.fold_block(f.body),
        file: f.file,
        line: f.line,
    }
}

/// Rebuilds `b` from its folded statements and value.
pub fn fold_block<T, U, F: Fold<T, U> + ?Sized>(folder: &mut F, b: Block<T>) -> Block<U> {
    Block {
        stmts: b.stmts.into_iter().map(|s| folder.fold_stmt(s)).collect(),
        value: Box::new(folder.fold_expr(*b.value)),
    }
}

/// Rebuilds `s` from its folded expressions and nested statements.
pub fn fold_stmt<T, U, F: Fold<T, U> + ?Sized>(folder: &mut F, s: Stmt<T>) -> Stmt<U> {
    match s {
        Stmt::Let { var, init, line } => Stmt::Let {
            var,
            init: folder.fold_expr(init),
            line,
        },
        Stmt::Assign { var, value, line } => Stmt::Assign {
            var,
            value: folder.fold_expr(value),
            line,
        },
        Stmt::If {
            cond,
            then,
            els,
            line,
        } => Stmt::If {
            cond: folder.fold_expr(cond),
            then: then.into_iter().map(|s| folder.fold_stmt(s)).collect(),
            els: els.into_iter().map(|s| folder.fold_stmt(s)).collect(),
            line,
        },
    }
}

/// Rebuilds `e` from its folded operands, then folds its type.
pub fn fold_expr<T, U, F: Fold<T, U> + ?Sized>(folder: &mut F, e: Expr<T>) -> Expr<U> {
    let mut sub = |x: Box<Expr<T>>| Box::new(folder.fold_expr(*x));
    let kind = match e.kind {
        ExprKind::Lit(l) => ExprKind::Lit(l),
        ExprKind::Var(v) => ExprKind::Var(v),
        ExprKind::Unary(op, a) => ExprKind::Unary(op, sub(a)),
        ExprKind::Binary(op, a, b) => {
            let a = sub(a);
            ExprKind::Binary(op, a, sub(b))
        }
        ExprKind::Cast(a) => ExprKind::Cast(sub(a)),
        ExprKind::Field(a, i) => ExprKind::Field(sub(a), i),
        ExprKind::Call(b, xs) => {
            ExprKind::Call(b, xs.into_iter().map(|x| folder.fold_expr(x)).collect())
        }
        ExprKind::Tuple(xs) => {
            ExprKind::Tuple(xs.into_iter().map(|x| folder.fold_expr(x)).collect())
        }
        ExprKind::If(c, a, b) => {
            let c = Box::new(folder.fold_expr(*c));
            let a = folder.fold_block(a);
            ExprKind::If(c, a, folder.fold_block(b))
        }
        ExprKind::Block(b) => ExprKind::Block(folder.fold_block(b)),
    };
    Expr {
        kind,
        ty: folder.fold_ty(e.ty),
        line: e.line,
    }
}
