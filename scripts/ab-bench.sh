#!/usr/bin/env bash
# An A/B of a change on one machine: bench_step of this tree (A) and of a copy with PATCH applied (B), both built at
# once, then run lattice by lattice in the order A B B A, so that what the machine drifts by falls on both and no
# second host's spread enters (two H200 hosts measured the same kernels 1.7-3.0% apart: docs/gpu.md). Prints
# perf_compare's table of B against A, each the median over both of its runs (10 samples at 5 repetitions).
#
#   scripts/ab-bench.sh PATCH [bench_step arguments]   e.g. .dev/x.patch --backends=cuda:plain --dofs=64e6
#                                                      --lattices=bcc,c15 --schemes=leapfrog --precisions=mixed
#   PRESET=cpu scripts/ab-bench.sh ...                 the CPU build (default: cuda)
#
# PATCH is a unified diff against this tree (git diff > PATCH, then git stash: A is the tree without it), applied
# with patch -p1 and no fuzz; --lattices is required. $OUT (default out/ab) receives a.json and b.json (every sample
# of each), the runs' JSON and logs, and ab.md; B's copy and build are kept in build/ab-tree. A builds in
# build/<preset> as that is configured, B with the preset: on a fresh machine both are the preset's. B's JSON records
# the tree's commit too (its build_info asks the same repository).
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "ab-bench: the first argument is the patch file (git diff > PATCH); got '${1:-}'" >&2
  exit 2
fi
patch_file=$(realpath "$1") # paths as given, before the cd
shift
preset=${PRESET:-cuda}
OUT=$(realpath -m "${OUT:-out/ab}")
cd "$(dirname "$0")/.."
if patch -p1 -R --dry-run -s -f <"$patch_file" >/dev/null 2>&1; then
  echo "ab-bench: $patch_file is already in this tree (A would be B): stash it first (git stash)" >&2
  exit 2
fi
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
rm -f "$OUT"/[ab]-*.json "$OUT"/[ab]-*.log # an earlier A/B's runs would join this one's medians
# B's tree and build stay in build/ab-tree, so that a second A/B rebuilds only what differs: a file is copied only
# where its content differs (a fresh time stamp: a file the last patch changed is rebuilt), files gone are removed.
b_tree=build/ab-tree
python3 - "$b_tree" <<'EOF_SYNC'
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
if ! patch -p1 -N -F0 --batch -d "$b_tree" <"$patch_file" >"$OUT/patch.log" 2>&1; then
  echo "ab-bench: $patch_file does not apply to this tree exactly (no fuzz); $OUT/patch.log:" >&2
  cat "$OUT/patch.log" >&2
  exit 1
fi

build() { # build TREE LOG: configure and build bench_step with half the cores
  (cd "$1" && cmake --preset "$preset" && cmake --build --preset "$preset" --target bench_step \
    -j "$((($(nproc) + 1) / 2))") >"$2" 2>&1
}
build . "$OUT/build-a.log" &
a_build=$!
build "$b_tree" "$OUT/build-b.log" &
b_build=$!
failed=() # both waited for: no build left running when one fails
wait "$a_build" || failed+=(a)
wait "$b_build" || failed+=(b)
for side in "${failed[@]}"; do
  echo "ab-bench: the build of $side failed; the end of $OUT/build-$side.log:" >&2
  tail -n 20 "$OUT/build-$side.log" >&2
done
[ ${#failed[@]} -eq 0 ] || exit 1

declare -A binary=([a]="build/$preset/bench/bench_step" [b]="$b_tree/build/$preset/bench/bench_step")
IFS=, read -r -a each <<<"$lattices"
for lattice in "${each[@]}"; do
  round=0
  for side in a b b a; do
    round=$((round + 1))
    run="$OUT/$side-$lattice-$round"
    "${binary[$side]}" --lattices="$lattice" "${bench_args[@]}" --benchmark_out="$run.json" \
      --benchmark_out_format=json >"$run.log" 2>&1 || {
      echo "ab-bench: $side's run on $lattice failed; the end of $run.log:" >&2
      tail -n 20 "$run.log" >&2
      exit 1
    }
  done
done

# Every sample of a side in one file, for perf_compare's medians.
python3 - "$OUT" <<'EOF'
import glob, json, os, sys
out = sys.argv[1]
for side in "ab":
    runs = sorted(glob.glob(os.path.join(out, f"{side}-*.json")))
    merged = json.load(open(runs[0]))
    merged["benchmarks"] = [b for run in runs for b in json.load(open(run))["benchmarks"]]
    json.dump(merged, open(os.path.join(out, f"{side}.json"), "w"), indent=1)
EOF
{
  echo "# A/B: B is this tree with $(basename "$patch_file") applied"
  echo
  echo "bench_step --lattices=$lattices ${bench_args[*]}; each side run twice, A B B A per lattice; $(date -u +%FT%TZ)."
  echo "The table's 'committed' column is A, 'now' is B."
  echo
  python3 scripts/perf_compare.py "$OUT/a.json" "$OUT/b.json" || true
} | tee "$OUT/ab.md"
