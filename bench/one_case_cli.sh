#!/usr/bin/env bash
# One case through the command line, as a user asks it, against pyAgrum's load-and-infer of the
# same case: per network, `zbddc sample` draws one case (Fast-BNI's workload: 20% observed,
# seed 1), then `zbddc run NET --task mar --evidence CASE --device auto` runs as a fresh process,
# first with an empty kernel and route cache (first_ms), then cached (the best of REPEAT, default
# 3: ms). pyAgrum (bench/peers/pyagrum_lazy.py, one thread, where it imports) reads the network,
# builds LazyPropagation and answers the case; its load_ms + per_case_ms is its load-and-infer
# time, process_ms its whole process (the interpreter's start included). One JSON line a network.
#   ZBDDC=build/zbddc bench/one_case_cli.sh OUT.jsonl NET.bif...
set -uo pipefail
zbddc=${ZBDDC:-build/zbddc}
out=${1:?usage: one_case_cli.sh OUT.jsonl NET.bif...}
shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/zbddc-one-case.XXXX)
trap 'rm -rf "$work"' EXIT
# Bash's own clock (EPOCHREALTIME, seconds to the microsecond), read without a child process:
# `date` or a command substitution would add its fork (1-3 ms) to every timed run.
msBetween() { awk -v a="${1/,/.}" -v b="${2/,/.}" 'BEGIN{printf "%.2f", 1e3 * (b - a)}'; }

for net in "$@"; do
    name=$(basename "$net" .bif)
    "$zbddc" sample "$net" --cases 1 --seed 1 -o "$work/$name.evid" || continue
    export ZBDDC_CACHE_DIR="$work/cache-$name"
    run() { "$zbddc" run "$net" --task mar --evidence "$work/$name.evid" --device auto --json \
        > "$work/$name.json" 2> "$work/$name.err"; }
    t0=$EPOCHREALTIME; run; rc=$?; t1=$EPOCHREALTIME; first=$(msBetween "$t0" "$t1")
    best=
    for _ in $(seq "${REPEAT:-3}"); do
        t0=$EPOCHREALTIME; run; t1=$EPOCHREALTIME; ms=$(msBetween "$t0" "$t1")
        best=$(awk -v a="${best:-1e30}" -v b="$ms" 'BEGIN{print (b < a) ? b : a}')
    done
    route=$(python3 -c 'import json, sys
try: j = json.load(open(sys.argv[1])); print(j.get("route", "?"), "|", j.get("ran_on", j.get("device", "?")))
except Exception: print("? | ?")' "$work/$name.json")
    peer=null
    if python3 -c 'import pyagrum' 2> /dev/null; then
        t0=$EPOCHREALTIME
        peer=$(python3 "$here/peers/pyagrum_lazy.py" "$net" "$work/$name.evid" --budget-s 60 2> /dev/null)
        t1=$EPOCHREALTIME; process=$(msBetween "$t0" "$t1")
        peer=$(python3 -c 'import json, sys
j = json.loads(sys.argv[1]); j["process_ms"] = float(sys.argv[2])
j["load_and_infer_ms"] = j["load_ms"] + j["per_case_ms"]; print(json.dumps(j))' "$peer" "$process" 2> /dev/null || echo null)
    fi
    printf '{"network": "%s", "exit": %d, "route": "%s", "first_ms": %s, "ms": %s, "pyagrum": %s}\n' \
        "$name" "$rc" "$route" "$first" "$best" "$peer" | tee -a "$out"
done
