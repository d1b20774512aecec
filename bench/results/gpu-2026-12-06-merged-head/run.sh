#!/usr/bin/env bash
# GPU run of 2026-12-06 (merged head): the gpu tests the merges touched, zbddc.Circuit on CUDA
# tensors, circuits beside KLay, the batched junction tree and bucket elimination against b00d041
# (two alternating rounds), and the prepared program's graph rule forced each way.
set -u
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
out=${OUT:?}
TEST_JOBS=4 CIRCUIT_BATCHES="sudoku_4 4-grid road_r seq_fun" CIRCUIT_NUMERICS=log \
    CIRCUIT_SIZES=1,128,1024 CIRCUIT_REPS=20 CIRCUIT_KERNELS=single CIRCUIT_WEIGHTS=host,device \
    OLD_BUILD=$PWD/.gpu-old/old.tar.xz AB_ROUNDS=2 \
    JT_NETWORKS="alarm pathfinder mildew water" JT_CASES=2000 JT_MPE_CASES=200 \
    JT_SINGLE=0 JT_DEVICES=cuda JT_PEER_S=0 BE_FAMILIES="grid:81:1.0" BE_WCSP=404 \
    timeout 235 .gpu/gpu_run.sh "$out/run1" > "$out/gpu_run.txt" 2>&1
echo "gpu_run exit $?" >> "$out/gpu_run.txt"
# The graph rule forced each way (unset: mildew and water launch directly, pathfinder replays).
here=$PWD/.gpu
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
bn=$(cat .gpu/benchmarks_dir)/bn
for g in 1 0; do
    ZBDDC_GPU_GRAPH=$g timeout 25 "$here/bench/jt_batch" --cases 2000 --cpu-cases 0 \
        --mpe-cases 100 --single 0 --devices cuda --out /tmp/jt-g --json "$out/graph-$g.json" \
        "$bn/mildew.bif" "$bn/pathfinder.bif" > "$out/graph-$g.md" 2>&1
    echo "graph $g exit $?" >> "$out/gpu_run.txt"
done
