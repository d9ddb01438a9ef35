//! The module cache of a device: modules keyed by the Rust types they are generated from,
//! obtained from memory, then the disk cache, then NVRTC; their kernels with the occupancy
//! each is launched at.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaModule};
use warp_kernels::catalogue::Kernel;

use super::{Gpu, drv};
use crate::error::Result;
use crate::toolchain::{self, ModuleSource, Origin};

/// What a module holds (with the types in [`ModuleKey`], it names one module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ModuleKind {
    /// A reduction: the operator's own module, or a map composed with it.
    Reduce,
    /// The predicate kernels.
    Predicate,
    /// The three-way partition by two predicates.
    Partition3,
    /// Runs of equal keys: unique, run-length encode, reduce-by-key.
    Runs,
    /// A map written out.
    Map,
    /// Values scattered to the places their indices name.
    Scatter,
    /// The values of an element input written out.
    Collect,
    /// The histogram by a bin map.
    Histogram,
    /// Scans and axis reductions.
    Axis,
    /// Transpose.
    Transpose,
    /// Top-k and bottom-k.
    TopK,
    /// The radix sort: keys, pairs, argsort.
    Sort,
    /// The merge sort by a comparator.
    Merge,
    /// The binary search.
    Search,
    /// The group-by by a table.
    Group,
}

/// A module's identity: its kind and the Rust types it is generated from (the operator, the
/// map or index, the element; `()` where there is none). Types, not addresses: two uses of
/// the same operator always find the same module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ModuleKey {
    kind: ModuleKind,
    types: [TypeId; 3],
}

impl ModuleKey {
    /// The key of a `kind` module generated from `types`.
    pub(crate) fn new(kind: ModuleKind, types: [TypeId; 3]) -> ModuleKey {
        ModuleKey { kind, types }
    }
}

/// How the module of one operation was obtained, for start-up reporting.
#[derive(Clone, Copy, Debug)]
pub struct LoadReport {
    /// Disk cache or NVRTC.
    pub origin: Origin,
    /// Seconds spent finding or compiling the image and loading the module.
    pub seconds: f64,
}

/// A kernel of a loaded module, ready to launch.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub(crate) func: CudaFunction,
    /// Resident blocks per SM at the kernel's block size (from the occupancy calculator).
    pub(crate) blocks_per_sm: u32,
    /// Dynamic shared memory a block may take beyond the default, as set (0: none).
    pub(crate) shared_reserved: u32,
}

/// A loaded module and the kernels looked up in it so far.
pub(crate) struct Module {
    module: Arc<CudaModule>,
    functions: Mutex<HashMap<&'static str, Function>>,
    /// The operator's name and its Rust `file:line`, for the launch events.
    pub(crate) name: String,
    pub(crate) location: String,
}

impl Module {
    /// Kernel `k` of the module (looked up once).
    pub(crate) fn function(&self, k: &'static Kernel) -> Result<Function> {
        let mut map = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = map.get(k.name) {
            return Ok(f.clone());
        }
        let func = self
            .module
            .load_function(k.name)
            .map_err(drv("finding a kernel in its module"))?;
        let blocks_per_sm = func
            .occupancy_max_active_blocks_per_multiprocessor(k.threads.count(), 0, None)
            .map_err(drv("querying occupancy"))?
            .max(1);
        let f = Function {
            func,
            blocks_per_sm,
            shared_reserved: 0,
        };
        map.insert(k.name, f.clone());
        Ok(f)
    }

    /// Lets kernel `k` launch with `bytes` of dynamic shared memory a block, past the 48 KiB
    /// a kernel gets without opting in, and asks for the largest shared-memory carveout (once
    /// per kernel and size). A device with less shared memory a block than the kernel takes
    /// fails here, with [`crate::Error::Driver`].
    pub(crate) fn reserve_shared(&self, k: &'static Kernel, bytes: u32) -> Result<()> {
        let f = self.function(k)?;
        if f.shared_reserved >= bytes {
            return Ok(());
        }
        f.func
            .set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
            .map_err(drv("reserving a kernel's dynamic shared memory"))?;
        // The most shared memory an SM's L1 can give (a hint, as CUB's tuned kernels and the
        // sort probe set it): the blocks a kernel is built for then fit.
        f.func
            .set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                100,
            )
            .map_err(drv("reserving a kernel's dynamic shared memory"))?;
        let mut map = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = map.get_mut(k.name) {
            f.shared_reserved = f.shared_reserved.max(bytes);
        }
        Ok(())
    }
}

/// The modules of one device.
#[derive(Default)]
pub(crate) struct Cache {
    modules: Mutex<HashMap<ModuleKey, Arc<Module>>>,
    reports: Mutex<Vec<(String, LoadReport)>>,
}

impl Cache {
    pub(crate) fn reports(&self) -> Vec<(String, LoadReport)> {
        self.reports.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Gpu {
    /// The module `key` names; `source` builds its CUDA the first time (then it is compiled
    /// or read from the disk cache, and loaded).
    pub(crate) fn module(
        &self,
        key: ModuleKey,
        source: impl FnOnce() -> ModuleSource,
    ) -> Result<Arc<Module>> {
        if let Some(m) = self
            .shared
            .modules
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(m.clone());
        }
        // Compile outside the lock: other threads may use other modules meanwhile.
        let t0 = Instant::now();
        let source = source();
        // The disk cache and NVRTC of this device's settings (devices of one context share
        // the modules, so the one that needs a module first compiles it).
        let (image, origin) = toolchain::cubin_for(&source, self.shared.arch, &self.settings)?;
        self.shared
            .ctx
            .bind_to_thread()
            .map_err(drv("binding the context"))?;
        let module = self
            .shared
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(image))
            .map_err(drv("loading a module"))?;
        let report = LoadReport {
            origin,
            seconds: t0.elapsed().as_secs_f64(),
        };
        tracing::info!(
            op = %source.name,
            location = %source.location,
            origin = ?origin,
            seconds = report.seconds,
            device = %self.shared.name,
            "module loaded"
        );
        if let Ok(mut r) = self.shared.modules.reports.lock() {
            r.push((source.name.clone(), report));
        }
        let mut map = self
            .shared
            .modules
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        Ok(map
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Module {
                    module,
                    functions: Mutex::new(HashMap::new()),
                    name: source.name,
                    location: source.location,
                })
            })
            .clone())
    }
}
