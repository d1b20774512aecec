#!/usr/bin/env bash
# The interpreted op types on a GPU, short: the single-launch gpu test (which checks the
# interpreted kernels against the reference and a model that swaps to its compiled module), then
# the four KLay circuits at B = 128 and 1,024 with each kind of op types (auto, interpreted,
# compiled), NVRTC's own cache off and an empty kernel cache (cold compiles), then KLay in the
# same run with its first calls timed (not with SHORT=1). Results are packed after every step.
#   pack: as bench/runs/kernels.sh's .gpu-two; KLay's wheel in .whl
set -u
cd "$(dirname "$0")/../.." # the checkout (it runs as bench/runs/NAME.sh)
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
G=$PWD/.gpu-two
ls -d /tmp/zbddc-libs.* > /dev/null 2>&1 ||
    SKIP_TESTS=1 LBP_WORKLOADS=none timeout 40 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bench=$(cat $G/benchmarks_dir)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/klaycircuits-*.whl > "$res/pip.log" 2>&1
export PYTHONPATH=/tmp/site
echo "setup done at $SECONDS s" >> "$res/summary.txt"
pack
# The interpreted kernels' own cases first, the others (whose models now start interpreted where
# the cache misses) after the circuits.
t=test_cuda_single_launch_gpu
timeout 40 $G/tests/$t "[interpreted]" > "$res/$t-interpreted.log" 2>&1
echo "$t [interpreted] exit $? at $SECONDS s: $(tail -2 "$res/$t-interpreted.log" | tr '\n' ' ')" >> "$res/summary.txt"
pack
circuits="$bench/ac/sudoku_4.sdd $bench/ac/4-grid.sdd $bench/ac/road_r.sdd $bench/ac/seq_fun.sdd"
CUDA_CACHE_DISABLE=1 ZBDDC_CACHE_DIR=/tmp/cache-cold timeout 35 $G/bench/circuit_batches \
    --device cuda --batches 128,1024 --reps 20 --numeric log --kernels single --weights device \
    --types tiered,interpreted,compiled --json "$res/circuits.json" $circuits > "$res/circuits.txt" 2>&1
echo "circuits exit $? at $SECONDS s" >> "$res/summary.txt"
pack
timeout 60 $G/tests/$t "~[interpreted]" > "$res/$t.log" 2>&1
echo "$t the rest exit $? at $SECONDS s: $(tail -2 "$res/$t.log" | tr '\n' ' ')" >> "$res/summary.txt"
pack
[ -n "${SHORT:-}" ] && exit 0 # the run's time is short: KLay another time
timeout 55 python3 bench/peers/klay_peer.py --device cuda --semiring log --batches 128,1024 \
    --reps 20 --json "$res/klay.json" $circuits > "$res/klay.txt" 2> "$res/klay.err"
echo "klay exit $? at $SECONDS s" >> "$res/summary.txt"
pack
