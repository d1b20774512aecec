#!/usr/bin/env bash
# zbddc's junction tree beside pyAgrum on every UAI instance of a folder (default: the benchmark
# folder's uai/), in the same run: build/bench/uai_markov per instance (devices as --devices; the
# GPU where there is one) and bench/peers/pyagrum_mrf.py (ShaferShenoyMRFInference, one thread),
# each bounded by a timeout. Writes zbddc.tsv and pyagrum.jsonl into OUT.
#
#   bench/uai_markov.sh [--devices cpu,cpu1,cuda] [--cases N] [--timeout S] [DIR] [OUT]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
devices=cpu,cpu1,cuda cases=1 timeout_s=600
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --devices) devices=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir=${1:-$here/../../shared/benchmarks/uai}
out=${2:-uai-markov-$(date -u +%Y-%m-%d)}
bench=${ZBDDC_BUILD:-$here/../build}/bench/uai_markov
mkdir -p "$out"
: > "$out/pyagrum.jsonl"
first=1
for model in "$dir"/*.uai; do
  name=$(basename "$model" .uai)
  echo "== $name" >&2
  if ! timeout "$timeout_s" "$bench" --devices "$devices" --cases "$cases" "$model" \
      > "$out/.row" 2>> "$out/zbddc.log"; then
    echo -e "instance\tdevice\n$name\t(timeout ${timeout_s} s or failure)" > "$out/.row"
  fi
  if [[ $first == 1 ]]; then head -1 "$out/.row" > "$out/zbddc.tsv"; first=0; fi
  tail -n +2 "$out/.row" >> "$out/zbddc.tsv"
  # pyAgrum's memory bounded (PYAGRUM_MEMORY_KB, default 8 GiB): on Grids_16 it was killed by the
  # kernel on a 24 GiB machine shared with others.
  if ! (ulimit -v "${PYAGRUM_MEMORY_KB:-8388608}"
        timeout "$timeout_s" python3 "$here/peers/pyagrum_mrf.py" "$model") >> "$out/pyagrum.jsonl" \
      2>> "$out/pyagrum.log"; then
    echo "{\"instance\": \"$name.uai\", \"timeout_s\": $timeout_s}" >> "$out/pyagrum.jsonl"
  fi
done
rm -f "$out/.row"
column -t -s $'\t' "$out/zbddc.tsv"
cat "$out/pyagrum.jsonl"
