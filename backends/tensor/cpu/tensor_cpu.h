// The CPU executor of a TensorProgram: plain C++, multithreaded over the independent ops of a
// level and over chunks of output rows. Every op is one strided loop nest — output rows in an
// odometer that updates each input's offset incrementally, and for bucket ops the eliminated
// values innermost — so a bucket's joined table is never materialised (Fioretto et al. 2015's fused
// aggregate-project, §3.2; Bistaffa et al. 2016 Alg. 3's closed-form indexing, done on the CPU).
#pragma once

#include "ir/tensor_program.h"

#include <memory>
#include <span>
#include <vector>

namespace zbddc {

struct CpuExecOptions {
    unsigned threads = 0; // 0: all hardware threads
    // The program is known to pass verify() (a lowering that checked it): not checked again.
    bool verified = false;
};

// Complete values of every computed table (index = table id; input tables stay empty), like
// interpretTensorProgram.
Result<std::vector<std::vector<double>>> runTensorProgramCpu(const TensorProgram &program,
                                                             const CpuExecOptions &options = {});

// Runs `ops` — independent ones, e.g. (part of) one level — over all threads. Inputs are read
// through `data` (complete values by table id; every input of `ops` must be there), each output is
// written into `computed[op.output]` (resized) and its pointer entered into `data`. The building
// block of runTensorProgramCpu and of the host half of the host/device split.
// `plans` (optional, one per program): the small ops' plans kept from run to run of the same
// program, so a program run again and again (a prepared one) does not plan them again.
class CpuPlanCache;
Status runTensorOpsCpu(const TensorProgram &program, std::span<const uint32_t> ops,
                       std::vector<const double *> &data,
                       std::vector<std::vector<double>> &computed, unsigned threads = 0,
                       CpuPlanCache *plans = nullptr);

// The plans of a program's small ops (their strides and offsets), kept by runTensorOpsCpu: the
// planning of an op of few entries costs more than running it (Promedus_30's one case).
class CpuPlanCache {
  public:
    CpuPlanCache();
    ~CpuPlanCache();
    CpuPlanCache(const CpuPlanCache &) = delete;
    CpuPlanCache &operator=(const CpuPlanCache &) = delete;
    struct Entries;
    std::unique_ptr<Entries> entries;
};

// The complete values of an input table (sparse ones expanded with their default).
Result<std::vector<double>> denseInputValues(const Table &table);
// Every input table's complete values, by table id (computed tables empty).
Result<std::vector<std::vector<double>>> denseInputTables(const TensorProgram &program);

} // namespace zbddc
