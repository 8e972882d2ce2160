#!/usr/bin/env bash
# The integrators on a GPU: the work–precision study (bench/work_precision.cpp) of every scheme on cubic, BCC, C15
# and cubic4 (cases/integrators/) to t = 5, and each scheme's kernels in bench_step on every stencil at 64M DOFs
# (bytes per pass from Scheme::traffic()). Writes into $OUT (default out/integrators): work_precision.json and .log,
# bench-schemes.json and .log, for reports/data/<device>/integrators/.
#   scripts/integrators-run.sh [study|bench|all]      (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/integrators}
what=${1:-all}
mkdir -p "$OUT"
build=build/cuda
export DECGPE_CACHE=${DECGPE_CACHE:-$OUT/cache}
cmake --build --preset cuda --target work_precision bench_step decgpe >/dev/null
# The schemes the registry holds beside the leapfrog and RK4 (bench-gpu.json's).
split_and_exponential() { "$build/cli/decgpe" list schemes | grep -vx "leapfrog\|rk4" | paste -sd, -; }
if [ "$what" != bench ]; then
  "$build/bench/work_precision" --backend=cuda \
    --cases=cases/integrators/cubic.toml,cases/integrators/bcc.toml,cases/integrators/c15.toml,cases/integrators/cubic4.toml \
    --end-time=5 --out="$OUT/work_precision.json" | tee "$OUT/work_precision.log"
fi
if [ "$what" != study ]; then
  "$build/bench/bench_step" --schemes="$(split_and_exponential)" --backends=cuda:plain \
    --lattices="$("$build/cli/decgpe" list lattices --csv)" --dofs=64e6 \
    --benchmark_out="$OUT/bench-schemes.json" --benchmark_out_format=json >"$OUT/bench-schemes.log" 2>&1
  grep -E '_median' "$OUT/bench-schemes.log" | sed -E 's/ +[0-9.]+ ms +[0-9]+ //' | cut -c1-200
fi
