//! The generated scan kernel's fixed-tree prefix (the deterministic one-pass scan of floats),
//! run on the CPU: the module's CUDA compiled as C++20 with the host emulation of
//! tests/emu/shim.h and launched as the runtime launches it (one block per block tile, in
//! order, zeroed status), up to 300 tiles (nine levels of nodes). Exact operators (integers,
//! and floats whose partial sums are exact) must give the CPU backend's scan bit for bit,
//! inclusive and exclusive, in tree mode and in look-back mode. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu_scan -- --ignored`.

use std::path::Path;
use std::process::Command;

use rand::Rng;
use warp_kernels::catalogue::{BLOCK_TILE, ScanMode};
use warp_runtime::prelude::*;
use warp_runtime::{DeviceVec, axis_module};
use warp_tests::emu::bytes_of;
use warp_tests::ops::{sum_f32, sum_i32};
use warp_tests::{emu, rng, seed};

const MAIN: &str = include_str!("../emu/scan_main.cpp");

/// One emulated scan of `input` (its C bytes, `n` elements); returns the output's bytes.
fn emulate(
    dir: &Path,
    bin: &Path,
    n: usize,
    input: &[u8],
    exclusive: bool,
    mode: ScanMode,
) -> Vec<u8> {
    let (src, out) = (dir.join("scan.in"), dir.join("scan.out"));
    std::fs::write(&src, input).unwrap();
    let status = Command::new(bin)
        .arg(n.to_string())
        .arg((exclusive as u32).to_string())
        .arg((mode as u32).to_string())
        .arg(&src)
        .arg(&out)
        .status()
        .expect("the emulation runs");
    assert!(status.success(), "n={n}: the emulation failed");
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
    // Sizes ending inside a tile, at one, past one, and 300 tiles (the largest once per
    // type: an emulated block tile takes ~50 ms).
    let big = 300;
    for n in [
        1usize,
        37,
        BLOCK_TILE - 1,
        BLOCK_TILE,
        BLOCK_TILE + 1,
        5 * BLOCK_TILE + 77,
        big * BLOCK_TILE - 3,
    ] {
        let ints: Vec<i32> = (0..n).map(|_| r.random::<i32>()).collect();
        // Small integers as floats: every partial sum is exact, so any grouping agrees.
        let floats: Vec<f32> = (0..n)
            .map(|_| r.random_range(-1000i32..=1000) as f32)
            .collect();
        let (di, df) = (cpu.upload(&ints).unwrap(), cpu.upload(&floats).unwrap());
        for exclusive in [false, true] {
            let big_one = n > 20 * BLOCK_TILE;
            let (int_too, float_too) = if big_one {
                (!exclusive, exclusive)
            } else {
                (true, true)
            };
            for mode in [ScanMode::Tree, ScanMode::LookBack] {
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
