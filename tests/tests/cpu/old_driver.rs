//! A CUDA driver too old for warp-dsl, without such a driver: small stand-in `libcuda.so.1`
//! libraries (built here with the system C compiler, found through `WARP_CUDA_DRIVER_PATH`)
//! report an old CUDA version, or a new one but lack the entry points of the CUDA 12.0 API
//! (`LD_LIBRARY_PATH` puts them first; where a real driver still wins, as on the GPU machine, a
//! case reports itself not checked there, which only a machine with a driver installed may).
//! `Device::cuda(0)` must fail with a typed `Error::NoGpu` that says why, `Device::auto()` must
//! fall back to the CPU backend with a warning event carrying that reason, and the device
//! setting `cuda` must fail instead of falling back. Each driver is loaded in a child
//! process of this test binary (the library is found once per process).
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::Command;

use warp_runtime::settings::DeviceChoice;
use warp_runtime::toolchain::DRIVER_DIRS;
use warp_runtime::{Device, Error, Settings};
use warp_tests::events::Capture;

/// Set in the child: what its reason must say, and the version its stand-in driver reports.
const CHILD: &str = "WARP_TEST_OLD_DRIVER_EXPECT";
const VERSION: &str = "WARP_TEST_OLD_DRIVER_VERSION";
/// The child's exit status when a system driver was loaded instead of the stand-in.
const SHADOWED: i32 = 77;
/// A stand-in driver: `cuDriverGetVersion` reports `version`; with `init`, `cuInit` exists and
/// succeeds (and nothing else does).
fn fake_driver(dir: &Path, version: i32, init: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut c = format!("int cuDriverGetVersion(int* v) {{ *v = {version}; return 0; }}\n");
    if init {
        c.push_str("int cuInit(unsigned flags) { (void)flags; return 0; }\n");
    }
    let src = dir.join("fake_cuda.c");
    std::fs::write(&src, c).unwrap();
    let lib = dir.join("libcuda.so.1");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
        .arg(&lib)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| {
            panic!("the C compiler `{cc}` (needed to build a stand-in driver): {e}")
        });
    assert!(
        out.status.success(),
        "building the stand-in driver: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.to_path_buf()
}

/// What the child checks with the stand-in driver it was given: every way in to a GPU says
/// `expect` and none of them runs anything on the CPU silently.
fn child(expect: &str, version: i32) {
    let loaded = warp_runtime::toolchain::driver_version();
    if loaded != Some(version) {
        // A system driver was loaded instead (the stand-in could not be loaded first here).
        println!("shadowed: the driver loaded reports {loaded:?}");
        std::process::exit(SHADOWED);
    }
    match Device::cuda(0) {
        Err(Error::NoGpu { reason }) => assert!(
            reason.contains(expect),
            "Device::cuda(0)'s reason {reason:?} does not say {expect:?}"
        ),
        other => panic!("Device::cuda(0) with a stand-in driver: {other:?}"),
    }
    // The parent leaves WARP_DEVICE unset in the child's environment.
    let (dev, events) = Capture::run(Device::auto);
    let dev = dev.expect("Device::auto() falls back instead of failing");
    assert!(!dev.is_gpu(), "Device::auto() chose {}", dev.describe());
    let warning = events
        .iter()
        .find(|e| e.level == tracing::Level::WARN)
        .unwrap_or_else(|| panic!("no warning event for the fallback: {events:?}"));
    let reason = warning.get("reason").unwrap_or("");
    assert!(
        reason.contains(expect),
        "the fallback's warning {warning:?} does not say {expect:?}"
    );
    let cuda = Settings::new().device(DeviceChoice::Cuda(0));
    match Device::auto_with(&cuda) {
        Err(Error::NoGpu { reason }) => assert!(reason.contains(expect), "{reason}"),
        other => panic!("the device setting `cuda` with a stand-in driver: {other:?}"),
    }
}

/// This test's name as the harness lists it (its module path past the binary's name), which
/// the child runs alone.
fn this_test() -> String {
    let module = module_path!()
        .split_once("::")
        .map_or(String::new(), |(_, m)| format!("{m}::"));
    format!("{module}a_driver_too_old_is_a_typed_error_and_a_reasoned_fallback")
}

#[test]
fn a_driver_too_old_is_a_typed_error_and_a_reasoned_fallback() {
    if let Ok(expect) = std::env::var(CHILD) {
        child(&expect, std::env::var(VERSION).unwrap().parse().unwrap());
        return;
    }
    // Beside the test binary, not in the temporary folder: that may be mounted noexec, and a
    // library there fails to load.
    let exe = std::env::current_exe().unwrap();
    let root = exe
        .parent()
        .unwrap()
        .join(format!("warp-old-driver-{}", std::process::id()));
    let cases = [
        // CUDA 11.8 (driver 520): the version check.
        (
            11080,
            false,
            "supports CUDA 11.8; warp-dsl needs CUDA 12.0 or newer",
        ),
        // Claims CUDA 12.0 but has none of its entry points beyond cuInit: the context's
        // creation finds one missing.
        (
            12000,
            true,
            "too old for CUDA 12.0 (a driver entry point is missing)",
        ),
    ];
    for (i, (version, init, expect)) in cases.into_iter().enumerate() {
        let dir = fake_driver(&root.join(i.to_string()), version, init);
        let out = Command::new(&exe)
            .args([
                "--exact",
                &this_test(),
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env("WARP_CUDA_DRIVER_PATH", &dir)
            .env("LD_LIBRARY_PATH", &dir)
            .env(CHILD, expect)
            .env(VERSION, version.to_string())
            .env_remove("WARP_DEVICE")
            .env_remove("WARP_QUIET")
            .output()
            .unwrap();
        if out.status.code() == Some(SHADOWED) {
            // Only where a real driver is installed (never on CI, which has none).
            // A driver where the loader looks (a machine with one may shadow the stand-in).
            let system = DRIVER_DIRS
                .iter()
                .map(|d| Path::new(d).join("libcuda.so.1"))
                .find(|p| p.exists());
            assert!(
                system.is_some(),
                "the stand-in driver was shadowed on a machine without a system driver:\n{}",
                String::from_utf8_lossy(&out.stdout)
            );
            println!(
                "not checked here: the system driver {} was loaded instead of the stand-in",
                system.unwrap().display()
            );
            continue;
        }
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains(" 1 passed"),
            "driver reporting {version} (cuInit: {init}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}
