#!/usr/bin/env bash
# Second half of the restructuring's speed check: barley's batched MAR (slower than b00d041's in
# the first half) taken apart, the MLF route through the command line against b00d041's zbddc,
# circuits beside KLay with the weights on the device, and test_runtime_gpu with the LLVM module.
#   pack: ONLY=test_runtime_gpu EXTRA="jt_batch circuit_batches" DATA="bn/... ac/..." scripts/pack_gpu.sh .gpu
#   .gpu-old/old.tar.xz: b00d041's zbddc, bench/jt_batch, bench/wcsp_be; .gpu-var/jt_batch: this
#   build with each level's ops in program order (not most work first)
set -u
cd "$(dirname "$0")/../../../.." # the checkout (it ran as bench/runs/NAME.sh)
out=${OUT:?}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site
# 1. barley, 2,000 cases, MAR: this build (graph rule, forced graph), the program-order variant, b00d041.
SKIP_TESTS=1 LBP_WORKLOADS=none OUT_ARCHIVE=0 timeout 60 .gpu/gpu_run.sh "$out/setup" > "$out/setup.txt" 2>&1
here=$PWD/.gpu
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
bn=$(cat .gpu/benchmarks_dir)/bn
mkdir -p "$here/old" && tar -C "$here/old" -xJf .gpu-old/old.tar.xz
barley() { # NAME EXE [ENV...]
    local name=$1 exe=$2
    shift 2
    env "$@" timeout 60 "$exe" --cases 2000 --cpu-cases 0 --mpe-cases 0 --single 0 --devices cuda \
        --out /tmp/jt-b --json "$out/barley-$name.json" "$bn/barley.bif" > "$out/barley-$name.md" 2>&1
    echo "barley $name exit $?" >> "$out/summary.txt"
}
for round in 1 2; do
    barley new-$round "$here/bench/jt_batch"
    barley graph-$round "$here/bench/jt_batch" ZBDDC_GPU_GRAPH=1
    barley order-$round "$PWD/.gpu-var/jt_batch"
    barley old-$round "$here/old/bench/jt_batch"
done
for b in new old; do
    exe=$here/bench/jt_batch
    [ $b = old ] && exe=$here/old/bench/jt_batch
    rm -f /tmp/profile-$b.tsv
    ZBDDC_GPU_PROFILE=/tmp/profile-$b.tsv timeout 60 "$exe" --devices cuda --cases 400 --cpu-cases 0 \
        --mpe-cases 0 --single 0 --out /tmp/jt-p "$bn/barley.bif" > /dev/null 2>&1
    echo "profile $b exit $?" >> "$out/summary.txt"
    awk -F'\t' '{ms += $6; n++} END {printf "%s: %d ops %.1f ms\n", FILENAME, n, ms}' /tmp/profile-$b.tsv >> "$out/summary.txt"
    cp /tmp/profile-$b.tsv "$out/"
done
# 2. The MLF route against b00d041's zbddc (two alternating rounds), circuits beside KLay, the test.
SKIP_TESTS=1 LBP_WORKLOADS=none OUT_ARCHIVE=1 OLD_BUILD=$PWD/.gpu-old/old.tar.xz AB_ROUNDS=2 \
    MLF_GPU_NETWORKS="alarm insurance hailfinder water pathfinder" MLF_TASKS=mar MLF_CASES=2000 \
    CIRCUIT_BATCHES="sudoku_4 4-grid road_r seq_fun" CIRCUIT_NUMERICS=log CIRCUIT_SIZES=1,128,1024 \
    CIRCUIT_REPS=20 CIRCUIT_KERNELS=single CIRCUIT_WEIGHTS=device \
    timeout 300 .gpu/gpu_run.sh "$out/ab2" > "$out/ab2.txt" 2>&1
echo "ab2 exit $?" >> "$out/summary.txt"
timeout 150 "$here/tests/test_runtime_gpu" > "$out/test_runtime_gpu.log" 2>&1
echo "test_runtime_gpu exit $?" >> "$out/summary.txt"
tail -3 "$out/test_runtime_gpu.log" >> "$out/summary.txt"
