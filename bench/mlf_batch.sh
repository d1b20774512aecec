#!/usr/bin/env bash
# The MLF route over an evidence batch through the command line, as users run it: per network,
# `zbddc sample` draws the cases (Fast-BNI's workload: 20% observed, seed 1), then
# `zbddc run NET --route mlf --task T --evidence CASES --device D --json` answers them, for T in
# MLF_TASKS (default "pr mar mpe"). The per-case time is the JSON's time_ms (the batch's wall
# time over its cases) of a second run, whose kernels come from the NVRTC cache; the first run's
# wall time (ZBDD compile, kernel compile) is reported beside it.
#   ZBDDC=build/zbddc bench/mlf_batch.sh OUT.jsonl CASES DEVICES NET.bif...
set -uo pipefail
zbddc=${ZBDDC:-build/zbddc}
out=${1:?usage: mlf_batch.sh OUT.jsonl CASES DEVICES NET.bif...}
cases=${2:?}
devices=${3:?}
shift 3
work=$(mktemp -d /tmp/zbddc-mlf.XXXX)
for net in "$@"; do
    name=$(basename "$net" .bif)
    "$zbddc" sample "$net" --cases "$cases" --seed 1 -o "$work/$name.evid" || continue
    for device in ${devices//,/ }; do
        for task in ${MLF_TASKS:-pr mar mpe}; do
            start=$(date +%s%N)
            "$zbddc" run "$net" --route mlf --task $task --evidence "$work/$name.evid" \
                --device "$device" --json >"$work/first.json" 2>"$work/err.txt"
            rc=$?
            first=$((($(date +%s%N) - start) / 1000000))
            "$zbddc" run "$net" --route mlf --task $task --evidence "$work/$name.evid" \
                --device "$device" --json >"$work/second.json" 2>>"$work/err.txt"
            python3 - "$work/second.json" "$name" "$device" "$task" "$cases" "$first" "$rc" \
                "$work/err.txt" >>"$out" <<'PY'
import json, sys
path, name, device, task, cases, first, rc, err = sys.argv[1:]
row = {"network": name, "device": device, "task": task, "cases": int(cases),
       "first_run_s": round(int(first) / 1000, 2), "exit": int(rc)}
try:
    results = json.load(open(path))
    ok = [r for r in results if "time_ms" in r]
    row["ms_per_case"] = ok[0]["time_ms"] if ok else None
    row["ran_on"] = ok[0]["device"] if ok else None
    row["failed_cases"] = len(results) - len(ok)
except Exception as e:  # no JSON: the error line says why
    row["error"] = open(err).read().strip().splitlines()[-1:] or [str(e)]
print(json.dumps(row))
PY
        done
    done
done
rm -rf "$work"
