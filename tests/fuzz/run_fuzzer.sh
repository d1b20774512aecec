#!/usr/bin/env bash
# Runs the .zdd reader fuzzer for a bounded time (ZBDDC_FUZZ_SECONDS, default 60) from a corpus
# seeded with the bundled examples. Exit 77 (skipped) where clang could not build it.
set -u
fuzzer=$1 seeds=$2 corpus=$3
if [ ! -x "$fuzzer" ]; then
    echo "SKIPPED: no clang with libFuzzer found, so the fuzzer was not built"
    exit 77
fi
mkdir -p "$corpus"
cp "$seeds"/*.zdd "$corpus"/ 2>/dev/null || true
exec "$fuzzer" -max_total_time="${ZBDDC_FUZZ_SECONDS:-60}" -max_len=4096 -rss_limit_mb=2048 \
    -print_final_stats=1 "$corpus"
