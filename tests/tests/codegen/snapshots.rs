//! Snapshots of the CUDA generated for representative operations, one file each under
//! `codegen/snapshots/`: per module only what the user's code produced (the lowered functions,
//! the operation and stage structs, the kernel entry points), with the shared constants,
//! prelude and templates snapshotted once, separately (`shared`). A diff there shows every
//! change to the code generator, where it happens.
//! Update with `INSTA_UPDATE=always cargo test -p warp-tests --test snapshots` and review.

use warp_kernels::module::{shared_view, user_view};
use warp_runtime::prelude::*;

/// The snapshot of a module: its user-derived parts.
fn view(source: &str) -> String {
    user_view(source)
}

/// Float sum: shuffles, vector loads, the grid combine.
#[reduce(identity = 0.0)]
fn sum_f32(a: f32, b: f32) -> f32 {
    a + b
}

/// Integer sum: redux.sync on sm_80+.
#[reduce(identity = 0)]
fn sum_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}

/// Float max (NaN-ignoring fmaxf).
#[reduce(identity = f32::NEG_INFINITY)]
fn max_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}

/// Argmax over (value, index): a tuple struct, field-wise shuffles, a select.
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

/// Argmin over f64 with a 64-bit index: 64-bit values shuffle as two 32-bit pieces.
#[reduce(identity = (f64::INFINITY, u64::MAX))]
fn argmin_f64(a: (f64, u64), b: (f64, u64)) -> (f64, u64) {
    if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

/// A u8 min written as a select: recognised as redux min.
#[reduce(identity = u8::MAX)]
fn min_u8(a: u8, b: u8) -> u8 {
    if a < b { a } else { b }
}

/// The body language: let mut, compound assignment, match, casts, methods, wrapping integers.
#[reduce(identity = 0)]
fn mix_u16(a: u16, b: u16) -> u16 {
    let mut x = a ^ b.rotate_left(3);
    if x > 1000 {
        x = x.wrapping_mul(3);
    }
    let y = match b % 4 {
        0 => 1u16,
        1 | 2 => (b as f32 * 0.5).sqrt() as u16,
        _ => x.count_ones() as u16,
    };
    x.wrapping_add(y)
}

/// Bool or.
#[reduce(identity = false)]
fn any(a: bool, b: bool) -> bool {
    a || b
}

/// Float sum in the cooperative-groups style.
#[reduce(identity = 0.0, style = "cooperative_groups")]
fn cg_sum_f32(a: f32, b: f32) -> f32 {
    a + b
}

/// Argmax in the cooperative-groups style.
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX), style = "cooperative_groups")]
fn cg_argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}

#[test]
fn generated_cuda() {
    insta::assert_snapshot!("sum_f32", view(sum_f32.cuda_source()));
    insta::assert_snapshot!("sum_i32", view(sum_i32.cuda_source()));
    insta::assert_snapshot!("max_f32", view(max_f32.cuda_source()));
    insta::assert_snapshot!("argmax", view(argmax.cuda_source()));
    insta::assert_snapshot!("argmin_f64", view(argmin_f64.cuda_source()));
    insta::assert_snapshot!("min_u8", view(min_u8.cuda_source()));
    insta::assert_snapshot!("mix_u16", view(mix_u16.cuda_source()));
    insta::assert_snapshot!("any", view(any.cuda_source()));
    insta::assert_snapshot!("cg_sum_f32", view(cg_sum_f32.cuda_source()));
    insta::assert_snapshot!("cg_argmax", view(cg_argmax.cuda_source()));
}

/// The shared constants, prelude and templates, once.
#[test]
fn shared_cuda() {
    insta::assert_snapshot!("shared", shared_view());
}

/// Every module's snapshot is small: the shared text is not repeated in them.
#[test]
fn snapshots_hold_only_what_the_user_code_produced() {
    for src in [
        sum_f32.cuda_source(),
        argmin_f64.cuda_source(),
        mix_u16.cuda_source(),
        cg_argmax.cuda_source(),
    ] {
        let v = view(src);
        assert!(v.lines().count() <= 200, "{v}");
        assert!(!v.contains("wd_block_reduce"), "templates are shared: {v}");
        assert!(v.contains("// [shared: reduce.cuh]"));
    }
}

mod elements {
    //! Snapshots of the composed predicate and map-reduce modules (their kernels: votes,
    //! ballot counting, compaction with look-back, the fused map).
    use super::view;
    use warp_runtime::impl_::{argwhere_module, predicate_module, reduce_module};
    use warp_runtime::prelude::*;
    use warp_runtime::{Keeping, Mapped};

    #[predicate]
    fn positive(x: f32) -> bool {
        x > 0.0
    }

    #[predicate]
    fn in_range(x: i32, lo: i32, hi: i32) -> bool {
        x >= lo && x < hi
    }

    #[map]
    fn square(x: f32) -> f32 {
        x * x
    }

    #[reduce(identity = 0.0)]
    fn sum(a: f32, b: f32) -> f32 {
        a + b
    }

    #[test]
    fn composed_cuda() {
        insta::assert_snapshot!(
            "predicate_positive_f32",
            view(&predicate_module::<positive, DeviceVec<f32>>().source)
        );
        insta::assert_snapshot!(
            "predicate_in_range_i32",
            view(&predicate_module::<in_range_with, DeviceVec<i32>>().source)
        );
        insta::assert_snapshot!(
            "predicate_positive_over_square",
            view(&predicate_module::<positive, Mapped<'static, square>>().source)
        );
        insta::assert_snapshot!(
            "argwhere_positive_over_square_u32",
            view(&argwhere_module::<positive, Mapped<'static, square>, u32>().source)
        );
        insta::assert_snapshot!(
            "map_reduce_square_sum",
            view(&reduce_module::<sum, Mapped<'static, square>>().source)
        );
    }

    /// `|x - y| <= tol` over two zipped arrays.
    #[predicate(inputs = 2)]
    fn near(x: f32, y: u16, tol: f32) -> bool {
        (x - y as f32).abs() <= tol
    }

    /// A dot product's map.
    #[map(inputs = 2)]
    fn mul(x: f32, y: f32) -> f32 {
        x * y
    }

    #[test]
    fn zipped_cuda() {
        insta::assert_snapshot!(
            "predicate_near_zipped_keep_0",
            view(&predicate_module::<near_with, Keeping<'static, (f32, u16), 0>>().source)
        );
        insta::assert_snapshot!(
            "map_reduce_mul_sum_zipped",
            view(&reduce_module::<sum, Mapped<'static, mul>>().source)
        );
    }
}

mod axis {
    //! Snapshots of a composed scan/axis module (warp scan with `__shfl_up_sync`, look-back,
    //! rows, segments, columns through the `[32][33]` tile) and of a transpose module.
    use super::view;
    use warp_runtime::impl_::{axis_module, transpose_module};
    use warp_runtime::prelude::*;

    #[reduce(identity = 0)]
    fn add(a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }

    #[reduce(identity = 0.0)]
    fn sum(a: f32, b: f32) -> f32 {
        a + b
    }

    #[test]
    fn axis_cuda() {
        insta::assert_snapshot!(
            "axis_add_i32",
            view(&axis_module::<add, DeviceVec<i32>>().source)
        );
        // Float operators reduce a warp with shuffles (integers with redux.sync): the column
        // reduce that benches/probes/bank_conflicts profiles.
        insta::assert_snapshot!(
            "axis_sum_f32",
            view(&axis_module::<sum, DeviceVec<f32>>().source)
        );
        insta::assert_snapshot!("transpose_f32", view(&transpose_module::<f32>().source));
    }
}

mod histogram {
    //! Snapshots of histogram modules: the bin map lowered and called by `wd_bin_of` after the
    //! stage, the kernels; the pattern (`__match_any_sync`, shared bins) is in the shared
    //! snapshot's histogram.cuh.
    use super::view;
    use warp_runtime::EvenSample;
    use warp_runtime::impl_::{histogram_module, histogram_weighted_module};
    use warp_runtime::prelude::*;

    /// The byte itself.
    #[map]
    fn byte(x: u8) -> u32 {
        x as u32
    }

    #[test]
    fn histogram_cuda() {
        let m = histogram_module::<byte, DeviceVec<u8>>();
        assert!(m.source.contains("__match_any_sync(WD_FULL_MASK, b[k])"));
        insta::assert_snapshot!("histogram_byte_u8", view(&m.source));
        insta::assert_snapshot!(
            "histogram_even_f32",
            view(&histogram_module::<<f32 as EvenSample>::Even, DeviceVec<f32>>().source)
        );
        insta::assert_snapshot!(
            "histogram_weighted_byte_u8_f32",
            view(&histogram_weighted_module::<byte, DeviceVec<u8>, f32>().source)
        );
    }
}

mod runs {
    //! Snapshots of the runs modules (unique, run-length encode, reduce-by-key): what each
    //! module writes (the neighbour test `wd_same`, the stage, what the runs carry); the
    //! ballot run-head detection itself is runs.cuh, in the shared snapshot.
    use super::view;
    use warp_kernels::module::shared_view;
    use warp_runtime::Equal;
    use warp_runtime::impl_::{reduce_by_key_module, run_length_module, unique_module};
    use warp_runtime::prelude::*;

    /// Neighbours within `d` of each other are one run.
    #[predicate(inputs = 2)]
    fn near(a: i32, b: i32, d: i32) -> bool {
        (a - b).abs() <= d
    }

    #[reduce(identity = 0.0)]
    fn sum(a: f32, b: f32) -> f32 {
        a + b
    }

    #[test]
    fn runs_cuda() {
        insta::assert_snapshot!("unique_i32", view(&unique_module::<i32, Equal>().source));
        insta::assert_snapshot!(
            "run_length_i32_u32",
            view(&run_length_module::<i32, Equal, u32>().source)
        );
        insta::assert_snapshot!(
            "reduce_by_key_near_sum",
            view(&reduce_by_key_module::<i32, near_with<i32>, sum>().source)
        );
    }

    /// Run heads are found by comparing each key with its neighbour's and ranked by ballots;
    /// reduce-by-key's segmented warp scan takes its segment starts from a ballot (the ranks and
    /// the scan are warp.cuh's primitives).
    #[test]
    fn run_heads_are_ballots_of_neighbour_tests() {
        let shared = shared_view();
        assert!(shared.contains("__ballot_sync(WD_FULL_MASK, f[r * L::VEC + L::VEC - 1])"));
        assert!(shared.contains("31 - __clz(flags & (0xffffffffu >> (31u - lane)))"));
        assert!(shared.contains(
            "head[j] = valid(j) && ((!Whole && slot_index(j) == 0) || !wd_same(st.a, prev, key[j]));"
        ));
        assert!(shared.contains("wd_ballot_rank<L::VEC>(head, r * L::VEC, below)"));
        assert!(shared.contains("__ballot_sync(WD_FULL_MASK, f[at + k])"));
        let src = unique_module::<i32, Equal>().source;
        assert!(src.contains("return x == y;"), "{src}");
        let src = reduce_by_key_module::<i32, near_with<i32>, sum>().source;
        assert!(
            src.contains("return wd_pred(x, y, wd_arg<wd_i32>(a, 0));"),
            "{src}"
        );
    }
}

mod topk {
    //! Snapshots of the top-k modules (the stage over one array, the level kernel).
    use super::view;
    use warp_runtime::impl_::topk_module;

    #[test]
    fn topk_modules() {
        insta::assert_snapshot!("topk_f32", view(&topk_module::<f32>().source));
        insta::assert_snapshot!("topk_u64", view(&topk_module::<u64>().source));
    }
}

mod sort {
    //! A snapshot of a sort module's own part (the kernels' signatures over the key type).
    use super::view;
    use warp_runtime::impl_::{SortMoves, sort_module};

    #[test]
    fn sort_modules() {
        insta::assert_snapshot!(
            "sort_f32_pairs_u32",
            view(&sort_module::<f32>(SortMoves::Pairs(4)).source)
        );
    }
}

mod merge {
    //! Snapshots of merge sort modules' own parts (the comparator and the kernels), over
    //! scalar keys and over a struct compared whole.
    use super::view;
    use warp_runtime::impl_::{merge_module, merge_values_module};
    use warp_tests::ops::{Point, nearer_origin, residue_below_with};

    #[test]
    fn merge_modules() {
        insta::assert_snapshot!(
            "merge_u32_residue_below",
            view(&merge_module::<u32, residue_below_with<u32>>().source)
        );
        insta::assert_snapshot!(
            "merge_point_nearer_origin",
            view(&merge_values_module::<Point, nearer_origin>().source)
        );
    }
}

mod search {
    //! A snapshot of a search module's own part (the kernel's signature over the key and
    //! index types).
    use super::view;
    use warp_runtime::impl_::search_module;

    #[test]
    fn search_modules() {
        insta::assert_snapshot!("search_f32_u32", view(&search_module::<f32, u32>().source));
    }
}

mod ranges {
    //! Snapshots of reduce modules over a map of a generated range (the stage that makes the
    //! indices from the start, reading nothing) and over a map of a range zipped with an array.
    use super::view;
    use warp_runtime::impl_::{Generated, Stored, reduce_module};
    use warp_runtime::{Mapped, RangeMap};
    use warp_tests::ops::{add_u32, add_u64, index_times, pi_hit};

    #[test]
    fn range_modules() {
        insta::assert_snapshot!(
            "reduce_add_u32_pi_hit_range_u64",
            view(&reduce_module::<add_u32, RangeMap<'static, u64, pi_hit>>().source)
        );
        // A zip of a range with an array: the range's column made, the array's read.
        insta::assert_snapshot!(
            "reduce_add_u64_index_times_zip_range_u64_u32",
            view(
                &reduce_module::<add_u64, Mapped<'static, index_times, (Generated, Stored)>>()
                    .source
            )
        );
    }
}

mod gathers {
    //! A snapshot of a reduce module over a gather: the stage that reads each index, then the
    //! element it names, checked against the array's length.
    use super::view;
    use warp_runtime::Gathered;
    use warp_runtime::impl_::reduce_module;
    use warp_tests::ops::sum_f32;

    #[test]
    fn gather_modules() {
        insta::assert_snapshot!(
            "reduce_sum_f32_gather_u32_f32",
            view(&reduce_module::<sum_f32, Gathered<'static, f32, u32>>().source)
        );
    }
}

mod strides {
    //! A snapshot of a reduce module over a strided view: the stage that reads every
    //! `step`-th element.
    use super::view;
    use warp_runtime::Strided;
    use warp_runtime::impl_::reduce_module;
    use warp_tests::ops::sum_f32;

    #[test]
    fn strided_modules() {
        insta::assert_snapshot!(
            "reduce_sum_f32_strided_f32",
            view(&reduce_module::<sum_f32, Strided<'static, f32>>().source)
        );
    }
}

mod masked {
    //! A snapshot of a reduce module over a masked array: the mask's predicate in the stage,
    //! the identity where it fails.
    use super::view;
    use warp_runtime::impl_::reduce_module;
    use warp_runtime::{DeviceVec, Masked};
    use warp_tests::ops::{add_u64, multiple_of_with};

    #[test]
    fn masked_modules() {
        insta::assert_snapshot!(
            "reduce_add_u64_where_multiple_of",
            view(
                &reduce_module::<add_u64, Masked<'static, DeviceVec<u64>, multiple_of_with<u64>>>()
                    .source
            )
        );
    }
}

mod chains {
    //! A snapshot of a predicate module over a map of a map: `wd_map`, then `wd_map2`, then
    //! the predicate, each with its bound argument.
    use super::view;
    use warp_runtime::impl_::predicate_module;
    use warp_runtime::{Chained, Mapped};
    use warp_tests::ops::{add_k_with, scale_low_with, u32_multiple_of_with};

    #[test]
    fn chained_modules() {
        insta::assert_snapshot!(
            "predicate_multiple_of_over_scale_low_of_add_k",
            view(
                &predicate_module::<
                    u32_multiple_of_with<u32>,
                    Chained<Mapped<'static, add_k_with<u64>>, scale_low_with<u32>>,
                >()
                .source
            )
        );
    }
}

mod histogram_reduce {
    //! A snapshot of a histogram module whose weights a `#[reduce]` operator combines: the
    //! operator and the bin map before the stage.
    use super::view;
    use warp_runtime::DeviceVec;
    use warp_runtime::impl_::histogram_reduce_module;
    use warp_tests::ops::{key_bin_u32, max_i64};

    #[test]
    fn histogram_reduce_modules() {
        insta::assert_snapshot!(
            "histogram_max_i64_key_bin_u32_u32",
            view(&histogram_reduce_module::<max_i64, key_bin_u32, DeviceVec<u32>>().source)
        );
    }
}

mod scatter {
    //! A snapshot of a plain scatter module: the stage reads the indices.
    use super::view;
    use warp_runtime::impl_::scatter_module;

    #[test]
    fn scatter_modules() {
        insta::assert_snapshot!(
            "scatter_f32_u32",
            view(&scatter_module::<f32, u32>().source)
        );
    }
}

mod collect {
    //! A snapshot of a collect module: a generated range's indices mapped and written out.
    use super::view;
    use warp_runtime::RangeMap;
    use warp_runtime::impl_::collect_module;
    use warp_tests::ops::scale_low_with;

    #[test]
    fn collect_modules() {
        insta::assert_snapshot!(
            "collect_scale_low_range_u64",
            view(&collect_module::<RangeMap<'static, u64, scale_low_with<u32>>>().source)
        );
    }
}
