#include "ir/text_lines.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace zbddc {

Result<std::string> readTextFile(const std::string &path, uint64_t limit) {
    return readInputFile(path, limit, FileContent::Text);
}

TokenCursor::TokenCursor(std::string_view text, std::string name, char comment)
    : text_(text), name_(std::move(name)), comment_(comment) {}

void TokenCursor::skipBlank(bool stopAtNewline) {
    while (pos_ < text_.size()) {
        const char ch = text_[pos_];
        if (ch == '\n') {
            if (stopAtNewline)
                return;
            ++line_;
            ++pos_;
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            ++pos_;
        } else if (comment_ != '\0' && ch == comment_) {
            while (pos_ < text_.size() && text_[pos_] != '\n')
                ++pos_;
        } else {
            return;
        }
    }
}

bool TokenCursor::atEnd() {
    skipBlank(false);
    return pos_ >= text_.size();
}

bool TokenCursor::atLineEnd() {
    skipBlank(true);
    return pos_ >= text_.size() || text_[pos_] == '\n';
}

Result<std::string_view> TokenCursor::token(std::string_view what) {
    if (atEnd())
        return failAtEnd("unexpected end of file, expected " + std::string(what));
    lastTokenLine_ = line_;
    const size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           !(comment_ != '\0' && text_[pos_] == comment_))
        ++pos_;
    return text_.substr(start, pos_ - start);
}

bool TokenCursor::peekIs(std::string_view keyword) {
    if (atEnd())
        return false;
    return text_.substr(pos_, keyword.size()) == keyword &&
           (pos_ + keyword.size() == text_.size() ||
            std::isspace(static_cast<unsigned char>(text_[pos_ + keyword.size()])));
}

Status TokenCursor::expect(std::string_view keyword) {
    auto t = token("'" + std::string(keyword) + "'");
    if (!t)
        return t.error();
    if (*t != keyword)
        return fail("expected '" + std::string(keyword) + "', found " + shownToken(*t));
    return Ok{};
}

std::string shownToken(std::string_view token) {
    static constexpr size_t kShown = 40;
    if (token.size() <= kShown)
        return "'" + std::string(token) + "'";
    return "'" + std::string(token.substr(0, kShown)) + "...' (" + std::to_string(token.size()) +
           " bytes)";
}

bool parseUnsigned(std::string_view token, uint64_t &out) {
    if (token.empty() || token[0] == '+' || token[0] == '-')
        return false;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
    return ec == std::errc() && end == token.data() + token.size();
}

bool parseDouble(std::string_view token, double &out) {
    if (token.empty())
        return false;
    std::string_view t = token[0] == '+' ? token.substr(1) : token; // from_chars rejects '+'
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size() && !t.empty() && !std::isnan(out);
}

// The next token as `parse` (parseUnsigned, parseDouble) reads it: "expected <what>, found
// '<token>'" where it reads none.
template <class T>
static Result<T> parsedToken(TokenCursor &in, std::string_view what,
                             bool (*parse)(std::string_view, T &)) {
    auto t = in.token(what);
    if (!t)
        return t.error();
    T v{};
    if (!parse(*t, v))
        return in.fail("expected " + std::string(what) + ", found " + shownToken(*t));
    return v;
}

Result<uint64_t> TokenCursor::unsignedInt(std::string_view what, uint64_t max) {
    auto v = parsedToken<uint64_t>(*this, what, parseUnsigned);
    if (v && *v > max)
        return fail(std::string(what) + " " + std::to_string(*v) + " is out of range (at most " +
                    std::to_string(max) + ")");
    return v;
}

Result<double> TokenCursor::number(std::string_view what) {
    return parsedToken<double>(*this, what, parseDouble);
}

Result<uint32_t> readVariableIndex(TokenCursor &in, uint64_t count, std::string_view owner) {
    auto v = in.unsignedInt("variable index");
    if (!v)
        return v.error();
    if (*v >= count)
        return in.fail("unknown variable " + std::to_string(*v) + " (the " + std::string(owner) +
                       " has " + std::to_string(count) + " variables)");
    return static_cast<uint32_t>(*v);
}

Result<std::vector<uint32_t>> readScope(TokenCursor &in, uint64_t arity, uint64_t count,
                                        std::string_view owner) {
    std::vector<uint32_t> scope;
    for (uint64_t i = 0; i < arity; ++i) {
        auto v = readVariableIndex(in, count, owner);
        if (!v)
            return v.error();
        if (std::find(scope.begin(), scope.end(), *v) != scope.end())
            return in.fail("variable " + std::to_string(*v) + " appears twice in one scope");
        scope.push_back(*v);
    }
    return scope;
}

Result<std::string> TokenCursor::name(std::string_view what) {
    auto t = token(what);
    if (!t)
        return t.error();
    auto decoded = decodeName(*t);
    if (!decoded)
        return fail("bad percent-encoding in " + std::string(what) + " '" + std::string(*t) + "'");
    return *decoded;
}

std::string encodeName(std::string_view name) {
    if (name.empty())
        return "%";
    std::string out;
    for (unsigned char ch : name) {
        if (ch <= ' ' || ch == '%' || ch == '#' || ch == 0x7f) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", ch);
            out += hex;
        } else {
            out += static_cast<char>(ch);
        }
    }
    return out;
}

std::optional<std::string> decodeName(std::string_view token) {
    if (token == "%")
        return std::string();
    std::string out;
    for (size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '%') {
            out += token[i];
            continue;
        }
        if (i + 2 >= token.size())
            return std::nullopt;
        const std::string hex(token.substr(i + 1, 2));
        char *end = nullptr;
        const unsigned long v = std::strtoul(hex.c_str(), &end, 16);
        if (*end != '\0' || !std::isxdigit(static_cast<unsigned char>(hex[0])))
            return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
    }
    return out;
}

} // namespace zbddc
