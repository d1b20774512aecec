#include "runtime/shared_objects/problem_library.h"

#include "ir/so_metadata.h"
#include "zbdd_problem.h"

#include <chrono>
#include <climits>

namespace zbddc {


namespace {

// The facts zbddc reads back (the others, buckets, levels, ..., are for people).
Status readProblemFacts(const MetadataFacts &facts, ProblemMetadata &m, const TokenCursor &in) {
    for (const auto &[key, value] : facts) {
        auto bad = [&, &key = key, &value = value](const std::string &why) {
            return in.fail("'" + key + " " + shownToken(value) + "': " + why);
        };
        uint64_t whole = 0;
        double number = 0;
        if (key == "name") {
            m.shape.name = value;
        } else if (key == "costs") {
            if (value != "integer" && value != "real" && value != "int64")
                return bad("costs are integer, real or int64");
            m.shape.integerCosts = value != "real";
            m.shape.int64Costs = value == "int64";
        } else if (key == "upper_bound" && m.shape.int64Costs) {
            if (!parseUnsigned(value, whole) || whole == 0 || whole > uint64_t(INT64_MAX))
                return bad("not a positive int64");
            m.shape.upperBound = int64Word(static_cast<int64_t>(whole));
        } else if (key == "upper_bound") {
            if (value != "inf" && !parseDouble(value, number))
                return bad("not a number");
            m.shape.upperBound = value == "inf" ? kForbidden : number;
        } else if (key == "heuristic") {
            m.heuristic = value;
        } else if (key == "induced_width") {
            if (!parseUnsigned(value, whole) || whole > UINT32_MAX)
                return bad("not a width");
            m.inducedWidth = static_cast<uint32_t>(whole);
        } else if (key == "largest_table_entries") {
            if (!parseDouble(value, m.largestTableEntries))
                return bad("not a number");
        }
    }
    return Ok{};
}

} // namespace

Result<ProblemMetadata> parseProblemMetadata(std::string_view text, const std::string &where) {
    ProblemMetadata m;
    Status read = readMetadata(text, "problem", where, 2, 2,
                               [&](TokenCursor &in, MetadataFacts &facts) -> Status {
        if (Status s = readProblemFacts(facts, m, in); !s)
            return s;
        // `variables N`, then per variable `variable DOMAIN_SIZE NAME`.
        auto count = readCount(in, "variables", 1u << 30);
        if (!count)
            return count.error();
        for (uint64_t v = 0; v < *count; ++v) {
            if (Status s = in.expect("variable"); !s)
                return s;
            auto size = in.unsignedInt("domain size", UINT32_MAX);
            auto name = size ? in.name("variable name") : Result<std::string>(size.error());
            if (!name)
                return name.error();
            m.shape.domainSizes.push_back(static_cast<uint32_t>(*size));
            m.shape.variableNames.push_back(std::move(*name));
        }
        return Ok{};
    });
    if (!read)
        return read.error();
    return m;
}

Result<ProblemLibrary> ProblemLibrary::open(const std::string &path) {
    auto lib = SharedLibrary::open(path, kProblemSo);
    if (!lib)
        return lib.error();
    ProblemLibrary p;
    size_t (*count)(void);
    unsigned (*domain)(size_t);
    lib->bind(count, "zbdd_problem_num_variables");
    lib->bind(domain, "zbdd_problem_domain_size");
    lib->bind(p.solve_, "zbdd_problem_solve");
    lib->bind(p.cost_, "zbdd_problem_assignment_cost");
    lib->bind(p.threads_, "zbdd_problem_set_threads");
    if (Status s = lib->bound(); !s)
        return s.error();
    auto m = parseProblemMetadata(lib->metadata(), lib->metadataName());
    if (!m)
        return m.error();
    bool agree = m->shape.domainSizes.size() == count();
    for (size_t v = 0; agree && v < count(); ++v)
        agree = domain(v) == m->shape.domainSizes[v];
    if (!agree)
        return lib->fail("metadata disagrees with zbdd_problem_num_variables/domain_size");
    if (m->shape.int64Costs) {
        lib->bind(p.solveInt64_, "zbdd_problem_solve_int64");
        lib->bind(p.costInt64_, "zbdd_problem_assignment_cost_int64");
        if (Status s = lib->bound(); !s)
            return s.error();
    }
    p.metadata_ = std::move(*m);
    p.lib_ = std::move(*lib);
    return p;
}

void ProblemLibrary::setThreads(unsigned threads) const {
    threads_(threads);
}

Result<Solution> ProblemLibrary::solve(const std::vector<uint32_t> &evidence) const {
    const auto start = std::chrono::steady_clock::now();
    const size_t n = metadata_.shape.domainSizes.size();
    if (!evidence.empty() && evidence.size() != n)
        return error("evidence must give one entry per variable");
    std::vector<int> observed(n, ZBDD_PROBLEM_FREE);
    for (size_t v = 0; v < evidence.size(); ++v)
        if (evidence[v] != UINT32_MAX) {
            if (evidence[v] >= metadata_.shape.domainSizes[v])
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
    if (metadata_.shape.int64Costs) {
        int64_t exact = 0;
        rc = solveInt64_(observedOrNull, &exact, assignment.data());
        cost = int64Word(exact);
    } else {
        rc = solve_(observedOrNull, &cost, assignment.data());
    }
    if (rc == ZBDD_PROBLEM_ENOMEM)
        return error("out of memory for the problem's message tables");
    if (rc != ZBDD_PROBLEM_OK)
        return error("zbdd_problem_solve failed with code " + std::to_string(rc));
    const CostNetwork &costs = metadata_.shape;
    sol.assignment.assign(assignment.begin(), assignment.end());
    sol.feasible = costs.feasible(cost);
    sol.cost = sol.feasible ? cost : costs.forbidden();
    if (sol.feasible) {
        // The answer must stand on its own: its cost recomputed from the input tables.
        const double check = metadata_.shape.int64Costs ? int64Word(costInt64_(assignment.data()))
                                                        : cost_(assignment.data());
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
