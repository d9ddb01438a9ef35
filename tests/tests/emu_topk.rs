//! The generated top-k kernel itself, run on the CPU: the module's CUDA compiled as C++20 with
//! a host emulation of the block (tests/emu/shim.h: 256 threads, barriers, warp votes and
//! shuffles), its sample level (for some cases, its bound checked too) and its levels launched
//! as the runtime launches them, blocks one after another, on random bits (NaNs of every kind
//! for floats), ascending, all-equal and three-valued inputs, k = 1, 100, 1,024, both
//! directions, one or two levels; checked against a sort. Needs g++
//! (C++20) and a few minutes: `cargo test -p warp-tests --test emu_topk -- --ignored`.

use std::path::Path;
use std::process::Command;

use warp_runtime::half::f16;
use warp_runtime::{Ordered, topk_module};

const SHIM: &str = include_str!("../emu/shim.h");
const MAIN: &str = include_str!("../emu/topk_main.cpp");

fn emulate<T: Ordered>(dir: &Path, elem: &str, gen_up: &str) {
    let module = dir.join(format!("topk_{}.cu", T::NAME));
    let src = format!("#include \"shim.h\"\n{}", topk_module::<T>().source);
    std::fs::write(&module, src).unwrap();
    let bin = dir.join(format!("emu_{}", T::NAME));
    let built = Command::new("g++")
        .args(["-std=c++20", "-O1", "-w", "-pthread"])
        .arg(format!("-DMODULE=\"{}\"", module.display()))
        .arg(format!("-DELEM={elem}"))
        .arg(format!("-DGEN_UP={gen_up}"))
        .arg(dir.join("topk_main.cpp"))
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("g++ runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = Command::new(&bin).output().expect("the emulation runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("ALL OK"),
        "{}: {text}",
        T::NAME
    );
}

#[test]
#[ignore = "needs g++ (C++20) and WARP_EMU=1; takes minutes"]
fn the_topk_kernel_is_exact_in_emulation() {
    // `--ignored` runs also take the GPU tests; this one is a CPU emulation, asked for alone.
    if std::env::var_os("WARP_EMU").is_none() {
        eprintln!("skipped: set WARP_EMU=1 to run the emulation");
        return;
    }
    let dir = std::env::temp_dir().join(format!("warp-topk-emu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shim.h"), SHIM).unwrap();
    std::fs::write(dir.join("topk_main.cpp"), MAIN).unwrap();
    emulate::<f32>(
        &dir,
        "wd_f32",
        "float fu = (float)i - 100.0f; std::memcpy(&up[i], &fu, 4);",
    );
    emulate::<f64>(
        &dir,
        "wd_f64",
        "double d = (double)i - 100.0; std::memcpy(&up[i], &d, 8);",
    );
    emulate::<u64>(&dir, "wd_u64", "std::memcpy(&up[i], &u, 8);");
    emulate::<i8>(
        &dir,
        "wd_i8",
        "signed char c = (signed char)(i / 64); std::memcpy(&up[i], &c, 1);",
    );
    emulate::<f16>(
        &dir,
        "wd_f16",
        "unsigned short h = (unsigned short)(0x3c00 + i / 8); std::memcpy(&up[i], &h, 2);",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
