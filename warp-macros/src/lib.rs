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

fn expand_reduce(op: &kernels_gen::ReduceOp) -> proc_macro2::TokenStream {
    let item = &op.def.item;
    let name = &item.sig.ident;
    let vis = &item.vis;
    let inputs = &item.sig.inputs;
    let output = &item.sig.output;
    let block = &item.block;
    let (docs, other_attrs): (Vec<_>, Vec<_>) =
        item.attrs.iter().partition(|a| a.path().is_ident("doc"));
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
    let redux = opt(&op.kernels.redux.map(|r| format!("{r:?}").to_lowercase()));
    let summary = format!(
        "warp-dsl reduction `{name_str}` over `{}`: pass it to `Device::reduce`; `{name_str}.call(a, b)` runs it on the CPU.",
        op.value_ty
    );
    let (a, b) = (format_ident!("a"), format_ident!("b"));
    let style = op.kernels.style.name();
    let needs_headers = op.kernels.needs_cuda_headers;
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

            /// The CUDA C generated for this operation's kernels.
            #vis const CUDA_SOURCE: &'static str = #source;

            /// The CUDA C generated for this operation's kernels.
            #vis fn cuda_source(self) -> &'static str {
                Self::CUDA_SOURCE
            }
        }

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
