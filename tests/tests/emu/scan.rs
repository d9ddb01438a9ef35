//! The generated scan kernel's fixed-tree prefix (the deterministic one-pass scan of floats),
//! run on the CPU: the module's CUDA compiled as C++20 with the host emulation of
//! tests/emu/shim.h and launched as the runtime launches it (one block per block tile, in
//! order, zeroed status), up to 200 tiles (eight levels of nodes). Exact operators (integers,
//! and floats whose partial sums are exact) must give the CPU backend's scan bit for bit,
//! inclusive and exclusive, in tree, look-back and exact-sum modes. The exact sums of f32
//! (`wd_exact32`) are checked on their own against sums done exactly in f64 and IEEE's rules
//! (rounding ties, cancellation, subnormals, overflow, infinities, NaN, signed zeros), and the
//! exact-sum scan's tile prefixes against correctly rounded sums. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored scan::`.

use std::path::Path;
use std::process::Command;

use rand::Rng;
use warp_kernels::catalogue::{BLOCK_TILE, ScanMode, scan_span};
use warp_runtime::impl_::{Generated, Stored, axis_module};
use warp_runtime::prelude::*;
use warp_runtime::{DeviceVec, Mapped};
use warp_tests::emu::bytes_of;
use warp_tests::ops::{add_u64, index_times, sum_f32, sum_i32};
use warp_tests::scans::one_term_a_tile;
use warp_tests::{emu, rng, seed};

const MAIN: &str = include_str!("../../emu/scan_main.cpp");

/// One emulated scan of `input` (its C bytes, `n` elements) by a module of one array of
/// 4-byte elements and values; returns the output's bytes.
fn emulate(
    dir: &Path,
    bin: &Path,
    n: usize,
    input: &[u8],
    exclusive: bool,
    mode: ScanMode,
) -> Vec<u8> {
    emulate_tiled(
        dir,
        bin,
        n,
        input,
        exclusive,
        mode,
        scan_span(&[4], 4),
        None,
        None,
    )
}

/// [`emulate`] by a module whose warps take `span` warp tiles each (`catalogue::scan_span` of
/// its columns and values), reading the first `len` elements when given (a device-resident
/// length), continued from `init` when given.
#[allow(clippy::too_many_arguments)]
fn emulate_tiled(
    dir: &Path,
    bin: &Path,
    n: usize,
    input: &[u8],
    exclusive: bool,
    mode: ScanMode,
    span: usize,
    len: Option<u64>,
    init: Option<i64>,
) -> Vec<u8> {
    let (src, out) = (dir.join("scan.in"), dir.join("scan.out"));
    std::fs::write(&src, input).unwrap();
    let run = Command::new(bin)
        .arg(n.to_string())
        .arg((exclusive as u32).to_string())
        .arg((mode as u32).to_string())
        .arg(&src)
        .arg(&out)
        .args(match (len, init) {
            (None, None) => vec![],
            (Some(l), None) => vec![l.to_string()],
            (l, Some(i)) => vec![l.map_or("-".into(), |l| l.to_string()), i.to_string()],
        })
        .output()
        .expect("the emulation runs");
    assert!(run.status.success(), "n={n}: the emulation failed");
    // The kernel's block tile is the one the runtime sizes the grid by.
    let said = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        said.trim(),
        format!("block_tile {}", BLOCK_TILE * span),
        "the kernel's block tile is not the runtime's"
    );
    std::fs::read(out).unwrap()
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes a minute"]
fn the_tree_prefix_matches_the_cpu_in_emulation() {
    let Some(dir) = emu::folder("scan", MAIN) else {
        return;
    };
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let (int_module, float_module) = (
        axis_module::<sum_i32, DeviceVec<i32>>(),
        axis_module::<sum_f32, DeviceVec<f32>>(),
    );
    let int_bin = emu::build(&dir, "int", &int_module.source, &[]);
    let float_bin = emu::build(&dir, "float", &float_module.source, &[]);
    // Sizes ending inside a tile, at one, past one, and 200 tiles (the largest once per
    // type: an emulated block tile takes ~100 ms).
    let (big, tile) = (200, BLOCK_TILE * scan_span(&[4], 4));
    for n in [
        1usize,
        37,
        tile - 1,
        tile,
        tile + 1,
        5 * tile + 77,
        big * tile - 3,
    ] {
        let ints: Vec<i32> = (0..n).map(|_| r.random::<i32>()).collect();
        // Small integers as floats: every partial sum is exact, so any grouping agrees.
        let floats: Vec<f32> = (0..n)
            .map(|_| r.random_range(-1000i32..=1000) as f32)
            .collect();
        let (di, df) = (cpu.upload(&ints).unwrap(), cpu.upload(&floats).unwrap());
        for exclusive in [false, true] {
            let big_one = n > 20 * tile;
            let (int_too, float_too) = if big_one {
                (!exclusive, exclusive)
            } else {
                (true, true)
            };
            // ExactSum on the i32 module: the kernel falls back to the tree.
            for mode in [ScanMode::Tree, ScanMode::LookBack, ScanMode::ExactSum] {
                if mode == ScanMode::LookBack && big_one {
                    continue;
                }
                let what = format!("n={n} {mode:?} exclusive={exclusive}");
                let run = |bin: &Path, input: &[u8], want: Vec<u8>, ty: &str| {
                    let got = emulate(&dir, bin, n, input, exclusive, mode);
                    assert!(got == want, "{ty} {what}");
                };
                if int_too {
                    let want = if exclusive {
                        cpu.exclusive_scan(sum_i32, &di)
                    } else {
                        cpu.scan(sum_i32, &di)
                    };
                    let want = bytes_of(&want.unwrap().download().unwrap());
                    run(&int_bin, &bytes_of(&ints), want, "i32");
                }
                if float_too {
                    let want = if exclusive {
                        cpu.exclusive_scan(sum_f32, &df)
                    } else {
                        cpu.scan(sum_f32, &df)
                    };
                    let want = bytes_of(&want.unwrap().download().unwrap());
                    run(&float_bin, &bytes_of(&floats), want, "f32");
                }
            }
        }
    }
}

/// The correctly rounded sum of `terms` by IEEE's rules, where their partial sums are exact in
/// f64 (or infinite, or NaN).
fn rounded_sum(terms: &[f32]) -> f32 {
    if terms.iter().any(|x| x.is_nan())
        || (terms.contains(&f32::INFINITY) && terms.contains(&f32::NEG_INFINITY))
    {
        return f32::NAN;
    }
    if let Some(&inf) = terms.iter().find(|x| x.is_infinite()) {
        return inf;
    }
    let s: f64 = terms.iter().map(|&x| x as f64).sum();
    if s == 0.0 {
        // -0.0 only when every term is -0.0 (the empty sum too: -0.0 is addition's identity).
        let all_neg = terms.iter().all(|x| x.to_bits() == 0x8000_0000);
        return if all_neg { -0.0 } else { 0.0 };
    }
    s as f32
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn exact_sums_round_once_in_emulation() {
    let Some(dir) = emu::folder("exact", MAIN) else {
        return;
    };
    let float_module = axis_module::<sum_f32, DeviceVec<f32>>();
    let bin = emu::build(&dir, "exact", &float_module.source, &["EXACT_SUMS".into()]);
    let p = |e: i32| 2f32.powi(e);
    let (max, tiny) = (f32::MAX, f32::from_bits(1));
    // (terms, the sum) where f64 cannot hold the partial sums exactly.
    let mut cases: Vec<(Vec<f32>, f32)> = vec![
        (vec![1.0, p(-24), p(-100)], 1.0 + p(-23)), // above the tie: up
        (vec![1.0, p(-24), -p(-100)], 1.0),         // below the tie: down
        (vec![1e38, 1e-38, -1e38], 1e-38),          // cancellation, exact
        (vec![max, tiny, -max], tiny),
        (vec![p(127), p(-149), -p(127), p(-149)], p(-148)),
    ];
    // Where f64 can: rounding ties to even, subnormals, overflow, specials, zeros.
    let exact: Vec<Vec<f32>> = vec![
        vec![1.0, p(-24)],
        vec![1.0 + p(-23), p(-24)],
        vec![-1.0 - p(-23), -p(-24)],
        vec![tiny, tiny],
        vec![f32::MIN_POSITIVE, -tiny],
        vec![3.0 * tiny, -tiny],
        vec![max, max],
        vec![-max, -max],
        vec![max, max, -max],
        vec![max, p(103)],
        vec![max, p(102)],
        vec![f32::INFINITY, 1.0],
        vec![f32::NEG_INFINITY, 5.0],
        vec![f32::INFINITY, f32::NEG_INFINITY],
        vec![f32::NAN, 1.0],
        vec![-0.0, -0.0],
        vec![-0.0, 0.0],
        vec![1.0, -1.0],
        vec![-0.0],
        vec![],
        vec![7.5],
        vec![-7.5],
    ];
    cases.extend(exact.into_iter().map(|t| {
        let s = rounded_sum(&t);
        (t, s)
    }));
    // Random terms: integers below 2^24 times 2^k, |k| <= 10, up to 64 of them.
    let mut r = rng(seed());
    for _ in 0..2000 {
        let len = r.random_range(1..=64);
        let t: Vec<f32> = (0..len)
            .map(|_| {
                let m = r.random_range(-(1i32 << 24) + 1..1 << 24) as f64;
                (m * 2f64.powi(r.random_range(-10..=10))) as f32
            })
            .collect();
        let s = rounded_sum(&t);
        cases.push((t, s));
    }
    let mut input = Vec::new();
    for (t, _) in &cases {
        input.extend((t.len() as u32).to_le_bytes());
        input.extend(t.iter().flat_map(|x| x.to_le_bytes()));
    }
    let (src, out) = (dir.join("exact.in"), dir.join("exact.out"));
    std::fs::write(&src, input).unwrap();
    let status = Command::new(&bin).arg(&src).arg(&out).status().unwrap();
    assert!(status.success(), "the emulation failed");
    let got = std::fs::read(out).unwrap();
    assert_eq!(got.len(), 4 * cases.len());
    for ((t, want), g) in cases.iter().zip(got.chunks_exact(4)) {
        let g = f32::from_le_bytes(g.try_into().unwrap());
        let ok = if want.is_nan() {
            g.is_nan()
        } else {
            g.to_bits() == want.to_bits()
        };
        assert!(
            ok,
            "sum of {t:?}: {g:e} ({:#x}), want {want:e}",
            g.to_bits()
        );
    }
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn exact_sum_prefixes_are_correctly_rounded_in_emulation() {
    let Some(dir) = emu::folder("exact-scan", MAIN) else {
        return;
    };
    let float_module = axis_module::<sum_f32, DeviceVec<f32>>();
    let bin = emu::build(&dir, "float", &float_module.source, &[]);
    let (tiles, tile) = (80, BLOCK_TILE * scan_span(&[4], 4));
    let (xs, want) = one_term_a_tile(seed(), tiles, tile);
    let got = emulate(
        &dir,
        &bin,
        xs.len(),
        &bytes_of(&xs),
        false,
        ScanMode::ExactSum,
    );
    for (t, w) in want.iter().enumerate() {
        let at = t * tile * 4;
        let g = f32::from_le_bytes(got[at..at + 4].try_into().unwrap());
        assert_eq!(g.to_bits(), w.to_bits(), "tile {t}: {g:e}, want {w:e}");
    }
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn a_zipped_range_scans_as_the_cpu_in_emulation() {
    // The stage of a generated range zipped with an array: the range's indices made from its
    // start, the array read beside them (with vectors, from an aligned start and from one
    // element past it, where the head reaches the first aligned vector), scanned by the
    // look-back and by the tree. Integers: bit for bit against the CPU backend.
    let Some(dir) = emu::folder("scan-zip", MAIN) else {
        return;
    };
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let module = axis_module::<add_u64, Mapped<'static, index_times, (Generated, Stored)>>();
    let start = (1u64 << 40) + 3;
    let span = scan_span(&[8, 4], 8);
    let tile = BLOCK_TILE * span;
    for shift in [0usize, 4] {
        let bin = emu::build(
            &dir,
            &format!("zip{shift}"),
            &module.source,
            &[
                format!("ZIPPED_START={start}ull"),
                format!("ZIPPED_SHIFT={shift}"),
            ],
        );
        for n in [1usize, 37, tile - 1, tile, tile + 1, 5 * tile + 77] {
            let xs: Vec<u32> = (0..n).map(|_| r.random()).collect();
            let dx = cpu.upload(&xs).unwrap();
            let range = cpu.range(start..start + n as u64);
            let zip = (&range, &dx);
            let mut input = vec![0u8; shift];
            input.extend(bytes_of(&xs));
            for mode in [ScanMode::LookBack, ScanMode::Tree] {
                let got = emulate_tiled(&dir, &bin, n, &input, false, mode, span, None, None);
                let want = cpu.scan(add_u64, &zip.map(index_times)).unwrap();
                let want = bytes_of(&want.download().unwrap());
                assert!(got == want, "n={n} shift={shift} {mode:?}");
            }
        }
    }
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn a_scan_stops_at_a_device_length_in_emulation() {
    // The grid and the look-back (or the tree) over the whole length, the values read and the
    // places written only up to a device-resident length: the first `len` places are the CPU
    // backend's scan of the first `len` elements, the others untouched.
    let Some(dir) = emu::folder("scan-len", MAIN) else {
        return;
    };
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let module = axis_module::<sum_i32, DeviceVec<i32>>();
    let bin = emu::build(&dir, "int", &module.source, &[]);
    let span = scan_span(&[4], 4);
    let tile = BLOCK_TILE * span;
    for n in [37usize, tile + 1, 3 * tile + 77] {
        let xs: Vec<i32> = (0..n).map(|_| r.random()).collect();
        for len in [0u64, 1, n as u64 / 2, n as u64 - 1, n as u64 + 3] {
            let m = len.min(n as u64) as usize;
            let dx = cpu.upload(&xs[..m]).unwrap();
            for exclusive in [false, true] {
                for mode in [ScanMode::LookBack, ScanMode::Tree] {
                    let what = format!("n={n} len={len} exclusive={exclusive} {mode:?}");
                    let got = emulate_tiled(
                        &dir,
                        &bin,
                        n,
                        &bytes_of(&xs),
                        exclusive,
                        mode,
                        span,
                        Some(len),
                        None,
                    );
                    let want = if exclusive {
                        cpu.exclusive_scan(sum_i32, &dx)
                    } else {
                        cpu.scan(sum_i32, &dx)
                    };
                    let want = bytes_of(&want.unwrap().download().unwrap());
                    assert!(got[..4 * m] == want[..], "{what}");
                    assert!(
                        got[4 * m..].iter().all(|&b| b == 0xa5),
                        "past the length {what}"
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn a_scan_from_an_initial_value_matches_the_cpu_in_emulation() {
    // `init` enters each output as op(init, its scan), in every prefix mode, with and without
    // a device-resident length: the CPU backend's scan_from, bit for bit (exact operators, and
    // floats whose partial sums are exact).
    let Some(dir) = emu::folder("scan-init", MAIN) else {
        return;
    };
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let int_bin = emu::build(
        &dir,
        "int",
        &axis_module::<sum_i32, DeviceVec<i32>>().source,
        &[],
    );
    let float_bin = emu::build(
        &dir,
        "float",
        &axis_module::<sum_f32, DeviceVec<f32>>().source,
        &[],
    );
    let span = scan_span(&[4], 4);
    let tile = BLOCK_TILE * span;
    for n in [1usize, 37, tile - 1, tile + 1, 5 * tile + 77] {
        let ints: Vec<i32> = (0..n).map(|_| r.random()).collect();
        let floats: Vec<f32> = (0..n)
            .map(|_| r.random_range(-1000i32..=1000) as f32)
            .collect();
        let (di, df) = (cpu.upload(&ints).unwrap(), cpu.upload(&floats).unwrap());
        for exclusive in [false, true] {
            for mode in [ScanMode::Tree, ScanMode::LookBack, ScanMode::ExactSum] {
                let init: i32 = r.random_range(-100_000..100_000);
                let what = format!("n={n} {mode:?} exclusive={exclusive} init={init}");
                let want = match exclusive {
                    true => cpu.exclusive_scan_from(sum_i32, &di, init),
                    false => cpu.scan_from(sum_i32, &di, init),
                };
                let want = bytes_of(&want.unwrap().download().unwrap());
                let got = emulate_tiled(
                    &dir,
                    &int_bin,
                    n,
                    &bytes_of(&ints),
                    exclusive,
                    mode,
                    span,
                    None,
                    Some(init as i64),
                );
                assert!(got == want, "i32 {what}");
                let want = match exclusive {
                    true => cpu.exclusive_scan_from(sum_f32, &df, init as f32),
                    false => cpu.scan_from(sum_f32, &df, init as f32),
                };
                let want = bytes_of(&want.unwrap().download().unwrap());
                let got = emulate_tiled(
                    &dir,
                    &float_bin,
                    n,
                    &bytes_of(&floats),
                    exclusive,
                    mode,
                    span,
                    None,
                    Some(init as i64),
                );
                assert!(got == want, "f32 {what}");
            }
            // With a device-resident length: the first `len` places only.
            let len = (n / 2) as u64;
            let m = len as usize;
            let init: i32 = r.random_range(-100_000..100_000);
            let dx = cpu.upload(&ints[..m]).unwrap();
            let want = match exclusive {
                true => cpu.exclusive_scan_from(sum_i32, &dx, init),
                false => cpu.scan_from(sum_i32, &dx, init),
            };
            let want = bytes_of(&want.unwrap().download().unwrap());
            let got = emulate_tiled(
                &dir,
                &int_bin,
                n,
                &bytes_of(&ints),
                exclusive,
                ScanMode::LookBack,
                span,
                Some(len),
                Some(init as i64),
            );
            let what = format!("n={n} len={len} exclusive={exclusive} init={init}");
            assert!(got[..4 * m] == want[..], "{what}");
            assert!(
                got[4 * m..].iter().all(|&b| b == 0xa5),
                "past the length {what}"
            );
        }
    }
}
