#!/bin/bash
# From the repository root: bench/results/cpu-2026-11-25-jtcpu/run.sh OUT water:50 mildew:50 pigs:50 munin2:50 barley:20 munin:10
# (pyagrum 3.3.1 importable by python3; the marginals written beside the cases were removed).
# per-case vs batched CPU junction tree (one thread each) and pyAgrum, same cases
out=$1; shift
for spec in "$@"; do
  n=${spec%%:*}; c=${spec##*:}
  build/bench/jt_batch --cases $c --mpe-cases 10 --single 0 --threads 1 --devices cpu,cpu-batched \
     --out $out/cases --json $out/jt_$n.json /work/shared/benchmarks/bn/$n.bif | tail -2
  python3 bench/peers/pyagrum_lazy.py /work/shared/benchmarks/bn/$n.bif $out/cases/$n.evid \
     --ours $out/cases/$n.mar.json --budget-s 30 > $out/pyagrum_$n.json
  cat $out/pyagrum_$n.json
done
