#!/usr/bin/env bash
# GPU machine, after ../shared/gpu/bundle: every test binary's GPU tests, the examples, and
# compute-sanitizer (memcheck, racecheck) on the collectives' kernels. Logs under $OUT (or /tmp).
cd "$(dirname "$0")/.." && OUT=${OUT:-/tmp}
bash .gpu/run.sh unpack >/dev/null 2>&1
B=.gpu/bin
export WARP_CACHE_DIR=/tmp/wcache
pass=0; fail=0
for b in $B/test--*; do
  n=$(basename $b)
  case $n in *--reduce|*--latency|*--collectives) continue;; esac
  if timeout 250 $b --ignored > $OUT/$n.log 2>&1; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAILED $n"; tail -30 $OUT/$n.log; fi
  grep -E "^test result" $OUT/$n.log | tail -1 | sed "s/^/$n: /"
done
echo "test binaries: $pass passed, $fail failed"
bash .gpu/run.sh examples > $OUT/examples.log 2>&1; tail -2 $OUT/examples.log
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/test--warp-tests--gpu_sanitize --ignored --test-threads 1 > $OUT/san_$tool.log 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" $OUT/san_$tool.log | tail -3
done
