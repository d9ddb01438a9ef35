//! Composition (at run time): fragments of `#[map]`, `#[predicate]` and `#[reduce]` operations
//! in, the CUDA source of one fused kernel module out, built from the same prelude and
//! templates as the macros' own kernels. The runtime calls this once per combination and
//! caches the result like any other module.

use std::fmt::Write;

use crate::FRAGMENT_NAME;
use crate::emit::{
    AXIS_TEMPLATE, LOOKBACK_TEMPLATE, PREDICATE_TEMPLATE, PRELUDE, SCAN_TEMPLATE, TILES_TEMPLATE,
    finish_lines, reduce_templates,
};
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
/// Copies of the stop signal that `wd_k_any` and `wd_k_find_first` read before every tile,
/// spread over L2 slices so that the reads of all warps do not queue on one (see predicate.cuh).
/// The signal buffer holds `STOP_COPIES * STOP_STRIDE` bytes; copy 0 is the result.
pub const STOP_COPIES: usize = 32;
/// Bytes between two copies of the stop signal.
pub const STOP_STRIDE: usize = 512;

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
    src.push_str(TILES_TEMPLATE);
    src.push_str(LOOKBACK_TEMPLATE);
    let _ = write!(
        src,
        "#define WD_STOP_COPIES {STOP_COPIES}u\n#define WD_STOP_STRIDE {STOP_STRIDE}u\n"
    );
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
// 5 resident blocks per SM (48 registers) keep enough loads in flight for 4-byte values.
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK, sizeof(wd_stage::value_t) <= 4 && sizeof(wd_stage::elem_t) <= 4 ? 5 : 1)
wd_k_compact(const {e}* p, wd_u64 n, wd_args a, wd_stage::value_t* kept, wd_stage::value_t* rejected,
             unsigned char* status, unsigned int* queue, wd_u64* count) {{
    WD_STAGE;
    wd_compact(st, kept, rejected, status, queue, count);
}}
"
    );
    finish_lines(&src, &format!("{}_{elem}", pred.name))
}

/// The `wd_op` struct (the `Op` of the templates) of a `#[reduce]` operator whose combine and
/// identity are in the source as `wd_op_combine` / `wd_op_identity`.
fn op_struct(op: &ReduceFragment) -> String {
    format!(
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
        t = op.value,
        redux = op.redux
    )
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
    src.push_str(&op_struct(op));
    src.push_str(&stage(elem, Some(map), None));
    let e = c_scalar(elem);
    let t = op.value;
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

/// Segments longer than this many elements are not reduced by one warp (`wd_k_segments`) but
/// listed for the whole grid (`wd_k_segments_long`).
pub const SEG_LONG: usize = 8192;
/// Elements per block-sized chunk of a long segment.
pub const SEG_CHUNK: usize = 32768;

/// The axis template with the segment sizes it is built for.
fn axis_template() -> String {
    format!(
        "#define WD_SEG_LONG {SEG_LONG}ull\n#define WD_SEG_CHUNK {SEG_CHUNK}ull\n{AXIS_TEMPLATE}"
    )
}

/// Kernel entry points of an axis module ([`axis_module`]).
pub const AXIS_KERNELS: [&str; 15] = [
    "wd_k_scan",
    "wd_k_scan_tiles",
    "wd_k_rows_g1",
    "wd_k_rows_g2",
    "wd_k_rows_g4",
    "wd_k_rows_g8",
    "wd_k_rows_g16",
    "wd_k_rows_warp",
    "wd_k_rows_block",
    "wd_k_rows_split",
    "wd_k_segments",
    "wd_k_segments_plan",
    "wd_k_segments_long",
    "wd_k_cols",
    "wd_k_cols_unpadded",
];

/// What the values of an axis operation are made of.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// The elements themselves.
    Plain,
    /// A `#[map]` of each element.
    Map(&'a FnFragment<'a>),
    /// `(element, index)` pairs, the index of C type `index` (`"wd_u32"`): the op's value is a
    /// two-field tuple.
    Indexed {
        /// C type of the index.
        index: &'a str,
    },
}

/// The stage of `(element, index)` pairs: `make(e, i)` builds the op's tuple.
fn indexed_stage(elem: &str, value: &str, index: &str) -> String {
    let e = c_scalar(elem);
    format!(
        "
// ---- the stage: (element, index) pairs ----
struct wd_stage {{
    typedef {e} elem_t;
    typedef {value} value_t;
    const {e}* p;
    wd_u64 n;
    wd_args a;
    __device__ __forceinline__ value_t make(elem_t e, wd_u64 i) const {{
        value_t t;
        t.f0 = e;
        t.f1 = ({index})i;
        return t;
    }}
    __device__ __forceinline__ bool keep(value_t) const {{ return true; }}
}};
"
    )
}

/// Scans and axis reductions of `op` over values made from elements of `elem` by `source`:
/// inclusive/exclusive scan with decoupled look-back, reductions along rows (sub-warp groups,
/// a warp, a block or several blocks per row), over CSR segments, and along columns through a
/// padded shared tile.
pub fn axis_module(elem: &str, source: Source, op: &ReduceFragment) -> String {
    let (what, tag) = match source {
        Source::Plain => (format!("`{elem}`"), String::new()),
        Source::Map(m) => (
            format!("map `{}` of `{elem}`", m.name),
            format!("{}_", m.name),
        ),
        Source::Indexed { index } => (
            format!("(`{elem}`, index) pairs"),
            format!("indexed_{}_", index.trim_start_matches("wd_")),
        ),
    };
    let mut src = header(&format!(
        "scans and axis reductions `{}` over {what}",
        op.name
    ));
    if let Source::Map(m) = source {
        src.push_str(m.type_support);
        src.push_str(&rename(m.text, "wd_map"));
    }
    src.push_str(op.type_support);
    src.push_str(&rename(op.combine, "wd_op_combine"));
    src.push_str(&rename(op.identity, "wd_op_identity"));
    src.push_str(&reduce_templates(Style::Intrinsics));
    src.push_str(&op_struct(op));
    match source {
        Source::Plain => src.push_str(&stage(elem, None, None)),
        Source::Map(m) => src.push_str(&stage(elem, Some(m), None)),
        Source::Indexed { index } => src.push_str(&indexed_stage(elem, op.value, index)),
    }
    src.push_str(TILES_TEMPLATE);
    src.push_str(LOOKBACK_TEMPLATE);
    src.push_str(SCAN_TEMPLATE);
    src.push_str(&axis_template());
    let e = c_scalar(elem);
    let t = op.value;
    let _ = write!(
        src,
        "
// ---- kernels ----
#define WD_STAGE wd_stage st; st.p = p; st.n = n; st.a = a
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_scan(const {e}* p, wd_u64 n, wd_args a, {t}* out, unsigned int exclusive, unsigned int mode, unsigned char* status,
          unsigned int* queue) {{
    WD_STAGE;
    wd_scan<wd_op>(st, out, exclusive != 0, mode, status, queue);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_scan_tiles({t}* vals, wd_u64 n) {{
    wd_scan_tiles<wd_op>(vals, n);
}}
"
    );
    for g in [1, 2, 4, 8, 16] {
        let _ = write!(
            src,
            "extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_rows_g{g}(const {e}* p, wd_u64 n, wd_args a, wd_u64 rows, wd_u64 cols, {t}* out) {{
    WD_STAGE;
    wd_rows_group<wd_op, wd_stage, {g}>(st, rows, cols, out);
}}
"
        );
    }
    let _ = write!(
        src,
        "extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_rows_warp(const {e}* p, wd_u64 n, wd_args a, wd_u64 rows, wd_u64 cols, {t}* out) {{
    WD_STAGE;
    wd_rows_warp<wd_op>(st, rows, cols, out);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_rows_block(const {e}* p, wd_u64 n, wd_args a, wd_u64 rows, wd_u64 cols, {t}* out) {{
    WD_STAGE;
    wd_rows_block<wd_op>(st, rows, cols, out);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_rows_split(const {e}* p, wd_u64 n, wd_args a, wd_u64 rows, wd_u64 cols, wd_u64 blocks_per_row, {t}* partials,
                unsigned int* tickets, {t}* out) {{
    WD_STAGE;
    wd_rows_split<wd_op>(st, rows, cols, blocks_per_row, partials, tickets, out);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_segments(const {e}* p, wd_u64 n, wd_args a, const wd_u64* offsets, wd_u64 nseg, {t}* out, unsigned int* flags,
              wd_u64* longs, wd_u64 cap) {{
    WD_STAGE;
    wd_segments<wd_op>(st, offsets, nseg, out, flags, longs, cap);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_segments_plan(const unsigned int* flags, const wd_u64* longs, wd_u64 cap, wd_u64* first, unsigned int* tickets) {{
    wd_segments_plan(flags, longs, cap, first, tickets);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_segments_long(const {e}* p, wd_u64 n, wd_args a, const wd_u64* offsets, const unsigned int* flags, const wd_u64* longs,
                   wd_u64 cap, const wd_u64* first, {t}* partials, unsigned int* tickets, {t}* out) {{
    WD_STAGE;
    wd_segments_long<wd_op>(st, offsets, flags, longs, cap, first, partials, tickets, out);
}}
extern \"C\" __global__ void __launch_bounds__(1024)
wd_k_cols(const {e}* p, wd_u64 n, wd_args a, wd_u64 rows, wd_u64 cols, wd_u64 rows_per_block, {t}* partials,
          unsigned int* tickets, {t}* out) {{
    WD_STAGE;
    wd_cols<wd_op, wd_stage, 1>(st, rows, cols, rows_per_block, partials, tickets, out);
}}
// The unpadded [32][32] tile: only for measuring the bank conflicts the padding removes.
extern \"C\" __global__ void __launch_bounds__(1024)
wd_k_cols_unpadded(const {e}* p, wd_u64 n, wd_args a, wd_u64 rows, wd_u64 cols, wd_u64 rows_per_block, {t}* partials,
                   unsigned int* tickets, {t}* out) {{
    WD_STAGE;
    wd_cols<wd_op, wd_stage, 0>(st, rows, cols, rows_per_block, partials, tickets, out);
}}
"
    );
    finish_lines(&src, &format!("axis_{}_{tag}{elem}", op.name))
}

/// Kernel entry points of a transpose module ([`transpose_module`]).
pub const TRANSPOSE_KERNELS: [&str; 2] = ["wd_k_transpose", "wd_k_transpose_unpadded"];

/// Transpose of row-major matrices of `elem` through a padded shared tile (and, for the
/// padding measurement only, an unpadded one).
pub fn transpose_module(elem: &str) -> String {
    let mut src = header(&format!("transpose of `{elem}` matrices"));
    src.push_str(&reduce_templates(Style::Intrinsics));
    src.push_str(&axis_template());
    let e = c_scalar(elem);
    let _ = write!(
        src,
        "
// ---- kernels ----
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_transpose(const {e}* in, {e}* out, wd_u64 rows, wd_u64 cols) {{
    wd_transpose<{e}, 1>(in, out, rows, cols);
}}
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
wd_k_transpose_unpadded(const {e}* in, {e}* out, wd_u64 rows, wd_u64 cols) {{
    wd_transpose<{e}, 0>(in, out, rows, cols);
}}
"
    );
    finish_lines(&src, &format!("transpose_{elem}"))
}
