#!/bin/sh
# Regenerates the rows of docs/zbdd-sizes.md: one mlf_order run (frontier order) per network of
# the benchmark folder, each under /usr/bin/time for its peak resident set, with a time limit and
# a node limit (the arena; about 30 bytes a node plus the operation cache).
# Usage: bench/mlf_order_table.sh BUILD_DIR BN_DIR [TIME_LIMIT_S [NODE_LIMIT [NETWORK...]]]
# (networks by name, default all nineteen) > rows.txt
set -eu
build=$1
bn=$2
limit=${3:-600}
nodes=${4:-180000000}
shift $(($# < 4 ? $# : 4))
nets=${*:-cancer earthquake survey asia sachs alarm insurance water hailfinder pathfinder \
           mildew barley munin1 diabetes pigs munin2 munin3 munin munin4}
for net in $nets; do
    /usr/bin/time -f "$net: %e s wall, peak RSS %M KB" \
        "$build/bench/mlf_order_sizes" --orders frontier --time-limit "$limit" --node-limit "$nodes" \
        "$bn/$net.bif" 2>&1 | grep -v '^network' || true
done
