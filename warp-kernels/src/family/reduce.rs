//! The reduce family: one-pass grid reductions of a stage's values by a `#[reduce]` operator.

use crate::catalogue::kit::*;
use crate::module::{Module, OpFragment, Pick, Source, op_struct, stage, stage_functions};

/// Grid reduction of the stage's values: per-thread accumulation, warp reduce, `warpSums`,
/// last-block-done grid combine in the same launch (`partials` holds a value per block).
/// `done` (null: none) is the done word of a result in mapped host memory, set once `out` is
/// written (the host spins on it instead of waiting for the kernel's end).
pub const REDUCE: Kernel = kernel(
    "wd_k_reduce",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("partials", Out(Value)),
        p("ticket", Out(Pointee::U32)),
        p("out", Out(Value)),
        p("done", Out(Pointee::U32)),
    ],
    "WD_STAGE;\nwd_reduce_grid<wd_op>(st, partials, ticket, out, done);",
);

/// Waves of resident blocks a reduction of a generated range alone is launched with (its
/// thread loop goes by tiles of [`ITEMS`](crate::catalogue::ITEMS) indices a thread, the map
/// of each index the work): blocks that finish early take more tiles, so that the last wave
/// is short (on an H100, the f64 Gauss integral: 0.99x CUB at one wave, 1.03x at five).
pub const GENERATED_WAVES: usize = 5;

/// The kernels of a reduction module.
pub const REDUCE_KERNELS: &[&Kernel] = &[&REDUCE];

/// The reduce family's constants (none beyond the shared ones).
pub const REDUCE_DEFINES: &[(&str, u64)] = &[];

/// A reduction module: `op` over the values of `source`, one pass (the catalogue's
/// [`REDUCE_KERNELS`]). `None`: the operator's fragments and
/// templates only (a tuple operator reduced through maps and axis operations).
pub fn reduce_module(op: &OpFragment, source: Option<&Source>) -> String {
    let what = match source {
        Some(s) => format!("reduction `{}` over {}", op.name, s.describe()),
        None => format!("reduction `{}` over `{}` values", op.name, &op.value),
    };
    let mut m = Module::new(&what);
    let fns = source.map_or(Vec::new(), stage_functions);
    let row = source.map_or(String::new(), |s| s.row_support());
    let mut types: Vec<&str> = vec![&row];
    types.extend(fns.iter().map(|(f, _)| &*f.type_support));
    types.push(&op.type_support);
    m.type_support(&types);
    m.user("\n// ---- the user's functions, lowered ----\n");
    for (f, name) in &fns {
        m.function(&f.text, name);
    }
    m.function(&op.combine, "wd_op_combine");
    m.function(&op.identity, "wd_op_identity");
    m.user(&op_struct(op));
    if let Some(s) = source {
        m.user(&stage(s, None, &op.value, Pick::Value));
    }
    m.reduce_templates(op.style);
    // The operator's own module is named after it; a composition after its parts.
    let file = match source {
        Some(s @ Source::Map { map, .. }) => format!(
            "{}_{}{}",
            map.name,
            op.name,
            s.tag().trim_start_matches(&*map.name)
        ),
        Some(
            s @ (Source::Range { .. }
            | Source::Gather { .. }
            | Source::Strided { .. }
            | Source::Zipped { .. }
            | Source::Masked { .. }
            | Source::Chained { .. }),
        ) => {
            format!("{}_{}", op.name, s.tag())
        }
        _ => op.name.to_string(),
    };
    if let Some(s) = source {
        m.kernels(crate::catalogue::REDUCE_KERNELS, &s.elem_c(), &op.value);
    }
    m.finish(&file)
}
