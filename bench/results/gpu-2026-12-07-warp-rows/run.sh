#!/usr/bin/env bash
# A warp per row only for ops of fewer than 2^18 rows: this build against 26b112e's (the rule
# before: every op of 32 or more eliminated values a row), alternating on the same card. Markov
# instances: the 2,000 sampled cases of gpu-2026-12-07-markov-batches (bench/uai_markov --devices
# cuda, marginals of the first 20 cases kept per build); networks: 2,000 forward-sampled cases
# (20% observed) through the command line (--route jt --task mar --device cuda, time_ms), pyAgrum's
# LazyPropagation on cores 8-15 meanwhile; then the junction trees' gpu tests.
#   pack: NO_LLVM=1 ONLY="test_cuda_gpu test_junction_tree_gpu test_markov_junction_tree_gpu"
#   EXTRA=uai_markov scripts/pack_gpu.sh .gpu/p; 26b112e's zbddc and bench/uai_markov in
#   .gpu/old.tar.xz; carry .gpu/p, .gpu/old.tar.xz, .gpu/uai-sampled.tar.xz, .whl
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res/ours-old" "$res/ours-new"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
late() { [ "$SECONDS" -gt "${LATE:-430}" ]; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/pyagrum-*.whl > "$res/pip.log" 2>&1
data=$(cat $G/test_data_dir)
uai=$data/uai bn=$data/bn
mkdir -p /tmp/old && tar -C /tmp/old -xJf .gpu/old.tar.xz
tar -C /tmp -xJf .gpu/uai-sampled.tar.xz
ev=/tmp/uai-sampled
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
nets="barley munin1 water mildew"
for n in $nets; do $G/zbddc sample "$bn/$n.bif" --cases 2000 --seed 1 -o /tmp/$n.evid; done
( export PYTHONPATH=/tmp/site
  for n in $nets; do echo $n; done | xargs -P 2 -I{} sh -c "timeout 60 taskset -c 8-15 python3 \
      bench/peers/pyagrum_lazy.py $bn/{}.bif /tmp/{}.evid --budget-s 12 > $res/pyagrum-{}.json \
      2>> $res/pyagrum.err" ) &
peer=$!
for n in Promedus_12 Grids_13 Promedus_20 DBN_12; do
    for b in old new; do
        late && break 2
        exe=$G/bench/uai_markov
        [ $b = old ] && exe=/tmp/old/uai_markov
        timeout 60 taskset -c 0-7 $exe --devices cuda --search-runs 16 --evidence-dir $ev \
            --write-mar "$res/ours-$b" $uai/$n.uai > "$res/$n-$b.txt" 2>&1
        echo "$n $b exit $? at $SECONDS s: $(tail -1 "$res/$n-$b.txt")" >> "$res/summary.txt"
    done
    pack
done
for n in $nets; do
    for round in 0 1 2; do # round 0 compiles each build's kernels
        for b in new old; do
            late && break 3
            exe=$G/zbddc
            [ $b = old ] && exe=/tmp/old/zbddc
            ms=$(timeout 60 taskset -c 0-7 $exe run "$bn/$n.bif" --route jt --task mar \
                --evidence /tmp/$n.evid --device cuda --json 2> "$res/$n-$b-$round.err" |
                python3 -c 'import json,sys; d=json.load(sys.stdin); print([r for r in d if "time_ms" in r][0]["time_ms"])')
            echo -e "$n\t$b\t$round\t$ms" | tee -a "$res/jt_batched.tsv" >> "$res/summary.txt"
        done
    done
    pack
done
wait $peer
for t in test_junction_tree_gpu test_markov_junction_tree_gpu test_cuda_gpu; do
    late && break
    timeout 100 $G/tests/$t > "$res/$t.log" 2>&1
    echo "$t exit $? at $SECONDS s: $(tail -2 "$res/$t.log" | tr '\n' ' ')" >> "$res/summary.txt"
    pack
done
for n in Segmentation_11 Pedigree_12 Segmentation_14 Promedus_30 ObjectDetection_12 DBN_13; do
    LATE=520 late && break
    timeout 45 taskset -c 0-7 $G/bench/uai_markov --devices cuda --search-runs 16 --evidence-dir $ev \
        --write-mar "$res/ours-new" $uai/$n.uai > "$res/$n-new.txt" 2>&1
    echo "$n new exit $? at $SECONDS s: $(tail -1 "$res/$n-new.txt")" >> "$res/summary.txt"
    pack
done
python3 - "$res" >> "$res/summary.txt" <<'PY'
import json, os, sys
res = sys.argv[1]
for f in sorted(os.listdir(res + "/ours-new")):
    old = res + "/ours-old/" + f
    if not os.path.exists(old):
        continue
    a, b = json.load(open(old)), json.load(open(res + "/ours-new/" + f))
    worst = max((abs(x - y) for p, q in zip(a, b) for k in p["marginals"]
                 for x, y in zip(p["marginals"][k], q["marginals"][k])), default=None)
    print(f, "max |old - new| marginal over", min(len(a), len(b)), "cases:", worst)
PY
pack
cat $res/summary.txt $res/pyagrum-*.json
