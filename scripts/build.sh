#!/usr/bin/env bash
# Installs what is missing, configures (preset "default": build/) and builds the given targets,
# or everything (every test and benchmark) when none is given.
#   scripts/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build --preset default -j "$(nproc)" "${targets[@]}"
