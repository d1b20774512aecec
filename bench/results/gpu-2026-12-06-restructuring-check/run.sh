#!/usr/bin/env bash
# Every gpu test (the LLVM module packed: test_runtime_gpu's host phases load it; it runs alone
# beside the twelve others, three at a time); then, against b00d041's binaries, alternating:
# barley's batched MAR (a prepared program of large ops waiting for each level, 17a0589) two
# rounds, and the MLF route's batched MAR through the command line (the pinned staging rounded up,
# bc25b5e) one round; the KLay circuits' forward and forward+backward with the single-launch
# backward in pieces against 4a1cb1d's; MPE against MAR over the same 2,000 cases on the small
# networks. A step starts only while the run has time left.
#   pack (83de0b6): ONLY="<the 13 gpu tests>" EXTRA="jt_batch circuit_batches" MPI=1
#   DATA="bn/{barley,alarm,insurance,hailfinder}.bif ac/*" scripts/pack_gpu.sh .gpu (mpi.tar.xz
#   removed: b00d041's zbddc needs only libmpi, in libs); b00d041's zbddc and bench/jt_batch in
#   .gpu-old/old.tar.xz, 4a1cb1d's bench/circuit_batches in .gpu-old/circuit_batches.xz
set -u
cd "$(dirname "$0")/../../.." # the checkout (it ran as bench/runs/NAME.sh)
out=${OUT:?}
res=$out/res
mkdir -p "$res"
trap 'tar -C "$out" -cJf "$out/res.tar.xz" res && rm -rf "$res"' EXIT
here=$PWD/.gpu
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 60 .gpu/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
# test_runtime_gpu (about 250 s alone) from the start, the twelve others three at a time beside it.
mkdir -p "$here/solo" && mv "$here/tests/test_runtime_gpu" "$here/solo/"
( timeout 340 "$here/solo/test_runtime_gpu" > "$res/test_runtime_gpu.log" 2>&1
  echo "test_runtime_gpu exit $? at ${SECONDS} s: $(tail -2 "$res/test_runtime_gpu.log" | tr '\n' ' ')" \
      >> "$res/summary.txt" ) &
solo=$!
LBP_WORKLOADS=none TEST_JOBS=3 timeout 330 .gpu/gpu_run.sh "$res/tests" > "$res/tests.txt" 2>&1
echo "gpu_run exit $? at ${SECONDS} s" | tee -a "$res/summary.txt"
cat "$res/tests/summary.txt" >> "$res/summary.txt"
wait $solo
bench=$(cat .gpu/benchmarks_dir)
mkdir -p "$here/old" && tar -C "$here/old" -xJf .gpu-old/old.tar.xz
xz -dc .gpu-old/circuit_batches.xz > "$here/old/circuit_batches" && chmod +x "$here/old/circuit_batches"
# Each benchmark step starts only while the run has time left (its files are packed at exit).
late() { [ "$SECONDS" -gt "${LATE:-480}" ]; }
barley() { # NAME EXE
    late && return
    timeout 60 "$2" --cases 2000 --cpu-cases 0 --mpe-cases 0 --single 0 --devices cuda \
        --out /tmp/jt-b --json "$res/barley-$1.json" "$bench/bn/barley.bif" > "$res/barley-$1.md" 2>&1
    echo "barley $1 exit $? $(grep '| barley' "$res/barley-$1.md" | cut -d'|' -f7)" | tee -a "$res/summary.txt"
}
for round in 1 2; do
    barley new-$round "$here/bench/jt_batch"
    barley old-$round "$here/old/bench/jt_batch"
done
for round in 1; do
    for b in new old; do
        ZBDDC=$here/zbddc
        [ $b = old ] && ZBDDC=$here/old/zbddc
        for n in alarm insurance hailfinder; do
            late && break
            ZBDDC=$ZBDDC MLF_TASKS=mar MLF_B1=0 timeout 40 bash "$here/bench/network_batch.sh" \
                "$res/mlf-$b-$round.jsonl" 2000 cuda "$bench/bn/$n.bif" 2>> "$res/bench.log"
        done
        echo "mlf $b $round done" | tee -a "$res/summary.txt"
    done
done
# The KLay circuits at B = 128, the weights in device memory: this build's single-launch backward
# in pieces against 4a1cb1d's, each with its own empty kernel cache, two alternating rounds.
circuits="$bench/ac/sudoku_4.sdd $bench/ac/4-grid.sdd $bench/ac/road_r.sdd $bench/ac/seq_fun.sdd"
for round in 1 2; do
    for b in new old; do
        late && break
        exe=$here/bench/circuit_batches
        [ $b = old ] && exe=$here/old/circuit_batches
        ZBDDC_CACHE_DIR=/tmp/cache-$b-$round timeout 90 $exe --device cuda --batches 128 \
            --reps 20 --numeric log --kernels single --weights device \
            --json "$res/circuits-$b-$round.json" $circuits > "$res/circuits-$b-$round.txt" 2>&1
        echo "circuits $b $round exit $?" | tee -a "$res/summary.txt"
        grep device "$res/circuits-$b-$round.txt" | tee -a "$res/summary.txt"
    done
done
# MPE against MAR over the same 2,000 cases (MPE's rows have had 200: a batch's fixed cost on
# fewer cases).
for n in alarm insurance hailfinder; do
    late && break
    timeout 60 "$here/bench/jt_batch" --cases 2000 --cpu-cases 0 --mpe-cases 2000 --single 0 \
        --devices cuda --out /tmp/jt-m --json "$res/mpe-$n.json" "$bench/bn/$n.bif" > "$res/mpe-$n.md" 2>&1
    echo "mpe $n exit $? $(grep "| $n" "$res/mpe-$n.md" | cut -d'|' -f7,8)" | tee -a "$res/summary.txt"
done
