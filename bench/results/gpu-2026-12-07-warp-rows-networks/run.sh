#!/usr/bin/env bash
# The warp-per-row rule on every benchmark network: 2,000 forward-sampled cases (20% observed),
# MAR through the command line (--route jt --device cuda, time_ms a case), this build against
# 26b112e's alternating (round 0 compiles), pyAgrum's LazyPropagation on cores 8-15 meanwhile
# (two networks at a time, 8 s each); then DBN_12's batch of sampled cases profiled op by op in
# both builds (its MAR was 1.31x slower in gpu-2026-12-07-warp-rows).
#   pack and carry as gpu-2026-12-07-warp-rows/run.sh says
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res/peer"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
late() { [ "$SECONDS" -gt "${LATE:-420}" ]; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/pyagrum-*.whl > /dev/null 2>&1
data=$(cat $G/test_data_dir)
uai=$data/uai bn=$data/bn
mkdir -p /tmp/old && tar -C /tmp/old -xJf .gpu/old.tar.xz
tar -C /tmp -xJf .gpu/uai-sampled.tar.xz
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
nets="alarm asia cancer earthquake sachs survey insurance child hailfinder water mildew barley
pathfinder hepar2 win95pts andes pigs diabetes link munin munin1 munin2 munin3 munin4"
have=""
for n in $nets; do [ -f $bn/$n.bif ] && have="$have $n"; done
for n in $have; do $G/zbddc sample "$bn/$n.bif" --cases 2000 --seed 1 -o /tmp/$n.evid; done
( export PYTHONPATH=/tmp/site
  for n in $have; do echo $n; done | xargs -P 2 -I{} sh -c "timeout 40 taskset -c 8-15 python3 \
      bench/peers/pyagrum_lazy.py $bn/{}.bif /tmp/{}.evid --budget-s 8 > $res/peer/{}.json \
      2>> $res/pyagrum.err" ) &
peer=$!
for n in $have; do
    for round in 0 1; do
        for b in new old; do
            late && break 3
            exe=$G/zbddc
            [ $b = old ] && exe=/tmp/old/zbddc
            ms=$(timeout 40 taskset -c 0-7 $exe run "$bn/$n.bif" --route jt --task mar \
                --evidence /tmp/$n.evid --device cuda --json 2> /dev/null |
                python3 -c 'import json,sys; d=json.load(sys.stdin); print([r for r in d if "time_ms" in r][0]["time_ms"])')
            echo -e "$n\t$b\t$round\t$ms" >> "$res/jt_batched.tsv"
        done
    done
    pack
done
echo "networks done at $SECONDS s" >> "$res/summary.txt"
for b in new old; do
    LATE=500 late && break
    exe=$G/bench/uai_markov
    [ $b = old ] && exe=/tmp/old/uai_markov
    ZBDDC_GPU_PROFILE=$res/DBN_12-$b.profile timeout 80 taskset -c 0-7 $exe --devices cuda \
        --search-runs 16 --evidence-dir /tmp/uai-sampled $uai/DBN_12.uai > "$res/DBN_12-$b.txt" 2>&1
    echo "DBN_12 $b profiled exit $? at $SECONDS s" >> "$res/summary.txt"
    pack
done
wait $peer
pack
cat $res/summary.txt $res/jt_batched.tsv
