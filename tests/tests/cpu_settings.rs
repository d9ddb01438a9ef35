//! The settings and what they change: set in code with `Settings` (in this process), and read
//! from the environment (in child processes of this test binary, each given its variables by
//! `Command::env`, so that no process changes its own environment), with the library's
//! `tracing` events captured by a test subscriber (the library prints nothing).

use std::process::Command;

use tracing::Level;
use warp_runtime::settings::{BOOLEAN_VALUES, DeviceChoice};
use warp_runtime::{Device, Error, Settings};
use warp_tests::events::Capture;

/// Whether this machine has a usable CUDA GPU.
fn has_gpu() -> bool {
    Device::cuda(0).is_ok()
}

/// Whether `r` is the `Error::Setting` of `var`, with a message naming it and `expected`.
fn is_setting_error<T: std::fmt::Debug>(r: &warp_runtime::Result<T>, var: &str, expected: &str) {
    match r {
        Err(e @ Error::Setting { var: v, .. }) if *v == var => {
            let msg = e.to_string();
            assert!(msg.contains(var) && msg.contains(expected), "{msg}");
        }
        other => panic!("expected the setting error of {var}: {other:?}"),
    }
}

#[test]
fn device_cpu_from_code_needs_no_gpu() {
    let settings = Settings::new().device(DeviceChoice::Cpu);
    let (dev, events) = Capture::run(|| Device::auto_with(&settings));
    let dev = dev.expect("the CPU backend");
    assert!(!dev.is_gpu());
    assert!(
        events
            .iter()
            .any(|e| e.level == Level::INFO && e.message().contains("CPU backend")),
        "{events:?}"
    );
    // Quiet from code: the same choice, as a debug event.
    let (_, events) = Capture::run(|| Device::auto_with(&settings.clone().quiet(true)));
    assert!(
        !events.is_empty() && events.iter().all(|e| e.level == Level::DEBUG),
        "{events:?}"
    );
}

#[test]
fn device_cuda_from_code_without_a_gpu_is_the_typed_error() {
    if has_gpu() {
        return;
    }
    for n in [0, 3] {
        let r = Device::auto_with(&Settings::new().device(DeviceChoice::Cuda(n)));
        assert!(matches!(r, Err(Error::NoGpu { .. })), "cuda:{n}: {r:?}");
        let r = Device::cuda_with(n, &Settings::new().tile_queue(true).poison(true));
        assert!(matches!(r, Err(Error::NoGpu { .. })), "cuda:{n}: {r:?}");
    }
}

#[test]
fn auto_falls_back_to_the_cpu_with_a_warning_event() {
    if has_gpu() {
        return;
    }
    let settings = Settings::new().device(DeviceChoice::Auto).quiet(false);
    let (dev, events) = Capture::run(|| Device::auto_with(&settings));
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
    let (_, events) = Capture::run(|| Device::auto_with(&settings.clone().quiet(true)));
    assert!(events.iter().all(|e| e.level == Level::DEBUG), "{events:?}");
}

/// Without a driver: a driver path set in code that names nothing is listed as such in the
/// reason.
#[test]
fn a_driver_path_naming_nothing_is_in_the_reason() {
    if warp_runtime::toolchain::find_driver().is_ok() {
        return; // a driver loaded by name: the path is not searched
    }
    let settings = Settings::new().driver_path("/nonexistent/warp-driver");
    match Device::cuda_with(0, &settings) {
        Err(Error::NoGpu { reason }) => assert!(
            reason.contains("WARP_CUDA_DRIVER_PATH=/nonexistent/warp-driver (no such file"),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
}

/// On a GPU machine: settings from code reach the device (the device choice and quiet), and
/// GPU numbers past the last one are the typed error, not a fallback.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_settings_from_code() {
    let settings = Settings::new().device(DeviceChoice::Cuda(0)).quiet(true);
    let (r, events) = Capture::run(|| Device::auto_with(&settings));
    assert!(r.expect("the GPU").is_gpu());
    let choice: Vec<_> = events
        .iter()
        .filter(|e| e.message().contains("running on a GPU"))
        .collect();
    assert!(
        !choice.is_empty() && choice.iter().all(|e| e.level == Level::DEBUG),
        "{events:?}"
    );
    let count = warp_runtime::cudarc::driver::CudaContext::device_count().unwrap() as usize;
    for n in [count, count + 5] {
        let r = Device::auto_with(&Settings::new().device(DeviceChoice::Cuda(n)));
        assert!(matches!(r, Err(Error::NoGpu { .. })), "cuda:{n}: {r:?}");
    }
    // The driver is loaded: a device naming another one is refused, one naming none is not.
    let elsewhere = std::env::temp_dir();
    let r = Device::cuda_with(0, &Settings::new().driver_path(&elsewhere));
    is_setting_error(&r, "WARP_CUDA_DRIVER_PATH", "once per process");
    assert!(Device::cuda_with(0, &Settings::new().tile_queue(true)).is_ok());
}

/// Set in the child: the case it checks.
const CHILD: &str = "WARP_TEST_SETTINGS_CASE";

/// The variables of warp-runtime that the child's environment starts without.
const ALL: &[&str] = &[
    "WARP_DEVICE",
    "WARP_QUIET",
    "WARP_CACHE",
    "WARP_CACHE_DIR",
    "WARP_CACHE_MAX_MB",
    "WARP_TILE_QUEUE",
    "WARP_POISON",
];

/// The cases checked in child processes: a name and the variables set.
const CASES: &[(&str, &[(&str, &str)])] = &[
    (
        "device_cpu",
        &[("WARP_DEVICE", "cpu"), ("WARP_QUIET", "on")],
    ),
    ("device_cuda", &[("WARP_DEVICE", "cuda:3")]),
    ("bad_device", &[("WARP_DEVICE", "gpu")]),
    (
        "bad_quiet",
        &[("WARP_QUIET", "nope"), ("WARP_DEVICE", "cpu")],
    ),
    ("quiet_false", &[("WARP_QUIET", "false")]),
    ("bad_tile_queue", &[("WARP_TILE_QUEUE", "sometimes")]),
    ("bad_poison", &[("WARP_POISON", "2")]),
    ("bad_cache", &[("WARP_CACHE", "disabled")]),
    ("bad_cache_max", &[("WARP_CACHE_MAX_MB", "lots")]),
    (
        "cache",
        &[("WARP_CACHE_DIR", "/env/cache"), ("WARP_CACHE_MAX_MB", "0")],
    ),
    ("cache_off", &[("WARP_CACHE", "off")]),
    ("unset", &[]),
];

/// What the child checks with the variables of `case`.
fn child(case: &str) {
    let cpu = Settings::new().device(DeviceChoice::Cpu);
    match case {
        "device_cpu" => {
            let (dev, events) = Capture::run(Device::auto);
            assert!(!dev.unwrap().is_gpu());
            assert!(events.iter().all(|e| e.level == Level::DEBUG), "{events:?}");
            // Code wins over both variables.
            let s = Settings::new().device(DeviceChoice::Cuda(999)).quiet(false);
            assert!(matches!(Device::auto_with(&s), Err(Error::NoGpu { .. })));
        }
        "device_cuda" => {
            if !has_gpu() {
                assert!(matches!(Device::auto(), Err(Error::NoGpu { .. })));
            }
            assert!(!Device::auto_with(&cpu).unwrap().is_gpu(), "code wins");
        }
        "bad_device" => {
            is_setting_error(&Device::auto(), "WARP_DEVICE", "cpu, cuda, cuda:N");
            assert!(Device::auto_with(&cpu).is_ok(), "a value in code: not read");
            assert!(Device::auto_with(&Settings::new().device(DeviceChoice::Auto)).is_ok());
        }
        "bad_quiet" => {
            is_setting_error(&Device::auto(), "WARP_QUIET", BOOLEAN_VALUES);
            assert!(Device::auto_with(&Settings::new().quiet(true)).is_ok());
        }
        "quiet_false" => {
            // `false` is false (it used to silence output: any value but 0 did).
            assert!(!Settings::new().resolve().unwrap().quiet);
        }
        "bad_tile_queue" | "bad_poison" | "bad_cache" | "bad_cache_max" => {
            // The variable, what its error lists as accepted, and the same setting in code.
            let (var, accepted, fixed) = match case {
                "bad_tile_queue" => (
                    "WARP_TILE_QUEUE",
                    BOOLEAN_VALUES,
                    Settings::new().tile_queue(false),
                ),
                "bad_poison" => ("WARP_POISON", BOOLEAN_VALUES, Settings::new().poison(true)),
                "bad_cache" => ("WARP_CACHE", BOOLEAN_VALUES, Settings::new().cache(false)),
                _ => (
                    "WARP_CACHE_MAX_MB",
                    "a whole number of MiB",
                    Settings::new().cache_max_mb(1),
                ),
            };
            // An error on any machine, from every constructor, never a CPU fallback.
            is_setting_error(&Device::auto(), var, accepted);
            is_setting_error(&Device::cuda(0), var, accepted);
            is_setting_error(&Device::auto_with(&cpu), var, accepted);
            is_setting_error(&Settings::new().resolve(), var, accepted);
            assert!(fixed.resolve().is_ok(), "{var} set in code: not read");
        }
        "cache" => {
            let r = Settings::new().resolve().unwrap();
            assert_eq!(
                r.cache_dir.as_deref(),
                Some(std::path::Path::new("/env/cache"))
            );
            assert_eq!(r.cache_max_bytes, None, "0: no cap");
            let r = Settings::new()
                .cache_dir("/code/cache")
                .cache_max_mb(3)
                .resolve()
                .unwrap();
            assert_eq!(
                r.cache_dir.as_deref(),
                Some(std::path::Path::new("/code/cache"))
            );
            assert_eq!(r.cache_max_bytes, Some(3 << 20));
        }
        "cache_off" => {
            assert_eq!(Settings::new().resolve().unwrap().cache_dir, None);
            let on = Settings::new().cache(true).cache_dir("/code/cache");
            assert!(on.resolve().unwrap().cache_dir.is_some(), "code wins");
            assert!(
                warp_runtime::toolchain::cache_entries(&Settings::new())
                    .unwrap()
                    .is_empty()
            );
        }
        "unset" => {
            let r = Settings::new().resolve().unwrap();
            assert_eq!(r.device, DeviceChoice::Auto);
            assert_eq!(r.cache_max_bytes, Some(512 << 20));
            assert!(!r.quiet && !r.tile_queue && !r.poison);
        }
        other => panic!("no case {other}"),
    }
}

/// This test's name as the harness lists it, which the child runs alone.
fn this_test() -> String {
    let module = module_path!()
        .split_once("::")
        .map_or(String::new(), |(_, m)| format!("{m}::"));
    format!("{module}environment_variables_are_read_and_code_wins")
}

#[test]
fn environment_variables_are_read_and_code_wins() {
    if let Ok(case) = std::env::var(CHILD) {
        child(&case);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    for (case, vars) in CASES {
        let mut cmd = Command::new(&exe);
        cmd.args([
            "--exact",
            &this_test(),
            "--nocapture",
            "--test-threads",
            "1",
        ]);
        for v in ALL {
            cmd.env_remove(v);
        }
        let out = cmd
            .envs(vars.iter().copied())
            .env(CHILD, case)
            .output()
            .unwrap();
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains(" 1 passed"),
            "case {case} with {vars:?}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The test subscriber sees its thread's events even where another thread, one without a
/// subscriber, reached the event's line first while the capture was running: tracing caches a
/// line's interest for the whole process, and with the capture the only registered dispatcher
/// it would ask the other thread's (none) and drop the line for every thread
/// (`warp_tests::events`' anchor keeps a second one registered).
#[test]
fn a_capture_sees_a_line_another_thread_reached_first() {
    fn emit() {
        tracing::info!(probe = 7u32, "a line of this test alone");
    }
    let ((), events) = Capture::run(|| {
        std::thread::spawn(emit).join().unwrap();
        emit();
    });
    let seen = events
        .iter()
        .filter(|e| e.message() == "a line of this test alone")
        .count();
    assert_eq!(seen, 1, "{events:?}");
}
