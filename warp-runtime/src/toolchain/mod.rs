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
pub use loader::{MIN_DRIVER_CUDA, driver_version};

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

/// The folder of the disk cache of compiled kernels (`None` when turned off).
pub fn cache_dir() -> Option<std::path::PathBuf> {
    cache::dir()
}
