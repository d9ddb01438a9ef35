//! Differential fidelity of warp-dsl: random programs of the body language (kernels_gen::fuzz),
//! each compiled by rustc (the CPU reference, built without overflow checks: the DSL's
//! release semantics) and by kernels-gen + NVRTC (the GPU), evaluated on the edges of every
//! type and random values, and compared bit for bit (NaN equals NaN whatever its payload).

use kernels_gen::{Scalar, Ty};

/// One generated program.
pub struct Program {
    /// Function name.
    pub name: &'static str,
    /// Rust source of the function.
    pub source: &'static str,
    /// Parameter types.
    pub params: [&'static str; 2],
    /// Result type (`u8`, `(f32, i64)`).
    pub ret: &'static str,
    /// Runs the rustc-compiled function over C-layout inputs, writing C-layout results.
    pub run: fn(&[u8], &[u8], &mut [u8]),
    /// The same with the CPU backend's copy of the function (`kernels_gen::cpu_eval`).
    pub eval: fn(&[u8], &[u8], &mut [u8]),
}

include!(concat!(env!("OUT_DIR"), "/programs.rs"));

pub mod harness;

/// Parses a type name as the generator prints it.
pub fn parse_ty(s: &str) -> Ty {
    let t = s.trim();
    if let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        Ty::Tuple(
            inner
                .split(',')
                .map(|p| Scalar::from_rust(p.trim()).expect("scalar"))
                .collect(),
        )
    } else {
        Ty::Scalar(Scalar::from_rust(t).expect("scalar"))
    }
}
