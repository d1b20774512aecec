// Oracles for the knowledge-compiler circuits (compiler/frontends/circuits): the weighted model
// count by enumeration of a CNF's models or of a d-DNNF's satisfying assignments (the circuit
// evaluated as Boolean logic, unsmoothed), and the committed PySDD files of
// tests/compiler/frontends/circuit_files (their CNF, and PySDD's own count and derivatives).
#pragma once

#include "compiler/frontends/circuits/circuit_lower.h"
#include "compiler/frontends/circuits/logic_circuit.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace zbddc::testing {

inline const std::string kCircuitFiles =
    ZBDDC_SOURCE_DIR "/tests/compiler/frontends/circuit_files/";

struct Cnf {
    uint32_t numVars = 0;
    std::vector<std::vector<int32_t>> clauses;
};

inline Cnf readDimacs(const std::string &path) {
    Cnf cnf;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream t(line);
        std::string head;
        if (!(t >> head) || head == "c")
            continue;
        if (head == "p") {
            std::string format;
            t >> format >> cnf.numVars;
            continue;
        }
        std::vector<int32_t> clause{std::stoi(head)};
        for (int32_t lit; t >> lit;)
            clause.push_back(lit);
        clause.pop_back(); // the closing 0
        cnf.clauses.push_back(clause);
    }
    return cnf;
}

inline bool literalTrue(int32_t lit, uint64_t assignment) {
    const bool value = (assignment >> (std::abs(lit) - 1)) & 1;
    return lit > 0 ? value : !value;
}

inline double assignmentWeight(uint64_t assignment, uint32_t numVars, const LiteralWeights &w) {
    double p = 1;
    for (uint32_t v = 1; v <= numVars; ++v)
        if (v <= w.numVars())
            p *= (assignment >> (v - 1)) & 1 ? w.positive[v - 1] : w.negative[v - 1];
    return p;
}

// Σ over the models x of the CNF of Π w(literals of x), with `fixed` (a literal, or 0) forced
// true: the count's derivative by the weight of `fixed` times that weight.
inline double bruteForceCnfWmc(const Cnf &cnf, const LiteralWeights &w, int32_t fixed = 0) {
    double total = 0;
    for (uint64_t x = 0; x < (uint64_t{1} << cnf.numVars); ++x) {
        if (fixed && !literalTrue(fixed, x))
            continue;
        bool sat = true;
        for (const auto &clause : cnf.clauses) {
            bool any = false;
            for (int32_t lit : clause)
                any = any || literalTrue(lit, x);
            if (!(sat = any))
                break;
        }
        if (sat)
            total += assignmentWeight(x, cnf.numVars, w);
    }
    return total;
}

// The d-DNNF evaluated as Boolean logic on each assignment of its numVars variables.
inline bool logicValue(const LogicCircuit &c, uint64_t x) {
    std::vector<uint8_t> v(c.numNodes());
    for (uint32_t i = 0; i < c.numNodes(); ++i) {
        switch (c.kind[i]) {
        case LogicKind::False:
            v[i] = 0;
            break;
        case LogicKind::True:
            v[i] = 1;
            break;
        case LogicKind::Literal:
            v[i] = literalTrue(c.literal[i], x);
            break;
        case LogicKind::And:
            v[i] = 1;
            for (uint32_t ch : c.childrenOf(i))
                v[i] &= v[ch];
            break;
        case LogicKind::Or:
            v[i] = 0;
            for (uint32_t ch : c.childrenOf(i))
                v[i] |= v[ch];
            break;
        }
    }
    return v[c.root];
}

inline double bruteForceLogicWmc(const LogicCircuit &c, const LiteralWeights &w) {
    double total = 0;
    for (uint64_t x = 0; x < (uint64_t{1} << c.numVars); ++x)
        if (logicValue(c, x))
            total += assignmentWeight(x, c.numVars, w);
    return total;
}

// PySDD's answers for a committed case: its count, and the derivative by each literal's weight.
struct PysddExpected {
    double wmc = 0;
    std::map<int32_t, double> derivative;
};

inline PysddExpected readExpected(const std::string &path) {
    PysddExpected e;
    std::ifstream in(path);
    std::string key;
    while (in >> key) {
        if (key == "wmc") {
            in >> e.wmc;
        } else {
            int32_t lit;
            in >> lit >> e.derivative[lit];
        }
    }
    return e;
}

inline double relativeError(double got, double want) {
    return want == 0 ? std::abs(got) : std::abs(got - want) / std::abs(want);
}

} // namespace zbddc::testing
