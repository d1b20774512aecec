#!/usr/bin/env bash
# Markov networks, batches of sampled evidence: per UAI instance 2,000 cases drawn by `zbddc sample`
# (Gibbs from the MPE, 20% observed; made on the VM, carried as .gpu/uai-sampled.tar.xz), answered
# by the batched junction tree on the GPU (bench/uai_markov --devices cuda: PR, MAR, MPE, each
# task's first run timed apart); meanwhile pyAgrum's ShaferShenoyMRFInference on cores 8-15 (two
# instances at a time, one thread each) answers the same cases in turn for up to 20 s an instance,
# and compares its first 20 marginals with the GPU's.
#   pack: NO_LLVM=1 ONLY=none EXTRA=uai_markov scripts/pack_gpu.sh .gpu/p; carry .gpu/p,
#   .gpu/uai-sampled.tar.xz and .whl (the pyAgrum wheel)
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res/ours" "$res/peer"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/pyagrum-*.whl > "$res/pip.log" 2>&1
uai=$(cat $G/test_data_dir)/uai
tar -C /tmp -xJf .gpu/uai-sampled.tar.xz
ev=/tmp/uai-sampled
order="Promedus_30 Segmentation_11 Segmentation_14 Pedigree_12 Promedus_12 Promedus_20 Grids_13
ObjectDetection_12 DBN_12 DBN_13 ObjectDetection_20 Grids_16"
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
( export PYTHONPATH=/tmp/site
  for n in $order; do echo $n; done |
      xargs -P 2 -I{} sh -c "timeout 60 taskset -c 8-15 python3 bench/peers/pyagrum_mrf.py $uai/{}.uai \
          --evidence $ev/{}.evid --budget-s 20 --dump $res/peer/{}.json >> $res/pyagrum_mrf.jsonl \
          2>> $res/pyagrum.err || echo '{\"instance\": \"{}.uai\", \"timeout_s\": 60}' >> $res/pyagrum_mrf.jsonl" ) &
peer=$!
for n in $order; do
    [ "$SECONDS" -gt 470 ] && break
    timeout 60 taskset -c 0-7 $G/bench/uai_markov --devices cuda --search-runs 16 \
        --evidence-dir $ev --write-mar "$res/ours" $uai/$n.uai > "$res/$n.txt" 2>&1
    echo "$n exit $? at $SECONDS s: $(tail -1 "$res/$n.txt")" >> "$res/summary.txt"
    pack
done
wait $peer
# The GPU's marginals against pyAgrum's over the cases both answered (at most 20 an instance).
python3 - "$res" >> "$res/summary.txt" <<'PY'
import json, os, sys
res = sys.argv[1]
for f in sorted(os.listdir(res + "/peer")):
    n = f[:-5]
    ours = res + "/ours/" + n + "-cuda.json"
    if not os.path.exists(ours):
        continue
    a, b = json.load(open(res + "/peer/" + f)), json.load(open(ours))
    worst = max((abs(x - y) for p, q in zip(a, b) for k in p["marginals"]
                 for x, y in zip(p["marginals"][k], q["marginals"][k])), default=None)
    print(n, "marginals compared over", min(len(a), len(b)), "cases, max |pyAgrum - GPU|", worst)
PY
pack
cat $res/summary.txt $res/pyagrum_mrf.jsonl
