//! The toolchain: finding the CUDA driver and NVRTC, compiling a module's CUDA source to CUBIN
//! (or PTX) through the disk cache, and the options every kernel is built with. Its public
//! surface is what tools and tests need to compile generated CUDA themselves.

mod cache;
mod compile;
mod loader;
mod nvrtc;

pub use compile::{ModuleSource, Origin, base_options, cubin, include_options, ptx};
pub use nvrtc::{Compiled, Output, Rejected, numbered as numbered_source};

pub(crate) use loader::driver;
pub use loader::{DRIVER_DIRS, MIN_DRIVER_CUDA, driver_version};

use crate::error::Result;

/// Compiles `source` (named `name` in messages) with NVRTC and `options`. The outer error is a
/// failure to run NVRTC at all (not found, a broken library); the inner one NVRTC's rejection
/// of the source, with its log.
pub fn compile_source(
    source: &str,
    name: &str,
    options: &[String],
    output: Output,
) -> Result<std::result::Result<Compiled, Rejected>> {
    nvrtc::compile(source, name, options, output)
}

/// NVRTC's version, `(major, minor)`: an error when NVRTC cannot be found or loaded.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    nvrtc::version()
}

/// Where the CUDA driver library was loaded from, or every place looked at.
pub fn find_driver() -> std::result::Result<String, Vec<String>> {
    match loader::driver() {
        Ok(l) => Ok(l.origin.clone()),
        Err(searched) => Err(searched.clone()),
    }
}

/// The folder of the disk cache of compiled kernels (`None` when turned off; an error when
/// `WARP_CACHE` is not a boolean).
///
/// ```
/// let dir = warp_runtime::toolchain::cache_dir()?;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn cache_dir() -> Result<Option<std::path::PathBuf>> {
    cache::dir()
}

pub use cache::Entry as CacheEntry;

/// The files of the disk cache, least recently used first (none when it is turned off).
///
/// ```
/// for e in warp_runtime::toolchain::cache_entries()? {
///     println!("{} {} bytes", e.path.display(), e.bytes);
/// }
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn cache_entries() -> Result<Vec<CacheEntry>> {
    match cache::dir()? {
        Some(d) => cache::entries_in(&d).map_err(|e| cache_io(&d, e)),
        None => Ok(Vec::new()),
    }
}

/// Deletes every file of the disk cache; returns how many files and bytes.
///
/// ```no_run
/// let (files, bytes) = warp_runtime::toolchain::clear_cache()?;
/// # Ok::<(), warp_runtime::Error>(())
/// ```
pub fn clear_cache() -> Result<(usize, u64)> {
    match cache::dir()? {
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
