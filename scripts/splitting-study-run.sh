#!/usr/bin/env bash
# The splitting study from the lattice's own stationary state (issue 16, item 3), on a GPU: for each lattice and both
# placements (centred, and shifted by −1/8 structure edge, the paper code's), the κ = 10 state is solved on the
# lattice once (initial.lattice_stationary, cached), then run to the split (E > 0.01) or t = 100 with the
# controlled seeds SEEDS (modes m = 1…8, ε = 1e-6; seed 0 is the unseeded run), probing ψ every PROBE steps
# (the azimuthal spectrum over time, for the growth rates, and the per-cell RMSE sums).
# Writes DIR/splitting-study-<lattices>-<seeds>.json (per run: the split, the fold, the spectrum at the split and over
# time, E(t) and the three RMSEs at t = 10; per state: μ_h, the residual, the solve) and the same name's .log.
#
#   scripts/splitting-study-run.sh DIR LATTICES [SEEDS] [BUILD] [SECONDS] [JOBS] [TOLERANCE] [PLACEMENTS]
#
# LATTICES: comma-separated (cubic,fcc,bcc,a15,c15,z). SEEDS: N for 0…N, A-B, or none (the states only). Defaults:
# 0-16, build/cuda, no time limit, 4 runs at once, PLACEMENTS centred,shifted
# on the one GPU (the results do not depend on timing). With SECONDS, runs not started by then are skipped (logged)
# and the summary is still written, seed by seed over all lattices so that every lattice gets as many. SIGTERM (e.g.
# from `timeout`, which signals the whole process group) abandons the runs in flight and still writes the summary of
# those that finished.
# Settings (recorded in every run's results): the state to a residual of TOLERANCE (default 1e-10) with a Krylov basis
# of KRYLOV; where that solve fails, the state to FALLBACK instead (the study only needs it far below ε).
# SPLITTING_SET: more --set KEY=VALUE words for every run, states included (a refinement: "operations_per_time=1.2e10");
# they join the output's name (…-operations_per_time-1.2e10.json) and its recorded command.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/splitting-study-run.sh DIR LATTICES [SEEDS] [BUILD] [SECONDS] [JOBS]}
lattices=${2:?usage: scripts/splitting-study-run.sh DIR LATTICES [SEEDS] [BUILD] [SECONDS] [JOBS]}
seeds=${3:-16}
case $seeds in
  none) first=1 last=0 ;;
  *-*) first=${seeds%-*} last=${seeds#*-} ;;
  *) first=0 last=$seeds ;;
esac
build=${4:-build/cuda}
deadline=$((SECONDS + ${5:-1000000000}))
jobs=${6:-4}
readonly TOLERANCE=${7:-1e-10} FALLBACK=1e-8 KRYLOV=500 PROBE=250 EPSILON=1e-6
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
export DECGPE_CACHE=${DECGPE_CACHE:-$runs/cache}
mkdir -p "$dir" "$DECGPE_CACHE"
tag=${lattices//,/-}-$first-$last
[ "$seeds" = none ] && tag=${lattices//,/-}-states
extra=()
for kv in ${SPLITTING_SET:-}; do
  extra+=(--set "$kv")
  tag+=-${kv//[^A-Za-z0-9._-]/-} # a plain file name: the device tool brings back no name with '=' in it
done
log=$dir/splitting-study-$tag.log
: >"$log"
# The runs in flight got the signal too (same process group) and stop writing nothing; later ones are skipped.
trap 'echo "stopped by SIGTERM: the runs in flight were abandoned" >>"$log"; deadline=0' TERM

placement_flags() { # PLACEMENT
  [ "$1" = shifted ] && echo "shift=[-0.125, -0.125, -0.125]" || echo "shift=[0, 0, 0]"
}

run() { # NAME LATTICE PLACEMENT SEED (0: unseeded) [--set KEY=VALUE ...]
  local name=$1 lattice=$2 placement=$3 seed=$4 tolerance
  shift 4
  tolerance=$(cat "$runs/tolerance_${lattice}_$placement" 2>/dev/null || echo "$TOLERANCE")
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "$name skipped (time limit)" >>"$log"
    return
  fi
  local seeding=(--set "initial.seed.seed=$seed" --set "initial.seed.amplitude=$EPSILON")
  [ "$seed" = 0 ] && seeding=()
  if "$build/cli/decgpe" run "cases/accuracy/$lattice.toml" --set "$(placement_flags "$placement")" \
    --set initial.lattice_stationary=true --set "initial.stationary_residual=$tolerance" \
    --set "initial.stationary_krylov=$KRYLOV" --set "time.spectrum_every=$PROBE" "${seeding[@]}" "${extra[@]}" "$@" \
    --backend cuda --no-state --force --out "$runs/$name.h5" >"$runs/$name.log" 2>&1; then
    echo "$name ok: $(grep -E '^lattice stationary state: mu_h|^stopped|^t = ' "$runs/$name.log" | tr '\n' ' ')" >>"$log"
  else
    echo "$name FAILED: $(tail -n 1 "$runs/$name.log")" >>"$log"
  fi
}

throttle() { # at most $jobs runs at once
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
}

IFS=, read -ra chosen <<<"$lattices"
IFS=, read -ra placements <<<"${8:-centred,shifted}"
# The states first (each solved once; the runs below load it from the cache).
for lattice in "${chosen[@]}"; do
  for placement in "${placements[@]}"; do
    throttle
    {
      run "state_${lattice}_$placement" "$lattice" "$placement" 0 --set time.end_time=0.05
      if [ ! -f "$runs/state_${lattice}_$placement.h5" ]; then
        echo "$FALLBACK" >"$runs/tolerance_${lattice}_$placement"
        run "state_${lattice}_$placement" "$lattice" "$placement" 0 --set time.end_time=0.05
      fi
    } &
  done
done
wait
for seed in $(seq "$first" "$last"); do
  for lattice in "${chosen[@]}"; do
    for placement in "${placements[@]}"; do
      if [ ! -f "$runs/state_${lattice}_$placement.h5" ]; then # its solve failed: each run would try again
        echo "study_${lattice}_${placement}_$seed skipped (no stationary state)" >>"$log"
        continue
      fi
      throttle
      run "study_${lattice}_${placement}_$seed" "$lattice" "$placement" "$seed" &
    done
  done
done
wait

python3 - "$runs" "$dir/splitting-study-$tag.json" "$lattices $seeds" "$TOLERANCE $KRYLOV $PROBE $EPSILON" "${SPLITTING_SET:-}" <<'PY'
import glob, json, os, sys
import h5py
import numpy as np
runs, out, (lattices, seeds), (tolerance, krylov, probe, epsilon) = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
extra_sets = sys.argv[5]
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
rounded = lambda values: [float(f"{x:.4g}") for x in np.ravel(values)]
RMSE_AT = 10.0

def state(path):
    with h5py.File(path) as f:
        a = f.attrs
        name = os.path.basename(path)[len("state_"):-3]
        return {"lattice": text(a["lattice"]), "placement": name.split("_")[1], "mu_h": float(a["mu"]),
                "mu_continuum": float(a["mu_continuum"]), "residual": float(a["lattice_residual"]),
                "start_residual": float(a["lattice_start_residual"]), "newton_steps": int(a["lattice_newton_steps"]),
                "krylov_iterations": int(a["lattice_krylov_iterations"]), "krylov_dimension": int(a["lattice_krylov_dimension"]),
                "solve_seconds": float(a["lattice_solve_seconds"]), "cells": int(a["cells"])}

def study(path):
    with h5py.File(path) as f:
        a, d, h = f.attrs, f["diagnostics"], f["analysis/history"]
        t, norm, overlap = d["t"][()], d["norm"][()], d["overlap"][()]
        error = 1 - np.abs(overlap)
        split = next((float(ti) for ti, e in zip(t, error) if e > 0.01), None)
        mu, volume, cells = float(a["mu"]), float(a["domain_volume"]), int(a["cells"])
        # The three RMSEs at t = 10 (reports/splitting.py says what each is).
        rotated = np.exp(1j * mu * t) * overlap
        weighted = np.sqrt(np.maximum(0, norm[0] + norm - 2 * rotated.real) / volume)
        phase = np.sqrt(np.maximum(0, norm[0] + norm - 2 * np.abs(overlap)) / volume)
        ht, cn, co = h["t"][()], h["cell_norm"][()], h["cell_overlap"][()]
        per_cell = np.sqrt(np.maximum(0, cn[0] + cn - 2 * (np.exp(1j * mu * ht) * co).real) / cells)
        at = lambda tt, series: float(np.interp(RMSE_AT, tt, series)) if tt[-1] >= RMSE_AT else None
        name = os.path.basename(path)[len("study_"):-3].split("_")
        row = {"lattice": text(a["lattice"]), "placement": name[1], "seed": int(name[2]),
               "epsilon": float(a["seed_amplitude"]) if "seed_amplitude" in a else 0.0,
               "split_t": split, "end_t": float(t[-1]), "fold": int(f["analysis/azimuthal_amplitude"].attrs["fold"]),
               "amplitudes": rounded(f["analysis/azimuthal_amplitude"][()]),
               "history_t": rounded(ht), "history": [rounded(r) for r in h["azimuthal_amplitude"][()]],
               "rmse_at_10": {"per_cell": at(ht, per_cell), "volume_weighted": at(t, weighted), "phase_corrected": at(t, phase)},
               "mu_h": mu, "lattice_residual": float(a["lattice_residual"]), "cells": cells,
               "git_commit": text(a["git_commit"]), "device": text(a["device"])}
        if row["seed"] == 0:  # Fig 5 from the stationary start: E(t) and the RMSEs over time, every 4th sample
            row["series"] = {"t": rounded(t[::4]), "error": rounded(error[::4]),
                             "volume_weighted": rounded(weighted[::4]), "phase_corrected": rounded(phase[::4]),
                             "probe_t": rounded(ht), "per_cell": rounded(per_cell)}
        return row

states = [state(p) for p in sorted(glob.glob(os.path.join(runs, "state_*.h5")))]
rows = [study(p) for p in sorted(glob.glob(os.path.join(runs, "study_*.h5")))]
json.dump({"command": (f"SPLITTING_SET='{extra_sets}' " if extra_sets else "") + f"scripts/splitting-study-run.sh DIR {lattices} {seeds}",
           "settings": {"stationary_residual": float(tolerance), "stationary_krylov": int(krylov),
                        "spectrum_every": int(probe), "epsilon": float(epsilon), "modes": list(range(1, 9))},
           "states": states, "runs": rows}, open(out, "w"), separators=(",", ":"))
print(f"splitting-study: {len(states)} states, {len(rows)} runs -> {out}")
PY
status=$?
grep -c FAILED "$log" && exit 1
exit $status
