//! Snapshots of the token expansion of `#[reduce]`, `#[predicate]` and `#[map]` (what
//! warp-macros returns), formatted by rustfmt, with the long CUDA string literals replaced
//! by their size (their content is in the CUDA snapshots of the tests crate).
//! Update with `INSTA_UPDATE=always cargo test -p warpdsl-kernels-gen --test expansion` and review.

use std::io::Write;
use std::process::{Command, Stdio};

use proc_macro2::{Literal, TokenStream, TokenTree};
use quote::quote;

/// String literals longer than this are replaced by their length.
const LONG: usize = 600;

fn shorten(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), shorten(g.stream()));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.starts_with('"') && text.len() > LONG {
                    let lines = text.matches("\\n").count();
                    TokenTree::Literal(Literal::string(&format!(
                        "<{} bytes of CUDA, {lines} lines>",
                        text.len()
                    )))
                } else {
                    TokenTree::Literal(l)
                }
            }
            other => other,
        })
        .collect()
}

/// The expansion as rustfmt prints it.
fn pretty(tokens: TokenStream) -> String {
    let text = shorten(tokens).to_string();
    let rustfmt = std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into());
    let mut child = Command::new(rustfmt)
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("rustfmt runs (it is part of the toolchain the tests use)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to rustfmt");
    let out = child.wait_with_output().expect("rustfmt output");
    assert!(
        out.status.success(),
        "rustfmt rejected the expansion:\n{text}"
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn reduce_expansion() {
    let out = kernels_gen::expand::reduce(
        quote!(identity = 0.0),
        quote! {
            /// A sum.
            pub fn sum(a: f32, b: f32) -> f32 {
                a + b
            }
        },
    );
    insta::assert_snapshot!("reduce_sum", pretty(out));
}

#[test]
fn predicate_expansion() {
    let out = kernels_gen::expand::predicate(
        quote!(),
        quote! {
            fn above(x: f32, t: f32) -> bool {
                x > t
            }
        },
    );
    insta::assert_snapshot!("predicate_above", pretty(out));
}

#[test]
fn map_expansion() {
    let out = kernels_gen::expand::map(
        quote!(),
        quote! {
            fn pair(x: u8) -> (u8, f32) {
                (x, x as f32)
            }
        },
    );
    insta::assert_snapshot!("map_pair", pretty(out));
}

#[test]
fn zipped_predicate_expansion() {
    let out = kernels_gen::expand::predicate(
        quote!(inputs = 2),
        quote! {
            fn close(x: f32, y: f32, tol: f32) -> bool {
                (x - y).abs() <= tol
            }
        },
    );
    insta::assert_snapshot!("predicate_close_zipped", pretty(out));
}

#[test]
fn errors_are_compile_errors_before_the_item() {
    let out = kernels_gen::expand::reduce(
        quote!(),
        quote! {
            fn f(a: f32, b: f32) -> f32 {
                for _ in 0..3 {}
                a
            }
        },
    )
    .to_string();
    assert_eq!(out.matches("compile_error").count(), 2, "{out}");
    assert!(out.contains("missing identity"), "{out}");
    assert!(out.contains("`for` loops are not supported"), "{out}");
    assert!(
        out.ends_with("a }"),
        "the item as written comes last: {out}"
    );
}
