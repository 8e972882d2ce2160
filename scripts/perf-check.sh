#!/usr/bin/env bash
# The performance regression gate, on a GPU machine: runs bench_step over the matrix of the committed JSON of this
# device (reports/data/<device>/bench-gpu.json: leapfrog and RK4; reports/data/<device>/integrators/bench-schemes.json:
# the split and exponential schemes; reports/data/<device>/rotation/bench-rotating.json: leapfrog and RK4 in the frame
# rotating at Omega = 0.5; reports/data/<device>/precision/bench-precision.json: leapfrog and RK4 in single and mixed
# precision) and fails, with a table, when any benchmark is more than 3% slower.
# Every change to solvers/ or bench/ runs it before it lands (scripts/device-run.sh runs it).
#
#   scripts/perf-check.sh            build if needed, measure into $OUT/bench-gpu.json, compare
#   scripts/perf-check.sh --update   the same, then make the new JSON the committed one (after a change that is meant
#                                    to move the numbers; say so in the commit)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/perf}
mkdir -p "$OUT"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr '[:upper:] ' '[:lower:]-')
committed=reports/data/$device/bench-gpu.json
cmake --build --preset cuda --target bench_step decgpe >/dev/null
registry() { build/cuda/cli/decgpe list "$@"; } # the names come from the registries
build/cuda/bench/bench_step --schemes=leapfrog,rk4 --backends=cuda:plain \
  --lattices="$(registry crystals --csv)" --dofs=1e6,8e6,64e6 \
  --benchmark_out="$OUT/bench-gpu.json" --benchmark_out_format=json >"$OUT/bench-gpu.log" 2>&1
if [ ! -f "$committed" ]; then
  echo "perf-check: no committed JSON for $device ($committed); run with --update to make this one it"
  [ "${1:-}" = --update ] && cp "$OUT/bench-gpu.json" "$committed"
  exit 0
fi
status=0
python3 scripts/perf_compare.py "$committed" "$OUT/bench-gpu.json" | tee "$OUT/perf-check.md" || status=$?
schemes=reports/data/$device/integrators/bench-schemes.json
if [ -f "$schemes" ]; then
  build/cuda/bench/bench_step --schemes="$(registry schemes | grep -vx "leapfrog\|rk4" | paste -sd, -)" \
    --backends=cuda:plain --lattices="$(registry lattices --csv)" --dofs=64e6 \
    --benchmark_out="$OUT/bench-schemes.json" --benchmark_out_format=json >"$OUT/bench-schemes.log" 2>&1
  python3 scripts/perf_compare.py "$schemes" "$OUT/bench-schemes.json" | tee -a "$OUT/perf-check.md" || status=$?
fi
rotating=reports/data/$device/rotation/bench-rotating.json
build/cuda/bench/bench_step --schemes=leapfrog,rk4 --backends=cuda:plain --lattices="$(registry lattices --csv)" \
  --dofs=64e6 --omegas=0.5 --benchmark_out="$OUT/bench-rotating.json" --benchmark_out_format=json \
  >"$OUT/bench-rotating.log" 2>&1
if [ -f "$rotating" ]; then
  python3 scripts/perf_compare.py "$rotating" "$OUT/bench-rotating.json" | tee -a "$OUT/perf-check.md" || status=$?
fi
precision=reports/data/$device/precision/bench-precision.json
build/cuda/bench/bench_step --schemes=leapfrog,rk4 --backends=cuda:plain --lattices="$(registry lattices --csv)" \
  --dofs=64e6 --precisions=single,mixed --benchmark_out="$OUT/bench-precision.json" --benchmark_out_format=json \
  >"$OUT/bench-precision.log" 2>&1
if [ -f "$precision" ]; then
  python3 scripts/perf_compare.py "$precision" "$OUT/bench-precision.json" | tee -a "$OUT/perf-check.md" || status=$?
fi
if [ "${1:-}" = --update ]; then
  cp "$OUT/bench-gpu.json" "$committed"
  [ -f "$schemes" ] && cp "$OUT/bench-schemes.json" "$schemes"
  cp "$OUT/bench-rotating.json" "$rotating"
  mkdir -p "$(dirname "$precision")" && cp "$OUT/bench-precision.json" "$precision"
  echo "perf-check: $committed (and $schemes, $rotating, $precision) replaced by this run"
fi
exit $status
