#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages zbddc needs, only those missing. Works on Debian 12 and
# Ubuntu 24.04; uses sudo when not run as root.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config llvm-19-dev libfmt-dev catch2 libcli11-dev toulbar2
          clang libclang-rt-dev libopenmpi-dev openmpi-bin python3-dev python3-venv)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

echo "zbddc: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "zbddc: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
