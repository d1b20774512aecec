#!/usr/bin/env bash
# The one-case GPU junction tree on Markov networks: the junction trees' gpu tests first, then the
# build before the scales' split and the one-copy evidence and read-back (5d12e03's uai_markov,
# .gpu-two/old) against this one, alternating, warm PR/MAR/MPE per instance; then where one MAR
# goes, each op alone (ZBDDC_GPU_PROFILE), on ObjectDetection_20 and Promedus_30.
#   pack: NO_LLVM=1 ONLY="test_cuda_single_launch_gpu test_cuda_gpu test_markov_junction_tree_gpu
#   test_junction_tree_gpu test_wcsp_gpu" EXTRA="uai_markov circuit_batches" DATA="<absolute paths:
#   uai/ of the twelve instances below and Promedus_20 Segmentation_11 DBN_12 (.uai, .MAR, .evid),
#   uai/pr-reference.tsv, ac/*.sdd ac/*.vtree, bn/ alarm insurance hailfinder barley water munin1
#   mildew pathfinder .bif>" scripts/pack_gpu.sh .gpu-two; then .gpu-two/old/uai_markov_old.xz
#   (5d12e03's bench/uai_markov, xz). The script tests as it goes: LATE (s) stops new steps.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
G=$PWD/.gpu-two
ls -d /tmp/zbddc-libs.* > /dev/null 2>&1 ||
    SKIP_TESTS=1 LBP_WORKLOADS=none timeout 40 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
uai=$(cat $G/benchmarks_dir)/uai
[ -x /tmp/uai_markov_old ] || { xz -dc $G/old/uai_markov_old.xz > /tmp/uai_markov_old && chmod +x /tmp/uai_markov_old; }
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
late() { [ "$SECONDS" -gt "${LATE:-300}" ]; }
gpuTest() {
    timeout $2 $G/tests/$1 > "$res/$1.log" 2>&1
    echo "$1 exit $? at $SECONDS s: $(tail -2 "$res/$1.log" | tr '\n' ' ')" >> "$res/summary.txt"
    pack
}
compare() { # old and new, alternating, per instance
    for n in "$@"; do
        for b in old new; do
            late && return
            exe=$G/bench/uai_markov
            [ $b = old ] && exe=/tmp/uai_markov_old
            timeout 60 $exe --devices cuda --repeat 3 --search-runs 16 $uai/$n.uai > "$res/$n-$b.txt" 2>&1
            echo "$n $b exit $? at $SECONDS s: $(tail -1 "$res/$n-$b.txt")" >> "$res/summary.txt"
        done
        pack
    done
}
timeout 30 $G/tests/test_wcsp_gpu "a prepared GPU program run again with new inputs*" \
    > "$res/test_wcsp_gpu-prepared.log" 2>&1
echo "test_wcsp_gpu prepared exit $? at $SECONDS s: $(tail -2 "$res/test_wcsp_gpu-prepared.log" | tr '\n' ' ')" >> "$res/summary.txt"
gpuTest test_markov_junction_tree_gpu 80
compare Promedus_30 ObjectDetection_20 DBN_13 Grids_16
for n in Promedus_30 ObjectDetection_20; do
    late && break
    ZBDDC_GPU_PROFILE=$res/$n.profile timeout 60 $G/bench/uai_markov --devices cuda --repeat 1 \
        --search-runs 16 $uai/$n.uai > "$res/$n-profiled.txt" 2>&1
    echo "$n profile exit $? at $SECONDS s" >> "$res/summary.txt"
    pack
done
late || gpuTest test_junction_tree_gpu 40
compare ObjectDetection_12 Grids_13 Promedus_12 Segmentation_14 Pedigree_12
