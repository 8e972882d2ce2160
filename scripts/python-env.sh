#!/usr/bin/env bash
# The Python package (python/decgpe), installed editable into a virtual environment that sees Debian's numpy, h5py
# and matplotlib (scripts/install-deps.sh): offline, no package registry needed.
#
#   scripts/python-env.sh [DIR]      (default: build/python-env); prints DIR's python on its last line
set -euo pipefail
cd "$(dirname "$0")/.."
env=${1:-build/python-env}
if [ ! -x "$env/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$env" >&2
fi
"$env/bin/python" -m pip install --quiet --no-deps --no-build-isolation --no-index --editable python/ >&2
echo "$env/bin/python"
