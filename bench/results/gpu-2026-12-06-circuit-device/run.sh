#!/usr/bin/env bash
# Circuits: the gpu tests of the circuit passes (the device-resident pass among them), then
# circuit_batches at B = 128 with the weights in host and in device memory, both kernel plans,
# beside KLay 0.1.2 (PyTorch, torch.compile) in the same run. Results under $OUT, packed.
set -u
O=$OUT; G=$(pwd)/.gpu-nine
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $O/gpu.txt 2>&1
pip install -q --no-index --no-deps --target /tmp/site $G/.whl/klaycircuits-*.whl > $O/pip.log 2>&1
export PYTHONPATH=/tmp/site
TEST_JOBS=3 CIRCUIT_BATCHES="sudoku_4 4-grid road_r seq_fun" CIRCUIT_SIZES=128 \
  CIRCUIT_KERNELS=single,levels CIRCUIT_WEIGHTS=host,device CIRCUIT_NUMERICS=log CIRCUIT_REPS=20 \
  timeout 420 $G/gpu_run.sh $O/r > $O/gpu_run.log 2>&1
echo "gpu_run exit $?"
cat $O/r/summary.txt; cat $O/r/circuit_batches-*.txt 2>/dev/null | head -60; cat $O/r/klay.txt 2>/dev/null
tar -C $O -cJf $O/runs.tar.xz r gpu_run.log pip.log && rm -rf $O/r $O/gpu_run.log $O/pip.log
