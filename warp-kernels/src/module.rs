//! The one assembler of CUDA modules, used by the macros (a reduction's own module) and by the
//! runtime (compositions): fragments of the user's functions in, the complete source of one
//! module out: the catalogue's constants, the prelude, the user-derived parts (value types,
//! lowered functions, the operation struct, the stage), the templates, and the kernel entry
//! points of the catalogue.
//!
//! Shared text (constants, prelude, templates) is fenced by marker comments, so that
//! [`user_view`] can show only what the user's code produced.

use std::fmt::Write;

use crate::catalogue::{self, Kernel};
use crate::ir::{Expr, Function, tuples_used};
use crate::lower::{LINE_RESET_MARKER, lower_function};
use crate::patterns::{Redux, recognise_f32_sum, recognise_redux};
use crate::types::{Scalar, Ty};

/// The prelude every generated source starts with.
pub const PRELUDE: &str = include_str!("templates/prelude.cuh");
/// f16 and bf16 (`wd_f16`, `wd_bf16`): after the prelude, in the modules that use them only.
pub const HALF: &str = include_str!("templates/half.cuh");
/// The warp primitives (warp reduce, scans, ballot ranks, lower bound): the layer under every
/// family's templates, after the prelude.
pub const WARP_TEMPLATE: &str = include_str!("templates/warp.cuh");
/// The block primitives (block reduce and scans, radix digit histogram and pick, bitonic sort,
/// warp tile layout, loads and stores), after the warp primitives.
pub const BLOCK_TEMPLATE: &str = include_str!("templates/block.cuh");
/// The reduction patterns (thread, grid), after the block primitives.
pub const REDUCE_TEMPLATE: &str = include_str!("templates/reduce.cuh");
/// The warp reduce with intrinsics.
pub const WARP_INTRINSICS: &str = include_str!("templates/warp_intrinsics.cuh");
/// The warp reduce with cooperative groups.
pub const WARP_CG: &str = include_str!("templates/warp_cg.cuh");
/// Warp tiles: their layout and loads (scalar, and 16 bytes at a time).
pub const TILES_TEMPLATE: &str = include_str!("templates/tiles.cuh");
/// The single-pass prefix machinery (tile queue, tile status, decoupled look-back), shared by
/// compaction and scan.
pub const LOOKBACK_TEMPLATE: &str = include_str!("templates/lookback.cuh");
/// The predicate patterns: votes, ballot counting and compaction.
pub const PREDICATE_TEMPLATE: &str = include_str!("templates/predicate.cuh");
/// The scan: thread scan, warp scan with `__shfl_up_sync`, block scan, look-back.
pub const SCAN_TEMPLATE: &str = include_str!("templates/scan.cuh");
/// Axis reductions (rows, segments, columns through a padded tile) and transpose.
pub const AXIS_TEMPLATE: &str = include_str!("templates/axis.cuh");
/// The map: every value of a stage written out.
pub const MAP_TEMPLATE: &str = include_str!("templates/map.cuh");
/// Runs of equal keys: unique, run-length encode, reduce-by-key (ballot heads, segmented
/// scan, look-back of (heads, value) pairs).
pub const RUNS_TEMPLATE: &str = include_str!("templates/runs.cuh");
/// Top-k: order keys, ballot filtering against a running threshold, radix select, sort.
pub const TOPK_TEMPLATE: &str = include_str!("templates/topk.cuh");

/// The histogram: warp-aggregated (`__match_any_sync`) counts in shared bins, merged once.
pub const HISTOGRAM_TEMPLATE: &str = include_str!("templates/histogram.cuh");

/// Every shared text, by file name, in the order modules include them.
pub const TEMPLATES: [(&str, &str); 16] = [
    ("prelude.cuh", PRELUDE),
    ("half.cuh", HALF),
    ("warp.cuh", WARP_TEMPLATE),
    ("warp_intrinsics.cuh", WARP_INTRINSICS),
    ("warp_cg.cuh", WARP_CG),
    ("block.cuh", BLOCK_TEMPLATE),
    ("reduce.cuh", REDUCE_TEMPLATE),
    ("tiles.cuh", TILES_TEMPLATE),
    ("lookback.cuh", LOOKBACK_TEMPLATE),
    ("predicate.cuh", PREDICATE_TEMPLATE),
    ("scan.cuh", SCAN_TEMPLATE),
    ("axis.cuh", AXIS_TEMPLATE),
    ("map.cuh", MAP_TEMPLATE),
    ("runs.cuh", RUNS_TEMPLATE),
    ("topk.cuh", TOPK_TEMPLATE),
    ("histogram.cuh", HISTOGRAM_TEMPLATE),
];

/// The placeholder name of the device function in a fragment; the assembler renames it.
pub const FRAGMENT_NAME: &str = "WD_FRAGMENT_FN";

/// Emission style of the warp-level code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Style {
    /// Raw intrinsics (`__shfl_down_sync`, `__reduce_add_sync`, ...).
    #[default]
    Intrinsics,
    /// Cooperative groups (`cg::tiled_partition<32>`, `cg::reduce`); includes CUDA headers.
    CooperativeGroups,
}

impl Style {
    /// Parses the value of `style = "..."`.
    pub fn from_name(name: &str) -> Option<Style> {
        match name {
            "intrinsics" => Some(Style::Intrinsics),
            "cooperative_groups" | "cg" => Some(Style::CooperativeGroups),
            _ => None,
        }
    }

    /// The name used in attributes.
    pub fn name(self) -> &'static str {
        match self {
            Style::Intrinsics => "intrinsics",
            Style::CooperativeGroups => "cooperative_groups",
        }
    }

    /// Whether modules of this style include CUDA's headers (NVRTC then needs their folders).
    pub fn needs_cuda_headers(self) -> bool {
        self == Style::CooperativeGroups
    }

    fn warp_template(self) -> (&'static str, &'static str) {
        match self {
            Style::Intrinsics => ("warp_intrinsics.cuh", WARP_INTRINSICS),
            Style::CooperativeGroups => ("warp_cg.cuh", WARP_CG),
        }
    }
}

/// A `#[reduce]` operator as fragments: what its macro records and compositions are built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpFragment<'a> {
    /// The function's name.
    pub name: &'a str,
    /// Its Rust file (as the compiler names it).
    pub file: &'a str,
    /// The line of its `fn`.
    pub line: u32,
    /// C type of its value.
    pub value: &'a str,
    /// The combine function, named [`FRAGMENT_NAME`].
    pub combine: &'a str,
    /// The identity, a function named [`FRAGMENT_NAME`].
    pub identity: &'a str,
    /// C structs of the tuple types it uses.
    pub type_support: &'a str,
    /// The warp instruction that computes the operator outright, if any.
    pub redux: Option<Redux>,
    /// Whether it is f32 addition with a zero identity (`a + b`, identity `0.0` or `-0.0`):
    /// its scans sum their tiles' aggregates exactly (`ScanMode::ExactSum`).
    pub f32_sum: bool,
    /// The emission style of its warp reduce.
    pub style: Style,
}

/// A `#[map]` or `#[predicate]` as a fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FnFragment<'a> {
    /// The function's name.
    pub name: &'a str,
    /// Its Rust file.
    pub file: &'a str,
    /// The line of its `fn`.
    pub line: u32,
    /// The lowered device function, named [`FRAGMENT_NAME`].
    pub text: &'a str,
    /// C structs of its tuple types.
    pub type_support: &'a str,
    /// C type of its result.
    pub output: &'a str,
    /// How many leading parameters are the element (1; 2 to 4 for zipped arrays, whose
    /// elements it takes one per parameter).
    pub inputs: usize,
    /// The types of its extra parameters, bound at call time.
    pub extras: &'a [Scalar],
}

/// A reduction's fragments as generated at macro time (owned); [`OpParts::fragment`] borrows
/// them as an [`OpFragment`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpParts {
    /// See [`OpFragment::name`].
    pub name: String,
    /// See [`OpFragment::file`].
    pub file: String,
    /// See [`OpFragment::line`].
    pub line: u32,
    /// The value type.
    pub value: Ty,
    /// C type of the value.
    pub value_c: String,
    /// See [`OpFragment::combine`].
    pub combine: String,
    /// See [`OpFragment::identity`].
    pub identity: String,
    /// See [`OpFragment::type_support`].
    pub type_support: String,
    /// See [`OpFragment::redux`].
    pub redux: Option<Redux>,
    /// See [`OpFragment::f32_sum`].
    pub f32_sum: bool,
    /// See [`OpFragment::style`].
    pub style: Style,
}

impl OpParts {
    /// The fragments of checked function `f` (`fn(T, T) -> T`) with identity `identity`.
    pub fn new(f: &Function, identity: &Expr, style: Style) -> OpParts {
        let identity_fn = Function {
            name: format!("{} (identity)", f.name),
            params: vec![],
            ret: f.ret.clone(),
            vars: vec![],
            body: crate::ir::Block {
                stmts: vec![],
                value: Box::new(identity.clone()),
            },
            file: f.file.clone(),
            line: identity.line,
        };
        OpParts {
            name: f.name.clone(),
            file: f.file.clone(),
            line: f.line,
            value: f.ret.clone(),
            value_c: f.ret.c_name(),
            combine: lower_function(f, FRAGMENT_NAME),
            identity: lower_function(&identity_fn, FRAGMENT_NAME),
            type_support: type_support(&tuples_used(f, Some(identity))),
            redux: recognise_redux(f),
            f32_sum: recognise_f32_sum(f, identity),
            style,
        }
    }

    /// Borrowed.
    pub fn fragment(&self) -> OpFragment<'_> {
        OpFragment {
            name: &self.name,
            file: &self.file,
            line: self.line,
            value: &self.value_c,
            combine: &self.combine,
            identity: &self.identity,
            type_support: &self.type_support,
            redux: self.redux,
            f32_sum: self.f32_sum,
            style: self.style,
        }
    }

    /// The source a reduction's own module reads: its elements (scalar `T`), or `(V, I)` pairs
    /// made from elements of `V` (`T = (V, I)` with integer `I`); `None` for other tuples,
    /// which are reduced only through maps and axis operations.
    pub fn own_source(&self) -> Option<Source<'_>> {
        match &self.value {
            Ty::Scalar(s) => Some(Source::Plain(std::slice::from_ref(s))),
            Ty::Tuple(items) if items.len() == 2 && items[1].is_int() => Some(Source::Indexed {
                elem: items[0],
                index: items[1],
            }),
            Ty::Tuple(_) => None,
        }
    }

    /// The reduction's own module (what `CUDA_SOURCE` holds).
    pub fn module(&self) -> String {
        reduce_module(&self.fragment(), self.own_source().as_ref())
    }
}

/// A map's or predicate's fragment as generated at macro time (owned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnParts {
    /// See [`FnFragment::name`].
    pub name: String,
    /// See [`FnFragment::file`].
    pub file: String,
    /// See [`FnFragment::line`].
    pub line: u32,
    /// See [`FnFragment::text`].
    pub text: String,
    /// See [`FnFragment::type_support`].
    pub type_support: String,
    /// The result type.
    pub output: Ty,
    /// C type of the result.
    pub output_c: String,
    /// See [`FnFragment::inputs`].
    pub inputs: usize,
    /// See [`FnFragment::extras`].
    pub extras: Vec<Scalar>,
}

impl FnParts {
    /// The fragment of checked function `f`, whose first `inputs` parameters are the element
    /// (one per zipped array when more than one) and whose other parameters are bound at call
    /// time.
    pub fn new(f: &Function, inputs: usize) -> FnParts {
        // (The zipped row of a several-input function is the stage's type: the module brings it.)
        let tuples = tuples_used(f, None);
        FnParts {
            name: f.name.clone(),
            file: f.file.clone(),
            line: f.line,
            text: lower_function(f, FRAGMENT_NAME),
            type_support: type_support(&tuples),
            output: f.ret.clone(),
            output_c: f.ret.c_name(),
            inputs,
            extras: f
                .params
                .iter()
                .skip(inputs)
                .filter_map(|&p| f.vars[p].ty.scalar())
                .collect(),
        }
    }

    /// Borrowed.
    pub fn fragment(&self) -> FnFragment<'_> {
        FnFragment {
            name: &self.name,
            file: &self.file,
            line: self.line,
            text: &self.text,
            type_support: &self.type_support,
            output: &self.output_c,
            inputs: self.inputs,
            extras: &self.extras,
        }
    }
}

/// What the values of an operation are made of.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// The elements themselves: of one array (the element), or of 2 to
    /// [`MAX_INPUTS`](catalogue::MAX_INPUTS) equally long arrays zipped (a tuple, one field per
    /// array).
    Plain(&'a [Scalar]),
    /// `(element, index)` pairs, the index of type `index` (the operator's value is a
    /// two-field tuple).
    Indexed {
        /// The element type.
        elem: Scalar,
        /// The index type.
        index: Scalar,
    },
    /// A `#[map]` of each element (of one array, or of zipped arrays).
    Map {
        /// The element type of each array.
        elem: &'a [Scalar],
        /// The map.
        map: &'a FnFragment<'a>,
    },
}

impl Source<'_> {
    /// The element type of each array read.
    pub fn columns(&self) -> &[Scalar] {
        match self {
            Source::Plain(c) | Source::Map { elem: c, .. } => c,
            Source::Indexed { elem, .. } => std::slice::from_ref(elem),
        }
    }

    /// The C type of one element: the array's scalar, or the tuple of zipped arrays' scalars.
    pub fn elem_c(&self) -> String {
        row_ty(self.columns()).c_name()
    }

    /// Words for comments (`` `f32` ``, ``map `square` of `f32` ``).
    fn describe(&self) -> String {
        let cols = |c: &[Scalar]| match c {
            [one] => format!("`{one}`"),
            many => format!("zipped `{}`", row_ty(many)),
        };
        match self {
            Source::Plain(c) => cols(c),
            Source::Indexed { elem, index } => format!("(`{elem}`, `{index}` index) pairs"),
            Source::Map { elem, map } => format!("map `{}` of {}", map.name, cols(elem)),
        }
    }

    /// A tag for file names (`f32`, `square_f32`, `indexed_u32_f32`, `f32_f32`).
    fn tag(&self) -> String {
        let cols: Vec<&str> = self.columns().iter().map(|c| c.rust_name()).collect();
        let cols = cols.join("_");
        match self {
            Source::Plain(_) => cols,
            Source::Indexed { index, .. } => format!("indexed_{index}_{cols}"),
            Source::Map { map, .. } => format!("{}_{cols}", map.name),
        }
    }

    /// The tuple types a stage of this source needs beyond its functions' own: the zipped row.
    fn row_support(&self) -> String {
        match self.columns() {
            [_] => String::new(),
            many => type_support(&[many.to_vec()]),
        }
    }
}

/// The type of one element of `cols` zipped arrays (the scalar itself for one array).
fn row_ty(cols: &[Scalar]) -> Ty {
    match cols {
        [one] => Ty::Scalar(*one),
        many => Ty::Tuple(many.to_vec()),
    }
}

const SHARED_BEGIN: &str = "// ==== shared: ";
const SHARED_END: &str = "// ==== end shared: ";

/// A module being assembled: shared sections fenced by markers, user-derived text between.
struct Module {
    src: String,
}

impl Module {
    /// A module whose header comment says `what`: the catalogue's constants and the prelude.
    fn new(what: &str) -> Module {
        let mut m = Module {
            src: format!(
                "// warp-dsl: {what}, assembled by warp-kernels {}.\n",
                env!("CARGO_PKG_VERSION")
            ),
        };
        m.shared("constants", &catalogue::defines());
        m.shared("prelude.cuh", PRELUDE);
        m
    }

    fn shared(&mut self, name: &str, text: &str) {
        let _ = writeln!(self.src, "{SHARED_BEGIN}{name} ====");
        self.src.push_str(text);
        if !text.ends_with('\n') {
            self.src.push('\n');
        }
        let _ = writeln!(self.src, "{SHARED_END}{name} ====");
    }

    fn user(&mut self, text: &str) {
        self.src.push_str(text);
    }

    /// A fragment's device function under the name `as_name`.
    fn function(&mut self, text: &str, as_name: &str) {
        self.src.push_str(&text.replace(FRAGMENT_NAME, as_name));
    }

    /// Value types first (each guarded, so several fragments may bring the same tuple).
    fn type_support(&mut self, parts: &[&str]) {
        for p in parts {
            self.src.push_str(p);
        }
    }

    fn reduce_templates(&mut self, style: Style) {
        let (name, warp) = style.warp_template();
        self.shared("warp.cuh", WARP_TEMPLATE);
        self.shared(name, warp);
        self.shared("block.cuh", BLOCK_TEMPLATE);
        self.shared("reduce.cuh", REDUCE_TEMPLATE);
    }

    fn kernels(&mut self, kernels: &[&Kernel], elem: &str, value: &str) {
        self.src
            .push_str("\n// ---- kernels (warp_kernels::catalogue) ----\n");
        for k in kernels {
            self.src.push_str(&k.definition(elem, value));
        }
    }

    /// The text, with the `#line` resets pointing into `warp-dsl/{file}.cu`; the half
    /// precision section goes in after the prelude when anything names its types.
    fn finish(mut self, file: &str) -> String {
        if self.src.contains("wd_f16") || self.src.contains("wd_bf16") {
            let end = format!("{SHARED_END}prelude.cuh ====\n");
            if let Some(at) = self.src.find(&end) {
                let mut half = Module { src: String::new() };
                half.shared("half.cuh", HALF);
                self.src.insert_str(at + end.len(), &half.src);
            }
        }
        finish_lines(&self.src, file)
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

/// The `wd_op` struct (the `Op` of the templates) of a reduction whose combine and identity
/// are in the module as `wd_op_combine` / `wd_op_identity`.
fn op_struct(op: &OpFragment) -> String {
    format!(
        "
// ---- the operation ----
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
        redux = Redux::c_const(op.redux)
    )
}

/// The readers of a stage over the arrays `cols` (zipped when more than one): their pointers
/// `p0..`, `VEC` (elements per vector: 16 bytes of the widest array), `ARRAYS` (how many
/// there are: what `catalogue::scan_span` reads as `sizes.len()`), and the loads the
/// templates use, each written once here for every array: `load` (streaming), `load_l2`
/// (through L2 only), `at` (plain), `load_vec` (a vector of every array), `aligned` (whether a
/// vector of every array can start at element `i`) and `head` (elements from `i` to the first
/// place where one can, or `WD_NO_VEC` when the arrays' alignments disagree).
fn readers(cols: &[Scalar]) -> String {
    let widest = cols.iter().map(|c| c.size()).max().unwrap_or(1);
    let vec = 16 / widest;
    let mut s = format!(
        "    static constexpr int VEC = {vec};\n    static constexpr int ARRAYS = {};\n",
        cols.len()
    );
    for (k, c) in cols.iter().enumerate() {
        let _ = writeln!(s, "    const {}* p{k};", c.c_name());
    }
    let one = cols.len() == 1;
    let gather = |load: &dyn Fn(usize) -> String| -> String {
        if one {
            format!("return {};", load(0))
        } else {
            let sets: String = (0..cols.len())
                .map(|k| format!(" e.f{k} = {};", load(k)))
                .collect();
            format!("elem_t e;{sets} return e;")
        }
    };
    let fun = |sig: &str, body: String| {
        format!("    __device__ __forceinline__ {sig} const {{ {body} }}\n")
    };
    s.push_str(&fun(
        "elem_t load(wd_u64 i)",
        gather(&|k| format!("wd_ldcs(p{k} + i)")),
    ));
    s.push_str(&fun(
        "elem_t load_l2(wd_u64 i)",
        gather(&|k| format!("wd_ldcg(p{k} + i)")),
    ));
    s.push_str(&fun("elem_t at(wd_u64 i)", gather(&|k| format!("p{k}[i]"))));
    let lines: String = (0..cols.len())
        .map(|k| format!("wd_prefetch_l2(p{k} + i);"))
        .collect::<Vec<_>>()
        .join(" ");
    s.push_str(&fun("void prefetch_l2(wd_u64 i)", lines));
    let mut lv = String::new();
    for (k, c) in cols.iter().enumerate() {
        let _ = writeln!(
            lv,
            "        const wd_vec<{t}, VEC> v{k} = wd_ldcs_vec<{t}, VEC>(p{k} + i);",
            t = c.c_name()
        );
    }
    let moves: String = if one {
        "e[k] = v0.e[k];".into()
    } else {
        (0..cols.len())
            .map(|k| format!(" e[k].f{k} = v{k}.e[k];"))
            .collect::<String>()
            .trim_start()
            .to_string()
    };
    let _ = write!(
        s,
        "    __device__ __forceinline__ void load_vec(wd_u64 i, elem_t (&e)[VEC]) const {{\n{lv}#pragma unroll\n        for (int k = 0; k < VEC; ++k) {{ {moves} }}\n    }}\n"
    );
    let aligned: Vec<String> = cols
        .iter()
        .enumerate()
        .map(|(k, c)| format!("wd_vec_aligned<{}, VEC>(p{k} + i)", c.c_name()))
        .collect();
    s.push_str(&fun(
        "bool aligned(wd_u64 i)",
        format!("return {};", aligned.join(" && ")),
    ));
    let head0 = format!("wd_vec_head<{}, VEC>(p0 + i)", cols[0].c_name());
    let head = if one {
        format!("return {head0};")
    } else {
        let rest: Vec<String> = cols
            .iter()
            .enumerate()
            .skip(1)
            .map(|(k, c)| format!("wd_vec_aligned<{}, VEC>(p{k} + i + h)", c.c_name()))
            .collect();
        format!(
            "const wd_u64 h = {head0}; return {} ? h : WD_NO_VEC;",
            rest.join(" && ")
        )
    };
    s.push_str(&fun("wd_u64 head(wd_u64 i)", head));
    s
}

/// The arguments of a call of `f` on value `v` (field by field for a zipped element) followed
/// by its bound arguments, decoded from `a` from word `first` on.
fn call_args(f: &FnFragment, v: &str, first: usize) -> String {
    let mut out = if f.inputs > 1 {
        (0..f.inputs)
            .map(|k| format!("{v}.f{k}"))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        v.to_string()
    };
    out.push_str(&bound_args(f, first));
    out
}

/// `f`'s bound arguments as call arguments (each after a comma), decoded from `a` from word
/// `first` on.
fn bound_args(f: &FnFragment, first: usize) -> String {
    let mut out = String::new();
    for (i, t) in f.extras.iter().enumerate() {
        let _ = write!(out, ", wd_arg<{}>(a, {})", t.c_name(), first + i);
    }
    out
}

/// The stage struct `wd_stage` (and `WD_STAGE`, which builds `st` from a kernel's `in`, `n`,
/// `a`): elements of `source` (one array, or several zipped), mapped if it is a map, made into
/// pairs if indexed, tested by `pred` if any; bound arguments decoded from `a` (the map's
/// first). `value` is the C type of the values (the operator's, for indexed sources). `pick`:
/// what compaction writes is field `pick` of the (zipped) value, not the whole value.
fn stage(source: &Source, pred: Option<&FnFragment>, value: &str, pick: Option<usize>) -> String {
    stage_with(source, pred, None, value, pick)
}

/// [`stage`] with a second predicate `pred2` (`keep2`, its bound arguments after the first's).
fn stage_with(
    source: &Source,
    pred: Option<&FnFragment>,
    pred2: Option<&FnFragment>,
    value: &str,
    pick: Option<usize>,
) -> String {
    let cols = source.columns();
    let e = source.elem_c();
    let (value_fn, make, nmap) = match source {
        Source::Plain(_) => (
            "    __device__ __forceinline__ value_t value(elem_t e) const { return e; }\n"
                .to_string(),
            "return value(e);".to_string(),
            0,
        ),
        Source::Map { map, .. } => (
            format!(
                "    __device__ __forceinline__ value_t value(elem_t e) const {{ return wd_map({}); }}\n",
                call_args(map, "e", 0)
            ),
            "return value(e);".to_string(),
            map.extras.len(),
        ),
        Source::Indexed { index, .. } => (
            String::new(),
            format!(
                "value_t t;\n        t.f0 = e;\n        t.f1 = ({})i;\n        return t;",
                index.c_name()
            ),
            0,
        ),
    };
    let keep = match pred {
        Some(p) => format!("return wd_pred({});", call_args(p, "v", nmap)),
        None => "return true;".into(),
    };
    let keep2 = match (pred, pred2) {
        (Some(p), Some(q)) => format!(
            "    __device__ __forceinline__ bool keep2(value_t v) const {{ return wd_pred2({}); }}\n",
            call_args(q, "v", nmap + p.extras.len())
        ),
        _ => String::new(),
    };
    let (out_t, out) = match pick {
        Some(k) => (cols[k].c_name().to_string(), format!("return v.f{k};")),
        None => ("value_t".to_string(), "return v;".to_string()),
    };
    let sets: String = (0..cols.len())
        .map(|k| format!(" st.p{k} = (const {}*)in.p[{k}];", cols[k].c_name()))
        .collect();
    format!(
        "
// ---- the stage: {what} ----
struct wd_stage {{
    typedef {e} elem_t;
    typedef {value} value_t;
    typedef {out_t} out_t;
{readers}    wd_u64 n;
    wd_args a;
{value_fn}    __device__ __forceinline__ bool keep(value_t v) const {{ {keep} }}
{keep2}    __device__ __forceinline__ value_t make(elem_t e, wd_u64 i) const {{
        {make}
    }}
    __device__ __forceinline__ out_t out(value_t v) const {{ {out} }}
}};
#define WD_STAGE wd_stage st;{sets} st.n = n; st.a = wd_resolve_args(a); (void)st
",
        what = source.describe(),
        readers = readers(cols),
    )
}

/// The value type of a source's stage when no operator gives it: the element, or the map's
/// result.
fn stage_value(source: &Source) -> String {
    match source {
        Source::Map { map, .. } => map.output.to_string(),
        other => other.elem_c(),
    }
}

fn map_parts<'a>(source: &Source<'a>) -> Option<&'a FnFragment<'a>> {
    match source {
        Source::Map { map, .. } => Some(map),
        _ => None,
    }
}

/// A reduction module: `op` over the values of `source`, one pass (the catalogue's
/// [`REDUCE_KERNELS`](catalogue::REDUCE_KERNELS)). `None`: the operator's fragments and
/// templates only (a tuple operator reduced through maps and axis operations).
pub fn reduce_module(op: &OpFragment, source: Option<&Source>) -> String {
    let what = match source {
        Some(s) => format!("reduction `{}` over {}", op.name, s.describe()),
        None => format!("reduction `{}` over `{}` values", op.name, op.value),
    };
    let mut m = Module::new(&what);
    let map = source.and_then(map_parts);
    let row = source.map_or(String::new(), |s| s.row_support());
    m.type_support(&[&row, map.map_or("", |f| f.type_support), op.type_support]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    if let Some(f) = map {
        m.function(f.text, "wd_map");
    }
    m.function(op.combine, "wd_op_combine");
    m.function(op.identity, "wd_op_identity");
    m.user(&op_struct(op));
    if let Some(s) = source {
        m.user(&stage(s, None, op.value, None));
    }
    m.reduce_templates(op.style);
    // The operator's own module is named after it; a composition after its parts.
    let file = match source {
        Some(s @ Source::Map { map, .. }) => format!(
            "{}_{}{}",
            map.name,
            op.name,
            s.tag().trim_start_matches(map.name)
        ),
        _ => op.name.to_string(),
    };
    if let Some(s) = source {
        m.kernels(catalogue::REDUCE_KERNELS, &s.elem_c(), op.value);
    }
    m.finish(&file)
}

/// A predicate module: every predicate kernel (count, any/all, find_first, mask, compact) for
/// `pred` over the values of `source` (elements, zipped elements, or a map of them; not
/// indexed). `pick`: compaction keeps field `pick` of each zipped element (the element of
/// that array) instead of the whole element.
pub fn predicate_module(pred: &FnFragment, source: &Source, pick: Option<usize>) -> String {
    tested_module(
        &format!("predicate `{}`", pred.name),
        pred.name,
        pred,
        None,
        source,
        pick,
        catalogue::PREDICATE_KERNELS,
    )
}

/// A three-way partition module: `first` sends values to the first part, `second` those
/// `first` rejects to the second, the rest to the third, over the values of `source` (as
/// [`predicate_module`], `pick` included).
pub fn partition3_module(
    first: &FnFragment,
    second: &FnFragment,
    source: &Source,
    pick: Option<usize>,
) -> String {
    tested_module(
        &format!(
            "three-way partition by `{}` and `{}`",
            first.name, second.name
        ),
        &format!("partition3_{}_{}", first.name, second.name),
        first,
        Some(second),
        source,
        pick,
        catalogue::PARTITION3_KERNELS,
    )
}

/// The modules whose stage tests values with one predicate (`wd_pred`, `keep`) or two
/// (`wd_pred2`, `keep2`): the predicate family and the three-way partition.
fn tested_module(
    what: &str,
    file: &str,
    pred: &FnFragment,
    pred2: Option<&FnFragment>,
    source: &Source,
    pick: Option<usize>,
    kernels: &[&Kernel],
) -> String {
    let picked = pick.map_or(String::new(), |k| format!(", keeping array {k}"));
    let mut m = Module::new(&format!("{what} over {}{picked}", source.describe()));
    let map = map_parts(source);
    m.type_support(&[
        &source.row_support(),
        map.map_or("", |f| f.type_support),
        pred.type_support,
        pred2.map_or("", |f| f.type_support),
    ]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    if let Some(f) = map {
        m.function(f.text, "wd_map");
    }
    m.function(pred.text, "wd_pred");
    if let Some(f) = pred2 {
        m.function(f.text, "wd_pred2");
    }
    m.user(&stage_with(
        source,
        Some(pred),
        pred2,
        &stage_value(source),
        pick,
    ));
    m.reduce_templates(Style::Intrinsics);
    m.shared("tiles.cuh", TILES_TEMPLATE);
    m.shared("lookback.cuh", LOOKBACK_TEMPLATE);
    m.shared("predicate.cuh", PREDICATE_TEMPLATE);
    m.kernels(kernels, &source.elem_c(), "wd_stage::out_t");
    let picked = pick.map_or(String::new(), |k| format!("_keep{k}"));
    m.finish(&format!("{file}_{}{picked}", source.tag()))
}

/// What the runs of a runs module carry besides their keys.
#[derive(Clone, Copy, Debug)]
pub enum RunValues<'a> {
    /// Nothing: unique keys.
    None,
    /// Their lengths, as this unsigned integer type.
    Counts(Scalar),
    /// The values of `source` (arrays read alongside the keys: one of the operator's value
    /// type, zipped arrays making its tuples, `(element, index)` pairs, or a map of them),
    /// combined by `op` in order.
    Reduce(&'a OpFragment<'a>, Source<'a>),
}

/// A runs module (the catalogue's [`RUNS_KERNELS`](catalogue::RUNS_KERNELS)) over keys of type
/// `key`: neighbours are in one run when `same(previous, next)` holds (a predicate of two
/// keys, `#[predicate(inputs = 2)]`), or, without one, when they are `==`; `values` says what
/// the runs carry (unique, run-length encode, reduce-by-key).
pub fn runs_module(key: Scalar, same: Option<&FnFragment>, values: RunValues) -> String {
    let mut cols = vec![key];
    let (vals, what, file) = match &values {
        RunValues::None => (
            "wd_runs_none".to_string(),
            "unique".to_string(),
            "unique".to_string(),
        ),
        RunValues::Counts(c) => (
            format!("wd_runs_counts<{}>", c.c_name()),
            format!("run-length encode (`{c}` counts)"),
            format!("run_length_{c}"),
        ),
        RunValues::Reduce(op, v) => {
            cols.extend_from_slice(v.columns());
            // Values of one array keep the short name; other sources add their tag.
            let tag = match v {
                Source::Plain([_]) => String::new(),
                other => format!("_{}", other.tag()),
            };
            (
                "wd_runs_reduce<wd_op, wd_run_value>".to_string(),
                format!("reduce-by-key `{}` of {}", op.name, v.describe()),
                format!("reduce_by_key_{}{tag}", op.name),
            )
        }
    };
    let source = Source::Plain(&cols);
    let by = same.map_or(String::from("=="), |f| format!("`{}`", f.name));
    let mut m = Module::new(&format!(
        "{what} over {}, keys compared by {by}",
        source.describe()
    ));
    let (op, value_source) = match &values {
        RunValues::Reduce(op, v) => (Some(*op), Some(v)),
        _ => (None, None),
    };
    let map = value_source.and_then(|v| map_parts(v));
    m.type_support(&[
        &source.row_support(),
        &value_source.map_or(String::new(), |v| v.row_support()),
        same.map_or("", |f| f.type_support),
        map.map_or("", |f| f.type_support),
        op.map_or("", |o| o.type_support),
    ]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    if let Some(f) = same {
        m.function(f.text, "wd_pred");
    }
    if let Some(f) = map {
        m.function(f.text, "wd_map");
    }
    if let Some(op) = op {
        m.function(op.combine, "wd_op_combine");
        m.function(op.identity, "wd_op_identity");
        m.user(&op_struct(op));
    }
    let k = key.c_name();
    // The map's bound arguments come first, the predicate's after them.
    let nmap = map.map_or(0, |f| f.extras.len());
    let test = match same {
        Some(f) => format!("return wd_pred(x, y{});", bound_args(f, nmap)),
        None => "return x == y;".to_string(),
    };
    m.user(&format!(
        "
// ---- neighbouring keys in one run ----
static __device__ __forceinline__ bool wd_same(const wd_args& a, {k} x, {k} y) {{ (void)a; {test} }}
"
    ));
    m.user(&stage(&source, None, &source.elem_c(), None));
    if let (Some(op), Some(v)) = (op, value_source) {
        m.user(&run_value(op, v));
    }
    m.reduce_templates(Style::Intrinsics);
    m.shared("tiles.cuh", TILES_TEMPLATE);
    m.shared("lookback.cuh", LOOKBACK_TEMPLATE);
    m.shared("runs.cuh", RUNS_TEMPLATE);
    m.user(&format!(
        "\n// ---- what the runs carry ----\ntypedef {vals} wd_runs_vals;\n"
    ));
    let value = match values {
        RunValues::None => "wd_u8".to_string(),
        RunValues::Counts(c) => c.c_name().to_string(),
        RunValues::Reduce(op, _) => op.value.to_string(),
    };
    m.kernels(catalogue::RUNS_KERNELS, k, &value);
    let by = same.map_or(String::new(), |f| format!("_by_{}", f.name));
    m.finish(&format!("{file}_{key}{by}"))
}

/// Reduce-by-key's `wd_run_value`: the operator's value of a stage row (the key in field 0,
/// the value source's elements after it) at element index `i`: the element itself, zipped
/// elements as the operator's tuple, an `(element, index)` pair, or the map of the elements.
fn run_value(op: &OpFragment, v: &Source) -> String {
    let n = v.columns().len();
    // `e`: the value source's element, from the row's fields after the key.
    let e = match n {
        1 => "const auto e = r.f1;".to_string(),
        _ => {
            let sets: String = (0..n).map(|k| format!(" e.f{k} = r.f{};", k + 1)).collect();
            format!("{} e;{sets}", v.elem_c())
        }
    };
    let body = match v {
        Source::Plain(_) => format!("{e} return e;"),
        Source::Indexed { index, .. } => {
            format!("{e} T t; t.f0 = e; t.f1 = ({})i; return t;", index.c_name())
        }
        Source::Map { map, .. } => format!("{e} return wd_map({});", call_args(map, "e", 0)),
    };
    format!(
        "
// ---- reduce-by-key: the operator's value of a row, `{}` ----
struct wd_run_value {{
    typedef wd_op::T T;
    static __device__ __forceinline__ T of(const wd_args& a, const wd_stage::elem_t& r, wd_u64 i) {{
        (void)a; (void)i; {body}
    }}
}};
",
        op.value
    )
}

/// A map module: `map` of every element of `elem` (one array, or several zipped) written out
/// (`Device::map`).
pub fn map_module(map: &FnFragment, elem: &[Scalar]) -> String {
    let source = Source::Map { elem, map };
    let mut m = Module::new(&source.describe());
    m.type_support(&[&source.row_support(), map.type_support]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    m.function(map.text, "wd_map");
    m.user(&stage(&source, None, map.output, None));
    m.shared("map.cuh", MAP_TEMPLATE);
    m.kernels(catalogue::MAP_KERNELS, &source.elem_c(), map.output);
    m.finish(&format!("map_{}", source.tag()))
}

/// A histogram module: the values of `source` (elements, zipped elements, or a map of them;
/// not indexed) binned by `bin` (`wd_bin_of`: its integer result is the bin; its bound
/// arguments after the map's), counted by the catalogue's
/// [`HISTOGRAM_KERNELS`](catalogue::HISTOGRAM_KERNELS).
pub fn histogram_module(bin: &FnFragment, source: &Source) -> String {
    let mut m = Module::new(&format!(
        "histogram by `{}` over {}",
        bin.name,
        source.describe()
    ));
    let map = map_parts(source);
    m.type_support(&[
        &source.row_support(),
        map.map_or("", |f| f.type_support),
        bin.type_support,
    ]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    if let Some(f) = map {
        m.function(f.text, "wd_map");
    }
    m.function(bin.text, "wd_bin");
    m.user(&stage(source, None, &stage_value(source), None));
    m.user(&format!(
        "
// ---- the bin of a value ----
static __device__ __forceinline__ {out} wd_bin_of(const wd_stage& st, wd_stage::value_t v) {{
    const wd_args& a = st.a;
    (void)a;
    return wd_bin({args});
}}
",
        out = bin.output,
        args = call_args(bin, "v", map.map_or(0, |f| f.extras.len())),
    ));
    m.shared("warp.cuh", WARP_TEMPLATE);
    m.shared("block.cuh", BLOCK_TEMPLATE);
    m.shared("tiles.cuh", TILES_TEMPLATE);
    m.shared("histogram.cuh", HISTOGRAM_TEMPLATE);
    m.kernels(
        catalogue::HISTOGRAM_KERNELS,
        &source.elem_c(),
        "wd_stage::out_t",
    );
    m.finish(&format!("histogram_{}_{}", bin.name, source.tag()))
}

/// A scan and axis module: inclusive/exclusive scans, reductions along rows, over CSR
/// segments and along columns, of `op` over the values of `source`.
pub fn axis_module(op: &OpFragment, source: &Source) -> String {
    let mut m = Module::new(&format!(
        "scans and axis reductions `{}` over {}",
        op.name,
        source.describe()
    ));
    let map = map_parts(source);
    let row = source.row_support();
    m.type_support(&[&row, map.map_or("", |f| f.type_support), op.type_support]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    if let Some(f) = map {
        m.function(f.text, "wd_map");
    }
    m.function(op.combine, "wd_op_combine");
    m.function(op.identity, "wd_op_identity");
    m.user(&op_struct(op));
    m.user(&stage(source, None, op.value, None));
    m.reduce_templates(Style::Intrinsics);
    m.shared("tiles.cuh", TILES_TEMPLATE);
    m.shared("lookback.cuh", LOOKBACK_TEMPLATE);
    m.shared("scan.cuh", SCAN_TEMPLATE);
    m.shared("axis.cuh", AXIS_TEMPLATE);
    m.kernels(catalogue::AXIS_KERNELS, &source.elem_c(), op.value);
    m.finish(&format!("axis_{}_{}", op.name, source.tag()))
}

/// A transpose module for row-major matrices of `elem`, through a padded shared tile (and,
/// for the padding measurement only, an unpadded one).
pub fn transpose_module(elem: Scalar) -> String {
    let mut m = Module::new(&format!("transpose of `{elem}` matrices"));
    let e = elem.c_name();
    m.user(&format!("\ntypedef {e} wd_elem_t;\n"));
    m.reduce_templates(Style::Intrinsics);
    m.shared("axis.cuh", AXIS_TEMPLATE);
    m.kernels(catalogue::TRANSPOSE_KERNELS, e, e);
    m.finish(&format!("transpose_{elem}"))
}

/// A top-k module for arrays of `elem` (`Device::top_k`, `Device::bottom_k`): the catalogue's
/// [`TOPK_KERNELS`](catalogue::TOPK_KERNELS) over a plain stage of the array.
pub fn topk_module(elem: Scalar) -> String {
    let source = Source::Plain(std::slice::from_ref(&elem));
    let mut m = Module::new(&format!("top-k of {}", source.describe()));
    m.user(&stage(&source, None, elem.c_name(), None));
    m.shared("warp.cuh", WARP_TEMPLATE);
    m.shared("warp_intrinsics.cuh", WARP_INTRINSICS);
    m.shared("block.cuh", BLOCK_TEMPLATE);
    m.shared("lookback.cuh", LOOKBACK_TEMPLATE);
    m.shared("topk.cuh", TOPK_TEMPLATE);
    m.kernels(catalogue::TOPK_KERNELS, elem.c_name(), elem.c_name());
    m.finish(&format!("topk_{elem}"))
}

/// A module of plain device functions (lowered by [`lower_function`]) and hand-written
/// kernels, with the constants, the prelude and the C structs of `tuples`: what tools and
/// the fidelity tests compile.
pub fn functions_module(what: &str, file: &str, tuples: &[Vec<Scalar>], body: &str) -> String {
    let mut m = Module::new(what);
    m.user(&type_support(tuples));
    m.user(body);
    m.finish(file)
}

/// What a module's own code produced: the module with every shared section (constants,
/// prelude, templates) replaced by one line naming it, and the `#line` resets (whose numbers
/// depend on the shared text's length) written `#line _`. What the snapshots show.
pub fn user_view(source: &str) -> String {
    let mut out = String::new();
    let mut skipping: Option<&str> = None;
    for line in source.lines() {
        if let Some(name) = skipping {
            if line.starts_with(SHARED_END) {
                let _ = writeln!(out, "// [shared: {name}]");
                skipping = None;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix(SHARED_BEGIN) {
            skipping = Some(rest.trim_end_matches(" ===="));
            continue;
        }
        match line.strip_prefix("#line ") {
            Some(rest) if rest.contains("\"warp-dsl/") => {
                let file = rest.split_once(' ').map_or(rest, |(_, f)| f);
                let _ = writeln!(out, "#line _ {file}");
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The shared texts once each (the constants, then every template): what the snapshot of
/// the shared code shows.
pub fn shared_view() -> String {
    let mut out = String::new();
    for (name, text) in [("constants", catalogue::defines().as_str())]
        .into_iter()
        .chain(TEMPLATES)
    {
        let _ = writeln!(out, "{SHARED_BEGIN}{name} ====");
        out.push_str(text);
        let _ = writeln!(out, "{SHARED_END}{name} ====");
    }
    out
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

/// The `extern "C"` kernel signatures of a source, as (name, C parameter types without the
/// parameters' names): what the catalogue test compares with the catalogue's parameter lists.
pub fn kernel_signatures(source: &str) -> Vec<(String, Vec<String>)> {
    const ENTRY: &str = "extern \"C\" __global__ void";
    let mut out = Vec::new();
    for (i, _) in source.match_indices(ENTRY) {
        let mut s = source[i + ENTRY.len()..].trim_start();
        if let Some(r) = s.strip_prefix("__launch_bounds__") {
            let Some(close) = matching_paren(r, r.find('(').unwrap_or(0)) else {
                continue;
            };
            s = &r[close + 1..];
        }
        let Some(open) = s.find('(') else { continue };
        let Some(close) = matching_paren(s, open) else {
            continue;
        };
        let params = s[open + 1..close]
            .split(',')
            .map(|x| x.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|x| !x.is_empty())
            .map(|x| match x.rfind([' ', '*']) {
                Some(j) => x[..=j].trim().replace(" *", "*"),
                None => x,
            })
            .collect();
        out.push((s[..open].trim().to_string(), params));
    }
    out
}

fn matching_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}
