#!/usr/bin/env bash
# The README's second command: set up, build, and run the whole test suite (unit, integration,
# slow; gpu tests report themselves skipped where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --preset default -j "$(nproc)" "$@"
