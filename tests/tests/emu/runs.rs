//! The generated runs kernel itself (unique, run-length encode, reduce-by-key with values of
//! every input kind), run on the CPU: the module's CUDA compiled as C++20 with the host
//! emulation of tests/emu/shim.h, launched as the runtime launches it (one block per block
//! tile, in order, zeroed status), on keys in runs of several lengths at sizes that end inside
//! a warp tile, at a block tile and past one; its keys, values and run count are compared byte
//! for byte with the CPU backend's. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored runs::`.

use std::path::Path;
use std::process::Command;

use warp_kernels::catalogue::runs_block_tile;
use warp_runtime::impl_::{
    reduce_by_key_input_module, reduce_by_key_module, run_length_module, unique_module,
};
use warp_runtime::prelude::*;
use warp_runtime::toolchain::ModuleSource;
use warp_runtime::{DeviceVec, Equal, Indexed, Mapped};
use warp_tests::emu::bytes_of;
use warp_tests::ops::{argmax_f32, scaled_one, span, span_one, sum_count, sum_f32, sum_pairs};
use warp_tests::runs::{run_keys, value_columns};
use warp_tests::{emu, rng, seed};

const MAIN: &str = include_str!("../../emu/runs_main.cpp");

/// Neighbours within `d` (no `abs`: the emulation's compiler takes no PTX register asm).
#[predicate(inputs = 2)]
fn within(a: i32, b: i32, d: i32) -> bool {
    a - b <= d && b - a <= d
}

/// One emulated launch of `module` over the columns `cols` (n elements each) with bound
/// argument words `args`; the kernel's keys, values (its first `runs` each) and run count must
/// be `want_keys`, `want_vals` (None: no values, as unique) and their number.
#[allow(clippy::too_many_arguments)]
fn emulate(
    dir: &Path,
    name: &str,
    module: &ModuleSource,
    n: usize,
    cols: &[&Vec<u8>],
    args: &[u64],
    want_keys: &[u8],
    want_vals: Option<&[u8]>,
    runs: usize,
) {
    let bin = dir.join(name);
    if !bin.exists() {
        emu::build(dir, name, &module.source, &[]);
    }
    let mut paths = Vec::new();
    for (c, bytes) in cols.iter().enumerate() {
        let p = dir.join(format!("{name}.col{c}"));
        std::fs::write(&p, bytes).unwrap();
        paths.push(p);
    }
    let words: Vec<String> = args.iter().map(|w| format!("{w:x}")).collect();
    let out = dir.join(format!("{name}.out"));
    // i32 keys: the grid the runtime launches for them.
    let block_tile = runs_block_tile(4, want_vals.is_none());
    let status = Command::new(&bin)
        .env("WD_EMU_RUNTIME_BLOCK_TILE", block_tile.to_string())
        .arg(n.to_string())
        .arg(if want_vals.is_some() { "1" } else { "0" })
        .arg(if words.is_empty() {
            "0".to_string()
        } else {
            words.join(",")
        })
        .arg(&out)
        .args(&paths)
        .status()
        .expect("the emulation runs");
    assert!(status.success(), "{name} n={n}: the emulation failed");
    let read = |ext: &str| std::fs::read(out.with_extension(format!("out.{ext}"))).unwrap();
    let count = u64::from_le_bytes(read("count")[..8].try_into().unwrap()) as usize;
    assert_eq!(count, runs, "{name} n={n}: run count");
    let keys = read("keys");
    assert_eq!(&keys[..want_keys.len()], want_keys, "{name} n={n}: keys");
    if let Some(w) = want_vals {
        assert_eq!(&read("vals")[..w.len()], w, "{name} n={n}: values");
    }
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes a minute"]
fn the_runs_kernel_matches_the_cpu_in_emulation() {
    let Some(dir) = emu::folder("runs", MAIN) else {
        return;
    };
    let cpu = Device::cpu();
    let s = seed();
    let mut r = rng(s);
    for n in [1usize, 37, 512, 4097, 3 * 4096 + 700] {
        for mean in [1usize, 3, 64, 5000] {
            let keys = run_keys(&mut r, n, mean);
            let (xs, finite, ys) = value_columns(n);
            let (dk, dx, df, dy) = (
                cpu.upload(&keys).unwrap(),
                cpu.upload(&xs).unwrap(),
                cpu.upload(&finite).unwrap(),
                cpu.upload(&ys).unwrap(),
            );
            let (kb, xb, fb, yb) = (
                bytes_of(&keys),
                bytes_of(&xs),
                bytes_of(&finite),
                bytes_of(&ys),
            );
            // Unique and run-length encode.
            let u = cpu.unique(&dk).unwrap().download().unwrap();
            emulate(
                &dir,
                "unique",
                &unique_module::<i32, Equal>(),
                n,
                &[&kb],
                &[],
                &bytes_of(&u),
                None,
                u.len(),
            );
            let rl = cpu.run_length_encode(&dk).unwrap();
            let (rk, rc) = (rl.keys.download().unwrap(), rl.counts.download().unwrap());
            emulate(
                &dir,
                "rle",
                &run_length_module::<i32, Equal, u32>(),
                n,
                &[&kb],
                &[],
                &bytes_of(&rk),
                Some(&bytes_of(&rc)),
                rk.len(),
            );
            // Reduce-by-key: one array (finite values: exact sums in any order).
            let by = cpu.reduce_by_key(sum_f32, &dk, &df).unwrap();
            let (bk, bv) = (by.keys.download().unwrap(), by.values.download().unwrap());
            emulate(
                &dir,
                "sum",
                &reduce_by_key_module::<i32, Equal, sum_f32>(),
                n,
                &[&kb, &fb],
                &[],
                &bytes_of(&bk),
                Some(&bytes_of(&bv)),
                bk.len(),
            );
            // (value, index) pairs, NaN included.
            let by = cpu.reduce_by_key(argmax_f32, &dk, &dx.indexed()).unwrap();
            let bv = by.values.download().unwrap();
            emulate(
                &dir,
                "argmax",
                &reduce_by_key_input_module::<i32, Equal, argmax_f32, Indexed<'static, f32>>(),
                n,
                &[&kb, &xb],
                &[],
                &bytes_of(&bk),
                Some(&bytes_of(&bv)),
                bk.len(),
            );
            // A map with a bound argument, keys compared by a predicate with one after it.
            let by = cpu
                .reduce_by_key_by(
                    within.with(1),
                    sum_count,
                    &dk,
                    &df.map(scaled_one.with(2.0)),
                )
                .unwrap();
            let (wk, wv) = (by.keys.download().unwrap(), by.values.download().unwrap());
            emulate(
                &dir,
                "mapped",
                &reduce_by_key_input_module::<
                    i32,
                    within_with<i32>,
                    sum_count,
                    Mapped<'static, warp_tests::ops::scaled_one_with<f32>>,
                >(),
                n,
                &[&kb, &fb],
                &[2.0f32.to_bits() as u64, 1],
                &bytes_of(&wk),
                Some(&bytes_of(&wv)),
                wk.len(),
            );
            // Zipped arrays as a tuple, and a map to a struct.
            let by = cpu.reduce_by_key(sum_pairs, &dk, &(&dk, &dy)).unwrap();
            let bv = by.values.download().unwrap();
            emulate(
                &dir,
                "zipped",
                &reduce_by_key_input_module::<
                    i32,
                    Equal,
                    sum_pairs,
                    (&'static DeviceVec<i32>, &'static DeviceVec<i32>),
                >(),
                n,
                &[&kb, &kb, &yb],
                &[],
                &bytes_of(&bk),
                Some(&bytes_of(&bv)),
                bk.len(),
            );
            let by = cpu.reduce_by_key(span, &dk, &df.map(span_one)).unwrap();
            let bv = by.values.download().unwrap();
            emulate(
                &dir,
                "span",
                &reduce_by_key_input_module::<i32, Equal, span, Mapped<'static, span_one>>(),
                n,
                &[&kb, &fb],
                &[],
                &bytes_of(&bk),
                Some(&bytes_of(&bv)),
                bk.len(),
            );
            eprintln!("n={n} mean={mean}: ok (seed {s})");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
