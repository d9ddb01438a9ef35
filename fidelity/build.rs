//! Generates the fidelity programs (kernels_gen::fuzz) as Rust source, so rustc compiles each
//! one: the CPU side of the comparison is the real Rust function, not an interpreter.
//! FIDELITY_PROGRAMS (default 1000; the GPU run builds 10000) and FIDELITY_SEED (default 20261130) choose them.

use std::fmt::Write;

/// The hand-written programs of `regressions.rs`, each with its types.
fn regressions() -> Vec<kernels_gen::fuzz::Program> {
    println!("cargo:rerun-if-changed=regressions.rs");
    let text = std::fs::read_to_string("regressions.rs").expect("fidelity/regressions.rs");
    let file = syn::parse_file(&text).expect("regressions.rs is valid Rust");
    let mut out = Vec::new();
    for item in file.items {
        let syn::Item::Fn(f) = item else { continue };
        let ty = |t: &syn::Type| kernels_gen::parse::parse_type(t).expect("a DSL type");
        let params: Vec<kernels_gen::Scalar> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(pt) => ty(&pt.ty).scalar().expect("scalar parameters"),
                syn::FnArg::Receiver(_) => panic!("no methods"),
            })
            .collect();
        let ret = match &f.sig.output {
            syn::ReturnType::Type(_, t) => ty(t),
            syn::ReturnType::Default => panic!("a result type"),
        };
        let source = quote::ToTokens::to_token_stream(&f).to_string();
        out.push(kernels_gen::fuzz::Program {
            name: f.sig.ident.to_string(),
            params,
            ret,
            source: format!("{source}\n"),
        });
    }
    out
}

fn main() {
    println!("cargo:rerun-if-env-changed=FIDELITY_PROGRAMS");
    println!("cargo:rerun-if-env-changed=FIDELITY_SEED");
    let count: usize = std::env::var("FIDELITY_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let seed: u64 = std::env::var("FIDELITY_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_261_130);
    let mut programs = kernels_gen::fuzz::generate(seed, count);
    programs.extend(regressions());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// Seed the programs were generated from.\npub const SEED: u64 = {seed};"
    );
    out.push_str("#[allow(warnings, arithmetic_overflow, unconditional_panic, clippy::all)]\nmod programs {\n    use warp_runtime::half::{bf16, f16};\n");
    for p in &programs {
        out.push_str("pub ");
        out.push_str(&p.source);
    }
    out.push_str("}\n");
    // The CPU backend's copy of each program (kernels_gen::cpu_eval: the operators that can
    // panic as warp_runtime::semantics functions): it must compute what the program computes
    // without overflow checks wherever that does not panic.
    out.push_str(
        "#[allow(warnings, clippy::all)]\nmod evals {\n    use warp_runtime::half::{bf16, f16};\n",
    );
    for p in &programs {
        let mut f: syn::ItemFn = syn::parse_str(&p.source).expect("a generated program parses");
        *f.block = kernels_gen::cpu_eval::eval_block(&f.block);
        out.push_str("pub ");
        out.push_str(&quote::ToTokens::to_token_stream(&f).to_string());
        out.push('\n');
    }
    out.push_str("}\n");
    out.push_str("#[allow(unused, clippy::all)]\nmod runners {\n    use super::programs::*;\n    use warp_runtime::DeviceValue;\n    use warp_runtime::half::{bf16, f16};\n");
    for p in &programs {
        let (a, b, r) = (p.params[0], p.params[1], &p.ret);
        let _ = writeln!(
            out,
            "    pub fn run_{n}(a: &[u8], b: &[u8], out: &mut [u8]) {{ let (sa, sb, sr) = (<{a} as DeviceValue>::C_SIZE, <{b} as DeviceValue>::C_SIZE, <{r} as DeviceValue>::C_SIZE); for i in 0..a.len() / sa {{ let r: {r} = super::programs::{n}(<{a}>::read_c(&a[i * sa..]), <{b}>::read_c(&b[i * sb..])); r.write_c(&mut out[i * sr..]); }} }}",
            n = p.name
        );
        let _ = writeln!(
            out,
            "    pub fn eval_{n}(a: &[u8], b: &[u8], out: &mut [u8]) {{ let (sa, sb, sr) = (<{a} as DeviceValue>::C_SIZE, <{b} as DeviceValue>::C_SIZE, <{r} as DeviceValue>::C_SIZE); for i in 0..a.len() / sa {{ let r: {r} = super::evals::{n}(<{a}>::read_c(&a[i * sa..]), <{b}>::read_c(&b[i * sb..])); r.write_c(&mut out[i * sr..]); }} }}",
            n = p.name
        );
    }
    out.push_str("}\n");
    out.push_str("/// Every program: name, Rust source, parameter and result types, CPU runner.\npub static PROGRAMS: &[crate::Program] = &[\n");
    for p in &programs {
        let _ = writeln!(
            out,
            "    crate::Program {{ name: {:?}, source: {:?}, params: [{:?}, {:?}], ret: {:?}, run: runners::run_{}, eval: runners::eval_{} }},",
            p.name,
            p.source,
            p.params[0].rust_name(),
            p.params[1].rust_name(),
            p.ret.to_string(),
            p.name,
            p.name
        );
    }
    out.push_str("];\n");
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("programs.rs");
    std::fs::write(path, out).expect("write programs.rs");
}
