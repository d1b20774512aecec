#!/usr/bin/env bash
# DPOP (`zbddc run --distributed`, under mpirun on this host) beside the centralised bucket
# elimination (`zbddc run`) and pyDCOP's DPOP, on the DCOP families of Fioretto et al. 2015 §5
# (bench/wcsp_generate: random graphs p1 = 0.3, scale-free, grids; |D| = 5, tightness 0.5,
# integer costs in [0, 100]; one agent per variable) and on any .wcsp given. Every answer is
# checked equal to toulbar2's optimum (where toulbar2 answers within TOULBAR2_TIMEOUT) and to the
# first centralised run's; a mismatch is marked in the table and makes the exit status 1. One
# JSON line per run into OUT.jsonl, a table on stdout; with several devices, a last table of the
# CPU ranks' time over the other devices' ranks'.
#   bench/dpop_compare.sh OUT.jsonl [FILE.wcsp...]
# Environment: ZBDDC (build/zbddc), GENERATE (build/bench/wcsp_generate), DEVICE (cpu; one or
# more of cpu, cuda: "cpu cuda" runs every rank on the CPU, then every rank on its GPU, each
# beside the centralised run on the same device), RANKS ("4 8 16"), SET (small: instances of
# 10-64 agents, tables of at most 10^5 entries; large: tables whose largest UTIL is 2^27.9-2^30.2
# entries of join work, 0.4-2 GB, for GPU ranks — on 16 cores a few seconds a CPU run),
# INSTANCES (family:agents[:seed[:tightness]] ..., default SET's list below), SEED (1, where a
# spec names none), REPEAT (3: the best of that many runs), TOULBAR2_TIMEOUT (300 s), PYDCOP (a
# Python with pyDCOP 0.1.1; unset: no pyDCOP runs), PYDCOP_MAX_AGENTS (25), PYDCOP_TIMEOUT (256 s).
# Times: time_ms of the JSON (the solve as the process sees it: for --distributed rank 0 from a
# barrier after MPI_Init to the gathered answer, mpirun's start-up left out) and the process wall
# time (mpirun's start-up included). An instance with no feasible assignment (zbddc's one-line
# "no MPE" answer) gets cost "none" and its process's wall time as time_ms.
set -uo pipefail
zbddc=${ZBDDC:-build/zbddc}
generate=${GENERATE:-build/bench/wcsp_generate}
devices=${DEVICE:-cpu}
ranks=${RANKS:-4 8 16}
# small: seeds whose instance is feasible where seed 1's is not (toulbar2 proves them infeasible).
# large (min-fill, as --distributed orders them: induced width; largest UTIL table; its join
# entries): grid:81 seed 2 11, 5^11 entries (391 MB), 2^27.9; random:25 seed 2 11, 5^11, 2^27.9;
# random:25 seed 1 and scale-free:100 seed 1 12, 5^12 (1.95 GB), 2^30.2. At tightness 0.5 no
# random or scale-free instance this wide has a feasible assignment (none of 300 seeds each;
# toulbar2 proves it at once), and zbddc answers one with an error line, no JSON, and, under
# mpirun, the 2 s of mpirun ending a job with a non-zero exit in its wall time: those two families
# are timed at tightness 1.0 (no forbidden entries; the same graph from the same seed, the same
# tables, every UTIL computed in full either way). A centralised CPU run on 16 threads (H200
# host, 2026-11-29, BENCHMARKS.md): grid-81 s1 1.4 s, random-25 s1 6.4 s, scale-free-100 s1 7.4 s.
case ${SET:-small} in
small) default="random:10 random:16:8 scale-free:16:2 scale-free:30 grid:16 grid:25 grid:49 grid:64" ;;
large) default="grid:81:2 random:25:2:1.0 random:25:1:1.0 scale-free:100:1:1.0" ;;
*) echo "dpop_compare: SET is small or large" >&2; exit 2 ;;
esac
instances=${INSTANCES:-$default}
toulbar2_timeout=${TOULBAR2_TIMEOUT:-300}
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
    IFS=: read -r family n s t <<<"$spec"
    s=${s:-$seed}
    t=${t:-0.5}
    f="$work/$family-$n-s$s$([ "$t" = 0.5 ] || echo "-t$t").wcsp"
    "$generate" --family "$family" --n "$n" --density 0.3 --domain 5 --tightness "$t" \
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

# "ok" where cost $1 equals the reference $2 (numbers compared as numbers, "none" as text).
check() { python3 -c '
import sys
a, b = sys.argv[1:]
try: same = float(a) == float(b)
except ValueError: same = a == b
print("ok" if same else "MISMATCH")' "$1" "$2"; }
mismatches=0
# One table row and one JSON line: route, ranks, device, the best run's JSON, its wall time.
record() {
    local route=$1 r=$2 d=$3 json=$4 wall=$5 cost verdict
    cost=$(field cost <<<"$json")
    verdict=$(check "$cost" "$reference")
    [ "$verdict" = ok ] || mismatches=$((mismatches + 1))
    echo "{\"instance\": \"$name\", \"route\": \"$route\", \"ranks\": $r, \"device\": \"$d\", \"toulbar2\": \"$tb\", \"wall_s\": $wall, \"check\": \"$verdict\", \"result\": $json}" >>"$out"
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s | %s |\n' "$name" "$agents" \
        "$tb" "$route" "$r" "$d" "$(field device <<<"$json" 2>/dev/null)" "$cost ($verdict)" \
        "$(field time_ms <<<"$json")" "$wall" "$(field distributed.simulated_ms <<<"$json" 2>/dev/null)" \
        "$(field distributed.messages <<<"$json" 2>/dev/null)" "$(field distributed.mpi_bytes <<<"$json" 2>/dev/null)" \
        "$(field largest_table_entries <<<"$json" 2>/dev/null)" "$(field distributed.largest_util_work <<<"$json" 2>/dev/null)"
}

printf '| instance | agents | optimum (toulbar2) | route | ranks | device asked | device used | cost (check) | time_ms | wall_s | simulated_ms | messages | mpi_bytes | largest UTIL | its join work |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for f in "${files[@]}"; do
    name=$(basename "$f" .wcsp)
    tb=$(timeout "$toulbar2_timeout" toulbar2 "$f" 2>&1)
    if grep -q '^Optimum: ' <<<"$tb"; then tb=$(sed -n 's/^Optimum: \([0-9]*\) .*/\1/p' <<<"$tb")
    elif grep -q '^No solution' <<<"$tb"; then tb=none
    else tb="timeout"; fi
    agents=$(awk 'NR == 1 {print $2}' "$f") # the header: name, variables, ...
    reference=$tb
    for d in $devices; do
        IFS=$'\t' read -r json wall < <(best_run "$zbddc" run "$f" --json --device "$d") ||
            { mismatches=$((mismatches + 1)); continue; }
        [ "$reference" = timeout ] && reference=$(field cost <<<"$json")
        record "bucket elimination" 1 "$d" "$json" "$wall"
    done
    for r in $ranks; do
        for d in $devices; do
            IFS=$'\t' read -r json wall < <(best_run mpirun --allow-run-as-root --oversubscribe --bind-to none \
                -np "$r" "$zbddc" run "$f" --distributed --json --device "$d") ||
                { mismatches=$((mismatches + 1)); continue; }
            record DPOP "$r" "$d" "$json" "$wall"
        done
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
if [ "$(wc -w <<<"$devices")" -gt 1 ]; then # the CPU's time over each other device's, by instance and ranks
    python3 - "$out" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if '"route": "pydcop' not in l]
t = {(r["instance"], r["route"], r["ranks"], r["device"]): r["result"]["time_ms"] for r in runs}
others = sorted({r["device"] for r in runs} - {"cpu"})
print("\n| instance | route | ranks | cpu ms | " + " | ".join(f"{d} ms | cpu / {d}" for d in others) + " |")
print("|---|---|---|---:|" + "---:|---:|" * len(others))
for (inst, route, ranks, dev), ms in t.items():
    if dev != "cpu": continue
    cells = []
    for d in others:
        o = t.get((inst, route, ranks, d))
        cells += ["", ""] if o is None else [f"{o:.1f}", f"{ms / o:.1f}"]
    print(f"| {inst} | {route} | {ranks} | {ms:.1f} | " + " | ".join(cells) + " |")
PY
fi
[ "$mismatches" = 0 ] || { echo "dpop_compare: $mismatches runs failed or disagree with the reference" >&2; exit 1; }
