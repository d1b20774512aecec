#include "backends/cpu/metadata.h"

#include <cstdio>
#include <sstream>

namespace zbddc {

std::string encodeName(const std::string &name) {
    if (name.empty())
        return "%";
    std::string out;
    for (unsigned char ch : name) {
        if (ch <= ' ' || ch == '%' || ch == 0x7f) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", ch);
            out += hex;
        } else {
            out += static_cast<char>(ch);
        }
    }
    return out;
}

std::string writeModelMetadata(const Circuit &c, Semiring semiring, Numeric numeric) {
    std::ostringstream out;
    out.precision(17);
    out << "zbdd-model 1\n";
    out << "semiring " << semiringName(semiring) << "\n";
    out << "numeric " << numericName(numeric) << "\n";
    out << "variables " << c.variables.size() << "\n";
    for (const Variable &v : c.variables) {
        out << "variable " << encodeName(v.name) << " " << v.states.size();
        for (const std::string &s : v.states)
            out << " " << encodeName(s);
        out << "\n";
    }
    out << "inputs " << c.inputs.size() << "\n";
    for (const InputInfo &in : c.inputs) {
        switch (in.kind) {
        case InputKind::Indicator: out << "indicator " << in.variable << " " << in.state; break;
        case InputKind::Parameter: out << "parameter " << in.value; break;
        case InputKind::Free: out << "free"; break;
        }
        out << " " << encodeName(in.name) << "\n";
    }
    out << "outputs " << c.outputs.size() << "\n";
    for (size_t o = 0; o < c.outputs.size(); ++o)
        out << "output " << encodeName(o < c.outputNames.size() ? c.outputNames[o] : "") << "\n";
    return out.str();
}

} // namespace zbddc
