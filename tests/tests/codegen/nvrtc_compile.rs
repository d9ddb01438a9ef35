//! Every generated kernel compiles with NVRTC for sm_75, sm_80 and sm_90, and the PTX holds
//! the intended warp instructions. Runs in CI (no GPU needed, only NVRTC). Without NVRTC the
//! test fails when WARP_REQUIRE_NVRTC=1 (as the test script sets), else it is skipped loudly.

use warp_kernels::catalogue;
use warp_runtime::impl_::OpMeta;
use warp_runtime::prelude::*;
use warp_runtime::toolchain::{self, ModuleSource, Origin};
use warp_runtime::{ReduceOp, Settings};
use warp_tests::events::Capture;

#[reduce(identity = 0.0)]
fn sum_f32(a: f32, b: f32) -> f32 {
    a + b
}
#[reduce(identity = 0)]
fn sum_i32(a: i32, b: i32) -> i32 {
    a + b
}
#[reduce(identity = 0)]
fn sum_u8(a: u8, b: u8) -> u8 {
    a.wrapping_add(b)
}
#[reduce(identity = u32::MAX)]
fn min_u32(a: u32, b: u32) -> u32 {
    a.min(b)
}
#[reduce(identity = i16::MIN)]
fn max_i16(a: i16, b: i16) -> i16 {
    if a > b { a } else { b }
}
#[reduce(identity = 0)]
fn or_u32(a: u32, b: u32) -> u32 {
    a | b
}
#[reduce(identity = 0)]
fn sum_i64(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}
#[reduce(identity = 0.0)]
fn sum_f64(a: f64, b: f64) -> f64 {
    a + b
}
#[reduce(identity = f32::NEG_INFINITY)]
fn max_f32(a: f32, b: f32) -> f32 {
    a.max(b)
}
#[reduce(identity = false)]
fn any_b(a: bool, b: bool) -> bool {
    a | b
}
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}
#[reduce(identity = (f64::INFINITY, u64::MAX))]
fn argmin_f64(a: (f64, u64), b: (f64, u64)) -> (f64, u64) {
    if b.0 < a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}
#[reduce(identity = (0.0, 0.0, 0))]
fn moments(a: (f64, f64, u64), b: (f64, f64, u64)) -> (f64, f64, u64) {
    (a.0 + b.0, a.1 + b.1, a.2 + b.2)
}
#[reduce(identity = 0)]
fn body_language(a: u16, b: u16) -> u16 {
    let mut x = a ^ b.rotate_left(3);
    if x > 1000 {
        x = x.wrapping_mul(3);
    }
    let y = match b % 4 {
        0 => 1u16,
        1 | 2 => (b as f32 * 0.5).sqrt() as u16,
        _ => x.count_ones() as u16,
    };
    let f = (a as f64).mul_add(0.25, -1.5).clamp(-10.0, 10.0);
    x.wrapping_add(y) ^ ((f.is_nan() as u16) << 15) ^ (f as i8 as u16)
}

#[reduce(identity = 0.0, style = "cooperative_groups")]
fn cg_sum_f32(a: f32, b: f32) -> f32 {
    a + b
}
#[reduce(identity = 0, style = "cg")]
fn cg_sum_i32(a: i32, b: i32) -> i32 {
    a.wrapping_add(b)
}
#[reduce(identity = (f32::NEG_INFINITY, u32::MAX), style = "cooperative_groups")]
fn cg_argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
        b
    } else {
        a
    }
}
#[reduce(identity = 0, style = "cooperative_groups")]
fn cg_sum_u64(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

/// (metadata, instructions its PTX must hold on sm_80+)
fn all() -> Vec<(OpMeta, &'static [&'static str])> {
    vec![
        (sum_f32::META, &["shfl.sync.down"]),
        (sum_i32::META, &["redux.sync.add"]),
        (sum_u8::META, &["redux.sync.add"]),
        (min_u32::META, &["redux.sync.min.u32"]),
        (max_i16::META, &["redux.sync.max.s32"]),
        (or_u32::META, &["redux.sync.or"]),
        (sum_i64::META, &["shfl.sync.down"]),
        (sum_f64::META, &["shfl.sync.down"]),
        (max_f32::META, &["shfl.sync.down"]),
        (any_b::META, &["shfl.sync.down"]),
        (argmax::META, &["shfl.sync.down"]),
        (argmin_f64::META, &["shfl.sync.down"]),
        (moments::META, &[]),
        (body_language::META, &["shfl.sync.down"]),
        (cg_sum_f32::META, &["shfl.sync"]),
        (cg_sum_i32::META, &["redux.sync.add"]),
        (cg_argmax::META, &["shfl.sync"]),
        (cg_sum_u64::META, &["shfl.sync"]),
        // The NaN-propagating argmax and argmin (README) and the edge-semantics operators.
        (warp_tests::ops::argmax_f32::META, &["shfl.sync.down"]),
        (warp_tests::ops::argmin_f64::META, &["shfl.sync.down"]),
        (warp_tests::edge_ops::add_i32::META, &["redux.sync.add"]),
        (warp_tests::edge_ops::add_u8::META, &["redux.sync.add"]),
        (warp_tests::edge_ops::mul_i64::META, &["shfl.sync.down"]),
        (warp_tests::edge_ops::sub_neg_u16::META, &[]),
    ]
}

/// The kernels that spill registers on sm_90 (NVRTC 13.0, the test command's), with the most
/// bytes of spill stores ptxas gave any module of theirs (2026-12-05): a spill is a local-memory
/// store and load a thread, so these may shrink, never grow, and no other kernel may spill.
/// `toolchain::resources` shows a module's.
const KNOWN_SPILLS: &[(&str, u32)] = &[
    ("wd_k_cols", 16),
    ("wd_k_cols_unpadded", 16),
    ("wd_k_compact", 24),
    ("wd_k_count", 4),
    ("wd_k_histogram", 568), // `histogram_even` of u8
    ("wd_k_histogram_reduce", 48),
    ("wd_k_mask", 8),
    ("wd_k_merge_block_sort", 48),
    ("wd_k_merge_block_sort_keys", 20),
    ("wd_k_merge_pass", 16),
    ("wd_k_merge_pass_keys", 24), // 2026-12-06: the branch-free serial merge
    ("wd_k_merge4_pass_keys", 104), // (u16, f64, u8) tuples by a bound comparator; 2026-12-06
    ("wd_k_reduce", 8),
    ("wd_k_runs", 490), // reduce_by_key
    ("wd_k_scan", 24),
    ("wd_k_scan_cols", 8),
    ("wd_k_sort_pass", 20), // u64 keys with 4-byte values (2026-12-07); keys-only u32 16
    ("wd_k_sort_rows_warp", 16),
    ("wd_k_topk", 16),
    ("wd_k_topk_rows", 12),
];

/// Every module compiles for sm_75, sm_80 and sm_90 with no local memory in its PTX (stack
/// arrays) and no more register spills than [`KNOWN_SPILLS`] allows, and its PTX holds each of
/// its wanted instructions.
fn compile_all_with(modules: Vec<(ModuleSource, &'static [&'static str])>) {
    for (m, wanted) in modules {
        for arch in [75u32, 80, 90] {
            let ptx = toolchain::ptx(&m, arch, &Settings::new()).unwrap_or_else(|e| panic!("{e}"));
            for w in wanted {
                assert!(ptx.contains(w), "{} sm_{arch}: PTX lacks `{w}`", m.name);
            }
            assert!(
                !ptx.contains(".local"),
                "{} sm_{arch}: local memory (spills or stack arrays)",
                m.name
            );
        }
        // Through ptxas as well, which enforces the resource limits (48 KB of static shared
        // memory per block, registers) that PTX alone does not.
        // And no kernel spills more registers than it did when this was written: ptxas' spill
        // stores, kernel by kernel, within KNOWN_SPILLS (none for a kernel not listed).
        let kernels = toolchain::resources(&m, 90, &Settings::new())
            .unwrap_or_else(|e| panic!("{} sm_90 cubin: {e}", m.name));
        assert!(!kernels.is_empty(), "{}: ptxas reported no kernel", m.name);
        for k in &kernels {
            let budget = KNOWN_SPILLS
                .iter()
                .find(|(name, _)| *name == k.kernel)
                .map_or(0, |&(_, bytes)| bytes);
            assert!(
                k.spill_store_bytes <= budget,
                "{} {}: {} bytes of register spill stores on sm_90, above its {budget} ({k:?})",
                m.name,
                k.kernel,
                k.spill_store_bytes
            );
        }
    }
}

#[test]
fn every_kernel_compiles_for_sm75_sm80_sm90() {
    if !warp_tests::nvrtc_available() {
        return;
    }
    for (meta, wanted) in all() {
        let name = meta.fragment.name.clone();
        for arch in [75u32, 80, 90] {
            let ptx = toolchain::ptx(&meta.module(), arch, &Settings::new())
                .unwrap_or_else(|e| panic!("{e}"));
            let has_kernel = meta.source.contains("\nwd_k_reduce(");
            assert_eq!(
                ptx.contains(".entry wd_k_reduce("),
                has_kernel,
                "{name}: kernel for sm_{arch}"
            );
            if !has_kernel {
                // A tuple operator with no array source (reduced through maps and axes).
                continue;
            }
            assert!(
                ptx.contains("shfl.sync") || (arch >= 80 && ptx.contains("redux.sync")),
                "{name} sm_{arch}: no warp exchange"
            );
            assert!(
                ptx.contains("ld.global.cs.v4")
                    || ptx.contains("ld.global.cs.v4.u32")
                    || ptx.contains("ld.global.cs.v4.b32"),
                "{name} sm_{arch}: no 16-byte vector load"
            );
            if arch >= 80 {
                for w in wanted {
                    assert!(ptx.contains(w), "{name} sm_{arch}: PTX lacks `{w}`");
                }
            } else {
                assert!(
                    !ptx.contains("redux.sync"),
                    "{name}: redux.sync does not exist on sm_75"
                );
                assert!(ptx.contains("shfl.sync"), "{name} sm_75: shuffles expected");
            }
        }
    }
}

#[test]
fn redux_is_chosen_only_where_exact() {
    use warp_kernels::Redux;
    assert_eq!(sum_i32::META.fragment.redux, Some(Redux::Add));
    assert_eq!(max_i16::META.fragment.redux, Some(Redux::Max));
    assert_eq!(min_u32::META.fragment.redux, Some(Redux::Min));
    assert_eq!(sum_i64::META.fragment.redux, None, "64-bit: no redux");
    assert_eq!(sum_f32::META.fragment.redux, None, "floats: no redux");
    assert_eq!(any_b::META.fragment.redux, None, "bool: no redux");
}

#[test]
fn cubin_compiles_and_is_cached_on_disk() {
    if !warp_tests::nvrtc_available() {
        return;
    }
    let dir = tempfile_dir();
    // The folder from code: it wins over the WARP_CACHE_DIR the test script sets, and the
    // cache is on whatever WARP_CACHE says.
    let settings = Settings::new().cache(true).cache_dir(&dir);
    let cubin = || toolchain::cubin(&argmax::META.module(), 90, &settings).unwrap();
    let ((img, origin), events) = Capture::run(cubin);
    assert_eq!(origin, Origin::Compiled);
    assert!(img.starts_with(b"\x7fELF"), "a CUBIN is an ELF image");
    let messages: Vec<&str> = events.iter().map(|e| e.message()).collect();
    assert_eq!(
        messages,
        ["kernel cache miss", "compiled with NVRTC"],
        "{events:?}"
    );
    for e in &events {
        assert_eq!(e.get("span"), Some("warp_dsl.compile"), "{e:?}");
        assert_eq!(e.get("op"), Some("argmax"), "{e:?}");
        assert!(
            e.get("location")
                .is_some_and(|l| l.contains("nvrtc_compile.rs:")),
            "{e:?}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "one file in the folder set in code"
    );
    let ((img2, origin2), events) = Capture::run(cubin);
    assert_eq!(origin2, Origin::DiskCache);
    assert_eq!(img, img2);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].message(), "kernel cache hit");
    // A corrupt file is recompiled, not trusted.
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let mut bytes = std::fs::read(e.path()).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(e.path(), bytes).unwrap();
    }
    let ((img3, origin3), events) = Capture::run(cubin);
    assert_eq!(origin3, Origin::Compiled);
    assert_eq!(img, img3);
    assert!(
        events[0].level == tracing::Level::WARN
            && events[0].message().starts_with("kernel cache repair"),
        "{events:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// NVRTC is loaded once per process: a compile whose settings name another library is the
/// setting's typed error, never a compile with the library loaded; one naming the loaded
/// library's folder compiles.
#[test]
fn another_nvrtc_path_after_the_first_load_is_a_setting_error() {
    if !warp_tests::nvrtc_available() {
        return; // (it loads NVRTC)
    }
    let m = argmax::META.module();
    let elsewhere = Settings::new()
        .nvrtc_path(std::env::temp_dir())
        .cache(false);
    let conflict = |r: Result<(), warp_runtime::Error>| match r {
        Err(
            e @ warp_runtime::Error::Setting {
                var: "WARP_NVRTC_PATH",
                ..
            },
        ) => assert!(e.to_string().contains("once per process"), "{e}"),
        other => panic!("{other:?}"),
    };
    conflict(toolchain::ptx(&m, 90, &elsewhere).map(drop));
    conflict(toolchain::cubin(&m, 90, &elsewhere).map(drop));
    if let Some(dir) = std::env::var_os("WARP_NVRTC_PATH") {
        let same = Settings::new().nvrtc_path(dir);
        assert!(toolchain::ptx(&m, 90, &same).is_ok());
    }
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("warp-dsl-test-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn nvrtc_errors_name_the_rust_function_and_line() {
    if !warp_tests::nvrtc_available() {
        return;
    }
    // A generated source with a (simulated) kernels-gen bug inside the lowered user function.
    let module = ModuleSource {
        name: "broken".into(),
        location: "src/user.rs:41".into(),
        source: "static __device__ int wd_fn_broken(int a, int b) {\n#line 42 \"src/user.rs\"\n    return a + undefined_name;\n}\nextern \"C\" __global__ void k() {}\n".into(),
        needs_cuda_headers: false,
    };
    let err = toolchain::ptx(&module, 90, &Settings::new()).expect_err("the source is broken");
    let text = err.to_string();
    assert!(matches!(err, warp_runtime::Error::Compile { .. }));
    assert!(
        text.contains("`broken` (defined at src/user.rs:41)"),
        "{text}"
    );
    assert!(
        text.contains("src/user.rs(42)"),
        "the log points at the Rust line: {text}"
    );
    assert!(text.contains("undefined_name"), "{text}");
    assert!(
        text.contains("    3 |     return a + undefined_name;"),
        "numbered source: {text}"
    );
    assert!(
        text.contains("--gpu-architecture=compute_90"),
        "options: {text}"
    );
}

mod elements {
    //! The composed predicate and map-reduce modules compile, with votes, ballots and popc.
    use super::*;
    use warp_runtime::impl_::{argwhere_module, predicate_module, reduce_module};
    use warp_runtime::{DeviceVec, Mapped};

    #[predicate]
    fn positive(x: f32) -> bool {
        x > 0.0
    }
    #[predicate]
    fn between(x: i16, lo: i16, hi: i16) -> bool {
        x >= lo && x <= hi
    }
    #[predicate]
    fn big_norm(v: (f32, f32), t: f32) -> bool {
        v.0 * v.0 + v.1 * v.1 > t
    }
    #[map]
    fn square(x: f32) -> f32 {
        x * x
    }
    #[map]
    fn pair(x: f32, k: f32) -> (f32, f32) {
        (x, x * k)
    }
    #[map]
    fn widen(x: u8) -> u64 {
        x as u64
    }

    fn all() -> Vec<ModuleSource> {
        vec![
            predicate_module::<positive, DeviceVec<f32>>(),
            predicate_module::<between_with, DeviceVec<i16>>(),
            predicate_module::<positive, Mapped<'static, square>>(),
            predicate_module::<big_norm_with, Mapped<'static, pair_with>>(),
            argwhere_module::<positive, DeviceVec<f32>, u32>(),
            argwhere_module::<big_norm_with, Mapped<'static, pair_with>, u64>(),
            reduce_module::<sum_f32, Mapped<'static, square>>(),
            reduce_module::<sum_u64_op, Mapped<'static, widen>>(),
        ]
    }

    #[reduce(identity = 0)]
    fn sum_u64_op(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }

    #[test]
    fn composed_modules_compile_with_votes() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        for m in all() {
            for arch in [75u32, 80, 90] {
                let ptx =
                    toolchain::ptx(&m, arch, &Settings::new()).unwrap_or_else(|e| panic!("{e}"));
                let meta = &m;
                if meta.source.contains("wd_k_count(") {
                    for k in catalogue::PREDICATE_KERNELS {
                        assert!(
                            ptx.contains(&format!(".entry {}(", k.name)),
                            "{} sm_{arch}: {}",
                            meta.name,
                            k.name
                        );
                    }
                    for w in ["vote.sync.ballot", "vote.sync.any", "popc", "shfl.sync"] {
                        assert!(ptx.contains(w), "{} sm_{arch}: PTX lacks `{w}`", meta.name);
                    }
                } else {
                    assert!(ptx.contains(".entry wd_k_reduce("), "{}", meta.name);
                    assert!(
                        ptx.contains("ld.global.cs.v4"),
                        "{}: fused map reads 16 bytes at a time",
                        meta.name
                    );
                }
            }
        }
    }
}

mod axis {
    //! The composed scan/axis modules and the transpose modules compile for every architecture,
    //! with the warp scan's `shfl.sync.up`, every entry point present, and no local memory.
    use super::*;
    use warp_runtime::impl_::{axis_module, transpose_module};
    use warp_runtime::{DeviceVec, Indexed, Mapped};

    #[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
    fn argmax_u32(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
        if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
            b
        } else {
            a
        }
    }
    #[reduce(identity = 0)]
    fn add_u64(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[map]
    fn widen(x: u8, s: u32) -> u64 {
        (x as u64) << s
    }

    fn all() -> Vec<ModuleSource> {
        vec![
            axis_module::<sum_f32, DeviceVec<f32>>(),
            axis_module::<sum_i32, DeviceVec<i32>>(),
            axis_module::<sum_u8, DeviceVec<u8>>(),
            axis_module::<max_i16, DeviceVec<i16>>(),
            axis_module::<sum_f64, DeviceVec<f64>>(),
            axis_module::<argmax_u32, Indexed<'static, f32>>(),
            axis_module::<add_u64, Mapped<'static, widen_with>>(),
            transpose_module::<f32>(),
            transpose_module::<u8>(),
            transpose_module::<f64>(),
        ]
    }

    #[test]
    fn axis_modules_compile_with_shfl_up() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        for m in all() {
            let meta = &m;
            for arch in [75u32, 80, 90] {
                let ptx =
                    toolchain::ptx(meta, arch, &Settings::new()).unwrap_or_else(|e| panic!("{e}"));
                let kernels = if meta.name.starts_with("transpose") {
                    catalogue::TRANSPOSE_KERNELS
                } else {
                    assert!(
                        ptx.contains("shfl.sync.up"),
                        "{} sm_{arch}: the warp scan uses shfl.sync.up",
                        meta.name
                    );
                    catalogue::AXIS_KERNELS
                };
                for k in kernels {
                    assert!(
                        ptx.contains(&format!(".entry {}(", k.name)),
                        "{} sm_{arch}: {}",
                        meta.name,
                        k.name
                    );
                }
                assert!(
                    !ptx.contains(".local"),
                    "{} sm_{arch}: local memory (spills or stack arrays)",
                    meta.name
                );
            }
        }
    }
}

mod zipped {
    //! Modules over zipped arrays compile for every architecture, with a vector load of every
    //! array (16 bytes of the widest) and no local memory.
    use super::*;
    use warp_runtime::impl_::{
        axis_module, map_module, partition3_module, predicate_module, reduce_module,
    };
    use warp_runtime::{DeviceVec, Keeping, Mapped};
    use warp_tests::ops::{
        below, close_with, flagged_with, mixed, mixed_of, moments, moments_one, mul,
        second_above_with, sq_diff, sum_f32 as sum, sum_f64, sum_pairs, welford, welford_one,
    };

    type Pair<'a> = (&'a DeviceVec<f32>, &'a DeviceVec<f32>);

    fn all() -> Vec<(ModuleSource, &'static [&'static str])> {
        let v4: &[&str] = &["ld.global.cs.v4"];
        vec![
            (reduce_module::<sum, Mapped<'static, mul>>(), v4),
            (reduce_module::<sum, Mapped<'static, sq_diff>>(), v4),
            (
                reduce_module::<sum_f64, Mapped<'static, mixed>>(),
                &[
                    "ld.global.cs.v4",
                    "ld.global.cs.v2",
                    "ld.global.cs.u32",
                    "ld.global.cs.u16",
                ],
            ),
            (
                reduce_module::<sum_pairs, (&'static DeviceVec<i32>, &'static DeviceVec<i32>)>(),
                v4,
            ),
            (predicate_module::<close_with, Pair<'static>>(), v4),
            (
                predicate_module::<second_above_with, Keeping<'static, (f32, f32), 0>>(),
                v4,
            ),
            (
                predicate_module::<below, (&'static DeviceVec<i32>, &'static DeviceVec<u8>)>(),
                &[],
            ),
            (map_module::<mul>(), &[]),
            (map_module::<warp_tests::edge_ops::int_ops>(), &[]),
            (map_module::<warp_tests::edge_ops::narrow_ops>(), &[]),
            (map_module::<warp_tests::edge_ops::wide_ops>(), &[]),
            (map_module::<warp_tests::edge_ops::shifts>(), &[]),
            (map_module::<warp_tests::edge_ops::methods>(), &[]),
            (map_module::<warp_tests::edge_ops::float_clamp>(), &[]),
            (axis_module::<sum, Mapped<'static, mul>>(), v4),
            (reduce_module::<welford, Mapped<'static, welford_one>>(), v4),
            (
                partition3_module::<close_with, close_with, Pair<'static>>(),
                &["vote.sync.ballot"],
            ),
            (
                partition3_module::<
                    second_above_with,
                    second_above_with,
                    Keeping<'static, (f32, f32), 1>,
                >(),
                &["vote.sync.ballot"],
            ),
            (reduce_module::<moments, Mapped<'static, moments_one>>(), v4),
            (axis_module::<moments, Mapped<'static, moments_one>>(), &[]),
            (map_module::<mixed_of>(), &[]),
            (
                predicate_module::<flagged_with, Mapped<'static, mixed_of>>(),
                &[],
            ),
        ]
    }

    #[test]
    fn zipped_modules_compile_with_vector_loads_of_every_array() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        compile_all_with(all());
    }
}

mod halves {
    //! Modules over f16 and bf16 compile for every architecture, with 16-byte loads of 2-byte
    //! elements where the operation reads vectors, and no local memory.
    use super::*;
    use warp_runtime::impl_::{
        axis_module, map_module, predicate_module, reduce_module, transpose_module,
    };
    use warp_runtime::{DeviceVec, Mapped};
    use warp_tests::ops::{
        bf16_above_with, max_f16, round_both, sum_f16, sum_f32 as sum, widen_bf16, widen_f16,
    };

    #[map(inputs = 2)]
    fn scale(x: f16, w: f32) -> f32 {
        x.to_f32() * w
    }

    fn all() -> Vec<(ModuleSource, &'static [&'static str])> {
        let v4: &[&str] = &["ld.global.cs.v4"];
        vec![
            (reduce_module::<sum, Mapped<'static, widen_f16>>(), v4),
            (reduce_module::<sum, Mapped<'static, widen_bf16>>(), v4),
            (
                reduce_module::<sum, Mapped<'static, scale>>(),
                &["ld.global.cs.v4", "ld.global.cs.v2"],
            ),
            (max_f16::META.module(), v4),
            (sum_f16::META.module(), v4),
            (predicate_module::<bf16_above_with, DeviceVec<bf16>>(), v4),
            (axis_module::<sum_f16, DeviceVec<f16>>(), &["shfl.sync.up"]),
            (axis_module::<max_f16, DeviceVec<f16>>(), &[]),
            (map_module::<round_both>(), &[]),
            (transpose_module::<f16>(), &[]),
            (transpose_module::<bf16>(), &[]),
        ]
    }

    #[test]
    fn half_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        compile_all_with(all());
    }
}

mod histogram {
    //! Histogram modules compile for every architecture with `__match_any_sync`, 16-byte loads
    //! of whole tiles and no local memory: plain, bound, zipped, mapped, and the even bins; the
    //! weighted histograms with shared or global atomics of each weight type.
    use super::*;
    use warp_runtime::impl_::{histogram_module, histogram_weighted_module};
    use warp_runtime::{DeviceVec, EvenSample, Mapped};
    use warp_tests::ops::{
        byte_bin, hashed_bin_with, pair_bin, rem_bin_with, scaled_bin_with, square,
    };

    #[test]
    fn histogram_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &["match.any.sync.b32", "ld.global.cs.v4"];
        compile_all_with(vec![
            (histogram_module::<byte_bin, DeviceVec<u8>>(), want),
            (histogram_module::<rem_bin_with, DeviceVec<i32>>(), want),
            (histogram_module::<scaled_bin_with, DeviceVec<f32>>(), want),
            (histogram_module::<hashed_bin_with, DeviceVec<u32>>(), want),
            (
                histogram_module::<pair_bin, (&'static DeviceVec<u8>, &'static DeviceVec<u8>)>(),
                want,
            ),
            (
                histogram_module::<<f32 as EvenSample>::Even, DeviceVec<f32>>(),
                want,
            ),
            (
                histogram_module::<<f32 as EvenSample>::Even, Mapped<'static, square>>(),
                want,
            ),
            (
                histogram_module::<<u8 as EvenSample>::Even, DeviceVec<u8>>(),
                want,
            ),
            (
                histogram_module::<<i16 as EvenSample>::Even, DeviceVec<i16>>(),
                want,
            ),
            (
                histogram_module::<<f64 as EvenSample>::Even, DeviceVec<f64>>(),
                want,
            ),
            // Weighted: shared atomics of the weights' type, no lanes grouped by bin.
            (
                histogram_weighted_module::<byte_bin, DeviceVec<u8>, f32>(),
                &["atom.shared.add.f32", "ld.global.cs.v4", "ld.global.nc"],
            ),
            (
                histogram_weighted_module::<hashed_bin_with, DeviceVec<u32>, f64>(),
                &["atom.shared.add.f64"],
            ),
            (
                histogram_weighted_module::<rem_bin_with, DeviceVec<i32>, i64>(),
                &["atom.shared.add.u64"],
            ),
            (
                histogram_weighted_module::<
                    pair_bin,
                    (&'static DeviceVec<u8>, &'static DeviceVec<u8>),
                    u32,
                >(),
                &["atom.global.add.u32"],
            ),
        ]);
    }
}

mod runs {
    //! The runs modules (unique, run-length encode, reduce-by-key) compile for every
    //! architecture over keys of every width, with `==` or a predicate of two keys, with the
    //! ballots of run heads, vector loads of 4-byte keys (and values), and no local memory.
    use super::*;
    use warp_runtime::half::f16;
    use warp_runtime::impl_::{
        reduce_by_key_input_module, reduce_by_key_module, run_length_module, unique_module,
    };
    use warp_runtime::{DeviceVec, Equal, Indexed, Mapped};
    use warp_tests::ops::{argmax_f32, scaled_one_with, span, span_one, sum_count, sum_pairs};
    use warp_tests::runs::near_keys_with;

    #[predicate(inputs = 2)]
    fn near(a: i32, b: i32, d: i32) -> bool {
        (a - b).abs() <= d
    }
    #[predicate(inputs = 2)]
    fn same_sign(a: f64, b: f64) -> bool {
        (a < 0.0) == (b < 0.0)
    }

    fn all() -> Vec<(ModuleSource, &'static [&'static str])> {
        let ballot: &[&str] = &["vote.sync.ballot"];
        let v4: &[&str] = &["vote.sync.ballot", "ld.global.cs.v4"];
        vec![
            (unique_module::<i32, Equal>(), v4),
            (unique_module::<f32, Equal>(), v4),
            (unique_module::<u64, Equal>(), ballot),
            (unique_module::<i8, Equal>(), ballot),
            (unique_module::<bool, Equal>(), ballot),
            (unique_module::<f16, Equal>(), ballot),
            (unique_module::<i32, near_with<i32>>(), v4),
            (run_length_module::<i32, Equal, u32>(), v4),
            (run_length_module::<f64, Equal, u64>(), ballot),
            (run_length_module::<u8, Equal, u32>(), ballot),
            (run_length_module::<f64, same_sign, u32>(), ballot),
            (reduce_by_key_module::<i32, Equal, sum_f32>(), v4),
            (reduce_by_key_module::<u64, Equal, sum_f64>(), ballot),
            (reduce_by_key_module::<i8, Equal, sum_i32>(), ballot),
            (reduce_by_key_module::<f16, Equal, sum_f32>(), ballot),
            (
                reduce_by_key_module::<i32, near_with<i32>, max_i16>(),
                ballot,
            ),
            (reduce_by_key_module::<i32, Equal, any_b>(), ballot),
            // Values of other inputs: (value, index) pairs, maps to tuples and structs (with
            // bound arguments before a predicate's), zipped arrays.
            (
                reduce_by_key_input_module::<i32, Equal, argmax_f32, Indexed<'static, f32>>(),
                v4,
            ),
            (
                reduce_by_key_input_module::<u16, Equal, argmax_f32, Indexed<'static, f32>>(),
                ballot,
            ),
            (
                reduce_by_key_input_module::<
                    i32,
                    near_keys_with<i32>,
                    sum_count,
                    Mapped<'static, scaled_one_with<f32>>,
                >(),
                v4,
            ),
            (
                reduce_by_key_input_module::<i32, Equal, span, Mapped<'static, span_one>>(),
                v4,
            ),
            (
                reduce_by_key_input_module::<
                    i32,
                    Equal,
                    sum_pairs,
                    (&'static DeviceVec<i32>, &'static DeviceVec<i32>),
                >(),
                v4,
            ),
        ]
    }

    #[test]
    fn runs_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        compile_all_with(all());
    }
}

mod topk {
    //! The top-k modules compile for every element type and architecture, with the warp votes,
    //! 16-byte loads where the elements are at least 2 bytes wide, and no local memory.
    use super::*;
    use warp_runtime::impl_::topk_module;

    #[test]
    fn topk_modules_compile_for_every_element_type() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let vote: &[&str] = &["vote.sync.ballot", "atom.global.max.u64"];
        let vec: &[&str] = &["vote.sync.ballot", "ld.global.cs.v4"];
        compile_all_with(vec![
            (topk_module::<f32>(), vec),
            (topk_module::<f64>(), vec),
            (topk_module::<i32>(), vec),
            (topk_module::<u32>(), vote),
            (topk_module::<i64>(), vote),
            (topk_module::<u64>(), vote),
            (topk_module::<i16>(), vec),
            (topk_module::<u16>(), vote),
            (topk_module::<i8>(), vote),
            (topk_module::<u8>(), vote),
            (topk_module::<bool>(), vote),
            (topk_module::<f16>(), vec),
            (topk_module::<bf16>(), vec),
        ]);
    }
}

mod sort {
    //! The sort modules compile for every key type, keys alone and with values of 1 to 8
    //! bytes, for every architecture, with the lane-mask ranks (shared atomic ORs), the early
    //! counts (shared atomic adds), the look-back's 64-bit exchanges and no local memory (ptxas
    //! checks the tile's shared memory).
    use super::*;
    use warp_runtime::impl_::{SortMoves, sort_module, sort_module_on};

    #[test]
    fn sort_modules_compile_for_every_key_type() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &["atom.shared.or", "atom.global.exch.b64", "atom.shared.add"];
        use SortMoves::{Keys, Pairs, Positions};
        let mut modules = vec![
            (sort_module::<f32>(Keys), want),
            (sort_module::<f64>(Pairs(8)), want),
            (sort_module::<i32>(Pairs(4)), want),
            (sort_module::<u32>(Positions(4)), want),
            (sort_module_on::<u32>(Pairs(4), false), want),
            (sort_module::<u32>(Pairs(1)), want),
            (sort_module::<u32>(Pairs(2)), want),
            (sort_module::<i64>(Keys), want),
            (sort_module::<u64>(Pairs(4)), want),
            (sort_module::<i16>(Keys), want),
            (sort_module::<u16>(Positions(8)), want),
            (sort_module::<i8>(Keys), want),
            (sort_module::<u8>(Pairs(4)), want),
            (sort_module::<bool>(Keys), want),
            (sort_module::<f16>(Pairs(4)), want),
            (sort_module::<bf16>(Keys), want),
        ];
        modules.push((sort_module::<u64>(Positions(8)), want));
        compile_all_with(modules);
    }
}

mod merge {
    //! The merge sort modules compile for comparators with and without bound arguments, over
    //! keys of 2, 4 and 8 bytes and whole tuples and structs of 8, 24 and 64 bytes, for every
    //! architecture, with no local memory.
    use super::*;
    use warp_runtime::impl_::{merge_module, merge_values_module};
    use warp_tests::ops::wide_below;
    use warp_tests::ops::{Mixed, Point, Wide, mixed_greater, nearer_origin, tag_below_with};
    use warp_tests::ops::{greater_i64, low_byte_below, nearer_zero, residue_below_with};

    #[test]
    fn merge_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &["bar.sync"];
        compile_all_with(vec![
            (merge_module::<f32, nearer_zero>(), want),
            (merge_module::<u32, residue_below_with<u32>>(), want),
            (merge_module::<i64, greater_i64>(), want),
            (merge_module::<u16, low_byte_below>(), want),
            (merge_values_module::<Point, nearer_origin>(), want),
            (
                merge_values_module::<(u16, f64, u8), tag_below_with<u16>>(),
                want,
            ),
            (merge_values_module::<Mixed, mixed_greater>(), want),
            (merge_values_module::<Wide, wide_below>(), want),
        ]);
    }
}

mod search {
    //! The search modules compile for keys of 1 to 8 bytes and both index types, for every
    //! architecture, with no local memory.
    use super::*;
    use warp_runtime::impl_::search_module;

    #[test]
    fn search_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &["bar.sync"];
        compile_all_with(vec![
            (search_module::<f32, u32>(), want),
            (search_module::<u64, u64>(), want),
            (search_module::<i8, u32>(), want),
            (search_module::<f16, u64>(), want),
        ]);
    }
}

mod primitives {
    //! The warp and block primitives (warp.cuh, block.cuh) compile on their own, through their
    //! test kernels (tests/emu/primitives.cuh), for every architecture, with no local memory;
    //! sm_80 and later reduce recognised integer operators with redux.sync.
    use super::*;

    fn module() -> ModuleSource {
        ModuleSource {
            name: "primitives".into(),
            location: "tests/emu/primitives.cuh".into(),
            source: warp_tests::primitives::source().into(),
            needs_cuda_headers: false,
        }
    }

    #[test]
    fn the_primitives_compile_for_sm75_sm80_sm90() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        compile_all_with(vec![(
            module(),
            &[
                "shfl.sync.down",
                "shfl.sync.up",
                "shfl.sync.bfly",
                "vote.sync.ballot",
                "bar.sync",
                "atom.shared.add.u32",
                "st.global.cs.v4",
            ],
        )]);
        let ptx = toolchain::ptx(&module(), 80, &Settings::new()).unwrap_or_else(|e| panic!("{e}"));
        assert!(ptx.contains("redux.sync.add"), "sm_80: no redux.sync add");
        assert!(
            ptx.contains("redux.sync.max.s32"),
            "sm_80: no redux.sync max"
        );
        for name in warp_tests::primitives::NAMES {
            assert!(ptx.contains(&format!(".entry {name}(")), "no kernel {name}");
        }
    }
}

mod ranges {
    //! The modules over generated ranges compile for every architecture with no local
    //! memory: the reduce module (plain indices of both types, a map to a count, an f64 map
    //! with a bound argument), the axis module (scans, rows, columns, segments), the predicate
    //! module (votes, compaction), argwhere's and the histogram's; and the same modules over
    //! zips of ranges with arrays (the range first, second, in the middle, twice; mapped,
    //! reduced as tuples, masked, compacted keeping the range's column), and collect's.
    use super::*;
    use warp_runtime::impl_::{
        Generated, Stored, argwhere_module, axis_module, collect_module, histogram_module,
        predicate_module, reduce_module,
    };
    use warp_runtime::{DeviceRange, DeviceVec, Keeping, Mapped, Masked, RangeMap};
    use warp_tests::ops::{
        add_index_rows, add_u32, add_u64, gauss_step_with, index_byte, index_elem_bin,
        index_multiple_odd_with, index_times, low_word, multiple_of_with, pi_hit, plus_index,
        sum_f64, two_indices, x_plus_i_y,
    };

    #[test]
    fn range_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (reduce_module::<add_u64, DeviceRange<'static, u64>>(), want),
            (reduce_module::<add_u32, DeviceRange<'static, u32>>(), want),
            (
                reduce_module::<add_u32, RangeMap<'static, u64, pi_hit>>(),
                want,
            ),
            (
                reduce_module::<sum_f64, RangeMap<'static, u64, gauss_step_with<f64>>>(),
                want,
            ),
            (
                axis_module::<add_u32, RangeMap<'static, u64, low_word>>(),
                want,
            ),
            (axis_module::<add_u64, DeviceRange<'static, u64>>(), want),
            (
                predicate_module::<multiple_of_with<u64>, DeviceRange<'static, u64>>(),
                want,
            ),
            (
                argwhere_module::<multiple_of_with<u64>, DeviceRange<'static, u64>, u32>(),
                want,
            ),
            (
                histogram_module::<index_byte, DeviceRange<'static, u64>>(),
                want,
            ),
        ]);
    }

    /// A zip whose column 0 is a `u64` range and column 1 a `u32` array.
    type RangeZip = (&'static DeviceRange<'static, u64>, &'static DeviceVec<u32>);
    /// Its map by `M`.
    type RangeZipMap<M> = Mapped<'static, M, (Generated, Stored)>;

    #[test]
    fn zipped_range_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (reduce_module::<add_u64, RangeZipMap<index_times>>(), want),
            (reduce_module::<add_index_rows, RangeZip>(), want),
            (
                reduce_module::<add_u32, Mapped<'static, plus_index, (Stored, Generated)>>(),
                want,
            ),
            (
                reduce_module::<add_u64, Mapped<'static, x_plus_i_y, (Stored, Generated, Stored)>>(
                ),
                want,
            ),
            (
                reduce_module::<
                    add_u64,
                    Mapped<'static, two_indices, (Generated, Stored, Generated)>,
                >(),
                want,
            ),
            (
                reduce_module::<
                    add_u64,
                    Masked<'static, RangeZipMap<index_times>, multiple_of_with<u64>>,
                >(),
                want,
            ),
            (axis_module::<add_u64, RangeZipMap<index_times>>(), want),
            (
                predicate_module::<index_multiple_odd_with<u64>, RangeZip>(),
                want,
            ),
            (
                predicate_module::<
                    index_multiple_odd_with<u64>,
                    Keeping<'static, (u64, u32), 0, (Generated, Stored)>,
                >(),
                want,
            ),
            (
                argwhere_module::<index_multiple_odd_with<u64>, RangeZip, u32>(),
                want,
            ),
            (histogram_module::<index_elem_bin, RangeZip>(), want),
            (collect_module::<RangeZipMap<index_times>>(), want),
        ]);
    }

    #[test]
    fn a_zipped_range_module_reads_only_its_arrays() {
        // The range's column holds its start, the array's its address; only the array is
        // read, and a zip of two arrays of the same types reads both.
        let m = reduce_module::<add_u64, RangeZipMap<index_times>>();
        for part in [
            "st.p0 = (wd_u64)in.p[0];",
            "st.p1 = (const wd_u32*)in.p[1];",
            "wd_u64 p0;",
            "e.f0 = (wd_u64)(p0 + i);",
            "wd_ldcs(p1 + i)",
        ] {
            assert!(m.source.contains(part), "no `{part}` in\n{}", m.source);
        }
        assert!(!m.source.contains("wd_ldcs(p0"), "{}", m.source);
        let stored = reduce_module::<add_u64, Mapped<'static, index_times, (Stored, Stored)>>();
        assert!(
            stored.source.contains("wd_ldcs(p0 + i)"),
            "{}",
            stored.source
        );
        assert_ne!(stored.source, m.source);
    }

    #[test]
    fn a_range_module_reads_no_input() {
        // The stage keeps the range's start where an array's address would be, and makes
        // each index: no pointer of the input is read.
        let m = reduce_module::<add_u32, RangeMap<'static, u64, pi_hit>>();
        assert!(
            m.source.contains("st.start = (wd_u64)in.p[0];"),
            "{}",
            m.source
        );
        assert!(!m.source.contains("wd_ldcs(p0"), "{}", m.source);
    }
}

mod gathers {
    //! The modules over gathers compile for every architecture with no local memory: the
    //! reduce module (`u32` and `u64` indices, a map, `f32` values), the axis module, the
    //! predicate module, argwhere's and the histogram's.
    use super::*;
    use warp_runtime::impl_::{
        argwhere_module, axis_module, histogram_module, predicate_module, reduce_module,
    };
    use warp_runtime::{GatherMap, Gathered};
    use warp_tests::ops::{add_u32, add_u64, index_byte, low_word, multiple_of_with, sum_f32};

    #[test]
    fn gather_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (
                reduce_module::<add_u64, Gathered<'static, u64, u32>>(),
                want,
            ),
            (
                reduce_module::<add_u64, Gathered<'static, u64, u64>>(),
                want,
            ),
            (
                reduce_module::<sum_f32, Gathered<'static, f32, u32>>(),
                want,
            ),
            (
                reduce_module::<add_u32, GatherMap<'static, low_word, u32>>(),
                want,
            ),
            (axis_module::<add_u64, Gathered<'static, u64, u32>>(), want),
            (
                axis_module::<add_u32, GatherMap<'static, low_word, u64>>(),
                want,
            ),
            (
                predicate_module::<multiple_of_with<u64>, Gathered<'static, u64, u32>>(),
                want,
            ),
            (
                argwhere_module::<multiple_of_with<u64>, Gathered<'static, u64, u32>, u32>(),
                want,
            ),
            (
                histogram_module::<index_byte, Gathered<'static, u64, u32>>(),
                want,
            ),
        ]);
    }

    #[test]
    fn a_gather_module_reads_through_its_indices() {
        // The stage reads the indices from p1, each element from p0 at its index, and checks
        // it against the array's length.
        let m = reduce_module::<sum_f32, Gathered<'static, f32, u32>>();
        for part in [
            "st.p1 = (const wd_u32*)in.p[1];",
            "st.nv = (wd_u64)in.p[2];",
            "atomicMax(fault, ~(unsigned long long)i)",
            "wd_ldcs_vec<wd_u32, VEC>(p1 + i)",
        ] {
            assert!(m.source.contains(part), "{part}:\n{}", m.source);
        }
    }
}

mod strides {
    //! The modules over strided views compile for every architecture with no local memory:
    //! the reduce module (a map, `f32` and 1-byte values), the axis module, the predicate
    //! module, argwhere's and the histogram's.
    use super::*;
    use warp_runtime::impl_::{
        argwhere_module, axis_module, histogram_module, predicate_module, reduce_module,
    };
    use warp_runtime::{Strided, StridedMap};
    use warp_tests::ops::{
        add_u32, add_u64, index_byte, low_word, multiple_of_with, sum_f32, u32_multiple_of_with,
    };

    #[test]
    fn strided_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (reduce_module::<add_u64, Strided<'static, u64>>(), want),
            (reduce_module::<sum_f32, Strided<'static, f32>>(), want),
            (
                reduce_module::<add_u32, StridedMap<'static, low_word>>(),
                want,
            ),
            (axis_module::<add_u64, Strided<'static, u64>>(), want),
            (
                predicate_module::<multiple_of_with<u64>, Strided<'static, u64>>(),
                want,
            ),
            (
                argwhere_module::<multiple_of_with<u64>, Strided<'static, u64>, u32>(),
                want,
            ),
            (
                histogram_module::<index_byte, Strided<'static, u64>>(),
                want,
            ),
            (
                predicate_module::<u32_multiple_of_with<u32>, StridedMap<'static, low_word>>(),
                want,
            ),
        ]);
    }

    #[test]
    fn a_predicate_over_a_strided_map_tests_the_maps_values() {
        // The stage's values are the map's results (u32), not the elements (u64).
        let m = predicate_module::<u32_multiple_of_with<u32>, StridedMap<'static, low_word>>();
        assert!(m.source.contains("typedef wd_u32 value_t;"), "{}", m.source);
    }

    #[test]
    fn a_strided_module_reads_every_step_th_element() {
        let m = reduce_module::<sum_f32, Strided<'static, f32>>();
        for part in ["st.step = (wd_u64)in.p[1];", "wd_ldcs(p0 + (i + k) * step)"] {
            assert!(m.source.contains(part), "{part}:\n{}", m.source);
        }
    }
}

mod masked {
    //! The modules over masked inputs compile for every architecture with no local memory:
    //! the reduce module (an array, a map, a range, a gather, masked) and the axis module.
    use super::*;
    use warp_runtime::impl_::{axis_module, reduce_module};
    use warp_runtime::{DeviceRange, DeviceVec, Gathered, Mapped, Masked};
    use warp_tests::ops::{add_u32, add_u64, low_word, multiple_of_with, u32_multiple_of_with};

    type M<'a, I> = Masked<'a, I, multiple_of_with<u64>>;

    #[test]
    fn masked_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (reduce_module::<add_u64, M<'static, DeviceVec<u64>>>(), want),
            (
                reduce_module::<add_u64, M<'static, DeviceRange<'static, u64>>>(),
                want,
            ),
            (
                reduce_module::<add_u64, M<'static, Gathered<'static, u64, u32>>>(),
                want,
            ),
            (
                reduce_module::<
                    add_u32,
                    Masked<'static, Mapped<'static, low_word>, u32_multiple_of_with<u32>>,
                >(),
                want,
            ),
            (axis_module::<add_u64, M<'static, DeviceVec<u64>>>(), want),
        ]);
    }

    #[test]
    fn a_masked_module_gives_the_identity_where_the_mask_fails() {
        let m = reduce_module::<add_u64, M<'static, DeviceVec<u64>>>();
        assert!(
            m.source.contains("return keep(v) ? v : wd_op::identity();"),
            "{}",
            m.source
        );
        assert!(m.source.contains("wd_pred("), "{}", m.source);
    }
}

mod chains {
    //! The modules over maps of maps compile for every architecture with no local memory:
    //! reduce (of an array, a range and a gather, and masked), axis, predicate, argwhere and
    //! histogram; each passes the bound arguments in order (first map, second map, then the
    //! predicate or bin map).
    use super::*;
    use warp_runtime::impl_::{
        argwhere_module, axis_module, histogram_module, predicate_module, reduce_module,
    };
    use warp_runtime::{Chained, GatherMap, Mapped, Masked, RangeMap};
    use warp_tests::ops::{
        add_k_with, add_u32, scale_low_with, u32_byte_with, u32_multiple_of_with,
    };

    type C<I> = Chained<I, scale_low_with<u32>>;
    type A = C<Mapped<'static, add_k_with<u64>>>;

    #[test]
    fn chained_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (reduce_module::<add_u32, A>(), want),
            (
                reduce_module::<add_u32, C<RangeMap<'static, u64, add_k_with<u64>>>>(),
                want,
            ),
            (
                reduce_module::<add_u32, C<GatherMap<'static, add_k_with<u64>, u32>>>(),
                want,
            ),
            (
                reduce_module::<add_u32, Masked<'static, A, u32_multiple_of_with<u32>>>(),
                want,
            ),
            (axis_module::<add_u32, A>(), want),
            (predicate_module::<u32_multiple_of_with<u32>, A>(), want),
            (argwhere_module::<u32_multiple_of_with<u32>, A, u32>(), want),
            (histogram_module::<u32_byte_with<u32>, A>(), want),
        ]);
    }

    #[test]
    fn a_chained_stage_maps_twice_with_the_arguments_in_order() {
        let m = predicate_module::<u32_multiple_of_with<u32>, A>();
        for part in [
            "wd_map(e, wd_arg<wd_u64>(a, 0))",
            "return wd_map2(v, wd_arg<wd_u32>(a, 1));",
            "wd_pred(v, wd_arg<wd_u32>(a, 2))",
        ] {
            assert!(m.source.contains(part), "{part}:\n{}", m.source);
        }
    }
}

mod histogram_reduce {
    //! The histogram modules whose weights a `#[reduce]` operator combines compile for every
    //! architecture with no local memory: 4- and 8-byte values, integer and float operators, a
    //! map of a gather as the input.
    use super::*;
    use warp_runtime::impl_::histogram_reduce_module;
    use warp_runtime::{DeviceVec, GatherMap};
    use warp_tests::ops::{key_bin_u32, low_word, max_i64, min_f32, sum_f32, xor_u32};

    #[test]
    fn histogram_reduce_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (
                histogram_reduce_module::<max_i64, key_bin_u32, DeviceVec<u32>>(),
                want,
            ),
            (
                histogram_reduce_module::<min_f32, key_bin_u32, DeviceVec<u32>>(),
                want,
            ),
            (
                histogram_reduce_module::<sum_f32, key_bin_u32, DeviceVec<u32>>(),
                want,
            ),
            (
                histogram_reduce_module::<xor_u32, key_bin_u32, GatherMap<'static, low_word, u32>>(
                ),
                want,
            ),
            // scatter_reduce_into's: the index as its bin.
            (
                histogram_reduce_module::<
                    max_i64,
                    <u64 as warp_runtime::ScatterIndex>::Bin,
                    DeviceVec<u64>,
                >(),
                want,
            ),
        ]);
    }

    #[test]
    fn a_histogram_reduce_module_combines_by_compare_and_swap() {
        let m = histogram_reduce_module::<max_i64, key_bin_u32, DeviceVec<u32>>();
        for part in [
            "wd_histogram_reduce<wd_op>(",
            "struct wd_op {",
            "atomicCAS(",
        ] {
            assert!(m.source.contains(part), "{part}");
        }
    }
}

mod scatter {
    //! The plain scatter's modules compile for every architecture with no local memory: 1-, 4-
    //! and 8-byte values, `u32` and `u64` indices, halves.
    use super::*;
    use warp_runtime::impl_::scatter_module;

    #[test]
    fn scatter_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (scatter_module::<f32, u32>(), want),
            (scatter_module::<u8, u64>(), want),
            (scatter_module::<f64, u32>(), want),
            (scatter_module::<warp_runtime::half::f16, u64>(), want),
            (scatter_module::<bool, u32>(), want),
        ]);
    }

    #[test]
    fn a_scatter_module_reads_the_indices_through_the_stage() {
        let m = scatter_module::<f64, u64>();
        for part in [
            "wd_scatter_all(st, places, values, out)",
            "typedef wd_u64 elem_t;",
        ] {
            assert!(m.source.contains(part), "{part}");
        }
    }
}

mod collect {
    //! The collect modules compile for every architecture with no local memory: a range and
    //! its map, a gather with a map of a map, a strided view, zipped arrays.
    use super::*;
    use warp_runtime::impl_::collect_module;
    use warp_runtime::{Chained, DeviceRange, DeviceVec, GatherMap, RangeMap, Strided};
    use warp_tests::ops::{add_k_with, low_word, scale_low_with};

    #[test]
    fn collect_modules_compile() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &[];
        compile_all_with(vec![
            (collect_module::<DeviceRange<'static, u64>>(), want),
            (
                collect_module::<RangeMap<'static, u64, scale_low_with<u32>>>(),
                want,
            ),
            (
                collect_module::<Chained<GatherMap<'static, add_k_with<u64>, u32>, low_word>>(),
                want,
            ),
            (collect_module::<Strided<'static, f32>>(), want),
            (
                collect_module::<(&'static DeviceVec<u64>, &'static DeviceVec<f32>)>(),
                want,
            ),
        ]);
    }

    #[test]
    fn a_collect_module_writes_the_maps_values() {
        let m = collect_module::<Chained<GatherMap<'static, add_k_with<u64>, u32>, low_word>>();
        for part in ["typedef wd_u32 value_t;", "wd_map2(", "wd_k_map("] {
            assert!(m.source.contains(part), "{part}:\n{}", m.source);
        }
    }
}

mod group {
    //! The group-by table's modules compile for keys of 1 to 8 bytes, signed and unsigned, and
    //! sums of 1 to 4 bytes, for every architecture, with no local memory, their tables added
    //! to by 64-bit atomics.
    use super::*;
    use warp_runtime::impl_::group_module;

    #[test]
    fn group_modules_compile_for_every_key_type() {
        if !warp_tests::nvrtc_available() {
            return;
        }
        let want: &[&str] = &["atom.global.add.u64", "atom.global.min.u64"];
        compile_all_with(vec![
            (group_module::<i32, i32>(), want),
            (group_module::<u8, u8>(), want),
            (group_module::<i8, i16>(), want),
            (group_module::<u16, u32>(), want),
            (group_module::<i64, i32>(), want),
            (group_module::<u64, u16>(), want),
        ]);
    }
}
