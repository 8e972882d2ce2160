#!/usr/bin/env bash
# The README's main command: set up, build, and run the default case (on the GPU when there is one).
# Extra arguments go to `decgpe run`, e.g. --backend reference or --out results.h5.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=$(scripts/build.sh | tail -n 1)
exec "build/$preset/cli/decgpe" run cases/default.toml "$@"
