//! The map family: a `#[map]` of every element written out.

use crate::catalogue::kit::*;
use crate::module::{FnFragment, Module, Pick, Source, stage};
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

/// The kernels of a map module.
pub const MAP_KERNELS: &[&Kernel] = &[&MAP];

/// The map family's constants (none beyond the shared ones).
pub const MAP_DEFINES: &[(&str, u64)] = &[];

/// A map module: `map` of every element of `elem` (one array, or several zipped) written out
/// (`Device::map`).
pub fn map_module(map: &FnFragment, elem: &[Scalar]) -> String {
    let source = Source::Map { elem, map };
    let mut m = Module::new(&source.describe());
    m.type_support(&[&source.row_support(), &map.type_support]);
    m.user("\n// ---- the user's functions, lowered ----\n");
    m.function(&map.text, "wd_map");
    m.user(&stage(&source, None, &map.output, Pick::Value));
    m.template("map.cuh");
    m.kernels(crate::catalogue::MAP_KERNELS, &source.elem_c(), &map.output);
    m.finish(&format!("map_{}", source.tag()))
}
