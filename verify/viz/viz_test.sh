#!/usr/bin/env bash
# ctest viz_paraview_opens_results: runs decgpe on verify/viz/vortex.toml, then opens the results' XDMF sidecar in
# ParaView's pvpython (rendering into a private Xvfb) and checks it (render_snapshot.py). The PNG stays in WORKDIR.
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

# A private X server. Xvfb picks a free display itself (-displayfd) and names it once it listens; the display is then
# checked to take a connection, and on failure the server is stopped and another started. (Two CI runs found no
# server on the display they were given, one under `xvfb-run -a`, one here with Xvfb's log saying "server already
# running": a server still shutting down can hold a display's socket after its lock file is gone.) Each server is
# waited for on exit, so that it is gone before the next test starts one.
display_file=$work/xvfb.display xvfb_log=$work/xvfb.log xvfb_pid=""
stop_xvfb() {
  if [ -n "$xvfb_pid" ]; then
    kill "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
    xvfb_pid=""
  fi
}
trap stop_xvfb EXIT
# start_xvfb: a server whose display takes a connection, its number in `display`; non-zero when none could be had.
start_xvfb() {
  rm -f "$display_file"
  Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x1024x24 3>"$display_file" 2>"$xvfb_log" &
  xvfb_pid=$!
  for _ in $(seq 300); do
    [ -s "$display_file" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  display=$(tr -d '[:space:]' <"$display_file")
  [ -n "$display" ] && DISPLAY=:$display python3 -c 'import ctypes, sys
x = ctypes.cdll.LoadLibrary("libX11.so.6"); x.XOpenDisplay.restype = ctypes.c_void_p
sys.exit(0 if x.XOpenDisplay(None) else 1)'
}
for attempt in 1 2 3 4 5; do
  start_xvfb && break
  echo "viz: Xvfb attempt $attempt gave no usable display${display:+ (:$display)}; its log:"
  cat "$xvfb_log"
  stop_xvfb
  [ "$attempt" -lt 5 ] || exit 1
  sleep 1
done
DISPLAY=:$display pvpython "$here/render_snapshot.py" "$work/vortex.xmf" "$work/vortex-density.png" ||
  { status=$?; echo "viz: pvpython failed ($status); Xvfb's log:"; cat "$xvfb_log"; exit "$status"; }
