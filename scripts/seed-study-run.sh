#!/usr/bin/env bash
# Controlled seeds on the paper's accuracy cases (issue 16, items 2 and 3, first pass): on a GPU, every lattice
# seeded with modes m = 1…8 at ε (default 1e-6) by N seeds, and BCC over a range of ε, each run to the split
# (E > 0.01) or t = 100 from the interpolated stationary state. Writes DIR/seed-study.json (per run: lattice, seed,
# ε, split time, fold, the azimuthal amplitudes |c_m| at the split) and DIR/seed-study.log.
#
#   scripts/seed-study-run.sh DIR [SEEDS] [BUILD]      (SEEDS: default 8; BUILD: default build/cuda)
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/seed-study-run.sh DIR [SEEDS] [BUILD]}
seeds=${2:-8}
build=${3:-build/cuda}
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
export DECGPE_CACHE=${DECGPE_CACHE:-$runs/cache}
mkdir -p "$dir"
log=$dir/seed-study.log
: >"$log"

run() { # NAME LATTICE SEED AMPLITUDE
  local out="$runs/$1.h5"
  if "$build/cli/decgpe" run "cases/accuracy/$2.toml" --set "initial.seed.seed=$3" \
    --set "initial.seed.amplitude=$4" --backend cuda --no-state --quiet --force --out "$out" >>"$log" 2>&1; then
    echo "$1 ok" >>"$log"
  else
    echo "$1 FAILED" >>"$log"
  fi
}

for lattice in cubic fcc bcc a15 c15 z; do
  for seed in $(seq 1 "$seeds"); do run "seed_${lattice}_${seed}_1e-06" "$lattice" "$seed" 1e-6; done
done
for amplitude in 1e-10 1e-08 1e-04; do
  for seed in 1 2; do run "seed_bcc_${seed}_${amplitude}" bcc "$seed" "$amplitude"; done
done

python3 - "$runs" "$dir/seed-study.json" <<'PY'
import glob, json, os, subprocess, sys
import h5py
runs, out = sys.argv[1:]
rows = []
for path in sorted(glob.glob(os.path.join(runs, "seed_*.h5"))):
    with h5py.File(path) as f:
        a = f.attrs
        overlap = abs(f["diagnostics/overlap"][()])
        t = f["diagnostics/t"][()]
        split = next((float(ti) for ti, o in zip(t, overlap) if 1 - o > 0.01), None)
        amplitude = f["analysis/azimuthal_amplitude"]
        rows.append({"lattice": str(a["lattice"]), "seed": int(a["seed"]), "epsilon": float(a["seed_amplitude"]),
                     "split_t": split, "end_t": float(t[-1]), "fold": int(amplitude.attrs["fold"]),
                     "amplitudes": [float(x) for x in amplitude[()]], "cells": int(a["cells"]),
                     "git_commit": str(a["git_commit"]), "device": str(a["device"])})
json.dump({"runs": rows, "command": "scripts/seed-study-run.sh"}, open(out, "w"), indent=1)
print(f"seed-study: {len(rows)} runs")
PY
grep -c FAILED "$log" && exit 1
exit 0
