#!/usr/bin/env bash
# The CPU per-case junction tree deciding its own ties as the MPE tie rule does, against the
# build before (76b5fc0), alternating, three rounds: whole-process wall and CPU time of MPE
# (and MAR beside) over 2,000 sampled cases (20% observed, seed 1), --route jt --device cpu,
# and the assignments of both builds compared case by case.
#   NEW=build/zbddc OLD=/tmp/zbddc-76b5fc0 NETS="pathfinder pigs ..." run.sh OUTDIR
set -u
out=${1:?output folder}
mkdir -p "$out"
bn=${BN:-../shared/benchmarks/bn}
for net in ${NETS:-pathfinder pigs water mildew hailfinder alarm barley}; do
    ev=/tmp/tie-walk-$net.evid
    $NEW sample $bn/$net.bif --cases ${CASES:-2000} --seed 1 -o $ev --quiet
    for round in 1 2 3; do
        for b in new old; do
            exe=$NEW
            [ $b = old ] && exe=$OLD
            for task in mpe mar; do
                [ $task = mar ] && [ $round -gt 1 ] && continue
                /usr/bin/time -f "%e %U %S" -o /tmp/tie-walk.time $exe run $bn/$net.bif --task $task \
                    --route jt --device cpu --evidence $ev --json > $out/$net-$task-$b.json
                echo "$net $task $b $round $(cat /tmp/tie-walk.time)" >> $out/times.txt
            done
        done
    done
    python3 - "$out/$net-mpe-new.json" "$out/$net-mpe-old.json" "$net" >> $out/agree.txt <<'P'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(sys.argv[3], len(a), "cases,", sum(x.get("assignment") != y.get("assignment") for x, y in zip(a, b)),
      "assignments differ,", sum(x.get("log10") != y.get("log10") for x, y in zip(a, b)), "values differ")
P
    rm -f $out/$net-*.json
done
