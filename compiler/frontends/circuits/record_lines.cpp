#include "compiler/frontends/circuits/record_lines.h"

#include "ir/text_lines.h"

#include <cmath>

namespace zbddc {

bool RecordLines::next(std::vector<std::string_view> &tokens, bool keepComments) {
    while (pos_ < text_.size()) {
        size_t end = text_.find('\n', pos_);
        if (end == std::string_view::npos)
            end = text_.size();
        std::string_view line = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        line_ = nextLine_++;
        tokens.clear();
        size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                ++i;
            const size_t start = i;
            while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
                ++i;
            if (i > start)
                tokens.push_back(line.substr(start, i - start));
        }
        if (tokens.empty() || (tokens[0] == "c" && !keepComments))
            continue;
        return true;
    }
    return false;
}

Result<uint64_t> RecordLines::unsignedAt(std::string_view token, std::string_view what,
                                         uint64_t max) const {
    uint64_t v = 0;
    if (!parseUnsigned(token, v))
        return fail("expected " + std::string(what) + ", found '" + std::string(token) + "'");
    if (v > max)
        return fail(std::string(what) + " " + std::string(token) + " is out of range (at most " +
                    std::to_string(max) + ")");
    return v;
}

Result<int64_t> RecordLines::signedAt(std::string_view token, std::string_view what,
                                      int64_t bound) const {
    const bool negative = !token.empty() && token[0] == '-';
    auto magnitude =
        unsignedAt(negative ? token.substr(1) : token, what, static_cast<uint64_t>(bound));
    if (!magnitude)
        return magnitude.error();
    const int64_t v = static_cast<int64_t>(*magnitude);
    return negative ? -v : v;
}

Result<double> RecordLines::weightAt(std::string_view token, std::string_view what) const {
    double v = 0;
    if (!parseDouble(token, v))
        return fail("expected " + std::string(what) + ", found '" + std::string(token) + "'");
    if (!std::isfinite(v) || v < 0)
        return fail(std::string(what) + " must be a finite non-negative number, found '" +
                    std::string(token) + "'");
    return v;
}

} // namespace zbddc
