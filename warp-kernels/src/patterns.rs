//! Pattern recognition on checked IR: which warp instruction computes an operator outright.

use crate::ir::{BinOp, Expr, ExprKind, Function, Lit, UnOp};
use crate::types::{Scalar, Ty};

/// A warp-wide `__reduce_*_sync` (redux.sync, sm_80+) equivalent to a reduction's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redux {
    /// Wrapping addition.
    Add,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
}

impl Redux {
    /// Every redux operator.
    pub const ALL: [Redux; 6] = [
        Redux::Add,
        Redux::Min,
        Redux::Max,
        Redux::And,
        Redux::Or,
        Redux::Xor,
    ];

    /// The name recorded in an operation's metadata (`"add"`, `"min"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Redux::Add => "add",
            Redux::Min => "min",
            Redux::Max => "max",
            Redux::And => "and",
            Redux::Or => "or",
            Redux::Xor => "xor",
        }
    }

    /// The operator of a recorded name.
    pub fn from_name(name: &str) -> Option<Redux> {
        Redux::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The value of its template constant (see [`Redux::c_const`]).
    pub fn c_value(r: Option<Redux>) -> u64 {
        match r {
            None => 0,
            Some(r) => 1 + Redux::ALL.iter().position(|&x| x == r).unwrap_or(0) as u64,
        }
    }

    /// The template constant selecting it.
    pub fn c_const(r: Option<Redux>) -> &'static str {
        match r {
            None => "WD_REDUX_NONE",
            Some(Redux::Add) => "WD_REDUX_ADD",
            Some(Redux::Min) => "WD_REDUX_MIN",
            Some(Redux::Max) => "WD_REDUX_MAX",
            Some(Redux::And) => "WD_REDUX_AND",
            Some(Redux::Or) => "WD_REDUX_OR",
            Some(Redux::Xor) => "WD_REDUX_XOR",
        }
    }
}

/// Recognises `a + b`, `a.wrapping_add(b)`, `a.min(b)`, `a.max(b)`, `a & b`, `a | b`, `a ^ b`
/// (either operand order) and `if a < b { a } else { b }`-style selects, on integers of 32 bits
/// or fewer: the operators `redux.sync` computes exactly.
pub fn recognise_redux(f: &Function) -> Option<Redux> {
    let t = match &f.ret {
        Ty::Scalar(s) if s.is_int() && s.bits() <= 32 => *s,
        _ => return None,
    };
    if f.params.len() != 2 || !f.body.stmts.is_empty() {
        return None;
    }
    let (p, q) = (f.params[0], f.params[1]);
    let is_params = |x: &Expr, y: &Expr| matches!((&x.kind, &y.kind), (ExprKind::Var(a), ExprKind::Var(b)) if (*a == p && *b == q) || (*a == q && *b == p));
    let body = &*f.body.value;
    match &body.kind {
        ExprKind::Binary(op, x, y) if is_params(x, y) => match op {
            BinOp::Add => Some(Redux::Add),
            BinOp::BitAnd => Some(Redux::And),
            BinOp::BitOr => Some(Redux::Or),
            BinOp::BitXor => Some(Redux::Xor),
            _ => None,
        },
        ExprKind::Call(b, args) if args.len() == 2 && is_params(&args[0], &args[1]) => {
            match b.name() {
                "wrapping_add" => Some(Redux::Add),
                "min" => Some(Redux::Min),
                "max" => Some(Redux::Max),
                _ => None,
            }
        }
        ExprKind::If(c, then, els) if then.stmts.is_empty() && els.stmts.is_empty() => {
            let (ExprKind::Binary(op, x, y), ExprKind::Var(tv), ExprKind::Var(ev)) =
                (&c.kind, &then.value.kind, &els.value.kind)
            else {
                return None;
            };
            let (ExprKind::Var(xv), ExprKind::Var(yv)) = (&x.kind, &y.kind) else {
                return None;
            };
            if !is_params(x, y) {
                return None;
            }
            // `if x OP y { x } else { y }`: OP in < <= picks the smaller, > >= the larger.
            let picks_x_when_true = tv == xv && ev == yv;
            let picks_y_when_true = tv == yv && ev == xv;
            let smaller = match op {
                BinOp::Lt | BinOp::Le => picks_x_when_true,
                BinOp::Gt | BinOp::Ge => picks_y_when_true,
                _ => return None,
            };
            let larger = match op {
                BinOp::Gt | BinOp::Ge => picks_x_when_true,
                BinOp::Lt | BinOp::Le => picks_y_when_true,
                _ => return None,
            };
            let _ = t;
            if smaller {
                Some(Redux::Min)
            } else if larger {
                Some(Redux::Max)
            } else {
                None
            }
        }
        _ => None,
    }
    .filter(|_| t != Scalar::Bool)
}

/// Recognises f32 addition with a zero identity: `a + b` (either operand order) on `f32`, with
/// identity `0.0` or `-0.0`. The scan sums such an operator's tile aggregates exactly
/// (`ScanMode::ExactSum`): the tiles' prefixes are then the correctly rounded sums, the same
/// bits however the look-back groups them.
pub fn recognise_f32_sum(f: &Function, identity: &Expr) -> bool {
    if f.ret != Ty::Scalar(Scalar::F32) || f.params.len() != 2 || !f.body.stmts.is_empty() {
        return false;
    }
    let (p, q) = (f.params[0], f.params[1]);
    let adds_params = match &f.body.value.kind {
        ExprKind::Binary(BinOp::Add, x, y) => matches!(
            (&x.kind, &y.kind),
            (ExprKind::Var(a), ExprKind::Var(b)) if (*a == p && *b == q) || (*a == q && *b == p)
        ),
        _ => false,
    };
    let zero = |e: &Expr| matches!(e.kind, ExprKind::Lit(Lit::Float(z)) if z == 0.0);
    let zero_identity = match &identity.kind {
        ExprKind::Unary(UnOp::Neg, inner) => zero(inner),
        _ => zero(identity),
    };
    adds_params && zero_identity
}
