#include "ir/result.h"

namespace zbddc {

std::string Diagnostic::str() const {
    if (file.empty())
        return message;
    if (line == 0)
        return file + ": " + message;
    return file + ":" + std::to_string(line) + ": " + message;
}

Diagnostic errorAt(std::string file, size_t line, std::string message) {
    return Diagnostic{std::move(file), line, std::move(message)};
}

Diagnostic error(std::string message) { return Diagnostic{{}, 0, std::move(message)}; }

} // namespace zbddc
