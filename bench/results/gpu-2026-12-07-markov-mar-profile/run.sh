#!/usr/bin/env bash
# Where a batch's MAR goes on the GPU: the 2,000 sampled cases of gpu-2026-12-07-markov-batches
# (same evidence files) on Grids_13 and Promedus_12, every op of each task's runs timed alone
# (ZBDDC_GPU_PROFILE); Grids_16 over the first 200 of its cases (2,000 passed 60 s there); then
# test_runtime_gpu's two weight-batch cases with the LLVM module packed.
#   pack: ONLY=test_runtime_gpu EXTRA=uai_markov scripts/pack_gpu.sh .gpu/p; carry .gpu/p and
#   .gpu/uai-sampled.tar.xz
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
uai=$(cat $G/test_data_dir)/uai
tar -C /tmp -xJf .gpu/uai-sampled.tar.xz
ev=/tmp/uai-sampled
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
for n in Grids_13 Promedus_12; do
    timeout 60 $G/bench/uai_markov --devices cuda --search-runs 16 --evidence-dir $ev \
        $uai/$n.uai > "$res/$n.txt" 2>&1
    echo "$n exit $? at $SECONDS s: $(tail -1 "$res/$n.txt")" >> "$res/summary.txt"
    ZBDDC_GPU_PROFILE=$res/$n.profile timeout 90 $G/bench/uai_markov --devices cuda \
        --search-runs 16 --evidence-dir $ev $uai/$n.uai > "$res/$n-profiled.txt" 2>&1
    echo "$n profiled exit $? at $SECONDS s" >> "$res/summary.txt"
    pack
done
timeout 90 $G/bench/uai_markov --devices cuda --search-runs 16 --evidence-dir $ev --cases 200 \
    $uai/Grids_16.uai > "$res/Grids_16-200.txt" 2>&1
echo "Grids_16 200 cases exit $? at $SECONDS s: $(tail -1 "$res/Grids_16-200.txt")" >> "$res/summary.txt"
pack
timeout 150 $G/tests/test_runtime_gpu "weight*" > "$res/test_runtime_gpu-weights.log" 2>&1
echo "test_runtime_gpu weight cases exit $? at $SECONDS s: $(tail -2 "$res/test_runtime_gpu-weights.log" | tr '\n' ' ')" >> "$res/summary.txt"
pack
cat $res/summary.txt
