#include "runtime/bucket_elimination/problem_library.h"

#include "backends/tensor/so/problem_so.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/number_text.h"
#include "runtime/shared_object_check.h"
#include "zbdd_problem.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <sstream>

namespace zbddc {

namespace {
// dlopen a path as a file (a bare name would search the library path), once the file is known
// to hold every segment dlopen will map (runtime/shared_object_check.h).
void *openLibrary(const std::string &path) {
    if (!checkSharedObjectFile(path, "problem.so"))
        return nullptr;
    const std::string where = path.find('/') == std::string::npos ? "./" + path : path;
    return dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
}
} // namespace

Result<EliminationStats> writeProblemLibrary(const CostNetwork &network, const BeOptions &options,
                                             const std::string &path, bool emitC,
                                             const std::string &symbolPrefix) {
    std::vector<uint32_t> order = options.order;
    std::string heuristic =
        order.empty() ? std::string(orderHeuristicName(options.heuristic)) : "given";
    if (order.empty())
        order = greedyOrder(buildInteractionGraph(network.domainSizes, functionScopes(network)),
                            options.heuristic);
    auto st = eliminationStats(network, order, heuristic);
    if (!st)
        return st.error();
    if (st->order.totalMessageEntries > options.maxTotalEntries) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "bucket elimination needs about 10^%.1f table entries (induced width %u), "
                      "beyond the limit of 10^%.1f",
                      std::log10(st->order.totalMessageEntries), st->order.inducedWidth,
                      std::log10(options.maxTotalEntries));
        return error(msg);
    }
    auto program = buildBucketProgram(network, order);
    if (!program)
        return program.error();
    ProblemInfo info;
    info.name = network.name;
    info.variableNames = network.variableNames;
    info.integerCosts = network.integerCosts;
    info.upperBound = network.upperBound;
    info.facts = {{"heuristic", st->heuristic},
                  {"induced_width", std::to_string(st->order.inducedWidth)},
                  {"largest_table_entries", exactText(st->order.largestMessageEntries)},
                  {"total_table_entries", exactText(st->order.totalMessageEntries)},
                  {"buckets", std::to_string(st->buckets)},
                  {"levels", std::to_string(st->levels)}};
    if (emitC) {
        if (Status s = writeProblemSource(*program, info, path); !s)
            return s.error();
        return st;
    }
    ProblemSoOptions so;
    so.symbolPrefix = symbolPrefix;
    auto seconds = writeProblemSharedObject(*program, info, path, so);
    if (!seconds)
        return seconds.error();
    return st;
}

Result<ProblemMetadata> parseProblemMetadata(const std::string &text, const std::string &where) {
    ProblemMetadata m;
    std::istringstream in(text);
    std::string line;
    size_t lineNo = 0, variables = 0;
    bool header = false, counted = false;
    while (std::getline(in, line)) {
        ++lineNo;
        const size_t space = line.find(' ');
        const std::string key = line.substr(0, space);
        const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
        auto bad = [&](const std::string &what) { return errorAt(where, lineNo, what); };
        try {
            if (!header) {
                if (line != "zbdd-problem 1")
                    return bad("not a problem metadata header: '" + line + "'");
                header = true;
            } else if (key == "name") {
                m.name = value;
            } else if (key == "costs") {
                if (value != "integer" && value != "real" && value != "int64")
                    return bad("costs must be integer, real or int64, not '" + value + "'");
                m.integerCosts = value != "real";
                m.int64Costs = value == "int64";
            } else if (key == "upper_bound") {
                if (m.int64Costs) {
                    const long long ub = std::stoll(value);
                    if (ub <= 0)
                        return bad("upper bound " + value + " is not positive");
                    m.upperBound = int64Word(ub);
                } else {
                    m.upperBound = value == "inf" ? kForbidden : std::stod(value);
                }
            } else if (key == "heuristic") {
                m.heuristic = value;
            } else if (key == "induced_width") {
                m.inducedWidth = static_cast<uint32_t>(std::stoul(value));
            } else if (key == "largest_table_entries") {
                m.largestTableEntries = std::stod(value);
            } else if (key == "variables") {
                variables = std::stoul(value);
                counted = true;
            } else if (key == "variable") {
                const size_t gap = value.find(' ');
                m.domainSizes.push_back(static_cast<uint32_t>(std::stoul(value.substr(0, gap))));
                m.variableNames.push_back(gap == std::string::npos ? "" : value.substr(gap + 1));
            } // other keys (buckets, levels, ...) are for people
        } catch (const std::exception &) {
            return bad("bad value for '" + key + "': '" + value + "'");
        }
    }
    if (!header || !counted || m.domainSizes.size() != variables)
        return errorAt(where, lineNo, "metadata is truncated");
    return m;
}

CostNetwork ProblemMetadata::shape() const {
    CostNetwork net;
    net.name = name;
    net.variableNames = variableNames;
    net.domainSizes = domainSizes;
    net.upperBound = upperBound;
    net.integerCosts = integerCosts;
    net.int64Costs = int64Costs;
    return net;
}

struct ProblemLibrary::Handle {
    void *lib = nullptr;
    int (*solve)(const int *, double *, unsigned *) = nullptr;
    double (*cost)(const unsigned *) = nullptr;
    int (*solveInt64)(const int *, int64_t *, unsigned *) = nullptr; // `costs int64` only
    int64_t (*costInt64)(const unsigned *) = nullptr;
    void (*threads)(unsigned) = nullptr;
    ~Handle() {
        if (lib)
            dlclose(lib);
    }
};

bool ProblemLibrary::isProblemLibrary(const std::string &path) {
    return sharedObjectKind(path) == "problem.so"; // from its marker, without running its code
}

Result<ProblemLibrary> ProblemLibrary::open(const std::string &path) {
    if (Status s = checkSharedObjectFile(path, "problem.so"); !s)
        return s.error();
    ProblemLibrary p;
    p.path_ = path;
    p.handle_ = std::make_shared<Handle>();
    Handle &h = *p.handle_;
    h.lib = openLibrary(path);
    if (!h.lib) {
        const char *why = dlerror();
        return errorAt(path, 0,
                       std::string("cannot load problem: ") + (why ? why : "dlopen failed"));
    }
    auto abi = reinterpret_cast<int (*)(void)>(dlsym(h.lib, "zbdd_problem_abi_version"));
    auto count = reinterpret_cast<size_t (*)(void)>(dlsym(h.lib, "zbdd_problem_num_variables"));
    auto domain = reinterpret_cast<unsigned (*)(size_t)>(dlsym(h.lib, "zbdd_problem_domain_size"));
    auto meta = reinterpret_cast<const char *(*)(void)>(dlsym(h.lib, "zbdd_problem_metadata"));
    h.solve = reinterpret_cast<decltype(h.solve)>(dlsym(h.lib, "zbdd_problem_solve"));
    h.cost = reinterpret_cast<decltype(h.cost)>(dlsym(h.lib, "zbdd_problem_assignment_cost"));
    h.threads = reinterpret_cast<decltype(h.threads)>(dlsym(h.lib, "zbdd_problem_set_threads"));
    if (!abi || !count || !domain || !meta || !h.solve || !h.cost || !h.threads)
        return errorAt(path, 0,
                       "not a zbddc problem: the zbdd_problem_* functions of zbdd_problem.h are "
                       "missing");
    if (abi() != ZBDD_PROBLEM_ABI_VERSION)
        return errorAt(path, 0,
                       "problem ABI version " + std::to_string(abi()) + " is not the supported " +
                           std::to_string(ZBDD_PROBLEM_ABI_VERSION));
    auto text = sharedObjectMetadata(meta, path);
    if (!text)
        return text.error();
    auto m = parseProblemMetadata(std::string(*text), path + "(metadata)");
    if (!m)
        return m.error();
    bool agree = m->domainSizes.size() == count();
    for (size_t v = 0; agree && v < count(); ++v)
        agree = domain(v) == m->domainSizes[v];
    if (!agree)
        return errorAt(path, 0, "metadata disagrees with zbdd_problem_num_variables/domain_size");
    if (m->int64Costs) {
        h.solveInt64 =
            reinterpret_cast<decltype(h.solveInt64)>(dlsym(h.lib, "zbdd_problem_solve_int64"));
        h.costInt64 = reinterpret_cast<decltype(h.costInt64)>(
            dlsym(h.lib, "zbdd_problem_assignment_cost_int64"));
        if (!h.solveInt64 || !h.costInt64)
            return errorAt(path, 0,
                           "its costs are int64, but zbdd_problem_solve_int64 or "
                           "zbdd_problem_assignment_cost_int64 is missing");
    }
    p.metadata_ = std::move(*m);
    return p;
}

void ProblemLibrary::setThreads(unsigned threads) const {
    handle_->threads(threads);
}

Result<Solution> ProblemLibrary::solve(const std::vector<uint32_t> &evidence) const {
    const auto start = std::chrono::steady_clock::now();
    const size_t n = metadata_.domainSizes.size();
    if (!evidence.empty() && evidence.size() != n)
        return error("evidence must give one entry per variable");
    std::vector<int> observed(n, ZBDD_PROBLEM_FREE);
    for (size_t v = 0; v < evidence.size(); ++v)
        if (evidence[v] != UINT32_MAX) {
            if (evidence[v] >= metadata_.domainSizes[v])
                return error("evidence value of variable " + std::to_string(v) +
                             " is out of range");
            observed[v] = static_cast<int>(evidence[v]);
        }
    Solution sol;
    std::vector<unsigned> assignment(n);
    const int *observedOrNull = evidence.empty() ? nullptr : observed.data();
    // The cost as a CostNetwork holds it: a double, or an int64 word (solved exactly).
    double cost = 0;
    int rc = ZBDD_PROBLEM_OK;
    if (metadata_.int64Costs) {
        int64_t exact = 0;
        rc = handle_->solveInt64(observedOrNull, &exact, assignment.data());
        cost = int64Word(exact);
    } else {
        rc = handle_->solve(observedOrNull, &cost, assignment.data());
    }
    if (rc == ZBDD_PROBLEM_ENOMEM)
        return error("out of memory for the problem's message tables");
    if (rc != ZBDD_PROBLEM_OK)
        return error("zbdd_problem_solve failed with code " + std::to_string(rc));
    const CostNetwork costs = metadata_.shape();
    sol.assignment.assign(assignment.begin(), assignment.end());
    sol.feasible = costs.feasible(cost);
    sol.cost = sol.feasible ? cost : costs.forbidden();
    if (sol.feasible) {
        // The answer must stand on its own: its cost recomputed from the input tables.
        const double check = metadata_.int64Costs ? int64Word(handle_->costInt64(assignment.data()))
                                                  : handle_->cost(assignment.data());
        if (!costs.sameCost(check, cost))
            return error("internal error: the problem.so's assignment costs " +
                         costs.costText(check) + ", not the optimum " + costs.costText(cost));
    }
    sol.stats.heuristic = metadata_.heuristic;
    sol.stats.inducedWidth = metadata_.inducedWidth;
    sol.stats.largestTableEntries = metadata_.largestTableEntries;
    sol.device = {DeviceReport::Kind::Cpu, "", "problem.so"};
    sol.stats.totalMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return sol;
}

} // namespace zbddc
