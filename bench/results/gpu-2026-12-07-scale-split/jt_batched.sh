#!/usr/bin/env bash
# The batched junction tree's MAR on the GPU, 2,000 cases (20% observed), through the command
# line: this build (the scales split like wide reductions, one-copy evidence and read-back)
# against b00d041's, alternating, two rounds; time_ms of each.
#   pack: .gpu-two (markov_profile.sh's, with barley, water, munin1, mildew, pathfinder in DATA);
#   b00d041's zbddc in .gpu-old/old.tar.xz
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?}
res=$out/res
mkdir -p "$res"
pack() { tar -C "$out" -cJf "$out/res.tar.xz" res; }
G=$PWD/.gpu-two
ls -d /tmp/zbddc-libs.* > /dev/null 2>&1 ||
    SKIP_TESTS=1 LBP_WORKLOADS=none timeout 40 $G/gpu_run.sh "$res/setup" > "$res/setup.txt" 2>&1
export LD_LIBRARY_PATH=$(ls -d /tmp/zbddc-libs.* | head -1):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bn=$(cat $G/benchmarks_dir)/bn
mkdir -p /tmp/b00 && [ -x /tmp/b00/zbddc ] || tar -C /tmp/b00 -xJf .gpu-old/old.tar.xz
export ZBDDC_CACHE_DIR=/tmp/zbddc-cache
for n in water barley munin1 mildew pathfinder alarm; do
    [ -f /tmp/$n.evid ] || $G/zbddc sample "$bn/$n.bif" --cases 2000 --seed 1 -o /tmp/$n.evid
    for round in 0 1 2; do # round 0 warms each build's kernel cache
        for b in new old; do
            [ "$SECONDS" -gt "${LATE:-300}" ] && break 3
            exe=$G/zbddc
            [ $b = old ] && exe=/tmp/b00/zbddc
            ms=$(timeout 60 $exe run "$bn/$n.bif" --route jt --task mar --evidence /tmp/$n.evid \
                --device cuda --json 2> "$res/$n-$b-$round.err" |
                python3 -c 'import json,sys; d=json.load(sys.stdin); print([r for r in d if "time_ms" in r][0]["time_ms"])')
            echo -e "$n\t$b\t$round\t$ms" | tee -a "$res/jt_batched.tsv" >> "$res/summary.txt"
        done
    done
    pack
done
