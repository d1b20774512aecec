#!/usr/bin/env bash
# The README's second command: set up, build, and run the whole test suite (unit, integration,
# slow; gpu tests report themselves skipped where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# `huge` tests (minutes and gigabytes each) run by hand: ctest --test-dir build -L huge
ctest --preset default -j "$(nproc)" -LE huge "$@"
