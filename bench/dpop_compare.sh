#!/usr/bin/env bash
# DPOP (`zbddc run --distributed`, under mpirun on this host) beside the centralised bucket
# elimination (`zbddc run`) and pyDCOP's DPOP, on the DCOP families of Fioretto et al. 2015 §5
# (bench/wcsp_generate: random graphs p1 = 0.3, scale-free, grids; |D| = 5, tightness 0.5,
# integer costs in [0, 100]; one agent per variable) and on any .wcsp given. Every optimum is
# checked against toulbar2's. One JSON line per run into OUT.jsonl, a table on stdout.
#   bench/dpop_compare.sh OUT.jsonl [FILE.wcsp...]
# Environment: ZBDDC (build/zbddc), GENERATE (build/bench/wcsp_generate), DEVICE (cpu; cuda runs
# each rank on its GPU), RANKS ("4 8 16"), INSTANCES (family:agents[:seed] ..., default below),
# SEED (1, where a spec names none), REPEAT (3: the best of that many runs), PYDCOP (a Python with
# pyDCOP 0.1.1; unset: no pyDCOP runs), PYDCOP_MAX_AGENTS (25), PYDCOP_TIMEOUT (256 s).
# Times: time_ms of the JSON (the solve as the process sees it: for --distributed rank 0 from a
# barrier after MPI_Init to the gathered answer, mpirun's start-up left out) and the process wall
# time (mpirun's start-up included). An instance with no feasible assignment (zbddc's one-line
# "no MPE" answer) gets cost "none" and its process's wall time as time_ms.
set -uo pipefail
zbddc=${ZBDDC:-build/zbddc}
generate=${GENERATE:-build/bench/wcsp_generate}
device=${DEVICE:-cpu}
ranks=${RANKS:-4 8 16}
# Seeds whose instance is feasible where seed 1's is not (toulbar2 proves them infeasible).
instances=${INSTANCES:-random:10 random:16:8 scale-free:16:2 scale-free:30 grid:16 grid:25 grid:49 grid:64}
seed=${SEED:-1}
repeat=${REPEAT:-3}
out=${1:?usage: dpop_compare.sh OUT.jsonl [FILE.wcsp...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/zbddc-dpop.XXXX)
trap 'rm -rf "$work"' EXIT
: >"$out"

files=("$@")
for spec in $instances; do
    IFS=: read -r family n s <<<"$spec"
    s=${s:-$seed}
    f="$work/$family-$n-s$s.wcsp"
    "$generate" --family "$family" --n "$n" --density 0.3 --domain 5 --tightness 0.5 \
        --seed "$s" -o "$f" >/dev/null || exit 1
    files+=("$f")
done

field() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); k=sys.argv[1].split("."); [d:=d[x] for x in k]; print(d)' "$1"; }
now() { date +%s.%N; }

# Best of $repeat runs of "$@": prints the JSON of the fastest (by time_ms) and its wall time.
best_run() {
    local best="" bestms="" wall=""
    for _ in $(seq "$repeat"); do
        local t0 json t1 ms
        t0=$(now)
        local ran=0
        json=$("$@" 2>"$work/err") || ran=$?
        t1=$(now)
        if [ "$ran" != 0 ]; then
            # An instance with no feasible assignment is an answer (toulbar2's "none"), not a
            # failure: the run says so on one line; its time is the process's wall time.
            grep -q "so there is no MPE" "$work/err" ||
                { echo "FAILED: $* ($(head -c 300 "$work/err"))" >&2; return 1; }
            json="{\"cost\": \"none\", \"infeasible\": true, \"time_ms\": $(python3 -c "print(($t1 - $t0) * 1e3)")}"
        fi
        ms=$(field time_ms <<<"$json")
        if [ -z "$bestms" ] || python3 -c "import sys; sys.exit(not $ms < $bestms)"; then
            best=$json bestms=$ms wall=$(python3 -c "print($t1 - $t0)")
        fi
    done
    printf '%s\t%s\n' "$best" "$wall"
}

printf '| instance | agents | optimum (toulbar2) | route | ranks | cost | time_ms | wall_s | simulated_ms | messages | mpi_bytes | largest UTIL |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for f in "${files[@]}"; do
    name=$(basename "$f" .wcsp)
    tb=$(timeout 300 toulbar2 "$f" 2>&1 | sed -n 's/^Optimum: \([0-9]*\) .*/\1/p')
    [ -n "$tb" ] || tb=none
    IFS=$'\t' read -r json wall < <(best_run "$zbddc" run "$f" --json --device "$device")
    agents=$(awk 'NR == 1 {print $2}' "$f") # the header: name, variables, ...
    cost=$(field cost <<<"$json")
    echo "{\"instance\": \"$name\", \"route\": \"centralised\", \"device\": \"$device\", \"toulbar2\": \"$tb\", \"wall_s\": $wall, \"result\": $json}" >>"$out"
    printf '| %s | %s | %s | bucket elimination | 1 | %s | %.2f | %.2f | | | | %s |\n' "$name" "$agents" "$tb" \
        "$cost" "$(field time_ms <<<"$json")" "$wall" "$(field largest_table_entries <<<"$json" 2>/dev/null)"
    for r in $ranks; do
        IFS=$'\t' read -r json wall < <(best_run mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$r" \
            "$zbddc" run "$f" --distributed --json --device "$device") || continue
        echo "{\"instance\": \"$name\", \"route\": \"dpop\", \"ranks\": $r, \"device\": \"$device\", \"toulbar2\": \"$tb\", \"wall_s\": $wall, \"result\": $json}" >>"$out"
        printf '| %s | %s | %s | DPOP | %s | %s | %.2f | %.2f | %.2f | %s | %s | %s |\n' "$name" "$agents" \
            "$tb" "$r" "$(field cost <<<"$json")" "$(field time_ms <<<"$json")" "$wall" \
            "$(field distributed.simulated_ms <<<"$json" 2>/dev/null)" \
            "$(field distributed.messages <<<"$json" 2>/dev/null)" "$(field distributed.mpi_bytes <<<"$json" 2>/dev/null)" \
            "$(field distributed.largest_util_entries <<<"$json" 2>/dev/null)"
    done
    if [ -n "${PYDCOP:-}" ] && [ "$agents" -le "${PYDCOP_MAX_AGENTS:-25}" ]; then
        py=$(python3 "$here/peers/pydcop_dpop.py" "$f" --yaml "$work/$name.yaml" --python "$PYDCOP" \
            --timeout "${PYDCOP_TIMEOUT:-256}")
        echo "{\"instance\": \"$name\", \"route\": \"pydcop-dpop\", \"toulbar2\": \"$tb\", \"result\": $py}" >>"$out"
        printf '| %s | %s | %s | pyDCOP DPOP | %s agents | %s | (%s, %s] s | %s | | %s | | |\n' "$name" \
            "$agents" "$tb" "$agents" "$(field cost <<<"$py" 2>/dev/null)" \
            "$(field solve_s_above <<<"$py")" "$(field solve_s_at_most <<<"$py" 2>/dev/null)" \
            "$(field wall_s <<<"$py" 2>/dev/null)" "$(field msg_count <<<"$py" 2>/dev/null)"
    fi
done
