//! NVRTC, the run-time CUDA compiler: raw calls wrapped once (loaded from the path the loader
//! found), and a safe `compile` that returns CUBIN or PTX with the compiler log.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;

use super::loader::{self, Unavailable, Want};
use crate::error::{Error, Result};

type Program = *mut c_void;
type Status = c_int;

/// The NVRTC entry points used, resolved once.
struct Api {
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    error_string: unsafe extern "C" fn(Status) -> *const c_char,
    create: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    destroy: unsafe extern "C" fn(*mut Program) -> Status,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    cubin_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    cubin: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ptx_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    ptx: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    num_archs: unsafe extern "C" fn(*mut c_int) -> Status,
    archs: unsafe extern "C" fn(*mut c_int) -> Status,
}

static API: OnceLock<std::result::Result<Api, Error>> = OnceLock::new();

/// Loads NVRTC as `want` asks (or checks that the library loaded is the one it names): the
/// calls below then use it.
pub(crate) fn load(want: Want<'_>) -> Result<()> {
    api(want).map(drop)
}

/// The NVRTC this process loaded, else the one the environment finds.
fn loaded_api() -> Result<&'static Api> {
    api(Want::Loaded)
}

fn api(want: Want<'_>) -> Result<&'static Api> {
    let loaded = match loader::nvrtc(want) {
        Ok(l) => l,
        Err(Unavailable::NotFound(searched)) => return Err(Error::NvrtcNotFound { searched }),
        Err(Unavailable::Conflict(e)) => return Err(e),
    };
    // One library is ever loaded (`loader::nvrtc`), so its entry points are resolved once.
    let r = API.get_or_init(|| {
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol has the signature of NVRTC's public C API (nvrtc.h), the
                // type of the field it is stored in; the library stays loaded for the process.
                match unsafe { loaded.lib.get(concat!($name, "\0").as_bytes()) } {
                    Ok(s) => *s,
                    Err(e) => {
                        return Err(Error::Nvrtc {
                            call: $name,
                            message: format!("symbol missing in {}: {e}", loaded.origin),
                        });
                    }
                }
            };
        }
        let api = Api {
            version: sym!("nvrtcVersion"),
            error_string: sym!("nvrtcGetErrorString"),
            create: sym!("nvrtcCreateProgram"),
            compile: sym!("nvrtcCompileProgram"),
            destroy: sym!("nvrtcDestroyProgram"),
            log_size: sym!("nvrtcGetProgramLogSize"),
            log: sym!("nvrtcGetProgramLog"),
            cubin_size: sym!("nvrtcGetCUBINSize"),
            cubin: sym!("nvrtcGetCUBIN"),
            ptx_size: sym!("nvrtcGetPTXSize"),
            ptx: sym!("nvrtcGetPTX"),
            num_archs: sym!("nvrtcGetNumSupportedArchs"),
            archs: sym!("nvrtcGetSupportedArchs"),
        };
        // Code from NVRTC of a newer major version than the driver's CUDA is refused by the
        // driver when loaded: say so here, with the fix.
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        let status = unsafe { (api.version)(&mut major, &mut minor) };
        if let Some(d) = loader::driver_version()
            && status == 0
            && major * 1000 > d
        {
            return Err(Error::Nvrtc {
                call: "nvrtcVersion",
                message: format!(
                    "NVRTC {major}.{minor} (from {}) makes code for CUDA {major} drivers, and this \
                     driver supports CUDA {}.{}: install NVRTC {} (for instance `pip install \
                     nvidia-cuda-nvrtc-cu{}`) and point the NVRTC path (WARP_NVRTC_PATH or \
                     Settings::nvrtc_path) at its lib folder, or update the driver",
                    loaded.origin,
                    d / 1000,
                    d % 1000 / 10,
                    d / 1000,
                    d / 1000
                ),
            });
        }
        Ok(api)
    });
    r.as_ref().map_err(clone_error)
}

fn clone_error(e: &Error) -> Error {
    match e {
        Error::NvrtcNotFound { searched } => Error::NvrtcNotFound {
            searched: searched.clone(),
        },
        Error::Nvrtc { call, message } => Error::Nvrtc {
            call,
            message: message.clone(),
        },
        other => Error::Nvrtc {
            call: "load",
            message: other.to_string(),
        },
    }
}

fn check(api: &Api, call: &'static str, status: Status) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any status.
    let msg = unsafe { CStr::from_ptr((api.error_string)(status)) }
        .to_string_lossy()
        .into_owned();
    Err(Error::Nvrtc { call, message: msg })
}

/// NVRTC's version, `(major, minor)`.
pub fn version() -> Result<(i32, i32)> {
    let api = loaded_api()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two valid out-pointers.
    check(api, "nvrtcVersion", unsafe {
        (api.version)(&mut major, &mut minor)
    })?;
    Ok((major, minor))
}

/// The `sm_XY` architectures this NVRTC can compile for (as `XY` numbers).
pub fn supported_archs() -> Result<Vec<i32>> {
    let api = loaded_api()?;
    let mut n = 0;
    // SAFETY: valid out-pointer.
    check(api, "nvrtcGetNumSupportedArchs", unsafe {
        (api.num_archs)(&mut n)
    })?;
    let mut v = vec![0; n.max(0) as usize];
    // SAFETY: `v` has room for the `n` entries NVRTC writes.
    check(api, "nvrtcGetSupportedArchs", unsafe {
        (api.archs)(v.as_mut_ptr())
    })?;
    Ok(v)
}

/// What to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Machine code for a real architecture (`--gpu-arch=sm_XY`).
    Cubin,
    /// PTX for a virtual architecture (`--gpu-arch=compute_XY`).
    Ptx,
}

/// The result of a compile.
#[derive(Debug)]
pub struct Compiled {
    /// CUBIN or PTX bytes (PTX without its trailing NUL).
    pub image: Vec<u8>,
    /// The compiler's log (warnings).
    pub log: String,
}

/// A compile that NVRTC rejected.
#[derive(Debug)]
pub struct Rejected {
    /// The compiler's log.
    pub log: String,
}

/// Compiles `source` with `options` (with the NVRTC loaded, else the one the environment
/// finds: [`load`] first to ask for another). The outer error is a failure to run NVRTC at all;
/// the inner one a compile error in the source.
pub fn compile(
    source: &str,
    name: &str,
    options: &[String],
    output: Output,
) -> Result<std::result::Result<Compiled, Rejected>> {
    let api = loaded_api()?;
    let c_src =
        CString::new(source).map_err(|_| Error::Shape("CUDA source contains a NUL byte".into()))?;
    let c_name = CString::new(name)
        .map_err(|_| Error::Shape("kernel file name contains a NUL byte".into()))?;
    let c_opts: Vec<CString> = options
        .iter()
        .map(|o| {
            CString::new(o.as_str())
                .map_err(|_| Error::Shape("compile option contains a NUL byte".into()))
        })
        .collect::<Result<_>>()?;
    let opt_ptrs: Vec<*const c_char> = c_opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: Program = std::ptr::null_mut();
    // SAFETY: valid NUL-terminated strings; zero headers; `prog` is an out-pointer.
    check(api, "nvrtcCreateProgram", unsafe {
        (api.create)(
            &mut prog,
            c_src.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    })?;
    let guard = ProgramGuard { api, prog };
    // SAFETY: `prog` is live; `opt_ptrs` holds `len` valid C strings kept alive by `c_opts`.
    let status = unsafe { (api.compile)(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr()) };
    let log = read_log(api, prog)?;
    const NVRTC_ERROR_COMPILATION: Status = 6;
    if status == NVRTC_ERROR_COMPILATION {
        return Ok(Err(Rejected { log }));
    }
    check(api, "nvrtcCompileProgram", status)?;
    let (size_fn, get_fn, call) = match output {
        Output::Cubin => (api.cubin_size, api.cubin, "nvrtcGetCUBIN"),
        Output::Ptx => (api.ptx_size, api.ptx, "nvrtcGetPTX"),
    };
    let mut size = 0usize;
    // SAFETY: `prog` compiled successfully; valid out-pointer.
    check(api, call, unsafe { size_fn(prog, &mut size) })?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` has the `size` bytes NVRTC reported.
    check(api, call, unsafe {
        get_fn(prog, image.as_mut_ptr().cast())
    })?;
    if output == Output::Ptx {
        while image.last() == Some(&0) {
            image.pop();
        }
    }
    drop(guard);
    Ok(Ok(Compiled { image, log }))
}

fn read_log(api: &Api, prog: Program) -> Result<String> {
    let mut size = 0usize;
    // SAFETY: `prog` is live; valid out-pointer.
    check(api, "nvrtcGetProgramLogSize", unsafe {
        (api.log_size)(prog, &mut size)
    })?;
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: `buf` has the `size` bytes NVRTC reported.
    check(api, "nvrtcGetProgramLog", unsafe {
        (api.log)(prog, buf.as_mut_ptr().cast())
    })?;
    while buf.last() == Some(&0) {
        buf.pop();
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

struct ProgramGuard {
    api: &'static Api,
    prog: Program,
}

impl Drop for ProgramGuard {
    fn drop(&mut self) {
        // SAFETY: `prog` was created by nvrtcCreateProgram and is destroyed once, here.
        unsafe {
            (self.api.destroy)(&mut self.prog);
        }
    }
}

/// The source with line numbers, for compile-error reports.
pub fn numbered(source: &str) -> String {
    source
        .lines()
        .enumerate()
        .map(|(i, l)| format!("{:5} | {l}\n", i + 1))
        .collect()
}
