#!/usr/bin/env bash
# ctest viz_paraview_opens_lines: runs decgpe on verify/viz/lines.toml, then opens the vortex lines' sidecar
# (<results>.lines.xmf) with ParaView's pvpython and checks it against the results (check_lines.py). Nothing is
# rendered, so no X server is needed. Without pvpython (Debian's paraview, python3-paraview) it says so and skips.
#
#   lines_test.sh DECGPE WORKDIR
set -euo pipefail
decgpe=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v pvpython >/dev/null || { echo "viz: SKIPPED, no pvpython (scripts/install-deps.sh installs it)"; exit 0; }
mkdir -p "$work"
"$decgpe" run "$here/lines.toml" --out "$work/lines.h5" --force --quiet --backend openmp
[ -f "$work/lines.lines.xmf" ] || { echo "viz: decgpe wrote no $work/lines.lines.xmf"; exit 1; }
# An absolute path: ParaView's XDMF reader resolves the HDF5 file from the sidecar's folder.
pvpython "$here/check_lines.py" "$(cd "$work" && pwd)/lines.lines.xmf" "$work/lines.h5"
