#!/usr/bin/env bash
# The MLF route's batched MAR through the command line against b00d041 (the build before the
# restructuring), alternating, three rounds, its level kernels 6f59916's again (9325411); then
# MPE against MAR over the same 2,000 cases on the GPU (the batched junction tree, the benchmark
# networks smallest first, while the run has time).
#   pack: MPI=1 ONLY=none EXTRA="jt_batch wcsp_be" (wcsp_be unused here) scripts/pack_gpu.sh .gpu/p, then
#   rm .gpu/p/mpi.tar.xz (b00d041's zbddc links libmpi, which the libraries then hold);
#   .gpu/b2/old.tar.xz: b00d041's zbddc, bench/jt_batch and bench/wcsp_be
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
trap 'pack; rm -rf "$res"' EXIT
late() { [ "$SECONDS" -gt "${LATE:-200}" ]; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
data=$(cat $G/test_data_dir)
bn=$data/bn
mkdir -p /tmp/old && tar -C /tmp/old -xJf .gpu/b2/old.tar.xz
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
for round in 1 2 3; do
    for b in new old; do
        late && break 2
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old/zbddc
        ZBDDC=$exe MLF_TASKS=mar MLF_B1=0 timeout 60 bash bench/network_batch.sh \
            "$res/mlf-$b-$round.jsonl" 2000 cuda $bn/alarm.bif $bn/insurance.bif \
            $bn/hailfinder.bif $bn/water.bif $bn/pathfinder.bif 2>> "$res/bench.log"
        echo "mlf $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
done
pack
for n in asia cancer earthquake sachs survey alarm insurance hailfinder water pathfinder mildew \
         pigs diabetes barley munin munin2 munin3 munin4 munin1; do
    late && break
    timeout 60 $G/bench/jt_batch --cases 2000 --cpu-cases 0 --mpe-cases 2000 --single 0 \
        --devices cuda --out /tmp/jt --json "$res/jt-$n.json" $bn/$n.bif > "$res/jt-$n.md" 2>&1
    echo "jt $n exit $? at $SECONDS s: $(grep "| $n" "$res/jt-$n.md" | head -1)" >> "$res/summary.txt"
done
echo "end at $SECONDS s" >> "$res/summary.txt"
