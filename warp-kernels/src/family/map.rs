//! The map family: a `#[map]` of every element written out, and values scattered to the
//! places their indices name.

use crate::catalogue::kit::*;
use crate::module::{FnFragment, Module, Pick, Source, stage, stage_functions, stage_value};
use crate::types::Scalar;

/// Every value of the stage (a map of the elements) written out.
pub const MAP: Kernel = kernel(
    "wd_k_map",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("out", Out(Value)),
    ],
    "WD_STAGE;\nwd_map_all(st, out);",
);

/// Each of `values` written to the place of `out` its index names (`Device::scatter_into`):
/// the stage reads the indices; an index at or past `places` writes nothing (the runtime
/// checks them first, so none is).
pub const SCATTER: Kernel = kernel(
    "wd_k_scatter",
    &[
        p("in", Input),
        p("n", U64),
        p("a", Args),
        p("places", U64),
        p("values", In(Pointee::Value)),
        p("out", Out(Pointee::Value)),
    ],
    "WD_STAGE;\nwd_scatter_all(st, places, values, out);",
);

/// The kernels of a map module.
pub const MAP_KERNELS: &[&Kernel] = &[&MAP];

/// The kernels of a scatter module.
pub const SCATTER_KERNELS: &[&Kernel] = &[&SCATTER];

/// The map family's kernels: the map module's and the scatter module's.
pub const MAP_FAMILY_KERNELS: &[&Kernel] = &[&MAP, &SCATTER];

/// The map family's constants (none beyond the shared ones).
pub const MAP_DEFINES: &[(&str, u64)] = &[];

/// A map module: `map` of every element of `elem` (one array, or several zipped) written out
/// (`Device::map`).
pub fn map_module(map: &FnFragment, elem: &[Scalar]) -> String {
    let source = Source::Map { elem, map };
    values_module(&source.describe(), "map", &source)
}

/// A collect module: the values of any element source (a range, a gather, a strided view, a
/// map of any of them, a map of a map) written out (`Device::collect`).
pub fn collect_module(source: &Source) -> String {
    values_module(
        &format!("the values of {} written out", source.describe()),
        "collect",
        source,
    )
}

/// The module of `wd_k_map` over `source`: its user functions, its stage, the map template.
fn values_module(what: &str, file: &str, source: &Source) -> String {
    let mut m = Module::new(what);
    let fns = stage_functions(source);
    let row = source.row_support();
    let mut types: Vec<&str> = vec![&row];
    types.extend(fns.iter().map(|(f, _)| &*f.type_support));
    m.type_support(&types);
    m.user("\n// ---- the user's functions, lowered ----\n");
    for (f, name) in &fns {
        m.function(&f.text, name);
    }
    let value = stage_value(source);
    m.user(&stage(source, None, &value, Pick::Value));
    m.template("map.cuh");
    m.kernels(crate::catalogue::MAP_KERNELS, &source.elem_c(), &value);
    m.finish(&format!("{file}_{}", source.tag()))
}

/// A scatter module: values of type `value` written to the places indices of type `index`
/// name (`Device::scatter_into`); the stage reads the indices.
pub fn scatter_module(value: Scalar, index: Scalar) -> String {
    let cols = [index];
    let source = Source::Plain(&cols);
    let mut m = Module::new(&format!(
        "`{value}` values scattered by {}",
        source.describe()
    ));
    m.user(&stage(&source, None, index.c_name(), Pick::Value));
    m.template("map.cuh");
    m.kernels(
        crate::catalogue::SCATTER_KERNELS,
        index.c_name(),
        value.c_name(),
    );
    m.finish(&format!("scatter_{value}_{index}"))
}
