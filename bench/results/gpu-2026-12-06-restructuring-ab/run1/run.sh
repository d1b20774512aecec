#!/usr/bin/env bash
# The restructuring's speed check on the GPU machine: the batched junction tree (MAR and MPE,
# 2,000 / 200 cases) and bucket elimination (grid-81, SPOT5 404) of this build against b00d041's
# binaries in the same run, two alternating rounds; then every gpu test, all at once.
#   pack: ONLY="<the gpu tests>" EXTRA="jt_batch wcsp_be wcsp_generate" NO_LLVM=1 \
#         DATA="bn/{alarm,hailfinder,water,pathfinder,mildew,barley}.bif wcsp/404.wcsp" scripts/pack_gpu.sh .gpu
#   old:  .gpu-old/old.tar.xz holding b00d041's bench/jt_batch and bench/wcsp_be
set -u
cd "$(dirname "$0")/../../../.." # the checkout (it ran as bench/runs/NAME.sh)
out=${OUT:?}
SKIP_TESTS=1 LBP_WORKLOADS=none OUT_ARCHIVE=1 OLD_BUILD=$PWD/.gpu-old/old.tar.xz AB_ROUNDS=2 \
    JT_NETWORKS="alarm hailfinder water pathfinder mildew barley" JT_CASES=2000 JT_MPE_CASES=200 \
    JT_CPU_CASES=0 JT_SINGLE=0 JT_DEVICES=cuda JT_PEER_S=0 BE_FAMILIES="grid:81:1.0" BE_WCSP=404 \
    timeout "${AB_S:-300}" .gpu/gpu_run.sh "$out/ab" > "$out/ab.txt" 2>&1
echo "ab exit $?" >> "$out/ab.txt"
TEST_JOBS=13 LBP_WORKLOADS=none OUT_ARCHIVE=1 timeout "${TESTS_S:-230}" .gpu/gpu_run.sh "$out/tests" \
    > "$out/tests.txt" 2>&1
echo "tests exit $?" >> "$out/tests.txt"
