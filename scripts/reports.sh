#!/usr/bin/env bash
# The paper's tables and figures in one command.
#
#   scripts/reports.sh                       render reports/data/*/ into reports/out/ (no build, no GPU needed)
#   scripts/reports.sh --measure             on a GPU machine: build (cuda preset), run Fig 7's speedup sweep and
#                                            Fig 8's Nsight Compute profile into reports/data/<device>/, then render
#   scripts/reports.sh --measure --no-build  the same with the build/cuda already there (e.g. scripts/device-run.sh's)
#
# See docs/profiling.md for what --measure runs and how long it takes.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's python3 has python3-numpy, -matplotlib and -h5py (scripts/install-deps.sh); a python3 earlier on PATH
# (pyenv, a venv) may not.
python=""
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import numpy, matplotlib, h5py' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  missing=$(python3 -c 'import importlib.util as u
print(*[m for m in ("numpy", "matplotlib", "h5py") if not u.find_spec(m)])' 2>/dev/null || echo python3)
  echo "reports: no Python 3 with numpy, matplotlib and h5py (missing: $missing); run scripts/install-deps.sh" >&2
  exit 1
fi

record_provenance() { # FILE COMMIT DEVICE NAME=COMMAND...: one entry per new data file, earlier entries kept
  "$python" - "$@" <<'EOF'
import json, os, sys
from datetime import datetime, timezone
path, commit, device, *files = sys.argv[1:]
date = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
record = json.load(open(path)) if os.path.exists(path) else {
    "device": device, "git_commit": commit, "date": date, "command": "scripts/reports.sh --measure"}
for item in files:
    name, command = item.split("=", 1)
    record.setdefault("files", {})[name] = {"command": command, "git_commit": commit, "device": device, "date": date}
with open(path, "w") as f:
    json.dump(record, f, indent=2)
    f.write("\n")
EOF
}

measure() {
  nvidia-smi -L >/dev/null 2>&1 || { echo "reports: --measure needs an NVIDIA GPU (nvidia-smi -L failed)" >&2; exit 1; }
  # One commit for the build's provenance, bench_step's context, roofline.json and provenance.json.
  if [ -z "${DECGPE_GIT_COMMIT:-}" ]; then
    DECGPE_GIT_COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
    git diff --quiet HEAD -- 2>/dev/null || [ "$DECGPE_GIT_COMMIT" = unknown ] || DECGPE_GIT_COMMIT+=-dirty
  fi
  export DECGPE_GIT_COMMIT
  if [ "${1:-}" != --no-build ]; then
    preset=$(scripts/build.sh | tail -n 1)
    [ "$preset" = cuda ] || { echo "reports: --measure needs the cuda preset (nvcc), got '$preset'" >&2; exit 1; }
  fi
  local name slug dir
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  slug=$(echo "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')
  dir=reports/data/$slug
  mkdir -p "$dir"

  # Fig 7: one sweep, one file (scripts/speedup-run.sh says how its parts share the machine)
  scripts/speedup-run.sh "$dir"

  # Fig 8
  scripts/profile-roofline.sh "$dir/roofline"

  record_provenance "$dir/provenance.json" "$DECGPE_GIT_COMMIT" \
    "$name, driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)" \
    "bench-speedup.json=scripts/speedup-run.sh $dir ($(nproc) host cores)" "roofline/=scripts/profile-roofline.sh $dir/roofline"
  echo "reports: measured into $dir/"
}

case ${1:-} in
  --measure) measure "${2:-}" ;;
  "") ;;
  *) echo "usage: scripts/reports.sh [--measure [--no-build]]" >&2; exit 2 ;;
esac
"$python" reports/make_all.py
echo "reports: open reports/out/index.md"
