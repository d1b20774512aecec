#!/usr/bin/env bash
# The MLF route over an evidence batch through the command line, as users run it: per network,
# `zbddc sample` draws the cases (Fast-BNI's workload: 20% observed, seed 1), then
# `zbddc run NET --route mlf --task T --evidence CASES --device D --json` answers them, for T in
# MLF_TASKS (default "pr mar mpe"). The per-case time is the JSON's time_ms (the batch's wall
# time over its cases) of a second run, whose kernels come from the NVRTC cache; the first run's
# wall time (ZBDD compile, kernel compile) is reported beside it, and the time of the first case
# asked alone (B=1, also a second run). Each later device's answers are compared with the first's:
# the largest difference of any value (log10 P(e), marginal, MPE value) over the batch.
# MLF_NUMERICS (default "auto") times each --numeric mode on the same cases, e.g.
# MLF_NUMERICS="float64 float32 log32": each later mode's answers are compared with the first's
# on the same device (max_diff_vs_<mode>), and float32/log32 rows give the largest stated error
# bound and how many cases their bound sent to float64/log (MPE has no float32: skipped).
# MLF_PRECOMPILE=1 compiles each network's ZBDD once (`zbddc NET -o NET.zdd`, its time a row of
# its own) and runs the .zdd, so a large network's minute of compile is paid once, not per run;
# MLF_COMPILE_FLAGS go to that compile (barley: --zbdd-node-limit 134217728).
# MLF_ROUTES (default "mlf") runs other routes the same way ("auto mlf jt" times what auto takes
# beside both routes; each row says the route that ran and why).
# For networks whose every load takes tens of seconds (diabetes, barley): MLF_ONCE=1 times the
# one run (time_ms leaves the compile out either way), MLF_B1=0 skips the one-case runs, and
# MLF_CPU_CASES answers only the first that many cases on the cpu (the sampler draws cases in
# order, so they are the first of the batch; the difference is taken over them).
#   ZBDDC=build/zbddc bench/network_batch.sh OUT.jsonl CASES DEVICES NET.bif...
set -uo pipefail
zbddc=${ZBDDC:-build/zbddc}
out=${1:?usage: network_batch.sh OUT.jsonl CASES DEVICES NET.bif...}
cases=${2:?}
devices=${3:?}
shift 3
work=$(mktemp -d /tmp/zbddc-mlf.XXXX)
for net in "$@"; do
    name=$(basename "$net" .bif)
    "$zbddc" sample "$net" --cases "$cases" --seed 1 -o "$work/$name.evid" || continue
    "$zbddc" sample "$net" --cases "${MLF_CPU_CASES:-$cases}" --seed 1 -o "$work/$name.cpu.evid" || continue
    "$zbddc" sample "$net" --cases 1 --seed 1 -o "$work/$name.one.evid" || continue
    model=$net
    if [ -n "${MLF_PRECOMPILE:-}" ]; then # the ZBDD once, its compile time a row of its own
        start=$(date +%s%N)
        "$zbddc" "$net" -o "$work/$name.zdd" --quiet ${MLF_COMPILE_FLAGS:-} || continue
        echo "{\"network\": \"$name\", \"zdd_compile_s\": $((($(date +%s%N) - start) / 1000000))e-3}" >>"$out"
        model=$work/$name.zdd
    fi
    numerics=${MLF_NUMERICS:-auto}
    for route in ${MLF_ROUTES:-mlf}; do
        for device in ${devices//,/ }; do
            for task in ${MLF_TASKS:-pr mar mpe}; do
              for numeric in $numerics; do
                case "$task:$numeric" in mpe:float32 | mpe:log32) continue ;; esac
                evid=$work/$name.evid n=$cases
                [ "$device" = cpu ] && evid=$work/$name.cpu.evid n=${MLF_CPU_CASES:-$cases}
                timed=$work/$task.$route.$device.$numeric.json
                start=$(date +%s%N)
                "$zbddc" run "$model" --route $route --task $task --evidence "$evid" \
                    --device "$device" --numeric "$numeric" --json >"$work/first.json" 2>"$work/err.txt"
                rc=$?
                first=$((($(date +%s%N) - start) / 1000000))
                if [ -n "${MLF_ONCE:-}" ]; then
                    cp "$work/first.json" "$timed"
                else
                    "$zbddc" run "$model" --route $route --task $task --evidence "$evid" \
                        --device "$device" --numeric "$numeric" --json >"$timed" 2>>"$work/err.txt"
                fi
                echo '{}' >"$work/one.json"
                [ "${MLF_B1:-1}" = 0 ] || for run in 1 2; do # B=1: the second run of the first case alone
                    "$zbddc" run "$model" --route $route --task $task --evidence "$work/$name.one.evid" \
                        --device "$device" --numeric "$numeric" --json >"$work/one.json" 2>>"$work/err.txt"
                done
                python3 - "$timed" "$name" "$device" "$task" "$n" "$first" \
                    "$rc" "$work/err.txt" "$work/one.json" "$work/$task.$route.${devices%%,*}.$numeric.json" \
                    "${devices%%,*}" "$numeric" "$work/$task.$route.$device.${numerics%% *}.json" \
                    "${numerics%% *}" >>"$out" <<'PY'
import json, sys
(path, name, device, task, cases, first, rc, err, one, baseline, first_device, numeric,
 numeric_baseline, first_numeric) = sys.argv[1:]
row = {"network": name, "device": device, "task": task, "numeric": numeric, "cases": int(cases),
       "first_run_s": round(int(first) / 1000, 2), "exit": int(rc)}
try:
    results = json.load(open(path))
    ok = [r for r in results if "time_ms" in r]
    row["ms_per_case"] = ok[0]["time_ms"] if ok else None
    row["ran_on"] = ok[0]["device"] if ok else None
    row["route"] = ok[0].get("route") if ok else None
    row["route_why"] = ok[0].get("route_why") if ok else None
    row["failed_cases"] = len(results) - len(ok)
    single = json.load(open(one))  # one case: an object, not a list
    single = [r for r in (single if isinstance(single, list) else [single]) if "time_ms" in r]
    row["ms_b1"] = single[0]["time_ms"] if single else None
    bounds = [r["error_bound"] for r in ok if "error_bound" in r]
    if numeric in ("float32", "log32"):
        row["largest_bound"] = max((max(b["relative"], b["marginals_relative"]) for b in bounds),
                                   default=None)
        row["cases_not_in_" + numeric] = len(ok) - len(bounds)
    def numbers(v):
        if isinstance(v, dict):
            return [x for k in sorted(v) for x in numbers(v[k])]
        if isinstance(v, list):
            return [x for e in v for x in numbers(e)]
        if v is None:  # null (a number not finite) keeps its place, so the pairs stay aligned
            return [None]
        # JSON writes 1.0 as 1: integers are values too (bools are not)
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
        return [float(v)] if ok else []
    keep = ("log10", "marginals", "value")
    # Every number of every case against the first device's, and the first numeric mode's.
    for other, label in ((baseline, first_device), (numeric_baseline, first_numeric)):
        if other == path:
            continue
        ours = [{k: r[k] for k in keep if k in r} for r in results]
        theirs = [{k: r[k] for k in keep if k in r} for r in json.load(open(other))]
        pairs = zip(numbers(ours), numbers(theirs))
        row["max_diff_vs_" + label] = max(
            (abs(a - b) for a, b in pairs if a is not None and b is not None), default=None)
except Exception as e:  # no JSON: the error line says why
    row["error"] = open(err).read().strip().splitlines()[-1:] or [str(e)]
print(json.dumps(row))
PY
              done
            done
        done
    done
done
rm -rf "$work"
