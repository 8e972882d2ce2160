#!/usr/bin/env bash
# Scaling runs of the paper's case (cases/scaling_bcc.toml) on every GPU count up to the machine's, and CPU MPI
# ranks for Fig 10. Writes $OUT/scaling.csv: kind,ranks,structures_z,cells,steps,dt,seconds.
#   scripts/scaling-run.sh <build-dir>
set -euo pipefail
build=${1:-build/cuda}
OUT=${OUT:-out/scaling}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
gpus=$( (nvidia-smi -L 2>/dev/null || true) | wc -l)
tmp=$(mktemp -d)
csv="$OUT/scaling.csv"
echo "kind,ranks,structures_z,cells,steps,dt,seconds" >"$csv"

# run KIND RANKS SZ STEPS BACKEND [THREADS] [--set KEY=VALUE ...]: one timed run of the case with Sz structure slices;
# the cells, Δt and stepping seconds are read from its results.
run() {
  local kind=$1 ranks=$2 sz=$3 steps=$4 backend=$5 threads=${6:-1}
  shift $(($# < 6 ? $# : 6))
  OMP_NUM_THREADS=$threads mpirun --oversubscribe --bind-to none -np "$ranks" "$build/cli/decgpe" run \
    cases/scaling_bcc.toml --set "structures=[87, 87, $sz]" --set "time.steps=$steps" \
    --set "time.diagnostics_every=$steps" "$@" --backend "$backend" --force --out "$tmp/out.h5" \
    >>"$OUT/scaling.log" 2>&1
  python3 - "$tmp/out.h5" "$kind,$ranks,$sz" <<'PY' | tee -a "$csv"
import sys, h5py
a = h5py.File(sys.argv[1]).attrs
print(f"{sys.argv[2]},{int(a['cells'])},{int(a['steps_done'])},{float(a['dt'])!r},{float(a['wall_seconds'])!r}")
PY
}

for n in $(seq 1 "$gpus"); do
  run gpu_strong "$n" 302 2000 cuda
  run gpu_weak "$n" $((302 * n)) 2000 cuda
  run gpu_strong_no_graphs "$n" 302 2000 cuda 1 --set cuda.graphs=false
done
cores=$(nproc)
for n in ${CPU_RANKS:-1 2 4 8 16 32}; do
  [ "$n" -le "$cores" ] && [ "$n" -le 302 ] && run cpu_mpi "$n" 302 $((n < 4 ? 3 : 10)) openmp 1
done
# The reports read the GPU and CPU series from separate files (reports/data/<device>/scaling_{gpu,cpu_mpi}.csv).
grep -E '^(kind|gpu)' "$csv" >"$OUT/scaling_gpu.csv"
grep -E '^(kind|cpu)' "$csv" >"$OUT/scaling_cpu_mpi.csv"
