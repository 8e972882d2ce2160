#!/usr/bin/env bash
# The step kernel's tuning study, on a GPU machine, in one call: the bitwise tests of every block shape, bench_step over
# shapes × lattices, and Nsight Compute's view (L2 and DRAM throughput and bytes, occupancy, registers, stall reasons)
# of chosen shapes. Everything goes to $OUT (default out/kernel-study); the last lines printed are two tables: the
# rates, and the profiles' bytes a cell (scripts/ncu_bytes.py: what the SMs ask of the L2 against what DRAM moves).
#
#   scripts/kernel-study.sh [--shapes S1,S2,...] [--lattices L1,...] [--dofs 64e6] [--precisions double,single]
#                           [--ncu L:S1+S2,...]
#
# --ncu bcc:1x256+1x256z8a2 profiles the given shapes on that lattice (one step launch each, after 40, CUDA graphs off),
# in the first of the precisions.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/kernel-study}
mkdir -p "$OUT"
shapes=1x256
lattices="" # default: the six crystals, from the registry once built
dofs=64e6
precisions=double
profiles=""
while [ $# -gt 0 ]; do
  case $1 in
  --shapes) shapes=$2 ;;
  --lattices) lattices=$2 ;;
  --dofs) dofs=$2 ;;
  --precisions) precisions=$2 ;;
  --ncu) profiles=$2 ;;
  *) echo "kernel-study: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$OUT/device.txt"
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +changes)" |
  tee -a "$OUT/device.txt"

if ! { cmake --preset cuda -DDECGPE_WERROR=ON && cmake --build --preset cuda -j "$(nproc)" --target bench_step test_cuda decgpe; } \
  >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  exit 1
fi
lattices=${lattices:-$(build/cuda/cli/decgpe list crystals --csv)}
build/cuda/verify/test_cuda --gtest_filter="${TESTS:-*Sweep*:*EveryTuning*:*EveryStencil*}" >"$OUT/tests.log" 2>&1 || status=1
tail -n 3 "$OUT/tests.log"

build/cuda/bench/bench_step --schemes=leapfrog --backends=cuda:plain --lattices="$lattices" --dofs="$dofs" \
  --precisions="$precisions" --tune=cuda.block_shape="$shapes" --benchmark_out="$OUT/shapes.json" \
  --benchmark_out_format=json >"$OUT/shapes.log" 2>&1 || status=1

ncu=$(command -v ncu || command -v /usr/local/cuda/bin/ncu || true)
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats"
sections="$sections --section WarpStateStats --section SchedulerStats"
metrics=$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import ncu_bytes; print(",".join(ncu_bytes.METRICS))')
for profile in ${profiles//,/ }; do
  lattice=${profile%%:*}
  for shape in ${profile#*:}; do
    for s in ${shape//+/ }; do
      [ -n "$ncu" ] || break
      # the leapfrog's kernels: the sweep, the staged sweep, or one slice a block (step_plain)
      DECGPE_CUDA_GRAPHS=0 $ncu --clock-control none --kernel-name 'regex:^(sweep|staged_sweep|step_plain)' --launch-skip 40 \
        --launch-count 1 $sections --metrics "$metrics" --csv --page details --print-units base \
        build/cuda/bench/bench_step --backends=cuda:plain --lattices="$lattice" --dofs="$dofs" \
        --precisions="${precisions%%,*}" --tune=cuda.block_shape="$s" \
        >"$OUT/ncu-$lattice-$s.csv" 2>>"$OUT/ncu.log" || status=1
    done
  done
done

python3 - "$OUT/shapes.json" <<'EOF'
import sys
sys.path.insert(0, "scripts")
from perf_compare import medians  # the gate's median over repetitions, per benchmark name
rates = medians(sys.argv[1], "dof_updates_per_second")
fractions = medians(sys.argv[1], "copy_fraction")
rows = {}
for name, rate in rates.items():
    parts = name.split("/")
    # the setting, and the precision where it is not double: step/cuda:plain/L/DOFS/SHAPE[/single|/mixed]/...
    setting = parts[4] + (f"/{parts[5]}" if parts[5] in ("single", "mixed") else "")
    rows[parts[2], setting] = f"{rate / 1e9:6.1f} {100 * fractions[name]:4.0f}%"
shapes = sorted({s for _, s in rows}, key=lambda s: (len(s), s))
print("lattice " + " ".join(f"{s:>14}" for s in shapes) + "   (G DOF-updates/s, % of copy)")
for lattice in dict.fromkeys(l for l, _ in rows):
    print(f"{lattice:7} " + " ".join(f"{rows.get((lattice, s), ''):>14}" for s in shapes))
EOF
if [ -n "$profiles" ]; then
  python3 scripts/ncu_bytes.py "$OUT"/ncu-*.csv || status=1
fi
exit $status
