// c2d's .nnf text of a circuit: constants become an empty AND (TRUE) and an empty OR (FALSE).
#include "compiler/frontends/circuits/circuit_formats.h"

#include <sstream>

namespace zbddc {

std::string writeNnf(const LogicCircuit &c) {
    std::ostringstream body;
    size_t edges = 0;
    for (uint32_t i = 0; i <= c.root; ++i) {
        const auto kids = c.childrenOf(i);
        switch (c.kind[i]) {
        case LogicKind::Literal:
            body << "L " << c.literal[i];
            break;
        case LogicKind::True:
            body << "A 0";
            break;
        case LogicKind::False:
            body << "O 0 0";
            break;
        case LogicKind::And:
            body << "A " << kids.size();
            break;
        case LogicKind::Or:
            body << "O 0 " << kids.size();
            break;
        }
        for (uint32_t ch : kids)
            body << ' ' << ch;
        edges += kids.size();
        body << '\n';
    }
    return "nnf " + std::to_string(c.root + 1) + " " + std::to_string(edges) + " " +
           std::to_string(c.numVars) + "\n" + body.str();
}

} // namespace zbddc
