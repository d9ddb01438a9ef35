//! The environment variables through `warp_runtime::settings` and what they change, with the
//! library's `tracing` events captured by a test subscriber (the library prints nothing). The
//! tests set process-wide variables, so they run one at a time (a lock), in a binary of their
//! own (no other test reads the environment meanwhile).

use std::sync::Mutex;

use tracing::Level;
use warp_runtime::{Device, Error};
use warp_tests::events::{Capture, Captured};

static ENV: Mutex<()> = Mutex::new(());

/// Runs `f` with the variables `vars` set (others of the list unset) and the events captured.
fn with_env<R>(vars: &[(&str, &str)], f: impl FnOnce() -> R) -> (R, Vec<Captured>) {
    let _g = ENV.lock().unwrap_or_else(|e| e.into_inner());
    const ALL: &[&str] = &[
        "WARP_DEVICE",
        "WARP_QUIET",
        "WARP_CACHE",
        "WARP_CACHE_MAX_MB",
        "WARP_TILE_QUEUE",
        "WARP_POISON",
    ];
    for v in ALL {
        // SAFETY: the tests of this file take the lock first; nothing else reads the
        // environment concurrently in this test binary.
        unsafe { std::env::remove_var(v) };
    }
    for (k, v) in vars {
        // SAFETY: as above.
        unsafe { std::env::set_var(k, v) };
    }
    let (r, events) = Capture::run(f);
    for (k, _) in vars {
        // SAFETY: as above.
        unsafe { std::env::remove_var(k) };
    }
    (r, events)
}

/// Whether this machine has a usable CUDA GPU.
fn has_gpu() -> bool {
    Device::cuda(0).is_ok()
}

#[test]
fn warp_device_cpu_needs_no_gpu() {
    let (dev, events) = with_env(&[("WARP_DEVICE", "cpu")], Device::auto);
    let dev = dev.expect("the CPU backend");
    assert!(!dev.is_gpu());
    assert!(
        events
            .iter()
            .any(|e| e.level == Level::INFO && e.message().contains("CPU backend")),
        "{events:?}"
    );
}

#[test]
fn warp_device_cuda_without_a_gpu_is_the_typed_error() {
    if has_gpu() {
        return;
    }
    for v in ["cuda", "cuda:0", "CUDA:3"] {
        let (r, _) = with_env(&[("WARP_DEVICE", v)], Device::auto);
        assert!(matches!(r, Err(Error::NoGpu { .. })), "{v}: {r:?}");
    }
}

#[test]
fn unset_falls_back_to_the_cpu_with_a_warning_event() {
    if has_gpu() {
        return;
    }
    let (dev, events) = with_env(&[], Device::auto);
    assert!(!dev.expect("the fallback").is_gpu());
    let warn = events
        .iter()
        .find(|e| e.level == Level::WARN)
        .expect("a warning event");
    assert!(
        warn.message().contains("running on the CPU backend"),
        "{warn:?}"
    );
    assert!(
        warn.get("reason").is_some_and(|r| !r.is_empty()),
        "{warn:?}"
    );
    // Quiet: the same choice, as a debug event.
    let (_, events) = with_env(&[("WARP_QUIET", "on")], Device::auto);
    assert!(events.iter().all(|e| e.level == Level::DEBUG), "{events:?}");
}

/// On a GPU machine: a bad value of a variable the GPU backend reads is an error from
/// `Device::cuda` and from `Device::auto()` (never a CPU fallback), and `WARP_QUIET` also
/// quiets the `WARP_DEVICE=cuda` choice.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_settings_are_errors_not_fallbacks() {
    for (var, bad) in [
        ("WARP_TILE_QUEUE", "sometimes"),
        ("WARP_POISON", "2"),
        ("WARP_CACHE", "disabled"),
        ("WARP_CACHE_MAX_MB", "lots"),
    ] {
        let (r, _) = with_env(&[(var, bad)], || Device::cuda(0));
        assert!(
            matches!(&r, Err(Error::Setting { var: v, .. }) if *v == var),
            "Device::cuda with {var}={bad}: {r:?}"
        );
        let (r, _) = with_env(&[(var, bad)], Device::auto);
        assert!(
            matches!(&r, Err(Error::Setting { var: v, .. }) if *v == var),
            "Device::auto with {var}={bad}: {r:?}"
        );
    }
    let (r, events) = with_env(
        &[("WARP_DEVICE", "cuda"), ("WARP_QUIET", "on")],
        Device::auto,
    );
    assert!(r.expect("the GPU").is_gpu());
    let choice: Vec<_> = events
        .iter()
        .filter(|e| e.message().contains("running on a GPU"))
        .collect();
    assert!(
        !choice.is_empty() && choice.iter().all(|e| e.level == Level::DEBUG),
        "{events:?}"
    );
    // A GPU number past the last one is the typed error, not a fallback.
    let count = warp_runtime::cudarc::driver::CudaContext::device_count().unwrap();
    for v in [format!("cuda:{count}"), format!("cuda:{}", count + 5)] {
        let (r, _) = with_env(&[("WARP_DEVICE", &v)], Device::auto);
        assert!(matches!(r, Err(Error::NoGpu { .. })), "{v}: {r:?}");
    }
    let (r, _) = with_env(&[("WARP_DEVICE", "cuda:0")], Device::auto);
    assert!(r.expect("GPU 0").is_gpu());
}

#[test]
fn bad_values_are_errors_that_list_the_accepted_ones() {
    let (r, _) = with_env(&[("WARP_DEVICE", "gpu")], Device::auto);
    let msg = r.unwrap_err().to_string();
    assert!(
        msg.contains("WARP_DEVICE") && msg.contains("cpu, cuda, cuda:N"),
        "{msg}"
    );
    // `WARP_QUIET=false` is false (it used to silence output: any value but 0 did).
    let (r, _) = with_env(&[("WARP_QUIET", "false")], warp_runtime::settings::quiet);
    assert!(!r.unwrap());
    let (r, _) = with_env(
        &[("WARP_QUIET", "nope"), ("WARP_DEVICE", "cpu")],
        Device::auto,
    );
    let msg = r.unwrap_err().to_string();
    assert!(
        msg.contains("WARP_QUIET") && msg.contains("1, 0, true, false, on, off"),
        "{msg}"
    );
    let (r, _) = with_env(
        &[("WARP_CACHE", "disabled")],
        warp_runtime::toolchain::cache_dir,
    );
    assert!(
        matches!(
            r,
            Err(Error::Setting {
                var: "WARP_CACHE",
                ..
            })
        ),
        "{r:?}"
    );
    let (r, _) = with_env(&[("WARP_CACHE", "off")], warp_runtime::toolchain::cache_dir);
    assert_eq!(r.unwrap(), None);
    let (r, _) = with_env(
        &[("WARP_CACHE_MAX_MB", "lots")],
        warp_runtime::settings::cache_max_bytes,
    );
    assert!(
        matches!(
            r,
            Err(Error::Setting {
                var: "WARP_CACHE_MAX_MB",
                ..
            })
        ),
        "{r:?}"
    );
    let (r, _) = with_env(
        &[("WARP_CACHE_MAX_MB", "0")],
        warp_runtime::settings::cache_max_bytes,
    );
    assert_eq!(r.unwrap(), None, "0: no cap");
    let (r, _) = with_env(&[], warp_runtime::settings::cache_max_bytes);
    assert_eq!(r.unwrap(), Some(512 << 20));
}
