#include "runtime/bucket_elimination/tensor_executor.h"

#include "backends/tensor/cpu/incomplete_cpu.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "ir/tensor_interpret.h"
#include "runtime/bucket_elimination/tensor_executor_entries.h"

#include "support/timer.h"

#include <chrono>
#include <unistd.h>

namespace zbddc {

std::string DeviceReport::label() const {
    static constexpr const char *kNames[] = {"reference", "cpu", "cuda", "split"};
    std::string s = kNames[static_cast<size_t>(kind)];
    if (kind == Kind::Cuda)
        s += ": " + gpu;
    if (!notes.empty())
        s += " (" + notes + ")";
    return s;
}

Result<SolvedProgram> TensorExecutor::solve(const TensorProgram &program,
                                            std::vector<uint32_t> &assignment) {
    auto run = this->run(program);
    if (!run)
        return run.error();
    SolvedProgram out;
    out.device = std::move(run->device);
    const auto t0 = std::chrono::steady_clock::now();
    out.optimum = programResult(program, run->tables);
    recoverAssignment(program, run->tables, assignment);
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

class HostPreparedProgram final : public PreparedTensorProgram {
  public:
    HostPreparedProgram(TensorExecutor &executor, TensorProgram program)
        : executor_(executor), program_(std::move(program)) {}
    Status setInput(uint32_t table, std::span<const double> values) override {
        Table &t = program_.tables[table];
        if (!t.input || t.sparse || values.size() != t.values.size())
            return error("internal error: table " + std::to_string(table) +
                         " is not a complete input of that size");
        t.values.assign(values.begin(), values.end());
        return Ok{};
    }
    Result<CompleteTables> run() override { return executor_.run(program_); }

  private:
    TensorExecutor &executor_;
    TensorProgram program_;
};

} // namespace

Status PreparedTensorProgram::decodeCases(std::vector<uint32_t> &, const std::vector<uint8_t> &,
                                          uint32_t) {
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

Result<std::unique_ptr<TensorExecutor>> makeTensorExecutor(std::string_view name,
                                                           const TensorExecutorOptions &options) {
    if (name == "auto")
        name = tensorGpuUsable() ? "cuda" : "cpu";
    std::string known;
    for (const TensorExecutorEntry &e : kExecutors) {
        if (e.name == name)
            return e.make(options);
        known += std::string(e.name) + ", ";
    }
    return error("unknown tensor executor '" + std::string(name) + "' (known: " + known +
                 "auto)");
}

} // namespace zbddc
