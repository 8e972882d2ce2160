#!/usr/bin/env bash
# The README's main command: set up, build, and run the default case (on the GPU when there is one).
#   scripts/main.sh [decgpe run options]   the default case; e.g. --backend reference or --out results.h5
#   scripts/main.sh --reports              every table and figure the hardware allows: with a GPU, re-measure Figs 5-8
#                                          and Table 1 into reports/data/<device>/ first; without one, run the reduced
#                                          CPU accuracy cases into reports/out/reduced/; then render reports/out/
set -euo pipefail
cd "$(dirname "$0")/.."
preset=$(scripts/build.sh | tail -n 1)
if [ "${1:-}" != --reports ]; then
  # --force: the main job replaces its own earlier result.
  exec "build/$preset/cli/decgpe" run cases/default.toml --force "$@"
fi

if [ "$preset" = cuda ] && nvidia-smi -L >/dev/null 2>&1; then
  slug=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | tr '[:upper:]' '[:lower:]' |
    sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')
  tmp=$(mktemp -d)
  OUT=$tmp scripts/physics-run.sh "build/$preset"
  mkdir -p "reports/data/$slug/physics"
  for archive in "$tmp"/physics-*.tgz; do tar xzf "$archive" -C "reports/data/$slug/physics"; done
  scripts/reports.sh --measure --no-build # renders too
  echo "main: several GPUs? scripts/scaling-run.sh measures Figs 9 and 10 (see README)"
else
  # Reduced: BCC and cubic at 1/20 of the paper's work per unit time, to t = 10, on the CPU cores.
  reduced=reports/out/reduced-data/cpu-reduced/physics
  mkdir -p "$reduced"
  for lattice in bcc cubic; do
    "build/$preset/cli/decgpe" run "cases/accuracy/$lattice.toml" --set operations_per_time=3e8 \
      --set time.end_time=10.0 --no-state --force --out "$reduced/accuracy_$lattice.h5"
  done
  scripts/reports.sh
  python=$(command -v /usr/bin/python3 || command -v python3)
  "$python" reports/make_all.py --data reports/out/reduced-data --out reports/out/reduced
  echo "main: reduced CPU cases rendered into reports/out/reduced/index.md"
fi
