#!/usr/bin/env bash
set -uo pipefail
export DECGPE_GIT_COMMIT=aee50c2+mintime
cmake --build --preset cuda -j 16 --target bench_step > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
mkdir -p $OUT/perf
time (OUT=$OUT/perf scripts/perf-check.sh > /dev/null 2>&1; echo "perf-check rc=$?")
grep -E "FAIL|slower" $OUT/perf/perf-check.md
