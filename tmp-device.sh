#!/usr/bin/env bash
set -uo pipefail
export DECGPE_GIT_COMMIT=cc1ba58
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
( cmake --preset cuda -DDECGPE_WERROR=ON >/dev/null && cmake --build --preset cuda -j 16 ) > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "== ctest -L gpu" | tee -a $S
ctest --preset cuda -L gpu -j 4 > $OUT/ctest-gpu.log 2>&1; grep -E "tests passed|\*\*\*Failed" $OUT/ctest-gpu.log | tee -a $S
echo "== perf-check against the committed JSON (4ad2503's numbers for 64e6 step, old method)" | tee -a $S
mkdir -p $OUT/perf
OUT=$OUT/perf scripts/perf-check.sh > /dev/null 2>&1; grep -E "64e6|slower" $OUT/perf/perf-check.md | tee -a $S
echo "== time to solution" | tee -a $S
OUT=/tmp/tts scripts/time-to-solution.sh 2>&1 | tail -9 | tee -a $S
mkdir -p $OUT/tts && cp /tmp/tts/time_to_solution.md /tmp/tts/time_to_solution.json $OUT/tts/
