#!/usr/bin/env bash
# The CPU's batch plan (b041997: full tables where they cost less per case) against 26b112e
# (always per case), alternating, three rounds; MAR over 200 sampled cases (networks: `zbddc
# sample --cases 200 --seed 1`; Markov instances: the first 200 of gpu-2026-12-07-markov-batches'
# Gibbs-sampled cases), `zbddc run ... --route jt --task mar --device cpu --json`, time_ms a case.
#   OLD=<26b112e's zbddc> NEW=<b041997's> bench/results/cpu-2026-12-07-cpu-batch-plan/run.sh
set -u
bn=${BN:-../shared/benchmarks/bn} uai=${UAI:-../shared/benchmarks/uai} ev=${EV:-.gpu/uai-sampled}
for n in alarm sachs hailfinder insurance water Promedus_30 Segmentation_11; do
    if [ -f $bn/$n.bif ]; then
        model=$bn/$n.bif; $NEW sample $model --cases 200 --seed 1 -o /tmp/$n-200.evid
    else
        model=$uai/$n.uai; head -201 $ev/$n.evid | sed '1s/.*/200/' > /tmp/$n-200.evid
    fi
    for round in 1 2 3; do
        for b in old new; do
            exe=$OLD; [ $b = new ] && exe=$NEW
            $exe run $model --route jt --task mar --evidence /tmp/$n-200.evid --device cpu --json \
                2> /dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); r=[x for x in d if "time_ms" in x][0]; print("'$n'\t'$b'\t'$round'\t%.1f\t%s" % (1000 * r["time_ms"], r["device"]))'
        done
    done
done
