#!/usr/bin/env bash
# Controlled seeds on the paper's accuracy cases (issue 16, items 2 and 3, first pass): on a GPU, every lattice
# seeded with modes m = 1…8 at ε = 1e-6 by SEEDS seeds, each run to the split (E > 0.01) or t = 100 from the
# interpolated stationary state; with the lattice centred also BCC over ε = 1e-10 … 1e-4 (two seeds each).
# PLACEMENT: centred, or shifted (by −1/8 structure edge, the paper code's placement). PRECISION: double, or single
# or mixed (numerics.precision; the seeds at ε = 1e-6 only, no BCC ε series). Writes DIR/seed-study-PLACEMENT.json
# (DIR/seed-study-PLACEMENT-PRECISION.json when not double; per run: lattice, placement, precision, seed, ε, split
# time, fold, the azimuthal amplitudes |c_m| at the split) and the same name's .log.
#
#   scripts/seed-study-run.sh DIR [SEEDS] [PLACEMENT] [BUILD] [SECONDS] [PRECISION]
#
# Defaults: 8 seeds, centred, build/cuda, no time limit. With SECONDS, runs not started by then are skipped (and
# logged as such) and the summary is still written: seed by seed over all lattices, so every lattice gets as many.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/seed-study-run.sh DIR [SEEDS] [PLACEMENT] [BUILD] [SECONDS] [PRECISION]}
seeds=${2:-8}
placement=${3:-centred}
build=${4:-build/cuda}
deadline=$((SECONDS + ${5:-1000000000}))
precision=${6:-double}
case $precision in
  double) name=seed-study-$placement precision_set=() ;;
  single | mixed) name=seed-study-$placement-$precision precision_set=(--set "numerics.precision=$precision") ;;
  *) echo "seed-study-run: PRECISION is double, single or mixed, not '$precision'" >&2; exit 2 ;;
esac
case $placement in
  centred) shift_set=() ;;
  shifted) shift_set=(--set "shift=[-0.125, -0.125, -0.125]") ;;
  *) echo "seed-study-run: PLACEMENT is centred or shifted, not '$placement'" >&2; exit 2 ;;
esac
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
export DECGPE_CACHE=${DECGPE_CACHE:-$runs/cache}
mkdir -p "$dir"
log=$dir/$name.log
: >"$log"

run() { # NAME LATTICE SEED AMPLITUDE
  local out="$runs/$1.h5"
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "$1 skipped (time limit)" >>"$log"
    return
  fi
  if "$build/cli/decgpe" run "cases/accuracy/$2.toml" --set "initial.seed.seed=$3" \
    --set "initial.seed.amplitude=$4" "${shift_set[@]}" "${precision_set[@]}" --backend cuda --no-state --quiet --force --out "$out" >>"$log" 2>&1; then
    echo "$1 ok" >>"$log"
  else
    echo "$1 FAILED" >>"$log"
  fi
}

if [ "$placement" = centred ] && [ "$precision" = double ]; then
  for amplitude in 1e-10 1e-09 1e-08 1e-07 1e-05 1e-04; do
    for seed in 1 2; do run "seed_bcc_${seed}_${amplitude}" bcc "$seed" "$amplitude"; done
  done
fi
for seed in $(seq 1 "$seeds"); do
  for lattice in $("$build/cli/decgpe" list crystals); do run "seed_${lattice}_${seed}_1e-06" "$lattice" "$seed" 1e-6; done
done

python3 - "$runs" "$dir/$name.json" "$placement" "$precision" <<'PY'
import glob, json, os, subprocess, sys
import h5py
runs, out, placement, precision = sys.argv[1:]
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
rows = []
for path in sorted(glob.glob(os.path.join(runs, "seed_*.h5"))):
    with h5py.File(path) as f:
        a = f.attrs
        overlap = abs(f["diagnostics/overlap"][()])
        t = f["diagnostics/t"][()]
        split = next((float(ti) for ti, o in zip(t, overlap) if 1 - o > 0.01), None)
        amplitude = f["analysis/azimuthal_amplitude"]
        rows.append({"lattice": text(a["lattice"]), "placement": placement,
                     "precision": text(a.get("precision", "double")), "seed": int(a["seed"]),
                     "epsilon": float(a["seed_amplitude"]),
                     "split_t": split, "end_t": float(t[-1]), "fold": int(amplitude.attrs["fold"]),
                     "amplitudes": [float(x) for x in amplitude[()]], "cells": int(a["cells"]),
                     "git_commit": text(a["git_commit"]), "device": text(a["device"])})
seeds = len({r["seed"] for r in rows})
json.dump({"runs": rows, "command": f"scripts/seed-study-run.sh DIR {seeds} {placement} BUILD SECONDS {precision}"},
          open(out, "w"), indent=1)
print(f"seed-study: {len(rows)} runs")
PY
grep -c FAILED "$log" && exit 1
exit 0
