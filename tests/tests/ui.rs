//! Compile-fail cases: every mistake is reported at compile time, on the offending token,
//! all at once. Cases live in `tests/ui/<category>/<name>.rs` with the expected `.stderr`
//! (regenerate with `TRYBUILD=overwrite cargo test -p warp-tests --test ui`, then review).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*/*.rs");
}
