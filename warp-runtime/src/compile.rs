//! Compiling generated CUDA: the options every kernel is built with, NVRTC through the disk
//! cache, and compile errors reported against the user's Rust function.

use crate::cache;
use crate::error::{Error, Result};
use crate::loader;
use crate::nvrtc::{self, Output};
use crate::op::OpMeta;

/// Threads per block of the reduction kernels.
pub const BLOCK: u32 = 256;
/// 16-byte loads each thread keeps in flight.
pub const UNROLL: u32 = 4;

/// The NVRTC options for `meta` on `arch` (`90` for sm_90): [`base_options`], plus the CUDA
/// include folders when the source includes CUDA headers.
pub fn options_for(meta: &OpMeta, arch: u32, output: Output) -> Result<Vec<String>> {
    let mut opts = base_options(arch, output);
    if meta.needs_cuda_headers {
        opts.extend(include_options()?);
    }
    Ok(opts)
}

/// `--include-path` options for the CUDA headers (cooperative groups, CCCL).
pub fn include_options() -> Result<Vec<String>> {
    match loader::cuda_include_dirs() {
        Ok(dirs) => Ok(dirs
            .iter()
            .map(|d| format!("--include-path={}", d.display()))
            .collect()),
        Err(searched) => Err(Error::CudaHeadersNotFound {
            searched: searched.clone(),
        }),
    }
}

/// The NVRTC options every kernel is built with, for `arch` (`90` for sm_90). Floating-point
/// contraction is off: Rust never fuses `a * b + c`, so neither does the generated code
/// (`mul_add` is explicit).
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
        format!("-DWD_BLOCK={BLOCK}"),
        format!("-DWD_UNROLL={UNROLL}"),
    ]
}

fn compile_error(meta: &OpMeta, log: String, options: Vec<String>) -> Error {
    Error::Compile {
        op: meta.name.to_string(),
        location: format!("{}:{}", meta.file, meta.line),
        log,
        options,
        numbered_source: nvrtc::numbered(meta.source),
    }
}

/// Compiles an operation's source to PTX for `compute_{arch}` (no cache): what tests and tools
/// use to check the instructions the kernels contain.
pub fn ptx(meta: &OpMeta, arch: u32) -> Result<String> {
    let opts = options_for(meta, arch, Output::Ptx)?;
    match nvrtc::compile(
        meta.source,
        &format!("{}.cu", meta.name),
        &opts,
        Output::Ptx,
    )? {
        Ok(c) => Ok(String::from_utf8_lossy(&c.image).into_owned()),
        Err(r) => Err(compile_error(meta, r.log, opts)),
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

/// The machine code (or, for a GPU newer than NVRTC, PTX) of an operation for `sm_{arch}`, from the disk cache or NVRTC (whose
/// output is then cached). Returns the image and where it came from.
pub fn cubin(meta: &OpMeta, arch: u32) -> Result<(Vec<u8>, Origin)> {
    let opts = options_for(meta, arch, Output::Cubin)?;
    let nvrtc_id = match loader::nvrtc_location() {
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
        meta.source.as_bytes(),
        opts.join("\0").as_bytes(),
        &arch.to_le_bytes(),
        nvrtc_id.as_bytes(),
    ]);
    if let Some(image) = cache::load(&key) {
        return Ok((image, Origin::DiskCache));
    }
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
        (options_for(meta, best as u32, Output::Ptx)?, Output::Ptx)
    };
    match nvrtc::compile(meta.source, &format!("{}.cu", meta.name), &opts, output)? {
        Ok(mut c) => {
            if output == Output::Ptx {
                c.image.push(0); // the driver takes PTX as a C string
            }
            if let Err(e) = cache::store(&key, &c.image) {
                warn_once(&format!(
                    "warp-dsl: could not write the kernel cache ({e}); kernels will be recompiled next run"
                ));
            }
            Ok((c.image, Origin::Compiled))
        }
        Err(r) => Err(compile_error(meta, r.log, opts)),
    }
}

fn warn_once(msg: &str) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| eprintln!("{msg}"));
}
