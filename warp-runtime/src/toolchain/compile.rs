//! Compiling generated CUDA: the options every kernel is built with, NVRTC through the disk
//! cache, and compile errors reported against the user's Rust function.

use std::borrow::Cow;

use super::cache;
use super::loader::{self, Want};
use super::nvrtc::{self, Output};
use crate::error::{Error, Result};
use crate::settings::{Resolved, Settings};

/// One module's CUDA source and what reports about it need: what is compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleSource {
    /// A name for messages and file names (`sum`, `positive_square_f32`).
    pub name: String,
    /// `file:line` of the user's function it was generated from.
    pub location: String,
    /// The complete CUDA source.
    pub source: Cow<'static, str>,
    /// Whether the source includes CUDA's headers (cooperative groups): NVRTC then needs the
    /// toolkit's include folders.
    pub needs_cuda_headers: bool,
}

/// The NVRTC options for `module` on `arch` (`90` for sm_90): [`base_options`], plus the CUDA
/// include folders when the source includes CUDA headers.
fn options_for(
    module: &ModuleSource,
    arch: u32,
    output: Output,
    settings: &Resolved,
) -> Result<Vec<String>> {
    let mut opts = base_options(arch, output);
    if module.needs_cuda_headers {
        opts.extend(include_options_for(settings)?);
    }
    Ok(opts)
}

/// `--include-path` options for the CUDA headers (cooperative groups, CCCL), found with
/// `settings` (`cuda_include`, `WARP_CUDA_INCLUDE`, then the usual places and beside NVRTC).
///
/// ```
/// use warp_runtime::{toolchain, Settings};
/// match toolchain::include_options(&Settings::new()) {
///     Ok(opts) => println!("{opts:?}"),
///     Err(e) => println!("no CUDA headers here: {e}"),
/// }
/// ```
pub fn include_options(settings: &Settings) -> Result<Vec<String>> {
    include_options_for(&settings.resolve()?)
}

fn include_options_for(settings: &Resolved) -> Result<Vec<String>> {
    let nvrtc = loader::nvrtc_location(settings.nvrtc_path.as_deref())?;
    match loader::cuda_include_dirs(&settings.cuda_include, nvrtc.as_deref()) {
        Ok(dirs) => Ok(dirs
            .iter()
            .map(|d| format!("--include-path={}", d.display()))
            .collect()),
        Err(searched) => Err(Error::CudaHeadersNotFound { searched }),
    }
}

/// The NVRTC options every kernel is built with, for `arch` (`90` for sm_90). Floating-point
/// contraction is off: Rust never fuses `a * b + c`, so neither does the generated code
/// (`mul_add` is explicit). The kernels' sizes are in the source itself (the catalogue's
/// defines), not in the options.
pub fn base_options(arch: u32, output: Output) -> Vec<String> {
    let target = match output {
        Output::Cubin => format!("--gpu-architecture=sm_{arch}"),
        Output::Ptx => format!("--gpu-architecture=compute_{arch}"),
    };
    vec![
        target,
        "-std=c++17".into(),
        "--fmad=false".into(),
        "-lineinfo".into(),
    ]
}

fn compile_error(module: &ModuleSource, log: String, options: Vec<String>) -> Error {
    Error::Compile {
        op: module.name.clone(),
        location: module.location.clone(),
        log,
        options,
        numbered_source: nvrtc::numbered(&module.source),
    }
}

/// Compiles a module's source to PTX for `compute_{arch}` (no cache), with the NVRTC and CUDA
/// headers `settings` find: what tests and tools use to check the instructions the kernels
/// contain.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{toolchain, ReduceOp, Settings};
///
/// #[reduce(identity = 0)]
/// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
///
/// match toolchain::ptx(&add::META.module(), 90, &Settings::new()) {
///     Ok(ptx) => assert!(ptx.contains(".entry")),
///     Err(e) => println!("no NVRTC here: {e}"),
/// }
/// ```
pub fn ptx(module: &ModuleSource, arch: u32, settings: &Settings) -> Result<String> {
    let settings = settings.resolve()?;
    let opts = options_for(module, arch, Output::Ptx, &settings)?;
    nvrtc::load(Want::Path(settings.nvrtc_path.as_deref()))?;
    match nvrtc::compile(
        &module.source,
        &format!("{}.cu", module.name),
        &opts,
        Output::Ptx,
    )? {
        Ok(c) => Ok(String::from_utf8_lossy(&c.image).into_owned()),
        Err(r) => Err(compile_error(module, r.log, opts)),
    }
}

/// Where a module came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Compiled by NVRTC in this call.
    Compiled,
    /// Read from the disk cache.
    DiskCache,
}

/// The machine code (or, for a GPU newer than NVRTC, PTX) of a module for `sm_{arch}`, from
/// the disk cache or NVRTC (whose output is then cached), with the NVRTC, CUDA headers and disk
/// cache (folder and cap) of `settings`. Returns the image and where it came from.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{toolchain, ReduceOp, Settings};
///
/// #[reduce(identity = 0)]
/// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
///
/// let settings = Settings::new().cache_dir(std::env::temp_dir().join("my-kernels"));
/// match toolchain::cubin(&add::META.module(), 90, &settings) {
///     Ok((image, origin)) => println!("{} bytes ({origin:?})", image.len()),
///     Err(e) => println!("no NVRTC here: {e}"),
/// }
/// ```
pub fn cubin(module: &ModuleSource, arch: u32, settings: &Settings) -> Result<(Vec<u8>, Origin)> {
    cubin_for(module, arch, &settings.resolve()?)
}

/// [`cubin`] with resolved settings (a device's).
pub(crate) fn cubin_for(
    module: &ModuleSource,
    arch: u32,
    settings: &Resolved,
) -> Result<(Vec<u8>, Origin)> {
    let opts = options_for(module, arch, Output::Cubin, settings)?;
    let nvrtc_id = match loader::nvrtc_location(settings.nvrtc_path.as_deref())? {
        Some(p) => {
            let md = std::fs::metadata(&p).ok();
            let size = md.as_ref().map(|m| m.len()).unwrap_or(0);
            let mtime = md
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{}|{size}|{mtime}", p.display())
        }
        None => "system".to_string(),
    };
    let key = cache::Key::new(&[
        module.source.as_bytes(),
        opts.join("\0").as_bytes(),
        &arch.to_le_bytes(),
        nvrtc_id.as_bytes(),
    ]);
    let span = tracing::info_span!(
        "warp_dsl.compile",
        op = %module.name,
        location = %module.location,
        arch = arch
    );
    let _entered = span.enter();
    let dir = settings.cache_dir.as_deref();
    match cache::load(dir, &key) {
        cache::Lookup::Hit(image) => {
            tracing::debug!(key = %key.hex(), bytes = image.len(), "kernel cache hit");
            return Ok((image, Origin::DiskCache));
        }
        cache::Lookup::Miss => tracing::debug!(key = %key.hex(), "kernel cache miss"),
        cache::Lookup::Corrupt => tracing::warn!(
            key = %key.hex(),
            "kernel cache repair: the cached file is corrupt or foreign; recompiling and overwriting it"
        ),
    }
    nvrtc::load(Want::Path(settings.nvrtc_path.as_deref()))?;
    // A GPU newer than this NVRTC: PTX for the newest architecture it knows, which the driver
    // compiles for the device when loading.
    let supported = nvrtc::supported_archs()?;
    let (opts, output) = if supported.contains(&(arch as i32)) {
        (opts, Output::Cubin)
    } else {
        let best = supported
            .iter()
            .copied()
            .filter(|&a| a as u32 <= arch)
            .max()
            .ok_or_else(|| {
                Error::Unsupported(format!(
                    "this NVRTC cannot compile for sm_{arch} (it supports {supported:?})"
                ))
            })?;
        (
            options_for(module, best as u32, Output::Ptx, settings)?,
            Output::Ptx,
        )
    };
    let t0 = std::time::Instant::now();
    match nvrtc::compile(
        &module.source,
        &format!("{}.cu", module.name),
        &opts,
        output,
    )? {
        Ok(mut c) => {
            tracing::info!(
                seconds = t0.elapsed().as_secs_f64(),
                bytes = c.image.len(),
                ptx = output == Output::Ptx,
                "compiled with NVRTC"
            );
            if output == Output::Ptx {
                c.image.push(0); // the driver takes PTX as a C string
            }
            match cache::store(dir, settings.cache_max_bytes, &key, &c.image) {
                Ok(evicted) => {
                    for e in evicted {
                        tracing::debug!(
                            file = %e.path.display(),
                            bytes = e.bytes,
                            "kernel cache eviction (least recently used, beyond the cache's cap)"
                        );
                    }
                }
                Err(e) => tracing::warn!(
                    error = %e,
                    "could not write the kernel cache; this kernel will be recompiled next run"
                ),
            }
            Ok((c.image, Origin::Compiled))
        }
        Err(r) => {
            tracing::error!("NVRTC rejected the generated CUDA");
            Err(compile_error(module, r.log, opts))
        }
    }
}
