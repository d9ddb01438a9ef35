//! The toolchain: finding the CUDA driver and NVRTC, compiling a module's CUDA source to CUBIN
//! (or PTX) through the disk cache, and the options every kernel is built with. Its public
//! surface is what tools and tests need to compile generated CUDA themselves.

mod cache;
mod compile;
mod loader;
mod nvrtc;

pub use compile::{
    KernelResources, ModuleSource, Origin, base_options, cubin, include_options, parse_ptxas_log,
    ptx, resources,
};
pub use nvrtc::{Compiled, Output, Rejected, numbered as numbered_source};

pub(crate) use compile::cubin_for;
pub use loader::{DRIVER_DIRS, MIN_DRIVER_CUDA, driver_version};
pub(crate) use loader::{Unavailable, Want, check_nvrtc, driver};

use crate::error::Result;
use crate::settings::Settings;

/// Compiles `source` (named `name` in messages) with NVRTC and `options`: the NVRTC this
/// process loaded, else the one the environment finds (`WARP_NVRTC_PATH`, then the search). The
/// outer error is a failure to run NVRTC at all (not found, a broken library); the inner one
/// NVRTC's rejection of the source, with its log.
///
/// ```
/// use warp_runtime::toolchain::{self, Output};
/// let source = "extern \"C\" __global__ void k(int* x) { *x = 1; }";
/// let options = toolchain::base_options(90, Output::Ptx);
/// match toolchain::compile_source(source, "k.cu", &options, Output::Ptx) {
///     Ok(Ok(c)) => assert!(!c.image.is_empty()),
///     Ok(Err(rejected)) => panic!("{}", rejected.log),
///     Err(e) => println!("no NVRTC here: {e}"),
/// }
/// ```
pub fn compile_source(
    source: &str,
    name: &str,
    options: &[String],
    output: Output,
) -> Result<std::result::Result<Compiled, Rejected>> {
    nvrtc::compile(source, name, options, output)
}

/// NVRTC's version, `(major, minor)`: the NVRTC this process loaded, else the one the
/// environment finds; an error when NVRTC cannot be found or loaded.
///
/// ```
/// if let Ok((major, minor)) = warp_runtime::toolchain::nvrtc_version() {
///     println!("NVRTC {major}.{minor}");
/// }
/// ```
pub fn nvrtc_version() -> Result<(i32, i32)> {
    nvrtc::version()
}

/// Where the CUDA driver library was loaded from (the one this process loaded, else the one the
/// environment finds), or every place looked at.
///
/// ```
/// match warp_runtime::toolchain::find_driver() {
///     Ok(origin) => println!("the CUDA driver: {origin}"),
///     Err(searched) => println!("no CUDA driver; looked in {}", searched.join(", ")),
/// }
/// ```
pub fn find_driver() -> std::result::Result<String, Vec<String>> {
    loader::any_driver().map(|l| l.origin.clone())
}

pub use cache::Entry as CacheEntry;

/// The files of the disk cache `settings` name (its folder: [`Resolved::cache_dir`]), least
/// recently used first (none when it is turned off).
///
/// [`Resolved::cache_dir`]: crate::settings::Resolved::cache_dir
///
/// ```
/// use warp_runtime::Settings;
/// for e in warp_runtime::toolchain::cache_entries(&Settings::new())? {
///     println!("{} {} bytes", e.path.display(), e.bytes);
/// }
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn cache_entries(settings: &Settings) -> Result<Vec<CacheEntry>> {
    match settings.resolve()?.cache_dir {
        Some(d) => cache::entries_in(&d).map_err(|e| cache_io(&d, e)),
        None => Ok(Vec::new()),
    }
}

/// Deletes every file of the disk cache `settings` name; returns how many files and bytes.
///
/// ```
/// use warp_runtime::Settings;
/// let mine = Settings::new().cache_dir(std::env::temp_dir().join("warp-doc-clear-cache"));
/// let (files, bytes) = warp_runtime::toolchain::clear_cache(&mine)?;
/// # let _ = (files, bytes);
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn clear_cache(settings: &Settings) -> Result<(usize, u64)> {
    match settings.resolve()?.cache_dir {
        Some(d) => cache::clear_in(&d).map_err(|e| cache_io(&d, e)),
        None => Ok((0, 0)),
    }
}

fn cache_io(dir: &std::path::Path, source: std::io::Error) -> crate::error::Error {
    crate::error::Error::Cache {
        dir: dir.to_path_buf(),
        source,
    }
}
