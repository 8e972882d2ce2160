#!/usr/bin/env bash
# Installs what is missing, then configures and builds with the cuda preset when nvcc exists, else the cpu preset.
# Prints the preset name on its last line. CI (CI=true) builds with warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh >&2
scripts/python-env.sh >/dev/null # python/decgpe, editable, in build/python-env
preset=cpu
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  preset=cuda
fi
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake --preset "$preset" -DDECGPE_WERROR="$werror" >&2
cmake --build --preset "$preset" -j "$(nproc)" >&2
echo "$preset"
