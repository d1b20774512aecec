#!/usr/bin/env bash
# PR (log10 Z under the instance's own evidence) of every UAI instance of a folder through the
# command line, bucket elimination (--route be) beside the junction tree (--route jt), on the CPU:
# one row per instance and route with the wall seconds of the whole run (reading, order search,
# solve), the route's own time_ms (the solve), peak memory, log10 Z and its distance from
# pr-reference.tsv, or the refusal.
#
#   bench/uai_pr_routes.sh [--timeout S] [DIR] > OUT.tsv
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
timeout_s=600
if [[ ${1:-} == --timeout ]]; then timeout_s=$2; shift 2; fi
dir=${1:-$here/../../shared/benchmarks/uai}
zbddc=${ZBDDC_BUILD:-$here/../build}/zbddc
printf "instance\troute\twall_s\ttime_ms\tmax_rss_mb\tlog10_z\tabs_diff_reference\n"
for model in "$dir"/*.uai; do
  name=$(basename "$model" .uai)
  want=$(awk -v n="$name" '$1 == n { print $2 }' "$dir/pr-reference.tsv" 2>/dev/null)
  for route in be jt; do
    out=$( { /usr/bin/time -f "WALL %e %M" timeout "$timeout_s" "$zbddc" run "$model" \
             --evidence "$model.evid" --task pr --route "$route" --device cpu --json; } 2>&1 )
    read -r wall rss <<< "$(grep '^WALL' <<< "$out" | awk '{ print $2, int($3 / 1024) }')"
    log=$(grep -o '"log10":[^,}]*' <<< "$out" | cut -d: -f2)
    ms=$(grep -o '"time_ms":[^,}]*' <<< "$out" | cut -d: -f2)
    if [[ -z $log ]]; then
      why=$(grep -v '^WALL' <<< "$out" | grep -v '^zbddc: note' | head -1 | cut -c1-160)
      printf "%s\t%s\t%s\t\t%s\trefused: %s\t\n" "$name" "$route" "$wall" "$rss" "$why"
      continue
    fi
    diff=$([[ -n $want ]] && awk -v a="$log" -v b="$want" 'BEGIN { d = a - b; printf "%.2g", d < 0 ? -d : d }')
    printf "%s\t%s\t%s\t%.0f\t%s\t%s\t%s\n" "$name" "$route" "$wall" "$ms" "$rss" "$log" "$diff"
  done
done
