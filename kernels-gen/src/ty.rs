//! The DSL's type grammar: a type as written (`syn::Type`) to a `Ty` (scalars, `half`'s
//! `f16`/`bf16`, flat tuples); user structs come in through the lookup the caller passes.
//!
//! It uses no other module of the crate: `structs` (whose fields are scalars) and `parse`
//! (signatures, through `structs::parse_type`) both build on it.

use syn::spanned::Spanned;
use warp_kernels::types::{MAX_TUPLE, Scalar, Ty};

/// Parses a DSL type: a scalar name, `half::f16`/`half::bf16`, a struct `structs` knows (the
/// tuple of its field types), or a flat tuple of these.
pub fn parse_type(
    ty: &syn::Type,
    structs: &dyn Fn(&syn::Type) -> Option<Vec<Scalar>>,
) -> Result<Ty, syn::Error> {
    match ty {
        syn::Type::Paren(p) => parse_type(&p.elem, structs),
        syn::Type::Group(g) => parse_type(&g.elem, structs),
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(ident) = p.path.get_ident()
                && let Some(s) = Scalar::from_rust(&ident.to_string())
            {
                return Ok(Ty::Scalar(s));
            }
            // A struct the attribute was told about (`#[derive(DeviceValue)]`): its fields'
            // tuple (the checker keeps its name).
            if let Some(fields) = structs(ty) {
                return Ok(Ty::Tuple(fields));
            }
            // `half::f16`, `half::bf16` (and through warp-runtime's re-export).
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if let [.., krate, name] = segs.as_slice()
                && krate == "half"
                && let Some(s) = Scalar::from_rust(name).filter(|s| s.is_half())
            {
                return Ok(Ty::Scalar(s));
            }
            Err(unsupported_type(ty))
        }
        syn::Type::Tuple(t) => {
            if t.elems.is_empty() {
                return Err(syn::Error::new(
                    ty.span(),
                    "the unit type `()` is not a value type of the DSL; use a scalar or a tuple of scalars",
                ));
            }
            if t.elems.len() < 2 {
                return Err(syn::Error::new(
                    ty.span(),
                    "one-element tuples are not supported; use the scalar type itself",
                ));
            }
            if t.elems.len() > MAX_TUPLE {
                return Err(syn::Error::new(
                    ty.span(),
                    format!("tuples of more than {MAX_TUPLE} elements are not supported"),
                ));
            }
            let mut items = Vec::new();
            for elem in &t.elems {
                match parse_type(elem, structs)? {
                    Ty::Scalar(s) => items.push(s),
                    Ty::Tuple(_) => {
                        return Err(syn::Error::new(
                            elem.span(),
                            "nested tuples are not supported; flatten the tuple",
                        ));
                    }
                }
            }
            Ok(Ty::Tuple(items))
        }
        syn::Type::Reference(_) | syn::Type::Ptr(_) => Err(syn::Error::new(
            ty.span(),
            "references and pointers are not supported; take the value itself (scalars and tuples are `Copy`)",
        )),
        _ => Err(unsupported_type(ty)),
    }
}

fn unsupported_type(ty: &syn::Type) -> syn::Error {
    let text = quote::quote!(#ty).to_string().replace(' ', "");
    syn::Error::new(
        ty.span(),
        format!(
            "unsupported type `{text}`; the DSL takes `i8`..`i64`, `u8`..`u64`, `f32`, `f64`, `bool`, `half`'s `f16` and `bf16`, and flat tuples of these"
        ),
    )
}
