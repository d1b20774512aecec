#include "tools/zbddc/output.h"
#include "ir/file_io.h"
#include "ir/number_text.h"
#include "support/cleanup_on_signal.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

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

std::string choiceList(const std::vector<std::string> &names) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return list;
}

} // namespace zbddc::cli
