//! The registries of the kernel families agree: every `family/<f>.rs` is listed once in
//! `family::FAMILIES` and re-exported by the catalogue, every template file is in `TEMPLATES`,
//! every kernel belongs to exactly one family, every family's constants are emitted. A family
//! missing from any of them fails here (ARCHITECTURE.md's checklist names the same places).

use std::collections::BTreeSet;
use std::path::Path;

use warp_kernels::catalogue;
use warp_kernels::family::FAMILIES;
use warp_kernels::module::TEMPLATES;

fn src(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn files(dir: &str, ext: &str) -> BTreeSet<String> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(ext))
        .collect()
}

#[test]
fn every_family_file_is_listed_once_and_re_exported() {
    let listed: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
    let unique: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(
        unique.len(),
        listed.len(),
        "a family listed twice: {listed:?}"
    );
    let on_disk: BTreeSet<String> = files("family", ".rs")
        .into_iter()
        .filter(|n| n != "mod.rs")
        .map(|n| n.trim_end_matches(".rs").to_string())
        .collect();
    let listed: BTreeSet<String> = unique.iter().map(|s| s.to_string()).collect();
    assert_eq!(on_disk, listed, "family/*.rs and family::FAMILIES differ");
    let family_mod = src("family/mod.rs");
    let catalogue = src("catalogue.rs");
    for f in FAMILIES {
        assert!(
            family_mod.contains(&format!("pub mod {};", f.name)),
            "family/mod.rs lacks `pub mod {};`",
            f.name
        );
        assert!(
            catalogue.contains(&format!("pub use crate::family::{}::*;", f.name)),
            "catalogue.rs does not re-export family `{}`",
            f.name
        );
        let text = src(&format!("family/{}.rs", f.module));
        assert!(
            text.contains("_module(") && text.contains("Module::new("),
            "family `{}`: family/{}.rs has no module function",
            f.name,
            f.module
        );
        assert!(!f.kernels.is_empty(), "family `{}` has no kernels", f.name);
    }
}

#[test]
fn every_template_is_listed_and_every_family_names_one() {
    let listed: BTreeSet<String> = TEMPLATES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(listed.len(), TEMPLATES.len(), "a template listed twice");
    assert_eq!(
        files("templates", ".cuh"),
        listed,
        "templates/*.cuh and module::TEMPLATES differ"
    );
    for f in FAMILIES {
        assert!(
            listed.contains(f.template),
            "family `{}` names template {} that TEMPLATES lacks",
            f.name,
            f.template
        );
    }
}

#[test]
fn every_kernel_is_in_one_family_and_every_constant_is_emitted() {
    let mut seen = BTreeSet::new();
    for f in FAMILIES {
        for k in f.kernels {
            assert!(seen.insert(k.name), "kernel {} in two families", k.name);
        }
    }
    let all: BTreeSet<&str> = catalogue::all().map(|k| k.name).collect();
    assert_eq!(all, seen);
    let defines = catalogue::defines();
    let mut names = BTreeSet::new();
    for (name, value) in catalogue::all_defines() {
        assert!(names.insert(*name), "{name} defined twice");
        assert!(
            defines.contains(&format!("#define {name} {value}\n")),
            "{name} is not emitted"
        );
    }
    for f in FAMILIES {
        for (name, _) in f.defines {
            assert!(
                names.contains(name),
                "family `{}`: {name} not emitted",
                f.name
            );
        }
    }
}
