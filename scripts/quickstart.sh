#!/usr/bin/env bash
# The README's first command: set up, build, then compile and evaluate the bundled example on the
# GPU if there is one, else on the CPU (the output says which).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh zbddc # the command line and its libraries only; test.sh builds the rest
example=examples/wetgrass.zdd
echo "== zbddc $example -o build/wetgrass.zdd"
build/zbddc "$example" -o build/wetgrass.zdd
echo "== zbddc stats build/wetgrass.zdd"
build/zbddc stats build/wetgrass.zdd
echo "== zbddc run build/wetgrass.zdd --task pr --evidence WetGrass=yes --device auto"
build/zbddc run build/wetgrass.zdd --task pr --evidence WetGrass=yes --device auto --json
echo "== zbddc run build/wetgrass.zdd --task mar --evidence WetGrass=yes"
build/zbddc run build/wetgrass.zdd --task mar --evidence WetGrass=yes --device auto
