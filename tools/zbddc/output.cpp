#include "tools/zbddc/output.h"
#include "ir/file_io.h"
#include "ir/number_text.h"
#include "support/cleanup_on_signal.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <ext/stdio_filebuf.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <unistd.h>

namespace zbddc::cli {

int reportError(const Diagnostic &d) {
    std::cerr << (d.file.empty() ? "zbddc: " : "") << d.str() << std::endl;
    return 1;
}

void printWarnings(const std::vector<Diagnostic> &warnings, std::string_view kind) {
    for (size_t i = 0; i < warnings.size() && i < kShownWarnings; ++i) {
        Diagnostic shown = warnings[i];
        shown.message = std::string(kind) + ": " + shown.message;
        std::cerr << (shown.file.empty() ? "zbddc: " : "") << shown.str() << "\n";
    }
    if (warnings.size() <= kShownWarnings)
        return;
    std::cerr << "zbddc: " << warnings.size() - kShownWarnings << " more " << kind << "s not shown";
    if (kind == "warning")
        std::cerr << " (--strict makes the first one an error)";
    std::cerr << "\n";
}

std::string log10Text(double log10) {
    return shortestText(std::isinf(log10) && log10 < 0 ? std::numeric_limits<double>::lowest()
                                                       : log10);
}

const char *uaiTaskLine(Task task) {
    switch (task) {
    case Task::Eval:
        return "EVAL";
    case Task::Pr:
        return "PR";
    case Task::Mar:
        return "MAR";
    case Task::Mpe:
        return "MPE";
    }
    return "?";
}

static void printSolutionLine(const TaskResult &r, const std::vector<Variable> &vars,
                              std::ostream &out) {
    switch (r.task) {
    case Task::Eval:
        out << r.outputs.size();
        for (double v : r.outputs)
            out << " " << shortestText(v);
        break;
    case Task::Pr:
        out << log10Text(r.log10);
        break;
    case Task::Mar:
        out << r.marginals.size();
        for (const auto &m : r.marginals) {
            out << " " << m.size();
            for (double p : m)
                out << " " << shortestText(p);
        }
        break;
    case Task::Mpe:
        // Every route fails an MPE case whose evidence is impossible, so every state is known.
        out << vars.size();
        for (uint32_t s : r.assignment)
            out << " " << s;
        break;
    }
    out << "\n";
}

void printUai(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
    out << uaiTaskLine(r.task) << "\n";
    printSolutionLine(r, vars, out);
}

void printUaiBatch(Task task, const std::vector<Result<TaskResult>> &batch,
                   const std::vector<Variable> &vars, std::ostream &out) {
    out << uaiTaskLine(task) << "\n" << batch.size() << "\n";
    for (const Result<TaskResult> &r : batch) {
        if (r)
            printSolutionLine(*r, vars, out);
        else
            out << "0\n";
    }
}

int emitRunOutput(const std::string &text, const std::string &outputFile, bool uaiOutput,
                  const std::string &model, const std::string &task) {
    std::string path = outputFile;
    if (uaiOutput)
        path = std::filesystem::path(model).filename().string() + "." + task;
    if (path.empty()) {
        std::cout << text; // exit_guard.cpp flushes, and fails the run where that fails
        return 0;
    }
    auto written = writeFileAtomically(path, [&](std::ostream &out) { return bool(out << text); });
    return written ? 0 : reportError(written.error());
}

void printJson(const TaskResult &r, const std::vector<Variable> &vars, std::ostream &out) {
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

void printErrorBoundNote(const std::vector<Result<TaskResult>> &batch, std::ostream &out) {
    ErrorBound worst;
    size_t bounded = 0, elsewhere = 0;
    std::string mode, firstNote;
    for (const Result<TaskResult> &r : batch) {
        if (!r)
            continue;
        if (!r->numericNote.empty()) {
            if (elsewhere++ == 0)
                firstNote = r->numericNote;
            continue;
        }
        if (!r->errorBound)
            continue;
        ++bounded;
        mode = numericName(r->numeric);
        worst.value = std::max(worst.value, r->errorBound->value);
        worst.logAbsolute = std::max(worst.logAbsolute, r->errorBound->logAbsolute);
        worst.marginals = std::max(worst.marginals, r->errorBound->marginals);
    }
    if (elsewhere)
        out << "zbddc: note: " << (batch.size() > 1 ? std::to_string(elsewhere) + " of " +
                                                          std::to_string(batch.size()) + " cases: "
                                                    : "")
            << firstNote << (elsewhere > 1 ? " (the first's reason; the JSON's device has each)" : "")
            << "\n";
    if (bounded == 0)
        return;
    out << "zbddc: note: " << mode << " error bound: P(e) relative " << twoDigits(worst.value)
        << " (log " << twoDigits(worst.logAbsolute) << ")";
    if (worst.marginals > 0)
        out << ", marginals relative " << twoDigits(worst.marginals);
    out << (bounded > 1 ? ", the largest over " + std::to_string(bounded) + " cases" : "") << "\n";
}

} // namespace zbddc::cli
