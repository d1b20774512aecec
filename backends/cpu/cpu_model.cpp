#include "backends/cpu/cpu_model.h"

#include "backends/cpu/batched_loop.h"
#include "backends/cpu/llvm_module.h"

#include "ir/interpret.h"
#include "ir/model_interface.h"
#include "ir/optimal_term.h"
#include "support/threads.h"
#include "backends/cpu/evaluator/zbdd_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace zbddc {

struct CpuModel::Impl {
    std::shared_ptr<void> jit; // the LLVM module's JIT, holding the code `program` calls
    zbdd_program program{};
    CpuPlan plan;
    CompileTimes times;
    unsigned threads = 0;
    bool backward = false;
    // CpuOptions::dataDriven: the loops instead of JIT code; the forward one reuses slots, the
    // backward one keeps every value for the adjoint pass.
    std::optional<BatchedLoop> forwardLoop, backwardLoop;
    // JIT code in a max/min semiring with the backward pass: the circuit, walked over
    // zbdd_gen_forward_all's values (plan.position: each op's index among them).
    std::optional<Circuit> walked;
};

CpuModel::CpuModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuModel::CpuModel(CpuModel &&) noexcept = default;
CpuModel &CpuModel::operator=(CpuModel &&) noexcept = default;
CpuModel::~CpuModel() = default;

size_t CpuModel::numInputs() const { return impl_->program.num_inputs; }
size_t CpuModel::numOutputs() const { return impl_->program.num_outputs; }
Semiring CpuModel::semiring() const { return impl_->plan.semiring; }
Numeric CpuModel::numeric() const { return impl_->plan.numeric; }
bool CpuModel::hasBackward() const { return impl_->backward; }
const CompileTimes &CpuModel::compileTimes() const { return impl_->times; }
size_t CpuModel::storedValues() const {
    return impl_->forwardLoop ? impl_->forwardLoop->numSlots() : impl_->plan.numSlots;
}

namespace {

Status runtimeStatus(int code) {
    switch (code) {
    case ZBDD_OK: return Ok{};
    case ZBDD_ENOMEM: return error("out of memory for the evaluation buffers");
    case ZBDD_EARG: return error("bad argument (output index out of range?)");
    case ZBDD_ENOBACKWARD: return error("the model was compiled without the adjoint pass");
    default: return error("cannot start evaluation threads");
    }
}

Status checkSizes(size_t have, size_t rows, size_t width, const char *what) {
    if (have != rows * width)
        return error(std::string(what) + " holds " + std::to_string(have) + " values; expected " +
                     std::to_string(rows) + " x " + std::to_string(width));
    return Ok{};
}

} // namespace

void CpuModel::setEvalThreads(unsigned threads) {
    impl_->threads = threads;
    for (auto *loop : {&impl_->forwardLoop, &impl_->backwardLoop})
        if (*loop)
            (*loop)->setThreads(threads);
}

Status CpuModel::evaluate(std::span<const double> x, std::span<double> out, size_t batch) const {
    if (Status s = checkSizes(x.size(), batch, numInputs(), "x"); !s)
        return s;
    if (Status s = checkSizes(out.size(), batch, numOutputs(), "out"); !s)
        return s;
    if (impl_->forwardLoop)
        return impl_->forwardLoop->evaluate(x, out, batch);
    return runtimeStatus(zbdd_run_eval(&impl_->program, x.data(), out.data(), batch, impl_->threads));
}

Result<std::vector<double>> CpuModel::evaluate(std::span<const double> x, size_t batch) const {
    std::vector<double> out(batch * numOutputs());
    if (Status s = evaluate(x, out, batch); !s)
        return s.error();
    return out;
}

Status CpuModel::adjoints(std::span<const double> x, size_t output, std::span<double> adj,
                          size_t batch) const {
    if (Status s = checkSizes(x.size(), batch, numInputs(), "x"); !s)
        return s;
    if (Status s = checkSizes(adj.size(), batch, numInputs(), "adj"); !s)
        return s;
    if (impl_->forwardLoop) {
        if (!impl_->backwardLoop)
            return runtimeStatus(ZBDD_ENOBACKWARD);
        return impl_->backwardLoop->adjoints(x, output, adj, batch);
    }
    return runtimeStatus(zbdd_run_adjoints(&impl_->program, x.data(), output, adj.data(), batch,
                                           impl_->threads));
}

bool CpuModel::tracesBack() const {
    return impl_->walked ||
           (impl_->backwardLoop && impl_->backwardLoop->semiring() != Semiring::SumProduct);
}

namespace {

// The JIT's traceback of vectors [begin, end): each one's op values from zbdd_gen_forward_all,
// the leaves' as the reference evaluator lifts them, then ir/interpret.h's walk from the output
// (the winning side of every ⊕, the first on a tie; both sides of every ⊗) and the states of the
// indicators on the term. A term with two states of one variable is not traced.
void walkJit(const CpuModel::Impl &impl, std::span<const double> x, size_t output,
             std::span<const uint32_t> indicator, size_t numVariables, std::span<double> out,
             std::span<uint32_t> states, std::span<uint8_t> traced, std::span<uint8_t> tied,
             size_t begin, size_t end) {
    const Circuit &c = *impl.walked;
    const zbdd_program &p = impl.program;
    const bool log = impl.plan.numeric == Numeric::Log;
    const SemiringOps ops{impl.plan.semiring};
    auto lift = [&](double v) { return log ? std::log(v) : v; };
    const size_t n = c.numInputs();
    Evaluation e{impl.plan.semiring, impl.plan.numeric, std::vector<double>(c.numNodes())};
    for (NodeId id = 0; id < c.numNodes(); ++id) // the leaves no vector changes
        switch (c.kind[id]) {
        case OpKind::Zero: e.values[id] = lift(ops.zero()); break;
        case OpKind::One: e.values[id] = lift(ops.one()); break;
        case OpKind::Const: e.values[id] = lift(c.constants[c.a[id]]); break;
        default: break;
        }
    std::vector<double> xin(n), values(p.num_values);
    for (size_t s = begin; s < end; ++s) {
        for (size_t i = 0; i < n; ++i)
            xin[i] = lift(x[s * n + i]);
        p.forward_all(xin.data(), values.data(), out.data() + s * c.numOutputs());
        for (NodeId id = 0; id < c.numNodes(); ++id)
            if (c.kind[id] == OpKind::Input)
                e.values[id] = xin[c.a[id]];
            else if (isOp(c.kind[id]) && impl.plan.position[id] != kNone)
                e.values[id] = values[impl.plan.position[id]];
        std::span<uint32_t> row = states.subspan(s * numVariables, numVariables);
        std::fill(row.begin(), row.end(), kNone);
        traced[s] = 1;
        std::optional<bool> tie;
        for (uint32_t i : traceback(c, e, output, tied.empty() ? nullptr : &tie))
            traced[s] &= setIndicatorState(indicator, i, row);
        if (!tied.empty())
            tied[s] = tie.value_or(true); // float32 values cannot tell: tied
    }
}

} // namespace

Status CpuModel::traceback(std::span<const double> x, size_t output,
                           std::span<const uint32_t> indicator, size_t numVariables,
                           std::span<double> out, std::span<uint32_t> states,
                           std::span<uint8_t> traced, size_t batch,
                           std::span<uint8_t> tied) const {
    if (!tracesBack())
        return error("this CPU model has no traceback (a sum-product semiring, or no backward "
                     "pass)");
    if (impl_->backwardLoop)
        return impl_->backwardLoop->traceback(x, output, indicator, numVariables, out, states,
                                              traced, batch, tied);
    if (Status s = checkSizes(x.size(), batch, numInputs(), "x"); !s)
        return s;
    if (Status s = checkSizes(out.size(), batch, numOutputs(), "out"); !s)
        return s;
    if (output >= numOutputs() || indicator.size() != 2 * numInputs() ||
        states.size() != batch * numVariables || traced.size() != batch ||
        (!tied.empty() && tied.size() != batch))
        return runtimeStatus(ZBDD_EARG);
    const unsigned threads = threadsOrCores(impl_->threads);
    inRanges(std::min<size_t>(threads, batch), batch, [&](size_t begin, size_t end) {
        walkJit(*impl_, x, output, indicator, numVariables, out, states, traced, tied, begin, end);
    });
    return Ok{};
}

namespace {
Result<CpuModel::Impl> buildDataDriven(const Circuit &c, const CpuOptions &o) {
    const auto t0 = std::chrono::steady_clock::now();
    CpuModel::Impl impl;
    auto forward = BatchedLoop::build(c, o);
    if (!forward)
        return forward.error();
    if (o.backward) {
        auto backward = BatchedLoop::build(c, o, /*keepValues=*/true);
        if (!backward)
            return backward.error();
        impl.backwardLoop = std::move(*backward);
    }
    impl.plan.semiring = forward->semiring();
    impl.plan.numeric = forward->numeric();
    impl.program.num_inputs = c.numInputs();
    impl.program.num_outputs = c.numOutputs();
    impl.forwardLoop = std::move(*forward);
    impl.threads = o.threads;
    impl.backward = o.backward;
    impl.times.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return impl;
}
} // namespace

Result<CpuModel> compileCpu(const Circuit &c, const CpuOptions &o) {
    if (o.dataDriven) {
        auto impl = buildDataDriven(c, o);
        if (!impl)
            return impl.error();
        return CpuModel(std::make_unique<CpuModel::Impl>(std::move(*impl)));
    }
    const Semiring semiring = o.semiring.value_or(c.semiring);
    auto objects = compileObjects(c, o, writeModelMetadata(c, semiring, o.numeric), false);
    if (!objects)
        return objects.error();
    auto llvm = llvmFunctions();
    if (!llvm)
        return llvm.error();
    auto code = (*llvm)->linkInProcess(objects->objects, o.backward);
    if (!code)
        return code.error();
    auto impl = std::make_unique<CpuModel::Impl>();
    impl->jit = std::move(code->jit);
    zbdd_program &p = impl->program;
    p.forward = reinterpret_cast<decltype(p.forward)>(code->forward);
    p.forward_all = reinterpret_cast<decltype(p.forward_all)>(code->forwardAll);
    p.backward = reinterpret_cast<decltype(p.backward)>(code->backward);
    p.seed = reinterpret_cast<decltype(p.seed)>(code->seed);
    impl->plan = std::move(objects->plan);
    p.num_inputs = c.numInputs();
    p.num_outputs = c.numOutputs();
    p.num_slots = impl->plan.numSlots;
    p.num_values = impl->plan.ops.size();
    p.semiring = static_cast<int>(impl->plan.semiring);
    p.log_space = impl->plan.numeric == Numeric::Log;
    impl->times = objects->times;
    impl->threads = o.threads;
    impl->backward = o.backward;
    // The plan's per-node arrays are not needed after code generation, but for the walk.
    if (o.backward && impl->plan.semiring != Semiring::SumProduct)
        impl->walked = c;
    else
        impl->plan.position = {};
    impl->plan.slot = {};
    impl->plan.ops = {};
    return CpuModel(std::move(impl));
}

} // namespace zbddc
