#include "compiler/frontends/circuits/literal_weights.h"

#include "compiler/frontends/circuits/logic_circuit.h"
#include "compiler/frontends/circuits/record_lines.h"
#include "ir/parse_text_file.h"
#include "ir/text_lines.h"

#include <cmath>
#include <limits>

namespace zbddc {
namespace {

constexpr int64_t kMaxVar =
    kMaxLogicVariables; // a dense table per variable: a typo cannot eat memory

class WeightsParser {
  public:
    WeightsParser(std::string_view text, const std::string &name) : in_(text, name) {}

    Result<LiteralWeights> parse() {
        std::vector<std::string_view> t;
        while (in_.next(t, true)) {
            Status s = Ok{};
            if (t[0] == "c" && t.size() >= 3 && t[1] == "p" && t[2] == "weight")
                s = literalLine(t, 3, true);
            else if (t[0] == "c" && t.size() >= 2 && t[1] == "weights")
                s = allWeights(t);
            else if (t[0] == "c")
                continue;
            else if (t[0] == "w")
                s = literalLine(t, 1, false);
            else if (t[0] == "p")
                s = problemLine(t);
            else
                s = tableRow(t);
            if (!s)
                return s.error();
        }
        LiteralWeights w;
        w.positive.assign(numVars_, 1.0);
        w.negative.assign(numVars_, 1.0);
        for (uint32_t v = 0; v < numVars_; ++v) {
            if (v < seen_.size() && seen_[v] != 0 && seen_[v] != 3)
                return errorAt(in_.name(), lineOf_[v],
                               "only the weight of " + std::string(seen_[v] == 1 ? "-" : "") +
                                   std::to_string(v + 1) + "'s other literal is missing: " +
                                   "give both literals of a weighted variable");
            if (v < seen_.size() && seen_[v] == 3) {
                w.positive[v] = pos_[v];
                w.negative[v] = neg_[v];
            }
        }
        return w;
    }

  private:
    Status set(int64_t lit, double weight) {
        const uint32_t v = static_cast<uint32_t>(std::llabs(lit)) - 1;
        if (v >= seen_.size()) {
            seen_.resize(v + 1, 0);
            pos_.resize(v + 1, 1.0);
            neg_.resize(v + 1, 1.0);
            lineOf_.resize(v + 1, 0);
        }
        const uint8_t bit = lit > 0 ? 2 : 1;
        if (seen_[v] & bit)
            return in_.fail("a second weight for literal " + std::to_string(lit));
        seen_[v] |= bit;
        (lit > 0 ? pos_ : neg_)[v] = weight;
        lineOf_[v] = in_.line();
        numVars_ = std::max(numVars_, v + 1);
        return Ok{};
    }

    // `w LIT W [0]` or `c p weight LIT W [0]`.
    Status literalLine(const std::vector<std::string_view> &t, size_t at, bool endsInZero) {
        const size_t size = t.size() - at;
        if (size != 2 && !(size == 3 && t.back() == "0"))
            return in_.fail(endsInZero ? "expected 'c p weight <literal> <weight> 0'"
                                       : "expected 'w <literal> <weight>'");
        auto lit = in_.signedAt(t[at], "literal", kMaxVar);
        if (!lit)
            return lit.error();
        if (*lit == 0)
            return in_.fail("literal 0 (variables are numbered from 1)");
        auto weight = in_.weightAt(t[at + 1], "weight");
        if (!weight)
            return weight.error();
        return set(*lit, *weight);
    }

    Status allWeights(const std::vector<std::string_view> &t) {
        if ((t.size() - 2) % 2 != 0)
            return in_.fail(
                "'c weights' lists a positive and a negative weight per variable: an even count");
        if ((t.size() - 2) / 2 > static_cast<size_t>(kMaxVar))
            return in_.fail("too many variables");
        for (size_t k = 2; k < t.size(); ++k) {
            auto weight = in_.weightAt(t[k], "weight");
            if (!weight)
                return weight.error();
            const int64_t var = static_cast<int64_t>((k - 2) / 2 + 1);
            if (Status s = set(k % 2 == 0 ? var : -var, *weight); !s)
                return s;
        }
        return Ok{};
    }

    Status problemLine(const std::vector<std::string_view> &t) {
        if (t.size() < 3)
            return in_.fail("expected 'p <format> <variables> ...'");
        auto n = in_.unsignedAt(t[2], "variable count", kMaxVar);
        if (!n)
            return n.error();
        numVars_ = std::max(numVars_, static_cast<uint32_t>(*n));
        return Ok{};
    }

    Status tableRow(const std::vector<std::string_view> &t) {
        if (t.size() != 3)
            return in_.fail("expected '<variable> <positive weight> <negative weight>' (or a 'w', "
                            "'c p weight' or 'c weights' line)");
        auto var = in_.signedAt(t[0], "variable", kMaxVar);
        if (!var)
            return var.error();
        if (*var <= 0)
            return in_.fail("variable " + std::string(t[0]) + " (variables are numbered from 1)");
        for (int k = 0; k < 2; ++k) {
            auto weight = in_.weightAt(t[1 + k], k ? "negative weight" : "positive weight");
            if (!weight)
                return weight.error();
            if (Status s = set(k ? -*var : *var, *weight); !s)
                return s;
        }
        return Ok{};
    }

    RecordLines in_;
    uint32_t numVars_ = 0;
    std::vector<uint8_t>
        seen_; // per variable: bit 1 the negative literal's weight, bit 2 the positive's
    std::vector<double> pos_, neg_;
    std::vector<size_t> lineOf_;
};

} // namespace

Result<LiteralWeights> parseLiteralWeights(std::string_view text, const std::string &name) {
    return WeightsParser(text, name).parse();
}

Result<LiteralWeights> readLiteralWeightsFile(const std::string &path) {
    return parseTextFile(path, parseLiteralWeights);
}

InputBatch literalWeightBatch(const Circuit &circuit, std::span<const LiteralWeights> cases) {
    const uint32_t n = literalVariableCount(circuit);
    InputBatch batch;
    batch.shared.assign(circuit.numInputs(), 1.0);
    for (uint32_t i = 0; i < 2 * n; ++i)
        batch.varying.push_back(2 * n + i);
    std::vector<double> row(2 * n);
    for (const LiteralWeights &w : cases) {
        for (uint32_t v = 1; v <= n; ++v) {
            row[indicatorInput(v, false)] = v <= w.numVars() ? w.negative[v - 1] : 1.0;
            row[indicatorInput(v, true)] = v <= w.numVars() ? w.positive[v - 1] : 1.0;
        }
        batch.add(row);
    }
    return batch;
}

} // namespace zbddc
