#!/usr/bin/env bash
# An A/B of changes on one machine: bench_step of this tree (A) and of a copy with each patch applied (B1, B2, ...),
# all built at once, then run lattice by lattice in the order A B1 ... Bn Bn ... B1 A, so that what the machine drifts
# by falls on every side and no second host's spread enters (two H200 hosts measured the same kernels 1.7-3.0% apart:
# docs/gpu.md). Prints perf_compare's table of each B against A, each side the median over both of its runs (10
# samples at 5 repetitions).
#
#   scripts/ab-bench.sh PATCH[,PATCH...] [bench_step arguments]   e.g. .dev/x.patch,.dev/y.patch --dofs=64e6
#                              --backends=cuda:plain --lattices=bcc,c15 --schemes=leapfrog --precisions=mixed
#   PRESET=cpu scripts/ab-bench.sh ...                            the CPU build (default: cuda)
#
# Each PATCH is a unified diff against this tree (git diff > PATCH, then git stash: A is the tree without it), applied
# alone to a copy of its own with patch -p1 and no fuzz; --lattices is required. $OUT (default out/ab) receives a.json
# and b1.json, b2.json, ... (every sample of each side), the runs' JSON and logs, and ab.md; Bk's copy and build are
# kept in build/ab-tree-k. A builds in build/<preset> as that is configured, the Bs with the preset: on a fresh machine
# all are the preset's. The Bs' JSON record the tree's commit too (their build_info asks the same repository).
set -euo pipefail
usage="the first argument is the patch file or files, comma-separated (git diff > PATCH)"
if [ $# -lt 1 ]; then
  echo "ab-bench: $usage; got none" >&2
  exit 2
fi
IFS=, read -r -a given_patches <<<"$1"
patch_files=()
for given in "${given_patches[@]}"; do
  if [ ! -f "$given" ]; then
    echo "ab-bench: $usage; '$given' is no file" >&2
    exit 2
  fi
  patch_files+=("$(realpath "$given")") # paths as given, before the cd
done
shift
preset=${PRESET:-cuda}
OUT=$(realpath -m "${OUT:-out/ab}")
cd "$(dirname "$0")/.."
for patch_file in "${patch_files[@]}"; do
  if patch -p1 -R --dry-run -s -f <"$patch_file" >/dev/null 2>&1; then
    echo "ab-bench: $patch_file is already in this tree (A would be B): stash it first (git stash)" >&2
    exit 2
  fi
done
lattices=""
bench_args=()
for arg in "$@"; do
  case $arg in
  --lattices=*) lattices=${arg#--lattices=} ;;
  --benchmark_out=* | --benchmark_out_format=*)
    echo "ab-bench: $arg is the script's (\$OUT)" >&2
    exit 2
    ;;
  *) bench_args+=("$arg") ;;
  esac
done
if [ -z "$lattices" ]; then
  echo "ab-bench: give --lattices=L1,L2,...: the runs alternate lattice by lattice" >&2
  exit 2
fi
mkdir -p "$OUT"
# an earlier A/B's runs would join this one's medians
rm -f "$OUT"/a-*.json "$OUT"/a-*.log "$OUT"/b[0-9]*-*.json "$OUT"/b[0-9]*-*.log

# Each B's tree and build stay in build/ab-tree-k, so that a second A/B rebuilds only what differs: a file is copied
# only where its content differs (a fresh time stamp: a file the last patch changed is rebuilt), files gone are removed.
sync_tree() { # sync_tree DEST
  python3 - "$1" <<'EOF_SYNC'
import filecmp, os, shutil, sys
dest = sys.argv[1]
skip = {"./build", "./out", "./.git"}
kept = set()
for root, dirs, files in os.walk("."):
    dirs[:] = [d for d in dirs if os.path.join(root, d) not in skip]
    for name in files:
        src = os.path.join(root, name)
        dst = os.path.join(dest, src)
        kept.add(os.path.normpath(dst))
        if os.path.islink(src) or not os.path.isfile(src):
            continue
        if not os.path.exists(dst) or not filecmp.cmp(src, dst, shallow=False):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            shutil.copymode(src, dst)
for root, dirs, files in os.walk(dest):
    dirs[:] = [d for d in dirs if os.path.relpath(os.path.join(root, d), dest) != "build"]
    for name in files:
        if os.path.normpath(os.path.join(root, name)) not in kept:
            os.remove(os.path.join(root, name))
EOF_SYNC
}
declare -A tree_of=([a]=.)
b_sides=()
for k in "${!patch_files[@]}"; do
  side=b$((k + 1))
  tree_of[$side]=build/ab-tree-$((k + 1))
  sync_tree "${tree_of[$side]}"
  if ! patch -p1 -N -F0 --batch -d "${tree_of[$side]}" <"${patch_files[$k]}" >"$OUT/patch-$side.log" 2>&1; then
    echo "ab-bench: ${patch_files[$k]} does not apply to this tree exactly (no fuzz); $OUT/patch-$side.log:" >&2
    cat "$OUT/patch-$side.log" >&2
    exit 1
  fi
  b_sides+=("$side")
done
sides=(a "${b_sides[@]}")

jobs_each=$(($(nproc) / ${#sides[@]}))
[ "$jobs_each" -ge 1 ] || jobs_each=1
build() { # build TREE LOG: configure and build bench_step with its share of the cores
  (cd "$1" && cmake --preset "$preset" && cmake --build --preset "$preset" --target bench_step -j "$jobs_each") \
    >"$2" 2>&1
}
declare -A build_pid
for side in "${sides[@]}"; do
  build "${tree_of[$side]}" "$OUT/build-$side.log" &
  build_pid[$side]=$!
done
failed=() # every build waited for: none left running when one fails
for side in "${sides[@]}"; do
  wait "${build_pid[$side]}" || failed+=("$side")
done
for side in "${failed[@]}"; do
  echo "ab-bench: the build of $side failed; the end of $OUT/build-$side.log:" >&2
  tail -n 20 "$OUT/build-$side.log" >&2
done
[ ${#failed[@]} -eq 0 ] || exit 1

order=("${sides[@]}") # A B1 ... Bn, then back: Bn ... B1 A
for ((k = ${#sides[@]} - 1; k >= 0; k--)); do
  order+=("${sides[$k]}")
done
IFS=, read -r -a each <<<"$lattices"
for lattice in "${each[@]}"; do
  round=0
  for side in "${order[@]}"; do
    round=$((round + 1))
    run="$OUT/$side-$lattice-$round"
    "${tree_of[$side]}/build/$preset/bench/bench_step" --lattices="$lattice" "${bench_args[@]}" \
      --benchmark_out="$run.json" --benchmark_out_format=json >"$run.log" 2>&1 || {
      echo "ab-bench: $side's run on $lattice failed; the end of $run.log:" >&2
      tail -n 20 "$run.log" >&2
      exit 1
    }
  done
done

# Every sample of a side in one file, for perf_compare's medians.
python3 - "$OUT" "${sides[@]}" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
for side in sys.argv[2:]:
    runs = sorted(glob.glob(os.path.join(out, f"{side}-*.json")))
    merged = json.load(open(runs[0]))
    merged["benchmarks"] = [b for run in runs for b in json.load(open(run))["benchmarks"]]
    json.dump(merged, open(os.path.join(out, f"{side}.json"), "w"), indent=1)
EOF
{
  echo "# A/B: each B is this tree with one patch applied"
  echo
  echo "bench_step --lattices=$lattices ${bench_args[*]}; each side run twice, ${order[*]} per lattice;" \
    "$(date -u +%FT%TZ)."
  for k in "${!b_sides[@]}"; do
    echo
    echo "## ${b_sides[$k]}: $(basename "${patch_files[$k]}")"
    echo
    echo "The table's 'committed' column is A, 'now' is ${b_sides[$k]}."
    echo
    python3 scripts/perf_compare.py "$OUT/a.json" "$OUT/${b_sides[$k]}.json" || true
  done
} | tee "$OUT/ab.md"
