#!/usr/bin/env bash
# Runs, on the GPU machine, what scripts/pack_gpu.sh packed: every gpu test, then every GPU
# benchmark, writing logs, the benchmarks' JSON/markdown and a summary into OUTDIR.
#   .gpu/gpu_run.sh OUTDIR
# Exit code: 0 when every test passed (77 = skipped counts as not passed), 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: gpu_run.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The device tool brings back at most 8 files of a call: OUT_ARCHIVE=1 leaves OUTDIR as the one
# file OUTDIR.tar.xz when the run ends, also where a timeout ends it (TERM).
if [ "${OUT_ARCHIVE:-0}" = 1 ]; then
    trap 'tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")" && rm -rf "$out"' EXIT
    trap 'exit 143' TERM
fi

[ -f "$here/bin.tar.xz" ] && [ ! -d "$here/tests" ] && tar -C "$here" -xJf "$here/bin.tar.xz"
libs=$(mktemp -d /tmp/zbddc-libs.XXXX)
[ -f "$here/libs.tar.xz" ] && tar -C "$libs" -xJf "$here/libs.tar.xz"
cuda_lib=$(dirname "$(ls /usr/local/cuda/lib64/libnvrtc.so.* /usr/local/cuda*/lib64/libnvrtc.so.* \
    /usr/lib/x86_64-linux-gnu/libnvrtc.so.* 2>/dev/null | head -1)" 2>/dev/null || true)
export LD_LIBRARY_PATH="$libs:${cuda_lib:-/usr/local/cuda/lib64}:${LD_LIBRARY_PATH:-}"
export ZBDDC_CACHE_DIR=${ZBDDC_CACHE_DIR:-/tmp/zbddc-cache}
# Peers packed with the binaries (pack_gpu.sh TOULBAR2=1), found by name.
[ -d "$here/tools" ] && export PATH="$here/tools:$PATH"
# Open MPI (pack_gpu.sh MPI=1) under a temporary prefix: Debian's build, relocated by OPAL_PREFIX
# and PMIX_PREFIX; shared memory between ranks of this host only.
if [ -f "$here/mpi.tar.xz" ]; then
    mpi=$(mktemp -d /tmp/zbddc-mpi.XXXX)
    tar -C "$mpi" -xJf "$here/mpi.tar.xz"
    export OPAL_PREFIX="$mpi/usr" PMIX_PREFIX="$mpi/usr/lib/x86_64-linux-gnu/pmix2"
    export PATH="$mpi/usr/bin:$PATH"
    export LD_LIBRARY_PATH="$mpi/usr/lib/x86_64-linux-gnu/openmpi/lib:$mpi/deps:$LD_LIBRARY_PATH"
    export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mca_base_component_show_load_errors=0
fi
# NCCL (backends/cuda/nccl.h) from the nvidia-nccl-cu13 wheel where the machine has it, unless
# ZBDDC_NCCL already names a libnccl.so.2; without it, tables cross GPUs by peer copies.
if [ -z "${ZBDDC_NCCL:-}" ]; then
    ZBDDC_NCCL=$(python3 -c 'import glob, site
dirs = site.getsitepackages() + [site.getusersitepackages()]
print(next(iter(sum((glob.glob(d + "/nvidia/nccl/lib/libnccl.so.2") for d in dirs), [])), ""))' 2>/dev/null)
    [ -n "$ZBDDC_NCCL" ] && export ZBDDC_NCCL
fi

# Recreate the build-time paths the tests use (see pack_gpu.sh): the source tree with examples/
# and build/zbddc, the tests' inputs (tests/data) unpacked into the build folder, and the
# benchmark inputs sorted into bn/, wcsp/, uai/ and ac/.
src=$(cat "$here/source_dir" 2>/dev/null || true)
if [ -n "$src" ]; then
    mkdir -p "$src/build"
    [ -e "$src/examples" ] || cp -r "$here/examples" "$src/"
    if [ -d "$here/circuit_files" ] && [ ! -e "$src/tests/compiler/frontends/circuit_files" ]; then
        mkdir -p "$src/tests/compiler/frontends" && cp -r "$here/circuit_files" "$src/tests/compiler/frontends/"
    fi
    [ -e "$src/build/zbddc" ] || cp "$here/zbddc" "$src/build/zbddc"
    # The Python tests (pack_gpu.sh PYTHON_BUILD) find the circuit files from the source tree.
    if [ -d "$here/python/tests" ] && [ ! -e "$src/python/tests" ]; then
        mkdir -p "$src/python" && cp -r "$here/python/tests" "$src/python/"
    fi
fi
test_data_dir=$(cat "$here/test_data_dir" 2>/dev/null || true)
if [ -n "$test_data_dir" ] && [ -d "$here/test_data" ]; then
    mkdir -p "$test_data_dir"
    for archive in "$here"/test_data/*.tar.xz; do tar -C "$test_data_dir" -xJf "$archive"; done
fi
bench_dir=$(cat "$here/benchmarks_dir" 2>/dev/null || true)
if [ -f "$here/data.tar.xz" ]; then
    mkdir -p "$here/data" && tar -C "$here/data" -xJf "$here/data.tar.xz"
fi
if [ -n "$bench_dir" ] && [ -d "$here/data" ]; then
    mkdir -p "$bench_dir/bn" "$bench_dir/wcsp"
    cp "$here"/data/*.bif "$bench_dir/bn/" 2>/dev/null || true
    cp "$here"/data/*.wcsp "$bench_dir/wcsp/" 2>/dev/null || true
    mkdir -p "$bench_dir/uai" "$bench_dir/ac"
    cp "$here"/data/*.uai* "$here"/data/pr-reference.tsv "$bench_dir/uai/" 2>/dev/null || true
    cp "$here"/data/*.sdd "$here"/data/*.vtree "$bench_dir/ac/" 2>/dev/null || true
fi

summary="$out/summary.txt"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
    echo "nvrtc: ${cuda_lib:-not found}"
    echo "nccl: ${ZBDDC_NCCL:-not found}"
} > "$summary"

# The long fuzzing run (scripts/fuzz.sh) on the host's cores while the gpu tests run: FUZZ_RUNS
# executions per target in FUZZ_JOBS processes each (default 3), seed FUZZ_SEED; fuzz.txt.
fuzz_pid=
[ -f "$here/fuzz.tar.xz" ] && [ ! -d "$here/fuzz" ] && tar -C "$here" -xJf "$here/fuzz.tar.xz"
if [ -d "$here/fuzz" ] && [ -n "${FUZZ_RUNS:-}" ]; then
    sed "s#@FUZZ@#$here/fuzz#g" "$here/fuzz/commands.tsv" > "$here/fuzz/here.tsv"
    (cd "$here/fuzz" && FUZZ_COMMANDS="$here/fuzz/here.tsv" FUZZ_JOBS=${FUZZ_JOBS:-3} \
        ./fuzz.sh "$FUZZ_RUNS" "${FUZZ_SEED:-$(date +%Y%m%d)}" > "$out/fuzz.txt" 2>&1) &
    fuzz_pid=$!
fi

# Each test's log in tests/NAME.log, its line in the summary; TEST_JOBS tests at a time (default
# 1: one GPU's correctness tests share it well, but their times are then not each one's own).
mkdir -p "$out/tests"
runTest() {
    local t=$1 name start rc ms status
    name=$(basename "$t")
    start=$(date +%s%N)
    "$t" > "$out/tests/$name.log" 2>&1
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    case $rc in
        0) status=passed ;;
        77) status=skipped ;;
        *) status="FAILED (exit $rc)" ;;
    esac
    printf 'test %-28s %s (%d ms)\n' "$name" "$status" "$ms" | tee -a "$summary"
}
if [ "${SKIP_TESTS:-0}" != 1 ]; then # SKIP_TESTS=1: a second run over the same pack, benchmarks only
    ( # a subshell, whose jobs are the tests alone (not the fuzzing run)
        for t in "$here"/tests/*; do
            [ -e "$t" ] || continue # ONLY=none packs no tests
            while [ "$(jobs -rp | wc -l)" -ge "${TEST_JOBS:-1}" ]; do wait -n; done
            runTest "$t" &
        done
        wait
    )
    # zbddc.Circuit on CUDA tensors (pack_gpu.sh PYTHON_BUILD): python/tests/test_circuit_gpu.py
    # under this machine's python3, which holds PyTorch.
    if [ -d "$here/python/zbddc" ] && python3 -c 'import pytest' 2>/dev/null; then
        start=$(date +%s%N)
        PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -q -rs \
            -p no:cacheprovider "${src:-$here}/python/tests/test_circuit_gpu.py" \
            > "$out/tests/python_circuit_gpu.log" 2>&1
        rc=$?
        status=passed
        grep -q ' skipped' "$out/tests/python_circuit_gpu.log" && status=skipped
        [ "$rc" = 0 ] || [ "$rc" = 5 ] || status="FAILED (exit $rc)" # 5: all skipped at import
        printf 'test %-28s %s (%d ms)\n' python_circuit_gpu "$status" \
            $((($(date +%s%N) - start) / 1000000)) | tee -a "$summary"
    elif [ -d "$here/python/zbddc" ]; then
        echo "python: pytest not importable (carry its wheels: docs/python.md); no Python run" |
            tee -a "$summary"
    fi
fi
failed=0
grep -q '^test .* \(skipped\|FAILED\)' "$summary" && failed=1

# The GPU benchmarks export their circuits here for the PyTorch peer (bench/peers/).
export ZBDDC_PEER_DIR=/tmp/zbddc-peer
rm -rf "$ZBDDC_PEER_DIR"
for b in "$here"/bench/*; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    name=$(basename "$b")
    # Sections below, or tools called by hand (jt_kernels: bench/results/NOTEBOOK.md says how).
    case $name in jt_batch | jt_kernels | wcsp_be | wcsp_generate | loopy_bp | copy_bandwidth | single_case | mlf_phases | task_host | host_phases | uai_markov | circuit_batches | gpu_host_steps | *.sh) continue ;; esac
    "$b" --json "$out/$name.json" --md "$out/$name.md" >> "$out/bench.log" 2>&1
    rc=$?
    echo "bench $name exit $rc" | tee -a "$summary"
    [ $rc -eq 0 ] || failed=1
done
if [ -f "$here/bench/peers/torch_levels.py" ] && [ -d "$ZBDDC_PEER_DIR" ]; then
    python3 "$here/bench/peers/torch_levels.py" "$ZBDDC_PEER_DIR" "$out/torch_peer.md" >> "$out/bench.log" 2>&1
    rc=$?
    echo "bench torch_levels.py exit $rc" | tee -a "$summary"
    [ $rc -eq 0 ] || failed=1
fi
# A benchmark of networks (bench/NAME --cases CASES [ARGS...] NET.bif...) into NAME.md, when it
# was packed and networks are named.
networkBench() {
    local name=$1 networks=$2 cases=$3
    shift 3
    [ -x "$here/bench/$name" ] && [ -n "$networks" ] || return 0
    local nets=()
    for n in $networks; do nets+=("$bench_dir/bn/$n.bif"); done
    "$here/bench/$name" --cases "$cases" "$@" "${nets[@]}" > "$out/$name.md" 2>> "$out/bench.log"
    echo "bench $name exit $?" | tee -a "$summary"
    cat "$out/$name.md"
}
# Where a batched MLF answer's time goes (bench/mlf_phases): PHASES_NETWORKS names the networks,
# PHASES_CASES the batch (default 2000), PHASES_LANES the most lanes a launch, comma-separated,
# each measured (default: the runtime's).
networkBench mlf_phases "${PHASES_NETWORKS:-}" "${PHASES_CASES:-2000}" \
    ${PHASES_LANES:+--max-lanes "$PHASES_LANES"}
# A batch of one, warm (bench/single_case, packed with EXTRA=single_case): SINGLE_NETWORKS names
# the networks, SINGLE_CASES the cases timed one at a time (default 50).
networkBench single_case "${SINGLE_NETWORKS:-}" "${SINGLE_CASES:-50}"
# runTasks' host work around its pass on the GPU (bench/task_host, packed with EXTRA=task_host):
# HOST_NETWORKS names the networks, HOST_CASES the batch (default 2000), HOST_LANES the most
# lanes a launch (default: the runtime's).
networkBench task_host "${HOST_NETWORKS:-}" "${HOST_CASES:-2000}" --device cuda \
    ${HOST_LANES:+--max-lanes "$HOST_LANES"}
# Host phases against none (bench/host_phases, packed with EXTRA=host_phases): HOST_PHASES_NETWORKS
# names the networks, HOST_PHASES_CASES the batch (default 2000), HOST_PHASES_OPS the limits
# (default 0,8,32,128), HOST_PHASES_SINGLE the cases timed one at a time (default 50).
networkBench host_phases "${HOST_PHASES_NETWORKS:-}" "${HOST_PHASES_CASES:-2000}" \
    --ops "${HOST_PHASES_OPS:-0,8,32,128}" --single "${HOST_PHASES_SINGLE:-50}"
# Knowledge-compiled circuits over batches of weight vectors (bench/circuit_batches, packed with
# EXTRA=circuit_batches and DATA=".../ac/NAME.sdd .../ac/NAME.vtree"): CIRCUIT_BATCHES names the
# circuits of ac/ (e.g. "sudoku_4 4-grid"); each batch size (CIRCUIT_SIZES, default 1,128,1024)
# with each kernel plan (CIRCUIT_KERNELS, default single,levels: one launch per pass, then the
# level kernels) in each number type (CIRCUIT_NUMERICS, default log), CIRCUIT_REPS warm runs
# (default 20), with the weights in host memory and in device memory (CIRCUIT_WEIGHTS, default
# host,device); then, in the same run, KLay over the same circuits and batches
# (bench/peers/klay_peer.py, where klay and torch import; CIRCUIT_PEER=0 skips it).
if [ -x "$here/bench/circuit_batches" ] && [ -n "${CIRCUIT_BATCHES:-}" ]; then
    circuits=()
    for c in $CIRCUIT_BATCHES; do circuits+=("$bench_dir/ac/$c.sdd"); done
    for numeric in ${CIRCUIT_NUMERICS:-log}; do
        "$here/bench/circuit_batches" --device cuda --numeric "$numeric" \
            --batches "${CIRCUIT_SIZES:-1,128,1024}" --kernels "${CIRCUIT_KERNELS:-single,levels}" \
            --weights "${CIRCUIT_WEIGHTS:-host,device}" \
            --reps "${CIRCUIT_REPS:-20}" --json "$out/circuit_batches-$numeric.json" \
            "${circuits[@]}" > "$out/circuit_batches-$numeric.txt" 2>> "$out/bench.log"
        echo "bench circuit_batches $numeric exit $?" | tee -a "$summary"
        cat "$out/circuit_batches-$numeric.txt"
    done
    if [ "${CIRCUIT_PEER:-1}" = 0 ]; then
        echo "klay: CIRCUIT_PEER=0, no KLay rows" | tee -a "$summary"
    elif python3 -c 'import klay, torch' 2>/dev/null; then
        # zbddc.Circuit from Python on KLay's tensors too, where the packed module imports.
        ours=()
        PYTHONPATH="$here/python" python3 -c 'import zbddc' 2>/dev/null && ours=(--zbddc-python)
        PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}" \
        python3 "$here/bench/peers/klay_peer.py" --device cuda --semiring log \
            --batches "${CIRCUIT_SIZES:-1,128,1024}" --reps "${CIRCUIT_REPS:-20}" "${ours[@]}" \
            --zbddc "$here/zbddc" --json "$out/klay.json" "${circuits[@]}" \
            > "$out/klay.txt" 2>> "$out/bench.log"
        echo "bench klay_peer.py exit $?" | tee -a "$summary"
        cat "$out/klay.txt"
    else
        echo "klay: klay or torch not importable; no KLay rows" | tee -a "$summary"
    fi
fi
# An older build beside this one, in the same run (OLD_BUILD: a .tar.xz holding its zbddc,
# bench/jt_batch and bench/wcsp_be, e.g. an earlier pack's bin.tar.xz): the junction-tree, MLF and
# bucket-elimination sections below run the builds in turn, AB_ROUNDS times (default 1), into
# NAME-new-R and NAME-old-R files.
builds=(new)
if [ -n "${OLD_BUILD:-}" ]; then
    mkdir -p "$here/old" && tar -C "$here/old" -xJf "$OLD_BUILD" && builds+=(old)
fi
buildDir() { if [ "$1" = new ]; then echo "$here"; else echo "$here/old"; fi; }
benchOf() { echo "$(buildDir "$1")/bench/$2"; }
# Each build of each round: "BUILD TAG" lines (TAG empty where only this build runs).
abRuns() {
    local round b
    for round in $(seq "${AB_ROUNDS:-1}"); do
        for b in "${builds[@]}"; do
            if [ ${#builds[@]} -gt 1 ]; then echo "$b -$b-$round"; else echo "$b"; fi
        done
    done
}
# The junction-tree route over Fast-BNI's workload (bench/jt_batch, packed with EXTRA=jt_batch),
# then pyAgrum's LazyPropagation on one thread over the same cases where its wheel came along
# (BENCHMARKS.md says how). JT_NETWORKS names the networks; JT_CASES, JT_CPU_CASES,
# JT_MPE_CASES, JT_SINGLE, JT_DEVICES (default cpu,cuda), JT_PEER_S (0: no peer); JT_SPREAD adds
# GPU rows whose cases are split evenly over each list (e.g. "0,0 2 4").
if [ -x "$here/bench/jt_batch" ] && [ -n "${JT_NETWORKS:-}" ]; then
    jt=/tmp/zbddc-jt
    mkdir -p "$jt"
    nets=()
    for n in $JT_NETWORKS; do nets+=("$bench_dir/bn/$n.bif"); done
    spread=()
    for d in ${JT_SPREAD:-}; do spread+=(--spread "$d"); done
    while read -r build tag; do
        "$(benchOf "$build" jt_batch)" --cases "${JT_CASES:-2000}" --cpu-cases "${JT_CPU_CASES:-2000}" \
            --mpe-cases "${JT_MPE_CASES:-2000}" --single "${JT_SINGLE:-20}" \
            --devices "${JT_DEVICES:-cpu,cuda}" "${spread[@]}" --out "$jt" --json "$out/jt_batch$tag.json" \
            "${nets[@]}" > "$out/jt_batch$tag.md" 2>> "$out/bench.log"
        echo "bench jt_batch$tag exit $?" | tee -a "$summary"
        cat "$out/jt_batch$tag.md"
    done < <(abRuns)
    if [ "${JT_PEER_S:-20}" = 0 ]; then
        echo "pyagrum: JT_PEER_S=0, no peer column" | tee -a "$summary"
    elif python3 -c 'import pyagrum' 2>/dev/null; then
        for n in $JT_NETWORKS; do
            python3 "$here/bench/peers/pyagrum_lazy.py" "$bench_dir/bn/$n.bif" "$jt/$n.evid" \
                --ours "$jt/$n.mar.json" --budget-s "${JT_PEER_S:-20}" |
                sed "s/^{/{\"network\": \"$n\", /" >> "$out/pyagrum.jsonl" 2>> "$out/bench.log"
        done
        cat "$out/pyagrum.jsonl"
    else
        echo "pyagrum: not importable; no peer column" | tee -a "$summary"
    fi
fi
# The MLF route over evidence batches through the command line (bench/network_batch.sh, copied by
# pack_gpu.sh): MLF_NETWORKS on cuda and cpu, MLF_GPU_NETWORKS on cuda only, MLF_CASES cases,
# MLF_TASKS and MLF_ROUTES passed on;
# pyAgrum on the same cases (MLF_PEER_S seconds each) where its wheel came along.
if [ -f "$here/bench/network_batch.sh" ] && [ -n "${MLF_NETWORKS:-}${MLF_GPU_NETWORKS:-}" ]; then
    while read -r build tag; do
        export ZBDDC="$(buildDir "$build")/zbddc"
        for n in ${MLF_NETWORKS:-}; do
            bash "$here/bench/network_batch.sh" "$out/network_batch$tag.jsonl" "${MLF_CASES:-2000}" \
                cuda,cpu "$bench_dir/bn/$n.bif" 2>> "$out/bench.log"
        done
        for n in ${MLF_GPU_NETWORKS:-}; do
            bash "$here/bench/network_batch.sh" "$out/network_batch$tag.jsonl" "${MLF_CASES:-2000}" \
                cuda "$bench_dir/bn/$n.bif" 2>> "$out/bench.log"
        done
        echo "bench network_batch$tag done" | tee -a "$summary"
        cat "$out/network_batch$tag.jsonl"
    done < <(abRuns)
    if python3 -c 'import pyagrum' 2>/dev/null; then
        for n in ${MLF_NETWORKS:-} ${MLF_GPU_NETWORKS:-}; do
            "$here/zbddc" sample "$bench_dir/bn/$n.bif" --cases "${MLF_CASES:-2000}" --seed 1 \
                -o "/tmp/$n.evid" &&
                python3 "$here/bench/peers/pyagrum_lazy.py" "$bench_dir/bn/$n.bif" "/tmp/$n.evid" \
                    --budget-s "${MLF_PEER_S:-5}" | sed "s/^{/{\"network\": \"$n\", /" \
                    >> "$out/mlf_pyagrum.jsonl" 2>> "$out/bench.log"
        done
        cat "$out/mlf_pyagrum.jsonl"
    fi
fi
# Does --route auto take the fastest exact route (bench/route_table.sh): ROUTE_NETWORKS names the
# networks; the table (CPU and GPU, 1 and ROUTE_BATCH cases (default 2000), PR/MAR/MPE, auto
# against each route forced, pyAgrum beside, from the packed wheel where none is installed) goes
# to route_table/ (ROUTE_CELL_S bounds each cell, default 120 s).
if [ -f "$here/bench/route_table.sh" ] && [ -n "${ROUTE_NETWORKS:-}" ]; then
    nets=()
    for n in $ROUTE_NETWORKS; do nets+=("$bench_dir/bn/$n.bif"); done
    ZBDDC="$here/zbddc" ROUTE_CASES="1 ${ROUTE_BATCH:-2000}" PYAGRUM_WHEELS="$here/.whl" \
        bash "$here/bench/route_table.sh" "$out/route_table" "${nets[@]}" >> "$out/bench.log" 2>&1
    echo "bench route_table done" | tee -a "$summary"
fi
# End to end as a user runs it (E2E_NETWORKS; E2E_CASES, default 2000): `zbddc run NET.bif --task
# mar --evidence CASES --route R` for R in E2E_ROUTES (default auto), device auto, wall time of
# the whole process, first with an empty kernel cache (model and kernels compiled), then cached.
if [ -n "${E2E_NETWORKS:-}" ]; then
    for n in $E2E_NETWORKS; do
        "$here/zbddc" sample "$bench_dir/bn/$n.bif" --cases "${E2E_CASES:-2000}" --seed 1 \
            -o "/tmp/e2e-$n.evid" --quiet
        for route in ${E2E_ROUTES:-auto}; do
        cache=$(mktemp -d /tmp/zbddc-e2e-cache.XXXX)
        for run in cold warm; do
            t0=$(date +%s.%N)
            ZBDDC_CACHE_DIR=$cache "$here/zbddc" run "$bench_dir/bn/$n.bif" --task mar \
                --route "$route" --evidence "/tmp/e2e-$n.evid" --json > "/tmp/e2e-$n.json" \
                2>> "$out/bench.log"
            rc=$?
            t1=$(date +%s.%N)
            python3 - "$n" "$route" "$run" "$rc" "$t0" "$t1" "/tmp/e2e-$n.json" \
                >> "$out/e2e.jsonl" <<'PY'
import json, sys
n, route, run, rc, t0, t1, path = sys.argv[1:]
row = {"network": n, "asked": route, "run": run, "rc": int(rc),
       "wall_s": round(float(t1) - float(t0), 3)}
try:
    d = json.load(open(path))
    first = d[0] if isinstance(d, list) else d
    first = first.get("results", [first])[0] if isinstance(first, dict) else first
    for k in ("route", "device", "time_ms"):
        if isinstance(first, dict) and k in first:
            row[k] = first[k]
except Exception as e:
    row["json_error"] = str(e)[:80]
print(json.dumps(row))
PY
        done
        done
    done
    echo "e2e done" | tee -a "$summary"
    cat "$out/e2e.jsonl"
fi
# Loopy BP per design (bench/loopy_bp, packed with EXTRA=loopy_bp; the networks as DATA):
# LBP_WORKLOADS (comma-separated; default grid100-2,grid100-31,grid1000-2,protein,alarm,water,
# pathfinder), LBP_DEVICES (cpu,dp,coop),
# LBP_SWEEPS (20), LBP_CASES (2000, the networks' evidence batch); then pyAgrum's
# LoopyBeliefPropagation on one thread (bench/peers/pyagrum_lbp.py, LBP_PEER_ITERS iterations,
# LBP_PEER_CASES cases of the networks, on LBP_PEER_WORKLOADS: default protein and the networks,
# as building a grid's equivalent network in Python takes minutes) where its wheel came along.
# LBP_WORKLOADS=none skips.
if [ -x "$here/bench/loopy_bp" ] && [ "${LBP_WORKLOADS:-}" != none ]; then
    lbp=/tmp/zbddc-lbp
    mkdir -p "$lbp"
    workloads=${LBP_WORKLOADS:-grid100-2,grid100-31,grid1000-2,protein,alarm,water,pathfinder}
    "$here/bench/loopy_bp" --workloads "$workloads" --sweeps "${LBP_SWEEPS:-20}" \
        --cases "${LBP_CASES:-2000}" --networks "$bench_dir/bn" --write-uai "$lbp" \
        --devices "${LBP_DEVICES:-cpu,dp,coop}" \
        --json "$out/loopy_bp.json" --md "$out/loopy_bp.md" >> "$out/bench.log" 2>&1
    echo "bench loopy_bp exit $?" | tee -a "$summary"
    cat "$out/loopy_bp.md"
    if python3 -c 'import pyagrum' 2>/dev/null; then
        peers=${LBP_PEER_WORKLOADS:-protein,alarm,water,pathfinder}
        for w in ${peers//,/ }; do
            if [ -f "$lbp/$w.uai" ]; then
                timeout 200 python3 "$here/bench/peers/pyagrum_lbp.py" "$lbp/$w.uai" \
                    --iterations "${LBP_PEER_ITERS:-5}"
            elif [ -f "$bench_dir/bn/$w.bif" ]; then
                "$here/zbddc" sample "$bench_dir/bn/$w.bif" --cases 100 --seed 1 -o "$lbp/$w.evid" &&
                    timeout 200 python3 "$here/bench/peers/pyagrum_lbp.py" "$bench_dir/bn/$w.bif" \
                        --evidence "$lbp/$w.evid" --cases "${LBP_PEER_CASES:-20}" \
                        --iterations "${LBP_PEER_ITERS:-5}"
            fi | sed "s/^{/{\"workload\": \"$w\", /" >> "$out/lbp_pyagrum.jsonl" 2>> "$out/bench.log"
        done
        cat "$out/lbp_pyagrum.jsonl"
    else
        echo "pyagrum: not importable; no LBP peer column" | tee -a "$summary"
    fi
fi
# Where a junction tree's GPU time goes, op by op (ZBDDC_GPU_PROFILE, tensor_executor_cuda.cpp):
# JT_PROFILE names the networks, JT_PROFILE_CASES the batch. Kept: the 40 slowest ops and the
# time per op kind, per network.
if [ -x "$here/bench/jt_batch" ] && [ -n "${JT_PROFILE:-}" ]; then
    for n in $JT_PROFILE; do
        rm -f "/tmp/profile-$n.tsv"
        ZBDDC_GPU_PROFILE="/tmp/profile-$n.tsv" "$here/bench/jt_batch" --devices cuda \
            --cases "${JT_PROFILE_CASES:-400}" --mpe-cases 0 --single 0 --out /tmp/zbddc-jt \
            "$bench_dir/bn/$n.bif" >> "$out/profile-$n.txt" 2>> "$out/bench.log"
        echo "profile $n exit $?" | tee -a "$summary"
        {
            echo "# slowest ops: op kind level rows eliminated ms"
            sort -t$'\t' -k6,6 -g -r "/tmp/profile-$n.tsv" | head -40
            echo "# ms per kind (all profiled runs)"
            awk -F'\t' '{ms[$2] += $6; n[$2]++} END {for (k in ms) printf "%s\t%d ops\t%.1f ms\n", k, n[k], ms[k]}' \
                "/tmp/profile-$n.tsv"
        } >> "$out/profile-$n.txt"
        cat "$out/profile-$n.txt"
    done
fi
# zbddc's own command lines (ZBDDC_RUNS: a file in the checkout, one argument list per line, @WCSP@
# and @BN@ standing for the benchmark folders; e.g. bench/runs/int64_costs.txt): each one's output
# and exit status into cli.txt.
if [ -n "${ZBDDC_RUNS:-}" ] && [ -f "$ZBDDC_RUNS" ]; then
    while IFS= read -r line; do
        [ -n "$line" ] && [ "${line:0:1}" != "#" ] || continue
        args=${line//@WCSP@/$bench_dir/wcsp}
        args=${args//@BN@/$bench_dir/bn}
        echo "\$ zbddc $line" >> "$out/cli.txt"
        # shellcheck disable=SC2086 # the line is an argument list
        "$here/zbddc" $args >> "$out/cli.txt" 2>&1
        echo "exit $?" >> "$out/cli.txt"
    done < "$ZBDDC_RUNS"
    echo "zbddc runs: $(grep -c '^exit 0$' "$out/cli.txt") of $(grep -c '^exit' "$out/cli.txt") exited 0" |
        tee -a "$summary"
fi
# The device's copy bandwidth (bench/copy_bandwidth, packed with EXTRA=copy_bandwidth), the
# ceiling the kernels' GB/s are set against.
if [ -x "$here/bench/copy_bandwidth" ]; then
    "$here/bench/copy_bandwidth" > "$out/copy_bandwidth.txt" 2>> "$out/bench.log"
    echo "bench copy_bandwidth exit $?" | tee -a "$summary"
    cat "$out/copy_bandwidth.txt"
fi
# Bucket elimination at scale (bench/wcsp_be beside bench/wcsp_generate, packed with
# EXTRA="wcsp_be wcsp_generate" and DATA=".../wcsp/404.wcsp"): BE_FAMILIES lists generated
# instances as family:n[:tightness] (seed 1, domain 5, wcsp_generate's defaults otherwise), BE_WCSP
# packed benchmark names (404); one wcsp_be run over all of them (1 thread, all threads, GPU op by
# op and captured as one CUDA graph, the GPU time split, bandwidth). BE_PROFILE=1 adds the per-op
# profile (ZBDDC_GPU_PROFILE: ms and GB/s per op) of one GPU solve of each, keeping the 15 slowest
# ops; BE_PROFILE_ENV="NAME=VALUE ..." profiles each again under each of those settings.
# BE_DEVICES adds runs over several devices, one per list (e.g. "0,0 2 4": two logical devices on
# GPU 0, then 2 and 4 GPUs; lists the machine cannot meet print its GPUs), BE_SLICE_THRESHOLD the
# work (entries) from which a bucket is sliced across them (tensor_gpu.h),
# BE_DEVICE_BUDGET_MIB the MiB of tables each device of those runs may hold (smaller GPUs).
if [ -x "$here/bench/wcsp_be" ] && [ -n "${BE_FAMILIES:-}${BE_WCSP:-}" ]; then
    be=/tmp/zbddc-be
    mkdir -p "$be"
    files=()
    for spec in ${BE_FAMILIES:-}; do
        IFS=: read -r family n tight <<< "$spec"
        f="$be/$family-$n-s1${tight:+-t$tight}.wcsp"
        "$here/bench/wcsp_generate" --family "$family" --n "$n" --seed 1 \
            ${tight:+--tightness "$tight"} -o "$f" >> "$out/bench.log" 2>&1 && files+=("$f")
    done
    for w in ${BE_WCSP:-}; do files+=("$bench_dir/wcsp/$w.wcsp"); done
    multi=()
    for d in ${BE_DEVICES:-}; do multi+=(--devices "$d"); done
    [ -n "${BE_SLICE_THRESHOLD:-}" ] && multi+=(--slice-threshold "$BE_SLICE_THRESHOLD")
    [ -n "${BE_DEVICE_BUDGET_MIB:-}" ] && multi+=(--device-budget-mib "$BE_DEVICE_BUDGET_MIB")
    while read -r build tag; do
        "$(benchOf "$build" wcsp_be)" --json "$out/wcsp_be$tag.json" "${multi[@]}" "${files[@]}" \
            > "$out/wcsp_be$tag.txt" 2>> "$out/bench.log"
        echo "bench wcsp_be$tag exit $?" | tee -a "$summary"
        cat "$out/wcsp_be$tag.txt"
    done < <(abRuns)
    # The host's share of each GPU solve, step by step (bench/gpu_host_steps, packed with
    # EXTRA=gpu_host_steps).
    while read -r build tag; do
        steps=$(benchOf "$build" gpu_host_steps)
        [ -x "$steps" ] || continue
        "$steps" "${files[@]}" > "$out/gpu_host_steps$tag.txt" 2>> "$out/bench.log"
        echo "bench gpu_host_steps$tag exit $?" | tee -a "$summary"
        cat "$out/gpu_host_steps$tag.txt"
    done < <(abRuns)
    if [ "${BE_PROFILE:-0}" = 1 ]; then
        # BE_PROFILE_ENV="NAME=VALUE": each instance profiled again with that variable set.
        for variant in "" ${BE_PROFILE_ENV:-}; do
            for f in "${files[@]}"; do
                rm -f "$be/profile.tsv"; touch "$be/profile.tsv"
                env $variant ZBDDC_GPU_PROFILE="$be/profile.tsv" "$here/zbddc" run "$f" --device cuda > /dev/null 2>> "$out/bench.log"
                {
                    echo "# $(basename "$f")${variant:+ with $variant}: slowest ops: op kind level rows eliminated ms GB/s"
                    sort -t$'\t' -k6,6 -g -r "$be/profile.tsv" | head -15
                } >> "$out/wcsp_be_profile.txt"
            done
        done
        cat "$out/wcsp_be_profile.txt"
    fi
    # BE_NCU=1: Nsight Compute's counters for every kernel of one GPU solve of each instance (op by
    # op, no graph; clocks left alone), as CSV: time, DRAM bytes, occupancy, issue use, registers.
    if [ "${BE_NCU:-0}" = 1 ] && command -v ncu > /dev/null; then
        metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
        metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
        metrics+=,sm__inst_executed.avg.per_cycle_elapsed,lts__t_bytes.sum,launch__grid_size
        metrics+=,smsp__average_warp_latency_issue_stalled_long_scoreboard,l1tex__t_bytes.sum
        for f in "${files[@]}"; do
            ncu --clock-control none --csv --page raw --metrics "$metrics" \
                -k 'regex:zb_' "$here/zbddc" run "$f" --device cuda \
                > "$out/ncu-$(basename "$f" .wcsp).csv" 2>> "$out/bench.log"
            echo "ncu $(basename "$f") exit $?" | tee -a "$summary"
        done
    fi
fi
# DPOP over MPI on this host's cores (bench/dpop_compare.sh; packed with MPI=1 TOULBAR2=1
# EXTRA=wcsp_generate): the devices of DPOP_DEVICES in one call (e.g. "cpu cuda": every rank on
# the CPU, then every rank on the GPU, and a last table of the CPU's time over the GPU's) over the
# generated DPOP_SET (small or large) or DPOP_INSTANCES (family:agents[:seed[:tightness]]) and
# the packed DPOP_WCSP (names in wcsp/), DPOP_RANKS ranks (4 8 16), the best of DPOP_REPEAT runs
# (3); the centralised run on each device beside each; DPOP_TOULBAR2_TIMEOUT (300 s).
if [ -n "${DPOP_DEVICES:-}" ] && [ -f "$here/bench/dpop_compare.sh" ]; then
    wcsps=()
    for w in ${DPOP_WCSP:-}; do wcsps+=("$bench_dir/wcsp/$w.wcsp"); done
    settings=(ZBDDC="$here/zbddc" GENERATE="$here/bench/wcsp_generate" RANKS="${DPOP_RANKS:-4 8 16}"
        REPEAT="${DPOP_REPEAT:-3}" SET="${DPOP_SET:-small}" TOULBAR2_TIMEOUT="${DPOP_TOULBAR2_TIMEOUT:-300}")
    [ -n "${DPOP_INSTANCES:-}" ] && settings+=(INSTANCES="$DPOP_INSTANCES")
    env "${settings[@]}" DEVICE="$DPOP_DEVICES" bash "$here/bench/dpop_compare.sh" "$out/dpop.jsonl" \
        "${wcsps[@]}" > "$out/dpop.md" 2>> "$out/bench.log"
    echo "bench dpop_compare $DPOP_DEVICES exit $?" | tee -a "$summary"
    cat "$out/dpop.md"
fi
[ -f "$out/bench.log" ] && tail -n 60 "$out/bench.log"
if [ -n "$fuzz_pid" ]; then
    wait "$fuzz_pid" || failed=1
    cat "$out/fuzz.txt" >> "$summary"
fi
cat "$summary"
exit $failed
