#!/usr/bin/env bash
# ctest viz_paraview_opens_results: runs decgpe on verify/viz/vortex.toml, then opens the results' XDMF sidecar in
# ParaView's pvpython (offscreen, under xvfb-run) and checks it (render_snapshot.py). The PNG stays in WORKDIR.
# With LAUNCHER (an mpiexec command line), decgpe runs over its ranks: the results join the ranks' parts as virtual
# datasets, which ParaView's HDF5 must read through the sidecar like any other.
#
#   viz_test.sh DECGPE WORKDIR [LAUNCHER]
set -euo pipefail
decgpe=$1 work=$2 launcher=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
for tool in pvpython xvfb-run; do
  command -v "$tool" >/dev/null || { echo "viz: no $tool (Debian's paraview, python3-paraview, xvfb: scripts/install-deps.sh)"; exit 1; }
done
mkdir -p "$work"
$launcher "$decgpe" run "$here/vortex.toml" --out "$work/vortex.h5" --force --quiet
[ -f "$work/vortex.xmf" ] || { echo "viz: decgpe wrote no $work/vortex.xmf"; exit 1; }
xvfb-run -a pvpython "$here/render_snapshot.py" "$work/vortex.xmf" "$work/vortex-density.png"
