//! Observability on the GPU: the first use of an operator is a compile span (or a cache hit),
//! a "module loaded" event and "launch" events, each naming the operator and its Rust
//! `file:line`; a second use is launches only. Needs a CUDA GPU. A binary of its own: what a
//! first use reports depends on what the process did before, and tracing's record of which
//! callsites are wanted is process-wide.

use tracing::Level;
use warp_runtime::prelude::*;
use warp_tests::events::Capture;

#[reduce(identity = 0)]
fn events_sum(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn module_loads_and_launches_are_events() {
    let dev = Device::cuda(0).expect("these tests need a CUDA GPU");
    let xs = dev.upload(&(0..100_000u64).collect::<Vec<_>>()).unwrap();
    let (total, events) = Capture::run(|| dev.reduce(events_sum, &xs).unwrap());
    assert_eq!(total, 100_000 * 99_999 / 2);
    let loaded: Vec<_> = events
        .iter()
        .filter(|e| e.message() == "module loaded")
        .collect();
    assert_eq!(loaded.len(), 1, "{events:?}");
    assert_eq!(loaded[0].level, Level::INFO);
    assert_eq!(loaded[0].get("op"), Some("events_sum"));
    assert!(
        loaded[0]
            .get("location")
            .is_some_and(|l| l.contains("gpu_events.rs:")),
        "{loaded:?}"
    );
    let first = events
        .iter()
        .position(|e| e.message() == "module loaded")
        .unwrap();
    let compile = &events[..first];
    assert!(
        compile.iter().all(|e| e.get("span") == Some("warp_dsl.compile") && e.get("op") == Some("events_sum")),
        "{compile:?}"
    );
    assert!(
        compile
            .iter()
            .any(|e| e.message() == "kernel cache hit" || e.message() == "compiled with NVRTC"),
        "{compile:?}"
    );
    let launches: Vec<_> = events.iter().filter(|e| e.message() == "launch").collect();
    assert!(!launches.is_empty(), "{events:?}");
    for l in &launches {
        assert_eq!(l.level, Level::DEBUG);
        assert_eq!(l.get("op"), Some("events_sum"), "{l:?}");
        assert!(
            l.get("kernel").is_some_and(|k| k.starts_with("wd_k_")),
            "{l:?}"
        );
        assert!(l.get("grid").is_some() && l.get("block").is_some(), "{l:?}");
    }
    // Warm: launches only.
    let (_, events) = Capture::run(|| dev.reduce(events_sum, &xs).unwrap());
    assert!(events.iter().all(|e| e.message() == "launch"), "{events:?}");
    assert!(!events.is_empty());
}
