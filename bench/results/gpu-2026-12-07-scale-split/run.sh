#!/usr/bin/env bash
# One GPU run: pyAgrum (cores 12-15, background) on the Markov instances and the batched networks'
# 2,000 cases, beside the one-case Markov junction tree (markov_profile.sh), the interpreted op
# types (interpreted.sh, SHORT) and the batched junction tree (jt_batched.sh) on cores 0-11.
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
G=$PWD/.gpu-two
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 60 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .whl/pyagrum-*.whl .whl/klaycircuits-*.whl > "$res/pip.log" 2>&1
bench=$(cat $G/benchmarks_dir)
for n in water barley munin1 mildew pathfinder alarm; do
    $G/zbddc sample "$bench/bn/$n.bif" --cases 2000 --seed 1 -o /tmp/$n.evid
done
echo "setup done at $SECONDS s" >> "$res/summary.txt"
( export PYTHONPATH=/tmp/site
  for n in water barley munin1; do
      taskset -c 12-15 timeout 40 python3 bench/peers/pyagrum_lazy.py "$bench/bn/$n.bif" /tmp/$n.evid \
          --budget-s 12 | sed "s/^{/{\"network\": \"$n\", /" >> $res/pyagrum_bn.jsonl 2>> $res/pyagrum.err
  done
  for f in Promedus_30 DBN_13 Grids_16 ObjectDetection_20 Grids_13 Promedus_12; do echo $f; done |
      xargs -P 3 -I{} sh -c "timeout 150 taskset -c 13-15 python3 bench/peers/pyagrum_mrf.py $bench/uai/{}.uai >> $res/pyagrum_mrf.jsonl 2>> $res/pyagrum.err" ) &
LATE=120 timeout 170 taskset -c 0-11 bash bench/runs/markov_profile.sh
LATE=40 timeout 80 taskset -c 0-11 bash bench/runs/jt_batched.sh
# The batched plans on the GPU: full tables against a tree per evidence pattern, first run
# (compiles) and second, 500 cases of barley.
xz -dc $G/old/jt_plan_entries.xz > /tmp/jt_plan_entries && chmod +x /tmp/jt_plan_entries
for x in "" 1; do # XGEN=1: every op that can takes its family's generic kernel (an experiment)
    ( [ -n "$x" ] && export XGEN=1
      ZBDDC_CACHE_DIR=/tmp/plan-cache$x timeout 60 taskset -c 0-11 /tmp/jt_plan_entries \
          --cases 500 --time --executor cuda $bench/bn/barley.bif > $res/plan_entries$x.txt 2>&1 )
    echo "plan_entries XGEN=$x exit $? at $SECONDS s" >> $res/summary.txt
done
left=$((550 - SECONDS))
[ $left -gt 30 ] && SHORT=1 timeout $((left < 120 ? left : 120)) taskset -c 0-11 bash bench/runs/interpreted.sh
wait
tar -C "$out" -cJf "$out/res.tar.xz" res
cat $res/summary.txt $res/pyagrum_*.jsonl $res/plan_entries*.txt
