//! The attribute macros of warp-dsl. Thin by design: parse the attribute, let `kernels-gen` check
//! the function and generate its CUDA, and emit tokens. Use them through `warp-runtime`, which
//! re-exports them.

use proc_macro::TokenStream;
use quote::{format_ident, quote};

/// Turns `fn(T, T) -> T` into a reduction operator that runs on the GPU and the CPU.
///
/// `#[reduce(identity = EXPR)]`: `EXPR` is the identity of the operator (`f(EXPR, x) == x`).
/// The annotated name becomes a value (a unit struct) to pass to `Device::reduce`; the function
/// stays callable on the CPU as `name.call(a, b)`, and `name.cuda_source()` returns the CUDA C
/// generated for it. See the `warp-runtime` documentation for the body language.
#[proc_macro_attribute]
pub fn reduce(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item2 = proc_macro2::TokenStream::from(item.clone());
    let item_fn: syn::ItemFn = match syn::parse(item) {
        Ok(f) => f,
        Err(_) => {
            let err = syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[reduce] applies to a function: `fn name(a: T, b: T) -> T { ... }`",
            )
            .to_compile_error();
            return quote!(#err #item2).into();
        }
    };
    match kernels_gen::reduce_op(attr.into(), item_fn) {
        Ok(op) => expand_reduce(&op).into(),
        Err(failure) => {
            // Every error at once, and the function as written so the crate keeps type-checking.
            let errors = failure.diagnostics.to_compile_errors();
            let item = &failure.item;
            quote!(#errors #item).into()
        }
    }
}

/// The value a warp-dsl attribute makes of a function: a unit struct of the function's name
/// (with its docs and `summary`), whose `call` method is the function as written, plus `extra`
/// inherent items.
fn unit_struct(
    item: &syn::ItemFn,
    summary: &str,
    extra: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    let name = &item.sig.ident;
    let vis = &item.vis;
    let inputs = &item.sig.inputs;
    let output = &item.sig.output;
    let block = &item.block;
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
            /// Runs the function, as written, on the CPU.
            #(#other_attrs)*
            #[inline]
            #vis fn call(self, #inputs) #output #block

            #extra
        }
    }
}

fn expand_reduce(op: &kernels_gen::ReduceOp) -> proc_macro2::TokenStream {
    let item = &op.def.item;
    let name = &item.sig.ident;
    let vis = &item.vis;
    let inputs = &item.sig.inputs;
    let value_ty = match inputs.first() {
        Some(syn::FnArg::Typed(pt)) => &*pt.ty,
        _ => unreachable!("kernels-gen checked two typed parameters"),
    };
    let identity = &op.identity;
    let source = &op.kernels.source;
    let opt = |k: &Option<String>| match k {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let plain = opt(&op.kernels.plain);
    let indexed = opt(&op.kernels.indexed);
    let name_str = name.to_string();
    let file = &op.function.file;
    let line = op.function.line;
    let redux = opt(&op.kernels.redux.map(|r| r.name().to_string()));
    let summary = format!(
        "warp-dsl reduction `{name_str}` over `{}`: pass it to `Device::reduce`; `{name_str}.call(a, b)` runs it on the CPU.",
        op.value_ty
    );
    let (a, b) = (format_ident!("a"), format_ident!("b"));
    let style = op.kernels.style.name();
    let needs_headers = op.kernels.needs_cuda_headers;
    let combine_fragment = &op.kernels.combine_fragment;
    let identity_fragment = &op.kernels.identity_fragment;
    let type_support = &op.kernels.type_support;
    let value_c = op.value_ty.c_name();
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
            const META: ::warp_runtime::OpMeta = ::warp_runtime::OpMeta {
                name: #name_str,
                source: Self::CUDA_SOURCE,
                plain_kernel: #plain,
                indexed_kernel: #indexed,
                redux: #redux,
                style: #style,
                needs_cuda_headers: #needs_headers,
                combine_fragment: #combine_fragment,
                identity_fragment: #identity_fragment,
                type_support: #type_support,
                value_c: #value_c,
                file: #file,
                line: #line,
            };
            #[inline]
            fn identity(&self) -> #value_ty {
                #identity
            }
            #[inline]
            fn combine(&self, #a: #value_ty, #b: #value_ty) -> #value_ty {
                Self::call(*self, #a, #b)
            }
        }
    }
}

/// Turns `fn(x: T, extra...) -> bool` into a predicate for the element operations of a
/// `Device` (`count`, `any`, `all`, `find_first`, `mask`, `filter`, `partition`).
///
/// Extra parameters after the element are bound at call time with `name.with(...)`, so a new
/// threshold never means a new compile. The function stays callable on the CPU as
/// `name.call(x, ...)`.
#[proc_macro_attribute]
pub fn predicate(attr: TokenStream, item: TokenStream) -> TokenStream {
    element(attr, item, true)
}

/// Turns `fn(x: T, extra...) -> U` into a map that fuses into the reading pass of the
/// operations that consume it (`xs.map(f)`, `Device::map_reduce`): nothing is written to memory.
///
/// Extra parameters after the element are bound at call time with `name.with(...)`.
#[proc_macro_attribute]
pub fn map(attr: TokenStream, item: TokenStream) -> TokenStream {
    element(attr, item, false)
}

fn element(attr: TokenStream, item: TokenStream, predicate: bool) -> TokenStream {
    let what = if predicate { "predicate" } else { "map" };
    let item2 = proc_macro2::TokenStream::from(item.clone());
    let item_fn: syn::ItemFn = match syn::parse(item) {
        Ok(f) => f,
        Err(_) => {
            let msg = format!("#[{what}] applies to a function: `fn name(x: T, ...) -> ...`");
            let err = syn::Error::new(proc_macro2::Span::call_site(), msg).to_compile_error();
            return quote!(#err #item2).into();
        }
    };
    match kernels_gen::element_op(attr.into(), item_fn, predicate) {
        Ok(op) => expand_element(&op, predicate).into(),
        Err(failure) => {
            let errors = failure.diagnostics.to_compile_errors();
            let item = &failure.item;
            quote!(#errors #item).into()
        }
    }
}

fn expand_element(op: &kernels_gen::ElementOp, predicate: bool) -> proc_macro2::TokenStream {
    let item = &op.def.item;
    let name = &item.sig.ident;
    let vis = &item.vis;
    let inputs = &item.sig.inputs;
    let output = &item.sig.output;
    let typed: Vec<&syn::PatType> = inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => Some(pt),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let input_ty = &*typed[0].ty;
    let extra_tys: Vec<&syn::Type> = typed[1..].iter().map(|pt| &*pt.ty).collect();
    let extra_names: Vec<syn::Ident> = (0..extra_tys.len())
        .map(|i| format_ident!("arg{i}"))
        .collect();
    let name_str = name.to_string();
    let fragment = &op.fragment;
    let type_support = &op.type_support;
    let output_c = op.output.c_name();
    let extras_rust: Vec<String> = op
        .extras
        .iter()
        .map(|s| s.rust_name().to_string())
        .collect();
    let file = &op.function.file;
    let line = op.function.line;
    let ret_ty = match output {
        syn::ReturnType::Type(_, t) => quote!(#t),
        syn::ReturnType::Default => quote!(()),
    };
    let meta = quote! {
        ::warp_runtime::FnMeta {
            name: #name_str,
            fragment: #fragment,
            type_support: #type_support,
            output_c: #output_c,
            extras: &[#(#extras_rust),*],
            file: #file,
            line: #line,
        }
    };
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
    let extra_names_index: Vec<usize> = (0..extra_tys.len()).collect();
    let body_impl = if extra_tys.is_empty() {
        quote! {
            impl #trait_path for #name {
                type Input = #input_ty;
                #out_assoc
                const META: ::warp_runtime::FnMeta = #meta;
                #[inline]
                fn #method(&self, #x: #input_ty) -> #ret_ty {
                    Self::call(*self, #x)
                }
                fn args(&self) -> [u64; 8] {
                    [0; 8]
                }
            }
        }
    } else {
        let doc_bound = format!(
            "`{name_str}` with its extra parameters bound (made by `{name_str}.with(...)`)."
        );
        quote! {
            impl #name {
                /// Binds the extra parameters (passed to the kernel at launch: no recompilation).
                #vis fn with(self, #(#extra_names: #extra_tys),*) -> #bound_name {
                    #bound_name { #(#extra_names),* }
                }
            }

            #[doc = #doc_bound]
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug, PartialEq)]
            #vis struct #bound_name {
                #(#[doc = "A bound parameter."] pub #extra_names: #extra_tys,)*
            }

            impl #trait_path for #bound_name {
                type Input = #input_ty;
                #out_assoc
                const META: ::warp_runtime::FnMeta = #meta;
                #[inline]
                fn #method(&self, #x: #input_ty) -> #ret_ty {
                    #name::call(#name, #x, #(self.#extra_names),*)
                }
                fn args(&self) -> [u64; 8] {
                    let mut a = [0u64; 8];
                    #(
                        a[#extra_names_index] = ::warp_runtime::ArgBits::to_bits(self.#extra_names);
                    )*
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
