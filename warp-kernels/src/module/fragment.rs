//! The fragments of the user's functions: a `#[reduce]` operator ([`OpFragment`]) or a
//! `#[map]` / `#[predicate]` ([`FnFragment`]), lowered to CUDA. One type each, owned when the
//! macros make them ([`OpFragment::new`], [`FnFragment::new`]) and borrowed from `'static`
//! text when the expanded code names them (the `Cow`s are then `Borrowed`).

use std::borrow::Cow;

use crate::ir::{Expr, Function, tuples_used};
use crate::lower::lower_function;
use crate::module::{Style, type_support};
use crate::patterns::{Redux, recognise_f32_sum, recognise_redux};
use crate::types::{Scalar, Ty};

use super::stage::Source;

/// The placeholder name of the device function in a fragment; the assembler renames it.
pub const FRAGMENT_NAME: &str = "WD_FRAGMENT_FN";

/// A `#[reduce]` operator as fragments: what its macro records and compositions are built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpFragment<'a> {
    /// The function's name.
    pub name: Cow<'a, str>,
    /// Its Rust file (as the compiler names it).
    pub file: Cow<'a, str>,
    /// The line of its `fn`.
    pub line: u32,
    /// C type of its value.
    pub value: Cow<'a, str>,
    /// The combine function, named [`FRAGMENT_NAME`].
    pub combine: Cow<'a, str>,
    /// The identity, a function named [`FRAGMENT_NAME`].
    pub identity: Cow<'a, str>,
    /// C structs of the tuple types it uses.
    pub type_support: Cow<'a, str>,
    /// The warp instruction that computes the operator outright, if any.
    pub redux: Option<Redux>,
    /// Whether it is f32 addition with a zero identity (`a + b`, identity `0.0` or `-0.0`):
    /// its scans sum their tiles' aggregates exactly (`ScanMode::ExactSum`).
    pub f32_sum: bool,
    /// The emission style of its warp reduce.
    pub style: Style,
}

impl OpFragment<'static> {
    /// The fragments of checked function `f` (`fn(T, T) -> T`) with identity `identity`.
    pub fn new(f: &Function, identity: &Expr, style: Style) -> OpFragment<'static> {
        let identity_fn = Function {
            name: format!("{} (identity)", f.name),
            params: vec![],
            ret: f.ret.clone(),
            vars: vec![],
            body: crate::ir::Block {
                stmts: vec![],
                value: Box::new(identity.clone()),
            },
            file: f.file.clone(),
            line: identity.line,
        };
        OpFragment {
            name: f.name.clone().into(),
            file: f.file.clone().into(),
            line: f.line,
            value: f.ret.c_name().into(),
            combine: lower_function(f, FRAGMENT_NAME).into(),
            identity: lower_function(&identity_fn, FRAGMENT_NAME).into(),
            type_support: type_support(&tuples_used(f, Some(identity))).into(),
            redux: recognise_redux(f),
            f32_sum: recognise_f32_sum(f, identity),
            style,
        }
    }
}

impl OpFragment<'_> {
    /// The reduction's own module (what the macro's `CUDA_SOURCE` holds) for values of type
    /// `value` (the operator's): see [`Source::own`].
    pub fn module(&self, value: &Ty) -> String {
        super::reduce_module(self, Source::own(value).as_ref())
    }
}

/// A `#[map]` or `#[predicate]` as a fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnFragment<'a> {
    /// The function's name.
    pub name: Cow<'a, str>,
    /// Its Rust file.
    pub file: Cow<'a, str>,
    /// The line of its `fn`.
    pub line: u32,
    /// The lowered device function, named [`FRAGMENT_NAME`].
    pub text: Cow<'a, str>,
    /// C structs of its tuple types.
    pub type_support: Cow<'a, str>,
    /// C type of its result.
    pub output: Cow<'a, str>,
    /// C type of its first parameter: the element (of the first zipped array when more than
    /// one; of each of the two values a comparator compares).
    pub input: Cow<'a, str>,
    /// How many leading parameters are the element (1; 2 to 4 for zipped arrays, whose
    /// elements it takes one per parameter).
    pub inputs: usize,
    /// The types of its extra parameters, bound at call time.
    pub extras: Cow<'a, [Scalar]>,
}

impl FnFragment<'static> {
    /// The fragment of checked function `f`, whose first `inputs` parameters are the element
    /// (one per zipped array when more than one) and whose other parameters are bound at call
    /// time.
    pub fn new(f: &Function, inputs: usize) -> FnFragment<'static> {
        // (The zipped row of a several-input function is the stage's type: the module brings it.)
        let tuples = tuples_used(f, None);
        FnFragment {
            name: f.name.clone().into(),
            file: f.file.clone().into(),
            line: f.line,
            text: lower_function(f, FRAGMENT_NAME).into(),
            type_support: type_support(&tuples).into(),
            output: f.ret.c_name().into(),
            input: f
                .params
                .first()
                .map_or_else(String::new, |&p| f.vars[p].ty.c_name())
                .into(),
            inputs,
            extras: f
                .params
                .iter()
                .skip(inputs)
                .filter_map(|&p| f.vars[p].ty.scalar())
                .collect::<Vec<_>>()
                .into(),
        }
    }
}

/// The `wd_op` struct (the `Op` of the templates) of a reduction whose combine and identity
/// are in the module as `wd_op_combine` / `wd_op_identity`.
pub(crate) fn op_struct(op: &OpFragment) -> String {
    format!(
        "
// ---- the operation ----
struct wd_op {{
    typedef {t} T;
    static constexpr int redux = {redux};
    static __device__ __forceinline__ T identity() {{ return wd_op_identity(); }}
    static __device__ __forceinline__ T combine(T a, T b) {{ return wd_op_combine(a, b); }}
    struct functor {{
        __device__ __forceinline__ T operator()(T a, T b) const {{ return wd_op_combine(a, b); }}
    }};
}};
",
        t = &op.value,
        redux = Redux::c_const(op.redux)
    )
}
