#!/usr/bin/env bash
# Builds and runs the sort probe's variants (see sort_probe.cu); the modules are in $1 (sort_*.cu).
set -u
dir=$(cd "$(dirname "$0")" && pwd); mods=${1:?modules dir}; out=/tmp/sortprobe; mkdir -p "$out"
nvcc_=/usr/local/cuda/bin/nvcc
variant() {  # name module key vals items minblocks block [n [crowded]]
  local name=$1 mod=$2 key=$3 vals=$4 items=$5 mb=$6 block=$7 crowded=${9:-} extra=()
  [ -n "$crowded" ] && extra=(-e "s/^#define WD_SORT_CROWDED .*/#define WD_SORT_CROWDED $crowded/")
  sed "${extra[@]}" -e "s/^#define WD_SORT_ITEMS .*/#define WD_SORT_ITEMS $items/" -e "s/^#define WD_SORT_MIN_BLOCKS .*/#define WD_SORT_MIN_BLOCKS $mb/" \
      -e "s/^#define WD_SORT_TILE .*/#define WD_SORT_TILE $((items * block))/" -e "s/^#define WD_SORT_BLOCK .*/#define WD_SORT_BLOCK $block/" \
      "$mods/$mod" > "$out/$name.cu"
  $nvcc_ -O3 -arch=sm_90 -std=c++17 -I"$out" -DMODULE="\"$name.cu\"" -DPROBE_KEY="$key" -DVALS=$vals -DVARIANT="\"$name\"" \
      -o "$out/$name" "$dir/sort_probe.cu" > "$out/$name.build.log" 2>&1 || echo "$name: build failed"
}
# name module key vals items minblocks block [n [crowded]]: the kept shapes and a few
# alternatives; crowded 1 ranks no pass by __match_any_sync (WD_SORT_CROWDED: a pass whose most
# common digit holds more than n / crowded keys is crowded)
V=(
 "u32_keys_24x384_3 sort_u32_v0.cu unsigned 0 24 3 384"
 "u32_keys_24x256_4 sort_u32_v0.cu unsigned 0 24 4 256"
 "f32_keys_24x384_3 sort_f32_v0.cu float 0 24 3 384"
 "f32_keys_no_match sort_f32_v0.cu float 0 24 3 384 268435456 1"
 "u32_pairs_16x384_3 sort_u32_v4.cu unsigned 1 16 3 384"
 "u32_pairs_20x384_2 sort_u32_v4.cu unsigned 1 20 2 384"
 "f32_args_16x384_3 sort_f32_v4.cu float 2 16 3 384"
 "f32_args_no_match sort_f32_v4.cu float 2 16 3 384 268435456 1"
 "u64_keys_12x384_3 sort_u64_v0.cu product::wd_u64 0 12 3 384 134217728"
)
for v in "${V[@]}"; do variant $v & done; wait
for v in "${V[@]}"; do set -- $v; [ -x "$out/$1" ] && "$out/$1" ${8:-} || { echo "$1: failed"; tail -5 "$out/$1.build.log"; }; done
