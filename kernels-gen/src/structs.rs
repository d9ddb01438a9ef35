//! User structs of the body language (`#[derive(DeviceValue)]`): their definitions as the
//! attribute macros learn them, and the callback that brings them there.
//!
//! A proc macro sees only its own item, so `#[reduce]` on `fn merge(a: Welford, b: Welford)`
//! cannot read `struct Welford`. The derive therefore also defines a macro of the struct's name
//! (`Welford!`, in the macro namespace, imported wherever the struct is), which appends the
//! struct's fields to what it is given and calls `warp_runtime::impl_::resume!`. An
//! attribute whose function names types it does not know calls the first one's macro with
//! itself as the payload; `resume` calls the next, and the last runs the attribute with every
//! definition known ([`with_structs`]). In the IR a struct is a tuple of its fields (the same C
//! layout); the checker keeps the name, for field access and struct literals.

use std::cell::RefCell;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::spanned::Spanned;

use warp_kernels::types::{MAX_TUPLE, Scalar, Ty};

/// A struct the DSL knows: its name and its fields, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// The struct's name (the last segment of its path).
    pub name: String,
    /// Field names and types.
    pub fields: Vec<(String, Scalar)>,
}

impl StructDef {
    /// The field types, in order (the tuple the IR holds).
    pub fn scalars(&self) -> Vec<Scalar> {
        self.fields.iter().map(|f| f.1).collect()
    }

    /// The position of field `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.0 == name)
    }

    /// The definition as the derive's macro passes it: `{ Name field: ty, ... }`.
    pub fn tokens(&self) -> TokenStream {
        let name = syn::Ident::new(&self.name, Span::call_site());
        let fields = self.fields.iter().map(|(f, t)| {
            let f = syn::Ident::new(f, Span::call_site());
            let t = syn::Ident::new(t.rust_name(), Span::call_site());
            quote!(#f: #t)
        });
        quote!({ #name #(#fields),* })
    }

    /// Parses [`StructDef::tokens`].
    pub fn parse(tokens: TokenStream) -> syn::Result<StructDef> {
        let parser = |input: syn::parse::ParseStream<'_>| -> syn::Result<StructDef> {
            let name: syn::Ident = input.parse()?;
            let fields =
                syn::punctuated::Punctuated::<syn::Field, syn::Token![,]>::parse_terminated_with(
                    input,
                    syn::Field::parse_named,
                )?;
            let mut out = Vec::new();
            for f in fields {
                let fname = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                let t = parse_type(&f.ty)?
                    .scalar()
                    .ok_or_else(|| syn::Error::new(f.ty.span(), "a struct field is a scalar"))?;
                out.push((fname, t));
            }
            Ok(StructDef {
                name: name.to_string(),
                fields: out,
            })
        };
        syn::parse::Parser::parse2(parser, tokens)
    }
}

thread_local! {
    static KNOWN: RefCell<Vec<StructDef>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `defs` known to the parser and checker (one macro expansion).
pub fn with_structs<R>(defs: Vec<StructDef>, f: impl FnOnce() -> R) -> R {
    let before = KNOWN.with(|k| std::mem::replace(&mut *k.borrow_mut(), defs));
    let r = f();
    KNOWN.with(|k| *k.borrow_mut() = before);
    r
}

/// The known struct named `name` and its index.
pub fn lookup(name: &str) -> Option<(usize, StructDef)> {
    KNOWN.with(|k| {
        k.borrow()
            .iter()
            .enumerate()
            .find(|(_, d)| d.name == name)
            .map(|(i, d)| (i, d.clone()))
    })
}

/// The known struct with index `i`.
pub fn get(i: usize) -> Option<StructDef> {
    KNOWN.with(|k| k.borrow().get(i).cloned())
}

/// Parses a DSL type as written ([`crate::ty::parse_type`]), a known struct being the tuple of
/// its fields.
pub fn parse_type(ty: &syn::Type) -> Result<Ty, syn::Error> {
    crate::ty::parse_type(ty, &|t| of_type(t).map(|(_, def)| def.scalars()))
}

/// The struct a path type names, if it is a known one.
pub fn of_type(ty: &syn::Type) -> Option<(usize, StructDef)> {
    match ty {
        syn::Type::Paren(p) => of_type(&p.elem),
        syn::Type::Group(g) => of_type(&g.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            lookup(&p.path.segments.last()?.ident.to_string())
        }
        _ => None,
    }
}

/// The path types of a function (its signature, `let` annotations, struct literals) that are
/// neither DSL types nor known structs: the structs whose definitions the attribute must fetch.
pub fn unknown_types(item: &syn::ItemFn) -> Vec<syn::Path> {
    use syn::visit::Visit;
    struct V(Vec<syn::Path>);
    impl V {
        fn add(&mut self, path: &syn::Path) {
            let last = match path.segments.last() {
                Some(s) => s.ident.to_string(),
                None => return,
            };
            let is_dsl = Scalar::from_rust(&last).is_some();
            let is_assoc = path.segments.len() > 1
                && path
                    .segments
                    .iter()
                    .rev()
                    .nth(1)
                    .is_some_and(|s| Scalar::from_rust(&s.ident.to_string()).is_some());
            if is_dsl || is_assoc || lookup(&last).is_some() {
                return;
            }
            let text = quote!(#path).to_string();
            if !self.0.iter().any(|p| quote!(#p).to_string() == text) {
                self.0.push(path.clone());
            }
        }
    }
    impl<'ast> Visit<'ast> for V {
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            if t.qself.is_none() {
                self.add(&t.path);
            }
            syn::visit::visit_type_path(self, t);
        }
        fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
            self.add(&e.path);
            syn::visit::visit_expr_struct(self, e);
        }
    }
    let mut v = V(Vec::new());
    v.visit_signature(&item.sig);
    v.visit_block(&item.block);
    v.0
}

/// The tokens that fetch the definitions of `types` and then expand `kind` (`reduce`,
/// `predicate`, `map`) with `attr` on `item`: a call of the first type's macro.
pub fn callback(
    types: &[syn::Path],
    defs: &[StructDef],
    kind: &str,
    attr: &TokenStream,
    item: &TokenStream,
) -> TokenStream {
    let first = &types[0];
    let rest = &types[1..];
    let defs = defs.iter().map(StructDef::tokens);
    let kind = syn::Ident::new(kind, Span::call_site());
    quote!(#first! { [#(#defs)*] [#(#rest),*] #kind [#attr] #item })
}

/// A `resume!` input: `[defs...] [remaining types] kind [attr] item`.
pub struct Resume {
    /// Every definition fetched so far.
    pub defs: Vec<StructDef>,
    /// The types still to fetch.
    pub remaining: Vec<syn::Path>,
    /// `reduce`, `predicate` or `map`.
    pub kind: String,
    /// The attribute's arguments.
    pub attr: TokenStream,
    /// The function.
    pub item: TokenStream,
}

/// Parses a `resume!` input.
pub fn parse_resume(input: TokenStream) -> syn::Result<Resume> {
    let mut it = input.into_iter();
    let group = |t: Option<TokenTree>, what: &str| match t {
        Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Bracket => {
            Ok(g.stream())
        }
        other => Err(syn::Error::new(
            other.map_or(Span::call_site(), |t| t.span()),
            format!("warp-dsl internal: expected the {what} of a struct callback"),
        )),
    };
    let defs_tokens = group(it.next(), "definitions")?;
    let mut defs = Vec::new();
    for t in defs_tokens {
        if let TokenTree::Group(g) = t {
            defs.push(StructDef::parse(g.stream())?);
        }
    }
    let remaining_tokens = group(it.next(), "remaining types")?;
    let remaining = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        remaining_tokens,
    )?
    .into_iter()
    .collect();
    let kind = match it.next() {
        Some(TokenTree::Ident(i)) => i.to_string(),
        other => {
            return Err(syn::Error::new(
                other.map_or(Span::call_site(), |t| t.span()),
                "warp-dsl internal: expected the attribute of a struct callback",
            ));
        }
    };
    let attr = group(it.next(), "attribute arguments")?;
    Ok(Resume {
        defs,
        remaining,
        kind,
        attr,
        item: it.collect(),
    })
}

/// Checks a struct for `#[derive(DeviceValue)]`: named scalar (or half) fields, at most
/// [`MAX_TUPLE`], no generics, `#[repr(C)]`. Every problem is reported, spanned.
pub fn check_derive(input: &syn::DeriveInput) -> Result<StructDef, Vec<syn::Error>> {
    let mut errors = Vec::new();
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        errors.push(syn::Error::new(
            input.generics.span(),
            "`#[derive(DeviceValue)]` takes no generics or lifetimes: the GPU needs one concrete layout; write the struct for concrete field types",
        ));
    }
    let repr_c = input.attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|l| l.iter().any(|i| i == "C"))
    });
    if !repr_c {
        errors.push(syn::Error::new(
            input.ident.span(),
            "`#[derive(DeviceValue)]` needs `#[repr(C)]` on the struct: its fields must stay in declaration order, with C's padding, as the GPU lays them out",
        ));
    }
    let mut fields = Vec::new();
    match &input.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(named) => {
                if named.named.is_empty() {
                    errors.push(syn::Error::new(
                        input.ident.span(),
                        "a `DeviceValue` struct has at least one field",
                    ));
                }
                if named.named.len() > MAX_TUPLE {
                    errors.push(syn::Error::new(
                        named.span(),
                        format!("a `DeviceValue` struct has at most {MAX_TUPLE} fields"),
                    ));
                }
                for f in &named.named {
                    match parse_type(&f.ty) {
                        Ok(t) => match t.scalar() {
                            Some(s) => fields.push((
                                f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default(),
                                s,
                            )),
                            None => errors.push(syn::Error::new(
                                f.ty.span(),
                                "fields of a `DeviceValue` struct are scalars (`i8`..`u64`, `f32`, `f64`, `bool`, `f16`, `bf16`); flatten tuples and nested structs into fields",
                            )),
                        },
                        Err(_) => errors.push(syn::Error::new(
                            f.ty.span(),
                            format!(
                                "unsupported field type `{}`: fields of a `DeviceValue` struct are scalars (`i8`..`u64`, `f32`, `f64`, `bool`, `f16`, `bf16`); no references, pointers, arrays or nested structs",
                                { let t = &f.ty; quote!(#t) }.to_string().replace(' ', "")
                            ),
                        )),
                    }
                }
            }
            other => errors.push(syn::Error::new(
                other.span(),
                "`#[derive(DeviceValue)]` needs named fields (`struct S { a: f32, b: u32 }`): bodies read them by name",
            )),
        },
        syn::Data::Enum(e) => errors.push(syn::Error::new(
            e.enum_token.span,
            "`#[derive(DeviceValue)]` applies to structs with named scalar fields, not enums",
        )),
        syn::Data::Union(u) => errors.push(syn::Error::new(
            u.union_token.span,
            "`#[derive(DeviceValue)]` applies to structs with named scalar fields, not unions",
        )),
    }
    if errors.is_empty() {
        Ok(StructDef {
            name: input.ident.to_string(),
            fields,
        })
    } else {
        Err(errors)
    }
}
