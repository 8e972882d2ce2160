#!/usr/bin/env bash
# ctest viz_paraview_opens_results: runs decgpe on verify/viz/vortex.toml, then opens the results' XDMF sidecar in
# ParaView's pvpython (rendering into a private Xvfb) and checks it (render_snapshot.py): the cells, a slice, the
# iso-surface and a volume rendering; the PNGs (vortex-slice.png, vortex-isosurface.png, vortex-volume.png) stay in
# WORKDIR.
# With LAUNCHER (an mpiexec command line), decgpe runs over its ranks: the results join the ranks' parts as virtual
# datasets, which ParaView's HDF5 must read through the sidecar like any other.
#
#   viz_test.sh DECGPE WORKDIR [LAUNCHER]
set -euo pipefail
decgpe=$1 work=$2 launcher=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
for tool in pvpython Xvfb; do
  command -v "$tool" >/dev/null || { echo "viz: no $tool (Debian's paraview, python3-paraview, xvfb: scripts/install-deps.sh)"; exit 1; }
done
mkdir -p "$work"
$launcher "$decgpe" run "$here/vortex.toml" --out "$work/vortex.h5" --force --quiet
[ -f "$work/vortex.xmf" ] || { echo "viz: decgpe wrote no $work/vortex.xmf"; exit 1; }

# A private X server: Xvfb picks a free display itself (-displayfd) and names it once it listens. -noreset: by default
# an X server resets when its last client disconnects and refuses connections meanwhile; pvpython opens and closes
# connections as it starts, and under load its OpenGL probe came during a reset (CI runs aborted in CreateAWindow,
# "bad X server connection"; here 60 of 300 open/close cycles under load failed without -noreset, none with it).
# The server is waited for on exit, so that it is gone before the next test starts one.
display_file=$work/xvfb.display xvfb_log=$work/xvfb.log
rm -f "$display_file"
Xvfb -displayfd 3 -nolisten tcp -noreset -screen 0 1280x1024x24 3>"$display_file" 2>"$xvfb_log" &
xvfb_pid=$!
trap 'kill "$xvfb_pid" 2>/dev/null || true; wait "$xvfb_pid" 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  [ -s "$display_file" ] && break
  kill -0 "$xvfb_pid" 2>/dev/null || { echo "viz: Xvfb did not start:"; cat "$xvfb_log"; exit 1; }
  sleep 0.1
done
[ -s "$display_file" ] || { echo "viz: Xvfb named no display within 30 s:"; cat "$xvfb_log"; exit 1; }
DISPLAY=:$(tr -d '[:space:]' <"$display_file") pvpython "$here/render_snapshot.py" "$work/vortex.xmf" \
  "$work/vortex" ||
  { status=$?; echo "viz: pvpython failed ($status); Xvfb's log:"; cat "$xvfb_log"; exit "$status"; }
