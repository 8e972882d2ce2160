#!/usr/bin/env bash
# Time to solution on a GPU: the six accuracy cases (cases/accuracy/*.toml) run to the vortex split, each twice on
# the same grid: with Δt = 0.9 of eq. 11's bound (as the paper and Table 1 do) and with Δt = 0.9 of the leapfrog's
# stability limit from the spectrum of M (solvers/stability.hpp). Writes the results and a table (markdown and JSON)
# into $OUT (default out/time-to-solution).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/time-to-solution}
mkdir -p "$OUT"
build=build/cuda
cmake --build --preset cuda --target decgpe >/dev/null
lattices=$("$build/cli/decgpe" list crystals)
for lattice in $lattices; do
  "$build/cli/decgpe" run "cases/accuracy/$lattice.toml" --backend cuda --quiet --no-state --force \
    --out "$OUT/${lattice}_eq11.h5"
  # The same grid (the h that eq. 11's criterion chose), Δt from the spectral limit instead.
  h=$(python3 -c "import h5py; print(repr(float(h5py.File('$OUT/${lattice}_eq11.h5').attrs['h'])))")
  "$build/cli/decgpe" run "cases/accuracy/$lattice.toml" --set operations_per_time= --set "h=$h" \
    --set time.dt_fraction_of= --backend cuda --quiet --no-state --force --out "$OUT/${lattice}_limit.h5"
done
python3 - "$OUT" $lattices <<'PY'
import json, sys, h5py
out = sys.argv[1]
rows = []
for lattice in sys.argv[2:]:
    row = {"lattice": lattice}
    for base in ["eq11", "limit"]:
        f = h5py.File(f"{out}/{lattice}_{base}.h5")
        a = f.attrs
        row[base] = {"dt": float(a["dt"]), "steps": int(a["steps_done"]), "wall_seconds": float(a["wall_seconds"]),
                     "split_time": float(f["diagnostics/t"][-1]), "cells": int(a["cells"]),
                     "git_commit": a["git_commit"].decode(), "device": a["device"].decode()}
    rows.append(row)
json.dump(rows, open(f"{out}/time_to_solution.json", "w"), indent=1)
with open(f"{out}/time_to_solution.md", "w") as md:
    md.write("| lattice | cells | eq. 11: dt | steps | split t | GPU s | limit: dt | steps | split t | GPU s | speed-up |\n")
    md.write("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
    for r in rows:
        e, l = r["eq11"], r["limit"]
        md.write(f"| {r['lattice']} | {e['cells']:,} | {e['dt']:.4g} | {e['steps']} | {e['split_time']:.2f} | "
                 f"{e['wall_seconds']:.2f} | {l['dt']:.4g} | {l['steps']} | {l['split_time']:.2f} | "
                 f"{l['wall_seconds']:.2f} | {e['wall_seconds'] / l['wall_seconds']:.2f} |\n")
print(open(f"{out}/time_to_solution.md").read())
PY
