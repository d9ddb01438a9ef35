//! Every setting of warp-runtime: set in code with [`Settings`], else read from its environment
//! variable (the one place the environment is read, booleans by one parser), else its default.
//!
//! | in code ([`Settings`]) | variable | values | default | what it does |
//! |---|---|---|---|---|
//! | [`device`](Settings::device) | `WARP_DEVICE` | `cpu`, `cuda`, `cuda:N` | the first GPU, else the CPU backend (a warning event) | the backend of [`Device::auto_with`](crate::Device::auto_with); `cuda`/`cuda:N` fail with [`Error::NoGpu`] without that GPU |
//! | [`quiet`](Settings::quiet) | `WARP_QUIET` | boolean | `off` | `on`: `Device::auto_with`'s choice is a `debug` event instead of `info`/`warn` |
//! | [`cache`](Settings::cache) | `WARP_CACHE` | boolean | `on` | `off`: no disk cache of compiled kernels |
//! | [`cache_dir`](Settings::cache_dir) | `WARP_CACHE_DIR` | a folder | the user cache folder (`~/.cache/warp-dsl`) | where compiled kernels are cached |
//! | [`cache_max_mb`](Settings::cache_max_mb) | `WARP_CACHE_MAX_MB` | an integer (MiB) | `512` | the disk cache's size cap: least recently used kernels are deleted beyond it (`0`: no cap) |
//! | [`nvrtc_path`](Settings::nvrtc_path) | `WARP_NVRTC_PATH` | the library or its folder | searched | where NVRTC is (process-wide) |
//! | [`driver_path`](Settings::driver_path) | `WARP_CUDA_DRIVER_PATH` | the library or its folder | searched | where the CUDA driver is (process-wide) |
//! | [`cuda_include`](Settings::cuda_include) | `WARP_CUDA_INCLUDE` | folders (separated by `:` in the variable) | searched | CUDA headers for cooperative-groups kernels |
//! | [`tile_queue`](Settings::tile_queue) | `WARP_TILE_QUEUE` | boolean | `off` | the initial [`Device::set_tile_queue`](crate::Device::set_tile_queue) |
//! | [`poison`](Settings::poison) | `WARP_POISON` | boolean | `off` | fill new device memory with `0xA5` bytes (a testing aid) |
//! | — | `CUDA_HOME`, `CUDA_PATH`, `CUDA_ROOT`, `VIRTUAL_ENV`, `CONDA_PREFIX` | folders | — | searched for NVRTC and headers |
//!
//! Precedence, setting by setting: a value set in code wins over the environment variable
//! (which is then not read at all), which wins over the default. A boolean variable is `1`,
//! `true`, `on` or `0`, `false`, `off` (any case); anything else is an [`Error::Setting`]
//! naming the variable and listing them. An empty variable is the same as unset.
//!
//! ```
//! use warp_runtime::settings::{self, DeviceChoice, Settings};
//!
//! assert_eq!(settings::parse_bool("WARP_CACHE", "Off").ok(), Some(false));
//! assert!(settings::parse_bool("WARP_QUIET", "maybe").is_err());
//! assert_eq!("cuda:1".parse::<DeviceChoice>().ok(), Some(DeviceChoice::Cuda(1)));
//! let resolved = Settings::new().cache_max_mb(64).resolve()?;
//! assert_eq!(resolved.cache_max_bytes, Some(64 << 20));
//! # Ok::<(), warp_runtime::Error>(())
//! ```

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Error, Result};

/// The accepted spellings of a boolean variable, for messages.
pub const BOOLEAN_VALUES: &str = "1, 0, true, false, on, off";

/// The default of `WARP_CACHE_MAX_MB`.
pub const DEFAULT_CACHE_MAX_MB: u64 = 512;

/// The raw value of `name`, if set and not empty: the only place the environment is read.
pub(crate) fn raw(name: &str) -> Option<OsString> {
    #[allow(clippy::disallowed_methods)]
    std::env::var_os(name).filter(|v| !v.is_empty())
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
            expected: BOOLEAN_VALUES.into(),
        }),
    }
}

/// Which backend [`Device::auto_with`](crate::Device::auto_with) uses (`WARP_DEVICE`,
/// [`Settings::device`]). Parses from the variable's spellings (`cpu`, `cuda`, `cuda:N`).
///
/// ```
/// use warp_runtime::settings::DeviceChoice;
/// assert_eq!("cuda:2".parse::<DeviceChoice>().ok(), Some(DeviceChoice::Cuda(2)));
/// assert!("gpu".parse::<DeviceChoice>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The first CUDA GPU, else the CPU backend (the default; in code, it overrides a
    /// `WARP_DEVICE` the environment sets).
    Auto,
    /// `cpu`: the CPU backend.
    Cpu,
    /// `cuda` (device 0) or `cuda:N`: that GPU, or an error.
    Cuda(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = Error;

    fn from_str(value: &str) -> Result<DeviceChoice> {
        parse_device(value)
    }
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
        expected: "cpu, cuda, cuda:N (N a device ordinal)".into(),
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

/// The settings a [`Device`](crate::Device) is made with: each one set here in code, or left to
/// its environment variable and then its default (the [module](self) lists them). A setting set
/// here wins over its variable, which is then not read. `Settings::default()` sets nothing, so
/// everything comes from the environment: what [`Device::auto`](crate::Device::auto) and
/// [`Device::cuda`](crate::Device::cuda) use.
///
/// Per device: the device choice and `quiet` (for
/// [`Device::auto_with`](crate::Device::auto_with)), the disk cache (`cache`, `cache_dir`,
/// `cache_max_mb`, used by the kernels this device compiles), `cuda_include`, `tile_queue` and
/// `poison`, resolved when the device is made. A device made with
/// [`Device::fork`](crate::Device::fork) or [`Device::with_stream`](crate::Device::with_stream)
/// keeps its parent's settings.
///
/// Per process: `driver_path` and `nvrtc_path`. The CUDA driver and NVRTC are each loaded once
/// per process, by the first device (or `toolchain` compile) that needs them, with that
/// caller's path. A later caller whose path names another library fails with
/// [`Error::Setting`] (naming `WARP_CUDA_DRIVER_PATH` or `WARP_NVRTC_PATH` and the library
/// loaded); one that names the same path, the loaded library or its folder, or no path at all,
/// gets the loaded library. After a search that found nothing, a caller with another path
/// searches again.
///
/// ```
/// use warp_runtime::settings::{DeviceChoice, Settings};
/// use warp_runtime::Device;
///
/// # fn main() -> warp_runtime::Result<()> {
/// let settings = Settings::new()
///     .device(DeviceChoice::Cpu)          // whatever WARP_DEVICE says
///     .quiet(true)
///     .cache_dir(std::env::temp_dir().join("my-app-kernels"))
///     .cache_max_mb(128);
/// let dev = Device::auto_with(&settings)?;
/// assert!(!dev.is_gpu());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    device: Option<DeviceChoice>,
    quiet: Option<bool>,
    cache: Option<bool>,
    cache_dir: Option<PathBuf>,
    cache_max_mb: Option<u64>,
    nvrtc_path: Option<PathBuf>,
    driver_path: Option<PathBuf>,
    cuda_include: Option<Vec<PathBuf>>,
    tile_queue: Option<bool>,
    poison: Option<bool>,
}

/// Every setting's value after precedence (code, then the environment, then the default): what
/// a device runs with. Made by [`Settings::resolve`].
///
/// ```
/// use warp_runtime::settings::Settings;
/// let now = Settings::new().resolve()?; // what the environment and the defaults give
/// println!("{now:#?}");
/// # Ok::<(), warp_runtime::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resolved {
    /// The backend `Device::auto_with` picks.
    pub device: DeviceChoice,
    /// Whether `Device::auto_with`'s choice is a `debug` event.
    pub quiet: bool,
    /// The disk cache's folder; `None` when the cache is off (or there is no user cache
    /// folder).
    pub cache_dir: Option<PathBuf>,
    /// The disk cache's cap in bytes; `None`: no cap.
    pub cache_max_bytes: Option<u64>,
    /// NVRTC's library or folder, when one is named (else searched).
    pub nvrtc_path: Option<PathBuf>,
    /// The CUDA driver's library or folder, when one is named (else searched).
    pub driver_path: Option<PathBuf>,
    /// Folders searched first for the CUDA headers (may be empty).
    pub cuda_include: Vec<PathBuf>,
    /// The initial tile queue of a new GPU device.
    pub tile_queue: bool,
    /// Whether new device memory is filled with `0xA5` bytes.
    pub poison: bool,
}

impl Settings {
    /// Nothing set in code: every setting comes from its variable, else its default (the same
    /// as `Settings::default()`).
    ///
    /// ```
    /// assert_eq!(warp_runtime::Settings::new(), warp_runtime::Settings::default());
    /// ```
    pub fn new() -> Settings {
        Settings::default()
    }

    /// The backend of [`Device::auto_with`](crate::Device::auto_with) (`WARP_DEVICE`).
    ///
    /// ```
    /// use warp_runtime::{settings::DeviceChoice, Device, Settings};
    /// let dev = Device::auto_with(&Settings::new().device(DeviceChoice::Cpu))?;
    /// assert!(!dev.is_gpu());
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn device(mut self, choice: DeviceChoice) -> Settings {
        self.device = Some(choice);
        self
    }

    /// `true`: `Device::auto_with`'s choice is a `debug` event instead of `info`/`warn`
    /// (`WARP_QUIET`).
    ///
    /// ```
    /// let dev = warp_runtime::Device::auto_with(&warp_runtime::Settings::new().quiet(true))?;
    /// # let _ = dev;
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn quiet(mut self, on: bool) -> Settings {
        self.quiet = Some(on);
        self
    }

    /// `false`: no disk cache of compiled kernels, whatever the folder (`WARP_CACHE`).
    ///
    /// ```
    /// let s = warp_runtime::Settings::new().cache(false).resolve()?;
    /// assert_eq!(s.cache_dir, None);
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn cache(mut self, on: bool) -> Settings {
        self.cache = Some(on);
        self
    }

    /// The folder of the disk cache of compiled kernels (`WARP_CACHE_DIR`; created when
    /// first written). The cache is still off when [`Settings::cache`] or `WARP_CACHE` turns it
    /// off.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("my-kernels");
    /// let s = warp_runtime::Settings::new().cache(true).cache_dir(&dir).resolve()?;
    /// assert_eq!(s.cache_dir, Some(dir));
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn cache_dir(mut self, dir: impl Into<PathBuf>) -> Settings {
        self.cache_dir = Some(dir.into());
        self
    }

    /// The disk cache's size cap in MiB, least recently used files deleted beyond it (`0`: no
    /// cap; `WARP_CACHE_MAX_MB`).
    ///
    /// ```
    /// let s = warp_runtime::Settings::new().cache_max_mb(0).resolve()?;
    /// assert_eq!(s.cache_max_bytes, None);
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn cache_max_mb(mut self, mb: u64) -> Settings {
        self.cache_max_mb = Some(mb);
        self
    }

    /// The NVRTC library, or its folder, searched before any other place (`WARP_NVRTC_PATH`).
    /// NVRTC is loaded once per process: see [`Settings`] for a later device naming another.
    ///
    /// ```
    /// let s = warp_runtime::Settings::new().nvrtc_path("/opt/nvrtc/lib").resolve()?;
    /// assert_eq!(s.nvrtc_path.as_deref(), Some(std::path::Path::new("/opt/nvrtc/lib")));
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn nvrtc_path(mut self, path: impl Into<PathBuf>) -> Settings {
        self.nvrtc_path = Some(path.into());
        self
    }

    /// The CUDA driver library, or its folder, searched after the system's search path
    /// (`WARP_CUDA_DRIVER_PATH`). The driver is loaded once per process: see [`Settings`] for a
    /// later device naming another. [`Device::from_stream_with`](crate::Device::from_stream_with)
    /// does not use it (the caller's cudarc has loaded the driver).
    ///
    /// ```
    /// let s = warp_runtime::Settings::new().driver_path("/usr/lib64").resolve()?;
    /// assert!(s.driver_path.is_some());
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn driver_path(mut self, path: impl Into<PathBuf>) -> Settings {
        self.driver_path = Some(path.into());
        self
    }

    /// Folders searched first for the CUDA headers that cooperative-groups kernels include
    /// (`WARP_CUDA_INCLUDE`, whose folders are separated by `:`).
    ///
    /// ```
    /// let s = warp_runtime::Settings::new()
    ///     .cuda_include(["/opt/cuda/include", "/opt/cuda/include/cccl"])
    ///     .resolve()?;
    /// assert_eq!(s.cuda_include.len(), 2);
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn cuda_include<P: Into<PathBuf>>(mut self, dirs: impl IntoIterator<Item = P>) -> Settings {
        self.cuda_include = Some(dirs.into_iter().map(Into::into).collect());
        self
    }

    /// Whether a new GPU device's single-pass kernels take tiles from an atomic queue
    /// ([`Device::set_tile_queue`](crate::Device::set_tile_queue) changes it later;
    /// `WARP_TILE_QUEUE`).
    ///
    /// ```
    /// assert!(warp_runtime::Settings::new().tile_queue(true).resolve()?.tile_queue);
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn tile_queue(mut self, on: bool) -> Settings {
        self.tile_queue = Some(on);
        self
    }

    /// Whether new device memory is filled with `0xA5` bytes, so that a kernel reading memory
    /// it never wrote shows (a testing aid; `WARP_POISON`).
    ///
    /// ```
    /// assert!(!warp_runtime::Settings::new().poison(false).resolve()?.poison);
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn poison(mut self, on: bool) -> Settings {
        self.poison = Some(on);
        self
    }

    /// Every setting's value now: the one set here, else its environment variable's, else its
    /// default. An [`Error::Setting`] naming the variable for a variable's value that is not
    /// accepted (a variable whose setting is set here is not read).
    ///
    /// ```
    /// use warp_runtime::settings::{DeviceChoice, Settings};
    /// let s = Settings::new().device(DeviceChoice::Cuda(1)).resolve()?;
    /// assert_eq!(s.device, DeviceChoice::Cuda(1)); // whatever WARP_DEVICE says
    /// # Ok::<(), warp_runtime::Error>(())
    /// ```
    pub fn resolve(&self) -> Result<Resolved> {
        self.resolve_in(&raw)
    }

    /// [`Settings::resolve`] over the variables `env` gives.
    fn resolve_in(&self, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Resolved> {
        let text = |var: &'static str| -> Result<Option<String>> {
            match env(var) {
                None => Ok(None),
                Some(v) => v.into_string().map(Some).map_err(|v| Error::Setting {
                    var,
                    value: v.to_string_lossy().into_owned(),
                    expected: "valid UTF-8".into(),
                }),
            }
        };
        let flag = |set: Option<bool>, var: &'static str, default: bool| -> Result<bool> {
            match (set, text(var)?) {
                (Some(v), _) => Ok(v),
                (None, None) => Ok(default),
                (None, Some(v)) => parse_bool(var, &v),
            }
        };
        let path = |set: &Option<PathBuf>, var| set.clone().or_else(|| env(var).map(PathBuf::from));
        // A setting set in code is taken as it is: its variable is not read (nor checked).
        let device = match self.device {
            Some(d) => d,
            None => text("WARP_DEVICE")?.map_or(Ok(DeviceChoice::Auto), |v| parse_device(&v))?,
        };
        let cache_dir = if flag(self.cache, "WARP_CACHE", true)? {
            path(&self.cache_dir, "WARP_CACHE_DIR")
                .or_else(|| dirs::cache_dir().map(|d| d.join("warp-dsl")))
        } else {
            None
        };
        let cache_max_mb = match self.cache_max_mb {
            Some(mb) => mb,
            None => match text("WARP_CACHE_MAX_MB")? {
                None => DEFAULT_CACHE_MAX_MB,
                Some(v) => v.trim().parse::<u64>().map_err(|_| Error::Setting {
                    var: "WARP_CACHE_MAX_MB",
                    value: v.clone(),
                    expected: "a whole number of MiB (0: no cap)".into(),
                })?,
            },
        };
        let cuda_include = match &self.cuda_include {
            Some(dirs) => dirs.clone(),
            None => env("WARP_CUDA_INCLUDE")
                .map(|v| std::env::split_paths(&v).collect())
                .unwrap_or_default(),
        };
        Ok(Resolved {
            device,
            quiet: flag(self.quiet, "WARP_QUIET", false)?,
            cache_dir,
            cache_max_bytes: (cache_max_mb > 0).then(|| cache_max_mb.saturating_mul(1 << 20)),
            nvrtc_path: path(&self.nvrtc_path, "WARP_NVRTC_PATH"),
            driver_path: path(&self.driver_path, "WARP_CUDA_DRIVER_PATH"),
            cuda_include,
            tile_queue: flag(self.tile_queue, "WARP_TILE_QUEUE", false)?,
            poison: flag(self.poison, "WARP_POISON", false)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Resolves `s` over the variables `vars` (and no others).
    fn resolve(s: &Settings, vars: &[(&str, &str)]) -> Result<Resolved> {
        let vars: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        s.resolve_in(&|name| vars.get(name).filter(|v| !v.is_empty()).cloned())
    }

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
        assert_eq!(
            "CUDA:2".parse::<DeviceChoice>().ok(),
            Some(DeviceChoice::Cuda(2))
        );
        for v in ["cuda:", "cuda:x", "gpu", "cuda:-1", "auto"] {
            let msg = parse_device(v).unwrap_err().to_string();
            assert!(
                msg.contains("WARP_DEVICE") && msg.contains("cuda:N"),
                "{msg}"
            );
        }
    }

    #[test]
    fn nothing_set_gives_the_defaults() {
        let r = resolve(&Settings::new(), &[]).unwrap();
        assert_eq!(r.device, DeviceChoice::Auto);
        assert!(!r.quiet && !r.tile_queue && !r.poison);
        assert_eq!(r.cache_max_bytes, Some(DEFAULT_CACHE_MAX_MB << 20));
        assert_eq!(
            r.cache_dir,
            dirs::cache_dir().map(|d| d.join("warp-dsl")),
            "the user cache folder"
        );
        assert_eq!((r.nvrtc_path, r.driver_path), (None, None));
        assert!(r.cuda_include.is_empty());
    }

    #[test]
    fn unset_in_code_falls_back_to_the_variables() {
        let env = [
            ("WARP_DEVICE", "cuda:2"),
            ("WARP_QUIET", "on"),
            ("WARP_CACHE_DIR", "/env/cache"),
            ("WARP_CACHE_MAX_MB", "7"),
            ("WARP_NVRTC_PATH", "/env/nvrtc"),
            ("WARP_CUDA_DRIVER_PATH", "/env/driver"),
            ("WARP_CUDA_INCLUDE", "/env/a:/env/b"),
            ("WARP_TILE_QUEUE", "true"),
            ("WARP_POISON", "1"),
        ];
        let r = resolve(&Settings::new(), &env).unwrap();
        assert_eq!(r.device, DeviceChoice::Cuda(2));
        assert!(r.quiet && r.tile_queue && r.poison);
        assert_eq!(r.cache_dir, Some(PathBuf::from("/env/cache")));
        assert_eq!(r.cache_max_bytes, Some(7 << 20));
        assert_eq!(r.nvrtc_path, Some(PathBuf::from("/env/nvrtc")));
        assert_eq!(r.driver_path, Some(PathBuf::from("/env/driver")));
        assert_eq!(
            r.cuda_include,
            [PathBuf::from("/env/a"), PathBuf::from("/env/b")]
        );
        // An empty variable is unset.
        let r = resolve(&Settings::new(), &[("WARP_DEVICE", ""), ("WARP_CACHE", "")]).unwrap();
        assert_eq!(r.device, DeviceChoice::Auto);
        assert!(r.cache_dir.is_some());
    }

    #[test]
    fn code_beats_the_variables_even_invalid_ones() {
        let env = [
            ("WARP_DEVICE", "cuda:2"),
            ("WARP_QUIET", "on"),
            ("WARP_CACHE", "off"),
            ("WARP_CACHE_DIR", "/env/cache"),
            ("WARP_CACHE_MAX_MB", "7"),
            ("WARP_NVRTC_PATH", "/env/nvrtc"),
            ("WARP_CUDA_DRIVER_PATH", "/env/driver"),
            ("WARP_CUDA_INCLUDE", "/env/a:/env/b"),
            ("WARP_TILE_QUEUE", "true"),
            ("WARP_POISON", "1"),
        ];
        let code = Settings::new()
            .device(DeviceChoice::Auto)
            .quiet(false)
            .cache(true)
            .cache_dir("/code/cache")
            .cache_max_mb(0)
            .nvrtc_path("/code/nvrtc")
            .driver_path("/code/driver")
            .cuda_include(["/code/inc"])
            .tile_queue(false)
            .poison(false);
        let r = resolve(&code, &env).unwrap();
        assert_eq!(r.device, DeviceChoice::Auto);
        assert!(!r.quiet && !r.tile_queue && !r.poison);
        assert_eq!(r.cache_dir, Some(PathBuf::from("/code/cache")));
        assert_eq!(r.cache_max_bytes, None, "0: no cap");
        assert_eq!(r.nvrtc_path, Some(PathBuf::from("/code/nvrtc")));
        assert_eq!(r.driver_path, Some(PathBuf::from("/code/driver")));
        assert_eq!(r.cuda_include, [PathBuf::from("/code/inc")]);
        // A variable whose setting is set in code is not read, so its bad value is no error.
        let bad = [
            ("WARP_DEVICE", "gpu"),
            ("WARP_QUIET", "maybe"),
            ("WARP_CACHE", "sometimes"),
            ("WARP_CACHE_MAX_MB", "lots"),
            ("WARP_TILE_QUEUE", "2"),
            ("WARP_POISON", "yes"),
        ];
        assert!(resolve(&code, &bad).is_ok());
        // Turned off in code: off whatever the folder.
        let off = resolve(&Settings::new().cache(false).cache_dir("/code/cache"), &[]).unwrap();
        assert_eq!(off.cache_dir, None);
        // Turned off by the variable, with a folder set in code: still off (`cache` is its
        // own setting).
        let off = resolve(
            &Settings::new().cache_dir("/code/cache"),
            &[("WARP_CACHE", "off")],
        )
        .unwrap();
        assert_eq!(off.cache_dir, None);
    }

    #[test]
    fn invalid_variables_are_errors_naming_them() {
        for (var, bad, expected) in [
            ("WARP_DEVICE", "gpu", "cuda:N"),
            ("WARP_QUIET", "maybe", BOOLEAN_VALUES),
            ("WARP_CACHE", "sometimes", BOOLEAN_VALUES),
            ("WARP_CACHE_MAX_MB", "lots", "whole number of MiB"),
            ("WARP_CACHE_MAX_MB", "-1", "whole number of MiB"),
            ("WARP_TILE_QUEUE", "2", BOOLEAN_VALUES),
            ("WARP_POISON", "yes", BOOLEAN_VALUES),
        ] {
            match resolve(&Settings::new(), &[(var, bad)]) {
                Err(e @ Error::Setting { .. }) => {
                    let Error::Setting { var: v, value, .. } = &e else {
                        unreachable!()
                    };
                    assert_eq!((*v, value.as_str()), (var, bad));
                    let msg = e.to_string();
                    assert!(msg.contains(var) && msg.contains(expected), "{msg}");
                }
                other => panic!("{var}={bad}: {other:?}"),
            }
        }
    }
}
