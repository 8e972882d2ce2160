#!/usr/bin/env bash
# ctest python_package_reads_results: installs python/decgpe as the README's set-up does (scripts/python-env.sh, an
# editable install into a virtual environment, here a fresh one in WORKDIR) and runs its tests with that interpreter
# and no PYTHONPATH, so that they import the installed package.
#
#   python_package_test.sh DECGPE WORKDIR
set -euo pipefail
decgpe=$1 work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work/python-env"
mkdir -p "$work"
python=$("$root/scripts/python-env.sh" "$work/python-env" | tail -n 1)
cd "$work"
unset PYTHONPATH
DECGPE_EXECUTABLE=$decgpe "$python" -m unittest discover -s "$root/python/tests" -v
