#!/usr/bin/env bash
# The tensor gpu tests after the one GPU entry point for one device or several and the shared
# VALUE-phase plan; then the junction tree's batched MAR/MPE and bucket elimination against b00d041
# in the same run (OLD_BUILD). Results under $OUT, packed at the end.
set -u
O=$OUT; G=$(pwd)/.gpu-ten
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $O/gpu.txt 2>&1
TEST_JOBS=6 timeout 200 $G/gpu_run.sh $O/t > $O/tests.log 2>&1
echo "tests exit $?"; grep "^test" $O/t/summary.txt
SKIP_TESTS=1 OLD_BUILD=$G/old-bin.tar.xz AB_ROUNDS=1 JT_NETWORKS="pathfinder alarm water mildew" \
  JT_DEVICES=cuda JT_PEER_S=0 JT_SINGLE=5 BE_FAMILIES="grid:81:1.0" BE_WCSP=404 \
  timeout 150 $G/gpu_run.sh $O/b > $O/bench.log 2>&1
echo "bench exit $?"; grep "exit" $O/b/summary.txt
cat $O/b/jt_batch-*.md 2>/dev/null | grep -v "^$" | head -40
grep -h "GPU cuda" $O/b/wcsp_be-*.txt | cut -c1-200
tar -C $O -cJf $O/runs.tar.xz t b tests.log bench.log && rm -rf $O/t $O/b $O/tests.log $O/bench.log
