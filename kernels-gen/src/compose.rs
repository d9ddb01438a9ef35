//! Composition (at run time): fragments of `#[map]`, `#[predicate]` and `#[reduce]` operations
//! in, the CUDA source of one fused kernel module out, built from the same prelude and
//! templates as the macros' own kernels. The runtime calls this once per combination and
//! caches the result like any other module.

use std::fmt::Write;

use crate::FRAGMENT_NAME;
use crate::emit::{PREDICATE_TEMPLATE, PRELUDE, finish_lines, reduce_templates};
use crate::parse::Style;

/// A `#[map]` or `#[predicate]` as the runtime holds it.
#[derive(Clone, Copy, Debug)]
pub struct FnFragment<'a> {
    /// Its name (for comments and file names).
    pub name: &'a str,
    /// The lowered device function, named [`FRAGMENT_NAME`].
    pub text: &'a str,
    /// C structs of its tuple types.
    pub type_support: &'a str,
    /// C type of its result.
    pub output: &'a str,
    /// Rust names of its extra (bound) parameters' types.
    pub extras: &'a [&'a str],
}

/// A `#[reduce]` operator as the runtime holds it.
#[derive(Clone, Copy, Debug)]
pub struct ReduceFragment<'a> {
    /// Its name.
    pub name: &'a str,
    /// The combine function, named [`FRAGMENT_NAME`].
    pub combine: &'a str,
    /// The identity function, named [`FRAGMENT_NAME`].
    pub identity: &'a str,
    /// C structs of its tuple types.
    pub type_support: &'a str,
    /// C type of its value.
    pub value: &'a str,
    /// The redux constant (`WD_REDUX_NONE`, `WD_REDUX_ADD`, ...).
    pub redux: &'a str,
}

/// Kernel entry points of a predicate module.
pub const PREDICATE_KERNELS: [&str; 5] = [
    "wd_k_count",
    "wd_k_any",
    "wd_k_find_first",
    "wd_k_mask",
    "wd_k_compact",
];
/// Kernel entry point of a map-reduce module.
pub const MAP_REDUCE_KERNEL: &str = "wd_k_map_reduce";

/// The C spelling of a Rust scalar type name (`"f32"` -> `"wd_f32"`, `"bool"` -> `"bool"`).
pub fn c_scalar(rust: &str) -> String {
    if rust == "bool" {
        "bool".into()
    } else {
        format!("wd_{rust}")
    }
}

fn rename(text: &str, to: &str) -> String {
    text.replace(FRAGMENT_NAME, to)
}

/// The stage struct: elements of `elem` (a Rust scalar name), mapped by `map` if any, tested by
/// `pred` if any; bound arguments decoded from `wd_args` (the map's first).
fn stage(elem: &str, map: Option<&FnFragment>, pred: Option<&FnFragment>) -> String {
    let e = c_scalar(elem);
    let value = map
        .map(|m| m.output.to_string())
        .unwrap_or_else(|| e.clone());
    let args = |f: &FnFragment, first: usize| -> String {
        f.extras
            .iter()
            .enumerate()
            .map(|(i, t)| format!(", wd_arg_decode<{}>::get(a.v[{}])", c_scalar(t), first + i))
            .collect()
    };
    let value_body = match map {
        Some(m) => format!("return wd_map(e{});", args(m, 0)),
        None => "return e;".into(),
    };
    let nmap = map.map(|m| m.extras.len()).unwrap_or(0);
    let keep_body = match pred {
        Some(p) => format!("return wd_pred(v{});", args(p, nmap)),
        None => "return true;".into(),
    };
    format!(
        "
// ---- the stage: elements, the map, the predicate ----
struct wd_stage {{
    typedef {e} elem_t;
    typedef {value} value_t;
    const {e}* p;
    wd_u64 n;
    wd_args a;
    __device__ __forceinline__ value_t value(elem_t e) const {{ {value_body} }}
    __device__ __forceinline__ bool keep(value_t v) const {{ {keep_body} }}
    __device__ __forceinline__ value_t make(elem_t e, wd_u64) const {{ return value(e); }}
}};
"
    )
}

fn header(what: &str) -> String {
    format!(
        "// warp-dsl: {what}, composed at run time by kernels-gen {}.\n{PRELUDE}",
        env!("CARGO_PKG_VERSION")
    )
}

/// All predicate kernels (count, any/all, find_first, mask, compact) for `pred` over elements
/// of `elem`, optionally mapped by `map` first.
pub fn predicate_module(elem: &str, map: Option<&FnFragment>, pred: &FnFragment) -> String {
    let what = match map {
        Some(m) => format!(
            "predicate `{}` over map `{}` of `{elem}`",
            pred.name, m.name
        ),
        None => format!("predicate `{}` over `{elem}`", pred.name),
    };
    let mut src = header(&what);
    if let Some(m) = map {
        src.push_str(m.type_support);
        src.push_str(&rename(m.text, "wd_map"));
    }
    src.push_str(pred.type_support);
    src.push_str(&rename(pred.text, "wd_pred"));
    src.push_str(&reduce_templates(Style::Intrinsics));
    src.push_str(PREDICATE_TEMPLATE);
    src.push_str(&stage(elem, map, Some(pred)));
    let e = c_scalar(elem);
    let _ = write!(
        src,
        "
// ---- kernels ----
#define WD_STAGE wd_stage st; st.p = p; st.n = n; st.a = a
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_count(const {e}* p, wd_u64 n, wd_args a, wd_u64* partials, unsigned int* ticket, wd_u64* out) {{
    WD_STAGE;
    wd_count(st, partials, ticket, out);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_any(const {e}* p, wd_u64 n, wd_args a, unsigned int negate, unsigned int* flag) {{
    WD_STAGE;
    wd_any(st, negate != 0, flag);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_find_first(const {e}* p, wd_u64 n, wd_args a, wd_u64* first) {{
    WD_STAGE;
    wd_find_first(st, first);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_mask(const {e}* p, wd_u64 n, wd_args a, wd_u32* words) {{
    WD_STAGE;
    wd_mask(st, words);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_compact(const {e}* p, wd_u64 n, wd_args a, wd_stage::value_t* kept, wd_stage::value_t* rejected,
             wd_u64* status, unsigned int* tile_counter, wd_u64* count) {{
    WD_STAGE;
    wd_compact(st, kept, rejected, status, tile_counter, count);
}}
"
    );
    finish_lines(&src, &format!("{}_{elem}", pred.name))
}

/// The fused map-reduce kernel: `op` over `map` of elements of `elem`, one read of the input.
pub fn map_reduce_module(elem: &str, map: &FnFragment, op: &ReduceFragment) -> String {
    let mut src = header(&format!(
        "reduction `{}` over map `{}` of `{elem}`",
        op.name, map.name
    ));
    src.push_str(map.type_support);
    src.push_str(op.type_support);
    src.push_str(&rename(map.text, "wd_map"));
    src.push_str(&rename(op.combine, "wd_op_combine"));
    src.push_str(&rename(op.identity, "wd_op_identity"));
    src.push_str(&reduce_templates(Style::Intrinsics));
    let t = op.value;
    let _ = write!(
        src,
        "
struct wd_op {{
    typedef {t} T;
    static constexpr int redux = {redux};
    static __device__ __forceinline__ T identity() {{ return wd_op_identity(); }}
    static __device__ __forceinline__ T combine(T a, T b) {{ return wd_op_combine(a, b); }}
    struct functor {{
        __device__ __forceinline__ T operator()(T a, T b) const {{ return wd_op_combine(a, b); }}
    }};
}};
",
        redux = op.redux
    );
    src.push_str(&stage(elem, Some(map), None));
    let e = c_scalar(elem);
    let _ = write!(
        src,
        "
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_map_reduce(const {e}* p, wd_u64 n, wd_args a, {t}* partials, unsigned int* ticket, {t}* out) {{
    wd_stage st;
    st.p = p;
    st.n = n;
    st.a = a;
    wd_reduce_grid<wd_op>(st, partials, ticket, out);
}}
"
    );
    finish_lines(&src, &format!("{}_{}_{elem}", map.name, op.name))
}
