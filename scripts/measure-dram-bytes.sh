#!/usr/bin/env bash
# Measured DRAM bytes per DOF-update of the leapfrog at k steps a launch (cuda.steps_per_sweep), on a GPU machine:
# Nsight Compute's dram__bytes_read.sum and dram__bytes_write.sum over one launch of the step kernel (the sweep at
# k = 1; the temporal blocking or the wavefront at k > 1), taken after three warm launches of bench_step, divided by
# k × the DOFs asked for (a grid holds whole instances: BCC's has 63 999 936 of 64e6). The model (48 B at k = 1,
# 64/k B at k > 1 in double) is what they would move with perfect reuse. A k > 1 that stepped one at a time (single or
# mixed precision, a slab, a tile too large) is refused: there is no k-step kernel to measure.
#
#   scripts/measure-dram-bytes.sh OUT.json [LATTICE:SETTING ...]   default: cubic:1 cubic:2 cubic:3 cubic:4 bcc:1 bcc:2
#
# SETTING is cuda.steps_per_sweep's value as bench_step takes it (2, 2x32y8z64, 2s1l4r4b8). DOFS (default 64e6) and
# PRECISION (default double) are recorded in OUT.json with the device, the commit and each run's ncu command.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/measure-dram-bytes.sh OUT.json [LATTICE:SETTING ...]}
shift
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(cubic:1 cubic:2 cubic:3 cubic:4 bcc:1 bcc:2)
for run in "${runs[@]}"; do
  if ! [[ $run =~ ^[a-z0-9]+:[1-9] ]]; then
    echo "measure-dram-bytes: '$run' is not LATTICE:SETTING (e.g. cubic:2)" >&2
    exit 2
  fi
done
dofs=${DOFS:-64e6}
precision=${PRECISION:-double}
cmake --build --preset cuda --target bench_step >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in "${runs[@]}"; do
  lattice=${run%%:*} setting=${run#*:}
  command=(ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --print-units base
    --kernel-name-base demangled -k 'regex:LeapfrogStep|leapfrog_blocked|leapfrog_wavefront'
    --launch-skip 3 --launch-count 1 --csv
    build/cuda/bench/bench_step --schemes=leapfrog --backends=cuda:plain --lattices="$lattice" --dofs="$dofs"
    --precisions="$precision" --tune=cuda.steps_per_sweep="$setting" --benchmark_repetitions=1
    --benchmark_min_time=0.01s)
  "${command[@]}" >"$tmp/$lattice-$setting.csv" 2>&1 || { tail -n 5 "$tmp/$lattice-$setting.csv"; exit 1; }
  printf '%s\n' "${command[*]}" >"$tmp/$lattice-$setting.command"
done
python3 - "$out" "$tmp" "$dofs" "$precision" "$(git rev-parse --short HEAD)" "${runs[@]}" <<'PY'
import csv, json, re, subprocess, sys
out, tmp, dofs, precision, commit = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
runs = sys.argv[6:]
device = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                        capture_output=True, text=True).stdout.strip().splitlines()[0]
value_bytes = 16 if precision == "double" else 8
rows = []
for run in runs:
    lattice, setting = run.split(":", 1)
    with open(f"{tmp}/{lattice}-{setting}.csv") as f:
        table = [r for r in csv.reader(line for line in f if line.startswith('"'))]
    if len(table) < 2:
        sys.exit(f"measure-dram-bytes: ncu profiled no leapfrog kernel for {run}")
    header, metrics = table[0], {}
    kernel = None
    for r in table[1:]:
        entry = dict(zip(header, r))
        kernel = entry["Kernel Name"]
        metrics[entry["Metric Name"]] = float(entry["Metric Value"].replace(",", ""))
    k = int(re.match(r"\d+", setting).group())  # the setting's leading k (2, 2x32y8z64, 2s1l4r4b8)
    if k > 1 and not any(name in kernel for name in ("leapfrog_blocked", "leapfrog_wavefront")):
        sys.exit(f"measure-dram-bytes: {run} stepped one at a time ({kernel[:60]}): no k-step kernel to measure")
    moved = metrics["dram__bytes_read.sum"] + metrics["dram__bytes_write.sum"]
    rows.append({"lattice": lattice, "steps_per_sweep": setting, "k": k, "kernel": kernel,
                 "dram_bytes_read": metrics["dram__bytes_read.sum"],
                 "dram_bytes_written": metrics["dram__bytes_write.sum"],
                 "kernel_ns": metrics["gpu__time_duration.sum"],
                 "measured_bytes_per_update": moved / (k * dofs),
                 # one step: ψⁿ⁻¹ and ψⁿ read, ψⁿ⁺¹ written; k a launch: two levels read, two written
                 "model_bytes_per_update": (3 if k == 1 else 4 / k) * value_bytes,
                 "ncu_command": open(f"{tmp}/{lattice}-{setting}.command").read().strip()})
    print(f"{lattice:8s} k={setting:12s} {rows[-1]['measured_bytes_per_update']:6.1f} B/update "
          f"(model {rows[-1]['model_bytes_per_update']:.0f})  {kernel[:60]}")
json.dump({"device": device, "commit": commit, "dofs": dofs, "precision": precision, "runs": rows},
          open(out, "w"), indent=1)
PY
