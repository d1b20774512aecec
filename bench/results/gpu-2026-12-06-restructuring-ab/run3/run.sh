#!/usr/bin/env bash
# Barley's batched MAR with a host synchronisation after each level (the variant build's
# ZBDDC_LEVEL_SYNC=1, as b00d041 waited on its streams level by level) against this build and
# b00d041's, two alternating rounds; then test_runtime_gpu alone with the LLVM module.
# Then the MLF route's batched MAR through the command line against b00d041's zbddc.
#   pack: ONLY=test_runtime_gpu EXTRA=jt_batch MPI=1 DATA="bn/{barley,alarm,insurance,hailfinder}.bif"
#   scripts/pack_gpu.sh .gpu (mpi.tar.xz removed: b00d041's zbddc needs only libmpi, in libs)
set -u
cd "$(dirname "$0")/../../../.." # the checkout (it ran as bench/runs/NAME.sh)
out=${OUT:?}
res=$out/res
mkdir -p "$res"
trap 'tar -C "$out" -cJf "$out/res.tar.xz" res && rm -rf "$res"' EXIT
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 60 .gpu/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
here=$PWD/.gpu
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
bn=$(cat .gpu/benchmarks_dir)/bn
mkdir -p "$here/old" && tar -C "$here/old" -xJf .gpu-old/old.tar.xz
barley() { # NAME EXE [ENV...]
    local name=$1 exe=$2
    shift 2
    env "$@" timeout 60 "$exe" --cases 2000 --cpu-cases 0 --mpe-cases 0 --single 0 --devices cuda \
        --out /tmp/jt-b --json "$res/barley-$name.json" "$bn/barley.bif" > "$res/barley-$name.md" 2>&1
    echo "barley $name exit $? $(grep '| barley' "$res/barley-$name.md" | cut -d'|' -f7)" | tee -a "$res/summary.txt"
}
for round in 1 2; do
    barley new-$round "$here/bench/jt_batch"
    barley sync-$round "$PWD/.gpu-var/jt_batch" ZBDDC_LEVEL_SYNC=1
    barley old-$round "$here/old/bench/jt_batch"
done
# The MLF route through the command line with the pinned staging rounded up, against b00d041's zbddc.
for round in 1 2; do
    for b in new old; do
        ZBDDC=$here/zbddc
        [ $b = old ] && ZBDDC=$here/old/zbddc
        for n in alarm hailfinder; do
            ZBDDC=$ZBDDC MLF_TASKS=mar MLF_B1=0 timeout 40 bash "$here/bench/network_batch.sh" \
                "$res/mlf-$b-$round.jsonl" 2000 cuda "$bn/$n.bif" 2>> "$res/bench.log"
        done
        echo "mlf $b $round done" | tee -a "$res/summary.txt"
    done
done
timeout 170 "$here/tests/test_runtime_gpu" > "$res/test_runtime_gpu.log" 2>&1
echo "test_runtime_gpu exit $?" | tee -a "$res/summary.txt"
tail -3 "$res/test_runtime_gpu.log" | tee -a "$res/summary.txt"
