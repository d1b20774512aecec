#!/usr/bin/env bash
# The warp-per-row rule on one case: each Markov instance's own evidence, warm PR/MAR/MPE (best of
# 3, bench/uai_markov --devices cuda), this build against 26b112e's alternating; SPOT5 404 and
# two small .wcsp files by bucket elimination through the command line (--device cuda); then
# the smallest networks' 2,000-case MAR batches (a case's share of the batch's host work: rows by
# strides, no assignment per case) against 26b112e's, pyAgrum on cores 8-15 meanwhile.
#   pack: NO_LLVM=1 ONLY="test_junction_tree_gpu test_markov_junction_tree_gpu" EXTRA=uai_markov
#   scripts/pack_gpu.sh .gpu/p; carry .gpu/p, .gpu/old.tar.xz (26b112e's zbddc and uai_markov), .whl
# LATE=0 skips the Markov instances and the .wcsp files; TESTS names the gpu tests to run.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
late() { [ "$SECONDS" -gt "${LATE:-280}" ]; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
data=$(cat $G/test_data_dir)
mkdir -p /tmp/old && tar -C /tmp/old -xJf .gpu/old.tar.xz
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
for t in ${TESTS-test_junction_tree_gpu test_markov_junction_tree_gpu}; do
    timeout 100 $G/tests/$t > "$res/$t.log" 2>&1
    echo "$t exit $? at $SECONDS s: $(tail -2 "$res/$t.log" | tr '\n' ' ')" >> "$res/summary.txt"
done
for n in Promedus_30 Segmentation_14 Grids_13 ObjectDetection_12 Promedus_12 DBN_12 Grids_16 \
         ObjectDetection_20 DBN_13; do
    for b in new old; do
        late && break 2
        exe=$G/bench/uai_markov
        [ $b = old ] && exe=/tmp/old/uai_markov
        timeout 40 $exe --devices cuda --repeat 3 --search-runs 16 $data/uai/$n.uai \
            > "$res/$n-$b.txt" 2>&1
        echo "$n $b exit $? at $SECONDS s: $(tail -1 "$res/$n-$b.txt")" >> "$res/summary.txt"
    done
    pack
done
for w in 404 warehouse zebra; do
    late && break
    for b in new old new old; do
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old/zbddc
        ms=$(timeout 30 $exe run $data/wcsp/$w.wcsp --device cuda --json 2> /dev/null |
            python3 -c 'import json,sys; d=json.load(sys.stdin); d=d if isinstance(d,dict) else d[0]; print(d.get("time_ms"), d.get("cost"))')
        echo -e "$w\t$b\t$ms" >> "$res/summary.txt"
    done
done
pack
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/pyagrum-*.whl > /dev/null 2>&1
bn=$data/bn nets="asia cancer earthquake survey sachs alarm barley"
for n in $nets; do $G/zbddc sample "$bn/$n.bif" --cases 2000 --seed 1 -o /tmp/$n.evid; done
mkdir -p "$res/peer"
( export PYTHONPATH=/tmp/site
  for n in $nets; do echo $n; done | xargs -P 2 -I{} sh -c "timeout 30 taskset -c 8-15 python3 \
      bench/peers/pyagrum_lazy.py $bn/{}.bif /tmp/{}.evid --budget-s 5 > $res/peer/{}.json \
      2>> $res/pyagrum.err" ) &
peer=$!
for n in $nets; do
    for round in 0 1 2; do
        for b in new old; do
            exe=$G/zbddc
            [ $b = old ] && exe=/tmp/old/zbddc
            ms=$(timeout 30 taskset -c 0-7 $exe run "$bn/$n.bif" --route jt --task mar \
                --evidence /tmp/$n.evid --device cuda --json 2> /dev/null |
                python3 -c 'import json,sys; d=json.load(sys.stdin); print([r for r in d if "time_ms" in r][0]["time_ms"])')
            echo -e "$n\t$b\t$round\t$ms" >> "$res/jt_batched.tsv"
        done
    done
done
wait $peer
pack
cat $res/summary.txt $res/jt_batched.tsv
