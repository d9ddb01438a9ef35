#!/usr/bin/env bash
# The test command (README.md): installs NVIDIA's NVRTC wheel, and the CUDA runtime and CCCL
# header wheels (cooperative-groups kernels include them), if needed: the NVRTC compile checks
# use them; no GPU is needed. Then checks formatting, lints and the published crates' docs,
# runs every test that does not need a GPU, and packages the published crates. GPU tests are
# marked #[ignore = "needs a CUDA GPU"]; see README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
wheel_dir=target/nvrtc-wheel
if [ ! -f "$wheel_dir/nvidia/cu13/lib/libnvrtc.so.13" ] || [ ! -f "$wheel_dir/nvidia/cu13/include/cooperative_groups.h" ]; then
  echo "test.sh: installing NVIDIA's NVRTC, runtime-header and CCCL wheels into $wheel_dir" >&2
  rm -rf "$wheel_dir"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$wheel_dir" \
    nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85
fi
export WARP_NVRTC_PATH="$PWD/$wheel_dir/nvidia/cu13/lib"
export WARP_CUDA_INCLUDE="$PWD/$wheel_dir/nvidia/cu13/include"
export WARP_REQUIRE_NVRTC=1
export WARP_CACHE_DIR="$PWD/target/warp-kernel-cache"
cargo fmt --all -- --check
# The runtime links no syn, quote or proc-macro2 (they run inside the compiler only).
if cargo tree -p warpdsl-runtime -e normal,no-proc-macro --prefix none | grep -E '^(syn|quote|proc-macro2) '; then
  echo "test.sh: warpdsl-runtime links a syn-family crate (see ARCHITECTURE.md)" >&2
  exit 1
fi
cargo clippy --workspace --all-targets -- -D warnings
# The published crates' docs (what docs.rs builds) with every rustdoc warning an error (broken
# intra-doc links and the like); no CUDA is needed.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet \
  -p warpdsl-kernels -p warpdsl-kernels-gen -p warpdsl-macros -p warpdsl-runtime
# The runtime compiles for Windows (README: Platforms; never run there). The target's standard
# library comes from rustup; where there is no rustup, the step says so and is skipped.
if command -v rustup >/dev/null && rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1; then
  cargo check --quiet -p warpdsl-runtime --target x86_64-pc-windows-gnu --target-dir target/windows
else
  echo "test.sh: no rustup target x86_64-pc-windows-gnu here; the Windows check is skipped" >&2
fi
# warpdsl-runtime links in one binary with candle (cudarc `dynamic-linking`) and with CubeCL
# (`fallback-dynamic-loading`): no build-script clash, one CUDA binding version (probes/linking).
for probe in candle cubecl; do
  cargo check --quiet --manifest-path "probes/linking/$probe/Cargo.toml" --target-dir target/probes
done
cargo test --workspace
# The published crates, in dependency order, packaged as crates.io would take them (their
# unpublished path dependencies through a temporary local registry), and each package built on
# its own: every file it needs (the CUDA templates, the docs) is in it. --allow-dirty: this runs
# on uncommitted work too; `cargo publish` itself refuses a dirty tree.
# Cargo takes a registry crate of a given version as unchanging: it extracts that registry's
# crates into $CARGO_HOME/registry/src/-<hash>/ and builds them once. So that a second run
# verifies the current sources, both go first (the build in a target folder of its own).
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/warpdsl-* target/package-check
cargo package --allow-dirty --quiet --target-dir target/package-check \
  -p warpdsl-kernels -p warpdsl-kernels-gen -p warpdsl-macros -p warpdsl-runtime
# The generated kernels themselves, on the CPU (g++ and the host emulation of tests/emu/shim.h):
# the emu binary's modules `primitives` (warp.cuh and block.cuh on their own), `runs` (the runs
# kernel), `scan` (the scan kernel's deterministic tree prefix, its look-back and exact sums),
# `sort` (the radix sort's passes, the rows' and the segments' sorts), `merge` (the merge sort by
# a comparator), `search` (the binary search), `topk` (the top-k kernel's sample and
# candidate levels, about five minutes) and `topk_rows` (the top-k of each row).
WARP_EMU=1 cargo test -p warp-tests --test emu -- --ignored
