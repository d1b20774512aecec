#include "pipeline/json_results.h"

#include "ir/number_text.h"
#include "support/json.h"

#include <cmath>
#include <ostream>

namespace zbddc::pipeline {

void writeJsonResult(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
    out << "{\"task\":" << jsonString(taskName(r.task)) << ",\"value\":" << jsonNumber(r.value)
        << ",\"log10\":" << jsonNumber(r.log10);
    if (std::isinf(r.log10) && r.log10 < 0)
        out << ",\"zero_probability\":true";
    out << ",\"numeric\":" << jsonString(numericName(r.numeric));
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
    if (r.cost)
        out << ",\"cost\":" << *r.cost;
    if (r.approximate)
        out << ",\"approximate\":true,\"iterations\":" << r.approximate->iterations
            << ",\"converged\":" << (r.approximate->converged ? "true" : "false")
            << ",\"max_residual\":" << jsonNumber(r.approximate->maxResidual);
    if (r.errorBound)
        out << ",\"error_bound\":{\"relative\":" << jsonNumber(r.errorBound->value)
            << ",\"log_absolute\":" << jsonNumber(r.errorBound->logAbsolute)
            << ",\"marginals_relative\":" << jsonNumber(r.errorBound->marginals) << "}";
    if (!r.numericNote.empty())
        out << ",\"numeric_note\":" << jsonString(r.numericNote);
    if (!r.route.empty())
        out << ",\"route\":" << jsonString(r.route) << ",\"route_why\":" << jsonString(r.routeWhy);
    out << "," << deviceJson(r.device, false) << ",\"time_ms\":" << jsonNumber(r.timeMs) << "}";
}

std::string deviceJson(const DeviceReport &d, bool spaced) {
    const char *comma = spaced ? ", " : ",", *colon = spaced ? ": " : ":";
    auto member = [&](const char *key, const std::string &value, bool first = false) {
        return (first ? "" : std::string(comma)) + "\"" + key + "\"" + colon + value;
    };
    return member("device", jsonString(d.label()), true) + comma + "\"device_report\"" + colon +
           "{" + member("kind", jsonString(deviceKindName(d.kind)), true) +
           member("name", jsonString(d.name)) +
           member("ordinal", d.ordinal < 0 ? "null" : std::to_string(d.ordinal)) +
           member("arithmetic", d.arithmetic ? jsonString(numericName(*d.arithmetic)) : "null") +
           member("route", jsonString(d.route)) + member("notes", jsonString(d.notes)) + "}";
}

void writeJsonSolution(const TaskResult &r, const std::vector<Variable> &variables,
                       const std::string &moreJson, std::ostream &out) {
    const bool feasible = *r.cost != "null";
    out << "{\"task\": \"mpe\", \"feasible\": " << (feasible ? "true" : "false")
        << ", \"cost\": " << *r.cost << ", \"assignment\": {";
    for (size_t v = 0; v < variables.size(); ++v)
        out << (v ? ", " : "") << jsonString(variables[v].name) << ": "
            << jsonString(std::to_string(r.assignment[v]));
    out << "}, " << deviceJson(r.device, true)
        << ", \"induced_width\": " << r.elimination->inducedWidth
        << ", \"largest_table_entries\": " << jsonNumber(r.elimination->largestTableEntries)
        << ", \"time_ms\": " << jsonNumber(r.timeMs) << moreJson << "}\n";
}

} // namespace zbddc::pipeline
