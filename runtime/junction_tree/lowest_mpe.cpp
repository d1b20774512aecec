#include "runtime/junction_tree/lowest_mpe.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/junction_tree/evidence_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "runtime/junction_tree/junction_tree_answer.h"
#include "support/sha256.h"

#include <cmath>
#include <span>
#include <string>

namespace zbddc {

Result<LowestMpe> lowestMpe(const FactorModel &model, const JunctionTree &network,
                            const std::vector<std::vector<uint32_t>> &families,
                            const std::vector<uint8_t> &rowsSumToOne, const Evidence &evidence) {
    static_assert(kNone == UINT32_MAX, "caseStates reads kNone as unobserved");
    if (evidenceContradicted(evidence))
        return undefinedError(Task::Mpe);
    auto own = caseJunctionTree(network, families, evidence.states, CaseTree::ByCost);
    if (!own)
        return own.error();
    const JunctionTree &tree = own->has_value() ? **own : network;
    JunctionTreeLowering lowering;
    lowering.maxProduct = true;
    lowering.caseStates = evidence.states;
    lowering.rowsSumToOne = rowsSumToOne;
    auto lowered = lowerJunctionTree(model, tree, lowering);
    if (!lowered)
        return lowered.error();
    auto tables = runTensorProgramCpu(lowered->program, {.threads = 1});
    if (!tables)
        return tables.error();
    const double logValue = junctionTreeLogNormaliser(*lowered, *tables, 0);
    if (std::isinf(logValue))
        return undefinedError(Task::Mpe);
    LowestMpe out = lowestAssignment(*lowered, *tables, evidence);
    out.logValue = logValue;
    return out;
}

LowestMpe lowestAssignment(const JunctionTreeProgram &lowered,
                           const std::vector<std::vector<double>> &tables,
                           const Evidence &evidence) {
    const uint32_t n = static_cast<uint32_t>(evidence.states.size());
    std::vector<uint32_t> assignment(n + 1, 0); // and the case variable, one case
    std::vector<uint8_t> observed(n + 1, 0);
    for (uint32_t v = 0; v < n; ++v) {
        observed[v] = evidence.states[v] != kNone;
        assignment[v] = observed[v] ? evidence.states[v] : 0;
    }
    recoverLowestAssignment(lowered.program, tables, assignment, &observed);
    assignment.pop_back();
    LowestMpe out;
    out.assignment = std::move(assignment);
    const TensorProgram &p = lowered.program;
    for (size_t o = p.ops.size(); o-- > 0;) // as the walk goes
        if (p.ops[o].kind == TensorOpKind::Marginalize ||
            p.ops[o].kind == TensorOpKind::EliminateBucket)
            for (uint32_t v : p.ops[o].vars)
                if (v < n && !observed[v])
                    out.decisionOrder.push_back(v);
    return out;
}

uint64_t lowestMpeKey(const JunctionTree &network,
                      const std::vector<std::vector<uint32_t>> &families, CaseTree caseTree) {
    Sha256 digest;
    auto add = [&](std::span<const uint32_t> words) {
        const uint64_t size = words.size();
        digest.update({reinterpret_cast<const char *>(&size), sizeof size});
        digest.update({reinterpret_cast<const char *>(words.data()), words.size_bytes()});
    };
    const uint32_t choice = static_cast<uint32_t>(caseTree);
    add({&choice, 1});
    for (const std::vector<uint32_t> *part :
         {&network.domainSizes, &network.cliqueStart, &network.cliqueVars, &network.parent,
          &network.separatorStart, &network.separatorVars, &network.factorClique,
          &network.variableClique, &network.collectOrder, &network.eliminationOrder})
        add(*part);
    for (const std::vector<uint32_t> &family : families)
        add(family);
    const uint64_t key = std::stoull(digest.hex().substr(0, 16), nullptr, 16);
    return key ? key : 1;
}

} // namespace zbddc
