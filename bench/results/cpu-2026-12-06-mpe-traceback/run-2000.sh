#!/usr/bin/env bash
# Fast-BNI's workload on the VM: 2,000 forward-sampled cases (seed 1, 20% observed) per network,
# `zbddc run NET.bif --task mar|mpe --route jt --device cpu --json` (time_ms a case, and the whole
# process's wall), then pyAgrum 3.3.1's LazyPropagation on both cores over the same cases for 20 s
# (MAR: its MPE fails in 3.3.1, bench/peers/pyagrum_lazy.py). Run from the checkout's root.
set -u
out=${1:?usage: run-2000.sh OUT.jsonl}
python=$(scripts/python_env.sh)
for n in water pathfinder mildew barley; do
    net=../shared/benchmarks/bn/$n.bif
    build/zbddc sample "$net" --cases 2000 --seed 1 -o "/tmp/$n-2000.evid" || continue
    for t in mar mpe; do
        start=$(date +%s%N)
        build/zbddc run "$net" --task $t --route jt --device cpu --evidence "/tmp/$n-2000.evid" \
            --json > "/tmp/$n-$t.json"
        wall=$((($(date +%s%N) - start) / 1000000))
        "$python" -c "import json,sys; d=json.load(open('/tmp/$n-$t.json')); \
print(json.dumps({'network': '$n', 'task': '$t', 'cases': len(d), \
'ms_per_case': sum(x.get('time_ms', 0) for x in d) / len(d), 'process_ms': $wall}))" >> "$out"
    done
    "$python" bench/peers/pyagrum_lazy.py "$net" "/tmp/$n-2000.evid" --budget-s 20 --threads 0 |
        sed "s/^{/{\"network\": \"$n\", /" >> "$out"
done
