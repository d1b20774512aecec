#include "tools/zbddc/flag_table.h"

#include <algorithm>
#include <iostream>

namespace zbddc::cli {

using pipeline::ModelKind;

namespace {

constexpr ColumnName kColumns[] = {
    {NetworkMlf, ModelKind::Network, "mlf"},      {NetworkJt, ModelKind::Network, "jt"},
    {NetworkBe, ModelKind::Network, "be"},        {NetworkLbp, ModelKind::Network, "lbp"},
    {ZddMlf, ModelKind::Zdd, "mlf"},              {CostBe, ModelKind::CostNetwork, "be"},
    {CostLbp, ModelKind::CostNetwork, "lbp"},     {ModelSo, ModelKind::ModelLibrary, "mlf"},
    {NetworkSo, ModelKind::NetworkLibrary, "jt"}, {ProblemSo, ModelKind::ProblemLibrary, "be"},
    {CostJt, ModelKind::CostNetwork, "jt"},      {CircuitMlf, ModelKind::Circuit, "mlf"},
};

constexpr uint16_t kMlf = NetworkMlf | ZddMlf | CircuitMlf;
constexpr uint16_t kBe = NetworkBe | CostBe;
constexpr uint16_t kLbp = NetworkLbp | CostLbp;
constexpr uint16_t kLibraries = ModelSo | NetworkSo | ProblemSo;
constexpr uint16_t kCompiled = kAllColumns & ~kLibraries; // routes compiled by zbddc now
constexpr uint16_t kCompiledIntoSo = kCompiled & ~kLbp & ~CostJt; // what writes a library
constexpr uint16_t kReadNetwork = NetworkMlf | NetworkJt | NetworkLbp | CostJt; // the network reader's
constexpr uint16_t kDistributed = CostBe; // DPOP over MPI ranks (cmd_run_distributed.cpp)

constexpr FlagRule kRun[] = {
    {"--task", kAllColumns},
    {"--evidence", kAllColumns},
    {"--evidence-format", kAllColumns},
    {"--output", kAllColumns},
    {"--uai-output", kAllColumns},
    {"--json", kAllColumns},
    {"--route", kAllColumns},
    {"--quiet", kAllColumns},
    {"--progress", kAllColumns},
    {"--device", kAllColumns},
    {"--device cuda", kCompiled},
    {"--device reference", kCompiled & ~kLbp},
    {"--device split", kBe},
    {"--inputs", kMlf | ModelSo},
    {"-O", kMlf},
    {"--cpu-loop", kMlf},
    {"--cpu-jit", kMlf},
    {"--host-level-ops", kMlf},
    {"--numeric", kMlf | ModelSo},
    {"--strict", kReadNetwork},
    {"--mlf-order", NetworkMlf},
    {"--zbdd-node-limit", NetworkMlf},
    {"--search-ms", NetworkJt | CostJt},
    {"--weights", CircuitMlf},
    {"--weight-cases", CircuitMlf},
    {"--order", NetworkJt | CostJt | kBe},
    {"--heuristic", NetworkJt | CostJt | kBe},
    {"--heuristic search", NetworkJt | CostJt},
    {"--incomplete-tables", kBe},
    {"--distributed", kDistributed},
    {"--agents", kDistributed},
    {"--phase-timeout", kDistributed},
    {"--split-threshold", kBe},
    {"--devices", kCompiled & ~kLbp},
    {"--iterations", kLbp},
    {"--tolerance", kLbp},
    {"--damping", kLbp},
    {"--update-order", kLbp},
    {"--approximate", kCompiled},
    {"--estimate-only", kCompiled},
};

constexpr FlagRule kCompile[] = {
    {"--output", kCompiled},
    {"--route", kCompiled},
    {"--quiet", kCompiled},
    {"--progress", kCompiled},
    {"-O", kMlf},
    {"--emit", kMlf | kBe},
    {"--semiring", kMlf},
    {"--numeric", kMlf},
    {"--symbol-prefix", kMlf | kBe},
    {"--batch", NetworkJt},
    {"--strict", NetworkMlf | NetworkJt},
    {"--mlf-order", NetworkMlf},
    {"--zbdd-node-limit", NetworkMlf},
    {"--weights", CircuitMlf},
    {"--elimination", NetworkBe},
    {"--order", NetworkJt | kBe},
    {"--heuristic", NetworkJt | kBe},
    {"--heuristic search", NetworkJt},
};

std::string describe(uint16_t candidates, ModelKind kind, const std::string &route) {
    std::string text = std::string("a ") + pipeline::modelKindName(kind);
    if (route != "auto")
        return text + " on route " + route;
    std::string routes;
    for (const ColumnName &c : kColumns)
        if (candidates & c.column)
            routes += std::string(routes.empty() ? "" : " or ") + c.route;
    return text + " (route auto: " + routes + ")";
}

} // namespace

int usageError(const std::string &message) {
    std::cerr << "zbddc: " << message << "\n";
    return 2;
}

Diagnostic withFlagHints(Diagnostic d) {
    if (d.message.find("ZBDD node limit") != std::string::npos)
        d.message += "; --zbdd-node-limit N raises the limit, and --route jt answers networks "
                     "without a ZBDD";
    return d;
}

std::span<const ColumnName> columnNames() { return kColumns; }
std::span<const FlagRule> runFlagRules() { return kRun; }
std::span<const FlagRule> compileFlagRules() { return kCompile; }

uint16_t candidateColumns(ModelKind kind, std::span<const std::string> routes, bool compile) {
    uint16_t columns = 0;
    for (const ColumnName &c : kColumns)
        for (const std::string &route : routes)
            if (c.kind == kind && (route == c.route || kind == ModelKind::NetworkLibrary))
                columns |= c.column; // a network.so answers on its own route, whichever is named
    return compile ? columns & kCompiledIntoSo : columns;
}

std::optional<std::string> refusedFlag(std::span<const std::string> given,
                                       std::span<const FlagRule> rules, uint16_t candidates,
                                       ModelKind kind, const std::string &route) {
    for (const std::string &flag : given) {
        auto rule = std::find_if(rules.begin(), rules.end(),
                                 [&](const FlagRule &r) { return r.flag == flag; });
        if (rule == rules.end() && flag.find(' ') != std::string::npos)
            continue; // a value with no rule of its own: the flag's rule decides
        if (rule == rules.end()) // a flag of the command line that the table forgot
            return flag + " is missing from the flag table (tools/zbddc/flag_table.cpp)";
        if (rule->columns & candidates)
            continue;
        return flag + " does not apply to " + describe(candidates, kind, route);
    }
    return std::nullopt;
}

} // namespace zbddc::cli
