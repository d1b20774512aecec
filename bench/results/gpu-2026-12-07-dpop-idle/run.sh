#!/usr/bin/env bash
# DPOP on the host's 16 cores with idle ranks that yield for their first 20 ms (idle_wait.h: no
# sleep that grows along a chain of hops; the barrier, the gather and the flush wait the same
# way) and ranks that warm their executor while they wait for their children, against 10c542a's
# zbddc and MPI module, alternating, two rounds: 4 and 16 ranks on the 16-agent instances and
# SPOT5 404 beside the centralised run. Then, while time is left, the large instances (SET=large)
# on 4 ranks, CPU ranks against GPU ranks of this build.
#   pack: NO_LLVM=1 MPI=1 ONLY=none EXTRA=wcsp_generate scripts/pack_gpu.sh .gpu/q;
#   .gpu/q/base.tar.xz: 10c542a's zbddc and libzbddc_mpi.so (stripped), in base/
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
trap 'pack; rm -rf "$res"' EXIT
G=$PWD/.gpu/q
SKIP_TESTS=1 LBP_WORKLOADS=none timeout 90 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
data=$(cat $G/test_data_dir)
mpi=$(mktemp -d /tmp/zbddc-mpi.XXXX)
tar -C "$mpi" -xJf $G/mpi.tar.xz
export OPAL_PREFIX="$mpi/usr" PMIX_PREFIX="$mpi/usr/lib/x86_64-linux-gnu/pmix2"
export PATH="$mpi/usr/bin:$PATH"
export LD_LIBRARY_PATH="$mpi/usr/lib/x86_64-linux-gnu/openmpi/lib:$mpi/deps:$LD_LIBRARY_PATH"
tar -C /tmp -xJf $G/base.tar.xz
echo "setup done at $SECONDS s; $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> "$res/summary.txt"
for round in 1 2; do
    for b in new base; do
        exe=$G/zbddc
        [ $b = base ] && exe=/tmp/base/zbddc
        ZBDDC=$exe GENERATE=$G/bench/wcsp_generate RANKS="4 16" REPEAT=3 TOULBAR2_TIMEOUT=1 \
            INSTANCES="grid:16 random:16:8 scale-free:16:2" timeout 100 bash bench/dpop_compare.sh \
            "$res/dpop-$b-$round.jsonl" $data/wcsp/404.wcsp > "$res/dpop-$b-$round.md" 2>> "$res/dpop.err"
        echo "dpop $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
done
pack
[ "$SECONDS" -gt 300 ] || ZBDDC=$G/zbddc GENERATE=$G/bench/wcsp_generate SET=large DEVICE="cpu cuda" \
    RANKS=4 REPEAT=1 TOULBAR2_TIMEOUT=1 timeout $((560 - SECONDS)) bash bench/dpop_compare.sh \
    "$res/dpop-large.jsonl" > "$res/dpop-large.md" 2>> "$res/dpop.err"
echo "large exit $? at $SECONDS s" >> "$res/summary.txt"
