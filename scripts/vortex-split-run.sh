#!/usr/bin/env bash
# The splitting study told by its vortex lines (issue 33, item 4), on a GPU: cases/accuracy/<lattice>.toml for every
# crystal (`decgpe list crystals`), one after the other, with the lines sampled every EVERY steps, run past the split
# (E = 1 − |⟨ψ₀|ψ⟩| > 0.01) until E > STOP. Writes to $OUT (default out/vortex-split):
#   vortex_split.h5          per lattice: E(t), the lines' series and events, every sample's crossings of z = 0 and
#                            the whole lines of a few samples (scripts/vortex_split_extract.py says which);
#                            reports/vortex_split.py renders it
#   vortex-split-logs.tgz    each run's log
# The results files themselves (every sample's lines, tens of MB a lattice at full size) stay in a temporary folder.
#
#   scripts/vortex-split-run.sh [build-dir]       (build-dir: build/cuda, configured with the `cuda` preset)
#
# PYTHON: a python3 with numpy and h5py (default python3). VORTEX_SPLIT_BACKEND: the backend (cuda; openmp for a dry
# run without a GPU). VORTEX_SPLIT_SET: more --set KEY=VALUE words for every run (a coarsened dry run:
# "operations_per_time=1e8"). VORTEX_SPLIT_LATTICES: comma-separated (default all crystals). VORTEX_SPLIT_EVERY: EVERY
# (default 75: three diagnostics intervals, 0.08–0.12 time units on the six grids of the paper's criterion).
# VORTEX_SPLIT_STOP: STOP (default 0.1).
# Why past the split: E = 0.01 is the paper's split, a small change of ψ; the lines may come apart only after it, and
# near the axis the κ = 10 core's lines are not yet apart. E grows as the square of the unstable mode's amplitude,
# e^{2σt}: at σ₃ ≈ 0.21 (reports/bogoliubov.py) from 0.01 to 0.1 in ln 10 / 2σ ≈ 5.5 time units, about 8% more
# steps than the run to the split (a coarsened BCC run went from 0.01 to 0.05 in 4.5).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
build=${1:-build/cuda}
backend=${VORTEX_SPLIT_BACKEND:-cuda}
every=${VORTEX_SPLIT_EVERY:-75}
stop=${VORTEX_SPLIT_STOP:-0.1}
OUT=${OUT:-out/vortex-split}
decgpe=$build/cli/decgpe
if [[ ! -x $decgpe ]]; then
  echo "vortex-split-run: no $decgpe: build it first (cmake --preset cuda && cmake --build build/cuda)" >&2
  exit 2
fi
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT
mkdir -p "$OUT"
export DECGPE_CACHE=${DECGPE_CACHE:-$runs/cache} # the stationary vortex: solved by the first run, read by the rest
extra=()
for kv in ${VORTEX_SPLIT_SET:-}; do
  extra+=(--set "$kv")
done
lattices=${VORTEX_SPLIT_LATTICES:-$("$decgpe" list crystals | paste -sd,)}

status=0
# SIGTERM (`timeout` signals the whole process group): the run in flight writes its results so far (decgpe's exit
# 143), the rest are skipped, and what ran is still extracted.
stopped=0
trap 'stopped=1' TERM
IFS=, read -ra chosen <<<"$lattices"
for lattice in "${chosen[@]}"; do
  if ((stopped)); then
    echo "vortex-split-run: $lattice skipped (SIGTERM)" >&2
    status=1
    continue
  fi
  if "$decgpe" run "cases/accuracy/$lattice.toml" --set "analysis.vortex_lines_every=$every" \
    --set "time.stop_when_error_exceeds=$stop" "${extra[@]}" --backend "$backend" --no-state --force \
    --out "$runs/$lattice.h5" >"$runs/$lattice.log" 2>&1; then
    echo "$lattice: $(grep -E '^stopped|^vortex lines at|^results:' "$runs/$lattice.log" | tr '\n' ' ')"
  else
    echo "vortex-split-run: $lattice failed: $(tail -n 1 "$runs/$lattice.log")" >&2
    status=1
  fi
done

results=("$runs"/*.h5)
what="scripts/vortex-split-run.sh $build (backend $backend, every $every, stop $stop"
what+="${VORTEX_SPLIT_SET:+, set $VORTEX_SPLIT_SET}"
what+=")"
if [[ -e ${results[0]} ]]; then
  "${PYTHON:-python3}" scripts/vortex_split_extract.py "$OUT/vortex_split.h5" "${results[@]}" --command "$what" ||
    status=1
  # The device tool brings back files of up to 16 MiB (/work/.library/device/README.md).
  if [[ -f $OUT/vortex_split.h5 ]] && (($(stat -c %s "$OUT/vortex_split.h5") > 16 * 1024 * 1024)); then
    echo "vortex-split-run: $OUT/vortex_split.h5 is over 16 MiB: sample less often (VORTEX_SPLIT_EVERY)" >&2
    status=1
  fi
fi
(cd "$runs" && tar czf - ./*.log) >"$OUT/vortex-split-logs.tgz"
exit $status
