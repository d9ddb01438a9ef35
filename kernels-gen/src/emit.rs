//! Stage 4, emit: checked functions in, one complete CUDA source per operation out (prelude,
//! value-type support, the lowered user function, the kernel templates, `extern "C"` kernels).

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::ir::{Block, Expr, ExprKind, Function, Stmt};
use crate::lower::{LINE_RESET_MARKER, lower_function};
use crate::parse::Style;
use crate::patterns::{Redux, recognise_redux};
use crate::types::{Scalar, Ty};

/// The prelude every generated source starts with.
pub const PRELUDE: &str = include_str!("templates/prelude.cuh");
/// The reduction patterns (block, grid) and sources; the warp reduce of the chosen style is
/// inserted at its marker.
pub const REDUCE_TEMPLATE: &str = include_str!("templates/reduce.cuh");
/// The warp reduce with intrinsics.
pub const WARP_INTRINSICS: &str = include_str!("templates/warp_intrinsics.cuh");
/// The warp reduce with cooperative groups.
pub const WARP_CG: &str = include_str!("templates/warp_cg.cuh");
/// The predicate patterns: votes, ballot counting and compaction with decoupled look-back.
pub const PREDICATE_TEMPLATE: &str = include_str!("templates/predicate.cuh");
/// Warp tiles: their layout and loads (scalar, and 16 bytes at a time).
pub const TILES_TEMPLATE: &str = include_str!("templates/tiles.cuh");
/// The single-pass prefix machinery (tile queue, tile status, decoupled look-back, warp scan),
/// shared by compaction and scan.
pub const LOOKBACK_TEMPLATE: &str = include_str!("templates/lookback.cuh");
/// Axis reductions (rows, segments, columns through a padded tile) and transpose.
pub const AXIS_TEMPLATE: &str = include_str!("templates/axis.cuh");
/// The scan: thread scan, warp scan with `__shfl_up_sync`, block scan, look-back.
pub const SCAN_TEMPLATE: &str = include_str!("templates/scan.cuh");

/// The reduction templates with the warp reduce of `style`.
pub fn reduce_templates(style: Style) -> String {
    let warp = match style {
        Style::Intrinsics => WARP_INTRINSICS,
        Style::CooperativeGroups => WARP_CG,
    };
    REDUCE_TEMPLATE.replace("// @WARP_REDUCE@\n", warp)
}

/// The kernels of one `#[reduce]` operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceKernels {
    /// The complete CUDA source.
    pub source: String,
    /// `extern "C"` kernel over a plain array of `T` (scalar `T` only).
    pub plain: Option<String>,
    /// `extern "C"` kernel over `(array[i], i)` pairs (`T = (V, I)` with integer `I`).
    pub indexed: Option<String>,
    /// The warp instruction chosen for the operator, if any.
    pub redux: Option<Redux>,
    /// The emission style.
    pub style: Style,
    /// Whether the source includes CUDA headers (cooperative groups), which NVRTC must be
    /// given include paths for.
    pub needs_cuda_headers: bool,
    /// The operator as a fragment for compositions (`map_reduce`): the combine function named
    /// [`crate::FRAGMENT_NAME`].
    pub combine_fragment: String,
    /// The identity as a fragment, named [`crate::FRAGMENT_NAME`].
    pub identity_fragment: String,
    /// C structs of the tuple types the operator uses.
    pub type_support: String,
}

/// Generates the CUDA of a reduction from its checked function and identity.
pub fn reduce_kernels(f: &Function, identity: &Expr, style: Style) -> ReduceKernels {
    let name = &f.name;
    let t = &f.ret;
    let tc = t.c_name();
    let redux = recognise_redux(f);
    let mut src = String::new();
    let _ = writeln!(
        src,
        "// warp-dsl: reduction `{name}` over `{t}`, generated from {}:{} by kernels-gen {} ({} style).",
        f.file,
        f.line,
        env!("CARGO_PKG_VERSION"),
        style.name()
    );
    src.push_str(PRELUDE);
    src.push_str(&type_support(&collect_tuples(f, identity)));
    src.push_str("\n// ---- the user's function, lowered ----\n");
    src.push_str(&lower_function(f, &format!("wd_fn_{name}")));
    let identity_fn = Function {
        name: format!("{name} (identity)"),
        params: vec![],
        ret: t.clone(),
        vars: vec![],
        body: Block {
            stmts: vec![],
            value: Box::new(identity.clone()),
        },
        file: f.file.clone(),
        line: identity.line,
    };
    src.push_str(&lower_function(
        &identity_fn,
        &format!("wd_identity_{name}"),
    ));
    src.push('\n');
    src.push_str(&reduce_templates(style));
    let _ = write!(
        src,
        "
// ---- the operation ----
struct wd_op_{name} {{
    typedef {tc} T;
    static constexpr int redux = {redux};
    static __device__ __forceinline__ T identity() {{ return wd_identity_{name}(); }}
    static __device__ __forceinline__ T combine(T a, T b) {{ return wd_fn_{name}(a, b); }}
    struct functor {{
        __device__ __forceinline__ T operator()(T a, T b) const {{ return wd_fn_{name}(a, b); }}
    }};
}};
",
        redux = Redux::c_const(redux)
    );
    let mut plain = None;
    let mut indexed = None;
    if let Ty::Scalar(_) = t {
        let k = format!("wd_reduce_{name}");
        let _ = write!(
            src,
            "
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
{k}(const {tc}* p, wd_u64 n, {tc}* partials, unsigned int* ticket, {tc}* out) {{
    const wd_src_plain<{tc}> src = {{p, n}};
    wd_reduce_grid<wd_op_{name}>(src, partials, ticket, out);
}}
"
        );
        plain = Some(k);
    }
    if let Ty::Tuple(items) = t
        && items.len() == 2
        && items[1].is_int()
    {
        let (v, i) = (items[0].c_name(), items[1].c_name());
        let k = format!("wd_reduce_indexed_{name}");
        let _ = write!(
            src,
            "
extern \"C\" __global__ void __launch_bounds__(WD_BLOCK)
{k}(const {v}* p, wd_u64 n, {tc}* partials, unsigned int* ticket, {tc}* out) {{
    const wd_src_indexed<{v}, {i}, {tc}> src = {{p, n}};
    wd_reduce_grid<wd_op_{name}>(src, partials, ticket, out);
}}
"
        );
        indexed = Some(k);
    }
    ReduceKernels {
        combine_fragment: lower_function(f, crate::FRAGMENT_NAME),
        identity_fragment: lower_function(&identity_fn, crate::FRAGMENT_NAME),
        type_support: type_support(&collect_tuples(f, identity)),
        source: finish_lines(&src, name),
        plain,
        indexed,
        redux,
        style,
        needs_cuda_headers: style == Style::CooperativeGroups,
    }
}

/// Replaces the `#line` reset markers (written after each lowered function) with directives
/// pointing back into the generated file `warp-dsl/{name}.cu`.
pub fn finish_lines(src: &str, name: &str) -> String {
    let mut out = String::with_capacity(src.len() + 256);
    for (i, line) in src.lines().enumerate() {
        if line == LINE_RESET_MARKER {
            let _ = writeln!(out, "#line {} \"warp-dsl/{name}.cu\"", i + 2);
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every tuple type used by a function (and an extra expression), in a fixed order.
pub fn collect_tuples(f: &Function, extra: &Expr) -> Vec<Vec<Scalar>> {
    let mut set = BTreeSet::new();
    let mut add = |t: &Ty| {
        if let Ty::Tuple(items) = t {
            set.insert(items.clone());
        }
    };
    add(&f.ret);
    for v in &f.vars {
        add(&v.ty);
    }
    fn walk_expr(e: &Expr, add: &mut dyn FnMut(&Ty)) {
        add(&e.ty);
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Var(_) => {}
            ExprKind::Unary(_, a) | ExprKind::Cast(a) | ExprKind::Field(a, _) => walk_expr(a, add),
            ExprKind::Binary(_, a, b) => {
                walk_expr(a, add);
                walk_expr(b, add);
            }
            ExprKind::Call(_, xs) | ExprKind::Tuple(xs) => {
                xs.iter().for_each(|x| walk_expr(x, add))
            }
            ExprKind::If(c, a, b) => {
                walk_expr(c, add);
                walk_block(a, add);
                walk_block(b, add);
            }
            ExprKind::Block(b) => walk_block(b, add),
        }
    }
    fn walk_stmt(s: &Stmt, add: &mut dyn FnMut(&Ty)) {
        match s {
            Stmt::Let { init, .. } => walk_expr(init, add),
            Stmt::Assign { value, .. } => walk_expr(value, add),
            Stmt::If {
                cond, then, els, ..
            } => {
                walk_expr(cond, add);
                then.iter().chain(els).for_each(|s| walk_stmt(s, add));
            }
        }
    }
    fn walk_block(b: &Block, add: &mut dyn FnMut(&Ty)) {
        b.stmts.iter().for_each(|s| walk_stmt(s, add));
        walk_expr(&b.value, add);
    }
    walk_block(&f.body, &mut add);
    walk_expr(extra, &mut add);
    set.into_iter().collect()
}

/// C structs for tuple types, with their maker, the warp exchanges and the coherent load.
pub fn type_support(tuples: &[Vec<Scalar>]) -> String {
    let mut s = String::new();
    if tuples.is_empty() {
        return s;
    }
    s.push_str("\n// ---- tuple types: C structs moved field by field ----\n");
    for items in tuples {
        let ty = Ty::Tuple(items.clone());
        let c = ty.c_name();
        // Guarded: composed sources may bring the same tuple type from several operations.
        let _ = writeln!(s, "#ifndef WD_HAVE_{c}\n#define WD_HAVE_{c}");
        let fields: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{} f{i};", t.c_name()))
            .collect();
        let _ = writeln!(s, "struct {c} {{ {} }};", fields.join(" "));
        let params: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{} f{i}", t.c_name()))
            .collect();
        let sets: String = (0..items.len())
            .map(|i| format!(" t.f{i} = f{i};"))
            .collect();
        let _ = writeln!(
            s,
            "WD_DEV {c} wd_make_{}({}) {{ {c} t;{sets} return t; }}",
            c.trim_start_matches("wd_"),
            params.join(", ")
        );
        for (fam, arg) in [
            ("wd_shfl_down", "unsigned"),
            ("wd_shfl_up", "unsigned"),
            ("wd_shfl_xor", "int"),
            ("wd_shfl_idx", "int"),
        ] {
            let moves: String = (0..items.len())
                .map(|i| format!(" v.f{i} = {fam}(v.f{i}, x);"))
                .collect();
            let _ = writeln!(s, "WD_DEV {c} {fam}({c} v, {arg} x) {{{moves} return v; }}");
        }
        let loads: String = (0..items.len())
            .map(|i| format!(" v.f{i} = wd_ldcg(&p->f{i});"))
            .collect();
        let _ = writeln!(
            s,
            "WD_DEV {c} wd_ldcg(const {c}* p) {{ {c} v;{loads} return v; }}"
        );
        let _ = writeln!(s, "#endif");
    }
    s
}
