//! Stage 1, parse: attribute arguments and a `syn::ItemFn` in, an [`OpDef`] (kind, signature
//! types, body) out, with spanned errors for signatures the DSL cannot take.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

use crate::diag::Diagnostics;
use warp_kernels::catalogue::BOUND_ARGS;
use warp_kernels::types::{Scalar, Ty};

/// The kind of operation an attribute declares.
#[derive(Clone, Debug)]
pub enum OpKind {
    /// `#[reduce(identity = EXPR)]`: `fn(T, T) -> T`.
    Reduce {
        /// The identity element (checked like a body expression of type `T`).
        identity: Option<Box<syn::Expr>>,
    },
    /// A plain function of the body language (for tools and tests; no kernel of its own).
    Function,
    /// `#[predicate]`: `fn(T, extra scalars...) -> bool`.
    Predicate,
    /// `#[map]`: `fn(T, extra scalars...) -> U`.
    Map,
}

pub use warp_kernels::Style;

/// Parses `style = "intrinsics" | "cooperative_groups"` (also `"cg"`).
fn parse_style(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Style> {
    let lit: syn::LitStr = meta.value()?.parse()?;
    Style::from_name(&lit.value()).ok_or_else(|| {
        syn::Error::new(
            lit.span(),
            format!(
                "unknown style `{}`; expected \"intrinsics\" (the default) or \"cooperative_groups\" (also \"cg\")",
                lit.value()
            ),
        )
    })
}

/// A parameter: its pattern, its DSL type and where its type was written.
#[derive(Clone, Debug)]
pub struct Param {
    /// The pattern (`a`, `mut a`, `(v, i)`).
    pub pat: syn::Pat,
    /// Its type.
    pub ty: Ty,
    /// Span of the written type.
    pub ty_span: Span,
    /// The type as written.
    pub ty_tokens: Box<syn::Type>,
}

/// An annotated function, parsed.
#[derive(Clone, Debug)]
pub struct OpDef {
    /// What the attribute declared.
    pub kind: OpKind,
    /// Emission style.
    pub style: Style,
    /// The function as written.
    pub item: syn::ItemFn,
    /// Parameters whose types parsed.
    pub params: Vec<Param>,
    /// The return type, when it parsed.
    pub ret: Option<Ty>,
    /// The source file as the compiler names it.
    pub file: String,
}

impl OpDef {
    /// The function's name.
    pub fn name(&self) -> &syn::Ident {
        &self.item.sig.ident
    }

    /// The value type `T` of a reduction (its first parameter's type), if known.
    pub fn value_ty(&self) -> Option<&Ty> {
        self.params.first().map(|p| &p.ty)
    }
}

/// Parses `#[reduce(...)]` arguments.
pub fn parse_reduce_args(args: TokenStream, diags: &mut Diagnostics) -> (OpKind, Style) {
    let mut identity = None;
    let mut style = Style::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("style") {
            style = parse_style(&meta)?;
            Ok(())
        } else if meta.path.is_ident("identity") {
            let value: syn::Expr = meta.value()?.parse()?;
            if identity.is_some() {
                return Err(meta.error("`identity` given twice"));
            }
            identity = Some(Box::new(value));
            Ok(())
        } else {
            Err(meta.error(format!(
                "unknown `reduce` option `{}`; expected `identity = EXPR` and optionally `style = \"cooperative_groups\"`",
                path_text(&meta.path)
            )))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        diags.push(e);
    }
    (OpKind::Reduce { identity }, style)
}

fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Parses a DSL type as written (the grammar is `crate::ty`'s; known structs are the tuples of
/// their fields). Re-exported from `structs`, which knows the structs.
pub use crate::structs::parse_type;

/// Parses the function item an attribute is on and checks what every operation needs of it:
/// no generics, no `async`/`const`/`unsafe`/`extern`, typed parameters and a return type.
pub fn parse_fn(item: syn::ItemFn, kind: OpKind, style: Style, diags: &mut Diagnostics) -> OpDef {
    let sig = &item.sig;
    if let Some(t) = &sig.constness {
        diags.error(t.span, "`const fn` is not supported by warp-dsl attributes");
    }
    if let Some(t) = &sig.asyncness {
        diags.error(t.span, "`async fn` cannot run on the GPU; remove `async`");
    }
    if let syn::Safety::Unsafe(t) = &sig.safety {
        diags.error(
            t.span,
            "`unsafe fn` is not supported; the body language has nothing unsafe",
        );
    }
    if let Some(abi) = &sig.abi {
        diags.error(abi.span(), "`extern` functions are not supported");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        diags.error(
            sig.generics.span(),
            "generic functions are not supported; write one function per concrete type",
        );
    }
    if let Some(v) = &sig.variadic {
        diags.error(v.span(), "variadic functions are not supported");
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Receiver(r) => {
                diags.error(r.span(), "methods are not supported; write a free function")
            }
            syn::FnArg::Typed(pt) => match parse_type(&pt.ty) {
                Ok(ty) => params.push(Param {
                    pat: (*pt.pat).clone(),
                    ty,
                    ty_span: pt.ty.span(),
                    ty_tokens: pt.ty.clone(),
                }),
                Err(e) => diags.push(e),
            },
        }
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => {
            let msg = match kind {
                OpKind::Predicate => "missing return type: a predicate returns `bool` (`-> bool`)",
                OpKind::Map => "missing return type: a map returns a value (`-> U`)",
                _ => {
                    "missing return type: a reduction returns the same type as its parameters (`-> T`)"
                }
            };
            diags.error(sig.paren_token.span.close(), msg);
            None
        }
        syn::ReturnType::Type(_, ty) => match parse_type(ty) {
            Ok(t) => Some(t),
            Err(e) => {
                diags.push(e);
                None
            }
        },
    };
    let file = item.sig.ident.span().file();
    OpDef {
        kind,
        style,
        item,
        params,
        ret,
        file,
    }
}

/// Checks the signature shape of a reduction: `fn(T, T) -> T`.
pub fn check_reduce_signature(def: &OpDef, diags: &mut Diagnostics) {
    let sig = &def.item.sig;
    if sig.inputs.len() != 2 {
        diags.error(
            sig.inputs.span().join(sig.paren_token.span.join()).unwrap_or(sig.ident.span()),
            format!(
                "a reduction takes exactly two parameters of the same type, `fn(a: T, b: T) -> T`; found {}",
                sig.inputs.len()
            ),
        );
        return;
    }
    if def.params.len() != 2 {
        return; // a parameter type already failed to parse
    }
    let t = &def.params[0].ty;
    if def.params[1].ty != *t {
        diags.error(
            def.params[1].ty_span,
            format!(
                "both parameters of a reduction have the same type: expected `{t}`, found `{}`",
                def.params[1].ty
            ),
        );
    }
    if let (Some(ret), syn::ReturnType::Type(_, rty)) = (&def.ret, &sig.output)
        && ret != t
    {
        diags.error(
            rty.span(),
            format!("a reduction returns its parameters' type: expected `{t}`, found `{ret}`"),
        );
    }
}

/// The most arrays one map or predicate reads, zipped.
pub const MAX_INPUTS: usize = warp_kernels::catalogue::MAX_INPUTS;

/// Parses the arguments of `#[predicate]` and `#[map]`: optionally `inputs = N` (1 to
/// [`MAX_INPUTS`]), the number of leading parameters that are elements of zipped arrays.
/// Returns `N` and the span of its literal.
pub fn parse_element_args(name: &str, args: TokenStream, diags: &mut Diagnostics) -> (usize, Span) {
    let mut inputs = (1, Span::call_site());
    let mut seen = false;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("inputs") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            if seen {
                return Err(meta.error("`inputs` given twice"));
            }
            seen = true;
            match lit.base10_parse::<usize>() {
                Ok(n) if (1..=MAX_INPUTS).contains(&n) => {
                    inputs = (n, lit.span());
                    Ok(())
                }
                _ => Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "`inputs` is the number of zipped arrays the {name} reads: 1 to {MAX_INPUTS}"
                    ),
                )),
            }
        } else {
            Err(meta.error(format!(
                "unknown `{name}` option `{}`; the only option is `inputs = N` (the number of leading parameters that are elements of N zipped arrays); other parameters are bound at call time",
                path_text(&meta.path)
            )))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        diags.push(e);
    }
    inputs
}

/// Checks the signature of a predicate or map: `inputs` element parameters first (scalars,
/// one per zipped array, when more than one, except a predicate's two of one tuple type, a
/// comparator; the element may be a tuple when one), the extra
/// parameters scalars, and for a predicate a `bool` result.
pub fn check_element_signature(
    def: &OpDef,
    predicate: bool,
    (inputs, inputs_span): (usize, Span),
    diags: &mut Diagnostics,
) {
    let sig = &def.item.sig;
    let what = if predicate { "predicate" } else { "map" };
    if sig.inputs.is_empty() {
        diags.error(
            sig.paren_token.span.join(),
            format!("a {what} takes the element as its first parameter: `fn(x: T, ...)`"),
        );
        return;
    }
    if sig.inputs.len() < inputs {
        diags.error(
            inputs_span,
            format!(
                "`inputs = {inputs}` takes the elements of {inputs} zipped arrays as the first {inputs} parameters, but `{}` has {}",
                def.name(),
                sig.inputs.len()
            ),
        );
        return;
    }
    let bound = sig.inputs.len() - inputs;
    if bound > BOUND_ARGS {
        // Spanned on the first parameter beyond the kernel's words.
        let extra = sig.inputs.iter().nth(inputs + BOUND_ARGS).map(|p| p.span());
        diags.error(
            extra.unwrap_or_else(|| sig.paren_token.span.join()),
            format!(
                "`{}` has {bound} parameters bound at call time; a kernel takes at most {BOUND_ARGS} (write constants in the body instead)",
                def.name()
            ),
        );
    }
    if def.params.len() != sig.inputs.len() {
        return; // a parameter type already failed to parse
    }
    // A comparator of two values of one tuple or struct type (`sort_by`'s "less than") takes
    // them whole; zipped arrays' elements are otherwise scalars.
    let comparator = predicate && inputs == 2 && def.params[0].ty == def.params[1].ty;
    for (i, p) in def.params.iter().enumerate() {
        if let Ty::Tuple(_) = p.ty {
            if i >= inputs {
                diags.error(
                    p.ty_span,
                    "extra parameters are bound at call time and must be scalars; only the element parameters may be tuples",
                );
            } else if inputs > 1 && !comparator {
                diags.error(
                    p.ty_span,
                    "the elements of zipped arrays are scalars: each of the first `inputs` parameters takes one array's element (a predicate of two tuples or structs of one type, a comparator for `sort_by`, takes them whole)",
                );
            }
        }
    }
    if predicate
        && let (Some(ret), syn::ReturnType::Type(_, rty)) = (&def.ret, &sig.output)
        && *ret != Ty::Scalar(Scalar::Bool)
    {
        diags.error(
            rty.span(),
            format!("a predicate returns `bool`, found `{ret}`"),
        );
    }
}
