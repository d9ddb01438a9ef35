//! The CPU evaluation body: the user's body with every operation that can panic in Rust (or
//! whose result depends on the build profile) replaced by the `warp_runtime::semantics`
//! function computing what the generated CUDA computes, so that the CPU backend never panics
//! and agrees with the GPU in debug and release builds.
//!
//! Rewritten (the others never panic and keep Rust's operators):
//! `a + b`, `a - b`, `a * b`, `a / b`, `a % b`, `a << b`, `a >> b` and their compound
//! assignments, `-a` (not of a literal: `-128i8` stays a literal), `x.abs()`, `x.pow(e)`,
//! `x.clamp(lo, hi)` and their associated-function spellings (`i32::abs(x)`, ...). The
//! helpers dispatch on the operand types through traits, so no types are needed here: the
//! body type-checks exactly as the original does.
//!
//! ```
//! let body: syn::Block = syn::parse_quote!({ let c = a + b; -c / 2 });
//! let text = quote::ToTokens::to_token_stream(&kernels_gen::cpu_eval::eval_block(&body)).to_string();
//! assert!(text.contains("semantics :: add (a , b)"), "{text}");
//! assert!(text.contains("semantics :: div (:: warp_runtime :: semantics :: neg (c) , 2)"), "{text}");
//! ```

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

/// The body `block` with the GPU's semantics for every operation that can panic.
pub fn eval_block(block: &syn::Block) -> syn::Block {
    let mut b = block.clone();
    Rewrite.visit_block_mut(&mut b);
    b
}

struct Rewrite;

/// The `semantics` function an operator is computed with (`None`: it never panics).
fn helper(op: &syn::BinOp) -> Option<(&'static str, bool)> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => ("add", false),
        B::Sub(_) => ("sub", false),
        B::Mul(_) => ("mul", false),
        B::Div(_) => ("div", false),
        B::Rem(_) => ("rem", false),
        B::Shl(_) => ("shl", false),
        B::Shr(_) => ("shr", false),
        B::AddAssign(_) => ("add", true),
        B::SubAssign(_) => ("sub", true),
        B::MulAssign(_) => ("mul", true),
        B::DivAssign(_) => ("div", true),
        B::RemAssign(_) => ("rem", true),
        B::ShlAssign(_) => ("shl", true),
        B::ShrAssign(_) => ("shr", true),
        _ => return None,
    })
}

/// The built-in methods that can panic, with their argument counts after the receiver.
fn method_helper(name: &str, args: usize) -> Option<&'static str> {
    match (name, args) {
        ("abs", 0) => Some("abs"),
        ("pow", 1) => Some("pow"),
        ("clamp", 2) => Some("clamp"),
        _ => None,
    }
}

fn is_literal_like(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(p) => is_literal_like(&p.expr),
        syn::Expr::Group(g) => is_literal_like(&g.expr),
        _ => false,
    }
}

fn call(name: &str, span: Span, turbofish: Option<syn::Type>, args: Vec<&syn::Expr>) -> syn::Expr {
    let f = syn::Ident::new(name, span);
    let generics = turbofish.map(|t| quote_spanned!(span=> ::<#t>));
    syn::parse_quote_spanned!(span=> ::warp_runtime::semantics::#f #generics (#(#args),*))
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        visit_mut::visit_expr_mut(self, e);
        let span = e.span();
        let new = match e {
            syn::Expr::Binary(b) => match helper(&b.op) {
                Some((name, false)) => Some(call(name, span, None, vec![&b.left, &b.right])),
                Some((name, true)) => {
                    // `x op= y` is `x = op(x, y)`, the order the generated CUDA evaluates it in.
                    let target = &b.left;
                    let value = call(name, span, None, vec![&b.left, &b.right]);
                    Some(syn::parse_quote_spanned!(span=> #target = #value))
                }
                None => None,
            },
            syn::Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Neg(_)) && !is_literal_like(&u.expr) =>
            {
                Some(call("neg", span, None, vec![&u.expr]))
            }
            syn::Expr::MethodCall(m) if m.turbofish.is_none() => {
                method_helper(&m.method.to_string(), m.args.len()).map(|name| {
                    let mut args = vec![&*m.receiver];
                    args.extend(m.args.iter());
                    call(name, span, None, args)
                })
            }
            syn::Expr::Call(c) => match &*c.func {
                // `T::abs(x)`, `half::f16::clamp(x, lo, hi)`: the helper with `T` named.
                syn::Expr::Path(p)
                    if p.qself.is_none() && p.path.segments.len() >= 2 && !c.args.is_empty() =>
                {
                    let last = p.path.segments.last().expect("two segments");
                    match method_helper(&last.ident.to_string(), c.args.len() - 1) {
                        Some(name) if last.arguments.is_none() => {
                            let mut ty = p.path.clone();
                            ty.segments.pop();
                            let ty_path: syn::Path = syn::Path {
                                leading_colon: ty.leading_colon,
                                segments: ty
                                    .segments
                                    .into_pairs()
                                    .map(|p| p.into_value())
                                    .collect(),
                            };
                            let ty: syn::Type = syn::parse_quote!(#ty_path);
                            Some(call(name, span, Some(ty), c.args.iter().collect()))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(n) = new {
            *e = n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewrite(body: syn::Block) -> String {
        eval_block(&body).to_token_stream().to_string()
    }

    #[test]
    fn operators_that_can_panic_become_helpers() {
        let s = rewrite(syn::parse_quote!({
            let mut x = a << 3u32;
            x += b % a;
            x >>= 1;
            (
                x.abs().pow(2).clamp(0, 9),
                -(x),
                -1,
                -(1),
                i64::abs(x),
                a & b,
                a == b,
            )
        }));
        let h = ":: warp_runtime :: semantics ::";
        for want in [
            format!("{h} shl (a , 3u32)"),
            format!("x = {h} add (x , {h} rem (b , a))"),
            format!("x = {h} shr (x , 1)"),
            format!("{h} clamp ({h} pow ({h} abs (x) , 2) , 0 , 9)"),
            format!("{h} neg ((x))"),
            "- 1 ,".to_string(),
            "- (1) ,".to_string(),
            format!("{h} abs :: < i64 > (x)"),
            "a & b".to_string(),
            "a == b".to_string(),
        ] {
            assert!(s.contains(&want), "{want} in {s}");
        }
    }

    #[test]
    fn methods_that_cannot_panic_stay() {
        let s = rewrite(syn::parse_quote!({ x.max(y).wrapping_add(1).count_ones() }));
        assert!(!s.contains("semantics"), "{s}");
    }
}
