#!/usr/bin/env bash
# The long fuzzing run, by hand: every libFuzzer target (tests/fuzz) for RUNS executions (default
# 10^7) with seed SEED (default: the date), one after another, each replaying its regressions
# first, exactly as CI's short run does (CI: 20,000 executions, seed 1). Prints one line per
# target and exits non-zero if any target failed; a crash leaves its input as crash-* in the
# working directory (commit it to tests/fuzz/regressions/NAME/ with the fix).
#   [FUZZ_TARGETS=REGEX] scripts/fuzz.sh [RUNS] [SEED]      (build first: cmake --build build)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
export ZBDDC_FUZZ_RUNS=${1:-10000000}
export ZBDDC_FUZZ_SEED=${2:-$(date +%Y%m%d)}
echo "fuzz: $ZBDDC_FUZZ_RUNS runs per target, seed $ZBDDC_FUZZ_SEED, $(uname -n), $(date -u +%FT%TZ)"
status=0
while IFS=$'\t' read -r name command; do
    start=$(date +%s)
    log=$(mktemp /tmp/zbddc-fuzz-$name.XXXX)
    eval "$command" >"$log" 2>&1
    rc=$?
    units=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    printf '%-28s exit %d  %s executions  %d s\n' "$name" "$rc" "${units:-?}" $(($(date +%s) - start))
    [ $rc -eq 0 ] || { status=1; tail -n 30 "$log"; }
    rm -f "$log"
done < <(ctest --test-dir "$build" -R "${FUZZ_TARGETS:-^fuzz_}" --show-only=json-v1 | python3 -c '
import json, shlex, sys
for t in json.load(sys.stdin)["tests"]:
    print(t["name"] + "\t" + " ".join(shlex.quote(a) for a in t["command"]))')
exit $status
