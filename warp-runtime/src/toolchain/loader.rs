//! Finding the CUDA driver and NVRTC libraries without `LD_LIBRARY_PATH`: explicit env vars,
//! CUDA_HOME / CUDA_PATH, the usual install folders and NVIDIA's pip wheels, then the system
//! search path. Every place looked at is kept for the error message.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};

/// A library that was found and loaded (kept loaded for the life of the process).
#[derive(Debug)]
pub struct Loaded {
    /// Where it was loaded from (a path, or a bare name the system resolved).
    pub origin: String,
    /// The file, when it was found by path (for cache keys).
    pub path: Option<PathBuf>,
    /// The library.
    pub lib: Library,
}

/// The outcome of a search: the library, or every place looked at.
pub type Found = Result<Loaded, Vec<String>>;

static DRIVER: OnceLock<Found> = OnceLock::new();
static INCLUDES: OnceLock<Result<Vec<PathBuf>, Vec<String>>> = OnceLock::new();
static NVRTC: OnceLock<Found> = OnceLock::new();

#[cfg(target_os = "linux")]
const NVRTC_NAMES: &[&str] = &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];
#[cfg(not(target_os = "linux"))]
const NVRTC_NAMES: &[&str] = &["nvrtc64_130_0.dll", "nvrtc64_120_0.dll"];
#[cfg(target_os = "linux")]
const DRIVER_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];
#[cfg(not(target_os = "linux"))]
const DRIVER_NAMES: &[&str] = &["nvcuda.dll"];

/// The folders searched for the CUDA driver after `WARP_CUDA_DRIVER_PATH`, in order (after
/// them, the dynamic linker's own search by name).
///
/// ```
/// assert!(warp_runtime::toolchain::DRIVER_DIRS.contains(&"/usr/lib64"));
/// ```
pub const DRIVER_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/nvidia/lib64",
    "/usr/local/nvidia/lib",
    "/usr/lib/wsl/lib",
];

/// The CUDA driver (`libcuda`), loaded globally so that cudarc's lookup by name finds it.
pub fn driver() -> &'static Found {
    DRIVER.get_or_init(|| {
        let mut dirs = env_dirs("WARP_CUDA_DRIVER_PATH");
        dirs.extend(DRIVER_DIRS.iter().map(PathBuf::from));
        search(DRIVER_NAMES, &dirs, &[], ByName::First).map_err(|mut searched| {
            searched.splice(0..0, missing_env_path("WARP_CUDA_DRIVER_PATH"));
            searched
        })
    })
}

/// The oldest CUDA version warp-dsl runs on (`cuDriverGetVersion`'s encoding: 12000 is 12.0,
/// NVIDIA drivers 525 and newer): the driver API is bound at CUDA 12.0 (cudarc's `cuda-12000`).
pub const MIN_DRIVER_CUDA: i32 = 12000;

/// The CUDA version the installed driver supports (`12040` for 12.4), or `None` without a
/// driver (or when it cannot say).
///
/// ```
/// use warp_runtime::toolchain::{MIN_DRIVER_CUDA, driver_version};
/// match driver_version() {
///     Some(v) if v >= MIN_DRIVER_CUDA => println!("CUDA {}.{}", v / 1000, v % 1000 / 10),
///     Some(v) => println!("driver too old for warp-dsl: CUDA {v}"),
///     None => println!("no CUDA driver: the CPU backend"),
/// }
/// ```
pub fn driver_version() -> Option<i32> {
    driver().as_ref().ok()?;
    let mut v = 0;
    // SAFETY: one valid out-pointer; cuDriverGetVersion needs no cuInit. cudarc resolves the
    // symbol from the library loaded above and panics if it is missing, which is caught.
    let status = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe {
        cudarc::driver::sys::cuDriverGetVersion(&mut v)
    }))
    .ok()?;
    (status == cudarc::driver::sys::CUresult::CUDA_SUCCESS).then_some(v)
}

/// The NVRTC library names in order of preference: an NVRTC of the driver's major version
/// first (NVRTC 13's code needs a CUDA 13 driver), then the newest.
fn nvrtc_names() -> Vec<&'static str> {
    let mut names = NVRTC_NAMES.to_vec();
    if driver_version().is_some_and(|v| v < 13000) {
        names.sort_by_key(|n| !n.contains("12"));
    }
    names
}

/// Where to look for NVRTC, in order: every name in the folder `WARP_NVRTC_PATH` names (an
/// explicit choice wins), then the preferred name (see `nvrtc_names`) in every folder, then
/// every name in every folder and through the system's search path.
fn nvrtc_order() -> Vec<(Vec<&'static str>, Vec<PathBuf>, ByName)> {
    let names = nvrtc_names();
    let dirs = nvrtc_dirs();
    vec![
        (names.clone(), env_dirs("WARP_NVRTC_PATH"), ByName::Never),
        (names[..1].to_vec(), dirs.clone(), ByName::Never),
        (names, dirs, ByName::Last),
    ]
}

/// NVRTC, loaded globally (with its builtins library beside it).
pub fn nvrtc() -> &'static Found {
    NVRTC.get_or_init(|| {
        let mut searched: Vec<String> = missing_env_path("WARP_NVRTC_PATH").into_iter().collect();
        for (names, dirs, by_name) in nvrtc_order() {
            match search(&names, &dirs, &["libnvrtc-builtins.so"], by_name) {
                Ok(l) => return Ok(l),
                Err(mut s) => searched.append(&mut s),
            }
        }
        searched.dedup();
        Err(searched)
    })
}

/// Where NVRTC would be loaded from, without loading it (a `stat` per place, searched once per
/// process, as NVRTC itself is loaded once; used for the disk-cache key on warm starts).
pub fn nvrtc_location() -> Option<PathBuf> {
    if let Some(Ok(l)) = NVRTC.get() {
        return l.path.clone();
    }
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(search_nvrtc).clone()
}

/// The first NVRTC library in the search order that exists.
fn search_nvrtc() -> Option<PathBuf> {
    for (names, dirs, _) in nvrtc_order() {
        for d in &dirs {
            for n in &names {
                let p = d.join(n);
                if p.is_file() {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// `var`'s path, named in a failed search's list, when the variable is set to a path that does
/// not exist (the search skips such places silently otherwise).
fn missing_env_path(var: &str) -> Option<String> {
    missing_path(var, crate::settings::raw(var)?)
}

fn missing_path(var: &str, value: std::ffi::OsString) -> Option<String> {
    let p = PathBuf::from(value);
    (!p.exists()).then(|| format!("{var}={} (no such file or folder)", p.display()))
}

fn env_dirs(var: &str) -> Vec<PathBuf> {
    match crate::settings::raw(var) {
        Some(v) => {
            let p = PathBuf::from(v);
            if p.is_file() {
                vec![p.parent().map(Path::to_path_buf).unwrap_or_default(), p]
            } else {
                vec![p]
            }
        }
        _ => vec![],
    }
}

fn nvrtc_dirs() -> Vec<PathBuf> {
    let mut dirs = env_dirs("WARP_NVRTC_PATH");
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(root) = crate::settings::raw(var) {
            let root = PathBuf::from(root);
            for sub in [
                "lib64",
                "lib",
                "targets/x86_64-linux/lib",
                "targets/sbsa-linux/lib",
                "bin",
            ] {
                dirs.push(root.join(sub));
            }
        }
    }
    for d in [
        "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib",
        "/usr/local/cuda/targets/sbsa-linux/lib",
        "/opt/cuda/lib64",
    ] {
        dirs.push(PathBuf::from(d));
    }
    // Versioned toolkits, newest first.
    if let Ok(rd) = std::fs::read_dir("/usr/local") {
        let mut v: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("cuda-"))
            })
            .collect();
        v.sort();
        v.reverse();
        for p in v {
            dirs.push(p.join("lib64"));
        }
    }
    // NVIDIA's pip wheels (nvidia-cuda-nvrtc) in the site-packages folders of common Pythons.
    for site in site_packages() {
        dirs.push(site.join("nvidia/cu13/lib"));
        dirs.push(site.join("nvidia/cuda_nvrtc/lib"));
        dirs.push(site.join("nvidia/cu12/lib"));
    }
    dirs
}

fn site_packages() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(v) = crate::settings::raw("VIRTUAL_ENV") {
        roots.push(PathBuf::from(v).join("lib"));
    }
    if let Some(v) = crate::settings::raw("CONDA_PREFIX") {
        roots.push(PathBuf::from(v).join("lib"));
    }
    if let Some(home) = dirs::home_dir() {
        roots.push(home.join(".local/lib"));
        if let Ok(rd) = std::fs::read_dir(home.join(".pyenv/versions")) {
            roots.extend(rd.flatten().map(|e| e.path().join("lib")));
        }
    }
    for r in ["/usr/local/lib", "/usr/lib", "/opt/conda/lib"] {
        roots.push(PathBuf::from(r));
    }
    let mut out = Vec::new();
    for root in roots {
        let Ok(rd) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut pys: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("python3"))
            })
            .collect();
        pys.sort();
        for py in pys {
            out.push(py.join("site-packages"));
            out.push(py.join("dist-packages"));
        }
    }
    out
}

/// Looks for `names` in `dirs`, then by bare name through the system's search path.
/// `companions` are prefixes of libraries to preload from the same folder (NVRTC's builtins).
/// When `search` also tries the bare names through the system's search path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ByName {
    First,
    Last,
    Never,
}

fn search(names: &[&str], dirs: &[PathBuf], companions: &[&str], by_name_when: ByName) -> Found {
    let mut searched = Vec::new();
    let mut skipped = 0usize;
    let by_name = |searched: &mut Vec<String>| -> Option<Loaded> {
        for n in names {
            searched.push(format!("{n} (system search path)"));
            // SAFETY: loading a vendor library runs its initialisers; these are NVIDIA's CUDA
            // libraries, designed to be loaded this way.
            if let Ok(lib) = unsafe { Library::open(Some(*n), RTLD_NOW | RTLD_GLOBAL) } {
                return Some(Loaded {
                    origin: (*n).to_string(),
                    path: None,
                    lib,
                });
            }
        }
        None
    };
    if by_name_when == ByName::First
        && let Some(l) = by_name(&mut searched)
    {
        return Ok(l);
    }
    for d in dirs {
        for n in names {
            let p = d.join(n);
            if !p.is_file() {
                continue;
            }
            searched.push(p.display().to_string());
            for c in companions {
                preload_companion(d, c);
            }
            // SAFETY: as above.
            if let Ok(lib) = unsafe { Library::open(Some(&p), RTLD_NOW | RTLD_GLOBAL) } {
                return Ok(Loaded {
                    origin: p.display().to_string(),
                    path: Some(p),
                    lib,
                });
            }
        }
        if d.is_dir() {
            searched.push(format!("{}/", d.display()));
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 {
        searched.push(format!(
            "{skipped} standard locations that do not exist on this machine"
        ));
    }
    searched.dedup();
    if by_name_when == ByName::Last
        && let Some(l) = by_name(&mut searched)
    {
        return Ok(l);
    }
    Err(searched)
}

fn preload_companion(dir: &Path, prefix: &str) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(prefix) && !name.contains(".alt.") {
            // SAFETY: as above; the library stays loaded for the process (leaked on purpose).
            if let Ok(lib) = unsafe { Library::open(Some(e.path()), RTLD_NOW | RTLD_GLOBAL) } {
                std::mem::forget(lib);
            }
        }
    }
}

/// The CUDA header folders that cooperative-groups kernels need: one holding
/// `cooperative_groups.h`, plus the CCCL headers (`nv/target`, `cuda/std/...`), which CUDA 13
/// keeps in `include/cccl`. Looked for in `WARP_CUDA_INCLUDE` (folders separated by `:`),
/// `CUDA_HOME`/`CUDA_PATH`, `/usr/local/cuda`, beside the NVRTC library found (pip wheels:
/// `nvidia/cu13/include`, from `nvidia-cuda-runtime` and `nvidia-cuda-cccl`), and in
/// site-packages.
pub fn cuda_include_dirs() -> &'static Result<Vec<PathBuf>, Vec<String>> {
    INCLUDES.get_or_init(|| {
        let mut roots: Vec<PathBuf> = Vec::new();
        if let Some(v) = crate::settings::raw("WARP_CUDA_INCLUDE") {
            roots.extend(std::env::split_paths(&v));
        }
        for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
            if let Some(root) = crate::settings::raw(var) {
                roots.push(PathBuf::from(root).join("include"));
            }
        }
        roots.push(PathBuf::from("/usr/local/cuda/include"));
        if let Some(lib) = nvrtc_location()
            && let Some(dir) = lib.parent().and_then(Path::parent)
        {
            roots.push(dir.join("include"));
        }
        for site in site_packages() {
            roots.push(site.join("nvidia/cu13/include"));
        }
        let has = |d: &Path, f: &str| d.join(f).is_file();
        let cg = roots.iter().find(|r| has(r, "cooperative_groups.h"));
        let cccl = roots
            .iter()
            .flat_map(|r| [r.clone(), r.join("cccl")])
            .find(|d| has(d, "nv/target") && has(d, "cuda/std/type_traits"));
        match (cg, cccl) {
            (Some(cg), Some(cccl)) => {
                let mut dirs = vec![cg.clone()];
                if &cccl != cg {
                    dirs.push(cccl);
                }
                Ok(dirs)
            }
            _ => Err(roots
                .iter()
                .map(|r| {
                    let what = match (
                        has(r, "cooperative_groups.h"),
                        has(r, "nv/target") || has(&r.join("cccl"), "nv/target"),
                    ) {
                        (true, false) => " (cooperative_groups.h, but no CCCL headers)",
                        (false, true) => " (CCCL headers, but no cooperative_groups.h)",
                        _ => "",
                    };
                    format!("{}{what}", r.display())
                })
                .collect()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_variable_naming_nothing_is_listed() {
        let gone = missing_path("WARP_NVRTC_PATH", "/nonexistent/nvrtc".into());
        assert_eq!(
            gone.as_deref(),
            Some("WARP_NVRTC_PATH=/nonexistent/nvrtc (no such file or folder)")
        );
        assert_eq!(missing_path("WARP_NVRTC_PATH", "/".into()), None);
    }
}
