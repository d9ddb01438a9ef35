#!/usr/bin/env bash
# Runs the candle example and bench on a GPU machine (copied into .gpu-candle/ by
# `scripts/candle.sh build`, beside warp-candle.gz). Needs an NVIDIA driver for CUDA 13 and the
# CUDA 13 libraries (libcublas.so.13, libcublasLt.so.13, libcurand.so.10, libcudart.so.13) in
# /usr/local/cuda/lib64 or on LD_LIBRARY_PATH; warp-dsl finds NVRTC itself. Logs go to $OUT (or
# .gpu-candle/out): env.log, example.log, bench.log and bench.md (the table). Exits with the
# first failure's status. Arguments are passed to the example (`--n N`).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exe=$tmp/warp-candle
gzip -dc "$here/warp-candle.gz" > "$exe" && chmod +x "$exe" || exit 1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
  echo "== $(date -u +%FT%TZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  ls /usr/local/cuda/lib64/ 2>/dev/null | grep -E '^lib(cublas|cublasLt|curand|cudart|nvrtc)\.so\.[0-9]+$' | tr '\n' ' '
  echo
  ldd "$exe" | grep -E 'cuda|cublas|curand|nvrtc|not found'
} 2>&1 | tee "$out/env.log"

status=0
echo "== example" | tee "$out/example.log"
"$exe" example "$@" 2>&1 | tee -a "$out/example.log"
rc=${PIPESTATUS[0]}
echo "== example exit $rc" | tee -a "$out/example.log"
[ "$rc" -ne 0 ] && status=$rc

echo "== bench" | tee "$out/bench.log"
"$exe" bench 2>&1 | tee -a "$out/bench.log"
rc=${PIPESTATUS[0]}
echo "== bench exit $rc" | tee -a "$out/bench.log"
[ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc
grep -E '^\|' "$out/bench.log" > "$out/bench.md" || true
exit "$status"
