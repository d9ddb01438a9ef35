//! Finding the CUDA driver and NVRTC libraries without `LD_LIBRARY_PATH`: the path settings,
//! CUDA_HOME / CUDA_PATH, the usual install folders and NVIDIA's pip wheels, then the system
//! search path. Each library is loaded once per process; every place looked at is kept for the
//! error message.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use libloading::Library;

use crate::error::Error;

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

/// Which library a caller wants.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Want<'a> {
    /// The one its path setting finds (`None`: no path named, any library).
    Path(Option<&'a Path>),
    /// The one this process loaded, else the one the environment's path variable finds.
    Loaded,
}

/// Why a library is not available.
#[derive(Debug)]
pub(crate) enum Unavailable {
    /// Not found: every place looked at.
    NotFound(Vec<String>),
    /// The path setting names another library than the one this process loaded (the
    /// [`Error::Setting`] that says so).
    Conflict(Error),
}

/// One library, loaded at most once per process, and the path setting its last search used.
struct Slot {
    /// The setting's variable, for messages and for [`Want::Loaded`].
    var: &'static str,
    /// What the library is, for messages.
    what: &'static str,
    state: Mutex<Option<Search>>,
}

struct Search {
    asked: Option<PathBuf>,
    found: Result<&'static Loaded, Vec<String>>,
}

impl Slot {
    const fn new(var: &'static str, what: &'static str) -> Slot {
        Slot {
            var,
            what,
            state: Mutex::new(None),
        }
    }

    /// The library `want` names: the loaded one when it is acceptable (else a conflict), or,
    /// when none is loaded, the outcome of `find` with the path (kept, so that the same path
    /// does not search twice; another path searches again).
    fn get(
        &self,
        want: Want<'_>,
        find: impl FnOnce(Option<&Path>) -> Found,
    ) -> Result<&'static Loaded, Unavailable> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let env;
        let asked = match want {
            Want::Path(p) => p,
            Want::Loaded => {
                // The loaded library, whatever the environment says (read only to search).
                if let Some(Search { found: Ok(l), .. }) = &*state {
                    return Ok(l);
                }
                env = crate::settings::raw(self.var).map(PathBuf::from);
                env.as_deref()
            }
        };
        if let Some(s) = &*state {
            match &s.found {
                Ok(l) => {
                    return self
                        .accept(s.asked.as_deref(), l, asked)
                        .map_err(Unavailable::Conflict);
                }
                Err(searched) if s.asked.as_deref() == asked => {
                    return Err(Unavailable::NotFound(searched.clone()));
                }
                // Nothing was loaded: search again with this path.
                Err(_) => {}
            }
        }
        let found = find(asked).map(|l| &*Box::leak(Box::new(l)));
        *state = Some(Search {
            asked: asked.map(Path::to_path_buf),
            found: found.clone(),
        });
        found.map_err(Unavailable::NotFound)
    }

    /// The loaded library for a caller whose path setting is `asked` (`None` when none is
    /// loaded yet; an error when `asked` names another).
    fn loaded_for(&self, asked: Option<&Path>) -> Option<Result<&'static Loaded, Error>> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let s = state.as_ref()?;
        let l = s.found.as_ref().ok()?;
        Some(self.accept(s.asked.as_deref(), l, asked))
    }

    /// `loaded` for a caller asking `asked` when the search that loaded it asked `first`:
    /// accepted when no path is asked, the same path, or the loaded file or its folder.
    fn accept(
        &self,
        first: Option<&Path>,
        loaded: &'static Loaded,
        asked: Option<&Path>,
    ) -> Result<&'static Loaded, Error> {
        let Some(asked) = asked else {
            return Ok(loaded);
        };
        if first == Some(asked) || names(asked, loaded) {
            return Ok(loaded);
        }
        Err(Error::Setting {
            var: self.var,
            value: asked.display().to_string(),
            expected: format!(
                "the {} this process already loaded ({}), or its folder: it is loaded once per \
                 process, by the first device or compile that needs it",
                self.what, loaded.origin
            )
            .into(),
        })
    }
}

/// Whether `path` names `loaded`'s file or its folder.
fn names(path: &Path, loaded: &Loaded) -> bool {
    let (Some(file), Ok(path)) = (&loaded.path, path.canonicalize()) else {
        return false;
    };
    let Ok(file) = file.canonicalize() else {
        return false;
    };
    path == file || Some(path.as_path()) == file.parent()
}

static DRIVER: Slot = Slot::new("WARP_CUDA_DRIVER_PATH", "CUDA driver");
static NVRTC: Slot = Slot::new("WARP_NVRTC_PATH", "NVRTC library");

#[cfg(target_os = "linux")]
const NVRTC_NAMES: &[&str] = &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"];
#[cfg(not(target_os = "linux"))]
const NVRTC_NAMES: &[&str] = &["nvrtc64_130_0.dll", "nvrtc64_120_0.dll"];
#[cfg(target_os = "linux")]
const DRIVER_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];
#[cfg(not(target_os = "linux"))]
const DRIVER_NAMES: &[&str] = &["nvcuda.dll"];

/// The folders searched for the CUDA driver after the driver path setting
/// (`WARP_CUDA_DRIVER_PATH`), in order (before them all, the dynamic linker's own search by
/// name).
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

/// The CUDA driver (`libcuda`), loaded globally so that cudarc's lookup by name finds it: by
/// name through the system's search path first, then in the path setting and the usual folders.
pub(crate) fn driver(want: Want<'_>) -> Result<&'static Loaded, Unavailable> {
    DRIVER.get(want, |asked| {
        let mut dirs = path_dirs(asked);
        dirs.extend(DRIVER_DIRS.iter().map(PathBuf::from));
        search(DRIVER_NAMES, &dirs, &[], ByName::First).map_err(|mut searched| {
            searched.splice(0..0, missing_path(DRIVER.var, asked));
            searched
        })
    })
}

/// The driver this process loaded, else the one the environment finds.
pub(crate) fn any_driver() -> Result<&'static Loaded, Vec<String>> {
    driver(Want::Loaded).map_err(Unavailable::into_searched)
}

impl Unavailable {
    /// The places searched (a conflict, which [`Want::Loaded`] never meets, as its message).
    pub(crate) fn into_searched(self) -> Vec<String> {
        match self {
            Unavailable::NotFound(s) => s,
            Unavailable::Conflict(e) => vec![e.to_string()],
        }
    }
}

/// The oldest CUDA version warp-dsl runs on (`cuDriverGetVersion`'s encoding: 12000 is 12.0,
/// NVIDIA drivers 525 and newer): the driver API is bound at CUDA 12.0 (cudarc's `cuda-12000`).
pub const MIN_DRIVER_CUDA: i32 = 12000;

/// The CUDA version the installed driver supports (`12040` for 12.4), or `None` without a
/// driver (or when it cannot say): the driver this process loaded, else the one
/// `WARP_CUDA_DRIVER_PATH` and the search find.
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
    any_driver().ok()?;
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

/// Where to look for NVRTC, in order: every name in the folder of the path setting (an
/// explicit choice wins), then the preferred name (see `nvrtc_names`) in every folder, then
/// every name in every folder and through the system's search path.
fn nvrtc_order(asked: Option<&Path>) -> Vec<(Vec<&'static str>, Vec<PathBuf>, ByName)> {
    let names = nvrtc_names();
    let dirs = nvrtc_dirs(asked);
    vec![
        (names.clone(), path_dirs(asked), ByName::Never),
        (names[..1].to_vec(), dirs.clone(), ByName::Never),
        (names, dirs, ByName::Last),
    ]
}

/// NVRTC, loaded globally (with its builtins library beside it).
pub(crate) fn nvrtc(want: Want<'_>) -> Result<&'static Loaded, Unavailable> {
    NVRTC.get(want, |asked| {
        let mut searched: Vec<String> = missing_path(NVRTC.var, asked).into_iter().collect();
        for (names, dirs, by_name) in nvrtc_order(asked) {
            match search(&names, &dirs, &["libnvrtc-builtins.so"], by_name) {
                Ok(l) => return Ok(l),
                Err(mut s) => searched.append(&mut s),
            }
        }
        searched.dedup();
        Err(searched)
    })
}

/// An error when NVRTC is loaded and the path setting `asked` names another library.
pub(crate) fn check_nvrtc(asked: Option<&Path>) -> Result<(), Error> {
    NVRTC.loaded_for(asked).map_or(Ok(()), |r| r.map(drop))
}

/// Where NVRTC is or would be loaded from for the path setting `asked`, without loading it (a
/// `stat` per place, searched once per path; used for the disk-cache key on warm starts): the
/// loaded library when there is one (a conflict when `asked` names another).
pub(crate) fn nvrtc_location(asked: Option<&Path>) -> Result<Option<PathBuf>, Error> {
    if let Some(l) = NVRTC.loaded_for(asked) {
        return l.map(|l| l.path.clone());
    }
    static FOUND: Mutex<Vec<(Option<PathBuf>, Option<PathBuf>)>> = Mutex::new(Vec::new());
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = found.iter().find(|(a, _)| a.as_deref() == asked) {
        return Ok(p.clone());
    }
    let p = search_nvrtc(asked);
    found.push((asked.map(Path::to_path_buf), p.clone()));
    Ok(p)
}

/// The first NVRTC library in the search order that exists.
fn search_nvrtc(asked: Option<&Path>) -> Option<PathBuf> {
    for (names, dirs, _) in nvrtc_order(asked) {
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

/// The path setting `var` = `asked`, named in a failed search's list, when it names nothing
/// (the search skips such places silently otherwise).
fn missing_path(var: &str, asked: Option<&Path>) -> Option<String> {
    let p = asked?;
    (!p.exists()).then(|| format!("{var}={} (no such file or folder)", p.display()))
}

/// The folders a path setting names: its folder, or a library's folder and the library.
fn path_dirs(asked: Option<&Path>) -> Vec<PathBuf> {
    match asked {
        Some(p) if p.is_file() => {
            vec![
                p.parent().map(Path::to_path_buf).unwrap_or_default(),
                p.to_path_buf(),
            ]
        }
        Some(p) => vec![p.to_path_buf()],
        None => vec![],
    }
}

fn nvrtc_dirs(asked: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = path_dirs(asked);
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
            if let Ok(lib) = unsafe { open_global(*n) } {
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
            if let Ok(lib) = unsafe { open_global(&p) } {
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

/// Opens a library with its symbols resolved now and visible to libraries loaded later (NVRTC
/// finds its builtins library that way): `RTLD_NOW | RTLD_GLOBAL` on Unix, the platform's
/// loader elsewhere (Windows: `LoadLibraryExW`).
///
/// # Safety
///
/// Loading a library runs its initialisers: only for NVIDIA's CUDA libraries.
unsafe fn open_global(name: impl AsRef<std::ffi::OsStr>) -> Result<Library, libloading::Error> {
    #[cfg(unix)]
    {
        use libloading::os::unix::{Library as Unix, RTLD_GLOBAL, RTLD_NOW};
        // SAFETY: the caller's.
        unsafe { Unix::open(Some(name.as_ref()), RTLD_NOW | RTLD_GLOBAL) }.map(Library::from)
    }
    #[cfg(not(unix))]
    {
        // SAFETY: the caller's.
        unsafe { Library::new(name.as_ref()) }
    }
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
            if let Ok(lib) = unsafe { open_global(e.path()) } {
                std::mem::forget(lib);
            }
        }
    }
}

/// The CUDA header folders that cooperative-groups kernels need: one holding
/// `cooperative_groups.h`, plus the CCCL headers (`nv/target`, `cuda/std/...`), which CUDA 13
/// keeps in `include/cccl`. Looked for in the folders of the setting (`include`),
/// `CUDA_HOME`/`CUDA_PATH`, `/usr/local/cuda`, beside the NVRTC library `nvrtc` (pip wheels:
/// `nvidia/cu13/include`, from `nvidia-cuda-runtime` and `nvidia-cuda-cccl`), and in
/// site-packages. Searched once per setting and NVRTC.
pub(crate) fn cuda_include_dirs(
    include: &[PathBuf],
    nvrtc: Option<&Path>,
) -> Result<Vec<PathBuf>, Vec<String>> {
    /// The setting's folders and NVRTC's library, and what the search found for them.
    type Searches = HashMap<(Vec<PathBuf>, Option<PathBuf>), Result<Vec<PathBuf>, Vec<String>>>;
    static INCLUDES: Mutex<Option<Searches>> = Mutex::new(None);
    let key = (include.to_vec(), nvrtc.map(Path::to_path_buf));
    let mut all = INCLUDES.lock().unwrap_or_else(|e| e.into_inner());
    let all = all.get_or_insert_with(HashMap::new);
    all.entry(key)
        .or_insert_with(|| {
            let mut roots: Vec<PathBuf> = include.to_vec();
            for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
                if let Some(root) = crate::settings::raw(var) {
                    roots.push(PathBuf::from(root).join("include"));
                }
            }
            roots.push(PathBuf::from("/usr/local/cuda/include"));
            if let Some(lib) = nvrtc
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
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for a library found at `path` (the C library, loaded by name, stands for it).
    fn fake(path: &Path) -> Found {
        // SAFETY: the C library is already loaded in every process.
        let lib = unsafe { open_global("libc.so.6") }.expect("libc");
        Ok(Loaded {
            origin: path.display().to_string(),
            path: Some(path.to_path_buf()),
            lib,
        })
    }

    #[test]
    fn a_library_is_loaded_once_and_another_path_is_a_setting_error() {
        let slot = Slot::new("WARP_TEST_UNSET_LIBRARY_PATH", "test library");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("libtest.so.1");
        std::fs::write(&file, b"").unwrap();
        let first = dir.path().join("first");
        let never = |_: Option<&Path>| -> Found { panic!("searched again") };
        // Not found: kept for the same path, searched again for another.
        let r = slot.get(Want::Path(Some(&first)), |_| {
            Err(vec!["looked here".into()])
        });
        assert!(matches!(r, Err(Unavailable::NotFound(s)) if s == ["looked here"]));
        let r = slot.get(Want::Path(Some(&first)), never);
        assert!(matches!(r, Err(Unavailable::NotFound(_))));
        assert!(slot.loaded_for(None).is_none(), "nothing loaded");
        let loaded = slot
            .get(Want::Path(Some(dir.path())), |asked| {
                assert_eq!(asked, Some(dir.path()));
                fake(&file)
            })
            .unwrap();
        // Loaded: no path, the same path, the file or its folder (any spelling) get it.
        let dotted = dir.path().join(".");
        for asked in [None, Some(dir.path()), Some(file.as_path()), Some(&dotted)] {
            let got = slot.get(Want::Path(asked), never);
            assert!(matches!(got, Ok(l) if std::ptr::eq(l, loaded)), "{asked:?}");
            assert!(slot.loaded_for(asked).unwrap().is_ok(), "{asked:?}");
        }
        assert!(slot.get(Want::Loaded, never).is_ok());
        // Another path: the setting's error, naming the variable and the library loaded.
        for other in [first.as_path(), Path::new("/nonexistent/lib")] {
            let e = match slot.get(Want::Path(Some(other)), never) {
                Err(Unavailable::Conflict(e)) => e,
                r => panic!("{other:?}: {r:?}"),
            };
            let msg = e.to_string();
            assert!(
                matches!(&e, Error::Setting { var: "WARP_TEST_UNSET_LIBRARY_PATH", value, .. }
                    if value == &other.display().to_string()),
                "{e:?}"
            );
            assert!(msg.contains(&file.display().to_string()), "{msg}");
            assert!(msg.contains("once per process"), "{msg}");
            assert!(matches!(slot.loaded_for(Some(other)), Some(Err(_))));
        }
    }

    #[test]
    fn a_path_variable_naming_nothing_is_listed() {
        let gone = missing_path("WARP_NVRTC_PATH", Some(Path::new("/nonexistent/nvrtc")));
        assert_eq!(
            gone.as_deref(),
            Some("WARP_NVRTC_PATH=/nonexistent/nvrtc (no such file or folder)")
        );
        assert_eq!(missing_path("WARP_NVRTC_PATH", Some(Path::new("/"))), None);
        assert_eq!(missing_path("WARP_NVRTC_PATH", None), None);
    }
}
