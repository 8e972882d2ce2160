#!/usr/bin/env bash
# Host memory per rank (issue 17, item 1): the paper's scaling case (cases/scaling_bcc.toml, 27.4M cells) set up and
# run for STEPS steps on each count of CPU ranks (OpenMP slabs, one thread each); every run's results record each
# rank's peak resident memory (host_peak_bytes). Writes DIR/memory-per-rank.csv: ranks,rank,cells,slab_cells,peak_bytes
# and DIR/memory-per-rank.log.
#   scripts/memory-per-rank.sh DIR [BUILD] [RANKS] [STEPS]
# Defaults: build/cpu, "1 2 4 8", 2 steps. Ranks beyond the cores are oversubscribed (memory does not depend on it).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/memory-per-rank.sh DIR [BUILD] [RANKS] [STEPS]}
build=${2:-build/cpu}
steps=${4:-2}
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
csv=$dir/memory-per-rank.csv
log=$dir/memory-per-rank.log
echo "ranks,rank,cells,slab_cells,peak_bytes" >"$csv"
: >"$log"
for n in ${3:-1 2 4 8}; do
  out=$dir/memory-np$n.h5
  mpiexec --oversubscribe --bind-to none -np "$n" "$build/cli/decgpe" run cases/scaling_bcc.toml \
    --set "time.steps=$steps" --set "time.diagnostics_every=$steps" --backend openmp --no-state --force \
    --out "$out" >>"$log" 2>&1
  python3 - "$out" "$n" >>"$csv" <<'PY'
import sys, h5py
a = h5py.File(sys.argv[1]).attrs
ranks, (sx, sy, sz), cells = int(sys.argv[2]), (int(v) for v in a["structures"]), int(a["cells"])
per_slice = cells // sz
for rank, peak in enumerate(a["host_peak_bytes"]):
    base, extra = divmod(sz, ranks)
    owned = base + (rank < extra)
    stored = owned + (rank > 0) + (rank + 1 < ranks)  # halo slices towards each neighbour
    print(f"{ranks},{rank},{cells},{stored * per_slice},{int(peak)}")
PY
  rm -f "$out"
done
cat "$csv"
