//! The runtime's layers: each top-level module may use only the modules of lower layers
//! (ARCHITECTURE.md draws them), so the imports have no circle. Read from the source files.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, bottom first; a module may use modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    &["error", "semantics"],
    &["settings"],
    &["values", "toolchain"],
    &["backend"],
    &["device"],
    &["arrays"],
    &["operators"],
    &["inputs"],
    &["ranges"],
    &["gathers", "strides"],
    &["operations"],
    &["group"],
    &["ranks"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `crate::<module>` a file names.
fn crate_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.push(name);
    }
    // `use crate::{a, b}` groups.
    let mut rest = text;
    while let Some(i) = rest.find("crate::{") {
        rest = &rest[i + "crate::{".len()..];
        let group = &rest[..rest.find('}').unwrap_or(0)];
        out.extend(
            group
                .split(',')
                .map(|s| s.trim().split("::").next().unwrap_or("").to_string()),
        );
    }
    out
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_use_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut uses: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for f in &all {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("readable");
        for used in crate_paths(&text) {
            if layer(&used).is_some() && used != top {
                uses.entry(top.clone())
                    .or_default()
                    .push((used, rel.display().to_string()));
            }
        }
    }
    let mut wrong = Vec::new();
    for (module, used) in &uses {
        let Some(mine) = layer(module) else {
            wrong.push(format!(
                "{module} is in no layer (add it to LAYERS and ARCHITECTURE.md)"
            ));
            continue;
        };
        for (u, file) in used {
            if layer(u).is_some_and(|l| l >= mine) {
                wrong.push(format!(
                    "{file}: `{module}` uses `{u}`, which is not below it"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        uses.contains_key("operations"),
        "the scan found the imports"
    );
}

#[test]
fn the_backends_do_not_use_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/backend");
    let mut all = Vec::new();
    files(&src.join("cuda"), &mut all);
    for f in &all {
        let text = std::fs::read_to_string(f).expect("readable");
        assert!(!text.contains("backend::cpu"), "{}", f.display());
    }
    let cpu = std::fs::read_to_string(src.join("cpu.rs")).expect("readable");
    assert!(!cpu.contains("cuda"), "the CPU backend uses the CUDA one");
}
