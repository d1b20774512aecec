#!/usr/bin/env bash
# zbddc's MPE and MAR (route auto, --device cpu, whole process) over 2,000 forward-sampled cases
# (20% observed, seed 1), and pyAgrum 3.3.1's LazyPropagation MAR on one thread over the same
# cases (bench/peers/pyagrum_lazy.py; its MPE fails in 3.3.1, so MAR is the peer), in one run.
#   ZBDDC=build/zbddc PY=python-with-pyagrum run.sh OUTDIR
set -u
out=${1:?output folder}
mkdir -p "$out"
bn=${BN:-../shared/benchmarks/bn}
for net in ${NETS:-water pathfinder insurance alarm}; do
    ev=/tmp/beside-$net.evid
    $ZBDDC sample $bn/$net.bif --cases 2000 --seed 1 -o $ev --quiet
    for task in mpe mar; do
        /usr/bin/time -f "%e" -o /tmp/beside.time $ZBDDC run $bn/$net.bif --task $task --device cpu \
            --evidence $ev --json > /tmp/beside.json 2> /dev/null
        echo "$net zbddc $task $(cat /tmp/beside.time) s $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))[0]; print(d["route"], d["time_ms"], "ms/case")' /tmp/beside.json)" >> $out/times.txt
    done
    $PY bench/peers/pyagrum_lazy.py $bn/$net.bif $ev --budget-s 20 | sed "s/^{/{\"network\": \"$net\", /" >> $out/pyagrum.jsonl
done
