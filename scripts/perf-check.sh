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
#   --only=PART[,PART...]            only these parts: gpu, schemes, rotating, precision (all four did not finish in
#                                    570 s on an H200, more than a device call holds after a build: run them in two
#                                    calls on one warm machine, with a different OUT each: a run empties perf-check.md)
set -euo pipefail
cd "$(dirname "$0")/.."
update=false
only=gpu,schemes,rotating,precision
for arg in "$@"; do
  case $arg in
  --update) update=true ;;
  --only=*) only=${arg#--only=} ;;
  *)
    echo "perf-check: unknown option '$arg' (--update, --only=gpu,schemes,rotating,precision)" >&2
    exit 2
    ;;
  esac
done
parts='gpu|schemes|rotating|precision'
if ! [[ $only =~ ^($parts)(,($parts))*$ ]]; then
  echo "perf-check: --only takes parts separated by commas (gpu, schemes, rotating, precision), got '$only'" >&2
  exit 2
fi
runs() { [[ ",$only," == *",$1,"* ]]; } # runs PART: whether this run measures it
OUT=${OUT:-out/perf}
mkdir -p "$OUT"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr '[:upper:] ' '[:lower:]-')
committed=reports/data/$device/bench-gpu.json
cmake --build --preset cuda --target bench_step decgpe >/dev/null
registry() { build/cuda/cli/decgpe list "$@"; } # the names come from the registries
status=0
bench() { # a benchmark that cannot run or steps wrongly fails the gate; the others are still compared
  build/cuda/bench/bench_step --backends=cuda:plain --benchmark_out_format=json "$@" || {
    echo "perf-check: bench_step $* failed: its log's ERROR OCCURRED lines say why" | tee -a "$OUT/perf-check.md" >&2
    status=1
  }
}
missing=()
gate() { # gate COMMITTED NEW: compare, or note that this device has no committed file for this part
  if [ -f "$1" ]; then
    python3 scripts/perf_compare.py "$1" "$2" | tee -a "$OUT/perf-check.md" || status=$?
  else
    missing+=("$1")
  fi
}
: >"$OUT/perf-check.md"
if runs gpu; then
  bench --schemes=leapfrog,rk4 --lattices="$(registry crystals --csv)" --dofs=1e6,8e6,64e6 \
    --benchmark_out="$OUT/bench-gpu.json" >"$OUT/bench-gpu.log" 2>&1
  gate "$committed" "$OUT/bench-gpu.json"
fi
schemes=reports/data/$device/integrators/bench-schemes.json
if runs schemes; then
  bench --schemes="$(registry schemes | grep -vx "leapfrog\|rk4" | paste -sd, -)" --lattices="$(registry lattices --csv)" \
    --dofs=64e6 --benchmark_out="$OUT/bench-schemes.json" >"$OUT/bench-schemes.log" 2>&1
  gate "$schemes" "$OUT/bench-schemes.json"
fi
rotating=reports/data/$device/rotation/bench-rotating.json
if runs rotating; then
  bench --schemes=leapfrog,rk4 --lattices="$(registry lattices --csv)" --dofs=64e6 --omegas=0.5 \
    --benchmark_out="$OUT/bench-rotating.json" >"$OUT/bench-rotating.log" 2>&1
  gate "$rotating" "$OUT/bench-rotating.json"
fi
precision=reports/data/$device/precision/bench-precision.json
if runs precision; then
  bench --schemes=leapfrog,rk4 --lattices="$(registry lattices --csv)" --dofs=64e6 --precisions=single,mixed \
    --benchmark_out="$OUT/bench-precision.json" >"$OUT/bench-precision.log" 2>&1
  gate "$precision" "$OUT/bench-precision.json"
fi
for file in "${missing[@]}"; do
  echo "perf-check: no committed JSON for $device: $file (--update makes this run's it)" | tee -a "$OUT/perf-check.md"
done
if $update; then
  for pair in "gpu:$committed:bench-gpu" "schemes:$schemes:bench-schemes" "rotating:$rotating:bench-rotating" \
    "precision:$precision:bench-precision"; do
    IFS=: read -r part file name <<<"$pair"
    if runs "$part"; then
      mkdir -p "$(dirname "$file")" && cp "$OUT/$name.json" "$file"
      echo "perf-check: $file replaced by this run"
    fi
  done
fi
exit $status
