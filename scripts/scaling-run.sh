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

# run KIND RANKS SZ STEPS BACKEND [THREADS]: one timed run of the case with Sz structure slices.
run() {
  local kind=$1 ranks=$2 sz=$3 steps=$4 backend=$5 threads=${6:-1}
  sed -e "s/structures = \[87, 87, 302\]/structures = [87, 87, $sz]/" -e "s/^steps = .*/steps = $steps/" \
    -e "s/^diagnostics_every = .*/diagnostics_every = $steps/" cases/scaling_bcc.toml >"$tmp/case.toml"
  local output seconds dt
  output=$(OMP_NUM_THREADS=$threads mpirun --oversubscribe --bind-to none -np "$ranks" "$build/cli/decgpe" run \
    "$tmp/case.toml" --backend "$backend" --force --out "$tmp/out.h5" 2>&1)
  echo "$output" >>"$OUT/scaling.log"
  seconds=$(echo "$output" | grep '^results:' | sed -E 's/.*\(([0-9.]+) s,.*/\1/')
  dt=$(echo "$output" | grep '^decgpe run' | sed -E 's/.*dt = ([0-9.e+-]+) .*/\1/')
  cells=$((87 * 87 * sz * 12))
  echo "$kind,$ranks,$sz,$cells,$steps,$dt,$seconds" | tee -a "$csv"
}

for n in $(seq 1 "$gpus"); do
  run gpu_strong "$n" 302 2000 cuda
  run gpu_weak "$n" $((302 * n)) 2000 cuda
  DECGPE_CUDA_GRAPHS=0 run gpu_strong_no_graphs "$n" 302 2000 cuda
done
cores=$(nproc)
for n in ${CPU_RANKS:-1 2 4 8 16 32}; do
  [ "$n" -le "$cores" ] && [ "$n" -le 302 ] && run cpu_mpi "$n" 302 $((n < 4 ? 3 : 10)) openmp 1
done
# The reports read the GPU and CPU series from separate files (reports/data/<device>/scaling_{gpu,cpu_mpi}.csv).
grep -E '^(kind|gpu)' "$csv" >"$OUT/scaling_gpu.csv"
grep -E '^(kind|cpu)' "$csv" >"$OUT/scaling_cpu_mpi.csv"
