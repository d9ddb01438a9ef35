//! The `kernels-gen` command: print the CUDA generated for the annotated functions of a Rust
//! file, or compile it with NVRTC and report what the kernels use.

use std::process::ExitCode;

/// `println!` that ends the program quietly when stdout is closed (`kernels-gen emit f.rs |
/// head`) instead of panicking; another write error ends it with the error and status 1.
macro_rules! outln {
    ($($t:tt)*) => { out!("{}\n", format_args!($($t)*)) };
}

/// `print!` as [`outln!`] is `println!`.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout(), $($t)*) {
            stdout_failed(e);
        }
    }};
}

fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("kernels-gen: writing the output: {e}");
    std::process::exit(1);
}

use kernels_gen::FileItem;
use warp_runtime::Settings;
use warp_runtime::toolchain::{self, Output};

const USAGE: &str = "usage: kernels-gen <command> FILE.rs [--arch sm_XY]
       kernels-gen cache list|clear

commands:
  emit FILE.rs               print the CUDA C generated for every #[reduce] function in FILE.rs
  check FILE.rs [--arch sm_90]
                             compile each one with NVRTC for that architecture (default sm_90)
                             and report, per kernel: registers, spills, shared memory, and the
                             warp instructions present (shuffles, votes, redux, vector loads)
  cache list                 the disk cache of compiled kernels (WARP_CACHE_DIR, WARP_CACHE,
                             WARP_CACHE_MAX_MB): each file, least recently used first, its size
                             and last use, and the total against the cap
  cache clear                delete every file of the disk cache

NVRTC is found as warp-runtime finds it (WARP_NVRTC_PATH, CUDA_HOME, /usr/local/cuda, pip wheels).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arch = match args.iter().position(|a| a == "--arch") {
        Some(i) => match args
            .get(i + 1)
            .and_then(|a| a.trim_start_matches("sm_").parse::<u32>().ok())
        {
            Some(a) => a,
            None => {
                eprintln!("kernels-gen: --arch takes sm_XY, e.g. --arch sm_90");
                return ExitCode::from(2);
            }
        },
        None => 90,
    };
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            let is_arch_value = *i > 0 && args[i - 1] == "--arch";
            !a.starts_with("--") && !is_arch_value
        })
        .map(|(_, a)| a)
        .collect();
    match positional.as_slice() {
        [cmd, file] if *cmd == "emit" => run(file, emit),
        [cmd, file] if *cmd == "check" => run(file, |items| check(items, arch)),
        [cmd, sub] if *cmd == "cache" && *sub == "list" => cache_list(),
        [cmd, sub] if *cmd == "cache" && *sub == "clear" => cache_clear(),
        [] => {
            outln!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ if args.iter().any(|a| a == "-h" || a == "--help") => {
            outln!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// `kernels-gen cache list`.
fn cache_list() -> ExitCode {
    // The cache of the environment's settings (WARP_CACHE_DIR, WARP_CACHE, WARP_CACHE_MAX_MB).
    let settings = Settings::new();
    let resolved = match settings.resolve() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kernels-gen: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(dir) = resolved.cache_dir else {
        outln!("the kernel cache is off (WARP_CACHE)");
        return ExitCode::SUCCESS;
    };
    let entries = match toolchain::cache_entries(&settings) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("kernels-gen: {e}");
            return ExitCode::from(1);
        }
    };
    outln!("{}", dir.display());
    let now = std::time::SystemTime::now();
    for e in &entries {
        let ago = now
            .duration_since(e.last_used)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let name = e.path.file_name().map(|n| n.to_string_lossy().into_owned());
        outln!(
            "  {}  {:>10} bytes  last used {ago} s ago",
            name.unwrap_or_default(),
            e.bytes
        );
    }
    let total: u64 = entries.iter().map(|e| e.bytes).sum();
    let cap = match resolved.cache_max_bytes {
        Some(c) => format!("{} MiB", c >> 20),
        None => "none".to_string(),
    };
    outln!("{} files, {total} bytes (cap {cap})", entries.len());
    ExitCode::SUCCESS
}

/// `kernels-gen cache clear`.
fn cache_clear() -> ExitCode {
    let settings = Settings::new();
    let dir = match settings.resolve() {
        Ok(r) => r.cache_dir,
        Err(e) => {
            eprintln!("kernels-gen: {e}");
            return ExitCode::from(1);
        }
    };
    let Some(dir) = dir else {
        outln!("the kernel cache is off (WARP_CACHE)");
        return ExitCode::SUCCESS;
    };
    match toolchain::clear_cache(&settings) {
        Ok((n, bytes)) => {
            outln!("deleted {n} files ({bytes} bytes) from {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("kernels-gen: {e}");
            ExitCode::from(1)
        }
    }
}

/// Reads and generates `path`, reporting unreadable files, invalid Rust and DSL errors.
fn run(path: &str, body: impl FnOnce(&[FileItem]) -> ExitCode) -> ExitCode {
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kernels-gen: cannot read {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let items = match kernels_gen::generate_file(&source, path) {
        Ok(items) => items,
        Err(e) => {
            let at = e.span().start();
            eprintln!(
                "kernels-gen: {path}:{}:{}: not valid Rust: {e}",
                at.line,
                at.column + 1
            );
            return ExitCode::from(1);
        }
    };
    if items.is_empty() {
        eprintln!("kernels-gen: no #[reduce] functions in {path}");
        return ExitCode::from(1);
    }
    let mut failed = false;
    for item in &items {
        if let Err(f) = &item.result {
            failed = true;
            eprint!("{}", f.diagnostics.render(path));
        }
    }
    let code = body(&items);
    if failed { ExitCode::from(1) } else { code }
}

fn emit(items: &[FileItem]) -> ExitCode {
    for item in items {
        if let Ok(op) = &item.result {
            outln!("// ===== #[{}] {} =====", item.attribute, item.name);
            out!("{}", op.source);
        }
    }
    ExitCode::SUCCESS
}

/// Warp-level and memory instructions worth knowing about, counted in PTX.
const INSTRUCTIONS: &[(&str, &str)] = &[
    ("shfl.sync", "shuffles"),
    ("vote.sync", "votes"),
    ("redux.sync", "redux"),
    ("match.sync", "match"),
    ("ld.global.cs.v4", "16-byte loads"),
    ("bar.sync", "barriers"),
    ("atom.", "atomics"),
];

fn check(items: &[FileItem], arch: u32) -> ExitCode {
    match toolchain::nvrtc_version() {
        Ok((major, minor)) => outln!("NVRTC {major}.{minor}, sm_{arch}"),
        Err(e) => {
            eprintln!("kernels-gen: {e}");
            return ExitCode::from(1);
        }
    }
    let mut failed = false;
    for item in items {
        let Ok(op) = &item.result else { continue };
        let parts = &op.parts;
        let mut opts = toolchain::base_options(arch, Output::Cubin);
        if parts.style.needs_cuda_headers() {
            match toolchain::include_options(&Settings::new()) {
                Ok(inc) => opts.extend(inc),
                Err(e) => {
                    eprintln!("kernels-gen: {}: {e}", item.name);
                    failed = true;
                    continue;
                }
            }
        }
        let ptx_opts: Vec<String> = opts
            .iter()
            .map(|o| {
                o.replace(
                    &format!("--gpu-architecture=sm_{arch}"),
                    &format!("--gpu-architecture=compute_{arch}"),
                )
            })
            .collect();
        opts.push("--ptxas-options=-v".into());
        let file = format!("{}.cu", item.name);
        let cubin = toolchain::compile_source(&op.source, &file, &opts, Output::Cubin);
        let ptx = toolchain::compile_source(&op.source, &file, &ptx_opts, Output::Ptx);
        let (log, ptx) = match (cubin, ptx) {
            (Ok(Ok(c)), Ok(Ok(p))) => (c.log, String::from_utf8_lossy(&p.image).into_owned()),
            (Ok(Err(r)), _) | (_, Ok(Err(r))) => {
                eprintln!(
                    "kernels-gen: NVRTC rejected the CUDA of `{}` (a kernels-gen bug):\n{}\n{}",
                    item.name,
                    r.log,
                    toolchain::numbered_source(&op.source)
                );
                failed = true;
                continue;
            }
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("kernels-gen: {e}");
                return ExitCode::from(1);
            }
        };
        outln!(
            "#[{}] {} ({} style{})",
            item.attribute,
            item.name,
            parts.style.name(),
            parts
                .redux
                .map(|r| format!(", redux.sync {r:?}"))
                .unwrap_or_default()
        );
        let resources = toolchain::parse_ptxas_log(&log);
        let kernels = warp_kernels::module::kernel_signatures(&op.source);
        for kernel in kernels.iter().map(|(name, _)| name) {
            let r = resources.iter().find(|r| &r.kernel == kernel);
            let body = ptx_function(&ptx, kernel);
            let found: Vec<String> = INSTRUCTIONS
                .iter()
                .filter_map(|(pat, label)| {
                    let n = body.matches(pat).count();
                    (n > 0).then(|| format!("{label} {n}"))
                })
                .collect();
            match r {
                Some(r) => outln!(
                    "  {kernel}: {} registers, {} bytes stack, {} / {} bytes spilled (stores / loads), {} bytes shared\n    instructions: {}",
                    r.registers,
                    r.stack_bytes,
                    r.spill_store_bytes,
                    r.spill_load_bytes,
                    r.shared_bytes,
                    found.join(", ")
                ),
                None => outln!(
                    "  {kernel}: (no ptxas report)\n    instructions: {}",
                    found.join(", ")
                ),
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The PTX of one entry function (from `.entry name(` to the next `.entry`), inlined callees
/// included since the generated device functions are force-inlined.
fn ptx_function<'a>(ptx: &'a str, name: &str) -> &'a str {
    let Some(start) = ptx.find(&format!(".entry {name}(")) else {
        return "";
    };
    let rest = &ptx[start..];
    let end = rest[1..]
        .find(".entry ")
        .map(|e| e + 1)
        .unwrap_or(rest.len());
    &rest[..end]
}
