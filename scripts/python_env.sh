#!/usr/bin/env bash
# A virtual environment for the Python module and its tests, in build/python-venv (never the
# system's Python): nanobind to build the module, numpy, pytest, and pyAgrum as the tests' oracle.
# Prints the environment's interpreter. Installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/python-venv
packages=(nanobind numpy pytest pyagrum)
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p build
    python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" -c "import nanobind, numpy, pytest, pyagrum" 2>/dev/null; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${packages[@]}" >&2
fi
echo "$PWD/$venv/bin/python"
