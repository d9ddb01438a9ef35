//! The one error type of warp-runtime: every failure a user can meet, typed.

use std::fmt;

/// Everything that can go wrong in warp-runtime.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable CUDA GPU (no driver, no device, or the driver refused to start).
    #[error("no CUDA GPU available: {reason}")]
    NoGpu {
        /// Why, with the places searched for the driver.
        reason: String,
    },
    /// The NVRTC library (the run-time CUDA compiler) was not found.
    #[error(
        "NVRTC (libnvrtc) not found; looked in: {}. Install NVIDIA's `nvidia-cuda-nvrtc` wheel \
         (`pip install nvidia-cuda-nvrtc==13.0.88`), or set WARP_NVRTC_PATH (or \
         Settings::nvrtc_path) to the library or its folder",
        searched.join(", ")
    )]
    NvrtcNotFound {
        /// Every place looked at, in order.
        searched: Vec<String>,
    },
    /// The CUDA headers that cooperative-groups kernels include were not found.
    #[error(
        "CUDA headers for cooperative groups not found; looked in: {}. Install the CUDA toolkit, or \
         NVIDIA's `nvidia-cuda-runtime` and `nvidia-cuda-cccl` wheels, or set WARP_CUDA_INCLUDE \
         (or Settings::cuda_include)",
        searched.join(", ")
    )]
    CudaHeadersNotFound {
        /// Every folder looked at.
        searched: Vec<String>,
    },
    /// An NVRTC call failed (other than a compile error).
    #[error("NVRTC {call} failed: {message}")]
    Nvrtc {
        /// The NVRTC function.
        call: &'static str,
        /// NVRTC's message.
        message: String,
    },
    /// NVRTC rejected a generated kernel: a bug in kernels-gen. The message names the Rust
    /// function and carries the compiler log, the options and the numbered source.
    #[error("{}", CompileMessage(self))]
    Compile {
        /// The operation's name.
        op: String,
        /// `file:line` of the Rust function.
        location: String,
        /// NVRTC's log.
        log: String,
        /// The compile options.
        options: Vec<String>,
        /// The CUDA source, with line numbers.
        numbered_source: String,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver error during {context}: {source}")]
    Driver {
        /// What was being done.
        context: &'static str,
        /// The driver's error.
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// The GPU (or, on the CPU backend, the host) is out of memory for an upload, a copy or a
    /// result. The device stays usable (nothing was allocated). (On the CPU backend only the
    /// arrays' own memory is reserved this way; host memory running out inside an
    /// operation's work aborts the process, as Rust's allocator does.)
    #[error("out of device memory allocating {bytes} bytes ({free} bytes free)")]
    OutOfMemory {
        /// The size asked for (`usize::MAX` when it does not fit a `usize`).
        bytes: usize,
        /// The device memory free when the allocation failed, as the driver reports it (0 on
        /// the CPU backend, which cannot tell).
        free: usize,
    },
    /// An argument's shape or range is invalid (a slice out of bounds, too many elements for an
    /// index type, ...).
    #[error("invalid argument: {0}")]
    Shape(String),
    /// An index names no element of its array: `idx[position]` is `index`, and the array
    /// holds `len` elements; `position` is the smallest such position. Of a gather
    /// (`xs.gather(&idx)`): on a GPU the kernels check every index and the operation reports
    /// the fault after them (what it wrote, if anything, is not meaningful); on the CPU
    /// backend the indices are checked before the operation. Of a scatter
    /// ([`Device::scatter_into`](crate::Device::scatter_into),
    /// [`Device::scatter_reduce_into`](crate::Device::scatter_reduce_into)): the indices are
    /// checked before anything is written, so the output is unchanged.
    #[error("index {index} at position {position} is out of range for an array of {len} elements")]
    IndexOutOfRange {
        /// Where in the indices.
        position: usize,
        /// The index.
        index: u64,
        /// The length of the array the indices name places of.
        len: usize,
    },
    /// Data of one device was given to another: a GPU's memory to the CPU backend or to
    /// another GPU (another CUDA context), or CPU-backend memory to a GPU. Devices on the
    /// same GPU context (several streams) share their memory, and so do all CPU-backend
    /// devices.
    #[error(
        "the data lives on a different device (another GPU or context, or the CPU backend) than the one asked to run the operation"
    )]
    DeviceMismatch,
    /// NCCL could not be loaded, or one of its calls failed (feature `nccl`: `Rank` and the
    /// functions beside it).
    #[error("NCCL {call} failed: {message}")]
    Nccl {
        /// What was asked (`ncclAllGather`, `loading libnccl`, ..).
        call: String,
        /// NCCL's answer, or why the library could not be loaded.
        message: String,
    },
    /// The operation does not take this input or argument: beyond one of its limits (`k`
    /// above 1,024 in top-k, inputs of 2^31 elements or more in `partition3`, `u32` run
    /// counts of 2^32 elements or more, more than 8 bound parameters in one composition (a
    /// predicate or bin map over a mapped input, reduce-by-key's values and key comparison),
    /// reduce-by-key values of more than 8 bytes), or a one-input predicate of a `(K, K)`
    /// tuple given to a runs `_by` form.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// Reading or deleting the disk cache of compiled kernels failed (listing or clearing it:
    /// failures while compiling only cost a recompile and are warning events).
    #[error("the kernel cache in {}: {source}", dir.display())]
    Cache {
        /// The cache folder.
        dir: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A setting has a value warp-runtime does not accept: an environment variable's value it
    /// cannot parse, or a library path (set in code or in the environment) naming a library
    /// other than the one this process already loaded. The `settings` module lists them all.
    #[error("{var}={value:?} is not accepted; expected one of: {expected}")]
    Setting {
        /// The setting, named by its environment variable (also when it was set in code with
        /// `Settings`).
        var: &'static str,
        /// Its value.
        value: String,
        /// The accepted values.
        expected: std::borrow::Cow<'static, str>,
    },
    /// `top_k` or `bottom_k` asked for more elements than the input holds.
    #[error("top-k: k = {k} is larger than the input ({len} elements)")]
    KExceedsLength {
        /// The `k` asked for.
        k: usize,
        /// The number of elements of the input.
        len: usize,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

struct CompileMessage<'a>(&'a Error);

impl fmt::Display for CompileMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Error::Compile {
            op,
            location,
            log,
            options,
            numbered_source,
        } = self.0
        {
            writeln!(
                f,
                "NVRTC could not compile the CUDA generated for `{op}` (defined at {location}); \
                 this is a bug in warp-dsl's code generator, please report it with this message."
            )?;
            writeln!(f, "--- compiler log ---\n{}", log.trim_end())?;
            writeln!(f, "--- options ---\n{}", options.join(" "))?;
            write!(f, "--- source ---\n{numbered_source}")?;
        }
        Ok(())
    }
}

/// `?` on cudarc's driver calls in code that returns [`Result`]: [`Error::Driver`] (context
/// "a cudarc driver call"), or [`Error::NoGpu`] when the driver reports no device.
///
/// ```
/// use warp_runtime::cudarc::driver::{DriverError, sys::CUresult};
/// fn mixed() -> warp_runtime::Result<()> {
///     Err(DriverError(CUresult::CUDA_ERROR_INVALID_VALUE))?
/// }
/// assert!(matches!(mixed(), Err(warp_runtime::Error::Driver { .. })));
/// ```
impl From<cudarc::driver::DriverError> for Error {
    fn from(source: cudarc::driver::DriverError) -> Error {
        Error::driver("a cudarc driver call", source)
    }
}

impl Error {
    pub(crate) fn driver(context: &'static str, source: cudarc::driver::DriverError) -> Error {
        use cudarc::driver::sys::CUresult;
        match source.0 {
            CUresult::CUDA_ERROR_NO_DEVICE => Error::NoGpu {
                reason: "the CUDA driver reports no device".into(),
            },
            _ => Error::Driver { context, source },
        }
    }
}
