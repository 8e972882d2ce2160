#!/usr/bin/env bash
# Installs the Debian packages decgpe builds and runs with, skipping those already present.
set -euo pipefail

packages=(build-essential cmake ninja-build git pkg-config
  libhdf5-dev libgtest-dev libbenchmark-dev libopenmpi-dev openmpi-bin
  nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
  python3 python3-numpy python3-matplotlib python3-h5py python3-venv python3-pip python3-setuptools
  paraview python3-paraview xvfb)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
