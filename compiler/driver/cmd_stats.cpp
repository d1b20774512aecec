// `zbddc stats MODEL`: the circuit's size and shape.
#include "compiler/driver/commands.h"
#include "compiler/driver/output.h"
#include "compiler/frontends/load_model.h"
#include "ir/circuit_stats.h"

#include <iostream>

namespace zbddc::driver {

int statsCommand(const StatsOptions &o) {
    auto circuit = o.modelOptions.loadCircuit(o.model);
    if (!circuit)
        return reportError(circuit.error());
    const CircuitStats s = circuitStats(*circuit);
    const std::pair<const char *, uint64_t> rows[] = {
        {"nodes", s.nodes},   {"ops", s.ops},         {"typeA", s.typeA},
        {"typeB", s.typeB},   {"plus", s.plus},       {"inputs", s.inputs},
        {"outputs", s.outputs}, {"levels", s.levels},
    };
    if (o.json) {
        std::cout << "{\"model\":" << jsonString(o.model);
        for (auto [name, value] : rows)
            std::cout << ",\"" << name << "\":" << value;
        std::cout << "}\n";
    } else {
        for (auto [name, value] : rows)
            std::cout << name << ": " << value << "\n";
    }
    return 0;
}

} // namespace zbddc::driver
