//! The stages of kernels-gen on small functions: inference, lowering, literals, patterns, errors.

use kernels_gen::ir::ExprKind;
use kernels_gen::{Scalar, Ty, reduce_op};
use quote::quote;
use warp_kernels::Redux;
use warp_kernels::lower::c_literal;

fn op(attr: proc_macro2::TokenStream, f: proc_macro2::TokenStream) -> kernels_gen::ReduceOp {
    let item: syn::ItemFn = syn::parse2(f).unwrap();
    match reduce_op(attr, item) {
        Ok(op) => op,
        Err(e) => panic!("{}", e.diagnostics.render("test.rs")),
    }
}

fn errors(attr: proc_macro2::TokenStream, f: proc_macro2::TokenStream) -> Vec<String> {
    let item: syn::ItemFn = syn::parse2(f).unwrap();
    match reduce_op(attr, item) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e
            .diagnostics
            .errors()
            .iter()
            .map(|e| e.to_string())
            .collect(),
    }
}

#[test]
fn float_literals_take_the_type_of_their_context() {
    let o = op(
        quote!(identity = 0.0),
        quote! { fn f(a: f32, b: f32) -> f32 { a * 0.1 + b } },
    );
    let src = &o.source;
    assert!(
        src.contains("0x1.99999ap-4f /* 0.1 */"),
        "an f32 literal, exact: {src}"
    );
    assert!(src.contains("return 0.0f;"), "identity typed f32");
    assert!(!src.contains("0.1)"), "never a double literal in f32 code");
}

#[test]
fn integer_literals_default_to_i32_and_follow_annotations() {
    let o = op(
        quote!(identity = 0),
        quote! { fn f(a: u8, b: u8) -> u8 { let k: u8 = 3; a.wrapping_add(b) ^ k } },
    );
    assert!(
        o.source.contains("const wd_u32 k = 3u;"),
        "a u8 lives in a 32-bit register: {}",
        o.source
    );
    let o = op(
        quote!(identity = 0),
        quote! { fn f(a: i64, b: i64) -> i64 { a + b + (1 << 4) as i64 } },
    );
    assert!(
        o.source.contains("wd_shl<wd_i32>(1, (wd_u32)(4))"),
        "{}",
        o.source
    );
}

#[test]
fn literals_are_exact() {
    for v in [
        0.1f32,
        1.0,
        -2.5,
        3.4028235e38,
        1e-45,
        f32::MIN_POSITIVE,
        16777217.0,
    ] {
        let s = c_literal(kernels_gen::ir::Lit::Float(v as f64), Scalar::F32);
        assert!(
            s.ends_with('f') || s.contains("f /*") || s.contains("f)"),
            "{s}"
        );
    }
    assert_eq!(
        c_literal(kernels_gen::ir::Lit::Float(f64::NAN), Scalar::F32),
        "__int_as_float(0x7fc00000)"
    );
    assert_eq!(
        c_literal(kernels_gen::ir::Lit::Int(i32::MIN as i128), Scalar::I32),
        "(-2147483647 - 1)"
    );
    // 8-bit values live in 32-bit registers.
    assert_eq!(
        c_literal(kernels_gen::ir::Lit::Int(255), Scalar::U8),
        "255u"
    );
    assert_eq!(
        c_literal(kernels_gen::ir::Lit::Int(-128), Scalar::I8),
        "(-128)"
    );
    assert_eq!(
        c_literal(kernels_gen::ir::Lit::Float(-0.0), Scalar::F64),
        "(-0.0)"
    );
}

#[test]
fn value_ifs_become_selects() {
    let o = op(
        quote!(identity = 0),
        quote! { fn f(a: i32, b: i32) -> i32 { if a > b && b != 0 { a - b } else { b } } },
    );
    let body = o
        .source
        .split("wd_op_combine(")
        .nth(1)
        .unwrap()
        .split('}')
        .next()
        .unwrap()
        .to_string();
    assert!(body.contains('?'), "a select: {body}");
    assert!(!body.contains("if ("), "no branch: {body}");
    assert!(
        !body.contains("&&"),
        "no short circuit over pure operands: {body}"
    );
}

#[test]
fn redux_is_recognised() {
    let cases = [
        (
            quote! { fn f(a: i32, b: i32) -> i32 { a + b } },
            Some(Redux::Add),
        ),
        (
            quote! { fn f(a: u32, b: u32) -> u32 { b.wrapping_add(a) } },
            Some(Redux::Add),
        ),
        (
            quote! { fn f(a: u16, b: u16) -> u16 { if a < b { a } else { b } } },
            Some(Redux::Min),
        ),
        (
            quote! { fn f(a: i8, b: i8) -> i8 { if a < b { b } else { a } } },
            Some(Redux::Max),
        ),
        (
            quote! { fn f(a: u32, b: u32) -> u32 { a ^ b } },
            Some(Redux::Xor),
        ),
        (quote! { fn f(a: u32, b: u32) -> u32 { a - b } }, None),
        (quote! { fn f(a: u64, b: u64) -> u64 { a + b } }, None),
        (quote! { fn f(a: f32, b: f32) -> f32 { a + b } }, None),
    ];
    for (f, want) in cases {
        let is_float = f.to_string().contains("f32");
        let o = op(
            if is_float {
                quote!(identity = 0.0)
            } else {
                quote!(identity = 0)
            },
            f,
        );
        assert_eq!(o.parts.redux, want, "{}", o.function.name);
    }
}

#[test]
fn f32_sums_are_recognised() {
    let cases = [
        (
            quote!(identity = 0.0),
            quote! { fn f(a: f32, b: f32) -> f32 { a + b } },
            true,
        ),
        (
            quote!(identity = -0.0),
            quote! { fn f(a: f32, b: f32) -> f32 { b + a } },
            true,
        ),
        (
            quote!(identity = 0.0f32),
            quote! { fn f(a: f32, b: f32) -> f32 { a + b } },
            true,
        ),
        // Not a plain sum, not a zero identity, not f32.
        (
            quote!(identity = 0.0),
            quote! { fn f(a: f32, b: f32) -> f32 { a + a } },
            false,
        ),
        (
            quote!(identity = 0.0),
            quote! { fn f(a: f32, b: f32) -> f32 { a - b } },
            false,
        ),
        (
            quote!(identity = 0.0),
            quote! { fn f(a: f32, b: f32) -> f32 { a.max(b) } },
            false,
        ),
        (
            quote!(identity = 1.0),
            quote! { fn f(a: f32, b: f32) -> f32 { a + b } },
            false,
        ),
        (
            quote!(identity = 0.0),
            quote! { fn f(a: f64, b: f64) -> f64 { a + b } },
            false,
        ),
        (
            quote!(identity = 0),
            quote! { fn f(a: i32, b: i32) -> i32 { a + b } },
            false,
        ),
        (
            quote!(identity = 0.0),
            quote! { fn f(a: f32, b: f32) -> f32 { let s = a + b; s } },
            false,
        ),
    ];
    for (identity, f, want) in cases {
        let o = op(identity, f);
        assert_eq!(o.parts.f32_sum, want, "{}", o.source);
    }
}

#[test]
fn match_desugars_to_an_if_chain() {
    let o = op(
        quote!(identity = 0),
        quote! { fn f(a: u32, b: u32) -> u32 { match a { 0 => b, 1..=3 | 7 => b * 2, n => n } } },
    );
    assert!(matches!(o.function.body.value.kind, ExprKind::Block(_)));
    assert!(
        o.source.contains("(tmp_ >= 1u) & (tmp_ <= 3u)"),
        "{}",
        o.source
    );
}

#[test]
fn tuples_get_structs_and_field_wise_shuffles() {
    let o = op(
        quote!(identity = (0.0, 0)),
        quote! { fn f(a: (f64, u16), b: (f64, u16)) -> (f64, u16) { (a.0 + b.0, a.1.max(b.1)) } },
    );
    assert_eq!(o.value_ty, Ty::Tuple(vec![Scalar::F64, Scalar::U16]));
    let s = &o.source;
    assert!(s.contains("struct wd_tuple_f64_u16 { wd_f64 f0; wd_u16 f1; };"));
    assert!(s.contains("v.f0 = wd_shfl_down(v.f0, x); v.f1 = wd_shfl_down(v.f1, x);"));
    // (f64, u16) pairs reduce over f64 elements with their u16 index.
    assert!(s.contains("t.f1 = (wd_u16)i;"), "{s}");
    assert_eq!(s.matches("extern \"C\"").count(), 1);
}

#[test]
fn errors_are_reported_all_at_once() {
    let e = errors(
        quote!(identity = 0),
        quote! { fn f(a: u32, b: u32) -> u32 { let v = [a]; loop {} ; v[0] + g(b) } },
    );
    assert!(e.len() >= 3, "{e:?}");
    assert!(e.iter().any(|m| m.contains("arrays")));
    assert!(e.iter().any(|m| m.contains("loop")));
    assert!(e.iter().any(|m| m.contains("calls to other functions")));
}

#[test]
fn literal_range_and_unsigned_negation_are_checked() {
    let e = errors(
        quote!(identity = 0),
        quote! { fn f(a: u8, b: u8) -> u8 { a + 300 } },
    );
    assert!(
        e.iter().any(|m| m.contains("out of range for `u8`")),
        "{e:?}"
    );
    let e = errors(
        quote!(identity = 0),
        quote! { fn f(a: u32, b: u32) -> u32 { a + -b } },
    );
    assert!(e.iter().any(|m| m.contains("unary operator `-`")), "{e:?}");
    // -128 fits i8: no error.
    op(
        quote!(identity = 0),
        quote! { fn f(a: i8, b: i8) -> i8 { a.wrapping_add(b) & -128 } },
    );
}

#[test]
fn line_directives_point_at_the_rust_source() {
    let src = "use x::reduce;\n\n#[reduce(identity = 0)]\nfn f(a: u32, b: u32) -> u32 {\n    let c = a ^ b;\n    c\n}\n";
    let items = kernels_gen::generate_file(src, "src/demo.rs").unwrap();
    let op = items[0].result.as_ref().unwrap();
    assert!(
        op.source.contains("#line 5 \"src/demo.rs\""),
        "{}",
        op.source
    );
    assert!(op.source.contains("\"warp-dsl/f.cu\""));
}

#[test]
fn every_generated_program_passes_the_checker() {
    for p in kernels_gen::fuzz::generate(7, 2000) {
        let item: syn::ItemFn =
            syn::parse_str(&p.source).unwrap_or_else(|e| panic!("{e}\n{}", p.source));
        if let Err(f) = kernels_gen::device_function(item, "fuzz.rs", "wd_f") {
            panic!("{}\n{}", f.diagnostics.render("fuzz.rs"), p.source);
        }
    }
}

/// Regression (found by the fidelity fuzzer): `-i64::MIN` wraps to `i64::MIN`, as the
/// arithmetic does without overflow checks; it was written as an out-of-range C literal.
#[test]
fn negated_min_constant_wraps() {
    let f = kernels_gen::device_function(
        syn::parse_quote! { fn f(a: i64, b: i8) -> (i64, i8) { ((-i64::MIN).max(a), -i8::MIN) } },
        "t.rs",
        "wd_f",
    )
    .unwrap();
    assert!(
        f.text.contains("(-9223372036854775807ll - 1)"),
        "{}",
        f.text
    );
    assert!(f.text.contains(", (-128))"), "{}", f.text);
    assert!(!f.text.contains("9223372036854775808"), "{}", f.text);
}

/// Regression (found by the fidelity fuzzer): a cast's target type reaches a literal operand
/// (`300 as u8` is a u8 literal) but not literals inside the branches of its operand.
#[test]
fn cast_hint_does_not_enter_branches() {
    let f = kernels_gen::device_function(
        syn::parse_quote! { fn f(a: bool, b: f64) -> i16 { (if a { 0 } else { b.to_bits() as u16 }) as i16 } },
        "t.rs",
        "wd_f",
    );
    assert!(
        f.is_ok(),
        "{}",
        f.err()
            .map(|e| e.diagnostics.render("t.rs"))
            .unwrap_or_default()
    );
}
