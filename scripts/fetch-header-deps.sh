#!/usr/bin/env bash
# Unpacks the header-only Debian packages decgpe needs into .deps/ (git-ignored), for machines that reach no package
# registry: pass `.deps` in the device tool's carry and CMake finds the headers there.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps && mkdir -p .deps/debs
(cd .deps/debs && apt-get download nlohmann-json3-dev libcli11-dev libtomlplusplus-dev >/dev/null)
for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps; done
rm -rf .deps/debs .deps/usr/share/doc
du -sh .deps
