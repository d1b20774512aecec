#!/usr/bin/env bash
# The long fuzzing run, by hand: every libFuzzer target (tests/fuzz) for RUNS executions (default
# 10^7) with seed SEED (default: the date), one after another, each replaying its regressions
# first, exactly as CI's short run does (CI: 20,000 executions, seed 1). Prints one line per
# target and exits non-zero if any target failed; a crash leaves its input as crash-* in the
# working directory (commit it to tests/fuzz/regressions/NAME/ with the fix).
#   [FUZZ_TARGETS=REGEX] [FUZZ_JOBS=N] scripts/fuzz.sh [RUNS] [SEED]   (build first)
# FUZZ_JOBS=N runs every target as N processes at once (seeds SEED..SEED+N-1, RUNS/N executions
# each rounded up, one shared corpus), all targets together: on a many-core machine. FUZZ_COMMANDS=FILE
# takes the "name<TAB>command" lines from FILE instead of ctest (`FUZZ_LIST=1` prints them), for
# a machine the fuzzers were copied to.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
runs=${1:-10000000}
seed=${2:-$(date +%Y%m%d)}
jobs=${FUZZ_JOBS:-1}

list_targets() {
    if [ -n "${FUZZ_COMMANDS:-}" ]; then # the regex matches the name, as ctest -R does
        awk -F '\t' -v pattern="${FUZZ_TARGETS:-^fuzz_}" '$1 ~ pattern' "$FUZZ_COMMANDS"
        return
    fi
    # A target's ENVIRONMENT (e.g. the sealed .so the flips fuzzer edits) goes in front of its
    # command; its run count is fuzz_target's to set.
    ctest --test-dir "$build" -R "${FUZZ_TARGETS:-^fuzz_}" --show-only=json-v1 | python3 -c '
import json, shlex, sys
for t in json.load(sys.stdin)["tests"]:
    env = [v for p in t.get("properties", []) if p["name"] == "ENVIRONMENT" for v in p["value"]
           if not v.startswith("ZBDDC_FUZZ_RUNS=")]
    words = (["env"] + env if env else []) + t["command"]
    print(t["name"] + "\t" + " ".join(shlex.quote(a) for a in words))'
}
if [ -n "${FUZZ_LIST:-}" ]; then
    list_targets
    exit 0
fi

# One target: its workers at once; prints its line, returns non-zero if any worker failed.
fuzz_target() {
    local name=$1 command=$2 start logs=() pids=() rc=0 units=0 k
    start=$(date +%s)
    for ((k = 0; k < jobs; ++k)); do
        logs+=("$(mktemp /tmp/zbddc-fuzz-$name.XXXX)")
        ZBDDC_FUZZ_RUNS=$(((runs + jobs - 1) / jobs)) ZBDDC_FUZZ_SEED=$((seed + k)) \
            bash -c "$command" >"${logs[k]}" 2>&1 &
        pids+=($!)
    done
    for ((k = 0; k < jobs; ++k)); do
        wait "${pids[k]}" || rc=$?
        u=$(grep -o 'stat::number_of_executed_units: [0-9]*' "${logs[k]}" | tail -1 | awk '{print $2}')
        units=$((units + ${u:-0}))
    done
    printf '%-28s exit %d  %s executions  %d s\n' "$name" "$rc" "$units" $(($(date +%s) - start))
    [ $rc -eq 0 ] || for log in "${logs[@]}"; do tail -n 30 "$log"; done
    rm -f "${logs[@]}"
    return $rc
}

echo "fuzz: $runs runs per target in $jobs process(es), seed $seed, $(uname -n), $(nproc) cores, $(date -u +%FT%TZ)"
status=0
pids=()
while IFS=$'\t' read -r name command; do
    if [ "$jobs" -gt 1 ]; then
        fuzz_target "$name" "$command" &
        pids+=($!)
    else
        fuzz_target "$name" "$command" || status=1
    fi
done < <(list_targets)
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
