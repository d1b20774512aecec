#!/usr/bin/env bash
# Fails on an include that goes against the layering in CMakeLists.txt: libraries below, tools on
# top, tests and benchmarks beside. Prints one line per offending include (file:line: what).
set -euo pipefail
cd "$(dirname "$0")/.."

# Folder -> the top-level folders of ours it may include from (itself always).
allowed_for() {
    case "$1" in
        support) echo "support" ;;
        ir) echo "ir support" ;;
        compiler) echo "compiler ir support" ;;
        backends) echo "backends ir support" ;;
        runtime) echo "runtime compiler backends ir support" ;;
        pipeline) echo "pipeline runtime compiler backends ir support" ;;
        tools) echo "tools pipeline runtime compiler backends ir support" ;;
        tests) echo "tests tools pipeline runtime compiler backends ir support" ;;
        bench) echo "bench tests/support tools pipeline runtime compiler backends ir support" ;;
        examples) echo "examples tools pipeline runtime backends ir support" ;;
        python) echo "python pipeline runtime compiler backends ir support" ;;
    esac
}

status=0
for top in support ir compiler backends runtime pipeline tools tests bench examples python; do
    [ -d "$top" ] || continue
    allowed=" $(allowed_for "$top") "
    while IFS=: read -r file line text; do
        target=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' <<<"$text")
        first=${target%%/*}
        [ "$first" = "$target" ] && continue # a header beside the file or on the include path
        case " support ir compiler backends runtime pipeline tools tests bench examples python " in
            *" $first "*) ;;
            *) continue ;;
        esac
        if [ "$first" = tests ] && [[ "$allowed" == *" tests/support "* ]] &&
            [[ "$target" == tests/support/* ]]; then
            continue
        fi
        if [[ "$allowed" != *" $first "* ]]; then
            echo "$file:$line: $top/ may not include \"$target\" (allowed: ${allowed# })" >&2
            status=1
        fi
    done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$top" \
                 --include='*.h' --include='*.cpp' --include='*.c' --include='*.inc' || true)
done
# Include paths count too: only tests/support may be put on a benchmark's include path.
while IFS=: read -r file line text; do
    echo "$file:$line: a benchmark may take headers from tests/support/ only" >&2
    status=1
done < <(grep -HnE 'PROJECT_SOURCE_DIR\}/tests/' bench/CMakeLists.txt | grep -v 'tests/support' || true)
if [ "$status" -eq 0 ]; then
    echo "check_layers: every include follows the layering"
fi
exit "$status"
