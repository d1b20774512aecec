#!/usr/bin/env bash
# Two zbddc binaries' CPU junction tree (MAR) on the same inputs in the same shell, runs
# alternating (A, B, A, B, ...) so that a loaded machine weighs on both alike; per input the best
# of REPEATS (default 3) of each binary's time_ms (its --json: the batch's wall time over its
# cases, the order search apart), and the largest difference between the two binaries' marginals.
# A UAI model answers its own NAME.uai.evid; a .bif network answers CASES (default 2000) cases
# that `zbddc sample` draws (seed 1; CASES_<name>=N overrides per network).
#
#   bench/jt_cpu_compare.sh A_ZBDDC B_ZBDDC OUT.tsv MODEL...
set -uo pipefail
a=${1:?usage: jt_cpu_compare.sh A_ZBDDC B_ZBDDC OUT.tsv MODEL...}
b=${2:?}
out=${3:?}
shift 3
repeats=${REPEATS:-3}
work=$(mktemp -d /tmp/zbddc-jtcmp.XXXX)
echo -e "input\tcases\ta_ms\tb_ms\ta_over_b\tmax_marginal_diff" >"$out"
for model in "$@"; do
    name=$(basename "$model")
    name=${name%.*}
    if [[ $model == *.uai ]]; then
        evid=$model.evid
        cases=1
    else
        var=CASES_$name
        cases=${!var:-${CASES:-2000}}
        evid=$work/$name.evid
        "$a" sample "$model" --cases "$cases" --seed 1 -o "$evid" || continue
    fi
    best_a="" best_b=""
    for ((r = 0; r < repeats; ++r)); do
        for side in a b; do
            bin=$a
            [[ $side == b ]] && bin=$b
            "$bin" run "$model" --task mar --route jt --device cpu --evidence "$evid" --json \
                >"$work/$side.json" 2>>"$work/stderr.log" || continue
            ms=$(python3 -c 'import json,sys
rows=json.load(open(sys.argv[1]))
print((rows if isinstance(rows, list) else [rows])[0]["time_ms"])' "$work/$side.json")
            if [[ $side == a ]]; then
                best_a=$(python3 -c "print(min(x for x in [$ms, ${best_a:-$ms}]))")
            else
                best_b=$(python3 -c "print(min(x for x in [$ms, ${best_b:-$ms}]))")
            fi
        done
    done
    diff=$(python3 - "$work/a.json" "$work/b.json" <<'PY'
import json, sys
def marginals(path):  # one case's answer, or a batch's list of them
    answers, values = json.load(open(path)), []
    for answer in answers if isinstance(answers, list) else [answers]:
        for rows in answer.get("marginals", {}).values():
            values.extend(rows)
    return values
a, b = marginals(sys.argv[1]), marginals(sys.argv[2])
print(max((abs(x - y) for x, y in zip(a, b)), default=float("nan")) if len(a) == len(b) else "length differs")
PY
)
    ratio=$(python3 -c "print(round($best_a / $best_b, 2))" 2>/dev/null || echo "")
    echo -e "$name\t$cases\t$best_a\t$best_b\t$ratio\t$diff" | tee -a "$out"
done
rm -rf "$work"
