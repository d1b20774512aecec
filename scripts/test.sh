#!/usr/bin/env bash
# The README's second command: set up, build, and run the whole test suite (unit, integration,
# slow; gpu tests report themselves skipped where no GPU is present), the Python module's pytest
# suite included (python_tests: the module built in the same tree, run with build/python-venv).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
python=$(scripts/python_env.sh)
cmake --preset default -DZBDDC_PYTHON=ON -DPython_EXECUTABLE="$python" >/dev/null
scripts/build.sh
# `huge` tests (minutes and gigabytes each) run by hand: ctest --test-dir build -L huge
ctest --preset default -j "$(nproc)" -LE huge "$@"
