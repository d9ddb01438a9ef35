//! The typed IR: what the checker makes of a Rust body and the lowering turns into CUDA C.
//!
//! The tree is generic over its type annotation: the checker builds it with inference
//! variables and resolves it into `Function<Ty>` once every type is known (kernels-gen's check).

use crate::types::{Scalar, Ty};

/// Index of a variable in [`Function::vars`].
pub type VarId = usize;

/// A variable: a parameter, a `let`, or a temporary the checker introduced.
#[derive(Clone, Debug, PartialEq)]
pub struct Var<T = Ty> {
    /// The Rust name (temporaries start with `tmp`).
    pub name: String,
    /// Its type.
    pub ty: T,
    /// Whether it is assigned after its declaration.
    pub mutable: bool,
}

/// A checked function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<T = Ty> {
    /// The Rust name.
    pub name: String,
    /// The parameters, in order.
    pub params: Vec<VarId>,
    /// The return type.
    pub ret: T,
    /// Every variable of the body.
    pub vars: Vec<Var<T>>,
    /// The body.
    pub body: Block<T>,
    /// The Rust source file, as the compiler names it (for `#line`).
    pub file: String,
    /// The line of the `fn` keyword.
    pub line: u32,
}

/// A block: statements, then the value.
#[derive(Clone, Debug, PartialEq)]
pub struct Block<T = Ty> {
    /// The statements.
    pub stmts: Vec<Stmt<T>>,
    /// The value of the block.
    pub value: Box<Expr<T>>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt<T = Ty> {
    /// `let var = init;`
    Let {
        /// The declared variable.
        var: VarId,
        /// Its initial value.
        init: Expr<T>,
        /// Source line.
        line: u32,
    },
    /// `var = value;` (compound assignments are desugared into this).
    Assign {
        /// The assigned variable.
        var: VarId,
        /// The new value.
        value: Expr<T>,
        /// Source line.
        line: u32,
    },
    /// `if cond { .. } else { .. }` used as a statement (its arms assign variables).
    If {
        /// The condition.
        cond: Expr<T>,
        /// Statements when true.
        then: Vec<Stmt<T>>,
        /// Statements when false.
        els: Vec<Stmt<T>>,
        /// Source line.
        line: u32,
    },
}

/// An expression with its type and source line.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr<T = Ty> {
    /// What it computes.
    pub kind: ExprKind<T>,
    /// Its type.
    pub ty: T,
    /// Source line.
    pub line: u32,
}

/// A literal value; its type is the expression's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// `true` / `false`
    Bool(bool),
    /// An integer (fits the expression's type; checked).
    Int(i128),
    /// A float, held exactly (an `f32` value widened to `f64` is exact).
    Float(f64),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x` (wrapping for integers)
    Neg,
    /// `!x` (logical for bool, bitwise for integers)
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinOp {
    /// The Rust spelling.
    pub fn rust(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// `true` for the comparisons, whose result is `bool`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

pub use crate::builtins::Builtin;

/// Expression kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind<T = Ty> {
    /// A literal or a named constant (`f32::INFINITY` is a `Lit::Float`).
    Lit(Lit),
    /// A variable.
    Var(VarId),
    /// A unary operation.
    Unary(UnOp, Box<Expr<T>>),
    /// A binary operation; both sides have the same type except for shifts.
    Binary(BinOp, Box<Expr<T>>, Box<Expr<T>>),
    /// `expr as <the expression's type>`.
    Cast(Box<Expr<T>>),
    /// A built-in method; the receiver is the first argument.
    Call(Builtin, Vec<Expr<T>>),
    /// `if cond { a } else { b }` as a value.
    If(Box<Expr<T>>, Block<T>, Block<T>),
    /// A tuple.
    Tuple(Vec<Expr<T>>),
    /// `expr.N`
    Field(Box<Expr<T>>, usize),
    /// A block with statements.
    Block(Block<T>),
}

impl<T> Expr<T> {
    /// Maps every type annotation of the tree.
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Expr<U> {
        let kind = match self.kind {
            ExprKind::Lit(l) => ExprKind::Lit(l),
            ExprKind::Var(v) => ExprKind::Var(v),
            ExprKind::Unary(op, e) => ExprKind::Unary(op, Box::new(e.map_types(f))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(op, Box::new(a.map_types(f)), Box::new(b.map_types(f)))
            }
            ExprKind::Cast(e) => ExprKind::Cast(Box::new(e.map_types(f))),
            ExprKind::Call(b, args) => {
                ExprKind::Call(b, args.into_iter().map(|a| a.map_types(f)).collect())
            }
            ExprKind::If(c, a, b) => {
                ExprKind::If(Box::new(c.map_types(f)), a.map_types(f), b.map_types(f))
            }
            ExprKind::Tuple(items) => {
                ExprKind::Tuple(items.into_iter().map(|a| a.map_types(f)).collect())
            }
            ExprKind::Field(e, i) => ExprKind::Field(Box::new(e.map_types(f)), i),
            ExprKind::Block(b) => ExprKind::Block(b.map_types(f)),
        };
        Expr {
            kind,
            ty: f(self.ty),
            line: self.line,
        }
    }

    /// `true` when evaluating the expression assigns a variable.
    pub fn has_effects(&self) -> bool {
        match &self.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => false,
            ExprKind::Unary(_, e) | ExprKind::Cast(e) | ExprKind::Field(e, _) => e.has_effects(),
            ExprKind::Binary(_, a, b) => a.has_effects() || b.has_effects(),
            ExprKind::Call(_, args) | ExprKind::Tuple(args) => args.iter().any(Expr::has_effects),
            ExprKind::If(c, a, b) => c.has_effects() || a.has_effects() || b.has_effects(),
            ExprKind::Block(b) => b.has_effects(),
        }
    }
}

impl<T> Block<T> {
    /// Maps every type annotation of the block.
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Block<U> {
        Block {
            stmts: self.stmts.into_iter().map(|s| s.map_types(f)).collect(),
            value: Box::new(self.value.map_types(f)),
        }
    }

    /// `true` when evaluating the block assigns a variable declared outside it.
    ///
    /// (Conservative: any assignment counts.)
    pub fn has_effects(&self) -> bool {
        self.stmts.iter().any(Stmt::has_effects) || self.value.has_effects()
    }
}

impl<T> Stmt<T> {
    /// Maps every type annotation of the statement.
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Stmt<U> {
        match self {
            Stmt::Let { var, init, line } => Stmt::Let {
                var,
                init: init.map_types(f),
                line,
            },
            Stmt::Assign { var, value, line } => Stmt::Assign {
                var,
                value: value.map_types(f),
                line,
            },
            Stmt::If {
                cond,
                then,
                els,
                line,
            } => Stmt::If {
                cond: cond.map_types(f),
                then: then.into_iter().map(|s| s.map_types(f)).collect(),
                els: els.into_iter().map(|s| s.map_types(f)).collect(),
                line,
            },
        }
    }

    /// `true` for assignments (and statements containing them).
    pub fn has_effects(&self) -> bool {
        match self {
            Stmt::Let { init, .. } => init.has_effects(),
            Stmt::Assign { .. } | Stmt::If { .. } => true,
        }
    }
}

impl Expr<Ty> {
    /// The scalar type of the expression (panics on a tuple: callers check first).
    pub fn scalar(&self) -> Scalar {
        self.ty
            .scalar()
            .expect("kernels-gen bug: scalar expected where the checker proved one")
    }
}

/// Every tuple type a function uses (and, optionally, an extra expression such as a
/// reduction's identity), in a fixed order: the C structs its module needs.
pub fn tuples_used(f: &Function, extra: Option<&Expr>) -> Vec<Vec<Scalar>> {
    fn walk_expr(e: &Expr, add: &mut dyn FnMut(&Ty)) {
        add(&e.ty);
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Field(a, _) => walk_expr(a, add),
            ExprKind::Binary(_, a, b) => {
                walk_expr(a, add);
                walk_expr(b, add);
            }
            ExprKind::Call(_, xs) | ExprKind::Tuple(xs) => {
                xs.iter().for_each(|x| walk_expr(x, add))
            }
            ExprKind::If(c, a, b) => {
                walk_expr(c, add);
                walk_block(a, add);
                walk_block(b, add);
            }
            ExprKind::Block(b) => walk_block(b, add),
        }
    }
    fn walk_stmt(s: &Stmt, add: &mut dyn FnMut(&Ty)) {
        match s {
            Stmt::Let { init, .. } => walk_expr(init, add),
            Stmt::Assign { value, .. } => walk_expr(value, add),
            Stmt::If {
                cond, then, els, ..
            } => {
                walk_expr(cond, add);
                then.iter().chain(els).for_each(|s| walk_stmt(s, add));
            }
        }
    }
    fn walk_block(b: &Block, add: &mut dyn FnMut(&Ty)) {
        b.stmts.iter().for_each(|s| walk_stmt(s, add));
        walk_expr(&b.value, add);
    }
    let mut set = std::collections::BTreeSet::new();
    let mut add = |t: &Ty| {
        if let Ty::Tuple(items) = t {
            set.insert(items.clone());
        }
    };
    add(&f.ret);
    for v in &f.vars {
        add(&v.ty);
    }
    walk_block(&f.body, &mut add);
    if let Some(e) = extra {
        walk_expr(e, &mut add);
    }
    set.into_iter().collect()
}
