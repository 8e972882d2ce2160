#!/usr/bin/env bash
# The README's main command: set up, build, and run the default job.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=$(scripts/build.sh | tail -n 1)
for lattice in cubic fcc bcc a15 c15 z; do
  "build/$preset/cli/decgpe" lattice "$lattice" | sed -n 1p
done
