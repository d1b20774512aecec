#include "tools/zbddc/output.h"
#include "ir/file_io.h"

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

std::string choiceList(const std::vector<std::string> &names) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return list;
}

} // namespace zbddc::cli
