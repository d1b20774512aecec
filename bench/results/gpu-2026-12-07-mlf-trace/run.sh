#!/usr/bin/env bash
# The MLF route's batched MAR through the command line against b00d041 (the build before the
# restructuring), alternating, three rounds; then one run of each build under the CUPTI timeline
# (bench/gpu_trace) on alarm, insurance and water, to see where this build's extra time a batch
# goes; then MPE against MAR over 2,000 cases on munin1-4 (the batched junction tree).
#   pack: MPI=1 ONLY=none EXTRA=jt_batch scripts/pack_gpu.sh .gpu/p, then rm .gpu/p/mpi.tar.xz
#   (b00d041's zbddc links libmpi, which the libraries then hold); .gpu/x/old.tar.xz: b00d041's
#   zbddc (stripped); .gpu/x/trace.tar.xz: libgpu_trace.so and the toolkit's libcupti.so.13
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
trap 'pack; rm -rf "$res"' EXIT
late() { [ "$SECONDS" -gt "${LATE:-420}" ]; }
G=$PWD/.gpu/p
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
data=$(cat $G/test_data_dir)
bn=$data/bn
tar -C /tmp -xJf .gpu/x/old.tar.xz
tar -C /tmp -xJf .gpu/x/trace.tar.xz
echo "setup done at $SECONDS s; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
for round in 1 2 3; do
    for b in new old; do
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old/zbddc
        ZBDDC=$exe MLF_TASKS=mar MLF_B1=0 timeout 60 bash bench/network_batch.sh \
            "$res/mlf-$b-$round.jsonl" 2000 cuda $bn/alarm.bif $bn/insurance.bif $bn/water.bif \
            2>> "$res/bench.log"
        echo "mlf $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
done
pack
# The timelines: each build's second run of the same batch (kernels from its cache), traced.
for n in alarm insurance water; do
    $G/zbddc sample $bn/$n.bif --cases 2000 --seed 1 -o /tmp/$n.evid
    for b in new old new old; do
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old/zbddc
        $exe run $bn/$n.bif --route mlf --task mar --evidence /tmp/$n.evid --device cuda --json \
            > /dev/null 2>&1
        CUDA_INJECTION64_PATH=/tmp/trace/libgpu_trace.so GPU_TRACE_FILE=/tmp/trace-$b-$n.tsv \
            LD_LIBRARY_PATH=/tmp/trace:$LD_LIBRARY_PATH timeout 60 $exe run $bn/$n.bif --route mlf \
            --task mar --evidence /tmp/$n.evid --device cuda --json 2>> "$res/trace.err" |
            python3 -c 'import json,sys; d=json.load(sys.stdin); d=d[0] if isinstance(d,list) else d; print(d.get("time_ms"))' \
            > "$res/trace-$b-$n.time_ms"
        python3 bench/gpu_trace/summarise.py /tmp/trace-$b-$n.tsv --gap 0.5 > "$res/trace-$b-$n.txt" 2>&1
        echo "trace $b $n at $SECONDS s: time_ms $(cat "$res/trace-$b-$n.time_ms"), $(wc -l < /tmp/trace-$b-$n.tsv) records" >> "$res/summary.txt"
    done
    xz -c /tmp/trace-new-$n.tsv > "$res/trace-new-$n.tsv.xz"
    xz -c /tmp/trace-old-$n.tsv > "$res/trace-old-$n.tsv.xz"
done
pack
for n in munin2 munin3 munin4 munin1; do
    late && break
    timeout 100 $G/bench/jt_batch --cases 2000 --cpu-cases 0 --mpe-cases 2000 --single 0 \
        --devices cuda --out /tmp/jt --json "$res/jt-$n.json" $bn/$n.bif > "$res/jt-$n.md" 2>&1
    echo "jt $n exit $? at $SECONDS s: $(grep "| $n" "$res/jt-$n.md" | head -1)" >> "$res/summary.txt"
done
echo "end at $SECONDS s" >> "$res/summary.txt"
