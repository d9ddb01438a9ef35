//! The one reader of environment variables: every variable warp-runtime looks at, parsed here
//! (booleans by one parser), with a typed error naming the variable and the accepted values.
//!
//! | variable | values | default | what it does |
//! |---|---|---|---|
//! | `WARP_DEVICE` | `cpu`, `cuda`, `cuda:N` | unset: the first GPU, else the CPU backend (a warning event) | the backend of [`Device::auto`](crate::Device::auto); `cuda`/`cuda:N` fail with [`Error::NoGpu`] without that GPU |
//! | `WARP_QUIET` | boolean | `off` | `on`: `Device::auto`'s choice is a `debug` event instead of `info`/`warn` |
//! | `WARP_CACHE` | boolean | `on` | `off`: no disk cache of compiled kernels |
//! | `WARP_CACHE_DIR` | a folder | the user cache folder (`~/.cache/warp-dsl`) | where compiled kernels are cached |
//! | `WARP_CACHE_MAX_MB` | an integer (MiB) | `512` | the disk cache's size cap: least recently used kernels are deleted beyond it (`0`: no cap) |
//! | `WARP_NVRTC_PATH` | the library or its folder | searched | where NVRTC is |
//! | `WARP_CUDA_DRIVER_PATH` | the library or its folder | searched | where the CUDA driver is |
//! | `WARP_CUDA_INCLUDE` | folders separated by `:` | searched | CUDA headers for cooperative-groups kernels |
//! | `WARP_TILE_QUEUE` | boolean | `off` | the initial [`Device::set_tile_queue`](crate::Device::set_tile_queue) |
//! | `WARP_POISON` | boolean | `off` | fill new device memory with `0xA5` bytes (a testing aid) |
//! | `CUDA_HOME`, `CUDA_PATH`, `CUDA_ROOT`, `VIRTUAL_ENV`, `CONDA_PREFIX` | folders | — | searched for NVRTC and headers |
//!
//! A boolean is `1`, `true`, `on` or `0`, `false`, `off` (any case); anything else is an
//! [`Error::Setting`] listing them. An empty value is the same as unset.
//!
//! ```
//! use warp_runtime::settings::{self, DeviceChoice};
//!
//! assert_eq!(settings::parse_bool("WARP_CACHE", "Off").ok(), Some(false));
//! assert!(settings::parse_bool("WARP_QUIET", "maybe").is_err());
//! assert_eq!(settings::parse_device("cuda:1").ok(), Some(DeviceChoice::Cuda(1)));
//! ```

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Error, Result};

/// The accepted spellings of a boolean variable, for messages.
pub const BOOLEAN_VALUES: &str = "1, 0, true, false, on, off";

/// The default of `WARP_CACHE_MAX_MB`.
pub const DEFAULT_CACHE_MAX_MB: u64 = 512;

/// The raw value of `name`, if set and not empty: the only place the environment is read.
///
/// ```
/// let home = warp_runtime::settings::raw("CUDA_HOME"); // None when unset or empty
/// # let _ = home;
/// ```
pub fn raw(name: &str) -> Option<OsString> {
    #[allow(clippy::disallowed_methods)]
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn text(name: &'static str) -> Result<Option<String>> {
    match raw(name) {
        None => Ok(None),
        Some(v) => v.into_string().map(Some).map_err(|v| Error::Setting {
            var: name,
            value: v.to_string_lossy().into_owned(),
            expected: "valid UTF-8",
        }),
    }
}

/// Parses a boolean variable's value: `1`, `true`, `on` or `0`, `false`, `off`, in any case.
///
/// ```
/// use warp_runtime::settings::parse_bool;
/// assert_eq!(parse_bool("WARP_POISON", "ON").ok(), Some(true));
/// assert_eq!(parse_bool("WARP_POISON", "0").ok(), Some(false));
/// let e = parse_bool("WARP_POISON", "yes").unwrap_err();
/// assert!(e.to_string().contains("1, 0, true, false, on, off"));
/// ```
pub fn parse_bool(var: &'static str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" => Ok(true),
        "0" | "false" | "off" => Ok(false),
        _ => Err(Error::Setting {
            var,
            value: value.to_string(),
            expected: BOOLEAN_VALUES,
        }),
    }
}

/// A boolean variable, `default` when unset.
///
/// ```
/// let on = warp_runtime::settings::flag("WARP_SOME_FLAG", true)?; // unset: the default
/// assert!(on);
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn flag(var: &'static str, default: bool) -> Result<bool> {
    match text(var)? {
        None => Ok(default),
        Some(v) => parse_bool(var, &v),
    }
}

/// Which backend `Device::auto()` uses (`WARP_DEVICE`).
///
/// ```
/// use warp_runtime::settings::{parse_device, DeviceChoice};
/// assert_eq!(parse_device("cuda:2").ok(), Some(DeviceChoice::Cuda(2)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// Unset: the first CUDA GPU, else the CPU backend.
    Auto,
    /// `cpu`: the CPU backend.
    Cpu,
    /// `cuda` (device 0) or `cuda:N`: that GPU, or an error.
    Cuda(usize),
}

/// Parses a `WARP_DEVICE` value.
///
/// ```
/// use warp_runtime::settings::{parse_device, DeviceChoice};
/// assert_eq!(parse_device("CPU").ok(), Some(DeviceChoice::Cpu));
/// assert_eq!(parse_device("cuda").ok(), Some(DeviceChoice::Cuda(0)));
/// assert!(parse_device("gpu").is_err());
/// ```
pub fn parse_device(value: &str) -> Result<DeviceChoice> {
    let v = value.trim().to_ascii_lowercase();
    let bad = || Error::Setting {
        var: "WARP_DEVICE",
        value: value.to_string(),
        expected: "cpu, cuda, cuda:N (N a device ordinal)",
    };
    match v.as_str() {
        "cpu" => Ok(DeviceChoice::Cpu),
        "cuda" => Ok(DeviceChoice::Cuda(0)),
        _ => match v.strip_prefix("cuda:") {
            Some(n) => n.parse().map(DeviceChoice::Cuda).map_err(|_| bad()),
            None => Err(bad()),
        },
    }
}

/// `WARP_DEVICE`: [`DeviceChoice::Auto`] when unset.
///
/// ```
/// let choice = warp_runtime::settings::device()?;
/// # let _ = choice;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn device() -> Result<DeviceChoice> {
    match text("WARP_DEVICE")? {
        None => Ok(DeviceChoice::Auto),
        Some(v) => parse_device(&v),
    }
}

/// `WARP_QUIET` (default off).
///
/// ```
/// let quiet = warp_runtime::settings::quiet()?;
/// # let _ = quiet;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn quiet() -> Result<bool> {
    flag("WARP_QUIET", false)
}

/// `WARP_TILE_QUEUE` (default off).
///
/// ```
/// let queue = warp_runtime::settings::tile_queue()?;
/// # let _ = queue;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn tile_queue() -> Result<bool> {
    flag("WARP_TILE_QUEUE", false)
}

/// `WARP_POISON` (default off).
///
/// ```
/// let poison = warp_runtime::settings::poison()?;
/// # let _ = poison;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn poison() -> Result<bool> {
    flag("WARP_POISON", false)
}

/// The disk cache's folder (`WARP_CACHE`, `WARP_CACHE_DIR`): `None` when it is turned off.
///
/// ```
/// if let Some(dir) = warp_runtime::settings::cache_dir()? {
///     println!("kernels are cached in {}", dir.display());
/// }
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn cache_dir() -> Result<Option<PathBuf>> {
    if !flag("WARP_CACHE", true)? {
        return Ok(None);
    }
    if let Some(d) = raw("WARP_CACHE_DIR") {
        return Ok(Some(PathBuf::from(d)));
    }
    Ok(dirs::cache_dir().map(|d| d.join("warp-dsl")))
}

/// The disk cache's cap in bytes (`WARP_CACHE_MAX_MB`; `None`: no cap).
///
/// ```
/// let cap = warp_runtime::settings::cache_max_bytes()?; // Some(512 MiB) by default
/// # let _ = cap;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn cache_max_bytes() -> Result<Option<u64>> {
    let mb = match text("WARP_CACHE_MAX_MB")? {
        None => DEFAULT_CACHE_MAX_MB,
        Some(v) => v.trim().parse::<u64>().map_err(|_| Error::Setting {
            var: "WARP_CACHE_MAX_MB",
            value: v.clone(),
            expected: "a whole number of MiB (0: no cap)",
        })?,
    };
    Ok((mb > 0).then(|| mb.saturating_mul(1 << 20)))
}

/// A path variable (`WARP_NVRTC_PATH`, `WARP_CUDA_DRIVER_PATH`, `CUDA_HOME`, ...), if set.
///
/// ```
/// let nvrtc = warp_runtime::settings::path("WARP_NVRTC_PATH");
/// # let _ = nvrtc;
/// ```
pub fn path(var: &str) -> Option<PathBuf> {
    raw(var).map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans() {
        for v in ["1", "true", "TRUE", "on", "On", " on "] {
            assert_eq!(parse_bool("X", v).ok(), Some(true), "{v}");
        }
        for v in ["0", "false", "False", "off", "OFF"] {
            assert_eq!(parse_bool("X", v).ok(), Some(false), "{v}");
        }
        for v in ["yes", "no", "2", "", "enabled"] {
            let e = parse_bool("WARP_QUIET", v).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("WARP_QUIET") && msg.contains(BOOLEAN_VALUES),
                "{msg}"
            );
        }
    }

    #[test]
    fn devices() {
        assert_eq!(parse_device("cpu").ok(), Some(DeviceChoice::Cpu));
        assert_eq!(parse_device("cuda").ok(), Some(DeviceChoice::Cuda(0)));
        assert_eq!(parse_device("cuda:3").ok(), Some(DeviceChoice::Cuda(3)));
        for v in ["cuda:", "cuda:x", "gpu", "cuda:-1", "auto"] {
            let msg = parse_device(v).unwrap_err().to_string();
            assert!(
                msg.contains("WARP_DEVICE") && msg.contains("cuda:N"),
                "{msg}"
            );
        }
    }
}
