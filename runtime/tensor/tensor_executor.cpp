#include "runtime/tensor/tensor_executor.h"

#include "backends/tensor/cpu/incomplete_cpu.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "ir/tensor_interpret.h"
#include "runtime/tensor/tensor_executor_entries.h"

#include "support/timer.h"

#include <chrono>
#include <optional>
#include <unistd.h>

namespace zbddc {

Result<SolvedProgram> TensorExecutor::solve(const TensorProgram &program,
                                            std::vector<uint32_t> &assignment) {
    auto run = this->run(program);
    if (!run)
        return run.error();
    SolvedProgram out;
    out.device = std::move(run->device);
    const auto t0 = std::chrono::steady_clock::now();
    out.optimum = programResult(program, run->tables);
    bool tied = false;
    recoverAssignment(program, run->tables, assignment, nullptr, &tied);
    out.tied = tied;
    out.times.valueMs = msSince(t0);
    return out;
}

Result<uint64_t> TensorExecutor::memoryBudgetBytes(uint64_t releasedBytes) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return uint64_t{1} << 30;
    return (static_cast<uint64_t>(pages) * static_cast<uint64_t>(size) + releasedBytes) / 4;
}

namespace {

Status checkCompleteInput(const TensorProgram &p, uint32_t table, uint64_t entries) {
    if (table >= p.tables.size() || !p.tables[table].input || p.tables[table].sparse ||
        p.tables[table].values.size() != entries)
        return error("internal error: table " + std::to_string(table) +
                     " is not a complete input of that size");
    return Ok{};
}

// The tables a run returns: those the program fetches (every computed one where none is named).
CompleteTables fetched(const TensorProgram &p, std::vector<std::vector<double>> &computed,
                       DeviceReport device) {
    if (p.fetch.empty())
        return {computed, std::move(device)};
    CompleteTables out{std::vector<std::vector<double>>(p.tables.size()), std::move(device)};
    for (uint32_t t : p.fetch)
        out.tables[t] = computed[t];
    return out;
}

// The host prepared programs' shared steps over their inputs and their kept computed tables.
Status setCompleteInput(TensorProgram &p, uint32_t table, std::span<const double> values) {
    if (Status s = checkCompleteInput(p, table, values.size()); !s)
        return s;
    p.tables[table].values.assign(values.begin(), values.end());
    return Ok{};
}

// Every executor's prepared program but the CPU's and the GPU's: the whole program run again
// each time.
class HostPreparedProgram final : public PreparedTensorProgram {
  public:
    HostPreparedProgram(TensorExecutor &executor, TensorProgram program)
        : executor_(executor), program_(std::move(program)) {}
    Status setInput(uint32_t table, std::span<const double> values) override {
        return setCompleteInput(program_, table, values);
    }
    Result<CompleteTables> run() override { return executor_.run(program_); }

  private:
    TensorExecutor &executor_;
    TensorProgram program_;
};

// The CPU executor's prepared program: verified once, level by level through runTensorOpsCpu
// with the computed tables kept between runs (allocated once), its small ops' plans kept too
// (CpuPlanCache) and inputs read in place, so a program run thousands of times (a loopy BP sweep)
// costs its ops and nothing else.
class CpuPreparedProgram final : public PreparedTensorProgram {
  public:
    CpuPreparedProgram(TensorProgram program, unsigned threads)
        : program_(std::move(program)), threads_(threads), computed_(program_.tables.size()) {
        for (Table &t : program_.tables)
            if (t.input && t.sparse) { // expanded once: the executor reads complete tables
                t.values = t.denseValues();
                t.rows.clear();
                t.sparse = false;
            }
    }
    Status setInput(uint32_t table, std::span<const double> values) override {
        return setCompleteInput(program_, table, values);
    }
    Result<CompleteTables> run() override {
        data_.assign(program_.tables.size(), nullptr);
        for (size_t t = 0; t < program_.tables.size(); ++t)
            if (program_.tables[t].input)
                data_[t] = program_.tables[t].values.data();
        for (const auto &level : program_.levels)
            if (Status s = runTensorOpsCpu(program_, level, data_, computed_, threads_, &plans_);
                !s)
                return s.error();
        return fetched(program_, computed_, {DeviceReport::Kind::Cpu, "", ""});
    }

  private:
    TensorProgram program_;
    unsigned threads_;
    std::vector<std::vector<double>> computed_;
    std::vector<const double *> data_;
    CpuPlanCache plans_;
};

} // namespace

Status PreparedTensorProgram::setInputs(std::span<const uint32_t> tables,
                                        std::span<const std::span<const double>> values) {
    for (size_t i = 0; i < tables.size(); ++i)
        if (Status s = setInput(tables[i], values[i]); !s)
            return s;
    return Ok{};
}

Status PreparedTensorProgram::decodeCases(std::vector<uint32_t> &, const std::vector<uint8_t> &,
                                          uint32_t, std::vector<uint8_t> &) {
    return error("internal error: this executor decodes cases on the host (recoverAssignment)");
}

Result<std::unique_ptr<PreparedTensorProgram>>
TensorExecutor::prepare(const TensorProgram &program) {
    if (Status s = program.verify(); !s)
        return s.error();
    return std::unique_ptr<PreparedTensorProgram>(new HostPreparedProgram(*this, program));
}

namespace {

class ReferenceExecutor final : public TensorExecutor {
  public:
    Result<CompleteTables> run(const TensorProgram &program) override {
        auto computed = interpretTensorProgram(program);
        if (!computed)
            return computed.error();
        return CompleteTables{std::move(*computed), {DeviceReport::Kind::Reference, "", ""}};
    }
    Result<IncompleteTables> runIncomplete(const TensorProgram &program) override {
        auto computed = interpretTensorProgram(program); // capped at the bound: the oracle
        if (!computed)
            return computed.error();
        IncompleteTables out{{}, {DeviceReport::Kind::Reference, "", "incomplete tables"}};
        for (std::vector<double> &values : *computed)
            out.tables.push_back(TableData{false, std::move(values), {}, 0});
        return out;
    }
};

class CpuExecutor final : public TensorExecutor {
  public:
    explicit CpuExecutor(const TensorExecutorOptions &o) : options_(o) {}
    Result<std::unique_ptr<PreparedTensorProgram>> prepare(const TensorProgram &program) override {
        if (Status s = program.verify(); !s)
            return s.error();
        return std::unique_ptr<PreparedTensorProgram>(
            new CpuPreparedProgram(program, options_.threads));
    }
    Result<CompleteTables> run(const TensorProgram &program) override {
        auto computed = runTensorProgramCpu(program, {options_.threads});
        if (!computed)
            return computed.error();
        return CompleteTables{std::move(*computed), {DeviceReport::Kind::Cpu, "", ""}};
    }
    Result<IncompleteTables> runIncomplete(const TensorProgram &program) override {
        auto computed = runIncompleteTensorProgramCpu(program, {options_.maxIncompleteRows});
        if (!computed)
            return computed.error();
        return IncompleteTables{std::move(*computed),
                                {DeviceReport::Kind::Cpu, "", "incomplete tables"}};
    }

  private:
    TensorExecutorOptions options_;
};

constexpr TensorExecutorEntry kExecutors[] = {
    {"reference", referenceTensorExecutor},
    {"cpu", cpuTensorExecutor},
    {"cuda", cudaTensorExecutor},
    {"split", splitTensorExecutor},
};

} // namespace

Result<std::unique_ptr<TensorExecutor>> referenceTensorExecutor(const TensorExecutorOptions &) {
    return std::unique_ptr<TensorExecutor>(new ReferenceExecutor);
}

Result<std::unique_ptr<TensorExecutor>> cpuTensorExecutor(const TensorExecutorOptions &o) {
    return std::unique_ptr<TensorExecutor>(new CpuExecutor(o));
}

std::span<const TensorExecutorEntry> tensorExecutors() {
    return kExecutors;
}

cuda::GpuSwitches gpuSwitchesFromVariables(const VariableLookup &lookup,
                                           cuda::GpuSwitches switches) {
    auto set = [&](const char *name) -> std::optional<std::string_view> {
        const char *v = lookup(name);
        return v && *v ? std::optional<std::string_view>(v) : std::nullopt;
    };
    if (auto v = set("ZBDDC_GPU_GRAPH"))
        switches.graphs = *v != "0";
    if (auto v = set("ZBDDC_GPU_FLOAT32"))
        switches.narrowCosts = *v != "0";
    if (auto v = set("ZBDDC_GPU_PROFILE"))
        switches.profilePath = std::string(*v);
    return switches;
}

Result<std::unique_ptr<TensorExecutor>> makeTensorExecutor(std::string_view name,
                                                           const TensorExecutorOptions &options) {
    if (name == "auto")
        name = gpuUsable() ? "cuda" : "cpu";
    std::string known;
    for (const TensorExecutorEntry &e : kExecutors) {
        if (e.name == name)
            return e.make(options);
        known += std::string(e.name) + ", ";
    }
    return error("unknown tensor executor '" + std::string(name) + "' (known: " + known + "auto)");
}

} // namespace zbddc
