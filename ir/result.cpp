#include "ir/result.h"

#include <string_view>

namespace zbddc {

namespace {

// `text` fit for one line of a terminal: control bytes (a file's binary data echoed in a message)
// as \xNN (line breaks kept: a few messages have several lines), and beyond 1000 bytes cut short
// with how many more there were.
std::string printableText(std::string_view text) {
    static constexpr size_t kShown = 1000;
    std::string out;
    for (size_t i = 0; i < text.size() && i < kShown; ++i) {
        const unsigned char ch = static_cast<unsigned char>(text[i]);
        if ((ch < 0x20 && ch != '\t' && ch != '\n') || ch == 0x7f) {
            static const char digits[] = "0123456789abcdef";
            out += {'\\', 'x', digits[ch >> 4], digits[ch & 0xf]};
        } else {
            out += static_cast<char>(ch);
        }
    }
    if (text.size() > kShown)
        out += "... (" + std::to_string(text.size() - kShown) + " more bytes)";
    return out;
}

} // namespace

std::string Diagnostic::str() const {
    if (file.empty())
        return printableText(message);
    if (line == 0)
        return printableText(file + ": " + message);
    return printableText(file + ":" + std::to_string(line) + ": " + message);
}

Diagnostic errorAt(std::string file, size_t line, std::string message) {
    return Diagnostic{std::move(file), line, std::move(message)};
}

Diagnostic error(std::string message) { return Diagnostic{{}, 0, std::move(message)}; }

} // namespace zbddc
