// The per-op profile (GpuSwitches::profilePath, FILE): each op enqueued alone and timed with
// events (the fastest of three launches, the first loading its module), one line per op appended to FILE — op,
// kind, level, output rows, eliminated values, ms, and the achieved bandwidth: bytes of its input
// tables read plus its output written, per second (each table counted once: what a kernel at the
// copy bandwidth would move). The ops lose their overlap, so the sum exceeds a normal run; it says
// which ops are far from the device's bandwidth.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/device/level_launch.h"
#include "ir/tensor_program.h"

#include <cstdio>

namespace zbddc::cuda {

// Bytes an op must move at least: its inputs' tables and its output, `valueBytes` an entry.
uint64_t opTableBytes(const TensorProgram &program, uint32_t op, uint64_t valueBytes = 8);

// One profile line for op `op` of level `level` that took `ms`.
void writeOpProfileLine(std::FILE *f, const TensorProgram &program, uint32_t op, uint32_t level,
                        double ms, uint64_t valueBytes = 8);

// Every level's ops, one at a time on one stream, each timed; lines appended to `path`.
Status profileOps(Device &device, const TensorProgram &program, const EnqueueOp &enqueue,
                  const char *path, uint64_t valueBytes = 8);

} // namespace zbddc::cuda
