#include "compiler/frontends/circuits/weight_cases.h"

#include "compiler/frontends/circuits/literal_weights.h"
#include "compiler/frontends/circuits/logic_circuit.h"
#include "compiler/frontends/circuits/record_lines.h"
#include "ir/parse_text_file.h"
#include "ir/text_lines.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace zbddc {
namespace {

class CasesParser {
  public:
    CasesParser(std::string_view text, const std::string &name) : in_(text, name) {}

    Result<WeightCases> parse() {
        std::vector<std::string_view> t;
        while (in_.next(t)) {
            if (Status s = t[0] == "literals" ? header(t) : row(t); !s)
                return s.error();
        }
        if (cases_.count() == 0)
            return errorAt(in_.name(), 0,
                           "no cases: expected one line of weights per case (docs/formats/"
                           "circuits.md, \"Batches of weights\")");
        return std::move(cases_);
    }

  private:
    Status header(const std::vector<std::string_view> &t) {
        if (!cases_.literals.empty())
            return in_.fail(cases_.weights.empty()
                                ? "a second 'literals' line"
                                : "the 'literals' line must come before the first case");
        if (t.size() < 2)
            return in_.fail("expected 'literals <literal> <literal> ...'");
        std::unordered_map<int64_t, bool> named;
        for (size_t k = 1; k < t.size(); ++k) {
            auto lit = in_.signedAt(t[k], "literal", kMaxLogicVariables);
            if (!lit)
                return lit.error();
            if (*lit == 0)
                return in_.fail("literal 0 (variables are numbered from 1)");
            if (!named.emplace(*lit, true).second)
                return in_.fail("literal " + std::string(t[k]) + " named twice");
            cases_.literals.push_back(static_cast<int32_t>(*lit));
        }
        for (int32_t lit : cases_.literals)
            if (!named.count(-int64_t{lit}))
                return in_.fail("literal " + std::to_string(lit) + " without " +
                                std::to_string(-lit) +
                                ": name both literals of a weighted variable");
        return Ok{};
    }

    // Without a header, the first case's width sets the columns: x1, ¬x1, x2, ¬x2, ...
    Status row(const std::vector<std::string_view> &t) {
        if (cases_.literals.empty()) {
            if (t.size() % 2 != 0)
                return in_.fail("a case without a 'literals' line lists a positive and a negative "
                                "weight per variable (an even count), found " +
                                std::to_string(t.size()));
            if (t.size() / 2 > kMaxLogicVariables)
                return in_.fail("too many variables");
            for (size_t k = 0; k < t.size(); ++k) {
                const int32_t var = static_cast<int32_t>(k / 2 + 1);
                cases_.literals.push_back(k % 2 == 0 ? var : -var);
            }
        } else if (t.size() != cases_.literals.size()) {
            return in_.fail("case " + std::to_string(cases_.count() + 1) + " has " +
                            std::to_string(t.size()) + " weights, for " +
                            std::to_string(cases_.literals.size()) + " literals");
        }
        for (size_t k = 0; k < t.size(); ++k) {
            auto weight = in_.weightAt(t[k], "the weight of " + std::to_string(cases_.literals[k]));
            if (!weight)
                return weight.error();
            cases_.weights.push_back(*weight);
        }
        return Ok{};
    }

    RecordLines in_;
    WeightCases cases_;
};

} // namespace

uint32_t WeightCases::numVars() const {
    uint32_t n = 0;
    for (int32_t lit : literals)
        n = std::max(n, static_cast<uint32_t>(std::abs(lit)));
    return n;
}

Result<WeightCases> parseWeightCases(std::string_view text, const std::string &name) {
    return CasesParser(text, name).parse();
}

Result<WeightCases> readWeightCasesFile(const std::string &path) {
    return parseTextFile(path, parseWeightCases);
}

LiteralWeights caseWeights(const WeightCases &cases, size_t k, const LiteralWeights &base) {
    LiteralWeights w = base;
    const uint32_t n = std::max(base.numVars(), cases.numVars());
    w.positive.resize(n, 1.0);
    w.negative.resize(n, 1.0);
    const size_t width = cases.literals.size();
    for (size_t c = 0; c < width; ++c) {
        const int32_t lit = cases.literals[c];
        (lit > 0 ? w.positive : w.negative)[std::abs(lit) - 1] = cases.weights[k * width + c];
    }
    return w;
}

std::vector<std::vector<double>> freeWeightInputs(Circuit &circuit, const WeightCases &cases) {
    const uint32_t n = literalVariableCount(circuit);
    LiteralWeights base;
    for (uint32_t v = 1; v <= n; ++v) {
        base.positive.push_back(circuit.inputs[weightInput(n, v, true)].value);
        base.negative.push_back(circuit.inputs[weightInput(n, v, false)].value);
    }
    std::vector<LiteralWeights> weightings;
    for (size_t k = 0; k < cases.count(); ++k)
        weightings.push_back(caseWeights(cases, k, base));
    // literalWeightBatch varies exactly the weight inputs, ascending: the free inputs' order.
    const InputBatch batch = literalWeightBatch(circuit, weightings);
    std::vector<std::vector<double>> rows;
    for (size_t k = 0; k < batch.count; ++k)
        rows.emplace_back(batch.values.begin() + k * 2 * n, batch.values.begin() + (k + 1) * 2 * n);
    for (uint32_t i = 2 * n; i < 4 * n; ++i) {
        circuit.inputs[i].kind = InputKind::Free;
        circuit.inputs[i].value = 0;
    }
    return rows;
}

} // namespace zbddc
