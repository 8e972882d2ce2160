#!/usr/bin/env bash
# What the GPU machine is for: build (Release, sm_90), then the phases asked for: the gpu tests, every lattice under
# compute-sanitizer, the regression gate (scripts/perf-check.sh) and the CPU benchmark. Logs and Google Benchmark
# JSON go to $OUT (default: out/device).
#
#   scripts/device-run.sh [PHASE ...]   test, sanitize, gate, gate=PART[,PART] (perf-check.sh --only=...), cpu-bench;
#                                       default: all of them
#
# Every call builds first: 193-203 s on a fresh H200; a warm machine rebuilds only what changed since its last call.
# All phases take longer than one device call (600 s): on an H200 the gate's four parts alone did not finish in
# 570 s. Split them over calls on one warm machine, each with its own OUT, e.g. `test`, then `sanitize`, then
# `gate=gpu,schemes`, then `gate=rotating,precision cpu-bench`. Gate phases in one call make one gate run over their
# parts (a run empties perf-check.md).
# The device tool carries .deps (header-only libraries, see scripts/fetch-header-deps.sh); the machine has the rest.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-out/device}
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(test sanitize gate cpu-bench)
parts='(gpu|schemes|rotating|precision)' # scripts/perf-check.sh's
for phase in "${phases[@]}"; do
  if ! [[ $phase =~ ^(test|sanitize|gate|gate=$parts(,$parts)*|cpu-bench)$ ]]; then
    echo "device-run: unknown phase '$phase' (test, sanitize, gate, gate=PART[,PART], cpu-bench)" >&2
    exit 2
  fi
done
wants() { [[ " ${phases[*]} " == *" $1 "* ]]; } # wants PHASE: whether this call runs it
mkdir -p "$OUT"
status=0
step() { echo "== $*" | tee -a "$OUT/summary.txt"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$OUT/summary.txt"

step "build"
if ! { cmake --preset cuda -DDECGPE_WERROR=ON && cmake --build --preset cuda -j "$(nproc)"; } >"$OUT/build.log" 2>&1; then
  tail -n 40 "$OUT/build.log"
  exit 1
fi

if wants test; then
  step "ctest -L gpu"
  ctest --preset cuda -L gpu -j 4 --output-junit "$(realpath "$OUT")/ctest-gpu.xml" >"$OUT/ctest-gpu.log" 2>&1 || status=1
  tail -n 4 "$OUT/ctest-gpu.log" | tee -a "$OUT/summary.txt"
fi

sanitize() { # sanitize TOOL CASE LABEL DECGPE-ARGS...: one small run under compute-sanitizer
  local tool=$1 case=$2 label=$3
  shift 3
  if compute-sanitizer --tool "$tool" --error-exitcode 3 build/cuda/cli/decgpe run "$case" "$@" --quiet --force \
    --out "$tmp/out.h5" >>"$OUT/sanitizer.log" 2>&1; then
    echo "$(basename "$case" .toml) $label $tool: clean" | tee -a "$OUT/summary.txt"
  else
    echo "$(basename "$case" .toml) $label $tool: ERRORS (see sanitizer.log)" | tee -a "$OUT/summary.txt"
    status=1
  fi
}

if wants sanitize; then
  step "compute-sanitizer (memcheck, racecheck) on a small case of every stencil, one slice a block and sweeping; every other scheme under memcheck; adaptive steps and vortex lines under both"
  tmp=$(mktemp -d)
  for lattice in $(build/cuda/cli/decgpe list lattices); do
    printf 'lattice = "%s"\nh = 0.8\nstructures = [5, 4, 6]\ng = 100.0\n[time]\ndt_fraction = 0.5\nsteps = 12\ndiagnostics_every = 4\n[initial]\nkappa = 1\n' \
      "$lattice" >"$tmp/$lattice.toml"
    sed 's/^dt_fraction = 0.5/dt = 0.02/' "$tmp/$lattice.toml" >"$tmp/$lattice-dt.toml" # schemes without a limit
    for tool in memcheck racecheck; do
      sanitize "$tool" "$tmp/$lattice.toml" "one slice a block" --backend cuda
    done
    sanitize memcheck "$tmp/$lattice.toml" rk4 --backend cuda --scheme rk4
    # "sweep" takes one slice a block on a grid this small; settings given in full run the sweep itself (chunks of
    # 3 slices, a last chunk shorter, prefetch 2 ahead, cells by face count) for every pass that sweeps: the leapfrog
    # step, the RK4 stages, the Chebyshev terms.
    export DECGPE_PLAIN_SHAPE=1x256z3a2b4f
    sanitize memcheck "$tmp/$lattice.toml" sweep --backend cuda
    sanitize memcheck "$tmp/$lattice.toml" "rk4 sweep" --backend cuda --scheme rk4
    sanitize memcheck "$tmp/$lattice-dt.toml" "exponential sweep" --backend cuda --scheme exponential
    # The staged sweep (ψ slices in shared memory by cp.async: racecheck too), tiles cut short in x and z; its tiles
    # of the 46- to 136-cell stencils do not fit a block, and single precision needs an even row (Sx = 5 on cubic).
    export DECGPE_PLAIN_SHAPE=t4x4z3a1b4
    case $lattice in cubic | cubic4 | bcc | fcc)
      for tool in memcheck racecheck; do
        sanitize "$tool" "$tmp/$lattice.toml" "staged sweep" --backend cuda
        [ "$lattice" = cubic ] || sanitize "$tool" "$tmp/$lattice.toml" "staged sweep, single" --backend cuda \
          --set numerics.precision=single
      done
      ;;
    esac
    unset DECGPE_PLAIN_SHAPE
    for scheme in $(build/cuda/cli/decgpe list schemes | grep -vx "leapfrog\|rk4"); do # the rest
      sanitize memcheck "$tmp/$lattice-dt.toml" "$scheme" --backend cuda --scheme "$scheme"
    done
    # Adaptive steps: the step_maxima reduction (shared memory: racecheck too) under both controls.
    sed 's/^steps = 12/end_time = 0.1\nscheme = "exponential"\nadaptive = true/' "$tmp/$lattice-dt.toml" \
      >"$tmp/$lattice-adaptive.toml"
    for tool in memcheck racecheck; do
      sanitize "$tool" "$tmp/$lattice-adaptive.toml" "exponential adaptive" --backend cuda
    done
    sed 's/^dt = 0.02/dt_fraction = 0.5/' "$tmp/$lattice-adaptive.toml" >"$tmp/$lattice-adaptive-rk4.toml"
    sanitize memcheck "$tmp/$lattice-adaptive-rk4.toml" "rk4 adaptive" --backend cuda --scheme rk4
    # The vortex flux: its kernel, the select and the copies on their own stream while the steps go on (racecheck
    # for the block count in shared memory), in the condensate's region and over the whole domain.
    for tool in memcheck racecheck; do
      sanitize "$tool" "$tmp/$lattice.toml" "vortex lines" --backend cuda --set analysis.vortex_lines_every=4
    done
    sanitize memcheck "$tmp/$lattice.toml" "vortex lines, domain" --backend cuda \
      --set analysis.vortex_lines_every=4 --set analysis.vortex_region=domain
  done
fi

gate_parts="" # the gate phases' parts, one run of the gate
for phase in "${phases[@]}"; do
  case $phase in
  gate) gate_parts=gpu,schemes,rotating,precision ;;
  gate=*) gate_parts+=${gate_parts:+,}${phase#gate=} ;;
  esac
done
if [ -n "$gate_parts" ]; then
  step "the regression gate against the committed JSON (scripts/perf-check.sh --only=$gate_parts)"
  OUT="$OUT" scripts/perf-check.sh --only="$gate_parts" | grep -E "benchmarks slower|^perf-check:" |
    tee -a "$OUT/summary.txt" || status=1
fi
if wants cpu-bench; then
  step "the CPU backends' benchmark"
  build/cuda/bench/bench_step --backends=reference,openmp --lattices=bcc,c15 --dofs=64e6 \
    --benchmark_out="$OUT/bench-cpu.json" --benchmark_out_format=json >"$OUT/bench-cpu.log" 2>&1 || status=1
fi
cat "$OUT"/bench-*.log 2>/dev/null | grep -E '^(step|rk4|copy)' | sed -E 's/ +[0-9.]+ ms +[0-9]+ //' | cut -c1-160
exit $status
