//! Every kernel family of warp-kernels (`family::FAMILIES`) has its runtime side: a backend file
//! `backend/cuda/<f>.rs` and an operation file `operations/<f>.rs`, each with its `mod` line,
//! and the operation file keys its modules (`ModuleKind::`) or names the key of the module that
//! carries its kernels (the scans', the axis module's). Read from the source files; a
//! family added to warp-kernels without them fails here.

use std::path::Path;

use warp_kernels::family::FAMILIES;

fn src(rel: &str) -> Option<String> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(rel)).ok()
}

#[test]
fn every_family_has_a_backend_file_and_an_operation_file() {
    let backend_mod = src("backend/cuda/mod.rs").expect("backend/cuda/mod.rs");
    let operations_mod = src("operations/mod.rs").expect("operations/mod.rs");
    for f in FAMILIES {
        let backend = format!("backend/cuda/{}.rs", f.name);
        assert!(src(&backend).is_some(), "family `{}`: no {backend}", f.name);
        assert!(
            backend_mod.contains(&format!("mod {};", f.name)),
            "backend/cuda/mod.rs lacks `mod {};`",
            f.name
        );
        let operation = format!("operations/{}.rs", f.name);
        let text = src(&operation).unwrap_or_else(|| panic!("family `{}`: no {operation}", f.name));
        assert!(
            operations_mod.contains(&format!("mod {};", f.name)),
            "operations/mod.rs lacks `mod {};`",
            f.name
        );
        assert!(
            text.contains("ModuleKind::") || text.contains("_key::<"),
            "{operation} neither keys a module (ModuleKind) nor names one's key"
        );
    }
}
