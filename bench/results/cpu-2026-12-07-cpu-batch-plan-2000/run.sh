#!/usr/bin/env bash
# The CPU's batch plan on the networks' workload: 2,000 forward-sampled cases (20% observed,
# `zbddc sample --cases 2000 --seed 1`), MAR through the command line (`--route jt --device cpu
# --json`: time_ms a case; the whole process's wall time per batch), this build against 26b112e's
# (every case alone), alternating, two rounds; then pyAgrum's LazyPropagation on one thread over
# the same cases (bench/peers/pyagrum_lazy.py, up to 20 s a network), on the same machine.
#   OLD=<26b112e's zbddc> NEW=<this build's> bench/results/cpu-2026-12-07-cpu-batch-plan-2000/run.sh
set -u
bn=${BN:-../shared/benchmarks/bn}
here=$(dirname "$0")
for n in alarm sachs hailfinder insurance; do
    $NEW sample $bn/$n.bif --cases 2000 --seed 1 -o /tmp/$n-2000.evid
    for round in 1 2; do
        for b in old new; do
            exe=$OLD; [ $b = new ] && exe=$NEW
            start=$(date +%s.%N)
            $exe run $bn/$n.bif --route jt --task mar --evidence /tmp/$n-2000.evid --device cpu \
                --json > /tmp/$n-$b.json 2> /dev/null
            wall=$(echo "$(date +%s.%N) - $start" | bc)
            python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=[x for x in d if "time_ms" in x][0]; print("%s\t%s\t%s\t%.1f\t%.3f\t%s" % (sys.argv[2], sys.argv[3], sys.argv[4], 1000 * r["time_ms"], float(sys.argv[5]), r["device"]))' \
                /tmp/$n-$b.json $n $b $round $wall
        done
    done
    python3 $here/../../peers/pyagrum_lazy.py $bn/$n.bif /tmp/$n-2000.evid --budget-s 20 > /tmp/$n-peer.json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%s\tpyagrum\t-\t%.1f\t%s cases\t%s" % (sys.argv[2], 1000 * d["per_case_ms"], d["cases"], d["version"]))' /tmp/$n-peer.json $n
done
