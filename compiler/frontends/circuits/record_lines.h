// The knowledge compilers' files are one record per line with `c` comment lines (c2d, d4, the
// SDD package, the model-counting competitions' weights): a cursor over the records that knows
// each one's line, so every error names file:line.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

class RecordLines {
  public:
    RecordLines(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}

    // The next record's tokens (a line that is neither blank nor a `c` comment); false at the end.
    // With `keepComments`, `c` lines are records too (weights files carry data in them).
    bool next(std::vector<std::string_view> &tokens, bool keepComments = false);
    size_t line() const { return line_; } // the current record's line (1-based)
    const std::string &name() const { return name_; }
    Diagnostic fail(const std::string &message) const { return errorAt(name_, line_, message); }

    // Whole-token numbers, each failing with "expected <what>, found '<token>'".
    Result<uint64_t> unsignedAt(std::string_view token, std::string_view what, uint64_t max) const;
    Result<int64_t> signedAt(std::string_view token, std::string_view what, int64_t bound) const;
    Result<double> weightAt(std::string_view token, std::string_view what) const; // finite, >= 0

  private:
    std::string_view text_;
    std::string name_;
    size_t pos_ = 0;
    size_t line_ = 0;
    size_t nextLine_ = 1;
};

} // namespace zbddc
