#!/usr/bin/env bash
# Installs what is missing, configures (preset "default": build/) and builds everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)"
