#include "compiler/frontends/circuits/circuit_load.h"

#include "compiler/frontends/circuits/circuit_formats.h"
#include "compiler/frontends/circuits/circuit_lower.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "compiler/frontends/circuits/smooth.h"

#include <algorithm>

namespace zbddc {
namespace {

bool endsWithCaseless(const std::string &s, std::string_view tail) {
    if (s.size() < tail.size())
        return false;
    return std::equal(tail.begin(), tail.end(), s.end() - tail.size(),
                      [](char tailChar, char c) { return (c | 0x20) == tailChar; });
}

} // namespace

bool isLogicCircuitFile(const std::string &path) {
    return endsWithCaseless(path, ".nnf") || endsWithCaseless(path, ".sdd");
}

Result<LogicCircuit> readLogicCircuitFile(const std::string &path, const std::string &vtreePath) {
    return endsWithCaseless(path, ".sdd") ? readSddFile(path, vtreePath) : readNnfFile(path);
}

Result<Circuit> loadLogicCircuit(const std::string &path, const std::string &weightsPath,
                                 uint32_t minVariables, const std::string &vtreePath) {
    auto logic = readLogicCircuitFile(path, vtreePath);
    if (!logic)
        return logic.error();
    logic->numVars = std::max(logic->numVars, minVariables);
    LiteralWeights weights;
    if (!weightsPath.empty()) {
        auto read = readLiteralWeightsFile(weightsPath);
        if (!read)
            return read.error();
        weights = std::move(*read);
        logic->numVars =
            std::max(logic->numVars, weights.numVars()); // weighted, unmentioned: smoothed in
    }
    auto smooth = smoothCircuit(*logic);
    if (!smooth)
        return errorAt(path, smooth.error().line, smooth.error().message);
    Circuit circuit = lowerLogicCircuit(*smooth);
    if (Status s = setLiteralWeights(circuit, weights); !s)
        return errorAt(weightsPath, 0, s.error().message);
    if (Status s = verify(circuit); !s)
        return errorAt(path, 0, "invalid circuit: " + s.error().message);
    return circuit;
}

} // namespace zbddc
