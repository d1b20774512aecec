// libFuzzer target for the knowledge compilers' circuit readers: d-DNNF (c2d and d4 .nnf), SDD
// with a fixed vtree, vtrees, literal weights, and batches of weightings. The first byte picks the
// reader, the rest is the file. Beyond "no crash": every rejection names its line and says what is
// wrong, and an accepted d-DNNF or SDD is smoothed (or refused with a reason) and lowers to a
// circuit that verifies, whose c2d text reads back.
#include "compiler/frontends/circuits/circuit_formats.h"
#include "compiler/frontends/circuits/circuit_lower.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "compiler/frontends/circuits/smooth.h"
#include "compiler/frontends/circuits/weight_cases.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

namespace {

void requireLine(const zbddc::Diagnostic &error) {
    if (error.file != "fuzz" || error.line == 0 || error.message.empty())
        std::abort();
}

// The vtree of the seeds: x1 left of (x2 x3).
const zbddc::Vtree &fixedVtree() {
    static const zbddc::Vtree v =
        *zbddc::parseVtree("vtree 5\nL 0 1\nL 2 2\nL 4 3\nI 3 2 4\nI 1 0 3\n", "v");
    return v;
}

void lowerAndCheck(const zbddc::LogicCircuit &c) {
    if (c.numVars > 4096)
        return; // a dense input table per variable: the size, not the reader, is tested here
    auto smooth = zbddc::smoothCircuit(c);
    if (!smooth) {
        if (smooth.error().message.empty())
            std::abort();
        return;
    }
    if (!zbddc::verify(zbddc::lowerLogicCircuit(*smooth)))
        std::abort();
    if (!zbddc::parseNnf(zbddc::writeNnf(c), "back"))
        std::abort();
}

// An accepted batch: whole rows, both literals of every column's variable, weights finite and
// non-negative, and every case's weights in place over no base.
void checkCases(const zbddc::WeightCases &cases) {
    const size_t width = cases.literals.size();
    if (cases.count() == 0 || cases.weights.size() != cases.count() * width)
        std::abort();
    const std::set<int32_t> named(cases.literals.begin(), cases.literals.end());
    for (int32_t lit : cases.literals)
        if (lit == 0 || !named.count(-lit))
            std::abort();
    for (size_t k = 0; k < cases.count(); ++k) {
        const zbddc::LiteralWeights w = zbddc::caseWeights(cases, k, {});
        for (size_t c = 0; c < width; ++c) {
            const int32_t lit = cases.literals[c];
            const double got = (lit > 0 ? w.positive : w.negative)[std::abs(lit) - 1];
            if (got != cases.weights[k * width + c] || !std::isfinite(got) || got < 0)
                std::abort();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    const int reader = data[0] % 5;
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    if (text.find('\0') != std::string::npos)
        return 0; // readTextFile refuses NUL bytes before any parser sees them
    switch (reader) {
    case 0:
    case 1: {
        auto c = reader == 0 ? zbddc::parseNnf(text, "fuzz")
                             : zbddc::parseSdd(text, "fuzz", fixedVtree());
        if (!c)
            requireLine(c.error());
        else
            lowerAndCheck(*c);
        break;
    }
    case 2:
        if (auto v = zbddc::parseVtree(text, "fuzz"); !v)
            requireLine(v.error());
        break;
    case 3:
        if (auto w = zbddc::parseLiteralWeights(text, "fuzz"); !w)
            requireLine(w.error());
        break;
    case 4:
        if (auto cases = zbddc::parseWeightCases(text, "fuzz"); !cases) {
            if (cases.error().message.rfind("no cases", 0) != 0) // a file's fault, not a line's
                requireLine(cases.error());
        } else {
            checkCases(*cases);
        }
        break;
    }
    return 0;
}
