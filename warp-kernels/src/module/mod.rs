//! The one assembler of CUDA modules, used by the macros (a reduction's own module) and by the
//! runtime (compositions): fragments of the user's functions in ([`fragment`]), the complete
//! source of one module out: the catalogue's constants, the prelude, the user-derived parts
//! (value types, lowered functions, the operation struct, the stage ([`stage`])), the
//! templates, and the kernel entry points of the catalogue. Each family's module function
//! lives in `family/<f>.rs` and is re-exported here.
//!
//! Shared text (constants, prelude, templates) is fenced by marker comments, so that
//! [`user_view`] can show only what the user's code produced.

pub mod fragment;
pub mod stage;

use std::fmt::Write;

use crate::catalogue::{self, Kernel};
use crate::lower::LINE_RESET_MARKER;
use crate::types::{Scalar, Ty};

pub use crate::family::axes::{axis_module, transpose_module};
pub use crate::family::group::group_module;
pub use crate::family::histogram::{histogram_module, histogram_reduce_module};
pub use crate::family::map::{collect_module, map_module, scatter_module};
pub use crate::family::merge::{merge_module, merge_values_module};
pub use crate::family::predicates::{partition3_module, predicate_module};
pub use crate::family::reduce::reduce_module;
pub use crate::family::runs::{RunValues, runs_module};
pub use crate::family::search::search_module;
pub use crate::family::sort::sort_module;
pub use crate::family::topk::topk_module;
pub(crate) use fragment::op_struct;
pub use fragment::{FRAGMENT_NAME, FnFragment, OpFragment};
pub use stage::{Pick, Source};
pub(crate) use stage::{
    bound_args, call_args, map_parts, stage, stage_functions, stage_value, stage_with,
};

/// The prelude every generated source starts with.
pub const PRELUDE: &str = include_str!("../templates/prelude.cuh");
/// f16 and bf16 (`wd_f16`, `wd_bf16`): after the prelude, in the modules that use them only.
pub const HALF: &str = include_str!("../templates/half.cuh");
/// The warp primitives (reduce, scans, segmented scan, ballot rank, lower bound): the layer under
/// every family's template.
pub const WARP_TEMPLATE: &str = include_str!("../templates/warp.cuh");
/// The block primitives (reduce, scan of warp totals, radix digit histogram and pick, bitonic
/// sort, tile loads and stores), after the warp reduce of the chosen style.
pub const BLOCK_TEMPLATE: &str = include_str!("../templates/block.cuh");
/// The reduction patterns (thread, grid), after the block primitives.
pub const REDUCE_TEMPLATE: &str = include_str!("../templates/reduce.cuh");
/// The warp reduce with intrinsics.
pub const WARP_INTRINSICS: &str = include_str!("../templates/warp_intrinsics.cuh");
/// The warp reduce with cooperative groups.
pub const WARP_CG: &str = include_str!("../templates/warp_cg.cuh");
/// Warp tiles: their layout and loads (scalar, and 16 bytes at a time).
pub const TILES_TEMPLATE: &str = include_str!("../templates/tiles.cuh");
/// The single-pass prefix machinery (tile queue, tile status, decoupled look-back), shared by
/// compaction and scan.
pub const LOOKBACK_TEMPLATE: &str = include_str!("../templates/lookback.cuh");
/// The predicate patterns: votes, ballot counting and compaction.
pub const PREDICATE_TEMPLATE: &str = include_str!("../templates/predicate.cuh");
/// The scan: thread scan, warp scan with `__shfl_up_sync`, block scan, look-back.
pub const SCAN_TEMPLATE: &str = include_str!("../templates/scan.cuh");
/// Axis reductions (rows, segments, columns through a padded tile) and transpose.
pub const AXIS_TEMPLATE: &str = include_str!("../templates/axis.cuh");
/// The map: every value of a stage written out.
pub const MAP_TEMPLATE: &str = include_str!("../templates/map.cuh");
/// Runs of equal keys: unique, run-length encode, reduce-by-key (ballot heads, segmented
/// scan, look-back of (heads, value) pairs).
pub const RUNS_TEMPLATE: &str = include_str!("../templates/runs.cuh");
/// Top-k: order keys, ballot filtering against a running threshold, radix select, sort.
pub const TOPK_TEMPLATE: &str = include_str!("../templates/topk.cuh");

/// Order words: every key as an unsigned word whose order is the sort's (`total_cmp` for
/// floats), for the radix sort and the binary search.
pub const ORDER_TEMPLATE: &str = include_str!("../templates/order.cuh");

/// Radix sort: the histogram of every digit, the plan, Onesweep digit passes, the rows' and
/// segments' sorts.
pub const SORT_TEMPLATE: &str = include_str!("../templates/sort.cuh");

/// Binary search: lower and upper bounds of many queries, a shared sample, then lockstep
/// branch-free searches.
pub const SEARCH_TEMPLATE: &str = include_str!("../templates/search.cuh");

/// Group-by by a table: the keys' range, one atomic add a pair, the present slots compacted.
pub const GROUP_TEMPLATE: &str = include_str!("../templates/group.cuh");

/// Merge sort by a comparator: block sort in registers and shared memory, merge-path passes.
pub const MERGE_TEMPLATE: &str = include_str!("../templates/merge.cuh");

/// The histogram: warp-aggregated (`__match_any_sync`) counts in shared bins, merged once.
pub const HISTOGRAM_TEMPLATE: &str = include_str!("../templates/histogram.cuh");

/// Every shared text, by file name, in the order modules include them.
pub const TEMPLATES: [(&str, &str); 21] = [
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
    ("order.cuh", ORDER_TEMPLATE),
    ("sort.cuh", SORT_TEMPLATE),
    ("merge.cuh", MERGE_TEMPLATE),
    ("search.cuh", SEARCH_TEMPLATE),
    ("group.cuh", GROUP_TEMPLATE),
];

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

const SHARED_BEGIN: &str = "// ==== shared: ";
const SHARED_END: &str = "// ==== end shared: ";

/// A module being assembled: shared sections fenced by markers, user-derived text between.
pub(crate) struct Module {
    src: String,
}

impl Module {
    /// A module whose header comment says `what`: the catalogue's constants and the prelude.
    pub(crate) fn new(what: &str) -> Module {
        let mut m = Module {
            src: format!(
                "// warp-dsl: {what}, assembled by warp-kernels {}.\n",
                env!("CARGO_PKG_VERSION")
            ),
        };
        m.shared("constants", &catalogue::defines());
        m.template("prelude.cuh");
        m
    }

    pub(crate) fn shared(&mut self, name: &str, text: &str) {
        let _ = writeln!(self.src, "{SHARED_BEGIN}{name} ====");
        self.src.push_str(text);
        if !text.ends_with('\n') {
            self.src.push('\n');
        }
        let _ = writeln!(self.src, "{SHARED_END}{name} ====");
    }

    /// The template `name` of [`TEMPLATES`], as a shared section.
    pub(crate) fn template(&mut self, name: &str) {
        let text = TEMPLATES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| unreachable!("no template {name}"), |(_, t)| *t);
        self.shared(name, text);
    }

    pub(crate) fn user(&mut self, text: &str) {
        self.src.push_str(text);
    }

    /// A fragment's device function under the name `as_name`.
    pub(crate) fn function(&mut self, text: &str, as_name: &str) {
        self.src.push_str(&text.replace(FRAGMENT_NAME, as_name));
    }

    /// Value types first (each guarded, so several fragments may bring the same tuple).
    pub(crate) fn type_support(&mut self, parts: &[&str]) {
        for p in parts {
            self.src.push_str(p);
        }
    }

    pub(crate) fn reduce_templates(&mut self, style: Style) {
        let (name, warp) = style.warp_template();
        self.template("warp.cuh");
        self.shared(name, warp);
        self.template("block.cuh");
        self.template("reduce.cuh");
    }

    pub(crate) fn kernels(&mut self, kernels: &[&Kernel], elem: &str, value: &str) {
        self.src
            .push_str("\n// ---- kernels (warp_kernels::catalogue) ----\n");
        for k in kernels {
            self.src.push_str(&k.definition(elem, value));
        }
    }

    /// The text, with the `#line` resets pointing into `warp-dsl/{file}.cu`; the half
    /// precision section goes in after the prelude when anything names its types.
    pub(crate) fn finish(mut self, file: &str) -> String {
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
