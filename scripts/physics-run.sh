#!/usr/bin/env bash
# The paper's accuracy study (§5.1) on a GPU: the six lattices at equal work per time unit (cases/accuracy/), cubic
# and BCC at two finer resolutions, the six again with the paper code's lattice placement (−1/8 structure edge),
# and the full-size fold test. Results (diagnostics series and the plane z = 0, no full states) are packed into
# $OUT/physics-*.tgz for reports/data/<device>/.
#   scripts/physics-run.sh [build-dir]
set -uo pipefail
build=${1:-build/cuda}
OUT=${OUT:-out/physics}
runs=$(mktemp -d)/physics
mkdir -p "$runs" "$OUT"
export DECGPE_CACHE=${DECGPE_CACHE:-$runs/../cache}
status=0

run() { # run NAME CASE-FILE [--set KEY=VALUE ...]
  local name=$1 case_file=$2
  shift 2
  if "$build/cli/decgpe" run "$case_file" "$@" --backend cuda --no-state --force --out "$runs/$name.h5" \
    >"$runs/$name.log" 2>&1; then
    echo "$name: $(grep -E '^(stopped|t = )' "$runs/$name.log" | tr '\n' ' ')"
  else
    echo "$name: FAILED: $(tail -n 1 "$runs/$name.log")"
    status=1
  fi
}

for lattice in $("$build/cli/decgpe" list crystals); do
  run "accuracy_$lattice" "cases/accuracy/$lattice.toml"
done
for lattice in cubic bcc; do
  for ops in 1.2e10 2.4e10; do
    run "refined_${lattice}_$ops" "cases/accuracy/$lattice.toml" --set "operations_per_time=$ops"
  done
done
for lattice in $("$build/cli/decgpe" list crystals); do
  run "placement_$lattice" "cases/accuracy/$lattice.toml" --set "shift=[-0.125, -0.125, -0.125]"
done
ctest --test-dir "$build" -R 'FullSize' --output-on-failure >"$runs/fold-test.log" 2>&1 || status=1
tail -n 3 "$runs/fold-test.log"
(cd "$runs" && tar czf "$OUT/physics-accuracy.tgz" accuracy_* refined_* && tar czf "$OUT/physics-placement.tgz" \
  placement_* fold-test.log)
ls -la "$OUT"
exit $status
