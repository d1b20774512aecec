#!/usr/bin/env bash
# Replays the committed regression inputs (REGRESSIONS_DIR: every crash found so far, each run
# once), then fuzzes a fixed number of inputs (ZBDDC_FUZZ_RUNS, default 20000) from a corpus seeded
# with the given files, with a fixed random seed (ZBDDC_FUZZ_SEED, default 1): no time budget and no
# draw, so a CI run explores the same inputs on any machine. A long run by hand raises both. A seed written N:PATH gets the byte N in front
# (the fuzzer's reader selector). Exit 77 (skipped) where clang could not build the fuzzer.
#   run_fuzzer.sh FUZZER CORPUS_DIR REGRESSIONS_DIR [SEED | N:SEED]...
set -u
fuzzer=$1 corpus=$2 regressions=$3
shift 3
if [ ! -x "$fuzzer" ]; then
    echo "SKIPPED: no clang with libFuzzer found, so the fuzzer was not built"
    exit 77
fi
mkdir -p "$corpus"
for seed in "$@"; do
    if [[ $seed =~ ^([0-9]+):(.*)$ ]]; then
        path=${BASH_REMATCH[2]}
        { printf "\\$(printf '%03o' "${BASH_REMATCH[1]}")"; cat "$path"; } \
            > "$corpus/seed-${BASH_REMATCH[1]}-$(basename "$path")"
    else
        cp "$seed" "$corpus/"
    fi
done
if compgen -G "$regressions/*" >/dev/null; then
    "$fuzzer" -rss_limit_mb=2048 "$regressions"/* || exit 1
fi
exec "$fuzzer" -seed="${ZBDDC_FUZZ_SEED:-1}" -runs="${ZBDDC_FUZZ_RUNS:-20000}" -max_len=4096 -rss_limit_mb=2048 \
    -print_final_stats=1 "$corpus"
