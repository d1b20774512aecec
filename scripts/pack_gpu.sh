#!/usr/bin/env bash
# Builds the GPU tests and GPU benchmarks here and packs, into one folder, what a GPU machine
# (Ubuntu 24.04, CUDA 13 driver and toolkit, no LLVM, no internet) needs to run them: the
# executables, the shared libraries it may lack (compressed), and gpu_run.sh. The folder must stay
# under 64 MiB (the device tool's limit); this script fails if it does not.
#   scripts/pack_gpu.sh [DEST]        default DEST: <repo>/.gpu      (BUILD_DIR overrides build/)
# Optional, for one area's run: ONLY="test_wcsp_gpu ..." packs only the named gpu tests/benchmarks;
# NO_LLVM=1 leaves out the CPU code generator (libzbddc_llvm.so and libLLVM, see below);
# EXTRA="wcsp_be ..." packs more bench/ programs (gpu_run.sh does not run these: call them
# yourself); DATA="a.wcsp b.wcsp" copies input files into DEST/data; FUZZ=1 packs the libFuzzer
# targets for gpu_run.sh's long fuzzing run on the host's cores (FUZZ_RUNS there); TOULBAR2=1
# packs this machine's toulbar2 with its libraries (gpu_run.sh puts it on the PATH, where
# wcsp_be's toulbar2 column finds it: the GPU machine has none); MPI=1 packs this machine's Open MPI
# runtime (mpirun, orted, libraries, components, help files) for gpu_run.sh's DPOP runs (it has none
# either; gpu_run.sh unpacks it under a temporary prefix, OPAL_PREFIX). PYTHON_BUILD=DIR packs the
# Python package of a build made with the GPU machine's Python version (3.12 there: docs/python.md)
# and the circuit tests, for gpu_run.sh's zbddc.Circuit run on CUDA tensors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
dest=${1:-$root/.gpu}
limit=$((64 * 1024 * 1024))

[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja >/dev/null

# Every test labelled gpu, and every benchmark registered as a GPU benchmark (bench/CMakeLists.txt
# lists their targets in gpu_benchmarks.txt).
# A test's target has the test's name (tests/CMakeLists.txt); ctest knows its path once it is built.
gpu_tests() {
    ctest --test-dir "$build" -L gpu --show-only=json-v1 2>/dev/null | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    if sys.argv[1] == "name": print(t["name"])
    elif "command" in t: print(t["command"][0])' "$1"
}
mapfile -t tests < <(gpu_tests name)
benches=()
[ -f "$build/bench/gpu_benchmarks.txt" ] && mapfile -t benches < "$build/bench/gpu_benchmarks.txt"
keep() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $(basename "$1") "* ]]; }
kept=()
for exe in "${tests[@]}"; do keep "$exe" && kept+=("$exe"); done
tests=("${kept[@]}")
kept=()
for exe in "${benches[@]}"; do keep "$exe" && kept+=("$exe"); done
for name in ${EXTRA:-}; do kept+=("$build/bench/$name"); done
benches=("${kept[@]}")
targets=()
for exe in "${tests[@]}" "${benches[@]}"; do targets+=("$(basename "$exe")"); done
[ ${#targets[@]} -gt 0 ] || { echo "pack_gpu: no gpu tests or benchmarks found in $build" >&2; exit 1; }
ninja -C "$build" -j2 "${targets[@]}" zbddc zbddc_llvm ${MPI:+zbddc_mpi} >/dev/null
mapfile -t built < <(gpu_tests path)
kept=()
for exe in "${built[@]}"; do [[ " ${targets[*]} " == *" $(basename "$exe") "* ]] && kept+=("$exe"); done
tests=("${kept[@]}")

rm -rf "$dest"
mkdir -p "$dest/tests" "$dest/bench" "$dest/tools" "$dest/lib"
if [ -n "${TOULBAR2:-}" ]; then
    command -v toulbar2 > /dev/null || { echo "pack_gpu: TOULBAR2=1 but no toulbar2 here" >&2; exit 1; }
    cp "$(command -v toulbar2)" "$dest/tools/"
fi
if [ -n "${MPI:-}" ]; then # Debian's layout under usr/ and etc/, its libraries' own dependencies in deps/
    command -v orterun > /dev/null || { echo "pack_gpu: MPI=1 but no Open MPI here" >&2; exit 1; }
    mpi=$(mktemp -d)
    multiarch=usr/lib/x86_64-linux-gnu
    (cd / && tar -cf - --exclude='*.a' --exclude='*java*' usr/bin/orterun usr/bin/orted \
        "$multiarch/openmpi/lib" "$multiarch/pmix2/lib" "$multiarch/pmix2/share" usr/share/openmpi etc/openmpi) |
        tar -C "$mpi" -xf -
    ln -s orterun "$mpi/usr/bin/mpirun"
    mkdir -p "$mpi/deps"
    find "$mpi" -name '*.so*' -type f -o -path '*/bin/*' -type f | xargs ldd 2>/dev/null |
        awk '$3 ~ /^\// {print $1, $3}' | sort -u | while read -r name path; do
            [[ $name =~ ^(ld-linux|libc\.|libm\.|libstdc\+\+|libgcc_s|libpthread|libdl\.|librt\.) ]] ||
                [ -e "$mpi/$multiarch/openmpi/lib/$name" ] || cp -nL "$path" "$mpi/deps/$name"
        done
    tar -C "$mpi" -cJf "$dest/mpi.tar.xz" . && rm -rf "$mpi"
fi
if [ -n "${DATA:-}" ]; then # compressed: network files are text (19 MiB of BIF become ~2)
    mkdir -p "$dest/data"
    for f in $DATA; do cp "$f" "$dest/data/"; done
    tar -C "$dest/data" -cJf "$dest/data.tar.xz" . && rm -rf "$dest/data"
fi
for exe in "${tests[@]}"; do cp "$exe" "$dest/tests/"; done
for exe in "${benches[@]}"; do cp "$exe" "$dest/bench/"; done
[ -d "$root/bench/peers" ] && cp -r "$root/bench/peers" "$dest/bench/"
cp "$root/bench/network_batch.sh" "$root/bench/route_table.sh" "$root/bench/route_table_row.py" \
    "$root/bench/child_times.py" \
    "$root/bench/dpop_compare.sh" "$dest/bench/"
if [ -n "${PYTHON_BUILD:-}" ]; then # the package (its module without debug info) and its tests
    ninja -C "$PYTHON_BUILD" -j2 _zbddc >/dev/null
    mkdir -p "$dest/python"
    cp -r "$PYTHON_BUILD/python/zbddc" "$root/python/tests" "$dest/python/"
    strip --strip-debug "$dest"/python/zbddc/_zbddc*.so
fi
# pyAgrum's wheel, where the source tree holds one (.whl/), for bench/route_table.sh's peer column.
if ls "$root"/.whl/pyagrum-*.whl >/dev/null 2>&1; then
    mkdir -p "$dest/.whl" && cp "$root"/.whl/pyagrum-*.whl "$dest/.whl/"
fi
cp "$root/scripts/gpu_run.sh" "$dest/"
# Tests find the zbddc binary, the examples and the benchmark inputs at the absolute paths they
# were built with; gpu_run.sh recreates those paths there from what travels here.
cp "$build/zbddc" "$dest/"
cp -r "$root/examples" "$dest/examples"
# The circuit tests read their PySDD files from the source tree.
mkdir -p "$dest/circuit_files" && cp "$root"/tests/compiler/frontends/circuit_files/* "$dest/circuit_files/"
echo "$root" > "$dest/source_dir"
benchmarks=$(sed -n 's/^ZBDDC_SHARED_BENCHMARKS:PATH=//p' "$build/CMakeCache.txt")
echo "${benchmarks:-$root/../shared/benchmarks}" > "$dest/benchmarks_dir"
# The tests' own inputs (tests/data, under 1 MiB packed), unpacked there where this build has them.
mkdir -p "$dest/test_data"
cp "$root"/tests/data/*.tar.xz "$dest/test_data/"
echo "$build/tests/data" > "$dest/test_data_dir"
# The CPU backend's LLVM module, loaded on first use (backends/cpu/llvm_module.h), travels with the
# libraries: gpu_run.sh's LD_LIBRARY_PATH finds it by name, and libLLVM beside it. NO_LLVM=1 leaves
# both out (about 40 MB of the 64 MiB a call carries) for runs that generate no CPU code: GPU
# kernels, junction trees, bucket elimination, DPOP; one that does fails with the module's name.
[ -z "${NO_LLVM:-}" ] && cp "$build/libzbddc_llvm.so" "$dest/lib/"
# DPOP's MPI module (runtime/dpop/mpi_module.h) likewise, with MPI=1.
[ -n "${MPI:-}" ] && cp "$build/libzbddc_mpi.so" "$dest/lib/"
# Debug info is most of each binary's size and is not needed there.
strip --strip-debug "$dest"/tests/* "$dest"/bench/* "$dest/zbddc" "$dest"/lib/libzbddc_*.so 2>/dev/null || true

# Shared libraries: everything ldd resolves (of the LLVM module: libLLVM) except the C/C++ runtime
# that Ubuntu 24.04 has (newer than Debian 12's, so backward compatible). NVRTC, loaded on first
# use, comes from the GPU machine's own CUDA toolkit (its 110 MB would not fit; the driver and
# NVRTC must match there anyway).
system='^(linux-vdso|ld-linux|libc\.|libm\.|libstdc\+\+|libgcc_s|libpthread|libdl\.|librt\.|libnvrtc)'
for exe in "$dest"/tests/* "$dest"/bench/* "$dest"/tools/* "$dest/zbddc" "$dest"/lib/libzbddc_*.so; do # zbddc: the CLI runs there too
    [ -f "$exe" ] && [ -x "$exe" ] && [[ $exe != *.sh && $exe != *.py ]] || continue
    ldd "$exe" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
        [[ $name =~ $system ]] || cp -nL "$path" "$dest/lib/$name"
    done
done
if [ -n "${FUZZ:-}" ]; then # paths under build/tests/fuzz, tests/fuzz, examples become @FUZZ@
    mkdir -p "$dest/fuzz"
    ninja -C "$build" -j2 $(cd "$build/tests/fuzz" && ls -d *_corpus | sed 's/_corpus$/_fuzz/') >/dev/null
    cp "$build"/tests/fuzz/*_fuzzer "$build"/tests/fuzz/*_seed.so "$root/tests/fuzz/run_fuzzer.sh" "$root/scripts/fuzz.sh" \
        "$root/examples/wetgrass.zdd" "$dest/fuzz/"
    cp -r "$root/tests/fuzz/regressions" "$root/tests/fuzz/seeds" "$dest/fuzz/"
    FUZZ_LIST=1 BUILD_DIR="$build" "$root/scripts/fuzz.sh" |
        sed -e "s#$build/tests/fuzz#@FUZZ@#g" -e "s#$root/tests/fuzz#@FUZZ@#g" \
            -e "s#$root/examples#@FUZZ@#g" > "$dest/fuzz/commands.tsv"
    strip --strip-debug "$dest"/fuzz/*_fuzzer
    tar -C "$dest" -cJf "$dest/fuzz.tar.xz" fuzz && rm -rf "$dest/fuzz"
fi
if [ -n "$(ls -A "$dest/lib")" ]; then
    tar -C "$dest/lib" -cJf "$dest/libs.tar.xz" .
fi
rm -rf "$dest/lib"
# The executables compressed too (about a third of their size), so that pyAgrum's wheels fit
# beside them in one call; gpu_run.sh unpacks them.
counts="$(ls "$dest"/tests | wc -l) tests, $(ls "$dest"/bench | wc -l) benchmarks"
tar -C "$dest" -cJf "$dest/bin.tar.xz" tests bench tools zbddc &&
    rm -rf "$dest/tests" "$dest/bench" "$dest/tools" "$dest/zbddc"

size=$(du -sb "$dest" | cut -f1)
echo "pack_gpu: $dest: $counts, $((size / 1024)) KiB"
if [ "$size" -ge "$limit" ]; then
    echo "pack_gpu: $dest is $size bytes, over the 64 MiB limit" >&2
    exit 1
fi
