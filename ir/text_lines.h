// Shared lexing for the text formats we read (.zdd, UAI, BIF, .wcsp ...): whole-file reading that
// refuses binary data, a token cursor that knows its line so every error names file:line, and the
// two ways our own one-record-per-line texts (the .so metadata, docs/c-api.md) keep a name inside
// its record.
#pragma once

#include "ir/file_io.h"
#include "ir/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

// Reads a whole text file through readInputFile (ir/file_io.h): "path: cannot read file: <why>",
// "path:line: binary data where text was expected", or a file larger than `limit`.
Result<std::string> readTextFile(const std::string &path, uint64_t limit = kModelTextLimit);

// Whitespace-separated tokens, with `comment` (if not '\0') starting a comment to end of line.
class TokenCursor {
  public:
    TokenCursor(std::string_view text, std::string name, char comment = '#');

    bool atEnd();                  // skips blanks and comments first
    size_t line() const { return line_; }
    const std::string &name() const { return name_; }

    // Each `what` names the expected item for the error message ("expected <what>").
    Result<std::string_view> token(std::string_view what);
    // A token written by encodeName, decoded (a malformed escape is an error here).
    Result<std::string> name(std::string_view what);
    Result<uint64_t> unsignedInt(std::string_view what, uint64_t max = UINT64_MAX);
    Result<double> number(std::string_view what);
    Status expect(std::string_view keyword);
    bool peekIs(std::string_view keyword);
    // The rest of the current line (for line-oriented formats), without moving past it.
    bool atLineEnd();

    Diagnostic fail(const std::string &message) const { return errorAt(name_, line_, message); }
    // For errors at end of file: names the last line that held a token, not the one after it.
    Diagnostic failAtEnd(const std::string &message) const {
        return errorAt(name_, lastTokenLine_, message);
    }

  private:
    void skipBlank(bool stopAtNewline);
    std::string_view text_;
    std::string name_;
    char comment_;
    size_t pos_ = 0;
    size_t line_ = 1;
    size_t lastTokenLine_ = 1;
};

// The index of one of `count` variables; beyond them the error says
// "unknown variable K (the <owner> has N variables)".
Result<uint32_t> readVariableIndex(TokenCursor &in, uint64_t count, std::string_view owner);
// `arity` distinct such indices: the scope of a factor or cost function.
Result<std::vector<uint32_t>> readScope(TokenCursor &in, uint64_t arity, uint64_t count,
                                        std::string_view owner);

// A token quoted for an error message, cut short past 40 bytes (a garbage file has long ones).
std::string shownToken(std::string_view token);

// Strict number parsing of a whole token (no trailing junk, no NaN); nullopt-like via bool.
bool parseUnsigned(std::string_view token, uint64_t &out);
bool parseDouble(std::string_view token, double &out);

// A name as one token (.zdd files, model.so metadata): '%', '#' (the comment character), blanks and
// control characters become %XX, and "" becomes "%". decodeName inverts it; nullopt for a malformed escape.
std::string encodeName(std::string_view name);
std::optional<std::string> decodeName(std::string_view token);

} // namespace zbddc
