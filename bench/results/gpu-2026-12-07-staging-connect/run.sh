#!/usr/bin/env bash
# Two A/B checks in one run, builds alternating. (1) The MLF route's batched MAR through the
# command line, this build (pinned staging one row over, 7cef037) against b00d041 (the build
# before the restructuring), three rounds on the five networks of the MLF batch table. (2) DPOP
# on the host's 16 cores, this build (neighbouring ranks connected before the protocol, 20410b7)
# against 7cef037 (without), two rounds: 4 and 16 ranks on the 16-agent instances and SPOT5 404
# beside the centralised run. Two calls (the packs do not fit one call's 64 MiB together):
#   run.sh mlf: MPI=1 ONLY=none scripts/pack_gpu.sh .gpu/p, then rm .gpu/p/mpi.tar.xz (b00d041's
#   zbddc links libmpi, which the libraries then hold); .gpu/x/old.tar.xz: b00d041's zbddc;
#   run.sh dpop: NO_LLVM=1 MPI=1 ONLY=none EXTRA=wcsp_generate scripts/pack_gpu.sh .gpu/q;
#   .gpu/q/prev.tar.xz: 7cef037's zbddc and libzbddc_mpi.so
#   run.sh mlf2: as mlf, a second call: five rounds on alarm, insurance and water, then one
#   traced run of each build on alarm (.gpu/x/trace.tar.xz: libgpu_trace.so, libcupti.so.13)
set -u
part=${1:?usage: run.sh mlf|dpop|mlf2}
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res-$part.tar.xz" res; }
trap 'pack; rm -rf "$res"' EXIT
G=$PWD/.gpu/p
[ "$part" = dpop ] && G=$PWD/.gpu/q
rounds="1 2 3" nets="alarm insurance hailfinder water pathfinder"
[ "$part" = mlf2 ] && rounds="1 2 3 4 5" nets="alarm insurance water"
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
data=$(cat $G/test_data_dir)
bn=$data/bn
echo "setup done at $SECONDS s; $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
[ "$part" != dpop ] && tar -C /tmp -xJf .gpu/x/old.tar.xz && for round in $rounds; do
    for b in new old; do
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old/zbddc
        ZBDDC=$exe MLF_TASKS=mar MLF_B1=0 timeout 60 bash bench/network_batch.sh \
            "$res/mlf-$b-$round.jsonl" 2000 cuda $(for n in $nets; do echo $bn/$n.bif; done) \
            2>> "$res/bench.log"
        echo "mlf $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
done
if [ "$part" = mlf2 ]; then # the timelines: each build's second run of alarm's batch, traced
    tar -C /tmp -xJf .gpu/x/trace.tar.xz
    $G/zbddc sample $bn/alarm.bif --cases 2000 --seed 1 -o /tmp/alarm.evid
    for b in new old; do
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old/zbddc
        CUDA_INJECTION64_PATH=/tmp/trace/libgpu_trace.so GPU_TRACE_FILE=/tmp/trace-$b.tsv \
            LD_LIBRARY_PATH=/tmp/trace:$LD_LIBRARY_PATH timeout 60 $exe run $bn/alarm.bif \
            --route mlf --task mar --evidence /tmp/alarm.evid --device cuda --json > /dev/null
        python3 bench/gpu_trace/summarise.py /tmp/trace-$b.tsv --gap 0.5 > "$res/trace-$b-alarm.txt"
        xz -c /tmp/trace-$b.tsv > "$res/trace-$b-alarm.tsv.xz"
    done
fi
[ "$part" = dpop ] || exit 0
tar -C /tmp -xJf $G/prev.tar.xz
mpi=$(mktemp -d /tmp/zbddc-mpi.XXXX)
tar -C "$mpi" -xJf $G/mpi.tar.xz
export OPAL_PREFIX="$mpi/usr" PMIX_PREFIX="$mpi/usr/lib/x86_64-linux-gnu/pmix2"
export PATH="$mpi/usr/bin:$PATH"
export LD_LIBRARY_PATH="$mpi/usr/lib/x86_64-linux-gnu/openmpi/lib:$mpi/deps:$LD_LIBRARY_PATH"
for round in 1 2; do
    for b in new prev; do
        [ "$SECONDS" -gt 480 ] && break 2
        exe=$G/zbddc
        [ $b = prev ] && exe=/tmp/prev/zbddc
        ZBDDC=$exe GENERATE=$G/bench/wcsp_generate RANKS="4 16" REPEAT=3 TOULBAR2_TIMEOUT=1 \
            INSTANCES="grid:16 random:16:8 scale-free:16:2" timeout 100 bash bench/dpop_compare.sh \
            "$res/dpop-$b-$round.jsonl" $data/wcsp/404.wcsp > "$res/dpop-$b-$round.md" 2>> "$res/dpop.err"
        echo "dpop $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
done
echo "end at $SECONDS s" >> "$res/summary.txt"
