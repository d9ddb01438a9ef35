//! The predicate family: count, any/all, find_first, mask and compaction of the values a
//! `#[predicate]` keeps, and the three-way partition by two predicates.

use crate::catalogue::kit::*;
use crate::module::{
    FnFragment, Module, Pick, Source, Style, stage_functions, stage_value, stage_with,
};

/// Copies of the stop signal that `wd_k_any` and `wd_k_find_first` read before every tile,
/// spread over L2 slices so that the reads of all warps do not queue on one (see
/// predicate.cuh). The signal buffer holds `STOP_COPIES * STOP_STRIDE` bytes; copy 0 is the
/// result.
pub const STOP_COPIES: usize = 32;
/// Bytes between two copies of the stop signal.
pub const STOP_STRIDE: usize = 512;

/// Ballot + popc count of kept values, with the grid combine; `done` as [`REDUCE`](super::reduce::REDUCE)'s.
pub const COUNT: Kernel = kernel(
    "wd_k_count",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("partials", Out(Pointee::U64)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Pointee::U64)),
        p("done", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_count(st, partials, ticket, out, done);",
);

/// Whether any value is kept (`negate`: any rejected), as a bool in `out`; stops early. `flag`
/// is the stop signal ([`STOP_COPIES`] copies, [`STOP_STRIDE`] bytes apart), raised by writing
/// `epoch` (never 0, new each launch; the flag is never cleared); `ticket` finds the last block;
/// `done` as [`REDUCE`](super::reduce::REDUCE)'s.
pub const ANY: Kernel = kernel(
    "wd_k_any",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("negate", U32),
        p("epoch", U32),
        p("flag", Out(Pointee::U32)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Pointee::U8)),
        p("done", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_any(st, negate != 0, epoch, flag, ticket, out, done);",
);

/// The first kept index, stored complemented in the stop signal `first` (0: none; zeroed once,
/// re-armed by each launch's last block); the last block to finish (`ticket`) moves it into
/// `out` (complemented, 0: none).
pub const FIND_FIRST: Kernel = kernel(
    "wd_k_find_first",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("first", Out(Pointee::U64)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Pointee::U64)),
    ],
    "WD_STAGE;\nwd_find_first(st, first, ticket, out);",
);

/// One bit per value, straight from the ballots.
pub const MASK: Kernel = kernel(
    "wd_k_mask",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("words", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_mask(st, words);",
);

/// Single-pass, order-preserving compaction (and partition when `rejected` is not null); the
/// count into `count` and, unless `mirror` is null, into `mirror` (mapped host memory) before
/// its `done` word is set.
pub const COMPACT: Kernel = Kernel {
    name: "wd_k_compact",
    params: &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("kept", Out(Value)),
        p("rejected", Out(Value)),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
        p("count", Out(Pointee::U64)),
        p("mirror", Out(Pointee::U64)),
        p("done", Out(Pointee::U32)),
    ],
    threads: Threads::Block,
    // 5 resident blocks per SM (48 registers) keep enough loads in flight for 4-byte values.
    min_blocks: Some("sizeof(wd_stage::value_t) <= 4 && sizeof(wd_stage::elem_t) <= 4 ? 5 : 1"),
    body: "WD_STAGE;\nwd_compact(st, kept, rejected, status, queue, count, mirror, done);",
};

/// Three-way partition by two predicates, single pass: `first`, `second` and `rest` each get
/// their values in input order; `count` the two counts packed
/// (`first | second << PARTITION3_SHIFT`).
pub const PARTITION3: Kernel = kernel_min(
    "wd_k_partition3",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("first", Out(Value)),
        p("second", Out(Value)),
        p("rest", Out(Value)),
        p("status", Out(Pointee::U8)),
        p("queue", Out(Pointee::U32)),
        p("count", Out(Pointee::U64)),
    ],
    // 5 resident blocks per SM (48 registers) for 4-byte values: +9% over 3 (no cap) and +6%
    // over 4 on f32 thirds (collectives bench, 2^26).
    "sizeof(wd_stage::value_t) <= 4 && sizeof(wd_stage::elem_t) <= 4 ? 5 : 1",
    "WD_STAGE;\nwd_partition3(st, first, second, rest, status, queue, count);",
);

/// How [`PARTITION3`] packs its two counts in one word (each below `2^PARTITION3_SHIFT`).
pub const PARTITION3_SHIFT: u32 = 31;

/// The kernels of a three-way partition module.
pub const PARTITION3_KERNELS: &[&Kernel] = &[&PARTITION3];

/// The kernels of a predicate module.
pub const PREDICATE_KERNELS: &[&Kernel] = &[&COUNT, &ANY, &FIND_FIRST, &MASK, &COMPACT];

/// The predicate family's constants, emitted as `#define`s.
pub const PREDICATE_DEFINES: &[(&str, u64)] = &[
    ("WD_STOP_COPIES", STOP_COPIES as u64),
    ("WD_STOP_STRIDE", STOP_STRIDE as u64),
    ("WD_P3_SHIFT", PARTITION3_SHIFT as u64),
];

/// A predicate module: every predicate kernel (count, any/all, find_first, mask, compact) for
/// `pred` over the values of `source` (elements, zipped elements, or a map of them; not
/// indexed). `pick`: what compaction writes of each kept value: the value, field `k` of a
/// zipped element (the element of that array) or the value's position (`argwhere`).
pub fn predicate_module(pred: &FnFragment, source: &Source, pick: Pick) -> String {
    tested_module(
        &format!("predicate `{}`", pred.name),
        &pred.name,
        pred,
        None,
        source,
        pick,
        crate::catalogue::PREDICATE_KERNELS,
    )
}

/// A three-way partition module: `first` sends values to the first part, `second` those
/// `first` rejects to the second, the rest to the third, over the values of `source` (as
/// [`predicate_module`], `pick` included).
pub fn partition3_module(
    first: &FnFragment,
    second: &FnFragment,
    source: &Source,
    pick: Pick,
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
        crate::catalogue::PARTITION3_KERNELS,
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
    pick: Pick,
    kernels: &[&Kernel],
) -> String {
    let picked = match pick {
        Pick::Value => String::new(),
        Pick::Field(k) => format!(", keeping array {k}"),
        Pick::Position(ix) => format!(", keeping `{ix}` positions"),
    };
    let mut m = Module::new(&format!("{what} over {}{picked}", source.describe()));
    let fns = stage_functions(source);
    let row = source.row_support();
    let mut types: Vec<&str> = vec![&row];
    types.extend(fns.iter().map(|(f, _)| &*f.type_support));
    types.extend([&*pred.type_support, pred2.map_or("", |f| &f.type_support)]);
    m.type_support(&types);
    m.user("\n// ---- the user's functions, lowered ----\n");
    for (f, name) in &fns {
        m.function(&f.text, name);
    }
    m.function(&pred.text, "wd_pred");
    if let Some(f) = pred2 {
        m.function(&f.text, "wd_pred2");
    }
    m.user(&stage_with(
        source,
        Some(pred),
        pred2,
        &stage_value(source),
        pick,
    ));
    m.reduce_templates(Style::Intrinsics);
    m.template("tiles.cuh");
    m.template("lookback.cuh");
    m.template("predicate.cuh");
    m.kernels(kernels, &source.elem_c(), "wd_stage::out_t");
    let picked = match pick {
        Pick::Value => String::new(),
        Pick::Field(k) => format!("_keep{k}"),
        Pick::Position(ix) => format!("_positions_{ix}"),
    };
    m.finish(&format!("{file}_{}{picked}", source.tag()))
}

/// The predicate family's kernels: the predicate module's and the three-way partition's.
pub const PREDICATE_FAMILY_KERNELS: &[&Kernel] =
    &[&COUNT, &ANY, &FIND_FIRST, &MASK, &COMPACT, &PARTITION3];
