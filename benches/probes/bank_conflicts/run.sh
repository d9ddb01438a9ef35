#!/usr/bin/env bash
# Bank-conflict probes (docs/benchmarks/2026-11-30.md, "where the padded kernels' counts come from"). On the GPU
# machine, from the repository root: bash benches/probes/bank_conflicts/run.sh [OUTDIR]
# The wd_k_* kernels are the generated modules of the CUDA snapshots (insta header removed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
snaps="$here/../../../tests/tests/codegen/snapshots"
out="${1:-${OUT:-/tmp}}"
build="$(mktemp -d)"
for s in transpose_f32 axis_add_i32 axis_sum_f32; do sed '1,4d' "$snaps/codegen__snapshots__axis__$s.snap" > "$build/$s.cuh"; done
cp "$here"/*.cu "$here"/*.cuh "$build/"
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum
cd "$build"
for p in micro tma transpose cols_i32 cols_f32; do
  /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo --fmad=false -o "$p" "$p.cu"
  /usr/local/cuda/bin/ncu --clock-control none --metrics "$M" "./$p" > "$out/ncu_$p.txt" 2>&1
  echo "$p: $out/ncu_$p.txt"
done
