#!/usr/bin/env bash
# Builds and runs the sort probe's variants (see sort_probe.cu); the modules are in $1 (sort_*.cu,
# from `cargo run -p warp-tests --example dump_sort -- DIR`), the experiment modules made from
# them by variants.py. Then (unless CUB=0) CUB's sorts of the same data (cub_sort.cu), and ncu's
# time of each of CUB's kernels (one sort each). $2 (optional): a pattern; only variants whose name matches run.
set -u
dir=$(cd "$(dirname "$0")" && pwd); mods=${1:?modules dir}; only=${2:-.}; out=/tmp/sortprobe; mkdir -p "$out"
nvcc_=/usr/local/cuda/bin/nvcc
python3 "$dir/variants.py" "$mods" || exit 1
variant() {  # name module key vals items minblocks block [n [crowded [lookback]]]
  local name=$1 mod=$2 key=$3 vals=$4 items=$5 mb=$6 block=$7 crowded=${9:-} lookback=${10:-} extra=() flags=()
  [ -n "$crowded" ] && extra+=(-e "s/^#define WD_SORT_CROWDED .*/#define WD_SORT_CROWDED $crowded/")
  [ -n "$lookback" ] && extra+=(-e "s/^#define WD_SORT_LOOKBACK .*/#define WD_SORT_LOOKBACK $lookback/")
  case $name in *timed*) flags+=(-DTIMED) ;; esac
  case $name in *staged*) flags+=(-DDYN=1) ;; esac
  sed "${extra[@]}" -e "s/^#define WD_SORT_ITEMS .*/#define WD_SORT_ITEMS $items/" -e "s/^#define WD_SORT_MIN_BLOCKS .*/#define WD_SORT_MIN_BLOCKS $mb/" \
      -e "s/^#define WD_SORT_TILE .*/#define WD_SORT_TILE $((items * block))/" -e "s/^#define WD_SORT_BLOCK .*/#define WD_SORT_BLOCK $block/" \
      "$mods/$mod" > "$out/$name.cu"
  $nvcc_ -O3 -arch=sm_90 -std=c++17 -Xptxas -v -I"$out" -DMODULE="\"$name.cu\"" -DPROBE_KEY="$key" -DVALS=$vals -DVARIANT="\"$name\"" "${flags[@]}" \
      -o "$out/$name" "$dir/sort_probe.cu" > "$out/$name.build.log" 2>&1 || echo "$name: build failed"
  echo "$name: $(grep -A2 'wd_k_sort_pass' "$out/$name.build.log" | grep -o '[0-9]* bytes spill stores\|Used [0-9]* registers' | tr '\n' ' ')"
}
# name module key vals items minblocks block [n [crowded [lookback]]]: the kept shapes (keys of
# at most 4 bytes alone: persistent blocks, the module's WD_SORT_PERSIST), a block a tile
# (`_tile`), a few alternatives and the experiments (crowded 1 ranks no pass by __match_any_sync: WD_SORT_CROWDED;
# lookback: WD_SORT_LOOKBACK, the look-back's window)
N=268435456
V=(
 "u32_keys_20x384_3 sort_u32_v0.cu unsigned 0 20 3 384"
 "u32_keys_24x384_3_tile sort_u32_v0_tile.cu unsigned 0 24 3 384"
 "u32_keys_20x384_3_timed sort_u32_v0_timed.cu unsigned 0 20 3 384"
 "u32_keys_20x384_3_lb16 sort_u32_v0.cu unsigned 0 20 3 384 $N 8 16"
 "u32_keys_24x384_3 sort_u32_v0.cu unsigned 0 24 3 384"
 "u32_keys_20x384_3_late sort_u32_v0_late.cu unsigned 0 20 3 384"
 "u32_keys_20x384_3_late_timed sort_u32_v0_late_timed.cu unsigned 0 20 3 384"
 "u32_keys_24x384_3_late sort_u32_v0_late.cu unsigned 0 24 3 384"
 "f32_keys_20x384_3 sort_f32_v0.cu float 0 20 3 384"
 "f32_keys_20x384_3_late sort_f32_v0_late.cu float 0 20 3 384"
 "f32_keys_20x384_3_late_timed sort_f32_v0_late_timed.cu float 0 20 3 384"
 "f32_keys_24x384_3_tile sort_f32_v0_tile.cu float 0 24 3 384"
 "f32_keys_20x384_3_timed sort_f32_v0_timed.cu float 0 20 3 384"
 "f32_keys_no_match_timed sort_f32_v0_timed.cu float 0 20 3 384 $N 1"
 "u32_pairs_16x384_3 sort_u32_v4.cu unsigned 1 16 3 384"
 "u32_pairs_16x384_3_timed sort_u32_v4_timed.cu unsigned 1 16 3 384"
 "u32_pairs_24x384_2 sort_u32_v4.cu unsigned 1 24 2 384"
 "u32_pairs_24x384_2_staged sort_u32_v4_staged.cu unsigned 1 24 2 384"
 "u32_pairs_24x384_2_staged_timed sort_u32_v4_staged_timed.cu unsigned 1 24 2 384"
 "u32_args_16x384_3 sort_u32_v4.cu unsigned 2 16 3 384"
 "u32_args_24x384_2_staged sort_u32_v4_staged.cu unsigned 2 24 2 384"
 "f32_args_16x384_3 sort_f32_v4.cu float 2 16 3 384"
 "f32_args_16x384_3_timed sort_f32_v4_timed.cu float 2 16 3 384"
 "f32_args_24x384_2_staged sort_f32_v4_staged.cu float 2 24 2 384"
 "f32_pairs_16x384_3 sort_f32_v4.cu float 1 16 3 384"
 "f32_pairs_24x384_2_staged sort_f32_v4_staged.cu float 1 24 2 384"
 "f32_pairs_24x384_2_staged_timed sort_f32_v4_staged_timed.cu float 1 24 2 384"
 "f32_pairs_24x384_2 sort_f32_v4.cu float 1 24 2 384"
 "f32_args_24x384_2_staged_timed sort_f32_v4_staged_timed.cu float 2 24 2 384"
 "u32_pairs_24x384_2_staged_xfirst sort_u32_v4_staged_xfirst.cu unsigned 1 24 2 384"
 "u32_pairs_24x384_2_staged_xsplit sort_u32_v4_staged_xsplit.cu unsigned 1 24 2 384"
 "u32_args_24x384_2_staged_xfirst sort_u32_v4_staged_xfirst.cu unsigned 2 24 2 384"
 "u32_args_24x384_2_staged_xsplit sort_u32_v4_staged_xsplit.cu unsigned 2 24 2 384"
 "f32_pairs_24x384_2_staged_xfirst sort_f32_v4_staged_xfirst.cu float 1 24 2 384"
 "f32_pairs_24x384_2_staged_xsplit sort_f32_v4_staged_xsplit.cu float 1 24 2 384"
 "f32_args_24x384_2_staged_xfirst sort_f32_v4_staged_xfirst.cu float 2 24 2 384"
 "f32_args_24x384_2_staged_xsplit sort_f32_v4_staged_xsplit.cu float 2 24 2 384"
 "u32_pairs_16x384_3_persist sort_u32_v4_persist.cu unsigned 1 16 3 384"
 "u32_pairs_14x384_3_persist sort_u32_v4_persist.cu unsigned 1 14 3 384"
 "u32_pairs_12x384_3_persist sort_u32_v4_persist.cu unsigned 1 12 3 384"
 "f32_args_16x384_3_persist sort_f32_v4_persist.cu float 2 16 3 384"
 "f32_args_12x384_3_persist sort_f32_v4_persist.cu float 2 12 3 384"
 "u64_keys_12x384_3 sort_u64_v0.cu product::wd_u64 0 12 3 384 134217728"
 "u64_keys_12x384_3_persist sort_u64_v0_persist.cu product::wd_u64 0 12 3 384 134217728"
)
sel=(); for v in "${V[@]}"; do set -- $v; [[ $1 =~ $only ]] && sel+=("$v"); done
for v in "${sel[@]}"; do variant $v & done
$nvcc_ -O3 -arch=sm_90 -std=c++17 -o "$out/cub_sort" "$dir/cub_sort.cu" > "$out/cub_sort.build.log" 2>&1 &
wait
for v in "${sel[@]}"; do set -- $v; [ -x "$out/$1" ] && "$out/$1" ${8:-} || { echo "$1: failed"; tail -5 "$out/$1.build.log"; }; done
[ "${CUB:-1}" = 1 ] || exit 0
"$out/cub_sort" || tail -5 "$out/cub_sort.build.log"
ONCE=1 timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum "$out/cub_sort" 2>&1 | grep -E '^  [A-Za-z]|gpu__time_duration'
