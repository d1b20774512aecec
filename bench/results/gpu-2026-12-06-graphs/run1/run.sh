#!/usr/bin/env bash
# On 0aa0b15: test_multi_gpu and test_wcsp_gpu (they crashed before the prepared run's program
# became a function); mildew's batched MAR against b00d041, each build with and without its CUDA
# graph (ZBDDC_GPU_GRAPH=0), two rounds; barley and munin1 batched (the pattern plan's choice).
set -u
O=$OUT; G=$(pwd)/.gpu
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $O/gpu.txt 2>&1
tar -C $G -xJf $G/bin.tar.xz
for t in $G/tests/*; do case $(basename $t) in test_multi_gpu|test_wcsp_gpu) ;; *) rm -f $t ;; esac; done
TEST_JOBS=2 timeout 150 $G/gpu_run.sh $O/t > $O/tests.log 2>&1
echo "tests exit $?"; grep "^test" $O/t/summary.txt
for f in $O/t/tests/*.log; do tail -4 $f; done
mkdir -p /tmp/old /tmp/data $O/m && xz -dc $G/jt_batch.xz > /tmp/jt_batch && chmod +x /tmp/jt_batch && tar -C /tmp/old -xJf $G/old-bin.tar.xz && tar -C /tmp/data -xJf $G/data.tar.xz
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} ZBDDC_CACHE_DIR=/tmp/zbddc-cache
for r in 1 2; do for b in new old; do for g in 1 0; do
  exe=/tmp/jt_batch; [ $b = old ] && exe=/tmp/old/bench/jt_batch
  ZBDDC_GPU_GRAPH=$g timeout 60 $exe --cases 2000 --cpu-cases 1 --mpe-cases 0 --single 0 --devices cuda \
    /tmp/data/mildew.bif > $O/m/$b-g$g-$r.md 2>&1
  echo "$b graph=$g round $r: $(grep '^| mildew' $O/m/$b-g$g-$r.md | cut -d'|' -f7,11)"
done; done; done
timeout 150 /tmp/jt_batch --cases 2000 --cpu-cases 16 --mpe-cases 200 --single 2 --devices cpu,cuda \
  /tmp/data/barley.bif /tmp/data/munin1.bif > $O/m/big.md 2> $O/m/big.err
echo "big exit $?"; cat $O/m/big.md; tail -3 $O/m/big.err
tar -C $O -cJf $O/runs.tar.xz t m tests.log && rm -rf $O/t $O/m $O/tests.log
