#!/usr/bin/env bash
# zbddc's junction tree beside pyAgrum on every UAI instance of a folder (default: the benchmark
# folder's uai/), in the same run: build/bench/uai_markov per instance (devices as --devices; the
# GPU where there is one) and bench/peers/pyagrum_mrf.py (ShaferShenoyMRFInference, one thread),
# each bounded by a timeout. Writes zbddc.tsv and pyagrum.jsonl into OUT.
#
# --sampled N: a batch of N cases per instance in place of its own evidence, `zbddc sample`'s
# (Gibbs-sampled, 20% observed; OUT/evidence/NAME.evid); pyAgrum answers them in turn for
# --budget S seconds (default 30) and compares its marginals with zbddc's over the first 20
# (OUT/ours/NAME-DEVICE.json, the last device's of --devices).
#
#   bench/uai_markov.sh [--devices cpu,cpu1,cuda] [--cases N] [--sampled N] [--budget S]
#                       [--timeout S] [DIR] [OUT]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
devices=cpu,cpu1,cuda cases=1 timeout_s=600 sampled=0 budget_s=30
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --devices) devices=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --sampled) sampled=$2; shift 2 ;;
    --budget) budget_s=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
dir=${1:-$here/../../shared/benchmarks/uai}
out=${2:-uai-markov-$(date -u +%Y-%m-%d)}
bench=${ZBDDC_BUILD:-$here/../build}/bench/uai_markov
zbddc=${ZBDDC_BUILD:-$here/../build}/zbddc
mkdir -p "$out"
batch=(--cases "$cases") peer=()
if [[ $sampled != 0 ]]; then
  mkdir -p "$out/evidence" "$out/ours"
  batch=(--evidence-dir "$out/evidence" --write-mar "$out/ours")
fi
: > "$out/pyagrum.jsonl"
first=1
for model in "$dir"/*.uai; do
  name=$(basename "$model" .uai)
  echo "== $name" >&2
  if [[ $sampled != 0 ]]; then
    timeout "$timeout_s" "$zbddc" sample "$model" --cases "$sampled" -o "$out/evidence/$name.evid" \
      2>> "$out/zbddc.log" || true
    peer=(--evidence "$out/evidence/$name.evid" --ours "$out/ours/$name-${devices##*,}.json"
          --budget-s "$budget_s")
  fi
  if ! timeout "$timeout_s" "$bench" --devices "$devices" "${batch[@]}" "$model" \
      > "$out/.row" 2>> "$out/zbddc.log"; then
    echo -e "instance\tdevice\n$name\t(timeout ${timeout_s} s or failure)" > "$out/.row"
  fi
  if [[ $first == 1 ]]; then head -1 "$out/.row" > "$out/zbddc.tsv"; first=0; fi
  tail -n +2 "$out/.row" >> "$out/zbddc.tsv"
  # pyAgrum's memory bounded (PYAGRUM_MEMORY_KB, default 8 GiB): on Grids_16 it was killed by the
  # kernel on a 24 GiB machine shared with others.
  if ! (ulimit -v "${PYAGRUM_MEMORY_KB:-8388608}"
        timeout "$timeout_s" python3 "$here/peers/pyagrum_mrf.py" "$model" "${peer[@]}") \
        >> "$out/pyagrum.jsonl" \
      2>> "$out/pyagrum.log"; then
    echo "{\"instance\": \"$name.uai\", \"timeout_s\": $timeout_s}" >> "$out/pyagrum.jsonl"
  fi
done
rm -f "$out/.row"
column -t -s $'\t' "$out/zbddc.tsv"
cat "$out/pyagrum.jsonl"
