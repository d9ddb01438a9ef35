//! The kernel families, each one file: its catalogue kernels, its constants (its slice of the
//! emitted `#define`s) and its module function. [`FAMILIES`] is the one list of them: the
//! catalogue's [`all`](crate::catalogue::all) and [`defines`](crate::catalogue::defines) read it,
//! and a test checks it against the files here, the templates and the runtime's backends.

pub mod axes;
pub mod group;
pub mod histogram;
pub mod map;
pub mod merge;
pub mod predicates;
pub mod reduce;
pub mod runs;
pub mod scans;
pub mod search;
pub mod sort;
pub mod topk;

use crate::catalogue::Kernel;

/// One family of kernels.
#[derive(Debug)]
pub struct Family {
    /// Its name: the name of its file here (`family/<name>.rs`).
    pub name: &'static str,
    /// Its kernels (each in exactly one family).
    pub kernels: &'static [&'static Kernel],
    /// Its constants, as (define, value).
    pub defines: &'static [(&'static str, u64)],
    /// The template (in `templates/`) that holds its agent-level patterns.
    pub template: &'static str,
    /// The family whose module function assembles these kernels: its own, or, for the scans,
    /// the axes' (one module holds a reduction operator's scans and axis reductions).
    pub module: &'static str,
}

/// Every family, in the order their constants are emitted.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "reduce",
        kernels: reduce::REDUCE_KERNELS,
        defines: reduce::REDUCE_DEFINES,
        template: "reduce.cuh",
        module: "reduce",
    },
    Family {
        name: "predicates",
        kernels: predicates::PREDICATE_FAMILY_KERNELS,
        defines: predicates::PREDICATE_DEFINES,
        template: "predicate.cuh",
        module: "predicates",
    },
    Family {
        name: "scans",
        kernels: scans::SCAN_KERNELS,
        defines: scans::SCAN_DEFINES,
        template: "scan.cuh",
        module: "axes",
    },
    Family {
        name: "runs",
        kernels: runs::RUNS_KERNELS,
        defines: runs::RUNS_DEFINES,
        template: "runs.cuh",
        module: "runs",
    },
    Family {
        name: "map",
        kernels: map::MAP_FAMILY_KERNELS,
        defines: map::MAP_DEFINES,
        template: "map.cuh",
        module: "map",
    },
    Family {
        name: "histogram",
        kernels: histogram::HISTOGRAM_FAMILY_KERNELS,
        defines: histogram::HISTOGRAM_DEFINES,
        template: "histogram.cuh",
        module: "histogram",
    },
    Family {
        name: "axes",
        kernels: axes::AXIS_FAMILY_KERNELS,
        defines: axes::AXIS_DEFINES,
        template: "axis.cuh",
        module: "axes",
    },
    Family {
        name: "topk",
        kernels: topk::TOPK_KERNELS,
        defines: topk::TOPK_DEFINES,
        template: "topk.cuh",
        module: "topk",
    },
    Family {
        name: "sort",
        kernels: sort::SORT_KERNELS,
        defines: sort::SORT_DEFINES,
        template: "sort.cuh",
        module: "sort",
    },
    Family {
        name: "merge",
        kernels: merge::MERGE_KERNELS,
        defines: merge::MERGE_DEFINES,
        template: "merge.cuh",
        module: "merge",
    },
    Family {
        name: "group",
        kernels: group::GROUP_KERNELS,
        defines: group::GROUP_DEFINES,
        template: "group.cuh",
        module: "group",
    },
    Family {
        name: "search",
        kernels: search::SEARCH_KERNELS,
        defines: search::SEARCH_DEFINES,
        template: "search.cuh",
        module: "search",
    },
];
