#!/usr/bin/env bash
# The single-launch module alone (its pass kernels only, the inputs' backward step in pieces as
# one more level, NVRTC on all host threads) against ef58a4e's build: the four KLay circuits at
# B = 128, forward and forward+backward, the weights in device memory, each build with its own
# empty kernel cache (the compile time is cold); then the single-launch gpu test and the circuit
# gpu test, as far as the run's time goes.
#   pack: as bench/runs/kernels41.sh (.gpu-two, with ef58a4e's circuit_batches in .gpu-two/old)
set -u
cd "$(dirname "$0")/../../.." # the checkout (it ran as bench/runs/NAME.sh)
out=${OUT:?}
res=$out/res
mkdir -p "$res"
# Packed after each step too: a run cut at its limit may not reach the trap.
pack() { tar -C "$out" -cJf "$out/res.tar.xz.part" res && mv "$out/res.tar.xz.part" "$out/res.tar.xz"; }
trap 'pack && rm -rf "$res"' EXIT
G=$PWD/.gpu-two
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 60 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bench=$(cat $G/benchmarks_dir)
[ -f $G/old/circuit_batches.xz ] && xz -d $G/old/circuit_batches.xz && chmod +x $G/old/circuit_batches
circuits="$bench/ac/sudoku_4.sdd $bench/ac/4-grid.sdd $bench/ac/road_r.sdd $bench/ac/seq_fun.sdd"
for b in new old; do
    exe=$G/bench/circuit_batches
    [ $b = old ] && exe=$G/old/circuit_batches
    ZBDDC_CACHE_DIR=/tmp/cache-$b timeout 60 $exe --device cuda --batches 128 --reps 20 \
        --numeric log --kernels single --weights device \
        --json "$res/circuits-$b.json" $circuits > "$res/circuits-$b.txt" 2>&1
    echo "circuits $b exit $? at ${SECONDS} s" | tee -a "$res/summary.txt"
    grep device "$res/circuits-$b.txt" | tee -a "$res/summary.txt"
    pack
done
ls -la /tmp/cache-new /tmp/cache-old > "$res/cache-ls.txt" 2>&1
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
( timeout 200 $G/tests/test_cuda_gpu > "$res/test_cuda_gpu.log" 2>&1
  echo "test_cuda_gpu exit $? at ${SECONDS} s: $(tail -2 "$res/test_cuda_gpu.log" | tr '\n' ' ')" >> "$res/summary.txt" ) &
timeout 200 $G/tests/test_cuda_single_launch_gpu > "$res/test_cuda_single_launch_gpu.log" 2>&1
echo "test_cuda_single_launch_gpu exit $? at ${SECONDS} s: $(tail -2 "$res/test_cuda_single_launch_gpu.log" | tr '\n' ' ')" | tee -a "$res/summary.txt"
pack
wait
cat "$res/summary.txt"
