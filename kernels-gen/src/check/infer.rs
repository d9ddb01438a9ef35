//! Type inference: inference types, literal type variables, unification and resolution.

use std::fmt;

use proc_macro2::Span;
use warp_kernels::types::{Scalar, Ty};

use super::Checker;

/// A type during inference: known, a literal's variable, a tuple of those, or an error marker
/// that unifies with anything (so one mistake is reported once).
#[derive(Clone, Debug, PartialEq)]
pub enum ITy {
    /// A known scalar.
    S(Scalar),
    /// A tuple.
    Tuple(Vec<ITy>),
    /// A user struct (`#[derive(DeviceValue)]`): its index among the known structs and its
    /// fields' types (a tuple in the IR).
    Struct(usize, Vec<ITy>),
    /// An unsuffixed literal's type, still open.
    Var(u32),
    /// Already reported.
    Error,
}

/// The kind of an unsuffixed literal's type variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VarKind {
    Int,
    Float,
}

/// A literal's type variable (union-find over `Checker::tvars`).
#[derive(Clone, Debug)]
pub(super) struct TVar {
    pub(super) kind: VarKind,
    parent: u32,
    bound: Option<Scalar>,
}

impl ITy {
    /// The inference type of a type as written: a known struct keeps its name.
    pub(super) fn of_syn(ty: &syn::Type) -> Result<ITy, syn::Error> {
        if let Some((i, d)) = crate::structs::of_type(ty) {
            return Ok(ITy::Struct(
                i,
                d.scalars().into_iter().map(ITy::S).collect(),
            ));
        }
        crate::structs::parse_type(ty).map(|t| ITy::from_ty(&t))
    }

    pub(super) fn from_ty(ty: &Ty) -> ITy {
        match ty {
            Ty::Scalar(s) => ITy::S(*s),
            Ty::Tuple(items) => ITy::Tuple(items.iter().map(|s| ITy::S(*s)).collect()),
        }
    }
}

/// An inference type as rustc shows it in messages (`{integer}`, `{float}`).
pub(super) struct ShowTy<'a>(pub(super) &'a Checker<'a>, pub(super) &'a ITy);

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
            ITy::Struct(i, _) => match crate::structs::get(i) {
                Some(d) => f.write_str(&d.name),
                None => f.write_str("{struct}"),
            },
            ITy::Error => f.write_str("{error}"),
        }
    }
}

impl Checker<'_> {
    pub(super) fn new_var(&mut self, kind: VarKind) -> ITy {
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

    pub(super) fn shallow(&self, t: &ITy) -> ITy {
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
    pub(super) fn known_scalar(&self, t: &ITy) -> Option<Scalar> {
        match self.shallow(t) {
            ITy::S(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn var_kind(&self, t: &ITy) -> Option<VarKind> {
        match self.shallow(t) {
            ITy::Var(v) => Some(self.tvars[v as usize].kind),
            _ => None,
        }
    }

    /// Unifies two types, reporting a mismatch at `span`. `expected` comes first.
    pub(super) fn unify(&mut self, expected: &ITy, found: &ITy, span: Span) -> bool {
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
            (ITy::Struct(i, xs), ITy::Struct(j, ys)) => {
                i == j && xs.iter().zip(ys).all(|(x, y)| self.try_unify(x, y))
            }
            _ => false,
        }
    }

    /// The final type of an inference type: open literal types take Rust's defaults.
    pub(super) fn resolve(&self, t: &ITy) -> Ty {
        match self.shallow(t) {
            ITy::S(s) => Ty::Scalar(s),
            ITy::Var(v) => match self.tvars[v as usize].kind {
                VarKind::Int => Ty::Scalar(Scalar::I32),
                VarKind::Float => Ty::Scalar(Scalar::F64),
            },
            ITy::Tuple(items) | ITy::Struct(_, items) => Ty::Tuple(
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
}
