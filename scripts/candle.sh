#!/usr/bin/env bash
# The candle integration (integrations/candle, its own workspace: the main workspace and CI never
# build candle). Builds its binary on a machine without a GPU or a CUDA toolkit and packs it
# for a GPU machine:
#
#   scripts/candle.sh build       wheels + stubs, release build, strip, gzip, pack into .gpu-candle/
#   scripts/candle.sh cargo ARGS  cargo with the same environment, in integrations/candle
#                                 (e.g. `scripts/candle.sh cargo clippy --release`)
#   scripts/candle.sh cpu         runs the example on the CPU (candle's CPU device, warp-dsl's CPU
#                                 backend), through the stub driver: checks the logic, no GPU
#
# What `build` does:
# - installs NVIDIA's CUDA 13.0 wheels (nvcc, cicc, headers, CCCL, cudart, NVRTC, cuBLAS, cuRAND)
#   into target/candle-cuda/wheels with `pip --no-deps --target` (about 1.2 GiB, once);
# - makes a stub driver, $CUDA_HOME/lib/stubs/libcuda.so with the soname libcuda.so.1,
#   defining every `cu*` function of cudarc's driver bindings (each returns
#   CUDA_ERROR_STUB_LIBRARY), and unversioned links (libcublas.so -> ../libcublas.so.13, ...)
#   beside it: the binary needs, by soname, libcuda.so.1, libcublas.so.13 (which needs
#   libcublasLt.so.13), libcurand.so.10 and libcudart.so.13, with /usr/local/cuda/lib64 as its
#   run path;
# - builds with CUDA_HOME, NVCC, CUDA_COMPUTE_CAP=90 (candle's kernels: PTX for compute_90a and
#   its MoE library for sm_90a, i.e. H100/H200) into target/candle (the first build compiles
#   candle's kernels with nvcc: about 10 minutes on 2 idle cores, 20 on busy ones);
# - strips and gzips the binary (warp-candle: `example` and `bench` modes) and copies it with
#   run.sh into .gpu-candle/ (git-ignored; about 11 MiB).
#
# On the GPU machine (CUDA 13.0 libraries in /usr/local/cuda/lib64, a CUDA 13 driver):
#   bash .gpu-candle/run.sh          logs and the bench table go to $OUT (or .gpu-candle/out)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
crate=$root/integrations/candle
cuda_dir=$root/target/candle-cuda
wheels=$cuda_dir/wheels
home=$wheels/nvidia/cu13
pack=$root/.gpu-candle
bin=warp-candle

install_wheels() {
  if [ -x "$home/bin/nvcc" ] && [ -f "$home/lib/libcublas.so.13" ] && [ -f "$home/lib/libcurand.so.10" ] \
    && [ -f "$home/nvvm/bin/cicc" ] && [ -f "$home/include/cuda_runtime.h" ]; then
    return
  fi
  echo "candle.sh: installing NVIDIA's CUDA 13.0 wheels into $wheels" >&2
  rm -rf "$wheels"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$wheels" \
    nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
    nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 nvidia-cuda-nvrtc==13.0.88 \
    nvidia-cublas==13.0.2.14 nvidia-curand==10.4.0.35
}

# cudarc's driver bindings, as resolved for the crate (from its Cargo.lock).
driver_bindings() {
  cargo metadata --locked --format-version 1 --manifest-path "$crate/Cargo.toml" \
    | python3 -c 'import json, sys, os
m = json.load(sys.stdin)
p = [p for p in m["packages"] if p["name"] == "cudarc"][0]
print(os.path.join(os.path.dirname(p["manifest_path"]), "src/driver/sys/mod.rs"))'
}

make_stubs() {
  local stubs=$home/lib/stubs
  mkdir -p "$stubs"
  if [ ! -f "$stubs/libcuda.so" ]; then
    local src
    src=$(driver_bindings)
    grep -oE '^pub unsafe fn cu[A-Za-z0-9_]+' "$src" | sed 's/^pub unsafe fn //' | sort -u \
      | awk 'BEGIN { print "/* Stub CUDA driver for linking only (scripts/candle.sh). */" }
             { printf "int %s(void) { return 34; /* CUDA_ERROR_STUB_LIBRARY */ }\n", $1 }' \
      > "$cuda_dir/libcuda_stub.c"
    cc -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$stubs/libcuda.so" "$cuda_dir/libcuda_stub.c"
    ln -sf libcuda.so "$stubs/libcuda.so.1"
    echo "candle.sh: stub libcuda.so.1 with $(grep -c '^int' "$cuda_dir/libcuda_stub.c") functions" >&2
  fi
  local lib
  for lib in libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libnvrtc.so.13 libcudart.so.13; do
    ln -sf "../$lib" "$stubs/${lib%.so.*}.so"
  done
}

setup_env() {
  export CUDA_HOME=$home CUDA_PATH=$home NVCC=$home/bin/nvcc
  export PATH=$home/bin:$PATH
  export CUDA_COMPUTE_CAP=90 CUDARC_CUDA_VERSION=13000
  export CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=$root/target/candle
  export CUDAFORGE_THREADS=${CUDAFORGE_THREADS:-2}
  # The linker finds the stubs and unversioned links here (cudarc adds $CUDA_HOME/lib/stubs).
  export LIBRARY_PATH=$home/lib/stubs${LIBRARY_PATH:+:$LIBRARY_PATH}
}

cmd=${1:-build}
[ $# -gt 0 ] && shift
case "$cmd" in
  build)
    start=$(date +%s)
    install_wheels
    make_stubs
    setup_env
    cargo build --release --locked --manifest-path "$crate/Cargo.toml" --bins
    rm -rf "$pack"
    mkdir -p "$pack"
    # Stripped, then gzipped (candle's MoE kernels, 30 MiB of sm_90a code, compress well);
    # run.sh unpacks it into a temporary folder.
    strip -o "$pack/$bin" "$CARGO_TARGET_DIR/release/$bin"
    gzip -9 "$pack/$bin"
    cp "$crate/run.sh" "$pack/run.sh"
    echo "candle.sh: built in $(($(date +%s) - start)) s; $pack holds:" >&2
    du -ah "$pack" >&2
    ;;
  cargo)
    install_wheels
    make_stubs
    setup_env
    cd "$crate"
    cargo "$@"
    ;;
  cpu)
    # The example on candle's CPU device and warp-dsl's CPU backend. The binary still needs
    # libcuda.so.1 and the CUDA libraries to start: the stubs and the wheels give them.
    exe=$root/target/candle/release/$bin
    [ -x "$exe" ] || { echo "candle.sh: run 'scripts/candle.sh build' first" >&2; exit 1; }
    LD_LIBRARY_PATH=$home/lib/stubs:$home/lib "$exe" example --cpu "$@"
    ;;
  *)
    echo "usage: scripts/candle.sh build | cargo ARGS | cpu" >&2
    exit 2
    ;;
esac
