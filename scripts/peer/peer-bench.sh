#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) the decgpe authors.
#
# Build and time the paper's own GPU code (GpuDecGpe) on the lattices asked for.
#   scripts/peer/peer-bench.sh SRC_DIR OUT_DIR [lattices]
# SRC_DIR: an unpatched GpuDecGpe tree (commit e16f056); it is copied, never changed.
# lattices: comma-separated from cubic (alias sc, cube), fcc, bcc, a15, c15, z; default all six.
# Writes one line per lattice to stdout and OUT_DIR/peer.log:
#   peer <lattice> dofs=<N> steps=<K> ms=<T> gdofs_per_s=<R> ...
# and each build's and run's full output to OUT_DIR/{build,run}-<lattice>.log.
# Environment: PEER_DOFS, PEER_STEPS, PEER_SAMPLES, PEER_WARMUP (see peer_bench.h), PEER_ARCH (sm_90),
# NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc).
# On any failure: exit 1 with one line, "peer-bench: ...", on stderr (and in peer.log).
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 SRC_DIR OUT_DIR [cubic,fcc,bcc,a15,c15,z]" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$1
out=$2
lattices=${3:-cubic,fcc,bcc,a15,c15,z}

mkdir -p "$out" || { echo "peer-bench: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
log=$out/peer.log
: >"$log"

die() {
  echo "peer-bench: $*" | tee -a "$log" >&2
  exit 1
}

[[ -d $src/GrossPitaevskiiGpuCube ]] || die "$src is not a GpuDecGpe tree (no GrossPitaevskiiGpuCube/)"
nvcc=${NVCC:-$(command -v nvcc || true)}
[[ -n $nvcc ]] || nvcc=/usr/local/cuda/bin/nvcc
[[ -x $nvcc ]] || die "nvcc not found (not on PATH, not at /usr/local/cuda/bin/nvcc)"
command -v patch >/dev/null || die "the 'patch' program is missing"
arch=${PEER_ARCH:-sm_90}

# lattice -> upstream folder and source file
declare -A folder=([cubic]=Cube [fcc]=Fcc [bcc]=Bcc [a15]=A15 [c15]=C15 [z]=Z)
declare -A source=([cubic]=Cube [fcc]=FCC [bcc]=BCC [a15]=A15 [c15]=C15 [z]=Z)
list=()
IFS=',' read -r -a asked <<<"$lattices"
for name in "${asked[@]}"; do
  name=${name,,}
  case $name in sc | cube | cubic) name=cubic ;; esac
  [[ -n ${folder[$name]:-} ]] || die "unknown lattice '$name' (cubic, fcc, bcc, a15, c15, z)"
  list+=("$name")
done

work=$(mktemp -d "${TMPDIR:-/tmp}/peer-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/src" || die "cannot copy $src"
for p in "$here"/patches/*.patch; do
  patch -p1 --batch --forward -d "$work/src" <"$p" >>"$out/patch.log" 2>&1 ||
    die "patch $(basename "$p") does not apply to $src (already patched, or not commit e16f056? see $out/patch.log)"
done

# Build every lattice at once (they are independent), then check each.
start=$SECONDS
pids=()
for lat in "${list[@]}"; do
  dir=$work/src/GrossPitaevskiiGpu${folder[$lat]}
  (cd "$dir" && "$nvcc" -arch="$arch" -O3 -DPEER_BENCH -DPEER_LATTICE="\"$lat\"" -I. -I.. -I"$here" \
    -o "$work/peer-$lat" "GPUGrossPitaevskii_${source[$lat]}.cu" VortexState.cpp ../Output/Text.cpp \
    ../Output/Picture.cpp) >"$out/build-$lat.log" 2>&1 &
  pids+=($!)
done
for i in "${!list[@]}"; do
  wait "${pids[$i]}" || die "build of ${list[$i]} failed (see $out/build-${list[$i]}.log)"
done
echo "peer-bench: built ${list[*]} for $arch in $((SECONDS - start)) s" >&2

# Run one at a time: each owns the GPU while it is timed.
for lat in "${list[@]}"; do
  mkdir -p "$work/run-$lat"
  (cd "$work/run-$lat" && "$work/peer-$lat") >"$out/run-$lat.log" 2>&1 ||
    die "run of $lat failed: $(grep -v '^$' "$out/run-$lat.log" | tail -n 1)"
  line=$(grep '^peer ' "$out/run-$lat.log" | tail -n 1)
  [[ -n $line ]] || die "run of $lat printed no result line (see $out/run-$lat.log)"
  echo "$line" | tee -a "$log"
done
echo "peer-bench: done in $((SECONDS - start)) s" >&2
