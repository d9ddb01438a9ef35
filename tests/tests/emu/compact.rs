//! The generated compaction kernel (`wd_k_compact`: filter and partition), run on the CPU: the
//! module's CUDA compiled as C++20 with the host emulation of tests/emu/shim.h, launched as
//! the runtime launches it (a block per block tile of the input's length, in order, zeroed
//! status), with and without a device-resident length (`input.take(&count)`: the kernel reads
//! the first `len` elements, its grid and look-back over the whole length). The kept and
//! rejected values and the count (and its mirror) must be the CPU backend's partition of the
//! first `len` elements, and no place past them written. Needs g++ (C++20):
//! `WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored compact::`.

use std::path::Path;
use std::process::Command;

use rand::Rng;
use warp_kernels::catalogue::BLOCK_TILE;
use warp_runtime::DeviceVec;
use warp_runtime::impl_::predicate_module;
use warp_runtime::prelude::*;
use warp_tests::emu::bytes_of;
use warp_tests::ops::{u32_multiple_of, u32_multiple_of_with};
use warp_tests::{emu, rng, seed};

const MAIN: &str = include_str!("../../emu/compact_main.cpp");

/// One emulated compaction of the `n` elements `input` (C bytes) by multiples of `m`, reading
/// the first `len` (`None`: all); returns the kept and rejected places and the count and its
/// mirror.
fn emulate(
    dir: &Path,
    bin: &Path,
    n: usize,
    len: Option<u64>,
    m: u32,
    input: &[u8],
) -> (Vec<u8>, Vec<u8>, u64, u64) {
    let (src, out) = (dir.join("compact.in"), dir.join("compact.out"));
    std::fs::write(&src, input).unwrap();
    let len = len.map_or("-".to_string(), |l| l.to_string());
    let run = Command::new(bin)
        .arg(n.to_string())
        .arg(&len)
        .arg(format!("{m:x}"))
        .arg(&out)
        .arg(&src)
        .output()
        .expect("the emulation runs");
    assert!(
        run.status.success(),
        "n={n} len={len}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let read = |ext: &str| std::fs::read(out.with_extension(format!("out.{ext}"))).unwrap();
    let word = |ext: &str| u64::from_le_bytes(read(ext).try_into().unwrap());
    (
        read("kept"),
        read("rejected"),
        word("count"),
        word("mirror"),
    )
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1"]
fn compaction_stops_at_a_device_length_in_emulation() {
    let Some(dir) = emu::folder("compact", MAIN) else {
        return;
    };
    let cpu = Device::cpu();
    let mut r = rng(seed());
    let module = predicate_module::<u32_multiple_of_with<u32>, DeviceVec<u32>>();
    let bin = emu::build(&dir, "compact", &module.source, &[]);
    let tile = BLOCK_TILE;
    for n in [1usize, 37, tile - 1, tile, tile + 1, 3 * tile + 77] {
        let xs: Vec<u32> = (0..n).map(|_| r.random_range(0..1000)).collect();
        let input = bytes_of(&xs);
        let lens = [
            None,
            Some(0),
            Some(1),
            Some(n as u64 / 2),
            Some(n as u64 - 1),
            Some(n as u64),
            Some(n as u64 + 5),
            Some(u64::MAX),
        ];
        for len in lens {
            let m = len.map_or(n, |l| l.min(n as u64) as usize);
            let what = format!("n={n} len={len:?}");
            let dx = cpu.upload(&xs[..m]).unwrap();
            let (yes, no) = cpu.partition(u32_multiple_of.with(3), &dx).unwrap();
            let (yes, no) = (yes.download().unwrap(), no.download().unwrap());
            let (kept, rejected, count, mirror) = emulate(&dir, &bin, n, len, 3, &input);
            assert_eq!(count, yes.len() as u64, "count {what}");
            assert_eq!(mirror, count, "mirror {what}");
            assert_eq!(&kept[..4 * yes.len()], &bytes_of(&yes)[..], "kept {what}");
            assert_eq!(
                &rejected[..4 * no.len()],
                &bytes_of(&no)[..],
                "rejected {what}"
            );
            // Nothing written past the values placed.
            assert!(
                kept[4 * yes.len()..].iter().all(|&b| b == 0xa5),
                "kept past the count {what}"
            );
            assert!(
                rejected[4 * no.len()..].iter().all(|&b| b == 0xa5),
                "rejected past the others {what}"
            );
        }
    }
}
