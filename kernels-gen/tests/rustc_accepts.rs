//! rustc accepts the fuzzer's programs: generated programs of a few seeds, in one file, compile
//! as a library without overflow checks (the DSL's release semantics) and with no error. The
//! deny-by-default lints (`overflowing_literals`, `arithmetic_overflow`, `unconditional_panic`)
//! are errors here, as they are for any crate: the fidelity build must not need to allow them.
//!
//! It runs `$RUSTC` (or `rustc` from `PATH`). `FUZZ_SEEDS` (comma-separated) and `FUZZ_COUNT`
//! choose other programs than the three seeds of 1000 programs checked by default, e.g.
//! `FUZZ_SEEDS=771,1,2,20261130 FUZZ_COUNT=4000 cargo test -p warpdsl-kernels-gen --test
//! rustc_accepts`.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

#[test]
fn rustc_accepts_generated_programs() {
    let seeds: Vec<u64> = match std::env::var("FUZZ_SEEDS") {
        Ok(s) => s
            .split(',')
            .map(|x| x.trim().parse().expect("FUZZ_SEEDS: comma-separated seeds"))
            .collect(),
        Err(_) => vec![771, 1, 20_261_130],
    };
    let count: usize = std::env::var("FUZZ_COUNT")
        .ok()
        .map(|v| v.parse().expect("FUZZ_COUNT: a number"))
        .unwrap_or(1000);
    let mut src = String::from("#![allow(unused, clippy::all)]\n");
    for seed in &seeds {
        let _ = writeln!(src, "mod seed_{seed} {{\n    use half::{{bf16, f16}};");
        for p in kernels_gen::fuzz::generate(*seed, count) {
            src.push_str(&p.source);
        }
        src.push_str("}\n");
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rustc_accepts");
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("programs.rs");
    std::fs::write(&file, &src).expect("write the programs");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    // The programs use the `half` crate's f16/bf16: the rlib this test binary was built with.
    let (deps, half) = half_rlib();
    let out = Command::new(&rustc)
        .args(["--edition", "2024", "--crate-type", "lib"])
        .args(["-C", "overflow-checks=off", "-o"])
        .arg(dir.join("programs.rlib"))
        .arg("-L")
        .arg(format!("dependency={}", deps.display()))
        .arg("--extern")
        .arg(format!("half={}", half.display()))
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{rustc}`: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert!(
        out.status.success(),
        "rustc rejects programs of seeds {seeds:?} ({count} each) in {}: {} error lines; the first:\n{}",
        file.display(),
        errors.len(),
        stderr.chars().take(6000).collect::<String>()
    );
}

/// The folder of this test's dependencies and the newest `half` rlib in it (kernels-gen depends
/// on `half` through warp-kernels, so cargo built it there).
fn half_rlib() -> (std::path::PathBuf, std::path::PathBuf) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("the deps folder").to_path_buf();
    let half = std::fs::read_dir(&deps)
        .expect("the deps folder is readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libhalf-") && n.ends_with(".rlib"))
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("a libhalf rlib beside the test binary");
    (deps, half)
}
