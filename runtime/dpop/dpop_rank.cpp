#include "runtime/dpop/dpop_rank.h"

#include "compiler/elimination/util_program.h"
#include "runtime/dpop/dpop_message.h"
#include "runtime/dpop/idle_wait.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <numeric>
#include <optional>

namespace zbddc {

namespace {

struct AgentState {
    std::vector<CostFunction> received; // children's UTIL messages, until the UTIL is computed
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> childScopes; // what each child needs
    uint32_t waitingChildren = 0;
    double clockMs = 0; // simulated: when this agent last finished, as if it ran alone
    UtilProgram util;   // kept for the VALUE phase (it reads the input tables only)
};

// Variables ranked by (their agent's place in the order, index): later agents more significant.
std::vector<uint32_t> layoutRanks(const PseudoTree &tree) {
    std::vector<uint32_t> vars(tree.agentOf.size());
    std::iota(vars.begin(), vars.end(), 0u);
    std::sort(vars.begin(), vars.end(), [&](uint32_t a, uint32_t b) {
        const uint32_t pa = tree.position[tree.agentOf[a]], pb = tree.position[tree.agentOf[b]];
        return pa != pb ? pa < pb : a < b;
    });
    std::vector<uint32_t> rank(vars.size());
    for (uint32_t i = 0; i < vars.size(); ++i)
        rank[vars[i]] = i;
    return rank;
}

// The executors a rank's UTILs run on: the one asked for, except that where it is a GPU's, UTILs
// below kSmallUtilWork run on the CPU and the GPU's executor is made only for the first larger one
// (making it starts the rank's GPU context).
class UtilExecutors {
  public:
    static Result<UtilExecutors> make(const DpopRankOptions &o) {
        UtilExecutors e;
        e.options_ = o;
        const bool cpuOnly = o.executor == "cpu" || o.executor == "reference";
        auto first = makeTensorExecutor(cpuOnly ? o.executor : "cpu", o.execution);
        if (!first)
            return first.error();
        (cpuOnly ? e.asked_ : e.cpu_) = std::move(*first);
        return e;
    }
    Result<TensorExecutor *> forWork(double work) {
        if (cpu_ && work < kSmallUtilWork)
            return cpu_.get();
        if (!asked_) {
            auto made = makeTensorExecutor(options_.executor, options_.execution);
            if (!made)
                return made.error();
            asked_ = std::move(*made);
        }
        return asked_.get();
    }

  private:
    DpopRankOptions options_;
    std::unique_ptr<TensorExecutor> asked_, cpu_;
};

class RankLoop {
  public:
    RankLoop(const CostNetwork &net, const PseudoTree &tree, const std::vector<int> &rankOf,
             DpopTransport *transport, UtilExecutors &executors, double timeoutS, bool ownCores)
        : net_(net), tree_(tree), rankOf_(rankOf), transport_(transport), executors_(executors),
          timeoutS_(timeoutS), me_(transport ? transport->rank() : 0), state_(tree.numAgents),
          layoutRank_(layoutRanks(tree)), ownCores_(ownCores) {
        report_.assignment.assign(net.numVariables(), 0);
        report_.agentComputeMs.assign(tree.numAgents, 0);
    }

    Result<DpopRankReport> run() {
        std::vector<uint32_t> mine;
        for (uint32_t a = 0; a < tree_.numAgents; ++a)
            if (rankOf_[a] == me_) {
                mine.push_back(a);
                state_[a].waitingChildren = static_cast<uint32_t>(tree_.children[a].size());
                if (state_[a].waitingChildren == 0)
                    utilReady_.push_back(a);
            }
        if (utilReady_.empty())
            warmUp();
        size_t valuesLeft = mine.size();
        auto lastMessage = std::chrono::steady_clock::now();
        IdleWait idle(ownCores_);
        while (valuesLeft > 0) {
            Status step = Ok{};
            if (!utilReady_.empty()) {
                const uint32_t a = utilReady_.front();
                utilReady_.pop_front();
                step = computeUtil(a);
            } else if (!valueReady_.empty()) {
                const uint32_t a = valueReady_.front();
                valueReady_.pop_front();
                step = computeValue(a);
                --valuesLeft;
            } else {
                auto got =
                    transport_ ? transport_->poll() : Result<std::optional<DpopWire>>(std::nullopt);
                if (!got)
                    return got.error();
                if (*got) {
                    auto m = decodeDpopMessage(std::move(**got));
                    if (!m)
                        return error("rank " + std::to_string(me_) + ": " + m.error().message);
                    step = deliver(std::move(*m));
                    lastMessage = std::chrono::steady_clock::now();
                } else if (!transport_ || msSince(lastMessage) > 1000 * timeoutS_) {
                    return error(waitingText(mine));
                } else {
                    idle.pause();
                    continue;
                }
            }
            idle.reset();
            if (!step)
                return step.error();
        }
        if (transport_)
            if (Status s = transport_->flush(timeoutS_); !s)
                return error("rank " + std::to_string(me_) + ": " + s.error().message);
        // Only this rank's variables: the run's assignment is the sum over ranks.
        std::vector<uint32_t> own(net_.numVariables(), 0);
        for (uint32_t a : mine)
            for (uint32_t v : tree_.variables[a])
                own[v] = report_.assignment[v];
        report_.assignment = std::move(own);
        return std::move(report_);
    }

  private:
    // A rank that starts by waiting for its children runs a tiny UTIL and VALUE meanwhile: a
    // process's first UTIL costs some 50 µs more than the next (code and heap touched for the
    // first time; VM, grid-16), and where agents are spread over many ranks every UTIL is its
    // rank's first, each on the chain's critical path.
    void warmUp() {
        CostFunction pair, message;
        pair.scope = {0, 1};
        pair.costs.assign(4, 0);
        message.scope = {1};
        message.costs.assign(2, 0);
        const CostFunction *functions[] = {&pair};
        std::vector<CostFunction> messages;
        messages.push_back(std::move(message));
        const UtilProgram u =
            buildUtilProgram({2, 2}, net_.semiring(), functions, std::move(messages), {0}, {0, 1});
        if (auto executor = executors_.forWork(utilWork(u)); executor)
            (void)(*executor)->run(u.program);
        std::vector<uint32_t> assignment(2, 0);
        recoverAssignment(
            u.program,
            [&](uint32_t id, uint64_t row) { return inputTableValue(u.program.tables[id], row); },
            assignment);
    }

    Status computeUtil(uint32_t a) {
        const auto t0 = std::chrono::steady_clock::now();
        AgentState &s = state_[a];
        std::vector<const CostFunction *> functions;
        for (uint32_t f : tree_.functions[a])
            functions.push_back(&net_.functions[f]);
        s.util = buildUtilProgram(net_.domainSizes, net_.semiring(), functions,
                                  std::move(s.received), tree_.variables[a], layoutRank_);
        std::vector<double> values;
        if (s.util.program.ops.empty()) {
            values = s.util.program.tables[s.util.util].values;
        } else {
            const double work = utilWork(s.util);
            report_.largestUtilWork = std::max(report_.largestUtilWork, work);
            auto executor = executors_.forWork(work);
            if (!executor)
                return error("agent " + std::to_string(a) + ": " + executor.error().message);
            auto run = (*executor)->run(s.util.program);
            if (!run)
                return error("agent " + std::to_string(a) + ": " + run.error().message);
            values = std::move(run->tables[s.util.util]);
            if (report_.device.kind != DeviceKind::Cuda) // a GPU's report, once one ran
                report_.device = std::move(run->device);
        }
        s.received = {};
        const double ms = msSince(t0);
        report_.agentComputeMs[a] += ms;
        s.clockMs += ms; // clockMs already holds the latest child's clock
        report_.largestUtilEntries = std::max(report_.largestUtilEntries, double(values.size()));
        const uint32_t parent = tree_.parent[a];
        if (parent == kNoAgent) {
            report_.holdsRoot = true;
            report_.optimum = values.at(0);
            valueReady_.push_back(a);
            return Ok{};
        }
        DpopMessage m;
        m.kind = DpopMessage::Kind::Util;
        m.from = a;
        m.to = parent;
        m.clockMs = s.clockMs;
        m.scope = s.util.separator;
        m.table = std::move(values);
        return post(std::move(m));
    }

    Status computeValue(uint32_t a) {
        const auto t0 = std::chrono::steady_clock::now();
        AgentState &s = state_[a];
        const TensorProgram &p = s.util.program;
        recoverAssignment(
            p, [&](uint32_t id, uint64_t row) { return inputTableValue(p.tables[id], row); },
            report_.assignment);
        s.util = {};
        const double ms = msSince(t0);
        report_.agentComputeMs[a] += ms;
        s.clockMs += ms;
        report_.simulatedMs = std::max(report_.simulatedMs, s.clockMs);
        for (auto &[child, scope] : s.childScopes) {
            DpopMessage m;
            m.kind = DpopMessage::Kind::Value;
            m.from = a;
            m.to = child;
            m.clockMs = s.clockMs;
            m.scope = scope;
            for (uint32_t v : scope)
                m.values.push_back(report_.assignment[v]);
            if (Status st = post(std::move(m)); !st)
                return st;
        }
        return Ok{};
    }

    // Counts the message, then hands it over: in place on this rank, else to the transport.
    Status post(DpopMessage m) {
        const bool util = m.kind == DpopMessage::Kind::Util;
        ++(util ? report_.utilMessages : report_.valueMessages);
        report_.messageBytes += dpopMessageBytes(m);
        if (rankOf_[m.to] == me_)
            return deliver(std::move(m));
        const int to = rankOf_[m.to];
        return transport_->send(to, encodeDpopMessage(std::move(m)));
    }

    Status deliver(DpopMessage m) {
        const std::string where = "rank " + std::to_string(me_) + ": ";
        if (m.to >= tree_.numAgents || rankOf_[m.to] != me_ || m.from >= tree_.numAgents)
            return error(where + "a message for agent " + std::to_string(m.to) +
                         ", which this rank does not run");
        AgentState &s = state_[m.to];
        for (uint32_t v : m.scope)
            if (v >= net_.numVariables())
                return error(where + "a message names unknown variable " + std::to_string(v));
        if (m.kind == DpopMessage::Kind::Util) {
            uint64_t rows = 0;
            if (tree_.parent[m.from] != m.to || !tableSize(net_.domainSizes, m.scope, rows) ||
                rows != m.table.size() || s.waitingChildren == 0)
                return error(where + "a UTIL message from agent " + std::to_string(m.from) +
                             " that agent " + std::to_string(m.to) + " did not expect");
            s.childScopes.emplace_back(m.from, m.scope);
            CostFunction f;
            f.scope = std::move(m.scope);
            f.costs = std::move(m.table);
            s.received.push_back(std::move(f));
            s.clockMs = std::max(s.clockMs, m.clockMs);
            if (--s.waitingChildren == 0)
                utilReady_.push_back(m.to);
            return Ok{};
        }
        if (tree_.parent[m.to] != m.from || m.values.size() != m.scope.size())
            return error(where + "a VALUE message from agent " + std::to_string(m.from) +
                         " that agent " + std::to_string(m.to) + " did not expect");
        for (size_t i = 0; i < m.scope.size(); ++i)
            report_.assignment[m.scope[i]] = m.values[i];
        s.clockMs = std::max(s.clockMs, m.clockMs);
        valueReady_.push_back(m.to);
        return Ok{};
    }

    // Why the loop gave up: the first few agents of this rank waiting on other ranks, and on whom.
    std::string waitingText(const std::vector<uint32_t> &mine) const {
        std::string text = "rank " + std::to_string(me_) + ": no message for " +
                           secondsText(timeoutS_) + " (--phase-timeout);";
        int listed = 0;
        for (uint32_t a : mine) {
            const AgentState &s = state_[a];
            std::string on;
            if (s.waitingChildren > 0) {
                on = "UTIL from";
                for (uint32_t c : tree_.children[a]) {
                    bool arrived = false;
                    for (const auto &cs : s.childScopes)
                        arrived = arrived || cs.first == c;
                    if (!arrived && rankOf_[c] != me_)
                        on += " agent " + std::to_string(c) + " (rank " +
                              std::to_string(rankOf_[c]) + ")";
                }
            } else if (!s.util.program.tables.empty() && tree_.parent[a] != kNoAgent &&
                       rankOf_[tree_.parent[a]] != me_) {
                on = "VALUE from agent " + std::to_string(tree_.parent[a]) + " (rank " +
                     std::to_string(rankOf_[tree_.parent[a]]) + ")";
            }
            if (on.empty() || on == "UTIL from" || listed == 3)
                continue;
            text += (listed++ ? ";" : "") + std::string(" agent ") + std::to_string(a) +
                    " waits for " + on;
        }
        return text;
    }

    const CostNetwork &net_;
    const PseudoTree &tree_;
    const std::vector<int> &rankOf_;
    DpopTransport *transport_;
    UtilExecutors &executors_;
    double timeoutS_;
    int me_;
    std::vector<AgentState> state_;
    std::vector<uint32_t> layoutRank_;
    bool ownCores_; // every rank on this host has a core to itself
    std::deque<uint32_t> utilReady_, valueReady_;
    DpopRankReport report_;
};

} // namespace

Result<DpopRankReport> runDpopRank(const CostNetwork &network, const PseudoTree &tree,
                                   const std::vector<int> &rankOf, DpopTransport *transport,
                                   const DpopRankOptions &options) {
    if (rankOf.size() != tree.numAgents)
        return error("the placement must give one rank per agent");
    auto executors = UtilExecutors::make(options);
    if (!executors)
        return executors.error();
    return RankLoop(network, tree, rankOf, transport, *executors, options.timeoutS,
                    options.ownCores)
        .run();
}

std::vector<int> placeAgents(const PseudoTree &tree, int ranks) {
    std::vector<uint32_t> preorder, stack{tree.root()};
    while (!stack.empty()) {
        const uint32_t a = stack.back();
        stack.pop_back();
        preorder.push_back(a);
        for (auto c = tree.children[a].rbegin(); c != tree.children[a].rend(); ++c)
            stack.push_back(*c);
    }
    std::vector<int> rankOf(tree.numAgents, 0);
    for (size_t i = 0; i < preorder.size(); ++i)
        rankOf[preorder[i]] = static_cast<int>(i * ranks / preorder.size());
    return rankOf;
}

} // namespace zbddc
