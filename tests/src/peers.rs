//! The benches' peer programs: where they are, building a CUDA peer with nvcc (reused while
//! newer than its source), and running a peer for its standard output.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of the peer programs (`$WARP_PEERS_DIR`, else `benches/peers`).
pub fn dir() -> String {
    std::env::var("WARP_PEERS_DIR").unwrap_or_else(|_| "benches/peers".into())
}

/// Builds `<dir>/<name>.cu` for `sm_<arch>` with CUB's headers (and `-l<lib>` for each of
/// `libs`) into the temporary folder, or reuses a build there newer than the source. `None`
/// (with a line saying why) when there is no nvcc or the build fails.
///
/// ```no_run
/// let bin = warp_tests::peers::build_cuda("cub_peers", 90, &[]);
/// ```
pub fn build_cuda(name: &str, arch: u32, libs: &[&str]) -> Option<PathBuf> {
    let src = PathBuf::from(format!("{}/{name}.cu", dir()));
    let bin = std::env::temp_dir().join(format!("warp-bench-{name}"));
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if matches!((mtime(&bin), mtime(&src)), (Some(b), Some(s)) if b > s) {
        return Some(bin);
    }
    let Some(nvcc) = ["/usr/local/cuda/bin/nvcc", "nvcc"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
    else {
        println!("{name}: nvcc not found; skipped");
        return None;
    };
    let built = Command::new(nvcc)
        .args(["-O3", "-std=c++17", &format!("-arch=sm_{arch}")])
        .args(["-I/usr/local/cuda/include/cccl", "-o"])
        .arg(&bin)
        .arg(&src)
        .args(libs.iter().map(|l| format!("-l{l}")))
        .status();
    if built.is_ok_and(|s| s.success()) {
        Some(bin)
    } else {
        println!("{name}: build failed; skipped");
        None
    }
}

/// The standard output of `cmd` (empty, with a line saying why, when it cannot run).
pub fn stdout(cmd: &mut Command) -> String {
    match cmd.output() {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => {
            println!("{:?}: not runnable ({e}); skipped", cmd.get_program());
            String::new()
        }
    }
}
