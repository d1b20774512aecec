#include "compiler/frontends/zdd/zdd_format.h"
#include "ir/number_text.h"
#include "ir/text_lines.h"

#include <ostream>
#include <sstream>

namespace zbddc {


void writeZdd(const ZddModel &m, std::ostream &out) {
    out << "zdd 1\n";
    for (const Variable &v : m.variables) {
        // Names are written as single tokens (a blank or '#' in a name would split or end the line).
        out << "variable " << encodeName(v.name) << " " << v.states.size();
        for (const std::string &s : v.states)
            out << " " << encodeName(s);
        out << "\n";
    }
    out << "inputs " << m.vars.size() << "\n";
    for (size_t i = 0; i < m.vars.size(); ++i) {
        const InputInfo &in = m.vars[i];
        out << i << " " << inputKindName(in.kind);
        if (in.kind == InputKind::Indicator)
            out << " " << encodeName(m.variables[in.variable].name) << " "
                << encodeName(m.variables[in.variable].states[in.state]);
        if (in.kind == InputKind::Parameter)
            out << " " << shortestText(in.value);
        if (in.kind != InputKind::Indicator && !in.name.empty())
            out << " " << encodeName(in.name);
        out << "\n";
    }
    out << "nodes " << m.nodes.size() << "\n";
    for (size_t i = 0; i < m.nodes.size(); ++i) {
        const ZddNode &n = m.nodes[i];
        out << ZddModel::idOf(i) << " " << n.var << " " << n.lo << " " << n.hi << "\n";
    }
    out << "roots " << m.roots.size() << "\n";
    for (size_t r = 0; r < m.roots.size(); ++r) {
        out << m.roots[r];
        if (!m.rootNames[r].empty())
            out << " " << encodeName(m.rootNames[r]);
        out << "\n";
    }
}

std::string writeZddToString(const ZddModel &m) {
    std::ostringstream s;
    writeZdd(m, s);
    return s.str();
}

} // namespace zbddc
