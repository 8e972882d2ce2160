#!/usr/bin/env bash
# The vortex lines' cost on a GPU (docs/gpu.md, "Vortex lines on the GPU"): cases/accuracy/bcc.toml to t = 3 (or
# VORTEX_COST_END_TIME below), three runs each (or VORTEX_COST_RUNS), alternating: no lines; lines every 100 steps in
# the whole domain (vortex_region = "domain"); lines every 100 steps in the condensate's region (the default). Prints
# a table of the median of the results' `wall_seconds`
# (runner/records.cpp: the integration loop, the line samples included, set-up excluded) and the line points of the
# last sample (the run's summary line); writes it to $OUT/vortex-lines-cost.txt and the logs to
# $OUT/vortex-lines-cost-logs.tgz.
#   scripts/vortex-lines-cost.sh [build-dir]       (build-dir: build/cuda, configured with the `cuda` preset)
# VORTEX_COST_END_TIME: where the runs end (default 3; "split": the case's own run, to E > 0.01, t ≈ 75);
# VORTEX_COST_KINDS: which of none, domain and region to run (default all three); VORTEX_COST_RUNS: runs of each (3);
# VORTEX_COST_SET: more --set KEY=VALUE words for every run (a coarsened dry run: "operations_per_time=3e7");
# VORTEX_COST_BACKEND: the backend (cuda; openmp for a dry run without a GPU).
set -uo pipefail
build=${1:-build/cuda}
backend=${VORTEX_COST_BACKEND:-cuda}
OUT=${OUT:-out/vortex-lines-cost}
decgpe=$build/cli/decgpe
if [[ ! -x $decgpe ]]; then
  echo "vortex-lines-cost: no $decgpe: build it first (cmake --preset cuda && cmake --build build/cuda)" >&2
  exit 2
fi
runs=$(mktemp -d)/vortex-lines-cost
mkdir -p "$runs" "$OUT"
export DECGPE_CACHE=${DECGPE_CACHE:-$runs/../cache}
end_time=${VORTEX_COST_END_TIME:-3}
extra=()
[[ $end_time != split ]] && extra+=(--set "time.end_time=$end_time")
for kv in ${VORTEX_COST_SET:-}; do
  extra+=(--set "$kv")
done

declare -A settings=(
  [none]=""
  [domain]="analysis.vortex_lines_every=100 analysis.vortex_region=domain"
  [region]="analysis.vortex_lines_every=100 analysis.vortex_region=condensate"
)
status=0
kinds=${VORTEX_COST_KINDS:-none domain region}
reps=${VORTEX_COST_RUNS:-3}
for rep in $(seq "$reps"); do
  for kind in $kinds; do
    sets=("${extra[@]}")
    for kv in ${settings[$kind]}; do
      sets+=(--set "$kv")
    done
    name=${kind}_$rep
    if ! "$decgpe" run cases/accuracy/bcc.toml "${sets[@]}" --backend "$backend" --no-state \
      --force --out "$runs/$name.h5" >"$runs/$name.log" 2>&1; then
      echo "vortex-lines-cost: $name failed: $(tail -n 1 "$runs/$name.log")" >&2
      status=1
    fi
  done
done

python3 - "$runs" "$backend" "$end_time" "$reps" "$kinds" <<'EOF' | tee "$OUT/vortex-lines-cost.txt"
import re, statistics, sys
from pathlib import Path

runs, backend, end_time, reps = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
kinds = sys.argv[5].split()
try:
    import h5py
except ImportError:
    h5py = None


def wall_seconds(name):
    """The results' wall_seconds; without h5py, the summary's "(X s," of the same clock (Recorder::seconds)."""
    if h5py is not None:
        with h5py.File(runs / f"{name}.h5") as f:
            return float(f.attrs["wall_seconds"]), int(f.attrs["steps_done"])
    log = (runs / f"{name}.log").read_text()
    return float(re.search(r"^results: .*\(([0-9.]+) s,", log, re.M).group(1)), None


def points(name):
    m = re.search(r"^vortex lines at t = .*, (\d+) points\)", (runs / f"{name}.log").read_text(), re.M)
    return int(m.group(1)) if m else 0


ends = "the split (E > 0.01)" if end_time == "split" else f"t = {end_time}"
print(f"cases/accuracy/bcc.toml to {ends}, --backend {backend}, {reps} runs each (wall_seconds"
      f"{'' if h5py else ' from the summary line: no h5py'})")
print(f"{'lines':<28} {'median s':>9} {'runs (s)':>26} {'steps':>6} {'points at end':>14} {'vs none':>8}")
base = None
for kind, label in [("none", "none"), ("domain", "every 100, whole domain"), ("region", "every 100, condensate")]:
    if kind not in kinds:
        continue
    done = [n for n in (f"{kind}_{r}" for r in range(1, reps + 1)) if (runs / f"{n}.h5").exists()]
    if not done:
        print(f"{label:<28} (no run finished)")
        continue
    walls = [wall_seconds(n) for n in done]
    median = statistics.median(w for w, _ in walls)
    base = median if kind == "none" else base
    extra = f"{(median / base - 1) * 100:+.1f}%" if base and kind != "none" else ""
    runs_s = " ".join(f"{w:.3f}" for w, _ in walls)
    print(f"{label:<28} {median:9.3f} {runs_s:>26} {str(walls[0][1] or ''):>6} {points(done[-1]):>14} {extra:>8}")
EOF
(cd "$runs" && tar czf "$OUT/vortex-lines-cost-logs.tgz" ./*.log)
exit $status
