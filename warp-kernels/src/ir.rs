//! The typed IR: what the checker makes of a Rust body and the lowering turns into CUDA C.
//!
//! The tree is generic over its type annotation: the checker builds it with inference
//! variables and resolves it into `Function<Ty>` once every type is known (kernels-gen's check).

use crate::types::{Scalar, Ty};

pub mod visit;

use visit::{Fold, Visit};

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

impl<T> Function<T> {
    /// Maps every type annotation of the function (result, variables, body, in that order).
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Function<U> {
        MapTypes(f).fold_function(self)
    }
}

impl<T> Expr<T> {
    /// Maps every type annotation of the tree.
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Expr<U> {
        MapTypes(f).fold_expr(self)
    }

    /// `true` when evaluating the expression assigns a variable.
    pub fn has_effects(&self) -> bool {
        let mut v = Assigns(false);
        v.visit_expr(self);
        v.0
    }
}

impl<T> Block<T> {
    /// Maps every type annotation of the block.
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Block<U> {
        MapTypes(f).fold_block(self)
    }

    /// `true` when evaluating the block assigns a variable declared outside it.
    ///
    /// (Conservative: any assignment counts.)
    pub fn has_effects(&self) -> bool {
        let mut v = Assigns(false);
        v.visit_block(self);
        v.0
    }
}

impl<T> Stmt<T> {
    /// Maps every type annotation of the statement.
    pub fn map_types<U>(self, f: &mut impl FnMut(T) -> U) -> Stmt<U> {
        MapTypes(f).fold_stmt(self)
    }

    /// `true` for assignments (and statements containing them).
    pub fn has_effects(&self) -> bool {
        let mut v = Assigns(false);
        v.visit_stmt(self);
        v.0
    }
}

/// The fold behind `map_types`: every type annotation through `f`.
struct MapTypes<'a, F>(&'a mut F);

impl<T, U, F: FnMut(T) -> U> Fold<T, U> for MapTypes<'_, F> {
    fn fold_ty(&mut self, ty: T) -> U {
        (self.0)(ty)
    }
}

/// The visitor behind `has_effects`: finds an assignment (a statement other than `let`; a
/// statement `if` counts, as its arms assign).
struct Assigns(bool);

impl<'ir, T: 'ir> Visit<'ir, T> for Assigns {
    fn visit_stmt(&mut self, s: &'ir Stmt<T>) {
        match s {
            Stmt::Let { .. } => visit::walk_stmt(self, s),
            Stmt::Assign { .. } | Stmt::If { .. } => self.0 = true,
        }
    }

    fn visit_expr(&mut self, e: &'ir Expr<T>) {
        if !self.0 {
            visit::walk_expr(self, e);
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
    /// Collects the tuple types it is shown.
    struct Tuples(std::collections::BTreeSet<Vec<Scalar>>);
    impl<'ir> Visit<'ir> for Tuples {
        fn visit_ty(&mut self, ty: &'ir Ty) {
            if let Ty::Tuple(items) = ty {
                self.0.insert(items.clone());
            }
        }
    }
    let mut v = Tuples(std::collections::BTreeSet::new());
    v.visit_function(f);
    if let Some(e) = extra {
        v.visit_expr(e);
    }
    v.0.into_iter().collect()
}
