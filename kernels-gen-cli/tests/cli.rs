//! The `kernels-gen` command end to end: emit, check, and clear errors for bad input.

use std::process::Command;

fn kernels_gen(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kernels-gen"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("kernels-gen-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const GOOD: &str = "use warp_runtime::prelude::*;\n\n#[reduce(identity = 0)]\nfn sum(a: i32, b: i32) -> i32 {\n    a.wrapping_add(b)\n}\n\n#[reduce(identity = (f32::NEG_INFINITY, u32::MAX), style = \"cooperative_groups\")]\nfn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {\n    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) { b } else { a }\n}\n";

#[test]
fn emit_prints_the_cuda_of_every_function() {
    let f = write("good.rs", GOOD);
    let (code, out, err) = kernels_gen(&["emit", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("// ===== #[reduce] sum ====="));
    assert!(out.contains("// ===== #[reduce] argmax ====="));
    assert_eq!(out.matches("\nwd_k_reduce(").count(), 2, "{out}");
    assert!(
        out.contains("(`f32`, `u32` index) pairs"),
        "argmax reads indexed pairs"
    );
    assert!(
        out.contains(&format!("#line 5 \"{f}\"")),
        "line directives point at the file"
    );
}

#[test]
fn check_reports_resources_and_instructions() {
    if warp_runtime::toolchain::nvrtc_version().is_err() {
        assert!(
            std::env::var_os("WARP_REQUIRE_NVRTC").is_none(),
            "NVRTC required but missing"
        );
        eprintln!("SKIPPED: NVRTC not available");
        return;
    }
    let f = write("good.rs", GOOD);
    let (code, out, err) = kernels_gen(&["check", &f, "--arch", "sm_90"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("  wd_k_reduce:").count(), 2, "{out}");
    assert!(out.contains("registers"), "{out}");
    assert!(
        out.contains("redux 1") || out.contains("redux "),
        "sum uses redux.sync: {out}"
    );
    assert!(out.contains("16-byte loads"), "{out}");
    assert!(out.contains("shuffles"), "{out}");
}

#[test]
fn bad_input_gives_clear_errors() {
    let (code, _, err) = kernels_gen(&["emit", "/nonexistent/file.rs"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read /nonexistent/file.rs"), "{err}");
    let f = write("bad_rust.rs", "fn oops( {");
    let (code, _, err) = kernels_gen(&["emit", &f]);
    assert_eq!(code, 1);
    assert!(err.contains("not valid Rust"), "{err}");
    let f = write(
        "unsupported.rs",
        "#[reduce(identity = 0)]\nfn s(a: u32, b: u32) -> u32 {\n    for _ in 0..2 {}\n    a + b\n}\n",
    );
    let (code, _, err) = kernels_gen(&["emit", &f]);
    assert_eq!(code, 1);
    assert!(err.contains("`for` loops are not supported"), "{err}");
    assert!(
        err.contains(":3:5"),
        "error located at line 3, column 5: {err}"
    );
    let f = write("none.rs", "fn plain() {}\n");
    let (code, _, err) = kernels_gen(&["emit", &f]);
    assert_eq!(code, 1);
    assert!(err.contains("no #[reduce] functions"), "{err}");
    let (code, _, err) = kernels_gen(&["check", &f, "--arch", "banana"]);
    assert_eq!(code, 2);
    assert!(err.contains("--arch takes sm_XY"), "{err}");
}

#[test]
fn cache_list_and_clear() {
    let dir = std::env::temp_dir().join(format!("kernels-gen-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ab.cubin"), vec![1u8; 100]).unwrap();
    std::fs::write(dir.join("cd.cubin"), vec![1u8; 50]).unwrap();
    std::fs::write(dir.join("notes.txt"), b"not a kernel").unwrap();
    let run = |args: &[&str], vars: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_kernels-gen"))
            .args(args)
            .env("WARP_CACHE_DIR", &dir)
            .env_remove("WARP_CACHE")
            .env_remove("WARP_CACHE_MAX_MB")
            .envs(vars.iter().copied())
            .output()
            .expect("runs");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["cache", "list"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("ab.cubin") && out.contains("cd.cubin"),
        "{out}"
    );
    assert!(!out.contains("notes.txt"), "{out}");
    assert!(out.contains("2 files, 150 bytes (cap 512 MiB)"), "{out}");
    let (code, out, _) = run(&["cache", "list"], &[("WARP_CACHE", "off")]);
    assert_eq!(code, 0);
    assert!(out.contains("off"), "{out}");
    let (code, _, err) = run(&["cache", "list"], &[("WARP_CACHE", "maybe")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("WARP_CACHE") && err.contains("on, off"),
        "{err}"
    );
    let (code, out, err) = run(&["cache", "clear"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("deleted 2 files (150 bytes)"), "{out}");
    assert!(dir.join("notes.txt").exists(), "only the cache's files");
    let (_, out, _) = run(&["cache", "list"], &[]);
    assert!(out.contains("0 files, 0 bytes"), "{out}");
    let (code, _, err) = run(&["cache", "purge"], &[]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reader that stops early (`kernels-gen emit f.rs | head`) ends the command quietly, with
/// status 0, not a panic: the pipe is closed before the command writes.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    let f = write("pipe.rs", GOOD);
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_kernels-gen"))
        .args(["emit", &f])
        .stdout(writer)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}
