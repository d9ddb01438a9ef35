//! The CPU emulation of generated kernels (tests/emu/shim.h): a scratch folder holding the shim
//! and a driver program, the g++ build of a module against that driver, and the C layout of
//! the values it reads and writes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C layout of `values`: what an emulated kernel reads and writes.
pub fn bytes_of<T: warp_runtime::DeviceValue>(values: &[T]) -> Vec<u8> {
    let mut out = vec![0u8; values.len() * T::C_SIZE];
    for (v, b) in values.iter().zip(out.chunks_exact_mut(T::C_SIZE)) {
        v.write_c(b);
    }
    out
}

/// The host emulation of the CUDA subset the emulated kernels use.
pub const SHIM: &str = include_str!("../emu/shim.h");

/// A scratch folder for the emulation `name` holding the shim and the driver `main` (written
/// as `main.cpp`), or `None` (with a note) unless `WARP_EMU` is set: the emulations are
/// `#[ignore]`d tests that `--ignored` GPU runs would also take, so they are asked for alone.
pub fn folder(name: &str, main: &str) -> Option<PathBuf> {
    if std::env::var_os("WARP_EMU").is_none() {
        eprintln!("skipped: set WARP_EMU=1 to run the emulation");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("warp-{name}-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shim.h"), SHIM).unwrap();
    std::fs::write(dir.join("main.cpp"), main).unwrap();
    Some(dir)
}

/// Builds the driver of `dir` with the module `source` (as MODULE) and the `-D` definitions
/// `defines` into the program `bin` (C++20, -O1); panics with g++'s errors.
pub fn build(dir: &Path, bin: &str, source: &str, defines: &[String]) -> PathBuf {
    let module = dir.join(format!("{bin}.cu"));
    std::fs::write(&module, format!("#include \"shim.h\"\n{source}")).unwrap();
    let out = dir.join(bin);
    let built = Command::new("g++")
        .args(["-std=c++20", "-O1", "-w", "-pthread"])
        .arg(format!("-DMODULE=\"{}\"", module.display()))
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(dir.join("main.cpp"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("g++ runs");
    assert!(
        built.status.success(),
        "{bin}: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    out
}

/// Runs the driver `bin` (from [`build`]) and asserts that it succeeded and printed `ALL OK`;
/// panics with its output (labelled `what`) otherwise.
pub fn run_ok(bin: &Path, what: &str) {
    let out = Command::new(bin).output().expect("the emulation runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("ALL OK"),
        "{what}: {text}"
    );
}
