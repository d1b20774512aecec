#!/usr/bin/env bash
# The CPU's circuit walks reporting ties (the MLF route's MPE: only tied cases go to the tie rule)
# against the build before (cc89770), alternating, three rounds: whole-process wall seconds of
# MPE and MAR over 2,000 sampled cases (20% observed, seed 1), --device cpu, the route auto takes
# and the MLF forced, and every case's MPE assignment of both builds compared.
#   NEW=build/zbddc OLD=/tmp/zbddc-cc89770 NETS="water ..." run.sh OUTDIR
set -u
out=${1:?output folder}
mkdir -p "$out"
bn=${BN:-../shared/benchmarks/bn}
for net in ${NETS:-water insurance alarm hailfinder asia sachs}; do
    [ -f $bn/$net.bif ] || continue
    ev=/tmp/mlf-ties-$net.evid
    $NEW sample $bn/$net.bif --cases ${CASES:-2000} --seed 1 -o $ev --quiet
    for round in 1 2 3; do
        for b in new old; do
            exe=$NEW
            [ $b = old ] && exe=$OLD
            for run in "mpe auto" "mpe mlf" "mar auto"; do
                set -- $run
                /usr/bin/time -f "%e" -o /tmp/mlf-ties.time $exe run $bn/$net.bif --task $1 --route $2 \
                    --device cpu --evidence $ev --json > $out/$net-$1-$2-$b.json 2> /dev/null
                route=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['route'])" \
                    $out/$net-$1-$2-$b.json 2> /dev/null)
                echo "$net $1 $2 $b $round $(cat /tmp/mlf-ties.time) $route" >> $out/times.txt
            done
        done
    done
    python3 - "$out" "$net" >> $out/agree.txt <<'P'
import json, sys
out, net = sys.argv[1:3]
for route in ("auto", "mlf"):
    a, b = (json.load(open(f"{out}/{net}-mpe-{route}-{x}.json")) for x in ("new", "old"))
    print(net, route, len(a), "cases,", sum(x.get("assignment") != y.get("assignment") for x, y in zip(a, b)),
          "assignments differ,", sum(x.get("log10") != y.get("log10") for x, y in zip(a, b)), "values differ")
P
    rm -f $out/$net-*.json
done
