#!/usr/bin/env bash
# Scaling runs of the paper's case (cases/scaling_bcc.toml): GPU ranks (strong: the case; weak: Sz per GPU; strong
# without CUDA graphs) and CPU MPI ranks (one OpenMP thread each) for Figs 9 and 10, any counts. Writes
# DIR/scaling.csv: kind,ranks,structures_z,cells,steps,dt,seconds,peak_host_bytes (the largest rank's peak resident
# memory), and the per-figure files scaling_gpu.csv and scaling_cpu_mpi.csv the reports read.
#
#   scripts/scaling-run.sh [BUILD] [--gpus "1 2 …"] [--cpu-ranks "1 2 4 …"] [--repetitions N] [--out DIR]
#
# Defaults: build/cuda; every GPU count up to the machine's; CPU ranks 1 2 4 8 16 32 up to its cores; one timing per
# point; $OUT, else out/scaling. --gpus "" or --cpu-ranks "" leaves that kind out.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/cuda
gpu_counts=$(seq -s " " 1 "$( (nvidia-smi -L 2>/dev/null || true) | wc -l)")
cpu_counts=""
for n in 1 2 4 8 16 32; do [ "$n" -le "$(nproc)" ] && cpu_counts+="$n "; done
repetitions=1
dir=${OUT:-out/scaling}
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) gpu_counts=$2; shift 2 ;;
    --cpu-ranks) cpu_counts=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --out) dir=$2; shift 2 ;;
    -*) echo "scaling-run: unknown option $1" >&2; exit 1 ;;
    *) build=$1; shift ;;
  esac
done
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv="$dir/scaling.csv"
echo "kind,ranks,structures_z,cells,steps,dt,seconds,peak_host_bytes" >"$csv"

# run KIND RANKS SZ STEPS BACKEND [THREADS] [--set KEY=VALUE ...]: one timed run of the case with Sz structure slices;
# the cells, Δt and stepping seconds are read from its results.
run() {
  local kind=$1 ranks=$2 sz=$3 steps=$4 backend=$5 threads=${6:-1}
  shift $(($# < 6 ? $# : 6))
  OMP_NUM_THREADS=$threads mpirun --oversubscribe --bind-to none -np "$ranks" "$build/cli/decgpe" run \
    cases/scaling_bcc.toml --set "structures=[87, 87, $sz]" --set "time.steps=$steps" \
    --set "time.diagnostics_every=$steps" "$@" --backend "$backend" --no-state --force --out "$tmp/out.h5" \
    >>"$dir/scaling.log" 2>&1
  python3 - "$tmp/out.h5" "$kind,$ranks,$sz" <<'PY' | tee -a "$csv"
import sys, h5py
a = h5py.File(sys.argv[1]).attrs
print(f"{sys.argv[2]},{int(a['cells'])},{int(a['steps_done'])},{float(a['dt'])!r},{float(a['wall_seconds'])!r},"
      f"{int(max(a['host_peak_bytes']))}")
PY
}

for _ in $(seq "$repetitions"); do
  for n in $gpu_counts; do
    run gpu_strong "$n" 302 2000 cuda
    run gpu_weak "$n" $((302 * n)) 2000 cuda
    run gpu_strong_no_graphs "$n" 302 2000 cuda 1 --set cuda.graphs=false
  done
  for n in $cpu_counts; do
    run cpu_mpi "$n" 302 $((n < 4 ? 3 : 10)) openmp 1
  done
done
# The reports read the GPU and CPU series from separate files (reports/data/<device>/scaling_{gpu,cpu_mpi}.csv).
grep -E '^(kind|gpu)' "$csv" >"$dir/scaling_gpu.csv" || true
grep -E '^(kind|cpu)' "$csv" >"$dir/scaling_cpu_mpi.csv" || true
