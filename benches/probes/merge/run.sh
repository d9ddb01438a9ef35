#!/usr/bin/env bash
# Builds and runs the merge probe's variants (see merge_probe.cu); the module is $1/merge_f32_abs.cu.
set -u
dir=$(cd "$(dirname "$0")" && pwd); mods=${1:?modules dir}; out=/tmp/mergeprobe; mkdir -p "$out"
nvcc_=/usr/local/cuda/bin/nvcc
variant() {  # items minblocks
  local items=$1 mb=$2 name="f32_abs_${1}_$2"
  sed -e "s/^#define WD_MERGE_ITEMS .*/#define WD_MERGE_ITEMS $items/" -e "s/^#define WD_MERGE_MIN_BLOCKS .*/#define WD_MERGE_MIN_BLOCKS $mb/" \
      -e "s/^#define WD_MERGE_TILE .*/#define WD_MERGE_TILE $((items * 256))/" "$mods/merge_f32_abs.cu" > "$out/$name.cu"
  $nvcc_ -O3 -arch=sm_90 -std=c++17 -I"$out" -DMODULE="\"$name.cu\"" -DVARIANT="\"$name\"" \
      -o "$out/$name" "$dir/merge_probe.cu" > "$out/$name.build.log" 2>&1 || echo "$name: build failed"
}
V=${MERGE_VARIANTS:-"17:4 17:5 17:6 15:5 15:6 13:6 19:4 21:4"}
for v in $V; do variant ${v%:*} ${v#*:} & done; wait
for v in $V; do name="f32_abs_${v%:*}_${v#*:}"; [ -x "$out/$name" ] && "$out/$name" || { echo "$name: failed"; tail -5 "$out/$name.build.log"; }; done
