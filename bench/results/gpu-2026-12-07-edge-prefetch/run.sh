#!/usr/bin/env bash
# Two changes on an H100, one run. (1) The circuit kernels' loads ahead (backends/cuda/
# kernel_source.cpp: the backward gathers' next edge, zb_each_edge; the single-launch forward's
# next level bounds and first op, zb_first_op): the gpu tests of the circuit kernels, then KLay's
# circuits, this build's bench/circuit_batches against 6f59916's (alternating, two rounds), KLay
# beside.
# (2) The device-neutral run layer moved out of backends/tensor/cuda: the gpu tests that drive it,
# then against b00d041 (the build before the restructuring), alternating: the MLF route's batched
# MAR through the command line, three rounds; the batched junction tree's MAR; bucket
# elimination on SPOT5 404 through the command line. A step starts only while time is left.
#   pack: MPI=1 ONLY="test_wcsp_gpu test_multi_gpu test_junction_tree_gpu
#   test_cuda_single_launch_gpu test_cuda_gpu" EXTRA="jt_batch circuit_batches"
#   DATA="../shared/benchmarks/ac/*" scripts/pack_gpu.sh .gpu/p, then rm .gpu/p/mpi.tar.xz
#   (b00d041's zbddc links libmpi, which the libraries then hold); .gpu-b: b00d041's zbddc and
#   bench/jt_batch (old.tar.xz), 6f59916's bench/circuit_batches (circuit_batches.xz), KLay's wheel
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
trap pack EXIT
late() { [ "$SECONDS" -gt "${LATE:-440}" ]; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
data=$(cat $G/test_data_dir) bench=$(cat $G/benchmarks_dir)
mkdir -p /tmp/old && tar -C /tmp/old -xJf .gpu-b/old.tar.xz
xz -dc .gpu-b/circuit_batches.xz > /tmp/old/circuit_batches && chmod +x /tmp/old/circuit_batches
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .gpu-b/klaycircuits-*.whl > "$res/pip.log" 2>&1
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
for t in test_cuda_single_launch_gpu test_cuda_gpu test_wcsp_gpu test_multi_gpu test_junction_tree_gpu; do
    ( timeout 150 $G/tests/$t > "$res/$t.log" 2>&1
      echo "$t exit $? at $SECONDS s: $(tail -2 "$res/$t.log" | tr '\n' ' ')" >> "$res/summary.txt" ) &
    [ $t = test_wcsp_gpu ] && wait
done
wait
pack
circuits="$bench/ac/sudoku_4.sdd $bench/ac/4-grid.sdd $bench/ac/road_r.sdd $bench/ac/seq_fun.sdd"
for round in 1 2; do
    for b in new old; do
        late && break 2
        exe=$G/bench/circuit_batches
        [ $b = old ] && exe=/tmp/old/circuit_batches
        ZBDDC_CACHE_DIR=/tmp/cache-$b timeout 90 $exe --device cuda --batches 128,1024 --reps 20 \
            --numeric log --kernels single --weights device \
            --json "$res/circuits-$b-$round.json" $circuits > "$res/circuits-$b-$round.txt" 2>&1
        echo "circuits $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
    [ $round = 1 ] && PYTHONPATH=/tmp/site timeout 70 python3 bench/peers/klay_peer.py --device cuda \
        --semiring log --batches 128,1024 --reps 20 --json "$res/klay.json" $circuits \
        > "$res/klay.txt" 2> "$res/klay.err"
    [ $round = 1 ] && echo "klay exit $? at $SECONDS s" >> "$res/summary.txt"
    pack
done
bn=$data/bn
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
for n in alarm water mildew; do
    for b in new old; do
        late && break 2
        exe=$G/bench/jt_batch
        [ $b = old ] && exe=/tmp/old/bench/jt_batch
        timeout 60 $exe --cases 2000 --cpu-cases 0 --mpe-cases 0 --single 0 --devices cuda \
            --out /tmp/jt-$b --json "$res/jt-$n-$b.json" $bn/$n.bif > "$res/jt-$n-$b.md" 2>&1
        echo "jt $n $b exit $? at $SECONDS s: $(grep "| $n" "$res/jt-$n-$b.md" | head -1)" >> "$res/summary.txt"
    done
done
for b in new old new old; do
    late && break
    exe=$G/zbddc
    [ $b = old ] && exe=/tmp/old/zbddc
    ms=$(timeout 30 $exe run $data/wcsp/404.wcsp --device cuda --json 2> /dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); d=d if isinstance(d,dict) else d[0]; print(d.get("time_ms"), d.get("cost"))')
    echo -e "404\t$b\t$ms" >> "$res/summary.txt"
done
echo "end at $SECONDS s" >> "$res/summary.txt"
