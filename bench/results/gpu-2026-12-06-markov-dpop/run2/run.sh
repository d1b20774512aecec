#!/usr/bin/env bash
# UAI MARKOV instances, one case each, warm per task (uai_markov: each task's first run right
# before its timed run) on the GPU and CPU, pyAgrum's Shafer-Shenoy beside them on other cores;
# the junction-tree gpu tests (the batched downloads of a prepared program); DPOP with CPU and
# GPU ranks (small UTILs on the CPU, ranks unbound, messages placed by an odometer); prepared
# programs replaying their graph. Results under $OUT, packed at the end.
set -u
O=$OUT; G=$(pwd)/.gpu-eight
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $O/gpu.txt 2>&1
pip install -q --no-index --no-deps --target /tmp/site $G/.whl/pyagrum-*.whl > $O/pip.log 2>&1
D=/tmp/uai; mkdir -p $D; tar -C $D -xJf $G/data.tar.xz
# pyAgrum: four at a time, one thread each, 150 s each, in the background.
( for f in Promedus_30 Pedigree_12 Segmentation_11 Segmentation_14 DBN_12 ObjectDetection_12; do
    echo $f; done | xargs -P 4 -I{} sh -c "PYTHONPATH=/tmp/site timeout 150 python3 bench/peers/pyagrum_mrf.py $D/{}.uai >> $O/pyagrum.jsonl 2>> $O/pyagrum.err" ) &
peer=$!
SKIP_TESTS=0 TEST_JOBS=3 timeout 170 $G/gpu_run.sh $O/r > $O/gpu_run.log 2>&1
echo "gpu_run exit $?"; cat $O/r/summary.txt
L=$(mktemp -d); tar -C $L -xJf $G/libs.tar.xz; export LD_LIBRARY_PATH=$L:/usr/local/cuda/lib64
B=$G/bench/uai_markov
for f in Promedus_30 Pedigree_12 Segmentation_11 Segmentation_14 Promedus_12 Promedus_20 Grids_13; do
  timeout 60 $B --devices cuda,cpu1 --search-ms 1000 $D/$f.uai 2>>$O/uai.err | tail -n +2 >> $O/uai.tsv
done
for f in DBN_12 DBN_13 Grids_16 ObjectDetection_12 ObjectDetection_20 linkage_11; do
  timeout 60 $B --devices cuda --search-ms 1000 $D/$f.uai 2>>$O/uai.err | tail -n +2 >> $O/uai.tsv
done
cut -f1-7,12 $O/uai.tsv
wait $peer; cat $O/pyagrum.jsonl
DPOP_DEVICES="cuda cpu" DPOP_RANKS="4 16" DPOP_REPEAT=2 DPOP_WCSP=404 DPOP_INSTANCES="random:16:8 scale-free:16:2 grid:25" SKIP_TESTS=1 timeout 170 $G/gpu_run.sh $O/d > $O/dpop_run.log 2>&1
echo "dpop exit $?"; cat $O/d/dpop-*.md 2>/dev/null | head -60
tar -C $O -cJf $O/runs.tar.xz r d pip.log uai.err pyagrum.err dpop_run.log gpu_run.log && rm -rf $O/r $O/d $O/pip.log $O/uai.err $O/pyagrum.err $O/dpop_run.log $O/gpu_run.log
