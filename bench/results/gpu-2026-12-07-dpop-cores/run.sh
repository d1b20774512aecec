#!/usr/bin/env bash
# DPOP on the host's 16 cores: 4 and 16 ranks on the 16-agent instances and SPOT5 404 beside the
# centralised run, this build (an idle rank yields for its first 200 us where every rank has a
# core, ec7eb54) against 6dcfed4's zbddc and MPI module, alternating, two rounds.
#   pack: NO_LLVM=1 MPI=1 ONLY=none EXTRA=wcsp_generate scripts/pack_gpu.sh .gpu/q;
#   6dcfed4's zbddc and libzbddc_mpi.so in .gpu/q/old-dpop.tar.xz
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
data=$(cat $G/test_data_dir)
mpi=$(mktemp -d /tmp/zbddc-mpi.XXXX)
tar -C "$mpi" -xJf $G/mpi.tar.xz
export OPAL_PREFIX="$mpi/usr" PMIX_PREFIX="$mpi/usr/lib/x86_64-linux-gnu/pmix2"
export PATH="$mpi/usr/bin:$PATH"
export LD_LIBRARY_PATH="$mpi/usr/lib/x86_64-linux-gnu/openmpi/lib:$mpi/deps:$LD_LIBRARY_PATH"
tar -C /tmp -xJf $G/old-dpop.tar.xz
echo "setup done at $SECONDS s; $(nproc) cores" >> "$res/summary.txt"
for round in 1 2; do
    for b in new old; do
        [ "$SECONDS" -gt 200 ] && break 2
        exe=$G/zbddc
        [ $b = old ] && exe=/tmp/old-dpop/zbddc
        ZBDDC=$exe GENERATE=$G/bench/wcsp_generate RANKS="4 16" REPEAT=3 TOULBAR2_TIMEOUT=1 \
            INSTANCES="grid:16 random:16:8 scale-free:16:2" timeout 100 bash bench/dpop_compare.sh \
            "$res/dpop-$b-$round.jsonl" $data/wcsp/404.wcsp > "$res/dpop-$b-$round.md" 2>> "$res/dpop.err"
        echo "dpop $b $round exit $? at $SECONDS s" >> "$res/summary.txt"
    done
done
echo "end at $SECONDS s" >> "$res/summary.txt"
