#!/usr/bin/env bash
# Fig 7's speedup sweep into one file, DIR/bench-speedup.json (Google Benchmark JSON, 5 repetitions per point):
#
#   scripts/speedup-run.sh DIR [BENCH_STEP]        (BENCH_STEP: default build/cuda/bench/bench_step)
#
# BCC cubes of 14 … 189 structures (12 cells each); bench_step gives C15 the cube nearest the same DOFs. The
# single-threaded reference runs of the two lattices take most of the time (5 s a step at 81M cells), so they run
# side by side, each on one core, while the GPU is measured; the OpenMP runs, which need every core, run alone
# afterwards. The parts are one binary at one commit on one machine, merged into one file; DIR/speedup-run.log
# keeps the schedule and each part's console output.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:?usage: scripts/speedup-run.sh DIR [BENCH_STEP]}
bench=${2:-build/cuda/bench/bench_step}
[ -x "$bench" ] || { echo "speedup-run: no $bench (build the cuda preset first)" >&2; exit 1; }
nvidia-smi -L >/dev/null 2>&1 || { echo "speedup-run: needs an NVIDIA GPU (nvidia-smi -L failed)" >&2; exit 1; }
mkdir -p "$dir"
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT

sizes=""
for edge in 14 27 54 100 189; do sizes+="${sizes:+,}$((12 * edge * edge * edge))"; done
part() { # NAME BACKENDS LATTICES
  echo "$(date -u +%FT%TZ) start $1: $bench --backends=$2 --lattices=$3 --dofs=$sizes"
  "$bench" "--backends=$2" "--lattices=$3" "--dofs=$sizes" --benchmark_out="$parts/$1.json" \
    --benchmark_out_format=json >"$parts/$1.log" 2>&1 || { echo "speedup-run: part $1 failed" >&2; return 1; }
  echo "$(date -u +%FT%TZ) end $1"
}

log=$dir/speedup-run.log
: >"$log"
part reference-bcc reference bcc >>"$log" 2>&1 &
bcc=$!
part reference-c15 reference c15 >>"$log" 2>&1 &
c15=$!
status=0
part cuda cuda:plain bcc,c15 >>"$log" 2>&1 || status=1
wait "$bcc" || status=1
wait "$c15" || status=1
[ "$status" = 0 ] && part openmp openmp bcc,c15 >>"$log" 2>&1 || status=1
for name in reference-bcc reference-c15 cuda openmp; do
  [ -f "$parts/$name.log" ] && { echo "== $name"; cat "$parts/$name.log"; } >>"$log"
done
[ "$status" = 0 ] || { echo "speedup-run: a part failed; see $log" >&2; exit 1; }

python3 - "$dir/bench-speedup.json" "$parts"/{reference-bcc,reference-c15,cuda,openmp}.json <<'EOF'
import json, sys
out, *parts = sys.argv[1:]
merged = json.load(open(parts[0]))
merged["context"]["parts"] = [p.rsplit("/", 1)[1] for p in parts]
for path in parts[1:]:
    merged["benchmarks"] += json.load(open(path))["benchmarks"]
with open(out, "w") as f:
    json.dump(merged, f, indent=1)
EOF
echo "speedup-run: $dir/bench-speedup.json ($(grep -c '"run_type": "iteration"' "$dir/bench-speedup.json") samples)"
