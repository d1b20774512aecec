#!/usr/bin/env bash
# Runs a reader fuzzer for a bounded time (ZBDDC_FUZZ_SECONDS, default 60) from a corpus seeded
# with the given files; a seed written N:PATH gets the byte N in front (the fuzzer's reader
# selector). Exit 77 (skipped) where clang could not build the fuzzer.
#   run_fuzzer.sh FUZZER CORPUS_DIR [SEED | N:SEED]...
set -u
fuzzer=$1 corpus=$2
shift 2
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
exec "$fuzzer" -max_total_time="${ZBDDC_FUZZ_SECONDS:-60}" -max_len=4096 -rss_limit_mb=2048 \
    -print_final_stats=1 "$corpus"
