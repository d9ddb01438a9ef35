//! The histogram family: counts (or sums of weights) of values per bin of a `#[map]`'s bin
//! function.

use crate::catalogue::kit::*;
use crate::module::{
    FnFragment, Module, OpFragment, Pick, Source, call_args, op_struct, stage, stage_functions,
    stage_value,
};
use crate::types::Scalar;

/// The most bins a histogram counts into.
pub const HISTOGRAM_MAX_BINS: usize = 65536;
/// Bytes of shared memory a histogram block keeps its bins in, at most (the dynamic shared
/// memory a kernel gets without opting in): more bins than fit (`(bins + 1) * 4` bytes, with
/// the row of dropped values) are counted in global memory.
pub const HIST_SHARED_MAX: usize = 48 * 1024;
/// Bytes of shared memory a histogram block spends on columns of its bins, at most, while
/// there are fewer than [`HIST_REPLICAS_MAX`] (more columns, fewer bank conflicts between the
/// lanes of one atomic; more memory, fewer resident blocks).
pub const HIST_REPLICA_BYTES: usize = 33 * 1024;
/// The most columns (copies) of each bin a histogram block keeps: one per lane, so that the
/// lanes of one shared atomic hit 32 distinct banks.
pub const HIST_REPLICAS_MAX: u32 = 32;
/// A histogram tile whose probe row (its first 32 values, one per lane) has this many lanes
/// holding the bin of the lane below takes the `__match_any_sync` path (one atomic per
/// distinct bin per row); fewer, and each lane adds its own.
pub const HIST_MATCH_MIN: u32 = 4;
/// Histogram tiles probe for contention (and may take the `__match_any_sync` path) only where
/// the bins have at most this many columns in shared memory, or are in global memory: with
/// more, the lanes of one bin already add to as many distinct addresses (banks), at most
/// `32 / columns` to each.
pub const HIST_MATCH_COLUMNS: u32 = 8;
/// The most elements one histogram block counts (the grid is sized so): its 32-bit shared
/// counters cannot overflow.
pub const HIST_BLOCK_ELEMS_MAX: u64 = 1 << 31;

/// Columns of each bin in shared memory for a histogram of `bins` bins (a power of two up to
/// [`HIST_REPLICAS_MAX`] within [`HIST_REPLICA_BYTES`]; 1 when one column needs more, up to
/// [`HIST_SHARED_MAX`]); 0: the bins do not fit shared memory, they are counted in global
/// memory. The shared bins have one row more, which collects the dropped values.
pub const fn hist_replicas(bins: usize) -> u32 {
    hist_replicas_of(bins, 4)
}

/// [`hist_replicas`] for bins of `word` bytes (a weighted histogram's sums: 4 or 8).
pub const fn hist_replicas_of(bins: usize, word: usize) -> u32 {
    let bytes = (bins + 1) * word;
    if bytes > HIST_SHARED_MAX {
        return 0;
    }
    let mut r = 1;
    while r < HIST_REPLICAS_MAX && bytes * 2 * r as usize <= HIST_REPLICA_BYTES {
        r *= 2;
    }
    r
}

/// A histogram: the stage's values binned by the module's `wd_bin_of` into `counts` (`bins`
/// 32-bit words, 64-bit when `wide`; zeroed by the caller), through `replicas` columns of each
/// bin in `replicas * (bins + 1) * 4` bytes of dynamic shared memory (the last row collects
/// dropped values; 0 replicas: straight to global memory).
pub const HISTOGRAM: Kernel = kernel_min(
    "wd_k_histogram",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("bins", U64),
        p("replicas", U32),
        p("wide", U32),
        p("counts", Out(Pointee::U8)),
    ],
    // 5 resident blocks per SM (48 registers) for 1-byte elements: +6-7% over the uncapped 4
    // (54 registers) for bytes into 256 bins, as much as 6 (collectives bench, 2^28).
    "sizeof(wd_stage::elem_t) == 1 ? 5 : 1",
    "WD_STAGE;\nwd_histogram(st, bins, replicas, wide, counts);",
);

/// A histogram's 32-bit counts narrowed to 1- or 2-byte counters (`width`).
pub const HIST_NARROW: Kernel = kernel(
    "wd_k_hist_narrow",
    &[
        p("wide", In(Pointee::U32)),
        p("bins", U64),
        p("width", U32),
        p("out", Out(Pointee::U8)),
    ],
    "wd_hist_narrow(wide, bins, width, out);",
);

/// A weighted histogram: each of the stage's values adds its weight `weights[i]` (the module's
/// value type: `wd_hist_weight_t`) to the bin the module's `wd_bin_of` gives it, in `sums`
/// (`bins` values, zeroed by the caller), through `replicas` columns of each bin in
/// `replicas * (bins + 1) * sizeof(weight)` bytes of dynamic shared memory (0 replicas:
/// straight to global memory).
pub const HISTOGRAM_WEIGHTED: Kernel = kernel(
    "wd_k_histogram_weighted",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("bins", U64),
        p("replicas", U32),
        p("weights", In(Pointee::Value)),
        p("sums", Out(Pointee::Value)),
    ],
    "WD_STAGE;\nwd_histogram_weighted(st, bins, replicas, weights, sums);",
);

/// A histogram of weights combined by the module's `#[reduce]` operator (`wd_op`, values of 4
/// or 8 bytes): each of the stage's values combines its weight `weights[i]` into the bin the
/// module's `wd_bin_of` gives it, in `sums` (`bins` values the caller set to the identity),
/// through `replicas` columns of each bin in shared memory as the weighted histogram's.
pub const HISTOGRAM_REDUCE: Kernel = kernel(
    "wd_k_histogram_reduce",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("bins", U64),
        p("replicas", U32),
        p("weights", In(Pointee::Value)),
        p("sums", Out(Pointee::Value)),
    ],
    "WD_STAGE;\nwd_histogram_reduce<wd_op>(st, bins, replicas, weights, sums);",
);

/// The kernels of a histogram module.
pub const HISTOGRAM_KERNELS: &[&Kernel] = &[&HISTOGRAM, &HIST_NARROW];

/// The kernels of a weighted histogram module.
pub const HISTOGRAM_WEIGHTED_KERNELS: &[&Kernel] = &[&HISTOGRAM_WEIGHTED];

/// The kernels of a histogram module whose weights a `#[reduce]` operator combines.
pub const HISTOGRAM_REDUCE_KERNELS: &[&Kernel] = &[&HISTOGRAM_REDUCE];

/// The histogram family's kernels: the counting module's and the weighted one's.
pub const HISTOGRAM_FAMILY_KERNELS: &[&Kernel] = &[
    &HISTOGRAM,
    &HIST_NARROW,
    &HISTOGRAM_WEIGHTED,
    &HISTOGRAM_REDUCE,
];

/// The histogram family's constants, emitted as `#define`s.
pub const HISTOGRAM_DEFINES: &[(&str, u64)] = &[
    ("WD_HIST_MATCH_MIN", HIST_MATCH_MIN as u64),
    ("WD_HIST_MATCH_COLUMNS", HIST_MATCH_COLUMNS as u64),
];

/// A histogram module: the values of `source` (elements, zipped elements, or a map of them;
/// not indexed) binned by `bin` (`wd_bin_of`: its integer result is the bin; its bound
/// arguments after the map's), counted by the catalogue's
/// [`HISTOGRAM_KERNELS`]; with `weight`, a weighted histogram of weights of that type (f32,
/// f64, i32, u32, i64 or u64) by [`HISTOGRAM_WEIGHTED_KERNELS`].
pub fn histogram_module(bin: &FnFragment, source: &Source, weight: Option<Scalar>) -> String {
    let weighted = weight.map_or(String::new(), |w| format!("`{w}`-weighted "));
    let mut m = binned(&format!("{weighted}histogram"), bin, source, None);
    match weight {
        Some(w) => {
            m.kernels(HISTOGRAM_WEIGHTED_KERNELS, &source.elem_c(), w.c_name());
            m.finish(&format!(
                "histogram_weighted_{w}_{}_{}",
                bin.name,
                source.tag()
            ))
        }
        None => {
            m.kernels(HISTOGRAM_KERNELS, &source.elem_c(), "wd_stage::out_t");
            m.finish(&format!("histogram_{}_{}", bin.name, source.tag()))
        }
    }
}

/// A histogram module whose weights (`op`'s value type, a scalar of 4 or 8 bytes) the
/// `#[reduce]` operator `op` combines per bin: the values of `source` binned by `bin` as in
/// [`histogram_module`], by the catalogue's [`HISTOGRAM_REDUCE_KERNELS`].
pub fn histogram_reduce_module(bin: &FnFragment, source: &Source, op: &OpFragment) -> String {
    let mut m = binned(
        &format!("`{}`-combined histogram", op.name),
        bin,
        source,
        Some(op),
    );
    m.kernels(HISTOGRAM_REDUCE_KERNELS, &source.elem_c(), &op.value);
    m.finish(&format!(
        "histogram_{}_{}_{}",
        op.name,
        bin.name,
        source.tag()
    ))
}

/// What every histogram module holds before its kernels: the user's functions (the stage's,
/// the bin map, and `op`'s with `wd_op` when weights are combined by it), the stage, the bin
/// of a value (`wd_bin_of`) and the templates.
fn binned(what: &str, bin: &FnFragment, source: &Source, op: Option<&OpFragment>) -> Module {
    let mut m = Module::new(&format!(
        "{what} by `{}` over {}",
        bin.name,
        source.describe()
    ));
    let fns = stage_functions(source);
    let row = source.row_support();
    let mut types: Vec<&str> = vec![&row];
    types.extend(fns.iter().map(|(f, _)| &*f.type_support));
    types.push(&bin.type_support);
    if let Some(op) = op {
        types.push(&op.type_support);
    }
    m.type_support(&types);
    m.user("\n// ---- the user's functions, lowered ----\n");
    for (f, name) in &fns {
        m.function(&f.text, name);
    }
    // The bin's bound arguments follow the maps'.
    let nmap: usize = fns.iter().map(|(f, _)| f.extras.len()).sum();
    m.function(&bin.text, "wd_bin");
    if let Some(op) = op {
        m.function(&op.combine, "wd_op_combine");
        m.function(&op.identity, "wd_op_identity");
        m.user(&op_struct(op));
    }
    m.user(&stage(source, None, &stage_value(source), Pick::Value));
    m.user(&format!(
        "
// ---- the bin of a value ----
static __device__ __forceinline__ {out} wd_bin_of(const wd_stage& st, wd_stage::value_t v) {{
    const wd_args& a = st.a;
    (void)a;
    return wd_bin({args});
}}
",
        out = &bin.output,
        args = call_args(bin, "v", nmap),
    ));
    m.template("warp.cuh");
    m.template("block.cuh");
    m.template("tiles.cuh");
    m.template("histogram.cuh");
    m
}
