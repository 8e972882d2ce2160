#!/usr/bin/env bash
# The README's test command: set up, build, and run every test. GPU tests skip with a message when no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=$(scripts/build.sh | tail -n 1)
ctest --preset "$preset" -j "$(nproc)" "$@"
