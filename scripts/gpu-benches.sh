#!/usr/bin/env bash
# GPU machine, after ../shared/gpu/bundle: the collectives bench (2^28), the latency bench and
# the full reduce bench (2^28, peers in the same run). Logs under $OUT (or /tmp). Each bench
# checks every result it prints; the script exits non-zero when any bench fails.
cd "$(dirname "$0")/.." && OUT=${OUT:-/tmp}
bash .gpu/run.sh unpack >/dev/null 2>&1
B=.gpu/bin
failed=()
echo "== collectives 2^28"
WARP_BENCH_N=268435456 $B/test--warp-tests--collectives --bench > "$OUT/collectives.log" 2>&1 || failed+=(collectives)
grep -vE "^check .*: ok" "$OUT/collectives.log" | tail -12
echo "== latency"
timeout 120 $B/test--warp-tests--latency --bench > "$OUT/latency.log" 2>&1 || failed+=(latency)
grep -E "^\||start|Device|FAIL|checks:" "$OUT/latency.log" | tail -40
echo "== reduce bench"
timeout 400 $B/test--warp-tests--reduce --bench > "$OUT/bench.log" 2>&1 || failed+=(reduce)
grep -vE "^peer: CHECK|^check .*: ok" "$OUT/bench.log" | tail -150
if ((${#failed[@]})); then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
