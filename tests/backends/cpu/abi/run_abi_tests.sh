#!/bin/bash
# The model.so C ABI under sanitizers, and several models linked into one program
# (abi_harness.c, link_two_models.c beside this script). CI runs it as test_c_abi.
# usage: run_abi_tests.sh ZBDDC SOURCE_DIR WORK_DIR
set -euo pipefail
zbddc=$1 src=$2 work=$3
cc=${CC:-cc}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
evaluator="$src/backends/cpu/evaluator"
includes=(-I "$src/backends/cpu/include" -I "$evaluator" -I "$src/backends/tensor/so/include")

# 1. The evaluator and a model's generated C, all instrumented, under ASan + UBSan and TSan.
"$zbddc" "$src/examples/wetgrass.zdd" --emit=c -o model.c
for sanitizer in address,undefined thread; do
    name=${sanitizer%%,*}
    flags=(-g -O1 -fno-omit-frame-pointer "-fsanitize=$sanitizer" -fno-sanitize-recover=all)
    "$cc" "${flags[@]}" -shared -fPIC -fvisibility=hidden "${includes[@]}" model.c \
        "$evaluator/zbdd_evaluator.c" "$evaluator/zbdd_so_exports.c" "$evaluator/zbdd_so_network.c" \
        -o "model_$name.so" -lm -lpthread
    "$cc" "${flags[@]}" "${includes[@]}" "$src/tests/backends/cpu/abi/abi_harness.c" \
        -o "harness_$name" -ldl -lpthread -lm
    # TSan maps fixed address ranges that a randomised layout can collide with: run it without.
    if [ "$name" = thread ] && command -v setarch >/dev/null; then
        setarch "$(uname -m)" -R "./harness_$name" "./model_$name.so"
    else
        "./harness_$name" "./model_$name.so"
    fi
done

# 2. Two models and two problems linked into one program through their prefixed names.
"$zbddc" "$src/examples/wetgrass.zdd" -o libwet.so --symbol-prefix wet
"$zbddc" "$src/tests/fuzz/seeds/tiny.bif" -o libtiny.so --symbol-prefix tiny
"$zbddc" "$src/tests/fuzz/seeds/tiny.wcsp" -o libp3.so --symbol-prefix p3
printf 'four 4 2 1 100\n2 2 2 2\n2 0 3 1 1\n0 1 5\n' >four.wcsp
"$zbddc" four.wcsp -o libp4.so --symbol-prefix p4
"$cc" "${includes[@]}" "$src/tests/backends/cpu/abi/link_two_models.c" -o link_two_models \
    -L. -lwet -ltiny -lp3 -lp4 -Wl,-rpath,"$work"
./link_two_models
# A prefix that is no C identifier is refused before anything is written.
if "$zbddc" "$src/examples/wetgrass.zdd" -o bad.so --symbol-prefix 9x 2>err.txt; then
    echo "--symbol-prefix 9x was accepted" >&2
    exit 1
fi
grep -q "expects a C identifier" err.txt && [ ! -e bad.so ]

# 3. Zero-width buffers (a model without inputs) and a misaligned cost pointer (zero_width.c).
printf 'zdd 1\ninputs 0\nnodes 0\nroots 1\n1\n' >constant.zdd
"$zbddc" constant.zdd -o constant.so
"$cc" "${includes[@]}" "$src/tests/backends/cpu/abi/zero_width.c" -o zero_width -ldl
./zero_width ./constant.so ./libp4.so
echo "run_abi_tests: all passed"
