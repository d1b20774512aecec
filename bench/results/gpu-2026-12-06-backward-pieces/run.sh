#!/usr/bin/env bash
# The single-launch backward in pieces (9cf246c) on a GPU: test_cuda_single_launch_gpu (single-
# launch against the reference and the level kernels, 1e-12) and test_cuda_gpu, then the KLay
# circuits at B = 128 (weights in device memory, forward and forward+backward) against 4a1cb1d's
# circuit_batches, each with its own empty kernel cache, alternating. It ran as
# bench/runs/pieces.sh with LATE=140 (the steps that start after 140 s are skipped).
#   pack: ONLY="<the 13 gpu tests>" EXTRA="jt_batch circuit_batches" MPI=1
#   DATA="bn/{barley,alarm,insurance,hailfinder}.bif ac/*" scripts/pack_gpu.sh .gpu;
#   4a1cb1d's bench/circuit_batches in .gpu-old/circuit_batches.xz
set -u
cd "$(dirname "$0")/../.." # the checkout (it ran as bench/runs/pieces.sh)
out=${OUT:?}
res=$out/res
mkdir -p "$res"
trap 'tar -C "$out" -cJf "$out/res.tar.xz" res && rm -rf "$res"' EXIT
here=$PWD/.gpu
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 60 .gpu/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bench=$(cat .gpu/benchmarks_dir)
mkdir -p "$here/old"
xz -dc .gpu-old/circuit_batches.xz > "$here/old/circuit_batches" && chmod +x "$here/old/circuit_batches"
ZBDDC_CACHE_DIR=/tmp/cache-test timeout 120 "$here/tests/test_cuda_single_launch_gpu" > "$res/single.log" 2>&1
echo "test_cuda_single_launch_gpu exit $? at ${SECONDS} s: $(tail -2 "$res/single.log" | tr '\n' ' ')" | tee -a "$res/summary.txt"
circuits="$bench/ac/sudoku_4.sdd $bench/ac/4-grid.sdd $bench/ac/road_r.sdd $bench/ac/seq_fun.sdd"
for round in 1 2; do
    for b in new old; do
        [ "$SECONDS" -gt "${LATE:-200}" ] && break
        exe=$here/bench/circuit_batches
        [ $b = old ] && exe=$here/old/circuit_batches
        ZBDDC_CACHE_DIR=/tmp/cache-$b-$round timeout 90 $exe --device cuda --batches 128 \
            --reps 20 --numeric log --kernels single --weights device \
            --json "$res/circuits-$b-$round.json" $circuits > "$res/circuits-$b-$round.txt" 2>&1
        echo "circuits $b $round exit $? at ${SECONDS} s" | tee -a "$res/summary.txt"
        grep device "$res/circuits-$b-$round.txt" | tee -a "$res/summary.txt"
    done
done
[ "$SECONDS" -gt "${LATE:-200}" ] || {
    ZBDDC_CACHE_DIR=/tmp/cache-test timeout 120 "$here/tests/test_cuda_gpu" > "$res/cuda.log" 2>&1
    echo "test_cuda_gpu exit $? at ${SECONDS} s: $(tail -2 "$res/cuda.log" | tr '\n' ' ')" | tee -a "$res/summary.txt"
}
