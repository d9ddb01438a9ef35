//! The token expansion of the attribute macros: what `#[reduce]`, `#[predicate]` and `#[map]`
//! turn a function into. warp-macros only forwards to these functions; they never panic (an
//! internal failure becomes a compile error at the attribute) and always emit the function's
//! item, so the rest of the crate keeps type-checking after an error.
//!
//! The expansion names the runtime's types by absolute paths (`::warp_runtime::...`): the
//! macros are used through warp-runtime, which re-exports them.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use warp_kernels::module::{FnFragment, OpFragment};
use warp_kernels::{Redux, Scalar, Style};

use crate::{ElementOp, Failure, ReduceOp};

/// `#[reduce(attr)] item`.
pub fn reduce(attr: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(fetch) = fetch_structs("reduce", &attr, &item) {
        return fetch;
    }
    guarded(&item, || {
        let item_fn = match syn::parse2::<syn::ItemFn>(item.clone()) {
            Ok(f) => f,
            Err(_) => {
                return not_a_function(
                    &item,
                    "#[reduce] applies to a function: `fn name(a: T, b: T) -> T { ... }`",
                );
            }
        };
        match crate::reduce_op(attr, item_fn) {
            Ok(op) => expand_reduce(&op),
            Err(failure) => failed(&failure),
        }
    })
}

/// `#[predicate(attr)] item`.
pub fn predicate(attr: TokenStream, item: TokenStream) -> TokenStream {
    element(attr, item, true)
}

/// `#[map(attr)] item`.
pub fn map(attr: TokenStream, item: TokenStream) -> TokenStream {
    element(attr, item, false)
}

/// Runs an expansion; a panic inside it (a bug in kernels-gen) becomes a compile error at
/// the attribute, followed by the item as written.
pub fn guarded(item: &TokenStream, expand: impl FnOnce() -> TokenStream) -> TokenStream {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(expand)) {
        Ok(tokens) => tokens,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".into());
            let err = syn::Error::new(
                Span::call_site(),
                format!(
                    "internal error in warp-dsl's code generator: {what}; this is a bug, please report it with the function"
                ),
            )
            .to_compile_error();
            quote!(#err #item)
        }
    }
}

fn not_a_function(item: &TokenStream, msg: &str) -> TokenStream {
    let err = syn::Error::new(Span::call_site(), msg).to_compile_error();
    quote!(#err #item)
}

/// Every error at once, and the function as written so the crate keeps type-checking.
fn failed(failure: &Failure) -> TokenStream {
    let errors = failure.diagnostics.to_compile_errors();
    let item = &failure.item;
    quote!(#errors #item)
}

/// When the function names types that are neither DSL types nor structs already known, the
/// call of the first one's macro (a `#[derive(DeviceValue)]` struct's), which brings its
/// definition and comes back through [`resume`] (see `crate::structs`).
fn fetch_structs(kind: &str, attr: &TokenStream, item: &TokenStream) -> Option<TokenStream> {
    let f = syn::parse2::<syn::ItemFn>(item.clone()).ok()?;
    let unknown = crate::structs::unknown_types(&f);
    if unknown.is_empty() {
        return None;
    }
    Some(crate::structs::callback(&unknown, &[], kind, attr, item))
}

/// `resume! { [defs] [remaining types] kind [attr] item }`: the way back from a struct's
/// macro. Fetches the next struct, or expands the attribute with every definition known.
pub fn resume(input: TokenStream) -> TokenStream {
    let r = match crate::structs::parse_resume(input) {
        Ok(r) => r,
        Err(e) => return e.to_compile_error(),
    };
    if !r.remaining.is_empty() {
        return crate::structs::callback(&r.remaining, &r.defs, &r.kind, &r.attr, &r.item);
    }
    let (kind, attr, item) = (r.kind, r.attr, r.item);
    crate::structs::with_structs(r.defs, || match kind.as_str() {
        "reduce" => reduce(attr, item),
        "predicate" => predicate(attr, item),
        "map" => map(attr, item),
        other => syn::Error::new(
            Span::call_site(),
            format!("warp-dsl internal: unknown attribute `{other}` in a struct callback"),
        )
        .to_compile_error(),
    })
}

/// `#[derive(DeviceValue)]` on a `#[repr(C)]` struct of named scalar fields: the
/// `DeviceValue` and `ArrayOf` impls (its C layout, checked against Rust's at compile time),
/// and the macro that tells the attribute macros its fields.
pub fn derive_device_value(input: TokenStream) -> TokenStream {
    let input: syn::DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let def = match crate::structs::check_derive(&input) {
        Ok(d) => d,
        Err(errors) => {
            let errs = errors.iter().map(syn::Error::to_compile_error);
            return quote!(#(#errs)*);
        }
    };
    let name = &input.ident;
    let p = quote!(::warp_runtime);
    let syn::Data::Struct(data) = &input.data else {
        return TokenStream::new();
    };
    let fields: Vec<&syn::Field> = data.fields.iter().collect();
    let idents: Vec<&syn::Ident> = fields.iter().filter_map(|f| f.ident.as_ref()).collect();
    let tys: Vec<&syn::Type> = fields.iter().map(|f| &f.ty).collect();
    // The C layout: each field aligned to its size, the whole to the largest.
    let mut offsets = Vec::new();
    let (mut off, mut align) = (0usize, 1usize);
    for (_, s) in &def.fields {
        off = off.next_multiple_of(s.size());
        offsets.push(off);
        off += s.size();
        align = align.max(s.size());
    }
    let size = off.next_multiple_of(align);
    let def_tokens = def.tokens();
    let macro_name = format_ident!("__warp_dsl_struct_{}", name);
    let layout_msg = format!(
        "warp-dsl: the Rust layout of `{name}` differs from its C layout (fields in order, each aligned to its size): check `#[repr(C)]`"
    );
    quote! {
        const _: () = {
            assert!(::core::mem::size_of::<#name>() == #size, #layout_msg);
            assert!(::core::mem::align_of::<#name>() == #align, #layout_msg);
            #( assert!(::core::mem::offset_of!(#name, #idents) == #offsets, #layout_msg); )*
        };
        impl #p::impl_::Sealed for #name {}
        impl #p::DeviceValue for #name {
            const EXACT: bool = true #( && <#tys as #p::DeviceValue>::EXACT )*;
            const C_SIZE: usize = #size;
            const C_ALIGN: usize = #align;
            fn read_c(bytes: &[u8]) -> Self {
                #name { #( #idents: <#tys as #p::DeviceValue>::read_c(&bytes[#offsets..]), )* }
            }
            fn write_c(&self, out: &mut [u8]) {
                #( #p::DeviceValue::write_c(&self.#idents, &mut out[#offsets..]); )*
            }
        }
        impl #p::ArrayOf for #name {
            type Array = #p::DeviceTuples<Self>;
        }
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #macro_name {
            ([$($defs:tt)*] $($rest:tt)*) => {
                ::warp_runtime::impl_::resume! { [$($defs)* #def_tokens] $($rest)* }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #macro_name as #name;
    }
}

fn element(attr: TokenStream, item: TokenStream, predicate: bool) -> TokenStream {
    if let Some(fetch) = fetch_structs(if predicate { "predicate" } else { "map" }, &attr, &item) {
        return fetch;
    }
    guarded(&item, || {
        let what = if predicate { "predicate" } else { "map" };
        let item_fn = match syn::parse2::<syn::ItemFn>(item.clone()) {
            Ok(f) => f,
            Err(_) => {
                let msg = format!("#[{what}] applies to a function: `fn name(x: T, ...) -> ...`");
                return not_a_function(&item, &msg);
            }
        };
        match crate::element_op(attr, item_fn, predicate) {
            Ok(op) => expand_element(&op, predicate),
            Err(failure) => failed(&failure),
        }
    })
}

/// The value a warp-dsl attribute makes of a function: a unit struct of the function's name
/// (with its docs and `summary`), whose `call` method is the function as written, plus `extra`
/// inherent items.
fn unit_struct(item: &syn::ItemFn, summary: &str, extra: TokenStream) -> TokenStream {
    let name = &item.sig.ident;
    let vis = &item.vis;
    let inputs = &item.sig.inputs;
    let output = &item.sig.output;
    let block = &item.block;
    let eval_block = crate::cpu_eval::eval_block(block);
    let (docs, other_attrs): (Vec<_>, Vec<_>) =
        item.attrs.iter().partition(|a| a.path().is_ident("doc"));
    quote! {
        #(#docs)*
        #[doc = ""]
        #[doc = #summary]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #vis struct #name;

        impl #name {
            /// Runs the function, as written, on the CPU (with Rust's semantics: in a debug
            /// build, integer overflow panics; the CPU backend runs the GPU's semantics instead).
            #(#other_attrs)*
            #[inline]
            #[allow(dead_code)]
            #vis fn call(self, #inputs) #output #block

            /// The function with the GPU's results where Rust's operators would panic or
            /// depend on the build profile (`warp_runtime::semantics`): what the CPU backend
            /// runs.
            #[doc(hidden)]
            #(#other_attrs)*
            #[inline]
            #[allow(unused, clippy::all, clippy::pedantic, clippy::nursery)]
            #vis fn __warp_cpu_eval(self, #inputs) #output #eval_block

            #extra
        }
    }
}

fn private() -> TokenStream {
    quote!(::warp_runtime::impl_)
}

/// A `'static` string of a fragment, as the `Cow::Borrowed` the expanded code names.
fn borrowed(s: &str) -> TokenStream {
    let p = private();
    quote!(#p::Cow::Borrowed(#s))
}

fn scalar_tokens(s: Scalar) -> TokenStream {
    let p = private();
    let v = format_ident!("{}", format!("{s:?}"));
    quote!(#p::Scalar::#v)
}

fn option_redux(r: Option<Redux>) -> TokenStream {
    let p = private();
    match r {
        Some(r) => {
            let v = format_ident!("{}", format!("{r:?}"));
            quote!(::core::option::Option::Some(#p::Redux::#v))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn style_tokens(s: Style) -> TokenStream {
    let p = private();
    let v = format_ident!("{}", format!("{s:?}"));
    quote!(#p::Style::#v)
}

/// The `OpFragment` literal of a reduction.
fn op_fragment(parts: &OpFragment) -> TokenStream {
    let p = private();
    let OpFragment { line, .. } = parts;
    let [name, file, value_c, combine, identity, type_support] = [
        &parts.name,
        &parts.file,
        &parts.value,
        &parts.combine,
        &parts.identity,
        &parts.type_support,
    ]
    .map(|s| borrowed(s));
    let redux = option_redux(parts.redux);
    let f32_sum = parts.f32_sum;
    let style = style_tokens(parts.style);
    quote! {
        #p::OpFragment {
            name: #name,
            file: #file,
            line: #line,
            value: #value_c,
            combine: #combine,
            identity: #identity,
            type_support: #type_support,
            redux: #redux,
            f32_sum: #f32_sum,
            style: #style,
        }
    }
}

/// The `FnFragment` literal of a map or predicate.
fn fn_fragment(parts: &FnFragment) -> TokenStream {
    let p = private();
    let FnFragment { line, inputs, .. } = parts;
    let [name, file, text, type_support, output_c, input_c] = [
        &parts.name,
        &parts.file,
        &parts.text,
        &parts.type_support,
        &parts.output,
        &parts.input,
    ]
    .map(|s| borrowed(s));
    let extras = parts.extras.iter().map(|&s| scalar_tokens(s));
    quote! {
        #p::FnFragment {
            name: #name,
            file: #file,
            line: #line,
            text: #text,
            type_support: #type_support,
            output: #output_c,
            input: #input_c,
            inputs: #inputs,
            extras: #p::Cow::Borrowed(&[#(#extras),*]),
        }
    }
}

fn expand_reduce(op: &ReduceOp) -> TokenStream {
    let item = &op.def.item;
    let name = &item.sig.ident;
    let vis = &item.vis;
    let value_ty = &*op.def.params[0].ty_tokens;
    let identity = &op.identity;
    let source = &op.source;
    let name_str = name.to_string();
    let summary = format!(
        "warp-dsl reduction `{name_str}` over `{}`: pass it to `Device::reduce`; `{name_str}.call(a, b)` runs it on the CPU.",
        op.value_ty
    );
    let (a, b) = (format_ident!("a"), format_ident!("b"));
    let fragment = op_fragment(&op.parts);
    let unit = unit_struct(
        item,
        &summary,
        quote! {
            /// The CUDA C generated for this operation's kernels.
            #vis const CUDA_SOURCE: &'static str = #source;

            /// The CUDA C generated for this operation's kernels.
            #vis fn cuda_source(self) -> &'static str {
                Self::CUDA_SOURCE
            }
        },
    );
    quote! {
        #unit

        impl ::warp_runtime::ReduceOp for #name {
            type Value = #value_ty;
            const META: ::warp_runtime::impl_::OpMeta = ::warp_runtime::impl_::OpMeta {
                fragment: #fragment,
                source: Self::CUDA_SOURCE,
            };
            #[inline]
            fn identity(&self) -> #value_ty {
                #identity
            }
            #[inline]
            fn combine(&self, #a: #value_ty, #b: #value_ty) -> #value_ty {
                Self::__warp_cpu_eval(*self, #a, #b)
            }
        }
    }
}

fn expand_element(op: &ElementOp, predicate: bool) -> TokenStream {
    let item = &op.def.item;
    let name = &item.sig.ident;
    let vis = &item.vis;
    let n = op.inputs;
    let element_tys: Vec<&syn::Type> = op.def.params[..n].iter().map(|p| &*p.ty_tokens).collect();
    let input_ty = if n == 1 {
        let t = element_tys[0];
        quote!(#t)
    } else {
        quote!((#(#element_tys,)*))
    };
    let extra_tys: Vec<&syn::Type> = op.def.params[n..].iter().map(|p| &*p.ty_tokens).collect();
    let extra_names: Vec<syn::Ident> = (0..extra_tys.len())
        .map(|i| format_ident!("arg{i}"))
        .collect();
    let name_str = name.to_string();
    let ret_ty = match &item.sig.output {
        syn::ReturnType::Type(_, t) => quote!(#t),
        syn::ReturnType::Default => quote!(()),
    };
    let fragment = fn_fragment(&op.parts);
    let meta = quote!(::warp_runtime::impl_::FnMeta { fragment: #fragment });
    let (trait_path, method, out_assoc) = if predicate {
        (quote!(::warp_runtime::Predicate), quote!(test), quote!())
    } else {
        (
            quote!(::warp_runtime::MapOp),
            quote!(apply),
            quote!(type Output = #ret_ty;),
        )
    };
    let bound_name = format_ident!("{}_with", name);
    let summary = format!(
        "warp-dsl {} `{name_str}`{}; `{name_str}.call(...)` runs it on the CPU.",
        if predicate { "predicate" } else { "map" },
        if extra_tys.is_empty() {
            String::new()
        } else {
            format!(": bind its extra parameters with `{name_str}.with(...)`")
        }
    );
    let x = format_ident!("x");
    // The element as the function's leading parameters: `x`, or `x.0, x.1, ...` when zipped.
    let elements = if n == 1 {
        quote!(#x)
    } else {
        let fields = (0..n).map(syn::Index::from);
        quote!(#(#x.#fields),*)
    };
    let body_impl = if extra_tys.is_empty() {
        quote! {
            impl #trait_path for #name {
                type Input = #input_ty;
                type Key = #name;
                #out_assoc
                const META: ::warp_runtime::impl_::FnMeta = #meta;
                #[inline]
                fn #method(&self, #x: #input_ty) -> #ret_ty {
                    Self::__warp_cpu_eval(*self, #elements)
                }
                fn args(&self) -> ::warp_runtime::BoundArgs {
                    ::warp_runtime::BoundArgs::default()
                }
            }
        }
    } else {
        let doc_bound = format!(
            "`{name_str}` with its extra parameters bound (made by `{name_str}.with(...)`): each a value (the default type) or a device-resident result (`DeviceScalar`)."
        );
        let generics: Vec<syn::Ident> = (0..extra_tys.len())
            .map(|i| format_ident!("A{i}"))
            .collect();
        let binds: Vec<syn::Ident> = (0..extra_tys.len())
            .map(|i| format_ident!("B{i}"))
            .collect();
        quote! {
            impl #name {
                /// Binds the extra parameters, each a value or a device-resident result
                /// (`&DeviceScalar`), passed to the kernel at launch: no recompilation.
                #[allow(clippy::too_many_arguments)] // one argument per bound parameter
                #vis fn with<#(#binds: ::warp_runtime::Bind<#extra_tys>),*>(
                    self,
                    #(#extra_names: #binds),*
                ) -> #bound_name<#(#binds::Arg),*> {
                    #bound_name { #(#extra_names: ::warp_runtime::Bind::into_arg(#extra_names)),* }
                }
            }

            #[doc = #doc_bound]
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug, PartialEq)]
            #vis struct #bound_name<#(#generics = #extra_tys),*> {
                #(#[doc = "A bound parameter."] pub #extra_names: #generics,)*
            }

            impl<#(#generics: ::warp_runtime::BoundArg<#extra_tys>),*> #trait_path for #bound_name<#(#generics),*> {
                type Input = #input_ty;
                type Key = #name;
                #out_assoc
                const META: ::warp_runtime::impl_::FnMeta = #meta;
                #[inline]
                fn #method(&self, #x: #input_ty) -> #ret_ty {
                    #name::__warp_cpu_eval(#name, #elements, #(::warp_runtime::BoundArg::value(&self.#extra_names)),*)
                }
                fn args(&self) -> ::warp_runtime::BoundArgs {
                    let mut a = ::warp_runtime::BoundArgs::default();
                    #( ::warp_runtime::BoundArg::push(&self.#extra_names, &mut a); )*
                    a
                }
            }
        }
    };
    let unit = unit_struct(item, &summary, quote!());
    quote! {
        #unit
        #body_impl
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_compile_error_and_keeps_the_item() {
        let item = quote!(
            fn f(a: f32, b: f32) -> f32 {
                a + b
            }
        );
        let out = guarded(&item, || panic!("an invariant broke")).to_string();
        assert!(out.starts_with(":: core :: compile_error !"), "{out}");
        assert!(out.contains("internal error in warp-dsl's code generator: an invariant broke"));
        assert!(out.ends_with(&item.to_string()), "{out}");
    }

    #[test]
    fn a_non_function_is_refused() {
        let out = reduce(
            quote!(identity = 0),
            quote!(
                struct S;
            ),
        )
        .to_string();
        assert!(out.contains("#[reduce] applies to a function"), "{out}");
        assert!(out.contains("struct S"), "{out}");
    }
}
