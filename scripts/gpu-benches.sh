#!/usr/bin/env bash
# GPU machine, after ../shared/gpu/bundle: the collectives bench (2^28), the latency bench and
# the full reduce bench (2^28, peers in the same run). Logs under $OUT (or /tmp).
cd "$(dirname "$0")/.." && OUT=${OUT:-/tmp}
bash .gpu/run.sh unpack >/dev/null 2>&1
B=.gpu/bin
echo "== collectives 2^28"; WARP_BENCH_N=268435456 $B/test--warp-tests--collectives --bench 2>&1 | tail -10
echo "== latency"; timeout 120 $B/test--warp-tests--latency --bench > $OUT/latency.log 2>&1; grep -E "^\||start|Device" $OUT/latency.log | tail -40
echo "== reduce bench"; timeout 400 $B/test--warp-tests--reduce --bench > $OUT/bench.log 2>&1; echo "rc=$?"; grep -vE "^peer: CHECK" $OUT/bench.log | tail -150
