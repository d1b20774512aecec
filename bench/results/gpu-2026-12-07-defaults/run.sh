#!/usr/bin/env bash
# One GPU run at this build's defaults (a circuit's kernels interpreted until its compiled module
# is ready): every gpu test; the Markov instances not rerun since the scales' split (cuda), with
# pyAgrum on cores 12-15 meanwhile; then the circuits (default op types, cold caches) beside KLay;
# last the CPU per-case route on all 16 cores over the published instances.
#   pack: EXTRA="uai_markov circuit_batches" DATA="<uai: Promedus_20 Segmentation_11 DBN_12
#   Promedus_12 Promedus_30 Pedigree_12 Segmentation_14 Grids_13 ObjectDetection_12 (.uai, .MAR,
#   .evid), pr-reference.tsv, ac/*.sdd ac/*.vtree>" scripts/pack_gpu.sh .gpu-three; wheels in .whl
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
G=$PWD/.gpu-three
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/pyagrum-*.whl .whl/klaycircuits-*.whl > "$res/pip.log" 2>&1
bench=$(cat $G/benchmarks_dir)
uai=$bench/uai
echo "setup done at $SECONDS s" >> "$res/summary.txt"
( export PYTHONPATH=/tmp/site
  for f in Promedus_20 Segmentation_11 DBN_12 Pedigree_12 Segmentation_14 ObjectDetection_12; do echo $f; done |
      xargs -P 4 -I{} sh -c "timeout 100 taskset -c 12-15 python3 bench/peers/pyagrum_mrf.py $uai/{}.uai >> $res/pyagrum_mrf.jsonl 2>> $res/pyagrum.err" ) &
peer=$!
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
for t in $G/tests/*; do
    [ "$SECONDS" -gt 330 ] && break
    n=$(basename $t)
    s=$SECONDS
    timeout 150 taskset -c 0-11 $t > "$res/$n.log" 2>&1
    echo "$n exit $? in $((SECONDS - s)) s: $(tail -2 "$res/$n.log" | tr '\n' ' ')" >> "$res/summary.txt"
    pack
done
for n in Promedus_20 Segmentation_11 DBN_12; do
    timeout 40 taskset -c 0-11 $G/bench/uai_markov --devices cuda --repeat 3 --search-runs 16 \
        $uai/$n.uai > "$res/$n-cuda.txt" 2>&1
    echo "$n cuda exit $? at $SECONDS s: $(tail -1 "$res/$n-cuda.txt")" >> "$res/summary.txt"
done
pack
circuits="$bench/ac/sudoku_4.sdd $bench/ac/4-grid.sdd $bench/ac/road_r.sdd $bench/ac/seq_fun.sdd"
CUDA_CACHE_DISABLE=1 ZBDDC_CACHE_DIR=/tmp/cache-cold timeout 40 taskset -c 0-11 $G/bench/circuit_batches \
    --device cuda --batches 128,1024 --reps 20 --numeric log --kernels single --weights device \
    --json "$res/circuits.json" $circuits > "$res/circuits.txt" 2>&1
echo "circuits exit $? at $SECONDS s" >> "$res/summary.txt"
PYTHONPATH=/tmp/site timeout 70 taskset -c 0-11 python3 bench/peers/klay_peer.py --device cuda \
    --semiring log --batches 128,1024 --reps 20 --json "$res/klay.json" $circuits \
    > "$res/klay.txt" 2> "$res/klay.err"
echo "klay exit $? at $SECONDS s" >> "$res/summary.txt"
pack
wait $peer
for n in Promedus_12 Promedus_20 Promedus_30 Pedigree_12 Segmentation_11 Segmentation_14 Grids_13; do
    [ "$SECONDS" -gt 540 ] && break
    timeout 30 $G/bench/uai_markov --devices cpu --repeat 3 --search-runs 16 $uai/$n.uai \
        > "$res/$n-cpu.txt" 2>&1
    echo "$n cpu exit $? at $SECONDS s: $(tail -1 "$res/$n-cpu.txt")" >> "$res/summary.txt"
done
pack
cat $res/summary.txt $res/pyagrum_mrf.jsonl
