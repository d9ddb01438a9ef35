//! kernels-gen: the front end of warp-dsl. A Rust function (as `syn` tokens) is parsed and
//! checked into warp-kernels' typed IR, lowered and assembled by warp-kernels, and expanded into
//! the tokens the attribute macros emit.
//!
//! The stages:
//! - [`parse`]: attribute arguments and the function signature, as DSL types;
//! - [`check`]: the body, type-inferred like rustc, into the typed IR (`warp_kernels::ir`);
//! - then warp-kernels lowers it to a CUDA `__device__` function and assembles modules;
//! - [`cpu_eval`]: the body the CPU backend runs, with the GPU's results where Rust would
//!   panic (overflow, division by zero, big shifts);
//! - [`expand`]: the tokens of `#[reduce]`, `#[predicate]` and `#[map]` (what warp-macros
//!   returns), with every failure a spanned compile error;
//! - [`fuzz`]: random programs of the body language, for the differential fidelity tests.
//!
//! ```
//! let item: syn::ItemFn = syn::parse_quote! { fn sum(a: f32, b: f32) -> f32 { a + b } };
//! let op = kernels_gen::reduce_op(quote::quote!(identity = 0.0), item).expect("valid");
//! assert!(op.source.contains("wd_k_reduce"));
//! assert!(op.source.contains("__shfl_down_sync"));
//! ```

#![warn(missing_docs)]

pub mod check;
pub mod cpu_eval;
pub mod diag;
pub mod expand;
pub mod fuzz;
pub mod parse;
pub mod structs;
pub mod ty;

use proc_macro2::TokenStream;

pub use diag::Diagnostics;
use warp_kernels::module::{FnFragment, OpFragment};
pub use warp_kernels::{Scalar, Ty, ir};

/// A checked `#[reduce]` operation with its generated kernels.
#[derive(Debug)]
pub struct ReduceOp {
    /// The parsed definition (the function as written, its types).
    pub def: parse::OpDef,
    /// The identity expression as written.
    pub identity: syn::Expr,
    /// The value type `T`.
    pub value_ty: Ty,
    /// The checked function.
    pub function: ir::Function,
    /// Its fragments (what compositions are built from).
    pub parts: OpFragment<'static>,
    /// The complete CUDA source of its own module.
    pub source: String,
}

/// A failed expansion: every error found, and the item to emit anyway so the rest of the
/// crate still type-checks.
#[derive(Debug)]
pub struct Failure {
    /// The errors, spanned.
    pub diagnostics: Diagnostics,
    /// The function as written.
    pub item: Box<syn::ItemFn>,
}

/// Runs every stage for `#[reduce(attr)] item`.
pub fn reduce_op(attr: TokenStream, item: syn::ItemFn) -> Result<ReduceOp, Failure> {
    reduce_op_in(attr, item, None)
}

/// [`reduce_op`], naming the source file explicitly (for tools that parse files themselves;
/// the macro takes the file from the compiler's spans).
pub fn reduce_op_in(
    attr: TokenStream,
    item: syn::ItemFn,
    file: Option<&str>,
) -> Result<ReduceOp, Failure> {
    let mut diags = Diagnostics::new();
    let (kind, style) = parse::parse_reduce_args(attr, &mut diags);
    let mut def = parse::parse_fn(item, kind, style, &mut diags);
    if let Some(file) = file {
        def.file = file.to_string();
    }
    parse::check_reduce_signature(&def, &mut diags);
    let identity = match &def.kind {
        parse::OpKind::Reduce { identity } => identity.as_deref().cloned(),
        _ => None,
    };
    if identity.is_none() {
        diags.error(
            proc_macro2::Span::call_site(),
            "missing identity: write `#[reduce(identity = VALUE)]`, the value `x` with `f(VALUE, x) == x` (0 for a sum, `f32::NEG_INFINITY` for a max)",
        );
    }
    let value_ty = def.value_ty().cloned();
    let checked = match (&value_ty, &def.ret) {
        (Some(t), Some(_)) if def.params.len() == 2 => check::check_function(
            &def.name().to_string(),
            &def.params,
            t,
            Some(&*def.params[0].ty_tokens),
            &def.item.block,
            &def.file,
            def.item.sig.fn_token.span,
            &mut diags,
        ),
        _ => None,
    };
    let identity_ir = match (&identity, &value_ty) {
        (Some(e), Some(t)) => {
            check::check_const_expr(e, t, def.params.first().map(|p| &*p.ty_tokens), &mut diags)
        }
        _ => None,
    };
    match (checked, identity_ir, identity, value_ty) {
        (Some(function), Some(id_ir), Some(identity), Some(value_ty)) if diags.is_empty() => {
            let parts = OpFragment::new(&function, &id_ir, def.style);
            let source = parts.module(&value_ty);
            Ok(ReduceOp {
                def,
                identity,
                value_ty,
                function,
                parts,
                source,
            })
        }
        _ => Failure {
            diagnostics: diags,
            item: Box::new(def.item),
        }
        .into_err(),
    }
}

impl Failure {
    fn into_err<T>(mut self) -> Result<T, Failure> {
        if self.diagnostics.is_empty() {
            self.diagnostics.error(
                proc_macro2::Span::call_site(),
                "kernels-gen could not generate this operation",
            );
        }
        Err(self)
    }
}

/// A plain function of the body language lowered to a CUDA `__device__` function.
#[derive(Debug)]
pub struct DeviceFn {
    /// The checked function.
    pub function: ir::Function,
    /// Its CUDA text (a `static __device__ __forceinline__` function).
    pub text: String,
    /// The tuple types it uses (their structs come from `warp_kernels::module::type_support`).
    pub tuples: Vec<Vec<Scalar>>,
}

/// Checks and lowers any function of the body language (parameters and result of any DSL
/// type) to a CUDA device function named `c_name`.
///
/// ```
/// let item: syn::ItemFn = syn::parse_quote! { fn f(x: u8, y: f32) -> (u8, f32) { (x.wrapping_add(1), y.sqrt()) } };
/// let f = kernels_gen::device_function(item, "demo.rs", "wd_f").unwrap();
/// assert!(f.text.contains("wd_tuple_u8_f32 wd_f(wd_u32 x, wd_f32 y)")); // a u8 lives in a 32-bit register
/// ```
pub fn device_function(item: syn::ItemFn, file: &str, c_name: &str) -> Result<DeviceFn, Failure> {
    let mut diags = Diagnostics::new();
    let mut def = parse::parse_fn(
        item,
        parse::OpKind::Function,
        parse::Style::Intrinsics,
        &mut diags,
    );
    def.file = file.to_string();
    match check_plain(&def, &mut diags) {
        Some((function, tuples)) => {
            let text = warp_kernels::lower::lower_function(&function, c_name);
            Ok(DeviceFn {
                function,
                text,
                tuples,
            })
        }
        _ => Failure {
            diagnostics: diags,
            item: Box::new(def.item),
        }
        .into_err(),
    }
}

/// A checked `#[predicate]` or `#[map]`: its device function as a fragment that the runtime
/// composes into kernels.
#[derive(Debug)]
pub struct ElementOp {
    /// The parsed definition.
    pub def: parse::OpDef,
    /// The checked function.
    pub function: ir::Function,
    /// Its fragment (the lowered function, its tuple types, its extra parameters' types).
    pub parts: FnFragment<'static>,
    /// The element type: the first parameter's, or the tuple of the first `inputs`
    /// parameters' types (one per zipped array).
    pub input: Ty,
    /// How many leading parameters are elements (of zipped arrays when more than one).
    pub inputs: usize,
}

/// Runs every stage for `#[predicate] item` (`predicate = true`) or `#[map] item`.
pub fn element_op(
    attr: TokenStream,
    item: syn::ItemFn,
    predicate: bool,
) -> Result<ElementOp, Failure> {
    let mut diags = Diagnostics::new();
    let (name, kind) = if predicate {
        ("predicate", parse::OpKind::Predicate)
    } else {
        ("map", parse::OpKind::Map)
    };
    let inputs = parse::parse_element_args(name, attr, &mut diags);
    let def = parse::parse_fn(item, kind, parse::Style::Intrinsics, &mut diags);
    parse::check_element_signature(&def, predicate, inputs, &mut diags);
    let inputs = inputs.0;
    match check_plain(&def, &mut diags) {
        Some((function, _)) => Ok(ElementOp {
            parts: FnFragment::new(&function, inputs),
            input: match inputs {
                1 => def.params[0].ty.clone(),
                n => Ty::Tuple(
                    def.params[..n]
                        .iter()
                        .filter_map(|p| p.ty.scalar())
                        .collect(),
                ),
            },
            inputs,
            def,
            function,
        }),
        _ => Failure {
            diagnostics: diags,
            item: Box::new(def.item),
        }
        .into_err(),
    }
}

/// Checks the body of a function that has parameters and a result (no identity): the checked
/// function and its tuple types, or `None` when anything was reported.
fn check_plain(
    def: &parse::OpDef,
    diags: &mut Diagnostics,
) -> Option<(ir::Function, Vec<Vec<Scalar>>)> {
    let ret = def.ret.as_ref()?;
    if !diags.is_empty() || def.params.is_empty() && !def.item.sig.inputs.is_empty() {
        return None;
    }
    let written = match &def.item.sig.output {
        syn::ReturnType::Type(_, t) => Some(&**t),
        syn::ReturnType::Default => None,
    };
    let function = check::check_function(
        &def.name().to_string(),
        &def.params,
        ret,
        written,
        &def.item.block,
        &def.file,
        def.item.sig.fn_token.span,
        diags,
    )?;
    if !diags.is_empty() {
        return None;
    }
    let tuples = ir::tuples_used(&function, None);
    Some((function, tuples))
}

/// One annotated function found in a Rust source file, with its outcome.
#[derive(Debug)]
pub struct FileItem {
    /// The function's name.
    pub name: String,
    /// The attribute (`reduce`).
    pub attribute: String,
    /// The operation, or why it failed.
    pub result: Result<ReduceOp, Failure>,
}

/// Finds every `#[reduce(...)]` function of a Rust source file (at any module depth) and runs
/// the generator on each: what `kernels-gen emit FILE.rs` prints.
///
/// `path` is the file's name as it should appear in `#line` directives.
pub fn generate_file(source: &str, path: &str) -> Result<Vec<FileItem>, syn::Error> {
    let file = syn::parse_file(source)?;
    let mut out = Vec::new();
    fn visit(items: &[syn::Item], out: &mut Vec<FileItem>, path: &str) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    for attr in &f.attrs {
                        let Some(last) = attr.path().segments.last() else {
                            continue;
                        };
                        if last.ident != "reduce" {
                            continue;
                        }
                        let args = match &attr.meta {
                            syn::Meta::List(l) => l.tokens.clone(),
                            _ => TokenStream::new(),
                        };
                        let mut item = f.clone();
                        item.attrs.retain(|a| a != attr);
                        out.push(FileItem {
                            name: f.sig.ident.to_string(),
                            attribute: last.ident.to_string(),
                            result: reduce_op_in(args, item, Some(path)),
                        });
                    }
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        visit(items, out, path);
                    }
                }
                _ => {}
            }
        }
    }
    visit(&file.items, &mut out, path);
    Ok(out)
}
