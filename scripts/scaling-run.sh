#!/usr/bin/env bash
# Scaling runs of the paper's case (cases/scaling_bcc.toml): GPU ranks (strong: the case; weak: Sz per GPU; strong
# without CUDA graphs), CPU MPI ranks (one OpenMP thread each) for Figs 9 and 10, and hybrid ranks (one GPU rank
# beside N OpenMP ranks sharing the other cores, slabs sized by calibration), any counts and halo depths, and the case
# stretched past what one GPU holds (--beyond-gpu SZ: the GPU alone is refused, with one line, and the hybrid counts
# run it; the GPU rank takes what its memory holds). GPU ranks get the cores for the set-up (OpenMP; their threads
# sleep while the GPU steps). Writes
# DIR/scaling.csv: kind,ranks,structures_z,cells,steps,dt,seconds,peak_host_bytes (the largest rank's peak resident
# memory),halo_depth,slab_slices (each rank's z-slices, space-separated), and the per-figure files scaling_gpu.csv
# and scaling_cpu_mpi.csv the reports read. A depth k > 1 is its own kind, e.g. gpu_strong_k3; hybrid runs are kind
# hybrid, ranks 1 + N; past one GPU, kinds refused_gpu_alone (no time) and hybrid_beyond_gpu.
#
#   scripts/scaling-run.sh [BUILD] [--gpus "1 2 …"] [--cpu-ranks "1 2 4 …"] [--hybrid "1 3 …"]
#                          [--halo-depths "1 2 …"] [--beyond-gpu SZ] [--repetitions N] [--out DIR]
#
# Defaults: build/cuda; every GPU count up to the machine's; CPU ranks 1 2 4 8 16 32 up to its cores; no hybrid runs;
# halo depth 1; not past one GPU; one timing per point; $OUT, else out/scaling. --gpus "" or --cpu-ranks "" leaves
# that kind out.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/cuda
gpu_counts=$(seq -s " " 1 "$( (nvidia-smi -L 2>/dev/null || true) | wc -l)")
cpu_counts=""
for n in 1 2 4 8 16 32; do [ "$n" -le "$(nproc)" ] && cpu_counts+="$n "; done
hybrid_counts=""
halo_depths=1
beyond_gpu=""
repetitions=1
dir=${OUT:-out/scaling}
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) gpu_counts=$2; shift 2 ;;
    --cpu-ranks) cpu_counts=$2; shift 2 ;;
    --hybrid) hybrid_counts=$2; shift 2 ;;
    --halo-depths) halo_depths=$2; shift 2 ;;
    --beyond-gpu) beyond_gpu=$2; shift 2 ;;
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
echo "kind,ranks,structures_z,cells,steps,dt,seconds,peak_host_bytes,halo_depth,slab_slices" >"$csv"

# record KIND RANKS SZ K: the row of the run just made, from its results.
record() {
  python3 - "$tmp/out.h5" "$1,$2,$3" "$4" <<'PY' | tee -a "$csv"
import sys, h5py
a = h5py.File(sys.argv[1]).attrs
slices = " ".join(str(int(n)) for n in a["slab_slices"]) if "slab_slices" in a else sys.argv[2].split(",")[2]
print(f"{sys.argv[2]},{int(a['cells'])},{int(a['steps_done'])},{float(a['dt'])!r},{float(a['wall_seconds'])!r},"
      f"{int(max(a['host_peak_bytes']))},{sys.argv[3]},{slices}")
PY
}

# case_flags SZ STEPS K: sets `flags` to the case's arguments for Sz structure slices, STEPS steps and halo depth K.
case_flags() {
  flags=(cases/scaling_bcc.toml --set "structures=[87, 87, $1]" --set "time.steps=$2"
    --set "time.diagnostics_every=$2" --set "scaleout.halo_depth=$3" --no-state --force --out "$tmp/out.h5")
}

# run KIND RANKS SZ STEPS BACKEND THREADS K [--set KEY=VALUE ...]: one timed run of the case.
run() {
  local kind=$1 ranks=$2 sz=$3 steps=$4 backend=$5 threads=$6 k=$7
  shift 7
  [ "$k" = 1 ] || kind+="_k$k"
  case_flags "$sz" "$steps" "$k"
  OMP_NUM_THREADS=$threads mpirun --oversubscribe --bind-to none -np "$ranks" "$build/cli/decgpe" run \
    "${flags[@]}" "$@" --backend "$backend" >>"$dir/scaling.log" 2>&1
  record "$kind" "$ranks" "$sz" "$k"
}

# hybrid N SZ STEPS K [KIND]: one GPU rank (one core while stepping) and N OpenMP ranks sharing the other cores, slabs
# by calibration.
hybrid() {
  local n=$1 sz=$2 steps=$3 k=$4 kind=${5:-hybrid} threads=$((($(nproc) - 1) / $1))
  case_flags "$sz" "$steps" "$k"
  mpirun --oversubscribe --bind-to none -x OMP_NUM_THREADS="$(nproc)" -np 1 "$build/cli/decgpe" run "${flags[@]}" \
    --backend cuda : -x OMP_NUM_THREADS=$((threads > 0 ? threads : 1)) -np "$n" "$build/cli/decgpe" run \
    "${flags[@]}" --backend openmp >>"$dir/scaling.log" 2>&1
  record "$kind$([ "$k" = 1 ] || echo "_k$k")" $((n + 1)) "$sz" "$k"
}

# refused_alone SZ K: the GPU alone on SZ slices must be refused (one line, logged): a row without a time.
refused_alone() {
  case_flags "$1" 20 "$2"
  if "$build/cli/decgpe" run "${flags[@]}" --backend cuda >>"$dir/scaling.log" 2>&1; then
    echo "scaling-run: the GPU alone ran $1 slices; --beyond-gpu needs more" >&2
    exit 1
  fi
  echo "refused_gpu_alone,1,$1,,0,,,,$2," | tee -a "$csv"
}

for _ in $(seq "$repetitions"); do
  for k in $halo_depths; do
    for n in $gpu_counts; do
      threads=$(($(nproc) / n))
      run gpu_strong "$n" 302 2000 cuda "$threads" "$k"
      run gpu_weak "$n" $((302 * n)) 2000 cuda "$threads" "$k"
      [ "$k" != 1 ] || run gpu_strong_no_graphs "$n" 302 2000 cuda "$threads" "$k" --set cuda.graphs=false
    done
    for n in $cpu_counts; do
      run cpu_mpi "$n" 302 $((n < 4 ? 3 : 10)) openmp 1 "$k"
    done
    for n in $hybrid_counts; do
      hybrid "$n" 302 200 "$k"
    done
    if [ -n "$beyond_gpu" ]; then
      refused_alone "$beyond_gpu" "$k"
      for n in $hybrid_counts; do
        hybrid "$n" "$beyond_gpu" 20 "$k" hybrid_beyond_gpu
      done
    fi
  done
done
# The reports read the GPU and CPU series from separate files (reports/data/<device>/scaling_{gpu,cpu_mpi}.csv).
grep -E '^(kind|gpu)' "$csv" >"$dir/scaling_gpu.csv" || true
grep -E '^(kind|cpu)' "$csv" >"$dir/scaling_cpu_mpi.csv" || true
