#!/usr/bin/env bash
# Measured DRAM bytes per DOF-update of the leapfrog at k steps a launch (cuda.steps_per_sweep), or per cell-step of RK4
# at 1 or 2 stages a pass (cuda.rk4_stages_per_sweep, SCHEME=rk4), on a GPU machine: Nsight Compute's
# dram__bytes_read.sum and dram__bytes_write.sum over one step's launches (the leapfrog: one, the sweep at k = 1, the
# temporal blocking or the wavefront at k > 1; RK4: its four stage passes or its two pair passes), taken after three
# warm launches of bench_step, divided by k × the DOFs asked for (a grid holds whole instances: BCC's has 63 999 936 of
# 64e6). The model (the leapfrog: 48 B at k = 1, 64/k B at k > 1; RK4: 256 B, 112 B in pairs; in double) is what they
# would move with perfect reuse. A k > 1 that stepped one at a time (single or mixed precision, a slab, a tile too
# large) is refused: there is no k-step kernel to measure.
#
#   scripts/measure-dram-bytes.sh OUT.json [LATTICE:SETTING ...]   default: cubic:1-4 bcc:1-2 (RK4: cubic:1-2 bcc:1-2)
#
# SETTING is the tunable's value as bench_step takes it (2, 2x32y8z64, 2s1l4r4b8). DOFS (default 64e6), PRECISION
# (default double) and SCHEME (default leapfrog) are recorded in OUT.json with the device, the commit and each run's ncu
# command.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/measure-dram-bytes.sh OUT.json [LATTICE:SETTING ...]}
shift
runs=("$@")

for run in "${runs[@]}"; do
  if ! [[ $run =~ ^[a-z0-9]+:[1-9] ]]; then
    echo "measure-dram-bytes: '$run' is not LATTICE:SETTING (e.g. cubic:2)" >&2
    exit 2
  fi
done
dofs=${DOFS:-64e6}
precision=${PRECISION:-double}
scheme=${SCHEME:-leapfrog}
case $scheme in
  leapfrog) tunable=cuda.steps_per_sweep kernels='LeapfrogStep|leapfrog_blocked|leapfrog_wavefront' ;;
  rk4) tunable=cuda.rk4_stages_per_sweep kernels='Rk4First|Rk4Middle|Rk4Last|rk4_pair' ;;
  *) echo "measure-dram-bytes: SCHEME is leapfrog or rk4, not '$scheme'" >&2; exit 2 ;;
esac
if [ ${#runs[@]} -eq 0 ]; then
  runs=(cubic:1 cubic:2 bcc:1 bcc:2)
  [ "$scheme" = rk4 ] || runs=(cubic:1 cubic:2 cubic:3 cubic:4 bcc:1 bcc:2)
fi
cmake --build --preset cuda --target bench_step >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in "${runs[@]}"; do
  lattice=${run%%:*} setting=${run#*:}
  launches=1 # a step's: the leapfrog's one; RK4's four stages, or two pairs
  [ "$scheme" = rk4 ] && launches=$((4 / ${setting:0:1}))
  command=(ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --print-units base
    --kernel-name-base demangled -k "regex:$kernels" --launch-skip $((3 * launches)) --launch-count $launches --csv
    build/cuda/bench/bench_step --schemes="$scheme" --backends=cuda:plain --lattices="$lattice" --dofs="$dofs"
    --precisions="$precision" --tune="$tunable=$setting" --benchmark_repetitions=1 --benchmark_min_time=0.01s)
  "${command[@]}" >"$tmp/$lattice-$setting.csv" 2>&1 || { tail -n 5 "$tmp/$lattice-$setting.csv"; exit 1; }
  printf '%s\n' "${command[*]}" >"$tmp/$lattice-$setting.command"
done
python3 - "$out" "$tmp" "$dofs" "$precision" "$scheme" "$(git rev-parse --short HEAD)" "${runs[@]}" <<'PY'
import csv, json, re, subprocess, sys
out, tmp, dofs, precision, scheme, commit = sys.argv[1:7]
dofs = float(dofs)
runs = sys.argv[7:]
device = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                        capture_output=True, text=True).stdout.strip().splitlines()[0]
value_bytes = 16 if precision == "double" else 8
rows = []
for run in runs:
    lattice, setting = run.split(":", 1)
    with open(f"{tmp}/{lattice}-{setting}.csv") as f:
        table = [r for r in csv.reader(line for line in f if line.startswith('"'))]
    if len(table) < 2:
        sys.exit(f"measure-dram-bytes: ncu profiled no {scheme} kernel for {run}")
    header, metrics, kernels = table[0], {}, []
    for r in table[1:]:  # one row a metric a launch: summed over the step's launches
        entry = dict(zip(header, r))
        if entry["Kernel Name"] not in kernels:
            kernels.append(entry["Kernel Name"])
        name = entry["Metric Name"]
        metrics[name] = metrics.get(name, 0.0) + float(entry["Metric Value"].replace(",", ""))
    kernel = " + ".join(kernels)
    k = int(re.match(r"\d+", setting).group())  # the setting's leading count (2, 2x32y8z64, 2s1l4r4b8)
    fused = ("leapfrog_blocked", "leapfrog_wavefront", "rk4_pair")
    if k > 1 and not any(name in kernel for name in fused):
        sys.exit(f"measure-dram-bytes: {run} stepped one at a time ({kernel[:60]}): no k-step kernel to measure")
    moved = metrics["dram__bytes_read.sum"] + metrics["dram__bytes_write.sum"]
    per = 1 if scheme == "rk4" else k  # RK4: bytes per cell-step, whatever the passes
    # the leapfrog: one step reads ψⁿ⁻¹ and ψⁿ, writes ψⁿ⁺¹; k a launch: two levels read, two written.
    # RK4: stages move 3, 5, 5, 3 values; in pairs 3 (ψ read, acc and y₂ written) and 4 (y₂, ψ, acc, ψ')
    if scheme == "rk4":
        model = 16 if k == 1 else 7
    else:
        model = 3 if k == 1 else 4 / k
    key = "rk4_stages_per_sweep" if scheme == "rk4" else "steps_per_sweep"  # the tunable's name
    rows.append({"lattice": lattice, "scheme": scheme, key: setting, "k": k, "kernel": kernel,
                 "dram_bytes_read": metrics["dram__bytes_read.sum"],
                 "dram_bytes_written": metrics["dram__bytes_write.sum"],
                 "kernel_ns": metrics["gpu__time_duration.sum"],
                 "measured_bytes_per_update": moved / (per * dofs),
                 "model_bytes_per_update": model * value_bytes,
                 "ncu_command": open(f"{tmp}/{lattice}-{setting}.command").read().strip()})
    print(f"{lattice:8s} {scheme} {setting:12s} {rows[-1]['measured_bytes_per_update']:6.1f} B/update "
          f"(model {rows[-1]['model_bytes_per_update']:.0f})  {kernel[:60]}")
json.dump({"device": device, "commit": commit, "dofs": dofs, "precision": precision, "scheme": scheme,
           "runs": rows}, open(out, "w"), indent=1)
PY
