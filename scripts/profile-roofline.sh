#!/usr/bin/env bash
# Fig 8's counters: Nsight Compute on the plain step kernel of `decgpe run <case> --backend cuda:plain`, BCC and C15
# at four cube sizes. Writes, for reports/roofline.py, one `ncu --csv --page raw` file per run (<lattice>-<edge>.csv)
# and roofline.json (the settings, the runs, provenance). Where ncu is missing or may not read the GPU's counters,
# roofline.json says "counters": false and the script exits 0: the report then draws the analytic model.
#
#   scripts/profile-roofline.sh [OUT]       OUT defaults to out/roofline
#
# ROOFLINE_EDGES (default "14 27 54 189") are the cube edges in structure instances; a size whose three ψ arrays
# (3 × 16 B per DOF) exceed ROOFLINE_MAX_BYTES (default 20e9: host memory and set-up time, not the GPU, are the limit) is shrunk to the largest cube that fits.
# DECGPE (default build/cuda/cli/decgpe) is the binary profiled.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/roofline}
edges=${ROOFLINE_EDGES:-14 27 54 189}
max_bytes=${ROOFLINE_MAX_BYTES:-20e9}
decgpe=${DECGPE:-build/cuda/cli/decgpe}
fp64=sm__sass_thread_inst_executed_op_d # ...add, ...mul, ...fma: thread-level FP64 instruction counts
metrics=dram__bytes.sum,${fp64}add_pred_on.sum,${fp64}mul_pred_on.sum,${fp64}fma_pred_on.sum,gpu__time_duration.sum
# Base clocks: counters and times that do not depend on how hot the card is; recorded, since times then are not the
# boost-clock times of bench_step.
clock=base
# The run has 8 steps; the 4th launch is past first-touch and cold-cache effects. Launched one by one, not replayed
# from CUDA graphs (the case's [cuda] graphs = false), so that --launch-skip counts steps whatever ncu makes of graph
# nodes; the kernel is the same.
skip=3

mkdir -p "$out"
rm -f "$out"/*.csv "$out/roofline.json"

no_counters() {
  printf '{\n  "counters": false,\n  "reason": "%s"\n}\n' "$1" >"$out/roofline.json"
  echo "profile-roofline: $1; wrote $out/roofline.json without counters (the report draws the analytic model)"
  exit 0
}

ncu=$(command -v ncu || command -v /usr/local/cuda/bin/ncu || true)
[ -n "$ncu" ] || no_counters "ncu (Nsight Compute) not found"
nvidia-smi -L >/dev/null 2>&1 || no_counters "no NVIDIA GPU (nvidia-smi -L failed)"
[ -x "$decgpe" ] || { echo "profile-roofline: $decgpe not found; build with the cuda preset first" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=""
for lattice in bcc c15; do
  case $lattice in bcc) ms=12 ;; c15) ms=136 ;; esac
  cap=$(awk -v b="$max_bytes" -v m="$ms" 'BEGIN { print int((b / (48 * m)) ^ (1 / 3)) }')
  for edge in $edges; do
    [ "$edge" -le "$cap" ] || edge=$cap
    name=$lattice-$edge
    dofs=$((ms * edge * edge * edge))
    # h = 14/edge: the same physical box at every size, as in bench_step.
    cat >"$tmp/$name.toml" <<EOF
lattice = "$lattice"
h = $(awk -v e="$edge" 'BEGIN { printf "%.12g", 14 / e }')
structures = [$edge, $edge, $edge]
g = 300.0
[time]
dt_fraction = 0.5
steps = 8
diagnostics_every = 8
[initial]
kappa = 1
[cuda]
graphs = false
EOF
    echo "profile-roofline: $name ($dofs DOFs)"
    status=0
    "$ncu" --clock-control "$clock" --kernel-name regex:step_plain --launch-skip "$skip" --launch-count 1 \
      --metrics "$metrics" -f -o "$tmp/$name" \
      "$decgpe" run "$tmp/$name.toml" --backend cuda:plain --quiet --no-state --force --out "$tmp/$name.h5" \
      >"$tmp/ncu.log" 2>&1 || status=$?
    rm -f "$tmp/$name.h5"
    why=$(grep -oE 'ERR_NVGPUCTRPERM|LibraryNotLoaded' "$tmp/ncu.log" | head -n 1 || true)
    [ -z "$why" ] || no_counters "ncu cannot read the GPU counters ($why)"
    if [ "$status" -ne 0 ] || [ ! -f "$tmp/$name.ncu-rep" ]; then
      tail -n 20 "$tmp/ncu.log" >&2
      echo "profile-roofline: ncu failed on $name (exit $status)" >&2
      exit 1
    fi
    "$ncu" --import "$tmp/$name.ncu-rep" --csv --page raw --print-units base >"$out/$name.csv"
    runs+="${runs:+,}
    {\"lattice\": \"$lattice\", \"edge\": $edge, \"dofs\": $dofs, \"csv\": \"$name.csv\"}"
  done
done

cat >"$out/roofline.json" <<EOF
{
  "counters": true,
  "ncu_version": "$("$ncu" --version | tail -n 1 | sed 's/^Version //')",
  "clock_control": "$clock",
  "kernel_regex": "step_plain",
  "launch_skip": $skip,
  "launch_count": 1,
  "metrics": "$metrics",
  "command": "ncu --clock-control $clock --kernel-name regex:step_plain --launch-skip $skip --launch-count 1 --metrics <metrics> -o <run> $decgpe run <run>.toml --backend cuda:plain --quiet (the case: [cuda] graphs = false)",
  "case": "g = 300 harmonic trap, harmonic_vortex start, h = 14/edge, structures = [edge, edge, edge], dt_fraction = 0.5, 8 steps",
  "device": "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1 | sed 's/, /, driver /')",
  "git_commit": "${DECGPE_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "runs": [$runs
  ]
}
EOF
echo "profile-roofline: wrote $out/roofline.json and the runs' CSV files"
