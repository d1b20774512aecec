#!/usr/bin/env bash
# Bucket elimination against b00d041 (three rounds), the host steps of each solve with the real
# driver, and the per-op profile. Results straight under $OUT.
set -u
O=$OUT; G=$(pwd)/.gpu-six
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $O/gpu.txt 2>&1
SKIP_TESTS=1 OLD_BUILD=$G/old-bin.tar.xz AB_ROUNDS=3 BE_FAMILIES="grid:81:1.0" BE_WCSP=404 BE_PROFILE=1 \
  timeout 400 $G/gpu_run.sh $O/r > $O/gpu_run.log 2>&1
echo "gpu_run exit $?"
cat $O/r/summary.txt
grep -h "GPU\|gpu\|value" $O/r/wcsp_be-*.txt | head -40
cat $O/r/gpu_host_steps*.txt | head -120
