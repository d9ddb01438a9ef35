//! The catalogue against the CUDA: every kernel's parameter list matches the `extern "C"`
//! signature in the modules the assembler writes, every module holds exactly its family's
//! kernels, and the constants the runtime shares with the templates are defined only by the
//! catalogue. No GPU and no NVRTC needed.

use std::borrow::Cow;

use warp_kernels::catalogue::{self, Kernel};
use warp_kernels::module::{
    RunValues, TEMPLATES, axis_module, histogram_module, kernel_signatures, partition3_module,
    predicate_module, reduce_module, runs_module, topk_module, transpose_module,
};
use warp_kernels::{FnFragment, OpFragment, Pick, Redux, Scalar, Source, Style};

fn op(value: &'static str) -> OpFragment<'static> {
    OpFragment {
        name: Cow::Borrowed("op"),
        file: Cow::Borrowed("test.rs"),
        line: 1,
        value: Cow::Borrowed(value),
        combine: Cow::Borrowed(
            "static __device__ __forceinline__ wd_f32 WD_FRAGMENT_FN(wd_f32 a, wd_f32 b) { return a + b; }\n",
        ),
        identity: Cow::Borrowed(
            "static __device__ __forceinline__ wd_f32 WD_FRAGMENT_FN() { return 0.0f; }\n",
        ),
        type_support: Cow::Borrowed(""),
        redux: None,
        f32_sum: value == "wd_f32",
        style: Style::Intrinsics,
    }
}

const MAP: FnFragment<'static> = FnFragment {
    name: Cow::Borrowed("m"),
    file: Cow::Borrowed("test.rs"),
    line: 2,
    text: Cow::Borrowed(
        "static __device__ __forceinline__ wd_f32 WD_FRAGMENT_FN(wd_u8 x, wd_f32 k) { return k; }\n",
    ),
    type_support: Cow::Borrowed(""),
    output: Cow::Borrowed("wd_f32"),
    input: Cow::Borrowed("wd_u8"),
    inputs: 1,
    extras: Cow::Borrowed(&[Scalar::F32]),
};

/// The signatures of `source` are exactly `kernels`, with the parameter types of their
/// catalogue entries rendered for elements `elem` and values `value`.
fn check(source: &str, kernels: &[&Kernel], elem: &str, value: &str) {
    let found = kernel_signatures(source);
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    let want: Vec<&str> = kernels.iter().map(|k| k.name).collect();
    assert_eq!(names, want, "the module's kernels");
    for ((name, params), k) in found.iter().zip(kernels) {
        let want: Vec<String> = k.param_types().map(|t| t.c_type(elem, value)).collect();
        assert_eq!(params, &want, "the parameters of {name}");
    }
}

#[test]
fn reduction_modules_match_the_catalogue() {
    let o = op("wd_f32");
    check(
        &reduce_module(&o, Some(&Source::Plain(&[Scalar::F32]))),
        catalogue::REDUCE_KERNELS,
        "wd_f32",
        "wd_f32",
    );
    let map = Source::Map {
        elem: &[Scalar::U8],
        map: &MAP,
    };
    check(
        &reduce_module(&o, Some(&map)),
        catalogue::REDUCE_KERNELS,
        "wd_u8",
        "wd_f32",
    );
    check(&reduce_module(&o, None), &[], "", "");
}

#[test]
fn predicate_modules_match_the_catalogue() {
    let pred = FnFragment {
        name: Cow::Borrowed("p"),
        text: Cow::Borrowed(
            "static __device__ __forceinline__ bool WD_FRAGMENT_FN(wd_f32 x) { return x > 0.0f; }\n",
        ),
        output: Cow::Borrowed("bool"),
        input: Cow::Borrowed("wd_f32"),
        extras: Cow::Borrowed(&[]),
        ..MAP
    };
    let zipped = FnFragment {
        text: Cow::Borrowed(
            "static __device__ __forceinline__ bool WD_FRAGMENT_FN(wd_f32 x, wd_u16 y) { return x > 0.0f; }\n",
        ),
        inputs: 2,
        ..pred.clone()
    };
    for (source, pick) in [
        (Source::Plain(&[Scalar::F32, Scalar::U16]), Pick::Field(1)),
        (Source::Plain(&[Scalar::F32, Scalar::U16]), Pick::Value),
        (
            Source::Plain(&[Scalar::F32, Scalar::U16]),
            Pick::Position(Scalar::U64),
        ),
    ] {
        let src = predicate_module(&zipped, &source, pick);
        check(
            &src,
            catalogue::PREDICATE_KERNELS,
            &source.elem_c(),
            "wd_stage::out_t",
        );
        assert!(src.contains("wd_pred(v.f0, v.f1)"), "{src}");
        let out = match pick {
            Pick::Value => "typedef value_t out_t;",
            Pick::Field(_) => "typedef wd_u16 out_t;",
            Pick::Position(_) => "typedef wd_u64 out_t;",
        };
        assert!(src.contains(out), "{src}");
    }
    let src = partition3_module(&pred, &zipped, &Source::Plain(&[Scalar::F32]), Pick::Value);
    check(
        &src,
        catalogue::PARTITION3_KERNELS,
        "wd_f32",
        "wd_stage::out_t",
    );
    assert!(
        src.contains("bool keep2(value_t v) const { return wd_pred2(v.f0, v.f1); }"),
        "{src}"
    );
    for source in [
        Source::Plain(&[Scalar::F32]),
        Source::Map {
            elem: &[Scalar::U8],
            map: &MAP,
        },
    ] {
        check(
            &predicate_module(&pred, &source, Pick::Value),
            catalogue::PREDICATE_KERNELS,
            &source.elem_c(),
            "wd_stage::out_t",
        );
    }
}

#[test]
fn axis_and_transpose_modules_match_the_catalogue() {
    check(
        &axis_module(&op("wd_f32"), &Source::Plain(&[Scalar::F32])),
        catalogue::AXIS_KERNELS,
        "wd_f32",
        "wd_f32",
    );
    check(
        &axis_module(
            &op("wd_tuple_f32_u32"),
            &Source::Indexed {
                elem: Scalar::F32,
                index: Scalar::U32,
            },
        ),
        catalogue::AXIS_KERNELS,
        "wd_f32",
        "wd_tuple_f32_u32",
    );
    for e in [Scalar::U8, Scalar::F64] {
        check(
            &transpose_module(e),
            catalogue::TRANSPOSE_KERNELS,
            e.c_name(),
            e.c_name(),
        );
    }
}

#[test]
fn histogram_modules_match_the_catalogue() {
    const BIN: FnFragment<'static> = FnFragment {
        name: Cow::Borrowed("bin"),
        file: Cow::Borrowed("test.rs"),
        line: 3,
        text: Cow::Borrowed(
            "static __device__ __forceinline__ wd_i32 WD_FRAGMENT_FN(wd_f32 x, wd_u32 k) { return (wd_i32)k; }\n",
        ),
        type_support: Cow::Borrowed(""),
        output: Cow::Borrowed("wd_i32"),
        input: Cow::Borrowed("wd_f32"),
        inputs: 1,
        extras: Cow::Borrowed(&[Scalar::U32]),
    };
    for source in [
        Source::Plain(&[Scalar::F32]),
        Source::Map {
            elem: &[Scalar::U8],
            map: &MAP,
        },
    ] {
        let src = histogram_module(&BIN, &source, None);
        check(
            &src,
            catalogue::HISTOGRAM_KERNELS,
            &source.elem_c(),
            "wd_stage::out_t",
        );
        for w in [Scalar::F32, Scalar::I64] {
            let weighted = histogram_module(&BIN, &source, Some(w));
            check(
                &weighted,
                catalogue::HISTOGRAM_WEIGHTED_KERNELS,
                &source.elem_c(),
                w.c_name(),
            );
        }
        // The bin's bound argument comes after the map's.
        let first = match source {
            Source::Map { .. } => 1,
            _ => 0,
        };
        assert!(
            src.contains(&format!("return wd_bin(v, wd_arg<wd_u32>(a, {first}));")),
            "{src}"
        );
    }
}

#[test]
fn runs_modules_match_the_catalogue() {
    const SAME: FnFragment<'static> = FnFragment {
        name: Cow::Borrowed("same"),
        file: Cow::Borrowed("test.rs"),
        line: 3,
        text: Cow::Borrowed(
            "static __device__ __forceinline__ bool WD_FRAGMENT_FN(wd_i16 a, wd_i16 b, wd_f32 t) { return a == b; }\n",
        ),
        type_support: Cow::Borrowed(""),
        output: Cow::Borrowed("bool"),
        input: Cow::Borrowed("wd_i16"),
        inputs: 2,
        extras: Cow::Borrowed(&[Scalar::F32]),
    };
    let o = op("wd_f32");
    for (values, value) in [
        (RunValues::None, "wd_u8"),
        (RunValues::Counts(Scalar::U32), "wd_u32"),
        (RunValues::Counts(Scalar::U64), "wd_u64"),
        (
            RunValues::Reduce(&o, Source::Plain(&[Scalar::F32])),
            "wd_f32",
        ),
    ] {
        for same in [None, Some(&SAME)] {
            let src = runs_module(Scalar::I16, same, values);
            check(&src, catalogue::RUNS_KERNELS, "wd_i16", value);
            let test = if same.is_some() {
                "return wd_pred(x, y, wd_arg<wd_f32>(a, 0));"
            } else {
                "return x == y;"
            };
            assert!(src.contains(test), "{src}");
        }
    }
}

#[test]
fn a_drifted_signature_is_caught() {
    let src = reduce_module(&op("wd_f32"), Some(&Source::Plain(&[Scalar::F32])));
    let drifted = src.replace("wd_args a, wd_f32* partials", "wd_f32* partials, wd_args a");
    let result =
        std::panic::catch_unwind(|| check(&drifted, catalogue::REDUCE_KERNELS, "wd_f32", "wd_f32"));
    assert!(result.is_err(), "swapped parameters must fail the check");
}

#[test]
fn shared_constants_are_defined_by_the_catalogue_only() {
    for (file, text) in TEMPLATES {
        for (name, _) in catalogue::all_defines() {
            assert!(
                !text.contains(&format!("#define {name} ")),
                "{file} defines {name}, which the catalogue owns"
            );
        }
        for r in [None, Some(Redux::Add)] {
            let c = Redux::c_const(r);
            assert!(
                !text.contains(&format!("#define {c} ")),
                "{file} defines {c}"
            );
        }
    }
    let defines = catalogue::defines();
    assert!(defines.contains(&format!("#define WD_BLOCK {}\n", catalogue::BLOCK)));
    assert!(defines.contains(&format!(
        "#define WD_STOP_STRIDE {}\n",
        catalogue::STOP_STRIDE
    )));
    assert!(defines.contains("#define WD_REDUX_XOR 6\n"));
}

#[test]
fn topk_modules_match_the_catalogue() {
    for e in [
        Scalar::U8,
        Scalar::F32,
        Scalar::F64,
        Scalar::BF16,
        Scalar::Bool,
    ] {
        check(
            &topk_module(e),
            catalogue::TOPK_KERNELS,
            e.c_name(),
            e.c_name(),
        );
    }
}
