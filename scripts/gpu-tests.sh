#!/usr/bin/env bash
# GPU machine, after ../shared/gpu/bundle: every test binary's GPU tests, the examples,
# `fidelity gpu`, and compute-sanitizer (memcheck, racecheck) on every kernel family
# (tests/tests/gpu_sanitize.rs). Logs under $LOGS (default /tmp/warp-gpu-logs), packed into
# $OUT/gpu-logs.tgz when $OUT is set. Exits non-zero when any of these
# fails, or when a GPU test binary (gpu, gpu_*) or a module of the gpu binary ran no test. PARTS
# (default "tests examples fidelity sanitize") picks some of these, for runs under a time limit.
cd "$(dirname "$0")/.." || exit 1
LOGS=${LOGS:-/tmp/warp-gpu-logs}
mkdir -p "$LOGS"
PARTS=${PARTS:-tests examples fidelity sanitize}
part() { [[ " $PARTS " == *" $1 "* ]]; }
bash .gpu/run.sh unpack >/dev/null 2>&1
B=.gpu/bin
export WARP_CACHE_DIR=/tmp/wcache
# NCCL for the ranks' test (tests/tests/gpu/ranks.rs): cudarc opens it as `libnccl.so`, which
# NCCL's packages and wheels do not install (only libnccl.so.2); a link to the first found,
# and WARP_REQUIRE_NCCL=1 so that the test fails rather than skips when it cannot be loaded.
for lib in /usr/lib/x86_64-linux-gnu/libnccl.so.2 \
  $(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib", "libnccl.so.2"))' 2>/dev/null); do
  if [[ -e $lib ]]; then
    mkdir -p /tmp/warp-nccl && ln -sf "$lib" /tmp/warp-nccl/libnccl.so
    export LD_LIBRARY_PATH=/tmp/warp-nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} WARP_REQUIRE_NCCL=1
    break
  fi
done
failed=()
# The counts of the last `test result:` line of a log: "passed failed".
counts() { grep -E '^test result' "$1" | tail -1 | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/'; }
# The modules of a test binary made of several (tests/tests/<name>/main.rs: the first part of
# its tests' names, one per former file); none for a binary of one file.
modules() { "$1" --list 2>/dev/null | sed -nE 's/^([A-Za-z0-9_]+)::.*: test$/\1/p' | sort -u; }
ran=0; empty=()
part tests && for b in $B/test--*; do
  n=$(basename "$b")
  case $n in *--reduce|*--latency|*--collectives) continue;; esac # benches
  case $n in *--emu) continue;; esac # CPU emulations: scripts/test.sh runs them (CI)
  timeout 600 "$b" --ignored > "$LOGS/$n.log" 2>&1; rc=$?
  read -r p f <<<"$(counts "$LOGS/$n.log")"
  echo "$n: rc=$rc passed=${p:-?} failed=${f:-?}"
  if [[ $rc != 0 ]]; then failed+=("$n"); tail -40 "$LOGS/$n.log"; continue; fi
  if [[ ${p:-0} -gt 0 ]]; then ran=$((ran+1)); fi
  [[ $n == *--gpu || $n == *--gpu_* ]] || continue
  # A GPU test binary passes GPU tests, and so does each of its modules (each former gpu_* file).
  for m in "" $(modules "$b"); do
    if ! grep -qE "^test ${m:+$m::}.* \.\.\. ok$" "$LOGS/$n.log"; then
      empty+=("$n${m:+::$m}"); failed+=("$n${m:+::$m} (no GPU test ran)")
    fi
  done
done
part tests && echo "binaries that ran GPU tests: $ran; GPU test binaries or modules that ran none: ${#empty[@]} ${empty[*]}"
if part examples; then
  mkdir -p "$LOGS/examples"
  OUT=$LOGS/examples bash .gpu/run.sh examples > "$LOGS/examples.log" 2>&1 || failed+=("examples")
  tail -1 "$LOGS/examples.log"
fi
fid=$(ls $B/bin--*--fidelity 2>/dev/null | head -1)
if ! part fidelity; then :
elif [[ -n $fid ]]; then
  timeout 600 "$fid" gpu > "$LOGS/fidelity.log" 2>&1 || failed+=("fidelity gpu")
  tail -3 "$LOGS/fidelity.log"
else
  failed+=("fidelity (not bundled)")
fi
part sanitize && for tool in memcheck racecheck; do
  timeout 400 compute-sanitizer --tool $tool --error-exitcode 9 $B/test--warp-tests--gpu_sanitize --ignored --test-threads 1 > "$LOGS/san_$tool.log" 2>&1
  rc=$?
  echo "$tool rc=$rc"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$LOGS/san_$tool.log" | tail -3
  read -r p f <<<"$(counts "$LOGS/san_$tool.log")"
  if [[ $rc != 0 || ${p:-0} == 0 ]]; then failed+=("compute-sanitizer $tool"); fi
done
[[ -n ${OUT:-} ]] && tar -C "$LOGS" -czf "$OUT/gpu-logs.tgz" .
if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all GPU checks passed"
