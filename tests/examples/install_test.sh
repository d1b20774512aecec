#!/usr/bin/env bash
# The installed package as a user gets it: `cmake --install` into a fresh prefix, examples/
# configured and built on their own with find_package(zbddc) against that prefix only, then run:
# the C++ example checked against the reference evaluator (test_example_batch_async, pointed at
# this build of it), and the C example on a model.so that the installed zbddc writes, against the
# project's own build of the same example. Installs and compiles four small files: nothing of the
# project is rebuilt.
#   install_test.sh CMAKE BUILD_DIR SOURCE_DIR GENERATOR BATCH_ASYNC_TEST
set -euo pipefail
cmake=$1 build=$2 source=$3 generator=$4 checker=$5
work=$build/tests/examples/install_test
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/zbddc lib/zbddc/libzbddc_llvm.so include/zbdd_model.h include/zbdd_problem.h include/zbdd_network.h \
         include/zbddc/runtime/tasks.h lib/cmake/zbddc/zbddcConfig.cmake; do
    [ -e "$prefix/$f" ] || { echo "install_test: $prefix/$f was not installed" >&2; exit 1; }
done

# Only the prefix: the project's build folder and sources (but for examples/) are not searched.
"$cmake" -S "$source/examples" -B "$work/examples" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$work/configure.log"
"$cmake" --build "$work/examples" -j 2 > "$work/build.log" ||
    { cat "$work/build.log"; exit 1; }

ZBDDC_EXAMPLE_DIR="$work/examples" "$checker"

# Writing a model.so generates code: the installed zbddc loads the installed LLVM module (not the
# build's, which is there too).
LD_DEBUG=files "$prefix/bin/zbddc" "$source/examples/wetgrass.zdd" -o "$work/wetgrass.so" 2> "$work/loaded.log"
grep -q "file=$prefix/lib/zbddc/libzbddc_llvm.so .*dynamically loaded" "$work/loaded.log" ||
    { echo "install_test: the installed zbddc did not load $prefix/lib/zbddc/libzbddc_llvm.so" >&2; exit 1; }
"$work/examples/zbdd_eval_model" "$work/wetgrass.so" --metadata > "$work/metadata.txt"
grep -q WetGrass "$work/metadata.txt" ||
    { echo "install_test: the installed C example printed no WetGrass in the metadata" >&2; exit 1; }
inputs=$(sed -n 's/^inputs \([0-9]*\).*/\1/p' "$work/metadata.txt")
[ -n "$inputs" ] || { echo "install_test: no input count in the metadata" >&2; exit 1; }
# Two samples: every input 1, then every input 0.5.
{ printf '1 %.0s' $(seq "$inputs"); echo; printf '0.5 %.0s' $(seq "$inputs"); echo; } > "$work/samples.txt"
"$work/examples/zbdd_eval_model" "$work/wetgrass.so" < "$work/samples.txt" > "$work/installed.out"
"$build/examples/zbdd_eval_model" "$work/wetgrass.so" < "$work/samples.txt" > "$work/project.out"
[ "$(wc -l < "$work/installed.out")" -eq 2 ] ||
    { echo "install_test: expected 2 answers, got:" >&2; cat "$work/installed.out" >&2; exit 1; }
diff "$work/project.out" "$work/installed.out"
echo "install_test: the installed package built examples/ and they answered as the project's build"
rm -rf "$work" # the prefix holds a few hundred MB of static libraries with debug info
