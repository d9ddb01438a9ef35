//! The warp and block primitives (warp-kernels' `warp.cuh` and `block.cuh`) on their own, run on
//! the CPU: the test kernels of tests/emu/primitives.cuh compiled as C++20 with the host
//! emulation of tests/emu/shim.h (one block of 256 threads), each output checked against plain
//! sequential Rust (`warp_tests::primitives`): warp reduce, all-reduce, ordered fold, inclusive,
//! exclusive and segmented scans, ballot ranks, lower bound, block reduce and scans, radix digit
//! histogram and pick, bitonic sort, tile loads and stores with odd tails and misaligned ends.
//! Needs g++ (C++20): `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored`.

use std::process::Command;

use warp_tests::primitives::{self, Case};
use warp_tests::{emu, rng, seed};

const MAIN: &str = include_str!("../../emu/primitives_main.cpp");

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn the_primitives_match_sequential_rust_in_emulation() {
    let Some(dir) = emu::folder("primitives", MAIN) else {
        return;
    };
    let bin = emu::build(&dir, "primitives", &primitives::source(), &[]);
    let (input, output) = (dir.join("in"), dir.join("out"));
    let ran = primitives::run_all(&mut rng(seed()), |c: &Case| {
        let bytes: Vec<u8> = c.input.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&input, bytes).unwrap();
        let run = Command::new(&bin)
            .arg(c.kernel)
            .arg(c.n.to_string())
            .arg(c.arg.to_string())
            .arg(&input)
            .arg(&output)
            .arg(c.out_words.to_string())
            .output()
            .expect("the emulation runs");
        assert!(
            run.status.success(),
            "{} n={} arg={}: the emulation failed: {}",
            c.kernel,
            c.n,
            c.arg,
            String::from_utf8_lossy(&run.stderr)
        );
        std::fs::read(&output)
            .unwrap()
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    });
    assert!(ran > 100, "{ran} cases");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_test_kernel_is_listed() {
    for name in primitives::NAMES {
        assert!(
            primitives::KERNELS.contains(&format!("WD_T_KERNEL({name})")),
            "{name} is not a test kernel"
        );
        assert!(
            primitives::KERNELS.contains(&format!("X({name})")),
            "{name} is not in WD_T_KERNELS"
        );
    }
    assert_eq!(
        primitives::KERNELS.matches("\nWD_T_KERNEL(").count(),
        primitives::NAMES.len()
    );
}
