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

run() { # run NAME CASE-FILE
  if "$build/cli/decgpe" run "$2" --backend cuda --no-state --force --out "$runs/$1.h5" >"$runs/$1.log" 2>&1; then
    echo "$1: $(grep -E '^(stopped|t = )' "$runs/$1.log" | tr '\n' ' ')"
  else
    echo "$1: FAILED: $(tail -n 1 "$runs/$1.log")"
    status=1
  fi
}

for lattice in cubic fcc bcc a15 c15 z; do
  run "accuracy_$lattice" "cases/accuracy/$lattice.toml"
done
for lattice in cubic bcc; do
  for ops in 1.2e10 2.4e10; do
    sed "s/^operations_per_time = .*/operations_per_time = $ops/" "cases/accuracy/$lattice.toml" >"$runs/case.toml"
    run "refined_${lattice}_$ops" "$runs/case.toml"
  done
done
for lattice in cubic fcc bcc a15 c15 z; do
  sed 's/^g = 300.0/shift = [-0.125, -0.125, -0.125]\ng = 300.0/' "cases/accuracy/$lattice.toml" >"$runs/case.toml"
  run "placement_$lattice" "$runs/case.toml"
done
ctest --test-dir "$build" -R 'FullSize' --output-on-failure >"$runs/fold-test.log" 2>&1 || status=1
tail -n 3 "$runs/fold-test.log"
(cd "$runs" && tar czf "$OUT/physics-accuracy.tgz" accuracy_* refined_* && tar czf "$OUT/physics-placement.tgz" \
  placement_* fold-test.log)
ls -la "$OUT"
exit $status
