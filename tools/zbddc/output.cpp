#include "tools/zbddc/output.h"
#include "ir/number_text.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace zbddc::cli {

int reportError(const Diagnostic &d) {
    std::cerr << (d.file.empty() ? "zbddc: " + d.message : d.str()) << std::endl;
    return 1;
}

Status writeFileAtomically(const std::string &path, const std::function<bool(std::ostream &)> &write) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            return errorAt(path, 0, "cannot write file");
        if (!write(out) || !out.flush()) {
            out.close();
            std::remove(tmp.c_str());
            return errorAt(path, 0, "cannot write file");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        return errorAt(path, 0, "cannot write file");
    }
    return Ok{};
}


void printUai(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
    switch (r.task) {
    case Task::Eval:
        out << "EVAL\n" << r.outputs.size();
        for (double v : r.outputs)
            out << " " << shortestText(v);
        out << "\n";
        break;
    case Task::Pr: out << "PR\n" << shortestText(r.log10) << "\n"; break;
    case Task::Mar:
        out << "MAR\n" << r.marginals.size();
        for (const auto &m : r.marginals) {
            out << " " << m.size();
            for (double p : m)
                out << " " << shortestText(p);
        }
        out << "\n";
        break;
    case Task::Mpe:
        out << "MPE\n" << vars.size();
        for (uint32_t s : r.assignment)
            out << " " << (s == kNone ? std::string("-1") : std::to_string(s));
        out << "\n";
        break;
    }
}

std::string jsonNumber(double v) { return std::isfinite(v) ? shortestText(v) : "null"; }

void printJson(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
    out << "{\"task\":" << jsonString(taskName(r.task)) << ",\"value\":" << jsonNumber(r.value)
        << ",\"log10\":" << jsonNumber(r.log10) << ",\"numeric\":" << jsonString(numericName(r.numeric));
    if (r.task == Task::Eval) {
        out << ",\"outputs\":[";
        for (size_t i = 0; i < r.outputs.size(); ++i)
            out << (i ? "," : "") << jsonNumber(r.outputs[i]);
        out << "]";
    }
    if (r.task == Task::Mar) {
        out << ",\"marginals\":{";
        for (size_t v = 0; v < r.marginals.size(); ++v) {
            out << (v ? "," : "") << jsonString(vars[v].name) << ":[";
            for (size_t s = 0; s < r.marginals[v].size(); ++s)
                out << (s ? "," : "") << jsonNumber(r.marginals[v][s]);
            out << "]";
        }
        out << "}";
    }
    if (r.task == Task::Mpe) {
        out << ",\"assignment\":{";
        bool first = true;
        for (size_t v = 0; v < r.assignment.size(); ++v) {
            if (r.assignment[v] == kNone)
                continue;
            out << (first ? "" : ",") << jsonString(vars[v].name) << ":"
                << jsonString(vars[v].states[r.assignment[v]]);
            first = false;
        }
        out << "}";
    }
    if (!r.route.empty())
        out << ",\"route\":" << jsonString(r.route) << ",\"route_why\":" << jsonString(r.routeWhy);
    out << ",\"device\":" << jsonString(r.device) << ",\"time_ms\":" << jsonNumber(r.timeMs) << "}";
}

} // namespace zbddc::cli
