#!/usr/bin/env bash
# Installs what is missing, then configures and builds with the cuda preset when nvcc exists, else the cpu preset.
# Prints the preset name on its last line. CI (CI=true) builds with warnings as errors.
#
# The set-up (packages, the Python environment) and the configure step run only when the build folder is missing or
# older than what they read (these scripts, the presets, python/pyproject.toml, the warnings setting); otherwise this
# is one `cmake --build`, a ninja no-op when nothing changed (ninja re-runs CMake itself when a CMakeLists.txt or
# cmake/ file changed).
set -euo pipefail
cd "$(dirname "$0")/.."

preset=cpu
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  preset=cuda
fi
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
stamp=build/$preset/decgpe-setup.stamp # written once set-up and configure succeeded; holds the warnings setting
if [ ! -f "build/$preset/build.ninja" ] || [ ! -x build/python-env/bin/python ] || [ ! -f "$stamp" ] ||
  [ "$(cat "$stamp")" != "werror=$werror" ] ||
  [ -n "$(find scripts/build.sh scripts/install-deps.sh scripts/python-env.sh CMakePresets.json python/pyproject.toml \
    -newer "$stamp")" ]; then
  scripts/install-deps.sh >&2
  scripts/python-env.sh >/dev/null # python/decgpe, editable, in build/python-env
  cmake --preset "$preset" -DDECGPE_WERROR="$werror" >&2
  echo "werror=$werror" >"$stamp"
fi
cmake --build --preset "$preset" -j "$(nproc)" >&2
echo "$preset"
