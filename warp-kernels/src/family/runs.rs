//! The runs family: unique, run-length encode and reduce-by-key over runs of equal keys.

use crate::catalogue::kit::*;
use crate::module::{
    FnFragment, Module, OpFragment, Pick, Source, Style, bound_args, call_args, map_parts,
    op_struct, stage,
};
use crate::types::Scalar;

/// Runs of equal neighbouring keys, single pass: run `r`'s key into `keys[r]` and, unless the
/// module's `wd_runs_vals` is `wd_runs_none` (unique; `vals` null), its value into `vals[r]`
/// (its length, or its values combined in order); the number of runs into `count`.
pub const RUNS: Kernel = kernel_min(
    "wd_k_runs",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("keys", Out(Elem)),
        p("vals", Out(Value)),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
        p("count", Out(Pointee::U64)),
    ],
    // Unique and run-length encode (no value combined per element) of keys of up to 4 bytes:
    // 5 resident blocks per SM (48 registers, no spill): +12% / +14% (unique, runs of 4 / 64)
    // and +10% / +12% (run-length encode) over 3 and 4 (64 registers), at 2^28; 6 (40
    // registers, spilling) is slower. Reduce-by-key (rows of up to 8 bytes): 4 blocks (64
    // registers, 32 bytes of stack), +4% / +9% over 3 (80 registers); 5 and 6 spill over 240
    // bytes and run at less than half the speed.
    "!wd_runs_vals::on || wd_runs_vals::starts ? (sizeof(wd_stage::elem_t) <= 4 ? 5 : 3) \
     : (sizeof(wd_stage::elem_t) <= 8 ? 4 : 1)",
    "WD_STAGE;\nwd_runs<wd_runs_vals>(st, keys, vals, status, queue, count);",
);

/// Warp tiles each warp of unique takes for keys of at most [`UNIQUE_SPAN_KEY_MAX`] bytes
/// (`wd_unique_span` in runs.cuh): one block tile prefix then serves `UNIQUE_SPAN` times as many
/// elements (wider keys take one: their staging would pass 48 KB of shared memory).
pub const UNIQUE_SPAN: usize = 2;
/// The widest key (bytes) that unique spans [`UNIQUE_SPAN`] warp tiles with.
pub const UNIQUE_SPAN_KEY_MAX: usize = 4;

/// Elements of one block tile of [`RUNS`] for keys of `key_size` bytes: [`BLOCK_TILE`], times
/// [`UNIQUE_SPAN`] for unique (`unique`: the runs carry no values) of narrow keys.
pub const fn runs_block_tile(key_size: usize, unique: bool) -> usize {
    if unique && key_size <= UNIQUE_SPAN_KEY_MAX {
        BLOCK_TILE * UNIQUE_SPAN
    } else {
        BLOCK_TILE
    }
}

/// The largest value (bytes of its C layout) reduce-by-key combines: [`RUNS`] stages values
/// beside keys in shared memory and carries them through the look-back with a 64-bit head
/// count ([`RUN_PART_BYTES`]).
pub const RUN_VALUE_MAX_BYTES: usize = 8;

/// Bytes of one `(heads, value)` pair of the runs' look-back (`wd_run_part`: a 64-bit count
/// and a value of at most 8 bytes, padded).
pub const RUN_PART_BYTES: usize = 16;

/// Bytes of look-back status of [`RUNS`] for `tiles` tiles: packed head counts for unique,
/// `(heads, value)` pairs in the split layout when runs carry values (the kernel packs pairs
/// of values of at most 4 bytes into one word each when the input has fewer than 2^30
/// elements, which needs less).
pub const fn runs_status_bytes(tiles: usize, values: bool) -> usize {
    if values {
        status_bytes(tiles, RUN_PART_BYTES)
    } else {
        tiles * 8
    }
}

/// The kernels of a runs module.
pub const RUNS_KERNELS: &[&Kernel] = &[&RUNS];

/// The runs family's constants, emitted as `#define`s.
pub const RUNS_DEFINES: &[(&str, u64)] = &[
    ("WD_RUN_VALUE_MAX_BYTES", RUN_VALUE_MAX_BYTES as u64),
    ("WD_UNIQUE_SPAN", UNIQUE_SPAN as u64),
    ("WD_UNIQUE_SPAN_KEY_MAX", UNIQUE_SPAN_KEY_MAX as u64),
];

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

/// A runs module (the catalogue's [`RUNS_KERNELS`]) over keys of type
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
        same.map_or("", |f| &f.type_support),
        map.map_or("", |f| &f.type_support),
        op.map_or("", |o| &o.type_support),
    ]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    if let Some(f) = same {
        m.function(&f.text, "wd_pred");
    }
    if let Some(f) = map {
        m.function(&f.text, "wd_map");
    }
    if let Some(op) = op {
        m.function(&op.combine, "wd_op_combine");
        m.function(&op.identity, "wd_op_identity");
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
    m.user(&stage(&source, None, &source.elem_c(), Pick::Value));
    if let (Some(op), Some(v)) = (op, value_source) {
        m.user(&run_value(op, v));
    }
    m.reduce_templates(Style::Intrinsics);
    m.template("tiles.cuh");
    m.template("lookback.cuh");
    m.template("runs.cuh");
    m.user(&format!(
        "\n// ---- what the runs carry ----\ntypedef {vals} wd_runs_vals;\n"
    ));
    let value = match values {
        RunValues::None => "wd_u8".to_string(),
        RunValues::Counts(c) => c.c_name().to_string(),
        RunValues::Reduce(op, _) => op.value.to_string(),
    };
    m.kernels(crate::catalogue::RUNS_KERNELS, k, &value);
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
        // The rows are read from memory, key and values zipped: a generated range has none
        // (the runtime refuses it as reduce-by-key's values before building a module).
        Source::Range { .. } | Source::Zipped { .. } => {
            "\n#error \"a generated range is not a values input of reduce-by-key\"\n".to_string()
        }
        Source::Gather { .. }
        | Source::Strided { .. }
        | Source::Masked { .. }
        | Source::Chained { .. } => {
            "\n#error \"a gather, a strided view, a masked input or a map of a map is not a values input of reduce-by-key\"\n"
                .to_string()
        }
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
        &op.value
    )
}
