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

/// What ptxas gave one kernel of a module: its registers, the bytes of its stack frame and
/// of its register spills (stores and loads: local memory traffic a thread adds), and its
/// static shared memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelResources {
    /// The kernel's name (`wd_k_...`).
    pub kernel: String,
    /// Registers a thread.
    pub registers: u32,
    /// Bytes of stack frame a thread.
    pub stack_bytes: u32,
    /// Bytes of register spill stores (ptxas' static count).
    pub spill_store_bytes: u32,
    /// Bytes of register spill loads (ptxas' static count).
    pub spill_load_bytes: u32,
    /// Bytes of static shared memory a block.
    pub shared_bytes: u32,
}

/// The resources ptxas gives each kernel of `module` on `sm_{arch}`: the module compiled to
/// CUBIN (no cache) with `--ptxas-options=-v`, its log read. For tests and tools that watch
/// register pressure (a spill is a local-memory store and load a thread), in kernel order of
/// the log.
///
/// ```
/// use warp_runtime::prelude::*;
/// use warp_runtime::{toolchain, ReduceOp, Settings};
///
/// #[reduce(identity = 0)]
/// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
///
/// match toolchain::resources(&add::META.module(), 90, &Settings::new()) {
///     Ok(kernels) => {
///         for k in &kernels {
///             println!("{}: {} registers, {} bytes spilled", k.kernel, k.registers, k.spill_store_bytes);
///         }
///     }
///     Err(e) => println!("no NVRTC here: {e}"),
/// }
/// ```
pub fn resources(
    module: &ModuleSource,
    arch: u32,
    settings: &Settings,
) -> Result<Vec<KernelResources>> {
    let settings = settings.resolve()?;
    let mut opts = options_for(module, arch, Output::Cubin, &settings)?;
    opts.push("--ptxas-options=-v".into());
    nvrtc::load(Want::Path(settings.nvrtc_path.as_deref()))?;
    match nvrtc::compile(
        &module.source,
        &format!("{}.cu", module.name),
        &opts,
        Output::Cubin,
    )? {
        Ok(c) => Ok(parse_ptxas_log(&c.log)),
        Err(r) => Err(compile_error(module, r.log, opts)),
    }
}

/// The kernels of a ptxas `-v` log (NVRTC's, with `--ptxas-options=-v`): "Function properties
/// for K", then its stack and spill bytes, then "Used N registers, .. M bytes smem".
pub fn parse_ptxas_log(log: &str) -> Vec<KernelResources> {
    // The number before `unit` in `line` ("56 bytes stack frame", "Used 56 registers").
    let number_before = |line: &str, unit: &str| -> u32 {
        line.find(unit)
            .and_then(|at| line[..at].split_whitespace().last())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in log.lines() {
        if let Some(at) = line.find("Function properties for ") {
            kernels.push(KernelResources {
                kernel: line[at + "Function properties for ".len()..]
                    .trim()
                    .to_string(),
                registers: 0,
                stack_bytes: 0,
                spill_store_bytes: 0,
                spill_load_bytes: 0,
                shared_bytes: 0,
            });
            continue;
        }
        let Some(k) = kernels.last_mut() else {
            continue;
        };
        if line.contains("bytes stack frame") {
            k.stack_bytes = number_before(line, " bytes stack frame");
            k.spill_store_bytes = number_before(line, " bytes spill stores");
            k.spill_load_bytes = number_before(line, " bytes spill loads");
        } else if line.contains("Used ") && line.contains(" registers") {
            k.registers = number_before(line, " registers");
            k.shared_bytes = number_before(line, " bytes smem");
        }
    }
    kernels
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_ptxas_log_gives_each_kernel_its_resources() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'wd_k_a' for 'sm_90'\n\
ptxas info    : Function properties for wd_k_a\n\
ptxas         .     56 bytes stack frame, 52 bytes spill stores, 140 bytes spill loads\n\
ptxas info    : Used 56 registers, used 1 barriers, 56 bytes cumulative stack size, 39024 bytes smem\n\
ptxas info    : Function properties for wd_k_b\n\
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 18 registers, used 0 barriers\n\
ptxas info    : Compiling entry function 'wd_k_c' for 'sm_90'\n\
ptxas info    : Function properties for wd_k_c\n\
ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 40 registers, used 1 barriers, 133 bytes smem, 400 bytes cmem[0]\n";
        let k = super::parse_ptxas_log(log);
        assert_eq!(k.len(), 3);
        assert_eq!(
            (k[0].kernel.as_str(), k[0].registers, k[0].stack_bytes),
            ("wd_k_a", 56, 56)
        );
        assert_eq!(
            (
                k[0].spill_store_bytes,
                k[0].spill_load_bytes,
                k[0].shared_bytes
            ),
            (52, 140, 39024)
        );
        assert_eq!(
            (
                k[1].kernel.as_str(),
                k[1].registers,
                k[1].spill_store_bytes,
                k[1].shared_bytes
            ),
            ("wd_k_b", 18, 0, 0)
        );
        let c = &k[2];
        assert_eq!(
            (
                c.registers,
                c.stack_bytes,
                c.spill_store_bytes,
                c.spill_load_bytes,
                c.shared_bytes
            ),
            (40, 8, 4, 4, 133)
        );
    }
}
