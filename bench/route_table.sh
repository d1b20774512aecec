#!/usr/bin/env bash
# Does `--route auto` take the fastest exact route? One command, the whole table: per network,
# device (the CPU on all cores; the GPU where nvidia-smi sees one), batch size (1 case, 2,000
# forward-sampled cases with 20% observed: `zbddc sample --seed 1`) and task (PR, MAR, MPE),
# `zbddc run --json` with auto and with each exact route forced (networks: mlf, jt; a .wcsp or
# MARKOV .uai: be, and jt for PR/MAR), and pyAgrum's LazyPropagation (bench/peers/pyagrum_lazy.py,
# one thread, PR and MAR; its MPE fails in 3.3.1) on the same cases in the same run.
#
# Each cell is the whole process's time (read, compile, pilot, answers, print): its wall time, as
# a user waits for it, or with ROUTE_CLOCK=cpu its CPU time (user + system, all threads), the
# steadier measure on a machine others load (a GPU's work does not show in it: wall there). auto runs twice against a fresh route cache: `auto_first` pays its pilot (both
# routes compiled and timed where the estimates are close), `auto` is the next run, which reads
# the remembered choice and compiles one route. `auto_est` is auto with --estimate-only (the
# estimate alone). `auto_over_best` = auto / the fastest forced route; `best_over_pyagrum` =
# pyAgrum's time / the fastest route's (pyAgrum: load + cases; cases past its budget are
# extrapolated from its per-case time, and the row says so). Answers of each route are
# compared with the first route's (largest difference of any number, `max_diff`).
#
# A cell over ROUTE_CELL_S seconds (default 120) is killed and written as skipped, with why; a
# cell under 2 s is the fastest of ROUTE_REPEAT runs (default 3), one under 0.1 s of 9. Times are
# the kernel's account of each process (bench/child_times.py: microseconds).
#   ZBDDC=build/zbddc bench/route_table.sh OUTDIR NET.bif...
# ROUTE_DEVICES (default: cpu, and cuda where nvidia-smi lists a GPU), ROUTE_CASES (default
# "1 2000"), ROUTE_TASKS (default "pr mar mpe"), ROUTE_PEER=0 (no pyAgrum). pyAgrum is imported
# as installed, else from a wheel in PYAGRUM_WHEELS (default: .whl beside the source tree)
# installed into OUTDIR's scratch folder with pip (offline, numpy from the machine).
# Writes OUTDIR/rows.jsonl (one object per cell row) and OUTDIR/table.md.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
zbddc=${ZBDDC:-build/zbddc}
out=${1:?usage: route_table.sh OUTDIR NET.bif...}
shift
mkdir -p "$out"
limit=${ROUTE_CELL_S:-120}
clock=${ROUTE_CLOCK:-wall}
if [ -z "${ROUTE_DEVICES:-}" ]; then
    ROUTE_DEVICES=cpu
    nvidia-smi -L 2>/dev/null | grep -q GPU && ROUTE_DEVICES="cpu cuda"
fi
work=$(mktemp -d /tmp/zbddc-route-table.XXXX)
trap 'rm -rf "$work"' EXIT
rows=$out/rows.jsonl
: >"$rows"

# pyAgrum as installed, else from a wheel (the GPU machine has none installed).
peer=${ROUTE_PEER:-1}
if [ "$peer" = 1 ] && ! python3 -c 'import pyagrum' 2>/dev/null; then
    wheels=${PYAGRUM_WHEELS:-$here/../.whl}
    wheel=$(ls "$wheels"/pyagrum-*.whl 2>/dev/null | head -1)
    if [ -n "$wheel" ] && python3 -m pip install --quiet --no-index --no-deps \
        --target "$work/py" "$wheel" >"$work/pip.log" 2>&1; then
        export PYTHONPATH="$work/py${PYTHONPATH:+:$PYTHONPATH}"
    fi
    python3 -c 'import pyagrum' 2>/dev/null || peer=0
    [ "$peer" = 0 ] && echo "route_table: pyAgrum not importable (no wheel in $wheels?); no peer column" >&2
fi

# One cell: `zbddc run` under the limit; prints "WALL_S CPU_S EXIT" and leaves the JSON in $1. A run
# under 2 s is repeated (ROUTE_REPEAT times in all, default 3; 9 under 0.1 s) and the fastest
# kept: a process start on a shared machine varies by tens of milliseconds. auto_first is never
# repeated (its repeat would read the choice it remembered).
cell() {
    local json=$1 err=$2 times=$3
    shift 3
    local best= rc=0 wall cpu
    for ((i = 0; i < times; i++)); do
        python3 "$here/child_times.py" "$work/time.txt" "$limit" "$zbddc" run "$@" --json >"$json" 2>"$err"
        read -r wall cpu rc <"$work/time.txt"
        local line="$wall $cpu $rc"
        # the faster by the table's clock (ROUTE_CLOCK)
        if [ -z "$best" ] || awk -v a="$line" -v b="$best" -v c="$clock" 'BEGIN {
            split(a, x, " "); split(b, y, " "); k = c == "cpu" ? 2 : 1; exit !(x[k] < y[k]) }'; then
            best=$line
        fi
        [ "$rc" = 0 ] && awk -v w="$wall" 'BEGIN { exit !(w < 2) }' || break
        # a process under 0.1 s varies by more than the routes differ: repeated 9 times
        [ "$times" -gt 1 ] && awk -v w="$wall" 'BEGIN { exit !(w < 0.1) }' && times=$((times > 9 ? times : 9))
    done
    echo "$best"
}

for net in "$@"; do
    name=$(basename "${net%.*}")
    case "$net" in
    *.wcsp) routes="be" ;;
    *.uai) routes="jt be" ;;
    *) routes="mlf jt" ;;
    esac
    for n in ${ROUTE_CASES:-1 2000}; do
        evid=$work/$name.$n.evid
        case "$net" in *.wcsp) evid= ;; *)
            "$zbddc" sample "$net" --cases "$n" --seed 1 -o "$evid" 2>>"$work/sample.err" || {
                echo "{\"network\": \"$name\", \"cases\": $n, \"skipped\": \"zbddc sample failed\"}" >>"$rows"
                continue
            } ;;
        esac
        for device in $ROUTE_DEVICES; do
            for task in ${ROUTE_TASKS:-pr mar mpe}; do
                cells=$work/cells.tsv
                : >"$cells"
                cache=$work/cache.$name.$n.$device.$task
                for run in auto_first auto auto_est $routes; do
                    flags=(--route auto)
                    case $run in
                    auto_est) flags+=(--estimate-only) ;;
                    auto_first | auto) ;;
                    *) flags=(--route "$run") ;;
                    esac
                    [ "$run:$task" = "be:mar" ] || [ "$run:$task" = "be:pr" ] && continue
                    [ -n "$evid" ] && flags+=(--evidence "$evid")
                    times=${ROUTE_REPEAT:-3}
                    [ "$run" = auto_first ] && times=1
                    read -r secs cpu rc < <(ZBDDC_CACHE_DIR=$cache cell "$work/$run.json" \
                        "$work/$run.err" "$times" "$net" --task "$task" --device "$device" \
                        "${flags[@]}")
                    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$secs" "$cpu" "$rc" \
                        "$work/$run.json" "$work/$run.err" >>"$cells"
                done
                peer_json=$work/peer.$name.$n.$task.json # one CPU peer run for every device
                [ -f "$peer_json" ] || echo '{}' >"$peer_json"
                if [ "$peer" = 1 ] && [ "$task" != mpe ] && [ -n "$evid" ] && [ "$device" = "${ROUTE_DEVICES%% *}" ]; then
                    timeout "$((limit + 30))" python3 "$here/peers/pyagrum_lazy.py" "$net" "$evid" \
                        --task "$task" --budget-s "$limit" >"$peer_json" 2>"$work/peer.err" ||
                        echo "{\"error\": \"$(tail -1 "$work/peer.err" | tr -d '"\\')\"}" >"$peer_json"
                fi
                python3 "$here/route_table_row.py" "$name" "$device" "$n" "$task" "$limit" \
                    "$cells" "$peer_json" "$routes" "$clock" >>"$rows"
            done
        done
    done
done
python3 "$here/route_table_row.py" --table "$rows" "$clock" >"$out/table.md"
cat "$out/table.md"
